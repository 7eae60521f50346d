// PartitionCursor: an ordered stream of (key, value) pairs from one physical partition's column
// family within encoded key bounds, in (PartitionKey, RowKey) order or reversed, for queries.
// ScanMerge (engine/local/scan_merge.h) merges several of them.
//
// A physical partition is the key range of its prefix (PhysicalPartition::prefix) in a shared
// column family. A cursor is given bounds, and shows keys, without that prefix: what it reads is
// the partition's own encoded keys (docs/format.md "Entity keys").
//
// The cursor owns copies of its bounds (RocksDB borrows iterator bounds as pointers) and reads
// the snapshot it is given. Not thread-safe; used by one page of one query.

#ifndef PARTKV_ENGINE_LOCAL_CURSOR_H_
#define PARTKV_ENGINE_LOCAL_CURSOR_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/compare_keys.h"
#include "engine/filter_expr.h"
#include "engine/key_range.h"
#include "rocksdb/db.h"

namespace partkv::engine {

// How a cursor's reads use the block cache: a bulk scan reads past it (blocks read are not
// inserted, so the hot working set stays) and with readahead, as it reads its files in order.
enum class CacheUse { kFill, kBypass };

// Sets the block-cache use and readahead of reads with `ro` to `cache`'s.
void SetCacheUse(CacheUse cache, rocksdb::ReadOptions* ro);

class PartitionCursor {
 public:
  // Reads the keys of column family `cf` that begin with `prefix`, within the encoded-key
  // bounds `lower` (inclusive) and `upper` (exclusive) of the keys after the prefix ("" =
  // unbounded). When `rows` is set, keys whose RowKey falls outside it are skipped by seeking to
  // the next candidate in the same or next PartitionKey; each seek counts as one examined step.
  PartitionCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, std::string_view prefix,
                  const rocksdb::Snapshot* snap, std::string_view lower, std::string_view upper,
                  bool descending, std::optional<KeyRange> rows, CacheUse cache = CacheUse::kFill);

  // Positions at the first entry; returns the number of steps examined to get there.
  uint64_t Start();
  // Advances; returns the number of steps examined.
  uint64_t Next();
  bool Valid() const { return it_->Valid(); }
  rocksdb::Status status() const { return it_->status(); }

  // The current key (after the partition's prefix), valid until the cursor moves.
  // REQUIRES: Valid().
  std::string_view key() const { return key_; }
  std::string_view value() const { return it_->value().ToStringView(); }
  // Length of escape(PartitionKey) 0x00 at the start of key().
  size_t prefix_length() const { return prefix_len_; }
  std::string_view row_key() const { return key().substr(prefix_len_); }
  std::string_view escaped_partition() const { return key().substr(0, prefix_len_ - 1); }

  // The physical partition this cursor reads (for statistics and budgets).
  size_t physical = 0;

  // Declares that every key within the bounds has a partition prefix of `n` bytes (the bounds
  // lie within one PartitionKey), so the cursor need not look for it in every key.
  // REQUIRES: no `rows` skip-scan.
  void set_prefix_length(size_t n) { fixed_prefix_len_ = n; }

 private:
  // Skips entries whose RowKey is outside rows_; returns the seeks made. Caches the key of the
  // entry it stops on: the merge compares keys several times per step, and each read through
  // the iterator is a virtual call.
  uint64_t Settle();

  // Seeks to prefix_ + `key`.
  void Seek(std::string_view key);
  void SeekForPrev(std::string_view key);
  // The current iterator key without the prefix.
  std::string_view Stripped() const { return it_->key().ToStringView().substr(prefix_.size()); }

  std::string prefix_;
  std::string lower_, upper_;  // full keys (prefix included); never empty
  std::string seek_;           // the buffer of Seek / SeekForPrev
  rocksdb::Slice lower_slice_, upper_slice_;
  bool descending_;
  std::optional<KeyRange> rows_;
  std::unique_ptr<rocksdb::Iterator> it_;
  std::string_view key_;
  size_t prefix_len_ = 0;
  size_t fixed_prefix_len_ = 0;  // 0: found in each key
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_CURSOR_H_
