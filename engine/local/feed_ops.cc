#include "engine/local/feed_ops.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/key_codec.h"
#include "engine/local/cursor.h"
#include "engine/local/query.h"
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
// chunk at a time: per physical partition, one iterator that lives as long as the reader and
// steps through the chunk's keys in order.
class ReferenceReader {
 public:
  ReferenceReader(StoreState& store, const SharedTable& table, const rocksdb::Snapshot* snapshot,
                  CacheUse cache)
      : store_(store),
        table_(table),
        snapshot_(snapshot),
        cache_(cache),
        cursors_(table.partitions().size()) {}

  // Change `index` of the page refers to its row's version: read it at the next Resolve.
  void Add(size_t index, const FeedEntryView& e) {
    const uint32_t part = static_cast<uint32_t>(table_.PartitionIndexOf(e.partition_key));
    Pending p{index, part, table_.partitions()[part].prefix, e};
    AppendEntityKey(e.partition_key, e.row_key, &p.key);
    pending_.push_back(std::move(p));
  }
  // Whether enough are pending to read them now. A chunk is 64 entries at first, then as many as
  // the entities read so far say fit in a quarter of the page's byte limit (8 to 1,000): so a
  // chunk adds little to a page beyond its limit, and small entities are read in large chunks.
  // It is at most half a page (set_page_size), so that a page is read in two chunks or more and
  // one is collected while the other is read.
  bool Full() const { return pending_.size() >= std::min(chunk_, half_page_); }
  void set_page_size(size_t page_size) { half_page_ = std::max<size_t>(1, (page_size + 1) / 2); }

  bool HasPending() const { return !pending_.empty(); }
  void DropPending() { pending_.clear(); }

