#include "tests/crash/crash_model.h"

#include <cstdio>
#include <sstream>

namespace partkv::crash {
namespace {

// splitmix64: a cheap, well-mixed function of (key, generation).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Seed(const std::string& pk, const std::string& rk, int64_t gen) {
  uint64_t h = static_cast<uint64_t>(gen);
  for (char c : pk + "/" + rk) h = Mix(h ^ static_cast<uint8_t>(c));
  return h;
}

std::string Text(uint64_t seed) {
  size_t len = seed % 64 == 0 ? 30 * 1024 : seed % 2048;
  std::string s(len, 'a');
  for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>('a' + (Mix(seed + i / 16) + i) % 26);
  return s;
}

}  // namespace

std::string SideTableName(int i) { return "Side" + std::to_string(i); }
std::string SidePk(int i) { return "t" + std::to_string(i); }

std::string SinglePk(int i) { return "s" + std::to_string(i); }
std::string SingleRk(int j) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "r%02d", j);
  return buf;
}
std::string BulkPk(int i) { return "k" + std::to_string(i); }
std::string BulkRk(int j) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "u%02d", j);
  return buf;
}
std::string GroupPk(int i) { return "b" + std::to_string(i); }
std::string GroupRk(int group, int row) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "g%d-%02d", group, row);
  return buf;
}
std::vector<std::string> GroupRks(int group) {
  std::vector<std::string> out;
  for (int k = 0; k < kGroupRows; ++k) out.push_back(GroupRk(group, k));
  return out;
}

Entity Content(const std::string& pk, const std::string& rk, int64_t gen) {
  uint64_t seed = Seed(pk, rk, gen);
  std::string blob(8 + seed % 56, '\0');
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>(Mix(seed ^ i) & 0xFF);
  Guid guid;
  for (size_t i = 0; i < 16; ++i) guid.bytes[i] = static_cast<uint8_t>(Mix(seed + 100 + i));
  Entity e(pk, rk);
  e.Set("gen", Value::Int64(gen))
      .Set("text", Value::String(Text(seed)))
      .Set("blob", Value::Binary(std::move(blob)))
      .Set("even", Value::Boolean(gen % 2 == 0))
      .Set("when", Value::DateTime(DateTime{DateTime::kUnixEpochTicks + gen * 10'000'000}))
      .Set("ratio", Value::Double(static_cast<double>(gen) / 7.0))
      .Set("id", Value::Guid(guid))
      .Set("small", Value::Int32(static_cast<int32_t>(seed % 100000)));
  return e;
}

Entity MergePatch(const std::string& pk, const std::string& rk, int64_t gen) {
  Entity e(pk, rk);
  e.Set("gen", Value::Int64(gen))
      .Set("text", Value::String(Text(Seed(pk, rk, gen) + 1)))
      .Set("merged", Value::Int32(static_cast<int32_t>(gen % 1000003)));
  return e;
}

Entity Merged(const Entity& base, const Entity& patch) {
  Entity out = base;
  for (const auto& [name, value] : patch) out.Set(name, value);
  return out;
}

StoreOptions CrashStoreOptions() {
  StoreOptions o;
  o.memory_budget_bytes = 4u << 20;
  return o;
}

std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace partkv::crash
