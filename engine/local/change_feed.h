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
// The partition index of a table's version index (see FeedEntries): below the feed's.
inline constexpr uint32_t kFeedVersionIndex = 0xFFFE;
// The first sequence number of a feed.
inline constexpr uint64_t kFirstFeedSeq = 1;

// The key of entry `seq` of table `table_id`'s feed: PartitionKeyPrefix(table_id, 0xFFFF), then
// seq as a big-endian u64.
std::string FeedKey(uint32_t table_id, uint64_t seq);
// The sequence number of a feed key (false when `key` is not one).
bool ParseFeedKey(std::string_view key, uint64_t* seq);

// The key of the version index entry of the version `etag_version` of a row of table
// `table_id`: PartitionKeyPrefix(table_id, 0xFFFE), then the version as a big-endian u64. Its
// value is the sequence number (varint64) of the entry that refers to it, then a byte holding
// the entry's op (low 4 bits) and origin (high 4 bits; 0 = application).
std::string FeedVersionKey(uint32_t table_id, uint64_t etag_version);
struct FeedVersion {
  uint64_t seq = 0;
  ChangeOp op = ChangeOp::kInsert;
  WriteOrigin origin = WriteOrigin::kApplication;
};
void AppendFeedVersion(const FeedVersion& version, std::string* out);
bool DecodeFeedVersion(std::string_view bytes, FeedVersion* version);

// One entry as stored, in one of two versions:
//   version:u8(=1) op:u8 time:fixed64 etag:varint64 pk_len:varint32 pk rk_len:varint32 rk value
//   version:u8(=2) origin:u8 op:u8 ... (the rest as version 1)
// Version 1 is written for the application's changes (origin kApplication), version 2 for others.
// where `value` is empty for a delete or an expiry, and for an insert, replace or merge either
// the entity's stored value (engine/value_codec.h) or empty: the entry then refers to the row's
// version `etag` (by reference, see FeedEntries).
struct FeedEntryView {
  ChangeOp op = ChangeOp::kInsert;
  WriteOrigin origin = WriteOrigin::kApplication;
  int64_t time_ticks = 0;
  uint64_t etag_version = 0;
  std::string_view partition_key;
  std::string_view row_key;
  std::string_view value;
  bool by_reference() const {
    return value.empty() && op != ChangeOp::kDelete && op != ChangeOp::kExpire;
  }
};
void AppendFeedEntry(WriteOrigin origin, ChangeOp op, int64_t time_ticks, uint64_t etag_version,
                     std::string_view pk, std::string_view rk, std::string_view value_header,
                     std::string_view value_body, std::string* out);
Status DecodeFeedEntry(std::string_view bytes, FeedEntryView* entry);
// `entry` as a partkv::Change numbered `seq`.
Status ChangeOfEntry(uint64_t seq, const FeedEntryView& entry, Change* change);
// The same with the entity's keys given (entry.partition_key and row_key are not read).
Status ChangeOfEntry(uint64_t seq, const FeedEntryView& entry, std::string pk, std::string rk,
                     Change* change);

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
//
// An insert, replace or merge is recorded by reference: its entry holds the keys and the ETag
// version, not the entity, which is the row's value as long as that version is the row's
// current one; the version index maps the version to the entry. The write that later replaces,
// merges, deletes or expires that version (Supersede) looks the version up and rewrites the
// entry with the value it replaces, in its own WriteBatch, so the feed never loses a version
// and a reader finds each entity either in its entry or in its row, in one snapshot. (A change
// thus writes its entity once, not twice; docs/design.md "Change feeds and time to live".)
class FeedEntries {
 public:
  // The entries of a write made by `origin` (an expiry is always recorded as the application's).
  explicit FeedEntries(WriteOrigin origin = WriteOrigin::kApplication) : origin_(origin) {}

  // A removal (delete or expiry), or a change whose entity is given (a version superseded within
  // the same write).
  void Add(ChangeOp op, int64_t time_ticks, uint64_t etag_version, std::string_view pk,
           std::string_view rk, std::string_view value_header = {},
           std::string_view value_body = {});
  // A change whose entity is the row's version `etag_version`, written by the same write.
  void AddByReference(ChangeOp op, int64_t time_ticks, uint64_t etag_version, std::string_view pk,
                      std::string_view rk);
  // The row (pk, rk) whose stored value `value` (version `etag_version`) this write replaces or
  // removes: its entry `found` (from FindVersions; none when the version has no entry by
  // reference) is rewritten with `value`, unless retention already trimmed it.
  Status Supersede(const ChangeFeed& feed, const std::optional<FeedVersion>& found,
                   uint64_t etag_version, std::string_view pk, std::string_view rk,
                   std::string_view value);
  bool empty() const { return ends_.empty() && rewrites_.empty(); }
  // New entries (rewrites are not counted).
  size_t size() const { return ends_.size(); }
  // Reserves sequence numbers from `feed` and puts every entry (and version index entry, and
  // rewrite) in *wb. The reservation must live until the batch is written (or abandoned).
  Result<ChangeFeed::Reservation> Stage(ChangeFeed& feed, rocksdb::WriteBatch* wb) const;

 private:
  const WriteOrigin origin_;
  std::string bytes_;
  std::vector<size_t> ends_;
  // Per new entry: the version it refers to, or 0 when it holds its entity (or is a removal).
  std::vector<uint64_t> by_reference_;
  std::vector<ChangeOp> ops_;
  std::vector<WriteOrigin> origins_;
  struct Rewrite {
    uint64_t seq;
    uint64_t etag_version;
    size_t begin, end;  // of the rewritten entry in rewrite_bytes_
  };
  std::string rewrite_bytes_;
  std::vector<Rewrite> rewrites_;
};

// The entries by reference of versions `etag_versions` of table `feed`'s rows, read (under the
// rows' locks) in one MultiGet: (*found)[i] for etag_versions[i], none when it has none.
Status FindVersions(rocksdb::DB* db, const ChangeFeed& feed,
                    const std::vector<uint64_t>& etag_versions,
                    std::vector<std::optional<FeedVersion>>* found);
// The same for the stored values `rows` (none for an absent row): (*found)[i] for rows[i].
Status FindRowVersions(rocksdb::DB* db, const ChangeFeed& feed,
                       const std::vector<std::optional<std::string_view>>& rows,
                       std::vector<std::optional<FeedVersion>>* found);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_CHANGE_FEED_H_
