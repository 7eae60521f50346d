// Throttler: per-partition token buckets that emulate a cloud profile's throughput limits
// (engine/profile_spec.h). One bucket pair (writes, reads) per logical partition or per physical
// partition, as the profile's scope says; a bucket starts with one second of capacity and banks
// unused capacity up to rate × burst_seconds.
//
// Thread-safety: Charge may be called from any thread; buckets live in mutex-guarded shards.

#ifndef PARTKV_ENGINE_LOCAL_THROTTLE_H_
#define PARTKV_ENGINE_LOCAL_THROTTLE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/profile_spec.h"
#include "partkv/clock.h"
#include "partkv/status.h"

namespace partkv::engine {

class TokenBucket {
 public:
  // Takes `cost` units at time `now` if the bucket holds min(cost, capacity); a cost above the
  // capacity is taken from a full bucket and leaves it in debt. Returns 0 when taken, else the
  // microseconds until it would be.
  int64_t TryTake(double cost, double rate, double capacity, int64_t now);
  // Takes units unconditionally (debt allowed): for costs known only after the work.
  void Debit(double cost, double rate, double capacity, int64_t now);
  // Whether, refilled to `now`, the bucket is full. Sweeping drops full buckets; a dropped
  // partition starts again with one second of capacity, so its banked burst is forgotten (the
  // conservative side: never more throughput than the service would give).
  bool FullAt(double rate, double capacity, int64_t now) const;

 private:
  void Refill(double rate, double capacity, int64_t now);
  double tokens_ = -1;  // < 0 and never touched: full
  int64_t last_ = 0;
  bool started_ = false;
};

class Throttler {
 public:
  Throttler(const ThroughputModel& model, size_t physical_partitions, std::shared_ptr<Clock> clock);

  // Charges `cost` units to the bucket of (pk, physical); Throttled with a retry-after when the
  // bucket cannot pay. `write` picks the write or read bucket.
  Status Charge(bool write, std::string_view pk, size_t physical, double cost);
  // Charges after the fact (never fails; may leave debt).
  void Debit(bool write, std::string_view pk, size_t physical, double cost);
  // (Each locks one shard, only while it touches that shard's buckets: no lock order.)

  const ThroughputModel& model() const { return model_; }

 private:
  struct Buckets {
    TokenBucket write, read;
  };
  // Lookups by string_view without building a std::string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Shard {
    port::Mutex mu;
    std::unordered_map<std::string, Buckets, Hash, std::equal_to<>> by_key PARTKV_GUARDED_BY(mu);
  };
  static constexpr size_t kShards = 32;
  static constexpr size_t kSweepAt = 65536;  // keys per shard before full buckets are dropped

  // The buckets of (pk, physical) in `shard`; valid while shard.mu is held.
  Buckets& Find(Shard& shard, std::string_view pk, size_t physical, int64_t now)
      PARTKV_REQUIRES(shard.mu);
  Shard& ShardOf(std::string_view pk, size_t physical);

  ThroughputModel model_;
  std::shared_ptr<Clock> clock_;
  std::array<Shard, kShards> shards_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_THROTTLE_H_
