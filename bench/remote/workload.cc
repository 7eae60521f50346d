#include "bench/remote/workload.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace partkv::bench::remote {
namespace {

uint64_t ScaledCount(uint64_t count, double scale) {
  double hundreds = std::round(static_cast<double>(count) * scale / 100);
  return std::max<uint64_t>(100, static_cast<uint64_t>(hundreds) * 100);
}

}  // namespace

Workload Workload::Scaled(double scale) {
  Workload w;
  w.inserts = ScaledCount(w.inserts, scale);
  w.reads = ScaledCount(w.reads, scale);
  w.small_partition = ScaledCount(w.small_partition, scale);
  w.large_partition = ScaledCount(w.large_partition, scale);
  w.sharded = ScaledCount(w.sharded, scale);
  return w;
}

std::string RowKeyOf(uint64_t i) { return fmt::format("{:08d}", i); }

std::string InsertPartitionOf(uint64_t i) { return fmt::format("ins{}", i % 64); }

Entity PayloadEntity(std::string pk, std::string rk, uint64_t i) {
  static constexpr const char* kCities[] = {"Oslo", "Lima", "Pune", "Kobe"};
  Entity e(std::move(pk), std::move(rk));
  e.ReserveProperties(7);
  e.Set("name", Value::String(fmt::format("customer {}", i)));
  e.Set("city", Value::String(kCities[i % 4]));
  e.Set("amount", Value::Double(static_cast<double>(i) + 0.5));
  e.Set("count", Value::Int32(static_cast<int32_t>(i)));
  e.Set("flag", Value::String(i % 1000 == 7 ? "yes" : "no"));
  return e;
}

Entity ShardedEntity(uint64_t i, const char* base) {
  Entity e = PayloadEntity("", RowKeyOf(i), i);
  e.Set("base", Value::String(base));
  e.Set("id", Value::String(RowKeyOf(i)));
  return e;
}

KeyStrategy ShardScheme(uint32_t shards) {
  return KeyStrategy::HashSuffix("base", "id", shards, SuffixHash::kMd5);
}

}  // namespace partkv::bench::remote