  // Fills in the entities of the changes added since the last call, and adds their bytes to
  // *bytes. Meanwhile, when given, `collect` runs on one of the threads and may Add the next
  // chunk (the changes must not be reallocated: the caller reserves the page).
  Status Resolve(std::vector<Change>* changes, uint64_t* bytes,
                 const std::function<Status()>* collect = nullptr) {
    resolving_.swap(pending_);
    pending_.clear();
    const size_t n = resolving_.size();
    // The runs of one partition, each read by its cursor in key order, one task each; the tasks
    // are shared out among the store's scan threads (the caller is one), as a table scan's
    // partitions are. order_ holds the references by partition (counted out), each partition's in
    // key order (already so for the rows of a batch or a run of row keys; else sorted).
    std::vector<size_t> runs(cursors_.size() + 1, 0);  // partition p is [runs[p], runs[p + 1])
    for (const Pending& p : resolving_) ++runs[p.part + 1];
    for (size_t p = 0; p < cursors_.size(); ++p) runs[p + 1] += runs[p];
    order_.resize(n);
    {
      std::vector<size_t> next(runs.begin(), runs.end() - 1);
      for (size_t i = 0; i < n; ++i) order_[next[resolving_[i].part]++] = static_cast<uint32_t>(i);
    }
    const auto by_key = [this](uint32_t a, uint32_t b) {
      return resolving_[a].key < resolving_[b].key;
    };
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());  // the empty partitions go
    for (size_t r = 0; r + 1 < runs.size(); ++r) {
      const auto begin = order_.begin() + runs[r], end = order_.begin() + runs[r + 1];
      if (!std::is_sorted(begin, end, by_key)) std::sort(begin, end, by_key);
    }
    const size_t run_count = runs.size() - 1;
    const size_t first = collect != nullptr ? 1 : 0;  // task 0 collects
    std::vector<Status> results(run_count);
    std::vector<uint64_t> run_bytes(run_count, 0);
    Status collected;
    const size_t width = first + std::min(store_.scan_threads(), run_count);
    store_.scan_pool().ParallelFor(first + run_count, width, [&](size_t task) {
      if (task < first) {
        collected = (*collect)();
      } else {
        const size_t r = task - first;
        results[r] = ReadRun(runs[r], runs[r + 1], changes, &run_bytes[r]);
      }
    });
    resolving_.clear();
    for (size_t r = 0; r < run_count; ++r) {
      PARTKV_RETURN_IF_ERROR(results[r]);
      *bytes += run_bytes[r];
      read_bytes_ += run_bytes[r];
    }
    PARTKV_RETURN_IF_ERROR(collected);
    read_count_ += n;
    if (read_count_ > 0) {
      const uint64_t average = std::max<uint64_t>(1, read_bytes_ / read_count_);
      chunk_ = std::clamp<size_t>(kPageBytes / 4 / average, kMinChunk, kMaxChunk);
    }
    return Status::OK();
  }

 private:
  static constexpr size_t kFirstChunk = 64;
  static constexpr size_t kMaxChunk = 1000;
  static constexpr size_t kMinChunk = 8;
  // Steps an iterator takes forward to the next key before seeking it instead.
  static constexpr int kMaxSteps = 8;

  // A physical partition's iterator, bounded by the partition, made when first needed. A
  // partition's runs are read by one task at a time, so a cursor needs no lock.
  struct Cursor {
    std::string lower, upper;
    rocksdb::Slice lower_slice, upper_slice;
    std::unique_ptr<rocksdb::Iterator> it;
  };

  rocksdb::Iterator* CursorOf(uint32_t part) {
    Cursor& c = cursors_[part];
    if (c.it == nullptr) {
      c.lower = table_.partitions()[part].prefix;
      c.upper = PartitionKeyPrefix(table_.record().id, part + 1);
      c.lower_slice = c.lower;
      c.upper_slice = c.upper;
      rocksdb::ReadOptions ro;
      ro.snapshot = snapshot_;
      SetCacheUse(cache_, &ro);
      ro.iterate_lower_bound = &c.lower_slice;
      ro.iterate_upper_bound = &c.upper_slice;
      c.it.reset(store_.db()->NewIterator(ro, table_.partitions()[part].cf));
    }
    return c.it.get();
  }

  // Reads resolving_[order_[begin, end)] (one partition, in key order) with its cursor: rows
  // referred to by consecutive entries (a batch, a run of row keys) are near one another, and a
  // cursor moves forward from where the last chunk left it when it can.
  Status ReadRun(size_t begin, size_t end, std::vector<Change>* changes, uint64_t* bytes) {
    rocksdb::Iterator* it = CursorOf(resolving_[order_[begin]].part);
    for (size_t k = begin; k < end; ++k) {
      const size_t i = order_[k];
      const rocksdb::Slice key(resolving_[i].key);
      if (!it->Valid() || it->key().compare(key) > 0) {
        it->Seek(key);
      } else {
        for (int steps = 0; it->Valid() && it->key().compare(key) < 0; ++steps) {
          if (steps == kMaxSteps) {
            it->Seek(key);
            break;
          }
          it->Next();
        }
      }
      if (!it->status().ok()) return FromRocks(it->status(), "read the change feed");
      Change& change = (*changes)[resolving_[i].index];
      if (!it->Valid() || it->key() != key) return MissingVersion(table_, change.seq);
      PARTKV_RETURN_IF_ERROR(Fill(i, it->value().ToStringView(), &change));
      *bytes += it->value().size();
    }
    return Status::OK();
  }

  // Change resolving_[i]'s entity, from its row's value (taking the pending keys).
  Status Fill(size_t i, std::string_view value, Change* change) {
    Pending& p = resolving_[i];
    ValueHeader h;
    PARTKV_RETURN_IF_ERROR(DecodeValueHeader(value, &h));
    if (h.etag_version != p.entry.etag_version) return MissingVersion(table_, change->seq);
    FeedEntryView e = p.entry;
    e.value = value;
    return ChangeOfEntry(change->seq, e, std::move(p.pk), std::move(p.rk), change);
  }

  struct Pending {
    Pending(size_t i, uint32_t p, const std::string& prefix, const FeedEntryView& e)
        : index(i), part(p), key(prefix), entry(e), pk(e.partition_key), rk(e.row_key) {
      entry.partition_key = {};  // the iterator's bytes: gone by Resolve
      entry.row_key = {};
    }
    size_t index;
    uint32_t part;  // the physical partition
    std::string key;
    FeedEntryView entry;
    std::string pk, rk;
  };
  StoreState& store_;
  const SharedTable& table_;
  const rocksdb::Snapshot* snapshot_;
  const CacheUse cache_;
  std::vector<Cursor> cursors_;     // by physical partition
  std::vector<Pending> pending_;    // added since the last Resolve
  std::vector<Pending> resolving_;  // being read by Resolve
  std::vector<uint32_t> order_;     // resolving_ by partition and key
  size_t chunk_ = kFirstChunk;
  size_t half_page_ = kMaxChunk;
  uint64_t read_bytes_ = 0, read_count_ = 0;
};

