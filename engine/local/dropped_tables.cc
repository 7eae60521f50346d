#include "engine/local/dropped_tables.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "engine/local/catalog.h"
#include "engine/local/change_feed.h"
#include "engine/ttl.h"
#include "partkv/value.h"

namespace partkv::engine {
namespace {

// Leaves out every key whose table id (its first four bytes, big-endian) is in `ids`, and what
// the tables' Reclaims say.
class DroppedTableFilter : public rocksdb::CompactionFilter {
 public:
  DroppedTableFilter(std::shared_ptr<const std::vector<uint32_t>> ids,
                     std::shared_ptr<const DroppedTables::ReclaimMap> reclaims, int64_t now)
      : ids_(std::move(ids)), reclaims_(std::move(reclaims)), now_(now) {}

  bool Filter(int /*level*/, const rocksdb::Slice& key, const rocksdb::Slice& value,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    if (key.size() < kPartitionKeyPrefixLength) return false;
    const auto* b = reinterpret_cast<const unsigned char*>(key.data());
    const uint32_t id = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    if (std::binary_search(ids_->begin(), ids_->end(), id)) return true;
    if (reclaims_->empty()) return false;
    if (id != cached_id_) {
      auto it = reclaims_->find(id);
      cached_ = it == reclaims_->end() ? DroppedTables::Reclaim{} : it->second;
      cached_id_ = id;
    }
    const uint32_t index = uint32_t{b[4]} << 8 | b[5];
    if (index == kFeedPartitionIndex) {
      uint64_t seq = 0;
      return ParseFeedKey(key.ToStringView(), &seq) && seq < cached_.feed_trim;
    }
    if (index == kFeedVersionIndex) {
      // A version index entry goes with the entry it points at.
      FeedVersion v;
      return DecodeFeedVersion(value.ToStringView(), &v) && v.seq < cached_.feed_trim;
    }
    return cached_.ttl != 0 && Expiry{cached_.ttl, now_}.ExpiredValue(value.ToStringView());
  }
  const char* Name() const override { return "partkv.DroppedTableFilter"; }

 private:
  std::shared_ptr<const std::vector<uint32_t>> ids_;
  std::shared_ptr<const DroppedTables::ReclaimMap> reclaims_;
  const int64_t now_;
  // A filter runs on one thread: the last table looked up, since keys come in key order.
  mutable uint32_t cached_id_ = UINT32_MAX;
  mutable DroppedTables::Reclaim cached_;
};

class DroppedTableFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  explicit DroppedTableFilterFactory(std::shared_ptr<const DroppedTables> dropped)
      : dropped_(std::move(dropped)) {}

  // Flushes too: a dropped table's rows still in a memtable never reach an SST file.
  bool ShouldFilterTableFileCreation(rocksdb::TableFileCreationReason reason) const override {
    return reason == rocksdb::TableFileCreationReason::kCompaction ||
           reason == rocksdb::TableFileCreationReason::kFlush;
  }
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    auto ids = dropped_->Ids();
    auto reclaims = dropped_->Reclaims();
    if (ids->empty() && reclaims->empty()) return nullptr;  // nothing to leave out
    return std::make_unique<DroppedTableFilter>(std::move(ids), std::move(reclaims),
                                                dropped_->Now());
  }
  const char* Name() const override { return "partkv.DroppedTableFilterFactory"; }

 private:
  std::shared_ptr<const DroppedTables> dropped_;
};

}  // namespace

void DroppedTables::Add(uint32_t id) {
  port::MutexLock lock(&mu_);
  auto next = std::make_shared<std::vector<uint32_t>>(*ids_);
  next->insert(std::upper_bound(next->begin(), next->end(), id), id);
  ids_ = std::move(next);
}

void DroppedTables::SetReclaim(uint32_t id, Reclaim reclaim) {
  port::MutexLock lock(&mu_);
  auto it = reclaims_->find(id);
  const bool nothing = reclaim == Reclaim{};
  if (it == reclaims_->end() ? nothing : it->second == reclaim) return;
  auto next = std::make_shared<ReclaimMap>(*reclaims_);
  if (nothing) {
    next->erase(id);
  } else {
    (*next)[id] = reclaim;
  }
  reclaims_ = std::move(next);
}

std::shared_ptr<const DroppedTables::ReclaimMap> DroppedTables::Reclaims() const {
  port::MutexLock lock(&mu_);
  return reclaims_;
}

void DroppedTables::SetClock(std::function<int64_t()> now) {
  auto f = std::make_shared<const std::function<int64_t()>>(std::move(now));
  port::MutexLock lock(&mu_);
  now_ = std::move(f);
}

int64_t DroppedTables::Now() const {
  std::shared_ptr<const std::function<int64_t()>> now;
  {
    port::MutexLock lock(&mu_);
    now = now_;
  }
  if (now && *now) return (*now)();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  return DateTime::FromUnixMicros(micros).ticks;
}

bool DroppedTables::Contains(uint32_t id) const {
  auto ids = Ids();
  return std::binary_search(ids->begin(), ids->end(), id);
}

std::shared_ptr<const std::vector<uint32_t>> DroppedTables::Ids() const {
  port::MutexLock lock(&mu_);
  return ids_;
}

std::shared_ptr<rocksdb::CompactionFilterFactory> DroppedTables::Factory(
    std::shared_ptr<const DroppedTables> dropped) {
  return std::make_shared<DroppedTableFilterFactory>(std::move(dropped));
}

}  // namespace partkv::engine
