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
// what the latest mode returns. *value is the row's value.
Result<bool> IsCurrent(StoreState& store, const SharedTable& table, const FeedEntryView& e,
                       const rocksdb::Snapshot* snapshot, const Expiry& expiry,
                       rocksdb::PinnableSlice* value) {
  const PhysicalPartition& part = table.partitions()[table.PartitionIndexOf(e.partition_key)];
  std::string key = part.prefix;
  AppendEntityKey(e.partition_key, e.row_key, &key);
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::Status s = store.db()->Get(ro, part.cf, key, value);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return FromRocks(s, "read the change feed");
  ValueHeader h;
  PARTKV_RETURN_IF_ERROR(DecodeValueHeader(value->ToStringView(), &h));
  return h.etag_version == e.etag_version && !expiry.ExpiredValue(value->ToStringView());
}

Status MissingVersion(const SharedTable& table, uint64_t seq) {
  return Status::Corruption("table '" + table.record().name + "': change feed position " +
                            std::to_string(seq) +
                            " refers to a version of its entity that is no longer stored");
}

// Entries by reference of one page, whose entities are read from their rows in `snapshot`, a
// chunk at a time: one MultiGet per column family.
class ReferenceReader {
 public:
  ReferenceReader(StoreState& store, const SharedTable& table, const rocksdb::Snapshot* snapshot)
      : store_(store), table_(table), snapshot_(snapshot) {}

  // Change `index` of the page refers to its row's version: read it at the next Resolve.
  void Add(size_t index, const FeedEntryView& e) {
    const PhysicalPartition& part = table_.partitions()[table_.PartitionIndexOf(e.partition_key)];
    Pending p{index, part.cf, part.prefix, e};
    AppendEntityKey(e.partition_key, e.row_key, &p.key);
    pending_.push_back(std::move(p));
  }
  // Whether enough are pending to read them now. A chunk is 64 entries at first, then as many as
  // the entities read so far say fit in a quarter of the page's byte limit (8 to 1,000): so a
  // chunk adds little to a page beyond its limit, and small entities are read in large chunks.
  bool Full() const { return pending_.size() >= chunk_; }

