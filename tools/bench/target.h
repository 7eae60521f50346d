// --target: the comparison's writes and reads run again against a remote Table endpoint (Azure
// Table Storage, Cosmos DB for Table, Azurite, `partkv serve`) through partkv's remote backend,
// and what the service did is measured there: beside the throttling each strategy is predicted
// to meet (throttle_replay.h), the 503/429 answers it did meet and the time spent waiting them
// out.
//
// Per strategy, in the comparison's order:
//   1. a table of its own on the endpoint (`table_prefix` + the strategy's table name), opened
//      with the strategy's key schemes (a remote table has no partkv catalog);
//   2. the very batches of the local run (strategies.h), each sent at its replay time
//      (comparison.h, "Replay time") from `in_flight` senders: the service sees the workload's
//      shape at the replay rate, bursts included; a batch that still ends Throttled after the
//      store's retries (RemoteOptions::retry) is sent again until it is applied, and counted;
//   3. the reads of reads.h, the same samples, checked against the workload the same way;
//   4. the table is deleted unless `keep_tables`.
// The store's own retry counters (Table::Statistics: throttled, retry_wait_micros) give the
// throttled answers and the waiting; wall time gives the write time and how far the writes fell
// behind the replay timeline.

#ifndef PARTKV_TOOLS_BENCH_TARGET_H_
#define PARTKV_TOOLS_BENCH_TARGET_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "partkv/result.h"
#include "partkv/store.h"
#include "tools/bench/dataset.h"
#include "tools/bench/reads.h"
#include "tools/bench/results.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {

struct TargetOptions {
  std::string location;      // a connection string or a SAS URL (Store::Open)
  std::string table_prefix;  // letters and digits, unique to the run
  size_t in_flight = 16;     // batches being sent at once
  bool keep_tables = false;
};

// The cloud profile whose predictions the endpoint is compared with: cosmos for a Cosmos DB
// for Table host, else azure-table.
std::string TargetProfile(const std::string& location);

// Runs steps 1-4 for strategy `spec` and returns what was measured. `plans` are its batches;
// `tick(fraction)` reports progress. Fails on a store error other than Throttled, or when a
// batch could not be applied after kMaxRounds rounds.
// `store` is the endpoint's (Store::Open of the location).
Result<TargetStats> RunOnTarget(Store& store, const TargetOptions& options,
                                const StrategySpec& spec, const KeyStrategy& row_key,
                                const DataSet& data, const std::vector<BatchPlan>& plans,
                                const std::vector<ReadSpec>& reads,
                                const std::vector<std::vector<SampledRead>>& samples,
                                const std::function<void(double)>& tick);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_TARGET_H_
