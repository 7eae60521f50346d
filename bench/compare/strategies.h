// The key strategies the comparison measures, how each one's reads are asked, and how the
// workload is cut into write batches for it.
//
// Every strategy computes the PartitionKey; the RowKey is always the orderId (unique), so the
// strategies differ only in where an entity lives. Each strategy's table declares its scheme
// (TableOptions::partition_key_scheme / row_key_scheme), so point reads go by natural attributes
// (Table::GetByAttributes) and a sharded day is one Table::QueryShards call.
//
// Batches: an ingest groups the workload, in time order, by PartitionKey (a batch holds one key)
// and sends a key's batch when it holds kMaxBatch entities or when its oldest entity has waited
// kLingerMicros of replay time (comparison.h, "Replay time"). One plan per strategy is used by
// every write of that strategy — the timed write, the raw RocksDB baseline, the throttled replay —
// so all of them write the same batches.

#ifndef PARTKV_BENCH_COMPARE_STRATEGIES_H_
#define PARTKV_BENCH_COMPARE_STRATEGIES_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/compare/workload.h"
#include "partkv/keys.h"
#include "partkv/query.h"

namespace partkv::compare {

struct StrategySpec {
  std::string label;       // short name for tables and charts: "date", "md5-bits(deviceId,4)"
  std::string table_name;  // Azure table name: letters and digits
  KeyStrategy partition_key;
  std::string explanation;  // one line: what the strategy is for
};

// The comparison's strategies, in report order: date alone (the hot-partition anti-pattern),
// concat(deviceId,date), random-suffix(date,200), hash-suffix(date,orderId,200) with XXH3 and
// with the code-point product, and md5-bits(deviceId,4).
std::vector<StrategySpec> DefaultStrategies();

// The RowKey scheme of every table: the orderId.
KeyStrategy RowKeyScheme();

// How a read that knows some natural attributes is asked of a strategy's table.
struct ReadPlan {
  enum class Kind { kOnePartition, kShards, kTableScan };
  Kind kind = Kind::kTableScan;
  std::string key;     // the PartitionKey (kOnePartition) or the base key (kShards)
  std::string filter;  // OData filter on the attributes the key does not pin down; may be empty
  std::vector<std::string> filter_fields;  // the attributes the filter tests
  uint32_t fanout = 1;  // partitions (PartitionKeys) the read visits; 0 = every one

  // "one partition", "200 shards (QueryShards)" or "whole-table scan", then "+ filter on
  // deviceId" when there is a filter.
  std::string Describe() const;
};

// The plan for reading every entity whose attributes equal `attributes` (date, deviceId):
// straight to one partition (or to a sharded key's N shards) when the strategy's key is
// computable from them, with a filter on whatever the key does not determine exactly; otherwise
// a filtered scan of the whole table.
Result<ReadPlan> PlanRead(const KeyStrategy& strategy, const Entity& attributes);

// One write batch: up to kMaxBatch entities of one PartitionKey.
struct BatchPlan {
  std::string partition_key;
  std::vector<uint32_t> events;  // indices into the workload, in time order
  int64_t send_micros = 0;       // replay time at which the ingest sends it
};

inline constexpr size_t kMaxBatch = 100;

// Event i of the workload as a batch of a plan writes it: PartitionKey `pk` (the plan's), RowKey
// the orderId.
Entity PlannedEntity(const Workload& workload, uint32_t i, const std::string& pk);
inline constexpr int64_t kLingerMicros = 1000000;

// The batches of the whole workload under `strategy`, in the order they are sent. The i-th
// event's key is strategy.Compute(attributes(i), r_i) with r_i the i-th output of
// std::mt19937_64(seed) — the draws Analyzer makes with AnalyzerOptions::seed = seed, so the
// analyzer sees the very keys that are written. `replay_micros[i]` is event i's replay time.
Result<std::vector<BatchPlan>> PlanBatches(const Workload& workload, const KeyStrategy& strategy,
                                           uint64_t seed,
                                           const std::vector<int64_t>& replay_micros);

}  // namespace partkv::compare

#endif  // PARTKV_BENCH_COMPARE_STRATEGIES_H_
