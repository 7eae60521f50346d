// Table statistics: per-physical-partition counters and a space-saving top-k sketch of logical
// partitions (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and top-k elements
// in data streams", 2005). Every PartitionKey lives in one physical partition, so one sketch per
// physical partition sees disjoint keys and their union is the table's sketch.

#ifndef PARTKV_ENGINE_STATS_H_
#define PARTKV_ENGINE_STATS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/stats.h"

namespace partkv::engine {

// Space-saving: tracks at most `capacity` keys; a new key replaces the one with the smallest
// count and inherits that count as its error. Any key whose true count exceeds N / capacity is
// tracked, and a tracked key's count overstates its true count by at most its error.
class SpaceSaving {
 public:
  explicit SpaceSaving(size_t capacity) : capacity_(capacity) {}
  void Add(std::string_view key, uint64_t weight = 1);
  // Tracked keys, most counted first.
  std::vector<HotPartition> Top(size_t n) const;

 private:
  struct Entry {
    std::string key;
    uint64_t count = 0;
    uint64_t error = 0;
  };
  // An indexed min-heap by count: heap_[0] is the entry to evict; where_ maps a key to its slot.
  void SiftDown(size_t i);
  void Swap(size_t a, size_t b);

  size_t capacity_;
  std::vector<Entry> heap_;
  std::unordered_map<std::string, size_t> where_;
};

class TableStatsCollector {
 public:
  static constexpr size_t kSketchCapacity = 256;

  explicit TableStatsCollector(size_t physical_partitions);
  ~TableStatsCollector();
  TableStatsCollector(const TableStatsCollector&) = delete;
  TableStatsCollector& operator=(const TableStatsCollector&) = delete;

  void RecordWrite(size_t physical, std::string_view pk, uint64_t entities, uint64_t bytes);
  void RecordRead(size_t physical, std::string_view pk, uint64_t entities, uint64_t bytes);
  void RecordThrottled(size_t physical);
  void RecordRetryWait(size_t physical, uint64_t micros);
  // Entities examined by a wide query in a physical partition (no PartitionKey attribution).
  void RecordScan(size_t physical, uint64_t entities, uint64_t bytes);
  TableStats Snapshot(size_t top) const;

 private:
  // The counters are atomic; the sketch is behind mu, taken for one Add or Top at a time (no
  // other lock is taken while it is held).
  struct Partition {
    std::atomic<uint64_t> reads{0}, writes{0}, bytes_read{0}, bytes_written{0}, throttled{0},
        retry_wait_micros{0};
    mutable port::Mutex mu;
    SpaceSaving sketch PARTKV_GUARDED_BY(mu){kSketchCapacity};
  };
  // A partition's counters and sketch are made when it is first recorded: a store holds many
  // tables of many partitions, most of them idle, and an idle one costs one pointer.
  Partition& At(size_t physical);
  const Partition* Peek(size_t physical) const {
    return partitions_[physical].load(std::memory_order_acquire);
  }
  size_t count_;
  std::unique_ptr<std::atomic<Partition*>[]> partitions_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_STATS_H_
