#include "engine/local/feed_ops.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/key_codec.h"
#include "engine/local/rocks_status.h"
#include "engine/local/store_state.h"
#include "engine/token.h"
#include "engine/value_codec.h"
#include "rocksdb/convenience.h"

namespace partkv::engine {
namespace {

constexpr uint8_t kFeedTokenFlags = 0x80;  // no query token has this flag
constexpr uint64_t kPageBytes = 4u << 20;
constexpr size_t kExpiriesPerWrite = 256;

// A feed token is bound to its table: the id and the creation time (ids are never reused, the
// time makes a token of another store with the same secret fail too).
uint64_t FeedFingerprint(const SharedTable& table) {
  return HashBytes("partkv change feed " + std::to_string(table.record().id) + " " +
                   std::to_string(table.record().created_ticks));
}

std::string FeedToken(const StoreState& store, const SharedTable& table, uint64_t seq) {
  TokenContents c;
  c.flags = kFeedTokenFlags;
  c.fingerprint = FeedFingerprint(table);
  for (int i = 7; i >= 0; --i) c.resume_key.push_back(static_cast<char>(seq >> (8 * i)));
  return EncodeToken(store.secret(), c);
}

Result<uint64_t> DecodeFeedToken(const StoreState& store, const SharedTable& table,
                                 std::string_view token) {
  auto c = DecodeToken(store.secret(), token, FeedFingerprint(table));
  if (!c.ok()) {
    return Status::InvalidArgument("change feed continuation token of table '" +
                                   table.record().name + "': " + std::string(c.status().message()));
  }
  if (c->flags != kFeedTokenFlags || c->resume_key.size() != 8) {
    return Status::InvalidArgument("the continuation token is not a change feed token of table '" +
                                   table.record().name + "'");
  }
  uint64_t seq = 0;
  for (char ch : c->resume_key) seq = (seq << 8) | static_cast<uint8_t>(ch);
  return seq;
}

Status FeedOff(const SharedTable& table) {
  return Status::InvalidArgument(
      "table '" + table.record().name +
      "' keeps no change feed; turn it on with TableOptions::change_feed, "
      "Store::SetTableOptions or `partkv table create|set --change-feed`");
}

Status TrimmedAt(const StoreState& store, const SharedTable& table, uint64_t seq, uint64_t trim) {
  return Status::Trimmed("change feed position " + std::to_string(seq) + " of table '" +
                         table.record().name +
                         "' is no longer kept (retention trimmed it, or the " +
                         "feed was turned off and on again since); the oldest position kept is " +
                         std::to_string(trim) + " (token " + FeedToken(store, table, trim) + ")");
}

// An iterator over table `table`'s feed entries [from, to), without a snapshot unless given.
std::unique_ptr<rocksdb::Iterator> FeedIterator(StoreState& store, const ChangeFeed& feed,
                                                uint64_t from, uint64_t to,
                                                const rocksdb::Snapshot* snapshot,
                                                std::string* lower, std::string* upper,
                                                rocksdb::Slice* lower_slice,
                                                rocksdb::Slice* upper_slice) {
  *lower = FeedKey(feed.table_id(), from);
  *upper = FeedKey(feed.table_id(), to);
  *lower_slice = *lower;
  *upper_slice = *upper;
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  // A reader reads each entry once: its blocks would only push others out of the cache.
  ro.fill_cache = false;
  ro.iterate_lower_bound = lower_slice;
  ro.iterate_upper_bound = upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(store.db()->NewIterator(ro, feed.cf()));
  it->Seek(*lower_slice);
  return it;
}

// Whether the entry's entity is, in `snapshot`, still the version it recorded and not expired:
// what the latest mode returns.
Result<bool> IsCurrent(StoreState& store, const SharedTable& table, const FeedEntryView& e,
                       const rocksdb::Snapshot* snapshot, const Expiry& expiry) {
  const PhysicalPartition& part = table.partitions()[table.PartitionIndexOf(e.partition_key)];
  std::string key = part.prefix;
  AppendEntityKey(e.partition_key, e.row_key, &key);
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::PinnableSlice value;
  rocksdb::Status s = store.db()->Get(ro, part.cf, key, &value);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return FromRocks(s, "read the change feed");
  ValueHeader h;
  PARTKV_RETURN_IF_ERROR(DecodeValueHeader(value.ToStringView(), &h));
  return h.etag_version == e.etag_version && !expiry.ExpiredValue(value.ToStringView());
}

}  // namespace

Result<ChangesPage> ReadChanges(StoreState& store, const SharedTable& table,
                                const ChangesQuery& query) {
  if (table.dropped())
    return Status::NotFound("table '" + table.record().name + "' has been dropped");
  ChangeFeed& feed = table.feed();
  if (!feed.enabled()) return FeedOff(table);
  if (query.page_size < 1 || query.page_size > 1000) {
    return Status::InvalidArgument("change feed page size " + std::to_string(query.page_size) +
                                   "; it must be 1..1000");
  }
  uint64_t from;
  ChangesPage page;
  if (!query.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(from, DecodeFeedToken(store, table, query.continuation));
  } else if (query.start == ChangeFeedStart::kNow) {
    page.continuation = FeedToken(store, table, feed.horizon());
    page.caught_up = true;
    return page;
  } else {
    from = feed.trim();
  }
  if (from < feed.trim()) return TrimmedAt(store, table, from, feed.trim());
  // Every number below the horizon is committed (or abandoned) before the snapshot is taken, so
  // the snapshot holds every entry the page may return, and none is passed over for good.
  const uint64_t horizon = feed.horizon();
  if (from > horizon) {
    return Status::InvalidArgument("change feed continuation token of table '" +
                                   table.record().name + "' is ahead of the feed");
  }
  rocksdb::ManagedSnapshot snapshot(store.db());
  std::string lower, upper;
  rocksdb::Slice lower_slice, upper_slice;
  auto it = FeedIterator(store, feed, from, horizon, snapshot.snapshot(), &lower, &upper,
                         &lower_slice, &upper_slice);
  const bool latest = query.mode == ChangeFeedMode::kLatest;
  const Expiry expiry = table.ExpiryAt(store.NowTicks());
  // The latest mode passes over superseded entries: bounded per page as a query's scan is.
  const uint64_t budget = 10 * static_cast<uint64_t>(query.page_size);
  uint64_t next = from, bytes = 0, examined = 0;
  for (; it->Valid(); it->Next()) {
    if (page.changes.size() >= query.page_size || bytes >= kPageBytes || examined >= budget) break;
    uint64_t seq = 0;
    if (!ParseFeedKey(it->key().ToStringView(), &seq)) {
      return Status::Corruption("table '" + table.record().name + "': malformed change feed key");
    }
    ++examined;
    next = seq + 1;
    FeedEntryView e;
    PARTKV_RETURN_IF_ERROR(
        DecodeFeedEntry(it->value().ToStringView(), &e)
            .WithContext("table '" + table.record().name + "' position " + std::to_string(seq)));
    if (latest) {
      if (e.op == ChangeOp::kDelete || e.op == ChangeOp::kExpire) continue;
      PARTKV_ASSIGN_OR_RETURN(bool current,
                              IsCurrent(store, table, e, snapshot.snapshot(), expiry));
      if (!current) continue;
    }
    page.changes.emplace_back();
    PARTKV_RETURN_IF_ERROR(ChangeOfEntry(seq, e, &page.changes.back()));
    bytes += it->key().size() + it->value().size();
  }
  if (!it->status().ok()) return FromRocks(it->status(), "read the change feed");
  if (!it->Valid()) {
    next = horizon;
    page.caught_up = true;
  }
  // Retention may have moved on while the page was read, and compactions may have left out
  // entries it returned or passed over: the page is good only if its start is still kept.
  if (from < feed.trim()) return TrimmedAt(store, table, from, feed.trim());
  page.continuation = FeedToken(store, table, next);
  return page;
}

Result<ChangeFeedState> FeedState(StoreState& store, const SharedTable& table) {
  if (table.dropped())
    return Status::NotFound("table '" + table.record().name + "' has been dropped");
  const ChangeFeed& feed = table.feed();
  if (!feed.enabled()) return FeedOff(table);
  ChangeFeedState state;
  state.options = feed.options();
  state.first_seq = feed.trim();
  state.next_seq = feed.next();
  state.first_token = FeedToken(store, table, state.first_seq);
  const std::string lower = FeedKey(feed.table_id(), state.first_seq);
  const std::string upper = FeedKey(feed.table_id(), UINT64_MAX);
  rocksdb::Range range(lower, upper);
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  rocksdb::Status s = store.db()->GetApproximateSizes(options, feed.cf(), &range, 1, &state.bytes);
  if (!s.ok()) return FromRocks(s, "size the change feed");
  return state;
}

Result<bool> AwaitChanges(StoreState& store, const SharedTable& table,
                          std::string_view continuation, std::chrono::milliseconds timeout) {
  if (table.dropped())
    return Status::NotFound("table '" + table.record().name + "' has been dropped");
  ChangeFeed& feed = table.feed();
  if (!feed.enabled()) return FeedOff(table);
  PARTKV_ASSIGN_OR_RETURN(const uint64_t from, DecodeFeedToken(store, table, continuation));
  if (from < feed.trim()) return TrimmedAt(store, table, from, feed.trim());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const uint64_t horizon = feed.horizon();
    if (horizon > from) {
      std::string lower, upper;
      rocksdb::Slice lower_slice, upper_slice;
      auto it = FeedIterator(store, feed, from, horizon, nullptr, &lower, &upper, &lower_slice,
                             &upper_slice);
      if (it->Valid()) return true;
      if (!it->status().ok()) return FromRocks(it->status(), "read the change feed");
    }
    // Wait for the horizon to pass what is there now (a failed write leaves a gap below it).
    if (!feed.AwaitHorizonAbove(std::max(horizon, from), deadline)) return false;
  }
}

