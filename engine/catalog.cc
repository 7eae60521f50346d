#include "engine/catalog.h"

#include <cctype>
#include <charconv>

#include "nlohmann/json.hpp"

namespace partkv::engine {

std::string EncodeTableRecord(const TableRecord& r) {
  nlohmann::json j;
  j["name"] = r.name;
  j["id"] = r.id;
  j["created"] = r.created_ticks;
  j["lower_bounds"] = r.lower_bounds;
  j["profile"] = r.profile;
  j["pk_scheme"] = r.pk_scheme;
  j["rk_scheme"] = r.rk_scheme;
  if (r.throttling >= 0) j["throttling"] = r.throttling == 1;
  return j.dump();
}

Result<TableRecord> DecodeTableRecord(std::string_view bytes) {
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  auto bad = [](const std::string& why) {
    return Status::Corruption("catalog table record: " + why);
  };
  if (!j.is_object()) return bad("not a JSON object");
  TableRecord r;
  auto name = j.find("name");
  auto id = j.find("id");
  auto created = j.find("created");
  auto bounds = j.find("lower_bounds");
  if (name == j.end() || !name->is_string()) return bad("missing name");
  if (id == j.end() || !id->is_number_unsigned()) return bad("missing id");
  if (created == j.end() || !created->is_number_integer()) return bad("missing created");
  if (bounds == j.end() || !bounds->is_array() || bounds->empty()) return bad("missing lower_bounds");
  r.name = name->get<std::string>();
  r.id = id->get<uint32_t>();
  r.created_ticks = created->get<int64_t>();
  for (const auto& b : *bounds) {
    if (!b.is_number_unsigned()) return bad("lower bound is not an unsigned number");
    uint64_t v = b.get<uint64_t>();
    if (!r.lower_bounds.empty() && v <= r.lower_bounds.back()) return bad("lower_bounds not increasing");
    r.lower_bounds.push_back(v);
  }
  if (r.lower_bounds[0] != 0) return bad("first lower bound is not 0");
  for (const char* key : {"profile", "pk_scheme", "rk_scheme"}) {
    auto it = j.find(key);
    if (it != j.end() && !it->is_string()) return bad(std::string(key) + " is not a string");
  }
  if (auto it = j.find("profile"); it != j.end()) r.profile = it->get<std::string>();
  if (auto it = j.find("pk_scheme"); it != j.end()) r.pk_scheme = it->get<std::string>();
  if (auto it = j.find("rk_scheme"); it != j.end()) r.rk_scheme = it->get<std::string>();
  if (auto it = j.find("throttling"); it != j.end()) {
    if (!it->is_boolean()) return bad("throttling is not a boolean");
    r.throttling = it->get<bool>() ? 1 : 0;
  }
  return r;
}

std::vector<uint64_t> EvenLowerBounds(uint32_t n) {
  std::vector<uint64_t> out;
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    unsigned __int128 num = static_cast<unsigned __int128>(i) << 64;
    out.push_back(static_cast<uint64_t>((num + n - 1) / n));
  }
  return out;
}

std::string PartitionColumnFamilyName(uint32_t table_id, uint32_t index) {
  return "t" + std::to_string(table_id) + ".p" + std::to_string(index);
}

bool ParsePartitionColumnFamilyName(std::string_view name, uint32_t* table_id, uint32_t* index) {
  if (name.size() < 5 || name[0] != 't') return false;
  size_t dot = name.find(".p");
  if (dot == std::string_view::npos) return false;
  const char* b = name.data();
  auto r1 = std::from_chars(b + 1, b + dot, *table_id);
  if (r1.ec != std::errc() || r1.ptr != b + dot || dot == 1) return false;
  auto r2 = std::from_chars(b + dot + 2, b + name.size(), *index);
  return r2.ec == std::errc() && r2.ptr == b + name.size() && dot + 2 < name.size();
}

std::string LowerCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string TableKey(std::string_view name) { return kTablePrefix + LowerCase(name); }

}  // namespace partkv::engine
