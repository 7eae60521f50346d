// partkv::Analyzer — what a partition-key strategy does to a sample of entities: how evenly it
// spreads them over logical partitions (PartitionKeys) and over physical partitions (XXH3 hash
// ranges, as a partkv table routes them), how many partitions one read of a key must visit, and
// what the skew costs in the cloud: the time the sample takes to write when every partition is
// held to its service's per-partition write limit. docs/analyzer.md defines every number and
// gives the sources of the limits.
//
//   auto analyzer = partkv::Analyzer::Create(
//       partkv::KeyStrategy::Parse("hash-suffix(date,OrderId,200)").value());
//   for (const partkv::Entity& e : sample) analyzer->Add(e);
//   partkv::AnalysisReport report = analyzer->Finish();
//   std::puts(partkv::AnalysisReportToJson(report).c_str());
//
// Entities are fed one at a time and only per-partition counters are kept (a hash map entry per
// distinct PartitionKey), so a sample of millions of entities fits in memory when its keys do.
// An entity the strategy cannot key (a missing field, a Binary value, ...) is counted in
// `errors` and otherwise ignored. The analysis is deterministic: random-suffix strategies draw
// their suffixes from a generator seeded with AnalyzerOptions::seed.
//
// An Analyzer is a plain copyable value. It is not thread-safe: use one per thread (or guard
// Add); Finish() is const and may be called at any time, any number of times.

#ifndef PARTKV_ANALYZER_H_
#define PARTKV_ANALYZER_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "partkv/entity.h"
#include "partkv/keys.h"
#include "partkv/profile.h"
#include "partkv/result.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// One logical partition: its key, its entities and their estimated size (Azure's formula).
struct PartitionCount {
  std::string key;
  uint64_t entities = 0;
  uint64_t bytes = 0;
};

// How evenly `total` entities are spread over `partitions` partitions.
struct SkewStats {
  uint64_t partitions = 0;   // logical: distinct keys seen; physical: the configured count
  uint64_t total = 0;        // entities
  uint64_t max = 0;          // entities in the fullest partition
  double mean = 0;           // total / partitions (0 when there are none)
  double cv = 0;             // population standard deviation / mean (0 when mean is 0)
  double hottest_share = 0;  // max / total (0 when total is 0)
};

// The time to write the sample under one cloud service's per-partition write limit, with writes
// issued in parallel across partitions and each partition held to the limit.
struct CloudEstimate {
  std::string profile;             // "azure-table", "dynamodb" or "cosmos"
  double limit_per_partition = 0;  // in `unit`
  std::string unit;                // "entities/s", "WCU/s" or "RU/s"
  uint64_t partitions = 0;         // partitions the service uses for the sample
  double total_units = 0;          // the sample's write cost (entities, WCU or RU)
  double bottleneck_units = 0;     // the write cost of the busiest partition
  // total_units / (limit_per_partition * partitions): the time if the same cost were spread
  // evenly over the same partitions. 0 for an empty sample.
  double seconds_if_spread_evenly = 0;
  // bottleneck_units / limit_per_partition: the time the busiest partition needs, which is the
  // time the whole sample needs. Compare strategies by this number.
  double seconds_with_skew = 0;
  // The busiest partition: its PartitionKey (azure-table, dynamodb) or "p<index>" for a physical
  // partition (cosmos). Ties go to the smallest key or index; empty for an empty sample.
  std::string bottleneck_partition;
};

struct AnalyzerOptions {
  // The largest physical_partitions accepted. partkv tables take 1..1024; the analyzer allows
  // more so that it can stand in for large Cosmos containers.
  static constexpr uint32_t kMaxPhysicalPartitions = 65536;

  // Physical partitions, as in TableOptions: an even split of the XXH3 hash space. Also the
  // analyzer's stand-in for the number of Cosmos physical partitions.
  uint32_t physical_partitions = 16;
  // How many of the fullest logical partitions AnalysisReport::hottest_logical lists.
  size_t top = 10;
  // Seeds the std::mt19937_64 whose i-th output is the `random` of the i-th Add's
  // KeyStrategy::Compute(entity, random) (only random-suffix uses it).
  uint64_t seed = 0x70617274'6b760001;  // "partkv" + 1
};

struct AnalysisReport {
  std::string strategy;  // the strategy's canonical text form
  uint32_t physical_partitions = 0;
  SkewStats logical;   // over the distinct PartitionKeys of the sample
  SkewStats physical;  // over all physical_partitions partitions, empty ones included
  // The `top` fullest logical partitions, by entities (descending), then key (ascending).
  std::vector<PartitionCount> hottest_logical;
  // Entities per physical partition, index i owning hashes [ceil(i*2^64/n), ceil((i+1)*2^64/n)).
  std::vector<uint64_t> physical_counts;
  // Partitions a read of everything under one base key visits: shard_count() for the sharded
  // strategies (random-suffix, hash-suffix), else 1.
  uint32_t read_fanout = 1;
  // azure-table, dynamodb, cosmos, in that order.
  std::vector<CloudEstimate> cloud;
  // Entities the strategy could not key, and the first such error's message ("" when none).
  uint64_t errors = 0;
  std::string first_error;
};

class Analyzer {
 public:
  // An analyzer of `strategy` as the PartitionKey strategy. InvalidArgument when the strategy is
  // invalid (KeyStrategy::Validate) or options.physical_partitions is outside
  // 1..kMaxPhysicalPartitions.
  static Result<Analyzer> Create(KeyStrategy strategy, AnalyzerOptions options = {});

  // Computes the entity's PartitionKey with the strategy and counts the entity in its logical
  // and physical partition, with its size by Azure's entity-size formula (counting the computed
  // PartitionKey in place of the entity's own). An entity the strategy cannot key is counted in
  // AnalysisReport::errors only.
  void Add(const Entity& entity);

  // The report on every entity added so far.
  AnalysisReport Finish() const;

 private:
  // What one partition has received. ru is a sum of doubles, accumulated in Add order.
  struct Load {
    uint64_t entities = 0;
    uint64_t bytes = 0;
    uint64_t wcu = 0;
    double ru = 0;
  };

  Analyzer(KeyStrategy strategy, AnalyzerOptions options);

  KeyStrategy strategy_;
  AnalyzerOptions options_;
  std::vector<uint64_t> lower_bounds_;  // of the physical partitions
  std::mt19937_64 random_;
  std::unordered_map<std::string, Load> logical_;
  std::vector<Load> physical_;
  uint64_t errors_ = 0;
  std::string first_error_;
};

// The report as a JSON object (two-space indented), members named as the fields above; bytes of a
// key or message that are not valid UTF-8 are written as U+FFFD. docs/analyzer.md shows an
// example.
std::string AnalysisReportToJson(const AnalysisReport& report);

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_ANALYZER_H_