  // Fills in the entities of the changes added since the last call; adds their bytes to *bytes.
  Status Resolve(std::vector<Change>* changes, uint64_t* bytes) {
    if (pending_.empty()) return Status::OK();
    std::sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
      return a.cf != b.cf ? a.cf->GetID() < b.cf->GetID() : a.key < b.key;
    });
    const size_t n = pending_.size();
    // The runs of one column family, each read by one iterator in key order; the runs are shared
    // out among the store's scan threads (the caller is one), as a table scan's partitions are.
    std::vector<size_t> runs;  // run r is [runs[r], runs[r + 1])
    for (size_t i = 0; i < n; ++i) {
      if (i == 0 || pending_[i].cf != pending_[i - 1].cf) runs.push_back(i);
    }
    runs.push_back(n);
    const size_t run_count = runs.size() - 1;
    const size_t width = std::min(store_.scan_threads(), run_count);
    std::vector<Status> results(width);
    std::vector<uint64_t> task_bytes(width, 0);
    store_.scan_pool().ParallelFor(width, width, [&](size_t task) {
      for (size_t r = task; r < run_count && results[task].ok(); r += width) {
        results[task] = ReadRun(runs[r], runs[r + 1], changes, &task_bytes[task]);
      }
    });
    pending_.clear();
    for (size_t t = 0; t < width; ++t) {
      PARTKV_RETURN_IF_ERROR(results[t]);
      *bytes += task_bytes[t];
      read_bytes_ += task_bytes[t];
    }
    read_count_ += n;
    const uint64_t average = std::max<uint64_t>(1, read_bytes_ / read_count_);
    chunk_ = std::clamp<size_t>(kPageBytes / 4 / average, kMinChunk, kMaxChunk);
    return Status::OK();
  }

 private:
  static constexpr size_t kFirstChunk = 64;
  static constexpr size_t kMaxChunk = 1000;
  static constexpr size_t kMinChunk = 8;
  // Steps an iterator takes forward to the next key before seeking it instead.
  static constexpr int kMaxSteps = 8;

  // Reads pending_[begin, end) (one column family, in key order) with one iterator: rows referred
  // to by consecutive entries (a batch, a run of row keys) are near one another.
  Status ReadRun(size_t begin, size_t end, std::vector<Change>* changes, uint64_t* bytes) {
    std::string upper = pending_[end - 1].key;
    upper.push_back('\0');  // just past the last key
    const rocksdb::Slice lower_slice(pending_[begin].key), upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot_;
    ro.iterate_lower_bound = &lower_slice;
    ro.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(store_.db()->NewIterator(ro, pending_[begin].cf));
    it->Seek(lower_slice);
    for (size_t i = begin; i < end; ++i) {
      const rocksdb::Slice key(pending_[i].key);
      for (int steps = 0; it->Valid() && it->key().compare(key) < 0; ++steps) {
        if (steps == kMaxSteps) {
          it->Seek(key);
          break;
        }
        it->Next();
      }
      if (!it->status().ok()) return FromRocks(it->status(), "read the change feed");
      Change& change = (*changes)[pending_[i].index];
      if (!it->Valid() || it->key() != key) return MissingVersion(table_, change.seq);
      PARTKV_RETURN_IF_ERROR(Fill(i, it->value().ToStringView(), &change));
      *bytes += it->value().size();
    }
    return Status::OK();
  }

  // Change pending_[i]'s entity, from its row's value (taking the pending keys).
  Status Fill(size_t i, std::string_view value, Change* change) {
    ValueHeader h;
    PARTKV_RETURN_IF_ERROR(DecodeValueHeader(value, &h));
    if (h.etag_version != pending_[i].entry.etag_version) {
      return MissingVersion(table_, change->seq);
    }
    FeedEntryView e = pending_[i].entry;
    e.value = value;
    return ChangeOfEntry(change->seq, e, std::move(pending_[i].pk), std::move(pending_[i].rk),
                         change);
  }

  struct Pending {
    Pending(size_t i, rocksdb::ColumnFamilyHandle* c, const std::string& prefix,
            const FeedEntryView& e)
        : index(i), cf(c), key(prefix), entry(e), pk(e.partition_key), rk(e.row_key) {
      entry.partition_key = {};  // the iterator's bytes: gone by Resolve
      entry.row_key = {};
    }
    size_t index;
    rocksdb::ColumnFamilyHandle* cf;
    std::string key;
    FeedEntryView entry;
    std::string pk, rk;
  };
  StoreState& store_;
  const SharedTable& table_;
  const rocksdb::Snapshot* snapshot_;
  std::vector<Pending> pending_;
  size_t chunk_ = kFirstChunk;
  uint64_t read_bytes_ = 0, read_count_ = 0;
};

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
  ReferenceReader references(store, table, snapshot.snapshot());
  rocksdb::PinnableSlice row;
  for (; it->Valid(); it->Next()) {
    if (references.Full()) PARTKV_RETURN_IF_ERROR(references.Resolve(&page.changes, &bytes));
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
      row.Reset();
      PARTKV_ASSIGN_OR_RETURN(bool current,
                              IsCurrent(store, table, e, snapshot.snapshot(), expiry, &row));
      if (!current) continue;
      if (e.by_reference()) e.value = row.ToStringView();  // the row holds the entity
    }
    page.changes.emplace_back();
    if (e.by_reference()) {
      page.changes.back().seq = seq;  // the rest once its row is read
      references.Add(page.changes.size() - 1, e);
    } else {
      PARTKV_RETURN_IF_ERROR(ChangeOfEntry(seq, e, &page.changes.back()));
    }
    bytes += it->key().size() + it->value().size();
  }
  if (!it->status().ok()) return FromRocks(it->status(), "read the change feed");
  PARTKV_RETURN_IF_ERROR(references.Resolve(&page.changes, &bytes));
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
  // The entries, and the version index of those that refer to their rows.
  const std::string lower = FeedKey(feed.table_id(), state.first_seq);
  const std::string upper = FeedKey(feed.table_id(), UINT64_MAX);
  const std::string index_lower = FeedVersionKey(feed.table_id(), 0);
  const std::string index_upper = FeedVersionKey(feed.table_id(), UINT64_MAX);
  const rocksdb::Range ranges[2] = {{lower, upper}, {index_lower, index_upper}};
  uint64_t sizes[2] = {0, 0};
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  rocksdb::Status s = store.db()->GetApproximateSizes(options, feed.cf(), ranges, 2, sizes);
  if (!s.ok()) return FromRocks(s, "size the change feed");
  state.bytes = sizes[0] + sizes[1];
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
      // The rows still expired, with their values: each version goes into its entry by
      // reference (FeedEntries::Supersede) as the row goes.
      std::vector<std::string> keys_kept, values;
      std::vector<uint64_t> etags;
      for (const auto& [key, etag] : expired) {
        rocksdb::PinnableSlice value;
        rocksdb::Status s = store.db()->Get(rocksdb::ReadOptions(), part.cf, key, &value);
        if (s.IsNotFound()) continue;
        if (!s.ok()) return FromRocks(s, "read an expired entity");
        ValueHeader h;
        PARTKV_RETURN_IF_ERROR(DecodeValueHeader(value.ToStringView(), &h));
        // Written again since, or no longer expired (a longer time to live): not this sweep's.
        if (h.etag_version != etag || !expiry.ExpiredValue(value.ToStringView())) continue;
        keys_kept.push_back(key);
        values.emplace_back(value.ToStringView());
        etags.push_back(etag);
      }
      expired.clear();
      std::vector<std::optional<FeedVersion>> versions;
      PARTKV_RETURN_IF_ERROR(FindVersions(store.db(), table.feed(), etags, &versions));
      for (size_t i = 0; i < keys_kept.size(); ++i) {
        std::string pk, rk;
        PARTKV_RETURN_IF_ERROR(DecodeEntityKey(
            std::string_view(keys_kept[i]).substr(kPartitionKeyPrefixLength), &pk, &rk));
        wb.Delete(part.cf, keys_kept[i]);
        PARTKV_RETURN_IF_ERROR(
            entries.Supersede(table.feed(), versions[i], etags[i], pk, rk, values[i]));
        entries.Add(ChangeOp::kExpire, now, etags[i], pk, rk);
      }
      if (entries.empty()) return Status::OK();
      PARTKV_ASSIGN_OR_RETURN(ChangeFeed::Reservation reservation,
                              entries.Stage(table.feed(), &wb));
      PARTKV_RETURN_IF_ERROR(store.Write(/*sync=*/false, &wb, "record expiries"));
      recorded += entries.size();
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
