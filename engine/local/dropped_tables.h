// DroppedTables: the ids of the store's dropped tables, and the compaction filter that removes
// their entities from the shared data column families.
//
// Dropping a table removes its catalog record and records its id (docs/format.md, "dropped/<id>"
// in the meta column family), in one synced write. Table ids are never reused, so from that write
// on no read can reach the table's keys. The keys themselves are removed without tombstones:
// whole SST files within the table's key range are deleted at once (DeleteFilesInRange, by
// StoreState::DropTable), and every other key of a dropped id is left out of the files that
// flushes and compactions write. (Range tombstones would do the same at the cost of every
// iterator over the column family checking them until compaction clears them away: a fifth of a
// table scan's rate, measured.)
//
// Thread-safety: Add and the filters may run concurrently; a filter sees the ids dropped before
// it was made (RocksDB makes one per flush or compaction).

#ifndef PARTKV_ENGINE_LOCAL_DROPPED_TABLES_H_
#define PARTKV_ENGINE_LOCAL_DROPPED_TABLES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "rocksdb/compaction_filter.h"

namespace partkv::engine {

class DroppedTables {
 public:
  void Add(uint32_t id) PARTKV_EXCLUDES(mu_);
  bool Contains(uint32_t id) const;
  // The compaction filter factory to set on every data column family.
  static std::shared_ptr<rocksdb::CompactionFilterFactory> Factory(
      std::shared_ptr<const DroppedTables> dropped);

  // The ids, sorted (a snapshot).
  std::shared_ptr<const std::vector<uint32_t>> Ids() const PARTKV_EXCLUDES(mu_);

 private:
  mutable port::Mutex mu_;
  // Replaced whole by each Add (copy on write): a snapshot taken stays as it was.
  std::shared_ptr<const std::vector<uint32_t>> ids_ PARTKV_GUARDED_BY(mu_) =
      std::make_shared<std::vector<uint32_t>>();
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_DROPPED_TABLES_H_