namespace {

// The first position at or after which the feed's entries are younger than `cutoff` (ticks),
// within [trim, horizon): a binary search, since entries are recorded in time order (closely:
// concurrent writers take their ticks and their positions in slightly different orders).
Result<uint64_t> FirstYoungerThan(StoreState& store, const ChangeFeed& feed, uint64_t trim,
                                  uint64_t horizon, int64_t cutoff) {
  uint64_t lo = trim, hi = horizon;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    std::string lower, upper;
    rocksdb::Slice lower_slice, upper_slice;
    auto it =
        FeedIterator(store, feed, mid, hi, nullptr, &lower, &upper, &lower_slice, &upper_slice);
    if (!it->status().ok()) return FromRocks(it->status(), "read the change feed");
    if (!it->Valid()) {
      hi = mid;  // nothing from mid on: the cut is at or before mid
      continue;
    }
    uint64_t seq = 0;
    FeedEntryView e;
    if (!ParseFeedKey(it->key().ToStringView(), &seq) ||
        !DecodeFeedEntry(it->value().ToStringView(), &e).ok()) {
      return Status::Corruption("malformed change feed entry");
    }
    if (e.time_ticks >= cutoff) {
      hi = mid;
    } else {
      lo = seq + 1;
    }
  }
  return lo;
}

