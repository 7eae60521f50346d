#include "engine/local/dropped_tables.h"

#include <algorithm>
#include <string>

#include "engine/local/catalog.h"

namespace partkv::engine {
namespace {

// Leaves out every key whose table id (its first four bytes, big-endian) is in `ids`.
class DroppedTableFilter : public rocksdb::CompactionFilter {
 public:
  explicit DroppedTableFilter(std::shared_ptr<const std::vector<uint32_t>> ids)
      : ids_(std::move(ids)) {}

  bool Filter(int /*level*/, const rocksdb::Slice& key, const rocksdb::Slice& /*value*/,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    if (key.size() < 4) return false;
    const auto* b = reinterpret_cast<const unsigned char*>(key.data());
    const uint32_t id = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    return std::binary_search(ids_->begin(), ids_->end(), id);
  }
  const char* Name() const override { return "partkv.DroppedTableFilter"; }

 private:
  std::shared_ptr<const std::vector<uint32_t>> ids_;
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
    if (ids->empty()) return nullptr;  // nothing to leave out: no per-key call
    return std::make_unique<DroppedTableFilter>(std::move(ids));
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
