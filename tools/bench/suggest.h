// --suggest: PartitionKey candidates proposed from the data itself, compared beside the ones given.
//
// From each attribute's cardinality and skew (DataSet::attributes()), the reads and the write rate:
//   - per read, the concatenation of its attributes: that read then goes to one partition (or,
//     when the read names one entity, is one Get);
//   - the best-spread attribute a read uses: the String, integer or Guid attribute with the most
//     distinct values whose most frequent value holds under 1 % of the entities (and that is not
//     unique: a key per entity serves no read);
//   - per grouping attribute that reads use (at most a tenth as many distinct values as
//     entities; date-like text such as 2026-11-02 first), a time- or group-bucketed key sized
//     from the write rate: the busiest value's peak rate is the replay rate × its share × the
//     busiest hour's rate over the mean hour's, and N = ⌈peak ÷ 500 entities/s⌉ (half of
//     DynamoDB's 1,000 WCU/s per partition, the strictest limit, for headroom), 2..1,000 —
//     hash-suffix(GROUP,SOURCE,N) with SOURCE the RowKey scheme's first field (unique), or
//     concat(GROUP) when one partition keeps up (N = 1).
// At most kMaxSuggestions, none equal to a strategy already given; each says why in its
// explanation.

#ifndef PARTKV_TOOLS_BENCH_SUGGEST_H_
#define PARTKV_TOOLS_BENCH_SUGGEST_H_

#include <cstdint>
#include <vector>

#include "tools/bench/dataset.h"
#include "tools/bench/reads.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {

struct SuggestInput {
  const std::vector<AttributeSummary>* attributes = nullptr;  // the data's
  uint64_t entities = 0;
  const std::vector<ReadSpec>* reads = nullptr;
  const KeyStrategy* row_key = nullptr;
  double replay_rate = 5000;
  // The busiest hour's entities over the mean hour's (1 without a timeline).
  double burst_factor = 1;
  const std::vector<StrategySpec>* given = nullptr;  // not suggested again
};

inline constexpr size_t kMaxSuggestions = 5;

// The candidates, labelled by their text and with table names "Suggested1", "Suggested2", ...
std::vector<StrategySpec> Suggest(const SuggestInput& input);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_SUGGEST_H_