// Removes the expired entities of `table` (which keeps a feed), each with an "expire" entry.
Result<uint64_t> RecordExpiries(StoreState& store, SharedTable& table) {
  uint64_t recorded = 0;
  for (size_t index = 0; index < table.partitions().size(); ++index) {
    const PhysicalPartition& part = table.partitions()[index];
    const std::string upper =
        PartitionKeyPrefix(table.record().id, static_cast<uint32_t>(index + 1));
    rocksdb::Slice lower_slice(part.prefix), upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    ro.iterate_lower_bound = &lower_slice;
    ro.iterate_upper_bound = &upper_slice;
    rocksdb::ManagedSnapshot snapshot(store.db());
    ro.snapshot = snapshot.snapshot();
    std::unique_ptr<rocksdb::Iterator> it(store.db()->NewIterator(ro, part.cf));
    std::vector<std::pair<std::string, uint64_t>> expired;  // full key, ETag version
    auto flush = [&]() -> Status {
      if (expired.empty()) return Status::OK();
      std::vector<std::string_view> keys;
      for (const auto& [key, etag] : expired) keys.push_back(key);
      StoreState::RowLocks locks = store.LockRows(keys);
      const int64_t now = store.NowTicks();
      const Expiry expiry = table.ExpiryAt(now);
      rocksdb::WriteBatch wb;
      FeedEntries entries;
      for (const auto& [key, etag] : expired) {
        rocksdb::PinnableSlice value;
        rocksdb::Status s = store.db()->Get(rocksdb::ReadOptions(), part.cf, key, &value);
        if (s.IsNotFound()) continue;
        if (!s.ok()) return FromRocks(s, "read an expired entity");
        ValueHeader h;
        PARTKV_RETURN_IF_ERROR(DecodeValueHeader(value.ToStringView(), &h));
        // Written again since, or no longer expired (a longer time to live): not this sweep's.
        if (h.etag_version != etag || !expiry.ExpiredValue(value.ToStringView())) continue;
        std::string pk, rk;
        PARTKV_RETURN_IF_ERROR(
            DecodeEntityKey(std::string_view(key).substr(kPartitionKeyPrefixLength), &pk, &rk));
        wb.Delete(part.cf, key);
        entries.Add(ChangeOp::kExpire, now, etag, pk, rk);
      }
      expired.clear();
      if (entries.empty()) return Status::OK();
      PARTKV_ASSIGN_OR_RETURN(ChangeFeed::Reservation reservation,
                              entries.Stage(table.feed(), &wb));
      PARTKV_RETURN_IF_ERROR(store.Write(/*sync=*/false, &wb, "record expiries"));
      recorded += wb.Count() / 2;
      return Status::OK();
    };
    const Expiry expiry = table.ExpiryAt(store.NowTicks());
    for (it->Seek(lower_slice); it->Valid(); it->Next()) {
      if (!expiry.ExpiredValue(it->value().ToStringView())) continue;
      ValueHeader h;
      if (!DecodeValueHeader(it->value().ToStringView(), &h).ok()) continue;
      expired.emplace_back(it->key().ToString(), h.etag_version);
      if (expired.size() >= kExpiriesPerWrite) PARTKV_RETURN_IF_ERROR(flush());
    }
    if (!it->status().ok()) return FromRocks(it->status(), "sweep expired entities");
    PARTKV_RETURN_IF_ERROR(flush());
  }
  return recorded;
}

}  // namespace

