#include "engine/stats.h"

#include <algorithm>

namespace partkv::engine {

void SpaceSaving::Swap(size_t a, size_t b) {
  std::swap(heap_[a], heap_[b]);
  where_[heap_[a].key] = a;
  where_[heap_[b].key] = b;
}

void SpaceSaving::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    size_t smallest = i, l = 2 * i + 1, r = l + 1;
    if (l < n && heap_[l].count < heap_[smallest].count) smallest = l;
    if (r < n && heap_[r].count < heap_[smallest].count) smallest = r;
    if (smallest == i) return;
    Swap(i, smallest);
    i = smallest;
  }
}

void SpaceSaving::Add(std::string_view key, uint64_t weight) {
  std::string k(key);
  auto it = where_.find(k);
  if (it != where_.end()) {
    heap_[it->second].count += weight;  // counts only grow: sift towards the leaves
    SiftDown(it->second);
    return;
  }
  if (heap_.size() < capacity_) {
    // A new entry's count may be below its parent's: sift up.
    heap_.push_back(Entry{k, weight, 0});
    size_t i = heap_.size() - 1;
    where_[std::move(k)] = i;
    while (i > 0 && heap_[(i - 1) / 2].count > heap_[i].count) {
      Swap(i, (i - 1) / 2);
      i = (i - 1) / 2;
    }
    return;
  }
  Entry& min = heap_[0];
  where_.erase(min.key);
  min.error = min.count;
  min.count += weight;
  min.key = k;
  where_[std::move(k)] = 0;
  SiftDown(0);
}

std::vector<HotPartition> SpaceSaving::Top(size_t n) const {
  std::vector<HotPartition> out;
  out.reserve(heap_.size());
  for (const auto& e : heap_) out.push_back(HotPartition{e.key, e.count, e.error});
  std::sort(out.begin(), out.end(), [](const HotPartition& a, const HotPartition& b) {
    return a.operations != b.operations ? a.operations > b.operations
                                        : a.partition_key < b.partition_key;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

TableStatsCollector::TableStatsCollector(size_t physical_partitions)
    : count_(physical_partitions),
      partitions_(std::make_unique<std::atomic<Partition*>[]>(physical_partitions)) {
  for (size_t i = 0; i < count_; ++i) partitions_[i].store(nullptr, std::memory_order_relaxed);
}

TableStatsCollector::~TableStatsCollector() {
  for (size_t i = 0; i < count_; ++i) delete partitions_[i].load(std::memory_order_relaxed);
}

TableStatsCollector::Partition& TableStatsCollector::At(size_t physical) {
  Partition* p = partitions_[physical].load(std::memory_order_acquire);
  if (p != nullptr) return *p;
  auto fresh = std::make_unique<Partition>();
  if (partitions_[physical].compare_exchange_strong(p, fresh.get(), std::memory_order_acq_rel)) {
    return *fresh.release();
  }
  return *p;  // another thread made it first
}

void TableStatsCollector::RecordWrite(size_t physical, std::string_view pk, uint64_t entities,
                                      uint64_t bytes) {
  Partition& p = At(physical);
  p.writes.fetch_add(entities, std::memory_order_relaxed);
  p.bytes_written.fetch_add(bytes, std::memory_order_relaxed);
  port::MutexLock lock(&p.mu);
  p.sketch.Add(pk, entities);
}

void TableStatsCollector::RecordRead(size_t physical, std::string_view pk, uint64_t entities,
                                     uint64_t bytes) {
  Partition& p = At(physical);
  p.reads.fetch_add(entities, std::memory_order_relaxed);
  p.bytes_read.fetch_add(bytes, std::memory_order_relaxed);
  port::MutexLock lock(&p.mu);
  p.sketch.Add(pk, entities);
}

void TableStatsCollector::RecordScan(size_t physical, uint64_t entities, uint64_t bytes) {
  Partition& p = At(physical);
  p.reads.fetch_add(entities, std::memory_order_relaxed);
  p.bytes_read.fetch_add(bytes, std::memory_order_relaxed);
}

void TableStatsCollector::RecordThrottled(size_t physical) {
  At(physical).throttled.fetch_add(1, std::memory_order_relaxed);
}

void TableStatsCollector::RecordRetryWait(size_t physical, uint64_t micros) {
  At(physical).retry_wait_micros.fetch_add(micros, std::memory_order_relaxed);
}

TableStats TableStatsCollector::Snapshot(size_t top) const {
  TableStats s;
  std::vector<HotPartition> all;
  for (size_t i = 0; i < count_; ++i) {
    PartitionStats ps;
    ps.index = static_cast<uint32_t>(i);
    const Partition* peeked = Peek(i);
    if (peeked == nullptr) {
      s.partitions.push_back(ps);
      continue;
    }
    const Partition& p = *peeked;
    ps.reads = p.reads.load(std::memory_order_relaxed);
    ps.writes = p.writes.load(std::memory_order_relaxed);
    ps.bytes_read = p.bytes_read.load(std::memory_order_relaxed);
    ps.bytes_written = p.bytes_written.load(std::memory_order_relaxed);
    ps.throttled = p.throttled.load(std::memory_order_relaxed);
    ps.retry_wait_micros = p.retry_wait_micros.load(std::memory_order_relaxed);
    s.total.reads += ps.reads;
    s.total.writes += ps.writes;
    s.total.bytes_read += ps.bytes_read;
    s.total.bytes_written += ps.bytes_written;
    s.total.throttled += ps.throttled;
    s.total.retry_wait_micros += ps.retry_wait_micros;
    s.partitions.push_back(ps);
    port::MutexLock lock(&p.mu);
    auto hot = p.sketch.Top(top);
    all.insert(all.end(), hot.begin(), hot.end());
  }
  std::sort(all.begin(), all.end(), [](const HotPartition& a, const HotPartition& b) {
    return a.operations != b.operations ? a.operations > b.operations
                                        : a.partition_key < b.partition_key;
  });
  if (all.size() > top) all.resize(top);
  s.hottest = std::move(all);
  return s;
}

}  // namespace partkv::engine
