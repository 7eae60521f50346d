#include "bench/bench_common.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <system_error>
#include <thread>

#include "fmt/format.h"
#include "partkv/stored_entity.h"
#include "rocksdb/version.h"

#ifndef PARTKV_BENCH_BUILD_TYPE
#define PARTKV_BENCH_BUILD_TYPE "unknown"
#endif

namespace partkv::bench {
namespace {

// splitmix64: a tiny, well-mixed hash that makes property values a pure function of n.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Short words, so Notes compresses roughly like real text rather than like noise.
constexpr const char* kWords[] = {"ok",   "warm",  "cold", "door",  "open", "fan",  "idle",
                                  "busy", "reset", "low",  "high",  "net",  "lamp", "beep",
                                  "fine", "check", "sync", "delay", "dust", "soft"};

std::string Notes(uint64_t seed) {
  std::string out;
  while (out.size() < 30) {
    seed = Mix(seed);
    if (!out.empty()) out.push_back(' ');
    out += kWords[seed % std::size(kWords)];
  }
  out.resize(30);
  return out;
}

}  // namespace

TempDir::TempDir(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" +
                     std::string(prefix) + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "bench: cannot create a temporary directory from %s\n", tmpl.c_str());
    std::exit(1);
  }
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string PartitionKeyOf(uint64_t partition_key_index) {
  return fmt::format("device-{:05d}", partition_key_index);
}

std::string RowKeyOf(uint64_t row) { return fmt::format("{:012d}", row); }

Entity MakeEntity(uint64_t n) {
  uint64_t r = Mix(n);
  Entity e(PartitionKeyOf(n / kEntitiesPerPartitionKey), RowKeyOf(n));
  Guid guid;
  uint64_t g0 = Mix(r), g1 = Mix(g0);
  for (int i = 0; i < 8; ++i) {
    guid.bytes[i] = static_cast<uint8_t>(g0 >> (8 * i));
    guid.bytes[8 + i] = static_cast<uint8_t>(g1 >> (8 * i));
  }
  // Names are appended in sorted order (the entity keeps its properties sorted).
  e.AppendSorted("Active", Value::Boolean((r & 1) != 0));
  e.AppendSorted("Count", Value::Int32(static_cast<int32_t>(r % 100000)));
  e.AppendSorted("DeviceId", Value::Guid(guid));
  e.AppendSorted("Location", Value::String(fmt::format(
                                 "building-{:03d}/floor-{:02d}/room-{:04d}/r{:02d}", r % 997,
                                 (r >> 10) % 60, (r >> 16) % 9973, (r >> 30) % 97)));
  e.AppendSorted("Notes", Value::String(Notes(r)));
  e.AppendSorted("Reading", Value::Double(static_cast<double>(r % 1000003) / 1000.0));
  e.AppendSorted("Sequence", Value::Int64(static_cast<int64_t>(n)));
  e.AppendSorted("Updated", Value::DateTime(DateTime::FromUnixMicros(
                                1'700'000'000'000'000LL + static_cast<int64_t>(n) * 1000)));
  return e;
}

Batch MakeInsertBatch(uint64_t b) {
  Batch batch;
  for (uint64_t j = 0; j < kEntitiesPerPartitionKey; ++j) {
    batch.Insert(MakeEntity(b * kEntitiesPerPartitionKey + j));
  }
  return batch;
}

EntitySize SizeOfEntity(uint64_t n) {
  Entity e = MakeEntity(n);
  StoredEntity stored =
      EncodeStoredEntity(e, DateTime::FromUnixMicros(1'700'000'000'000'000LL), 1'000'000 + n);
  return EntitySize{stored.key.size(), stored.value.size(), e.property_count()};
}

Permutation::Permutation(uint64_t n) : n_(n), stride_(1) {
  if (n > 2) {
    // Near the golden ratio of n, so consecutive i land far apart.
    stride_ = static_cast<uint64_t>(static_cast<double>(n) * 0.6180339887) | 1;
    while (std::gcd(stride_, n) != 1) stride_ += 2;
  }
}

uint64_t Permutation::operator[](uint64_t i) const {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(i) * stride_) % n_);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::vector<std::pair<std::string, std::string>> ConfigurationFacts() {
  std::vector<std::pair<std::string, std::string>> facts;
#ifdef NDEBUG
  const char* asserts = "off";
#else
  const char* asserts = "on";
#endif
  facts.emplace_back("build type",
                     fmt::format("{} (partkv assertions {})", PARTKV_BENCH_BUILD_TYPE, asserts));
  facts.emplace_back("compiler", __VERSION__);
  facts.emplace_back(
      "RocksDB", fmt::format("{}.{}.{} (headers)", ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH));
  facts.emplace_back("cores", std::to_string(std::thread::hardware_concurrency()));
  facts.emplace_back("cpu", FirstLineWith("/proc/cpuinfo", "model name"));
  facts.emplace_back("memory", FirstLineWith("/proc/meminfo", "MemTotal"));
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  facts.emplace_back("date", date);
  EntitySize size = SizeOfEntity(0);
  facts.emplace_back("entity", fmt::format("{} properties, key {} B, encoded value {} B",
                                           size.properties, size.key_bytes, size.value_bytes));
  facts.emplace_back("keys", "PartitionKey device-%05d (100 rows each), RowKey %012d");
  return facts;
}

void PrintConfiguration(std::FILE* out, std::string_view title,
                        const std::vector<std::pair<std::string, std::string>>& extra) {
  std::fprintf(out, "%.*s\n", static_cast<int>(title.size()), title.data());
  auto print = [out](const std::pair<std::string, std::string>& kv) {
    std::fprintf(out, "  %-20s %s\n", (kv.first + ":").c_str(), kv.second.c_str());
  };
  for (const auto& kv : ConfigurationFacts()) print(kv);
  for (const auto& kv : extra) print(kv);
  std::fflush(out);
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double rank = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size()));
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(index, v.size() - 1)];
}

double ThisThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace partkv::bench