Result<SweepReport> SweepTable(StoreState& store, SharedTable& table) {
  SweepReport report;
  if (table.dropped())
    return Status::NotFound("table '" + table.record().name + "' has been dropped");
  ChangeFeed& feed = table.feed();
  if (!feed.enabled()) return report;
  const ChangeFeedOptions options = feed.options();
  const uint64_t trim = feed.trim();
  const uint64_t horizon = feed.horizon();
  uint64_t new_trim = trim;
  if (options.retention.count() > 0) {
    const int64_t cutoff = store.NowTicks() - options.retention.count() * kTicksPerSecond;
    PARTKV_ASSIGN_OR_RETURN(new_trim, FirstYoungerThan(store, feed, trim, horizon, cutoff));
  }
  if (options.max_bytes > 0 && horizon > new_trim) {
    // The bytes from the current start on (the entries below it no longer count, whether or not
    // a compaction has removed them yet), cut by the share of positions that makes them fit.
    const std::string lower = FeedKey(feed.table_id(), new_trim);
    const std::string upper = FeedKey(feed.table_id(), horizon);
    rocksdb::Range range(lower, upper);
    rocksdb::SizeApproximationOptions o;
    o.include_memtables = true;
    uint64_t size = 0;
    rocksdb::Status s = store.db()->GetApproximateSizes(o, feed.cf(), &range, 1, &size);
    if (!s.ok()) return FromRocks(s, "size the change feed");
    if (size > options.max_bytes) {
      const double excess =
          static_cast<double>(size - options.max_bytes) / static_cast<double>(size);
      const auto span = static_cast<double>(horizon - new_trim);
      new_trim +=
          std::min<uint64_t>(horizon - new_trim, static_cast<uint64_t>(excess * span + 0.999));
    }
  }
  // Each trim is a synced write, and writers queue behind it: a trim of a sliver of the feed
  // waits until it is worth one (a sixteenth of what the feed holds), keeping a little more
  // than the limits ask for meanwhile.
  if (new_trim > trim && (new_trim - trim) * 16 >= horizon - trim) {
    PARTKV_RETURN_IF_ERROR(store.TrimFeed(table, new_trim));
    report.feed_entries_trimmed = new_trim - trim;
    // Whole files of trimmed entries go at once; compactions leave the rest out.
    const std::string begin = FeedKey(feed.table_id(), 0);
    const std::string end = FeedKey(feed.table_id(), new_trim);
    const rocksdb::Slice begin_slice(begin), end_slice(end);
    rocksdb::DeleteFilesInRange(store.db(), feed.cf(), &begin_slice, &end_slice)
        .PermitUncheckedError();
  }
  if (table.ttl_seconds() != kTtlOff) {
    PARTKV_ASSIGN_OR_RETURN(report.expiries_recorded, RecordExpiries(store, table));
  }
  return report;
}

}  // namespace partkv::engine
