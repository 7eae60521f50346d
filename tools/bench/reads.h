// Read costs on disk, per strategy: what it costs to get data back out under each key design.
//
// A read (ReadSpec) is what an application asks: every entity with given values of some
// attributes — `--read NAME=ATTR[,ATTR…][@WEIGHT]`. Its values are sampled from the data (an entity
// drawn at random gives its values, so frequent values are read more often, as an application
// would), the same samples for every strategy, and each sample's truth (how many entities hold
// those values) is counted from the data. Per strategy a read is planned as partkv would run it
// (strategies.h, PlanRead):
//
//   point          Table::GetByAttributes: the attributes give the PartitionKey (or the shards of
//                  a random suffix, each probed) and the RowKey;
//   one partition  a query of the one PartitionKey the attributes give, with a filter on the
//                  attributes the key does not pin down;
//   N shards       Table::QueryShards of the base key, merged by RowKey;
//   table scan     a filtered scan of the whole table.
//
// The built-in workload's reads (DefaultReads) are: point (date, deviceId, orderId, time), day
// (date) and device-day (deviceId, date).
//
// Samples are checked against the data: a point read's entity must hold the sample's values, a
// query must return exactly the entities that hold them (counted). Pages are 1,000 entities;
// continuation tokens are followed to the end. Every strategy's reads start with an untimed
// warm-up (the first three samples of each read), since all tables share one block cache. Latencies
// are wall time of the whole read (all its pages).

#ifndef PARTKV_TOOLS_BENCH_READS_H_
#define PARTKV_TOOLS_BENCH_READS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/table.h"
#include "tools/bench/dataset.h"
#include "tools/bench/results.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {

struct ReadSpec {
  static constexpr uint32_t kDefaultSamples = 20;
  static constexpr uint32_t kMaxSamples = 100000;

  std::string name;
  std::vector<std::string> attributes;  // 1..16, distinct
  double weight = 1;                    // its share of the application's reads, relative
  uint32_t samples = kDefaultSamples;   // distinct value tuples read, at most
};

// The built-in workload's reads: point ×500, day ×5, device-day ×12.
std::vector<ReadSpec> DefaultReads();

// Parses `NAME=ATTR[,ATTR…][@WEIGHT]`. NAME: letters, digits, '-', '_' (1..40); ATTR: a
// property name (docs/keys.md) or PartitionKey/RowKey; WEIGHT: a number > 0 (default 1).
// InvalidArgument quoting the text and saying what is wrong.
Result<ReadSpec> ParseReadSpec(std::string_view text);

// One sampled read: the attribute values asked (as an Entity of attributes, keys included when
// named) and how many entities of the data hold exactly them.
struct SampledRead {
  Entity attributes;
  uint64_t expected = 0;
};

// Draws each read's samples from `data` with `seed`: up to spec.samples distinct tuples, drawn as
// entities are (an entity lacking one of the attributes is passed over). InvalidArgument when no
// entity has all of a read's attributes. Every attribute of every read must be kept by `data`.
Result<std::vector<std::vector<SampledRead>>> SampleReads(const DataSet& data,
                                                          const std::vector<ReadSpec>& reads,
                                                          uint64_t seed);

// Measures `reads` on `table` (written with `spec`'s strategy and `row_key`) into *out, one
// ReadStats per read, in order. `tick(fraction)` is called as the work proceeds. Fails on a store
// error; results that differ from a sample's truth are counted in ReadStats::mismatches.
Status MeasureReads(const Table& table, const StrategySpec& spec, const KeyStrategy& row_key,
                    const std::vector<ReadSpec>& reads,
                    const std::vector<std::vector<SampledRead>>& samples,
                    std::vector<ReadStats>* out, const std::function<void(double)>& tick);

// The nearest-rank percentile q (0..1] of `values` (sorted in place); 0 when empty.
double Percentile(std::vector<double>* values, double q);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_READS_H_