// A read of the feed from `from` on reads its rows past the block cache when it is a bulk read
// (engine/local/query.h): when it has at least kMinBulkEntries entries to read, and the table's
// rows, in the share the entries to read are of the entries kept, would fill half the cache.
CacheUse CacheUseOf(StoreState& store, const SharedTable& table, const ChangeFeed& feed,
                    uint64_t from) {
  constexpr uint64_t kMinBulkEntries = 4096;
  const uint64_t horizon = feed.horizon(), trim = feed.trim();
  if (from >= horizon || horizon - from < kMinBulkEntries || horizon <= trim) {
    return CacheUse::kFill;
  }
  const double share =
      static_cast<double>(horizon - from) / static_cast<double>(horizon - std::min(trim, from));
  return BulkRead(store, table, "", "", share) ? CacheUse::kBypass : CacheUse::kFill;
}

// A read of a feed, page after page: its snapshot, its feed iterator and its readers of rows. A
// page that is not the last leaves it in the store's resume cache under the page's token; when
// the token comes back and nothing was written since, the next page goes on from it as it stands.
struct FeedRead {
  FeedRead(StoreState& store, const SharedTable& table, const ChangeFeed& feed, uint64_t from,
           uint64_t horizon_in)
      : snapshot(store.db()),
        horizon(horizon_in),
        references(store, table, snapshot.snapshot(), CacheUseOf(store, table, feed, from)) {
    it = FeedIterator(store, feed, from, horizon, snapshot.snapshot(), &lower, &upper, &lower_slice,
                      &upper_slice);
  }
  // Destroyed bottom up: the iterators before the snapshot they read.
  rocksdb::ManagedSnapshot snapshot;
  const uint64_t horizon;  // the feed's, taken before the snapshot: the iterator's upper bound
  ReferenceReader references;
  std::string lower, upper;
  rocksdb::Slice lower_slice, upper_slice;
  std::unique_ptr<rocksdb::Iterator> it;
  // The first entries of the next page, read ahead in `all` mode while the end of the last page
  // was being read: their changes (references with their position only, pending in
  // `references`), from position ahead_from to ahead_next, and their bytes.
  std::vector<Change> ahead;
  uint64_t ahead_from = 0, ahead_next = 0, ahead_bytes = 0;
};

