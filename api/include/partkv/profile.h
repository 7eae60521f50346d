// Cloud profiles: the limits of one cloud table service, applied locally (docs/profiles.md).
//
//   azure-table  Azure Table Storage (default): Azure's key, property and entity limits; about
//                2,000 entities/s per logical partition; throttled calls answer like 503
//                ServerBusy.
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
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "partkv/clock.h"
#include "partkv/result.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// Per-partition write limits of the cloud profiles (docs/profiles.md); the sources are in
// docs/analyzer.md.
// Azure Table: up to 2,000 entities/s per table partition (scalability targets, 1 KiB entities).
inline constexpr double kAzureTableEntitiesPerSecond = 2000;
// DynamoDB: 1,000 WCU/s per partition; a partition key's items share one partition.
inline constexpr double kDynamoDbWcuPerSecond = 1000;
// Cosmos DB: 10,000 RU/s per physical partition.
inline constexpr double kCosmosRuPerSecond = 10000;

// The write capacity units DynamoDB charges for writing an item of `bytes` bytes: one per
// started KB (1 KB = 1024 bytes), so ceil(bytes / 1024); an empty item costs 1.
uint64_t DynamoDbWriteUnits(uint64_t bytes);

// The request units Cosmos DB charges for creating a document of `bytes` bytes with
// `indexed_terms` indexed terms: the "Write Operation" column of Microsoft's document-size table
// (4.95 RU at 1 KB ... 1,250 RU at 2,048 KB), linear between its rows, 4.95 for anything up to
// 1 KB and proportional beyond 2,048 KB, plus 0.2 RU per indexed term. docs/analyzer.md has the
// table and its source.
double CosmosWriteRequestUnits(uint64_t bytes, uint64_t indexed_terms);

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
#pragma GCC visibility pop

#endif  // PARTKV_PROFILE_H_
