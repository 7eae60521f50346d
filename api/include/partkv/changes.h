// The change feed and time to live of a table (docs/changes.md): the vocabulary.
//
// A table may keep a change feed: an ordered, durable log of its changes, each written in the
// same atomic write as the change itself. Table::ReadChanges reads it in pages from a position
// (a continuation token, the feed's start or its end), in one of two modes, as Cosmos DB's change
// feed reads: kLatest, the newest version of each entity changed since the position (deleted and
// expired entities left out), and kAll, every change in order, deletes and expiries included.
// Retention by age and by size trims the feed's oldest entries; a position retention removed is
// Status::Code::kTrimmed, naming the oldest position kept.
//
// A table may also give its entities a time to live: TableOptions::ttl_seconds, overridden per
// entity by an Int32 or Int64 property named "ttl" (Cosmos DB's rule: -1 never expires). An
// expired entity is invisible to every read at once; its space is reclaimed in the background.
#ifndef PARTKV_CHANGES_H_
#define PARTKV_CHANGES_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/entity.h"
#include "partkv/value.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// Whether a table keeps a change feed, and how much of it (TableOptions::change_feed,
// TableSettings::change_feed). Both limits may be set; the feed keeps what satisfies both.
struct ChangeFeedOptions {
  bool enabled = false;
  // Entries older than this are trimmed; zero = no limit by age.
  std::chrono::seconds retention{0};
  // The oldest entries are trimmed while the feed's bytes on disk (RocksDB's estimate, compressed)
  // exceed this; zero = no limit by size.
  uint64_t max_bytes = 0;
  friend bool operator==(const ChangeFeedOptions&, const ChangeFeedOptions&) = default;
};

// Time to live, in TableOptions::ttl_seconds and TableSettings::ttl_seconds (Cosmos DB's
// DefaultTimeToLive): kTtlOff, the default, expires nothing and ignores "ttl" properties;
// kTtlNoDefault expires only entities with a "ttl" property of N > 0 seconds; N > 0 expires
// every entity N seconds after its Timestamp unless its "ttl" says otherwise (-1: never).
inline constexpr int64_t kTtlOff = 0;
inline constexpr int64_t kTtlNoDefault = -1;
// The entity property that overrides a table's time to live (Int32 or Int64 seconds; -1 never
// expires; other values, and properties of other types, leave the table's default in force).
inline constexpr std::string_view kTtlProperty = "ttl";

enum class ChangeOp : uint8_t {
  kInsert = 1,   // the entity did not exist (or had expired)
  kReplace = 2,  // replaced whole (Replace, InsertOrReplace of an existing entity)
  kMerge = 3,    // merged (Merge, InsertOrMerge of an existing entity)
  kDelete = 4,   // deleted
  kExpire = 5,   // its time to live ran out (recorded once, when the store removed it)
};
// "insert", "replace", "merge", "delete", "expire".
const char* ChangeOpName(ChangeOp op);

// Who made a change (WriteOptions::origin, Change::origin): the application, or a sync applying a
// remote table's changes (partkv/sync.h), whose own writes a sync does not send back.
enum class WriteOrigin : uint8_t {
  kApplication = 0,
  kSync = 1,
};
// "application", "sync".
const char* WriteOriginName(WriteOrigin origin);

// One entry of a change feed.
struct Change {
  uint64_t seq = 0;  // the feed's sequence number: increasing, never reused by the table
  ChangeOp op = ChangeOp::kInsert;
  DateTime time;     // when the store recorded the change (for kExpire: when it removed it)
  std::string etag;  // the version written; for kDelete and kExpire, the version removed
  // The entity after the change (keys, properties, Timestamp and ETag); for kDelete and kExpire
  // its keys only.
  Entity entity;
  // Who wrote it (an expiry is always kApplication's).
  WriteOrigin origin = WriteOrigin::kApplication;
};

enum class ChangeFeedMode : uint8_t {
  kLatest = 0,  // the newest version of each entity changed since the position, once
  kAll = 1,     // every change since the position, in order
};

// Where a read of the change feed starts when ChangesQuery::continuation is empty.
enum class ChangeFeedStart : uint8_t {
  kBeginning = 0,  // the oldest entry retention kept
  kNow = 1,        // after every change made so far: the first page is empty, with its token
};

struct ChangesQuery {
  // A token from an earlier page (ChangesPage::continuation); empty = from `start`.
  std::string continuation;
  ChangeFeedStart start = ChangeFeedStart::kBeginning;
  ChangeFeedMode mode = ChangeFeedMode::kLatest;
  // Changes per page, 1..1000 (a page holds fewer when fewer are there, or at 4 MiB of them).
  uint32_t page_size = 1000;
};

struct ChangesPage {
  std::vector<Change> changes;
  // Where the next page starts: always set (a feed has no end; read again for newer changes).
  // Opaque, bound to the table and the store, valid across restarts until retention trims it.
  std::string continuation;
  // True when the page reached the newest change committed when it was read.
  bool caught_up = false;
};

// What a table's change feed holds now (Table::ChangeFeedState).
struct ChangeFeedState {
  ChangeFeedOptions options;
  uint64_t first_seq = 0;   // the oldest position kept: reads before it are kTrimmed
  uint64_t next_seq = 0;    // the sequence number the next change will get
  uint64_t bytes = 0;       // on disk, RocksDB's estimate (compressed; memtables included)
  std::string first_token;  // a continuation token for first_seq (ChangesQuery::continuation)
};

// What Table::Sweep did.
struct SweepReport {
  uint64_t feed_entries_trimmed = 0;  // retention moved the feed's start by this many positions
  uint64_t expiries_recorded = 0;     // expired entities removed with an "expire" feed entry
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_CHANGES_H_
