// The throttled replay: how much of the busiest day a cloud service would refuse under a strategy.
//
// The busiest day's batches (a strategy's BatchPlan whose first event falls on that day) are
// offered, in send order, to a fresh table whose profile is `profile` with throttling emulation
// on, in a store whose clock is a ManualClock. Before each batch the clock is moved to the batch's
// replay time, so the token buckets see the offered rate of the replay timeline (comparison.h),
// and the run takes only as long as the writes themselves — nothing sleeps.
//
// Offered load, no retries: a batch the table refuses with Throttled counts as throttled (all its
// entities) and is not retried, as if the caller dropped or deferred it; so the throttle rate is
// the share of the offered entities the service would refuse at that rate. (Retrying on one
// simulated timeline would stall every other partition's writes behind the retried one, which a
// real, parallel ingest would not do.)

#ifndef PARTKV_TOOLS_BENCH_THROTTLE_REPLAY_H_
#define PARTKV_TOOLS_BENCH_THROTTLE_REPLAY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "partkv/clock.h"
#include "partkv/store.h"
#include "tools/bench/dataset.h"
#include "tools/bench/results.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {

// Replays `batches` (already cut to the day to replay) into a new table `table_name` of `store`
// (whose StoreOptions::clock is `clock`) with `profile` and throttling on; drops the table after.
Result<ThrottleStats> ReplayThrottled(Store& store, ManualClock& clock,
                                      const std::string& table_name, const StrategySpec& spec,
                                      const KeyStrategy& row_key, const std::string& profile,
                                      uint32_t physical_partitions, const DataSet& data,
                                      const std::vector<const BatchPlan*>& batches,
                                      const std::function<void(double)>& tick);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_THROTTLE_REPLAY_H_