// Where ReadChanges puts the entries it collects: the page, or the next page's entries read ahead.
struct FeedSink {
  std::vector<Change>* changes;
  size_t max_changes;
  uint64_t max_bytes;
  uint64_t next;  // the position after the last entry examined
  uint64_t bytes = 0, examined = 0;
  bool full = false;  // stopped at a limit, not at a chunk or the feed's end
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
  // Kept reads are found by token and mode: readers of both modes at one position each go on
  // from their own.
  const auto kept_key = [&query](std::string_view token) {
    return std::string(token) + (query.mode == ChangeFeedMode::kLatest ? "/latest" : "/all");
  };
  std::shared_ptr<FeedRead> read;
  if (!query.continuation.empty()) {
    read = store.resume_cache().Take<FeedRead>(&table, kept_key(query.continuation),
                                               store.db()->GetLatestSequenceNumber());
    if (read != nullptr && read->horizon != horizon) read.reset();
  }
  if (read == nullptr) read = std::make_shared<FeedRead>(store, table, feed, from, horizon);
  rocksdb::Iterator* const it = read->it.get();
  const rocksdb::Snapshot* const snapshot = read->snapshot.snapshot();
  ReferenceReader& references = read->references;
  const bool latest = query.mode == ChangeFeedMode::kLatest;
  const Expiry expiry = table.ExpiryAt(store.NowTicks());
  // The latest mode passes over superseded entries: bounded per page as a query's scan is.
  const uint64_t budget = 10 * static_cast<uint64_t>(query.page_size);
  FeedSink sink{&page.changes, query.page_size, kPageBytes, from};
  if (!read->ahead.empty()) {
    if (read->ahead_from == from && read->ahead.size() <= query.page_size) {
      page.changes = std::move(read->ahead);
      sink.next = read->ahead_next;
      sink.bytes = read->ahead_bytes;
      sink.examined = page.changes.size();
    } else {  // (a smaller page size than the last page's): read them again
      references.DropPending();
      it->Seek(FeedKey(feed.table_id(), from));
    }
    read->ahead.clear();
  }
  page.changes.reserve(query.page_size);  // references fill in changes while more are added
  references.set_page_size(query.page_size);
  rocksdb::PinnableSlice row;
  // Adds the entries that follow to `to` until a chunk of references is pending, `to` is full or
  // the feed ends.
  const auto collect_into = [&](FeedSink& to) -> Status {
    for (; it->Valid(); it->Next()) {
      if (to.changes->size() >= to.max_changes || to.bytes >= to.max_bytes ||
          to.examined >= budget) {
        to.full = true;
        return Status::OK();
      }
      if (references.Full()) return Status::OK();
      uint64_t seq = 0;
      if (!ParseFeedKey(it->key().ToStringView(), &seq)) {
        return Status::Corruption("table '" + table.record().name + "': malformed change feed key");
      }
      ++to.examined;
      to.next = seq + 1;
      FeedEntryView e;
      if (Status s = DecodeFeedEntry(it->value().ToStringView(), &e); !s.ok()) {
        return s.WithContext("table '" + table.record().name + "' position " + std::to_string(seq));
      }
      if (latest) {
        if (e.op == ChangeOp::kDelete || e.op == ChangeOp::kExpire) continue;
        row.Reset();
        PARTKV_ASSIGN_OR_RETURN(bool current, IsCurrent(store, table, e, snapshot, expiry, &row));
        if (!current) continue;
        if (e.by_reference()) e.value = row.ToStringView();  // the row holds the entity
      }
      to.changes->emplace_back();
      if (e.by_reference()) {
        to.changes->back().seq = seq;  // the rest once its row is read
        references.Add(to.changes->size() - 1, e);
      } else {
        PARTKV_RETURN_IF_ERROR(ChangeOfEntry(seq, e, &to.changes->back()));
      }
      to.bytes += it->key().size() + it->value().size();
    }
    return FromRocks(it->status(), "read the change feed");
  };
  // In `all` mode the next page's first chunk is read ahead while the page's last is resolved
  // (in `latest` mode, whose pages may pass over any number of entries, it is not).
  FeedSink ahead{&read->ahead, query.page_size, kPageBytes / 4, 0};
  const std::function<Status()> collect = [&] { return collect_into(sink); };
  const std::function<Status()> collect_ahead = [&] { return collect_into(ahead); };
  // Each chunk of references is read while the next is collected.
  PARTKV_RETURN_IF_ERROR(collect());
  for (bool reading_ahead = false; references.HasPending() && !reading_ahead;) {
    const std::function<Status()>* also = nullptr;
    if (!sink.full && it->Valid()) {
      also = &collect;
    } else if (!latest && it->Valid()) {
      ahead.next = sink.next;
      also = &collect_ahead;
      reading_ahead = true;
    }
    PARTKV_RETURN_IF_ERROR(references.Resolve(&page.changes, &sink.bytes, also));
  }
  if (read->ahead.empty() && !it->Valid()) {
    sink.next = horizon;
    page.caught_up = true;
  }
  // Retention may have moved on while the page was read, and compactions may have left out
  // entries it returned or passed over: the page is good only if its start is still kept.
  if (from < feed.trim()) return TrimmedAt(store, table, from, feed.trim());
  page.continuation = FeedToken(store, table, sink.next);
  if (!page.caught_up) {
    read->ahead_from = sink.next;
    read->ahead_next = ahead.next;
    read->ahead_bytes = ahead.bytes;
    const uint64_t sequence = snapshot->GetSequenceNumber();
    store.resume_cache().Put(&table, kept_key(page.continuation), sequence, std::move(read));
  }
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
