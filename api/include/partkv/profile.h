// Cloud profiles: the limits of one cloud table service, applied locally (docs/profiles.md).
//
//   azure-table  Azure Table Storage (default): Azure's key, property and entity limits; about
//                2,000 entities/s per logical partition; throttled calls answer like 503 ServerBusy.
//   cosmos       Azure Cosmos DB for Table: Azure Table's rules with Cosmos's RowKey (255 B),
//                entity (2 MB) and batch (2 MB) limits; 10,000 RU/s per physical partition with
//                an RU cost model by size; retry-after in milliseconds (429).
//   dynamodb     Amazon DynamoDB: partition key 1..2048 B, sort key 1..1024 B, items ≤ 400 KB;
//                1,000 WCU/s and 3,000 RCU/s per partition key, with up to 300 s of unused
//                capacity kept as burst.
//   none         no cloud limits beyond what the engine itself needs.
//
// A table takes its profile at creation (TableOptions::profile, stored in the catalog), else the
// store's (StoreOptions::profile). Throttling emulation is off unless enabled for the store or the
// table; when on, an operation over its partition's budget fails with Throttled and a
// retry_after(), writes nothing, and is counted in the table's statistics.

#ifndef PARTKV_PROFILE_H_
#define PARTKV_PROFILE_H_

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "partkv/clock.h"
#include "partkv/result.h"

namespace partkv {

// The profile names accepted by TableOptions::profile and StoreOptions::profile.
std::vector<std::string> ProfileNames();
// InvalidArgument listing the accepted names when `name` is not one of them.
Status CheckProfileName(std::string_view name);

// How a caller retries Throttled operations, as the cloud SDKs do: wait the server's
// retry-after when given (else exponential back-off from base_delay), up to max_attempts calls
// and max_total_wait of waiting in all.
struct RetryPolicy {
  int max_attempts = 10;
  std::chrono::milliseconds base_delay{50};
  std::chrono::milliseconds max_delay{5000};
  std::chrono::milliseconds max_total_wait{30000};
};

// What RetryThrottled did, for reporting effective throughput.
struct RetryStats {
  int attempts = 0;
  int throttled = 0;
  int64_t waited_micros = 0;
};

// Calls `op` (returning Status or Result<T>) until it is not Throttled or the policy gives up;
// waits on `clock`. Returns the last outcome.
template <typename Op>
auto RetryThrottled(Op&& op, Clock& clock, const RetryPolicy& policy = {},
                    RetryStats* stats = nullptr) -> decltype(op()) {
  int64_t waited = 0;
  int64_t backoff = std::chrono::microseconds(policy.base_delay).count();
  for (int attempt = 1;; ++attempt) {
    auto outcome = op();
    Status s = [&] {
      if constexpr (std::is_same_v<decltype(outcome), Status>) {
        return outcome;
      } else {
        return outcome.status();
      }
    }();
    if (stats != nullptr) {
      stats->attempts = attempt;
      stats->waited_micros = waited;
    }
    if (!s.IsThrottled()) return outcome;
    if (stats != nullptr) ++stats->throttled;
    int64_t wait = std::chrono::microseconds(s.retry_after()).count();
    if (wait <= 0) wait = backoff;
    wait = std::min<int64_t>(wait, std::chrono::microseconds(policy.max_delay).count());
    backoff = std::min<int64_t>(backoff * 2, std::chrono::microseconds(policy.max_delay).count());
    if (attempt >= policy.max_attempts ||
        waited + wait > std::chrono::microseconds(policy.max_total_wait).count()) {
      return outcome;
    }
    clock.SleepMicros(wait);
    waited += wait;
  }
}

}  // namespace partkv

#endif  // PARTKV_PROFILE_H_
