#include "engine/local/catalog.h"

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
  if (r.feed_set) {
    j["feed"] = {{"enabled", r.feed.enabled},
                 {"retention", r.feed.retention.count()},
                 {"max_bytes", r.feed.max_bytes}};
  }
  if (r.ttl_seconds != kTtlOff) j["ttl"] = r.ttl_seconds;
  if (!r.access_policies.empty()) {
    nlohmann::json acl = nlohmann::json::array();
    for (const auto& p : r.access_policies) {
      nlohmann::json e;
      e["id"] = p.id;
      if (p.start) e["start"] = p.start->ticks;
      if (p.expiry) e["expiry"] = p.expiry->ticks;
      e["permission"] = p.permission;
      acl.push_back(std::move(e));
    }
    j["acl"] = std::move(acl);
  }
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
  if (bounds == j.end() || !bounds->is_array() || bounds->empty())
    return bad("missing lower_bounds");
  r.name = name->get<std::string>();
  r.id = id->get<uint32_t>();
  r.created_ticks = created->get<int64_t>();
  for (const auto& b : *bounds) {
    if (!b.is_number_unsigned()) return bad("lower bound is not an unsigned number");
    uint64_t v = b.get<uint64_t>();
    if (!r.lower_bounds.empty() && v <= r.lower_bounds.back())
      return bad("lower_bounds not increasing");
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
  if (auto it = j.find("feed"); it != j.end()) {
    if (!it->is_object()) return bad("feed is not an object");
    auto enabled = it->find("enabled");
    auto retention = it->find("retention");
    auto max_bytes = it->find("max_bytes");
    if (enabled == it->end() || !enabled->is_boolean()) return bad("feed without enabled");
    if (retention == it->end() || !retention->is_number_unsigned())
      return bad("feed without retention");
    if (max_bytes == it->end() || !max_bytes->is_number_unsigned())
      return bad("feed without max_bytes");
    r.feed_set = true;
    r.feed.enabled = enabled->get<bool>();
    r.feed.retention = std::chrono::seconds(retention->get<int64_t>());
    r.feed.max_bytes = max_bytes->get<uint64_t>();
  }
  if (auto it = j.find("ttl"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < -1) return bad("ttl is not -1 or more");
    r.ttl_seconds = it->get<int64_t>();
  }
  if (auto it = j.find("acl"); it != j.end()) {
    if (!it->is_array()) return bad("acl is not an array");
    for (const auto& e : *it) {
      if (!e.is_object()) return bad("acl entry is not an object");
      AccessPolicy p;
      auto id = e.find("id");
      auto perm = e.find("permission");
      if (id == e.end() || !id->is_string()) return bad("acl entry without an id");
      if (perm == e.end() || !perm->is_string()) return bad("acl entry without a permission");
      p.id = id->get<std::string>();
      p.permission = perm->get<std::string>();
      for (auto [key, out] : {std::pair{"start", &p.start}, std::pair{"expiry", &p.expiry}}) {
        auto t = e.find(key);
        if (t == e.end()) continue;
        if (!t->is_number_integer()) return bad(std::string("acl ") + key + " is not a number");
        *out = DateTime{t->get<int64_t>()};
      }
      r.access_policies.push_back(std::move(p));
    }
  }
  return r;
}

Status ValidateAccessPolicies(const std::vector<AccessPolicy>& policies) {
  if (policies.size() > kMaxAccessPolicies) {
    return Status::InvalidArgument(std::to_string(policies.size()) +
                                   " access policies; a table holds at most " +
                                   std::to_string(kMaxAccessPolicies));
  }
  for (size_t i = 0; i < policies.size(); ++i) {
    const AccessPolicy& p = policies[i];
    if (p.id.empty() || p.id.size() > 64) {
      return Status::InvalidArgument("access policy id '" + p.id + "' must be 1 to 64 characters");
    }
    for (size_t k = 0; k < i; ++k) {
      if (policies[k].id == p.id) {
        return Status::InvalidArgument("access policy id '" + p.id + "' is given twice");
      }
    }
    for (size_t c = 0; c < p.permission.size(); ++c) {
      char ch = p.permission[c];
      if (std::string_view("raud").find(ch) == std::string_view::npos ||
          p.permission.find(ch, c + 1) != std::string::npos) {
        return Status::InvalidArgument("access policy '" + p.id + "' has permission '" +
                                       p.permission +
                                       "'; it may hold each of r, a, u, d at most once");
      }
    }
    if (p.start && p.expiry && p.expiry->ticks < p.start->ticks) {
      return Status::InvalidArgument("access policy '" + p.id + "' expires before it starts");
    }
  }
  return Status::OK();
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

std::string DataColumnFamilyName(uint32_t k) { return "d" + std::to_string(k); }

bool ParseDataColumnFamilyName(std::string_view name, uint32_t* k) {
  if (name.size() < 2 || name[0] != 'd') return false;
  if (name.size() > 2 && name[1] == '0') return false;  // one name per number
  auto r = std::from_chars(name.data() + 1, name.data() + name.size(), *k);
  return r.ec == std::errc() && r.ptr == name.data() + name.size();
}

uint32_t DataColumnFamilyOf(uint32_t table_id, uint64_t lower_bound, uint32_t count) {
  // floor(lower_bound * count / 2^64): which count-th of the hash space the partition starts in.
  auto slot = static_cast<uint32_t>((static_cast<unsigned __int128>(lower_bound) * count) >> 64);
  return static_cast<uint32_t>((static_cast<uint64_t>(slot) + table_id) % count);
}

std::string PartitionKeyPrefix(uint32_t table_id, uint32_t index) {
  std::string out(kPartitionKeyPrefixLength, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(table_id >> (24 - 8 * i));
  out[4] = static_cast<char>(index >> 8);
  out[5] = static_cast<char>(index);
  return out;
}

std::string TablePrefix(uint32_t table_id) { return PartitionKeyPrefix(table_id, 0).substr(0, 4); }

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

std::string DroppedKey(uint32_t table_id) {
  std::string digits = std::to_string(table_id);
  return kDroppedPrefix + std::string(10 - digits.size(), '0') + digits;
}

std::string FeedTrimKey(uint32_t table_id) {
  std::string digits = std::to_string(table_id);
  return kFeedTrimPrefix + std::string(10 - digits.size(), '0') + digits;
}

bool ParseDroppedKey(std::string_view key, uint32_t* table_id) {
  std::string_view prefix = kDroppedPrefix;
  if (!key.starts_with(prefix) || key.size() != prefix.size() + 10) return false;
  auto r = std::from_chars(key.data() + prefix.size(), key.data() + key.size(), *table_id);
  return r.ec == std::errc() && r.ptr == key.data() + key.size();
}

}  // namespace partkv::engine
