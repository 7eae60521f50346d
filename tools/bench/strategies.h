// The key strategies the comparison measures, how each one's reads are asked, and how the
// data is cut into write batches for it.
//
// Every strategy computes the PartitionKey; the RowKey comes from one scheme shared by every
// strategy (the built-in workload's orderId; for the user's data --row-key, or the data's own
// RowKey), so the strategies differ only in where an entity lives. Each strategy's table declares
// its schemes (TableOptions::partition_key_scheme / row_key_scheme), so point reads go by
// attributes (Table::GetByAttributes) and a sharded key is one Table::QueryShards call.
//
// Batches: an ingest groups the data, in timeline order, by PartitionKey (a batch holds one key)
// and sends a key's batch when it holds kMaxBatch entities or when its oldest entity has waited
// kLingerMicros of replay time (comparison.h, "Replay time"). One plan per strategy is used by
// every write of that strategy — the timed write, the raw RocksDB baseline, the throttled replay —
// so all of them write the same batches.

#ifndef PARTKV_TOOLS_BENCH_STRATEGIES_H_
#define PARTKV_TOOLS_BENCH_STRATEGIES_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "partkv/keys.h"
#include "partkv/query.h"
#include "tools/bench/dataset.h"
#include "tools/bench/workload.h"

namespace partkv::compare {

struct StrategySpec {
  std::string label;       // short name for tables and charts: "date", "md5-bits(deviceId,4)"
  std::string table_name;  // Azure table name: letters and digits
  KeyStrategy partition_key;
  std::string explanation;  // one line: what the strategy is for
  bool suggested = false;   // proposed by --suggest rather than given
};

// A strategy the user gave (--strategy): its label is its text as typed (trimmed), its table
// "Strategy<index>", its explanation derived from its kind. InvalidArgument from
// KeyStrategy::Parse.
Result<StrategySpec> UserStrategy(std::string_view text, size_t index);

// The comparison's strategies, in report order: date alone (the hot-partition anti-pattern),
// concat(deviceId,date), random-suffix(date,200), hash-suffix(date,orderId,200) with XXH3 and
// with the code-point product, and md5-bits(deviceId,4).
std::vector<StrategySpec> DefaultStrategies();

// The built-in workload's RowKey scheme: the orderId.
KeyStrategy RowKeyScheme();

// How a read that knows some natural attributes is asked of a strategy's table.
struct ReadPlan {
  enum class Kind { kPoint, kOnePartition, kShards, kTableScan };
  Kind kind = Kind::kTableScan;
  std::string key;     // the PartitionKey (kOnePartition) or the base key (kShards)
  std::string filter;  // OData filter on the attributes the key does not pin down; may be empty
  std::vector<std::string> filter_fields;  // the attributes the filter tests
  uint32_t fanout = 1;  // partitions (PartitionKeys) the read visits; 0 = every one

  // "point read: one Get", "point read: up to 200 Gets, one per shard", "one partition",
  // "200 shards (QueryShards)" or "whole-table scan", then "+ filter on deviceId" when there is
  // a filter.
  std::string Describe() const;
};

// `value` as an OData filter literal of its own type (docs/filter.md): 'it''s', 5, 5L, 1.5,
// datetime'…', guid'…', X'…'. REQUIRES: not a NaN or infinite Double (no literal names it).
std::string FilterLiteral(const Value& value);

// The plan for reading every entity whose attributes equal `attributes`: a point read when they
// give the PartitionKey (or a random suffix's base: every shard is probed) and the RowKey under
// `row_key`; else straight to one partition (or to a sharded key's N shards) when the strategy's
// key is computable from them, with a filter on whatever the key does not determine exactly;
// otherwise a filtered scan of the whole table.
Result<ReadPlan> PlanRead(const KeyStrategy& strategy, const KeyStrategy& row_key,
                          const Entity& attributes);

// One write batch: up to kMaxBatch entities of one PartitionKey.
struct BatchPlan {
  std::string partition_key;
  std::vector<uint32_t> events;  // indices into the workload, in time order
  int64_t send_micros = 0;       // replay time at which the ingest sends it
};

inline constexpr size_t kMaxBatch = 100;

// Entity i of the data as a batch of a plan writes it: PartitionKey `pk` (the plan's), RowKey
// `row_key` computed from its attributes. Errors: the data's (MakeEntity), or the RowKey
// scheme's, with the entity's line.
Result<Entity> PlannedEntity(const DataSet& data, uint32_t i, const std::string& pk,
                             const KeyStrategy& row_key);
inline constexpr int64_t kLingerMicros = 1000000;

// InvalidArgument "line 12: <what>: <status's message>" (or "entity 12" for the built-in data).
Status EntityError(const DataSet& data, size_t i, const Status& status, const std::string& what);

// The batches of the whole data under `strategy`, in the order they are sent. Entity i's key is
// strategy.Compute(data.Attributes(i), r_i) with r_i the i-th output of std::mt19937_64(seed) —
// the draws Analyzer makes with AnalyzerOptions::seed = seed, so the analyzer sees the very keys
// that are written. `replay_micros[i]` is entity i's replay time. InvalidArgument naming the
// entity's line and the strategy when its key cannot be computed (a missing attribute).
Result<std::vector<BatchPlan>> PlanBatches(const DataSet& data, const StrategySpec& strategy,
                                           uint64_t seed,
                                           const std::vector<int64_t>& replay_micros);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_STRATEGIES_H_
