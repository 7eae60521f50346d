// ChangeFeed: the state of one table's change feed (docs/changes.md, docs/format.md "Change
// feeds") — its options, the sequence numbers it hands out, the positions readers may see and the
// oldest position retention kept — and the encoding of its entries.
//
// An entry is written in the same RocksDB WriteBatch as the change it records, under the change's
// row locks, at key FeedKey(table id, seq) of the store's feed column family.
// Sequence numbers are reserved by a write once its rows are locked and its outcome decided
// (Reserve), so that the changes of one row take increasing numbers in the order they commit.
// Writes to different rows commit in any order, though: a reader must not pass a number whose
// write is still in flight, or it would skip it for good when it commits. So the feed tracks
// the reservations in flight, and readers stop at the horizon: the least of them (or the next
// number, when none is in flight). A reservation whose write failed leaves a gap, never a reuse.
//
// Thread-safety: all methods are thread-safe. mu_ is a leaf lock (taken under row locks, nothing
// taken under it).

#ifndef PARTKV_ENGINE_LOCAL_CHANGE_FEED_H_
#define PARTKV_ENGINE_LOCAL_CHANGE_FEED_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/changes.h"
#include "partkv/result.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace partkv::engine {

// The partition index under which a table's change feed is kept (in the feed column family):
// above every physical partition (at most 1,024), so a feed key lies inside its table's key
// range, and is dropped with it.
inline constexpr uint32_t kFeedPartitionIndex = 0xFFFF;
// The first sequence number of a feed.
inline constexpr uint64_t kFirstFeedSeq = 1;

// The key of entry `seq` of table `table_id`'s feed: PartitionKeyPrefix(table_id, 0xFFFF), then
// seq as a big-endian u64.
std::string FeedKey(uint32_t table_id, uint64_t seq);
// The sequence number of a feed key (false when `key` is not one).
bool ParseFeedKey(std::string_view key, uint64_t* seq);

// One entry as stored:
//   version:u8(=1) op:u8 time:fixed64 etag:varint64 pk_len:varint32 pk rk_len:varint32 rk value
// where `value` is the entity's stored value (engine/value_codec.h) after an insert, replace or
// merge, and empty for a delete or an expiry.
struct FeedEntryView {
  ChangeOp op = ChangeOp::kInsert;
  int64_t time_ticks = 0;
  uint64_t etag_version = 0;
  std::string_view partition_key;
  std::string_view row_key;
  std::string_view value;
};
void AppendFeedEntry(ChangeOp op, int64_t time_ticks, uint64_t etag_version, std::string_view pk,
                     std::string_view rk, std::string_view value_header,
                     std::string_view value_body, std::string* out);
Status DecodeFeedEntry(std::string_view bytes, FeedEntryView* entry);
// `entry` as a partkv::Change numbered `seq`.
Status ChangeOfEntry(uint64_t seq, const FeedEntryView& entry, Change* change);

class ChangeFeed {
 public:
  // `cf`: the column family of the entries. `trim`: the oldest position kept; `next`: the next
  // sequence number (found at open).
  ChangeFeed(uint32_t table_id, rocksdb::ColumnFamilyHandle* cf, ChangeFeedOptions options,
             bool configured, uint64_t trim, uint64_t next);
  ChangeFeed(const ChangeFeed&) = delete;
  ChangeFeed& operator=(const ChangeFeed&) = delete;

  uint32_t table_id() const { return table_id_; }
  rocksdb::ColumnFamilyHandle* cf() const { return cf_; }

  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  // Whether the feed was ever configured, so that entries of it may exist (TableRecord::feed_set).
  bool configured() const PARTKV_EXCLUDES(mu_);
  ChangeFeedOptions options() const PARTKV_EXCLUDES(mu_);
  // Sets the options. `restart_at`, when given (a feed turned on again after being off), moves the
  // oldest position kept and the next number up to it (see Store::SetTableOptions).
  void SetOptions(const ChangeFeedOptions& options, std::optional<uint64_t> restart_at)
      PARTKV_EXCLUDES(mu_);

  // The oldest position kept; positions below it are Trimmed.
  uint64_t trim() const { return trim_.load(std::memory_order_acquire); }
  // Moves the oldest position kept up to `trim` (never down, never past next()). REQUIRES: the
  // new position is durable (persisted in `meta`) first.
  void RaiseTrim(uint64_t trim) PARTKV_EXCLUDES(mu_);
  uint64_t next() const PARTKV_EXCLUDES(mu_);
  // Every sequence number below this is committed (or abandoned by a failed write).
  uint64_t horizon() const PARTKV_EXCLUDES(mu_);

  // Waits until the horizon is above `seq` or `deadline` passes; true when it is.
  bool AwaitHorizonAbove(uint64_t seq, std::chrono::steady_clock::time_point deadline)
      PARTKV_EXCLUDES(mu_);

  // The sequence numbers of one write's entries, reserved while the write holds its row locks and
  // released (whether it committed or not) when destroyed.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept
        : feed_(std::exchange(other.feed_, nullptr)), first_(other.first_) {}
    Reservation& operator=(Reservation&&) = delete;
    Reservation(const Reservation&) = delete;
    ~Reservation() {
      if (feed_ != nullptr) feed_->Release(first_);
    }
    uint64_t first() const { return first_; }

   private:
    friend class ChangeFeed;
    Reservation(ChangeFeed* feed, uint64_t first) : feed_(feed), first_(first) {}
    ChangeFeed* feed_ = nullptr;
    uint64_t first_ = 0;
  };
  Reservation Reserve(uint64_t n) PARTKV_EXCLUDES(mu_);

 private:
  void Release(uint64_t first) PARTKV_EXCLUDES(mu_);

  const uint32_t table_id_;
  rocksdb::ColumnFamilyHandle* const cf_;
  std::atomic<bool> enabled_;
  std::atomic<uint64_t> trim_;
  mutable port::Mutex mu_;
  port::CondVar committed_{&mu_};  // signalled when the horizon moves
  ChangeFeedOptions options_ PARTKV_GUARDED_BY(mu_);
  bool configured_ PARTKV_GUARDED_BY(mu_);
  uint64_t next_ PARTKV_GUARDED_BY(mu_);
  std::multiset<uint64_t> in_flight_ PARTKV_GUARDED_BY(mu_);
};

// The entries of one write, collected while it decides its operations and put in its WriteBatch
// with their sequence numbers once it has decided them all.
class FeedEntries {
 public:
  void Add(ChangeOp op, int64_t time_ticks, uint64_t etag_version, std::string_view pk,
           std::string_view rk, std::string_view value_header = {},
           std::string_view value_body = {});
  bool empty() const { return ends_.empty(); }
  // Reserves sequence numbers from `feed` and puts every entry in *wb. The reservation must live
  // until the batch is written (or abandoned).
  Result<ChangeFeed::Reservation> Stage(ChangeFeed& feed, rocksdb::WriteBatch* wb) const;

 private:
  std::string bytes_;
  std::vector<size_t> ends_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_CHANGE_FEED_H_
