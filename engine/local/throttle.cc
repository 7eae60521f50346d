#include "engine/local/throttle.h"

#include <algorithm>
#include <cmath>

#include "engine/local/shared_table.h"

namespace partkv::engine {

void TokenBucket::Refill(double rate, double capacity, int64_t now) {
  if (!started_) {
    // A new partition has banked nothing yet: one second of capacity, growing by what it leaves
    // unused up to the burst capacity (DynamoDB keeps up to 300 s of unused capacity).
    tokens_ = std::min(capacity, rate);
    last_ = now;
    started_ = true;
    return;
  }
  if (now > last_) {
    tokens_ = std::min(capacity, tokens_ + rate * static_cast<double>(now - last_) / 1e6);
    last_ = now;
  }
}

int64_t TokenBucket::TryTake(double cost, double rate, double capacity, int64_t now) {
  Refill(rate, capacity, now);
  double needed = std::min(cost, capacity);
  if (tokens_ + 1e-9 >= needed) {
    tokens_ -= cost;
    return 0;
  }
  return static_cast<int64_t>(std::ceil((needed - tokens_) / rate * 1e6));
}

void TokenBucket::Debit(double cost, double rate, double capacity, int64_t now) {
  Refill(rate, capacity, now);
  tokens_ -= cost;
}

bool TokenBucket::FullAt(double rate, double capacity, int64_t now) const {
  if (!started_) return true;
  return tokens_ + rate * static_cast<double>(now - last_) / 1e6 >= capacity;
}

Throttler::Throttler(const ThroughputModel& model, size_t physical_partitions,
                     std::shared_ptr<Clock> clock)
    : model_(model), clock_(std::move(clock)) {}

Throttler::Shard& Throttler::ShardOf(std::string_view pk, size_t physical) {
  size_t h = model_.scope == ThroughputModel::Scope::kPhysicalPartition ? physical : HashBytes(pk);
  return shards_[h % kShards];
}

Throttler::Buckets& Throttler::Find(Shard& shard, std::string_view pk, size_t physical,
                                    int64_t now) {
  std::string physical_key;
  std::string_view key = pk;
  if (model_.scope == ThroughputModel::Scope::kPhysicalPartition) {
    physical_key = std::to_string(physical);
    key = physical_key;
  }
  auto it = shard.by_key.find(key);
  if (it != shard.by_key.end()) return it->second;
  if (shard.by_key.size() >= kSweepAt) {
    // A bucket that has refilled completely is the same as no bucket: drop those.
    double wc = model_.write_rate * model_.burst_seconds;
    double rc = model_.read_rate * model_.burst_seconds;
    for (auto i = shard.by_key.begin(); i != shard.by_key.end();) {
      bool full = i->second.write.FullAt(model_.write_rate, wc, now) &&
                  (model_.read_rate == 0 || i->second.read.FullAt(model_.read_rate, rc, now));
      i = full ? shard.by_key.erase(i) : std::next(i);
    }
  }
  return shard.by_key.emplace(std::string(key), Buckets()).first->second;
}

Status Throttler::Charge(bool write, std::string_view pk, size_t physical, double cost) {
  if (model_.write_rate <= 0) return Status::OK();
  const bool shared = !write && model_.read_rate <= 0;
  const double rate = write || shared ? model_.write_rate : model_.read_rate;
  const double capacity = rate * model_.burst_seconds;
  int64_t now = clock_->NowMicros();
  Shard& shard = ShardOf(pk, physical);
  int64_t wait;
  {
    port::MutexLock lock(&shard.mu);
    Buckets& b = Find(shard, pk, physical, now);
    wait = (write || shared ? b.write : b.read).TryTake(cost, rate, capacity, now);
  }
  if (wait == 0) return Status::OK();
  auto retry_ms = std::chrono::milliseconds(std::max<int64_t>(1, (wait + 999) / 1000));
  std::string where = model_.scope == ThroughputModel::Scope::kPhysicalPartition
                          ? "physical partition " + std::to_string(physical)
                          : "partition '" + std::string(pk) + "'";
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%g", rate);
  return Status::Throttled(where + " is over its budget of " + rate_text + " " +
                               (write || shared ? model_.write_unit : model_.read_unit) +
                               "/s (the service would answer " + model_.signal + "); retry after " +
                               std::to_string(retry_ms.count()) + " ms",
                           retry_ms);
}

void Throttler::Debit(bool write, std::string_view pk, size_t physical, double cost) {
  if (model_.write_rate <= 0 || cost <= 0) return;
  const bool shared = !write && model_.read_rate <= 0;
  const double rate = write || shared ? model_.write_rate : model_.read_rate;
  const double capacity = rate * model_.burst_seconds;
  int64_t now = clock_->NowMicros();
  Shard& shard = ShardOf(pk, physical);
  port::MutexLock lock(&shard.mu);
  Buckets& b = Find(shard, pk, physical, now);
  (write || shared ? b.write : b.read).Debit(cost, rate, capacity, now);
}

}  // namespace partkv::engine
