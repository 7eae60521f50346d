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
// The same filter reclaims what change feeds and time to live leave behind (docs/changes.md): a
// feed entry below its table's oldest position kept (ChangeFeed::trim), and an entity whose time
// to live ran out, in a table that keeps no feed (a feed table's expiries are removed by its
// sweep, which records them). Each such table has its Reclaim here.
//
// Thread-safety: every method and the filters may run concurrently; a filter sees the ids dropped
// and the Reclaims set before it was made (RocksDB makes one per flush or compaction).

#ifndef PARTKV_ENGINE_LOCAL_DROPPED_TABLES_H_
#define PARTKV_ENGINE_LOCAL_DROPPED_TABLES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "rocksdb/compaction_filter.h"

namespace partkv::engine {

class DroppedTables {
 public:
  // What a table's filter removes besides a dropped table's keys.
  struct Reclaim {
    uint64_t feed_trim = 0;  // feed entries below this
    int64_t ttl = 0;         // entities expired under this time to live (0: none)
    friend bool operator==(const Reclaim&, const Reclaim&) = default;
  };
  using ReclaimMap = std::map<uint32_t, Reclaim>;

  void Add(uint32_t id) PARTKV_EXCLUDES(mu_);
  // Sets (or, for a Reclaim of nothing, removes) table `id`'s Reclaim.
  void SetReclaim(uint32_t id, Reclaim reclaim) PARTKV_EXCLUDES(mu_);
  std::shared_ptr<const ReclaimMap> Reclaims() const PARTKV_EXCLUDES(mu_);
  // The store's clock (ticks), for expiries. Set before the filters run; tests replace it.
  void SetClock(std::function<int64_t()> now) PARTKV_EXCLUDES(mu_);
  int64_t Now() const PARTKV_EXCLUDES(mu_);
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
  std::shared_ptr<const ReclaimMap> reclaims_ PARTKV_GUARDED_BY(mu_) =
      std::make_shared<ReclaimMap>();
  std::shared_ptr<const std::function<int64_t()>> now_ PARTKV_GUARDED_BY(mu_);
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_DROPPED_TABLES_H_
