#include "engine/local/query.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "engine/etag.h"
#include "engine/filter_expr.h"
#include "engine/key_codec.h"
#include "engine/local/cursor.h"
#include "engine/local/cursor_shards.h"
#include "engine/local/perf_counters.h"
#include "engine/local/rocks_status.h"
#include "engine/local/scan_merge.h"
#include "engine/local/throttle.h"
#include "engine/profile_spec.h"
#include "engine/token.h"
#include "engine/validation.h"
#include "engine/value_codec.h"
#include "xxhash.h"

namespace partkv::engine {
namespace {

constexpr uint64_t kDefaultBudgetPerRow = 10;
constexpr uint8_t kFlagDescending = 1;
constexpr uint8_t kFlagShards = 2;
// A page with a time budget reads the clock once per this many rows.
constexpr uint64_t kRowsPerClockRead = 1024;

void AppendBound(std::string* out, const char* tag, const std::optional<Bound>& b) {
  if (!b) return;
  *out += tag;
  *out += b->inclusive ? "=" : ":";
  *out += std::to_string(b->key.size());
  *out += ':';
  *out += b->key;
}

// Everything a page needs, resolved and validated once.
struct Plan {
  KeyRange pk, rk;
  bool empty = false;
  Filter filter;
  std::vector<std::string> select;
  bool descending = false;
  uint32_t page_size = 1000;
  uint64_t budget = 10000;
  size_t page_bytes = Query::kDefaultPageBytes;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  uint64_t fingerprint = 0;
  uint8_t flags = 0;
  Expiry expiry;  // the table's time to live at this page: expired rows are left out
};

Result<Plan> MakePlan(const SharedTable& table, const Query& q, bool shards,
                      const std::vector<std::string>& shard_keys) {
  Plan p;
  PARTKV_RETURN_IF_ERROR(ValidateQueryShape(q, table.limits()));
  p.select = q.select;
  std::sort(p.select.begin(), p.select.end());
  p.select.erase(std::unique(p.select.begin(), p.select.end()), p.select.end());
  PARTKV_ASSIGN_OR_RETURN(p.filter, Filter::Parse(q.filter));
  p.descending = q.descending;
  p.page_size = q.page_size;
  p.budget = q.scan_budget != 0 ? q.scan_budget : kDefaultBudgetPerRow * q.page_size;
  if (q.page_bytes != 0) p.page_bytes = q.page_bytes;
  if (q.scan_time_budget.count() > 0) {
    p.deadline = std::chrono::steady_clock::now() + q.scan_time_budget;
  }

  if (q.partition_key) {
    p.pk.lower = p.pk.upper = Bound::Inclusive(*q.partition_key);
  } else {
    p.pk.lower = q.partition_lower;
    p.pk.upper = q.partition_upper;
  }
  p.rk.lower = q.row_lower;
  p.rk.upper = q.row_upper;
  if (q.row_prefix) {
    p.rk.TightenLower(Bound::Inclusive(*q.row_prefix));
    std::string end = PrefixEnd(*q.row_prefix);
    if (!end.empty()) p.rk.TightenUpper(Bound::Exclusive(std::move(end)));
  }
  const KeyConditions& kc = p.filter.key_conditions();
  p.pk.Intersect(kc.pk);
  p.rk.Intersect(kc.rk);
  p.empty = kc.unsatisfiable || p.pk.Empty() || p.rk.Empty();

  // The query's identity, which its tokens are bound to. The resolved ranges cover the explicit
  // conditions; the canonical filter covers what the filter adds beyond its key bounds.
  std::string id = "partkv-query/1|table=" + std::to_string(table.record().id);
  AppendBound(&id, "|pkl", p.pk.lower);
  AppendBound(&id, "|pku", p.pk.upper);
  AppendBound(&id, "|rkl", p.rk.lower);
  AppendBound(&id, "|rku", p.rk.upper);
  id += "|filter=" + p.filter.Canonical();
  id += "|select=";
  for (const auto& s : p.select) id += std::to_string(s.size()) + ":" + s;
  id += p.descending ? "|desc" : "|asc";
  if (shards) {
    id += "|shards=";
    for (const auto& k : shard_keys) id += std::to_string(k.size()) + ":" + k;
  }
  p.fingerprint = XXH3_64bits(id.data(), id.size());
  p.flags = static_cast<uint8_t>((p.descending ? kFlagDescending : 0) | (shards ? kFlagShards : 0));
  return p;
}

// Encoded-key bounds [lower, upper) of a PartitionKey range ("" = unbounded).
void PartitionBounds(const KeyRange& pk, std::string* lower, std::string* upper) {
  lower->clear();
  upper->clear();
  if (pk.lower) {
    if (pk.lower->inclusive) {
      AppendPartitionPrefix(pk.lower->key, lower);
    } else {
      *lower = PartitionEnd(pk.lower->key);
    }
  }
  if (pk.upper) {
    if (pk.upper->inclusive) {
      *upper = PartitionEnd(pk.upper->key);
    } else {
      AppendPartitionPrefix(pk.upper->key, upper);
    }
  }
}

// Encoded-key bounds of one PartitionKey with a RowKey range.
void RowBounds(std::string_view pk, const KeyRange& rk, std::string* lower, std::string* upper) {
  lower->clear();
  AppendPartitionPrefix(pk, lower);
  std::string prefix = *lower;
  if (rk.lower) {
    *lower += rk.lower->key;
    if (!rk.lower->inclusive) lower->push_back('\0');
  }
  if (rk.upper) {
    *upper = prefix + rk.upper->key;
    if (rk.upper->inclusive) upper->push_back('\0');
  } else {
    *upper = PartitionEnd(pk);
  }
}

// Narrows [lower, upper) to resume strictly after (ascending) or before (descending) `resume`.
void ApplyResume(const std::string& resume, bool descending, std::string* lower,
                 std::string* upper) {
  if (!descending) {
    std::string after = Successor(resume);
    if (lower->empty() || after > *lower) *lower = after;
  } else {
    if (upper->empty() || resume < *upper) *upper = resume;
  }
}

bool RangeEmpty(const std::string& lower, const std::string& upper) {
  return !lower.empty() && !upper.empty() && lower >= upper;
}

// One PartitionCursor as a stream (a query of one PartitionKey: nothing to merge).
class CursorStream {
 public:
  CursorStream() = default;
  // Sets the cursor (once, before Start).
  void Open(std::unique_ptr<PartitionCursor> c) { c_ = std::move(c); }
  uint64_t Start() { return c_->Start(); }
  bool Valid() const { return c_->Valid(); }
  std::string_view key() const { return c_->key(); }
  std::string_view value() const { return c_->value(); }
  size_t prefix_length() const { return c_->prefix_length(); }
  size_t physical() const { return c_->physical; }
  uint64_t Next() { return c_->Next(); }
  rocksdb::Status status() const { return c_->status(); }

 private:
  std::unique_ptr<PartitionCursor> c_;
};

// Charges what a page read (`reads`: rows and bytes per physical partition) to the table's
// statistics and, when it throttles, its throughput budgets.
void RecordReads(const SharedTable& table, const std::vector<std::pair<uint64_t, uint64_t>>& reads,
                 const std::string* single_pk) {
  Throttler* throttler = table.throttler();
  for (size_t i = 0; i < reads.size(); ++i) {
    if (reads[i].first == 0) continue;
    if (single_pk != nullptr) {
      table.stats().RecordRead(i, *single_pk, reads[i].first, reads[i].second);
    } else {
      table.stats().RecordScan(i, reads[i].first, reads[i].second);
    }
    if (throttler != nullptr &&
        (single_pk != nullptr ||
         throttler->model().scope == ThroughputModel::Scope::kPhysicalPartition)) {
      // What the page read is charged after the fact, as the services do; the up-front charge
      // of one read (RunQuery) is what refuses a page of an exhausted partition.
      double cost =
          ReadCost(table.profile(), reads[i].second, reads[i].first) - ReadCost(table.profile(), 0);
      throttler->Debit(false, single_pk ? *single_pk : std::string_view(), i, cost);
    }
  }
}

// Drains a stream (CursorStream or ShardStream) into one page.
template <typename Stream>
Status ReadPage(StoreState& store, const SharedTable& table, Stream& stream, const Plan& plan,
                uint64_t examined, const std::string* single_pk, Page* out) {
  // Entities and bytes read per physical partition, for statistics and read budgets.
  std::vector<std::pair<uint64_t, uint64_t>> reads(table.partitions().size());
  // Rows are decoded into the page's entity slots in place, reusing what a previous page left
  // there (their strings' capacity); a row the filter rejects leaves its slot for the next one.
  std::vector<Entity>& entities = out->entities;
  const size_t most = std::min<uint64_t>(plan.page_size, plan.budget);
  if (entities.capacity() < most) entities.reserve(most);
  out->continuation.clear();
  size_t kept = 0;
  // The slot of the last row examined, when it was decoded (kept or not): the token resumes
  // after its key. A row the filter rejected without decoding it leaves its key in last_key.
  size_t last = SIZE_MAX;
  std::string last_key;
  uint64_t examined_here = 0;  // rows examined by this page
  uint64_t page_bytes = 0;     // of the entities kept
  while (stream.Valid()) {
    // A page examines at least one row: a wide query opens one cursor per physical partition,
    // and opening them alone may use up a small budget (1,024 partitions, a page of 7), which
    // would end the page with neither a row nor a key to resume after.
    if (kept >= plan.page_size || page_bytes >= plan.page_bytes ||
        (examined >= plan.budget && examined_here > 0)) {
      break;
    }
    if (plan.deadline && examined_here % kRowsPerClockRead == 0 && examined_here > 0 &&
        std::chrono::steady_clock::now() >= *plan.deadline) {
      break;
    }
    ++examined_here;
    std::string_view key = stream.key();
    std::string_view value = stream.value();
    auto& read = reads[stream.physical()];
    read.first += 1;
    read.second += key.size() + value.size();
    ++examined;
    Filter::RowMatch match = Filter::RowMatch::kYes;
    if (!plan.filter.empty()) {
      // The filter first reads the row in place: a row it rejects is never decoded.
      EncodedRow row(key, stream.prefix_length(), value);
      match = plan.filter.Matches(row);
      if (match == Filter::RowMatch::kNo) {
        last_key.assign(key.data(), key.size());
        last = SIZE_MAX;
        examined += stream.Next();
        continue;
      }
    }
    if (kept == entities.size()) entities.emplace_back();
    Entity& e = entities[kept];
    PARTKV_RETURN_IF_ERROR(DecodeEntity(key, stream.prefix_length(), value, &e));
    last = kept;
    if ((match == Filter::RowMatch::kYes || plan.filter.Matches(e)) && !plan.expiry.Expired(e)) {
      if (!plan.select.empty()) RetainProperties(plan.select, &e);
      ++kept;
      page_bytes += key.size() + value.size();
    }
    examined += stream.Next();
  }
  // The key of the last row examined, when it was decoded: encoded again from its keys (the
  // encoding is canonical), cheaper than copying every row's key as it goes by.
  if (stream.Valid() && last != SIZE_MAX) {
    last_key.clear();
    AppendEntityKey(entities[last].partition_key(), entities[last].row_key(), &last_key);
  }
  entities.erase(entities.begin() + static_cast<ptrdiff_t>(kept), entities.end());
  if (!stream.status().ok()) return FromRocks(stream.status(), "query");
  RecordReads(table, reads, single_pk);
  if (stream.Valid() && !last_key.empty()) {
    out->continuation =
        EncodeToken(store.secret(), TokenContents{plan.flags, plan.fingerprint, last_key});
  }
  out->examined = examined;
  return Status::OK();
}

// Reads one page of a merged read (several physical partitions, in parallel).
Status ReadMergedPage(StoreState& store, const SharedTable& table, ScanMerge& merge,
                      const Plan& plan, Page* out) {
  std::vector<std::pair<uint64_t, uint64_t>> reads(table.partitions().size());
  ScanMerge::Limits limits;
  limits.page_size = plan.page_size;
  limits.budget = plan.budget;
  limits.page_bytes = plan.page_bytes;
  limits.deadline = plan.deadline;
  ScanMerge::PageEnd end;
  out->continuation.clear();
  PARTKV_RETURN_IF_ERROR(merge.ReadPage(&store.scan_pool(), store.scan_threads(),
                                        ScanMerge::Rows{&plan.filter, &plan.select, &plan.expiry},
                                        limits, &out->entities, &reads, &end));
  RecordReads(table, reads, nullptr);
  if (!end.resume_after.empty()) {
    out->continuation =
        EncodeToken(store.secret(), TokenContents{plan.flags, plan.fingerprint, end.resume_after});
  }
  out->examined = end.examined;
  return Status::OK();
}

// An empty, complete page (the query matches nothing).
Status EmptyPage(Page* out) {
  out->entities.clear();
  out->continuation.clear();
  out->examined = 0;
  return Status::OK();
}

struct SnapshotHolder {
  rocksdb::DB* db;
  const rocksdb::Snapshot* snap;
  ~SnapshotHolder() { db->ReleaseSnapshot(snap); }
};

// A paged read's stream and the snapshot it reads, kept between pages in the store's ResumeCache
// (engine/local/resume_cache.h). The stream is declared last, so its iterators go before the
// snapshot is released.
struct CursorRead {  // one PartitionKey
  explicit CursorRead(rocksdb::DB* db) : snap{db, db->GetSnapshot()} {}
  SnapshotHolder snap;
  CursorStream stream;
};
struct MergedRead {  // a table-wide or PartitionKey-range query
  MergedRead(rocksdb::DB* db, bool descending, uint64_t expected_rows,
             std::shared_ptr<ScanMerge::SpareLanes> spare)
      : snap{db, db->GetSnapshot()}, merge(descending, expected_rows, std::move(spare)) {}
  SnapshotHolder snap;
  ScanMerge merge;
};
struct ShardRead {  // a sharded read
  ShardRead(rocksdb::DB* db, bool descending, uint64_t expected_rows)
      : snap{db, db->GetSnapshot()}, stream(db, snap.snap, descending, expected_rows) {}
  SnapshotHolder snap;
  ShardStream stream;
};

// The previous page's read of query `q`, when nothing has been written since it was read: its
// stream stands on this page's first row, so nothing needs opening or seeking again. Else null.
template <typename Read>
std::shared_ptr<Read> TakeKept(StoreState& store, const SharedTable& table, const Query& q) {
  // (A merged read of a table with a time to live checks the rows it read ahead again as it takes
  // them: ScanMerge::TakeKept.)
  if (q.continuation.empty()) return nullptr;
  return store.resume_cache().Take<Read>(&table, q.continuation,
                                         store.db()->GetLatestSequenceNumber());
}

// Reads one page from `read`'s stream and, when more may follow, keeps the read under the page's
// token for the next page.
template <typename Read>
Status ReadPageAndKeep(StoreState& store, const SharedTable& table, std::shared_ptr<Read> read,
                       const Plan& plan, uint64_t examined, const std::string* single_pk,
                       Page* out) {
  if constexpr (std::is_same_v<Read, MergedRead>) {
    PARTKV_RETURN_IF_ERROR(ReadMergedPage(store, table, read->merge, plan, out));
  } else {
    PARTKV_RETURN_IF_ERROR(ReadPage(store, table, read->stream, plan, examined, single_pk, out));
  }
  if (out->has_more()) {
    const uint64_t sequence = read->snap.snap->GetSequenceNumber();
    store.resume_cache().Put(&table, out->continuation, sequence, std::move(read));
  }
  return Status::OK();
}

// The shards of a sharded read, within the query's ranges and after its resume point.
Status AddShards(const SharedTable& table, const std::vector<std::string>& partition_keys,
                 const Plan& plan, const std::optional<std::string>& resume_pk,
                 const std::optional<std::string>& resume_rk, ShardStream* stream) {
  for (const auto& pk : partition_keys) {
    // The filter's PartitionKey conditions still apply to each shard.
    if (!plan.pk.Contains(pk)) continue;
    KeyRange rows = plan.rk;
    if (resume_rk) {
      // Resume after (resume_rk, resume_pk) in (RowKey, PartitionKey) order.
      bool after_in_tie = plan.descending ? pk < *resume_pk : pk > *resume_pk;
      Bound b{*resume_rk, after_in_tie};
      if (plan.descending) {
        rows.TightenUpper(b);
      } else {
        rows.TightenLower(b);
      }
      if (rows.Empty()) continue;
    }
    std::string lower, upper;
    RowBounds(pk, rows, &lower, &upper);
    if (RangeEmpty(lower, upper)) continue;
    ShardStream::Shard shard;
    shard.physical = table.PartitionIndexOf(pk);
    const PhysicalPartition& part = table.partitions()[shard.physical];
    shard.cf = part.cf;
    shard.key_prefix = part.prefix;
    shard.prefix_length = PartitionPrefixLength(lower);
    shard.lower = part.prefix + lower;
    shard.upper = part.prefix + upper;
    stream->Add(std::move(shard));
  }
  return Status::OK();
}

}  // namespace

bool BulkRead(StoreState& store, const SharedTable& table, const std::string& lower,
              const std::string& upper, double share) {
  const double threshold = static_cast<double>(store.memory_budget()) / 2;
  uint64_t total = 0;
  std::string begin, end;
  for (const PhysicalPartition& part : table.partitions()) {
    begin = part.prefix + lower;
    end = upper.empty() ? PrefixEnd(part.prefix) : part.prefix + upper;
    rocksdb::Range range(begin, end);
    uint64_t size = 0;
    rocksdb::SizeApproximationOptions options;
    options.include_files = true;
    options.include_memtables = false;
    if (store.db()->GetApproximateSizes(options, part.cf, &range, 1, &size).ok()) total += size;
    if (static_cast<double>(total) * share > threshold) return true;
  }
  return false;
}

Status RunQuery(StoreState& store, const SharedTable& table, const Query& q, Page* out) {
  PerfCountersOff quiet;
  if (table.dropped())
    return Status::NotFound("table '" + table.record().name + "' has been dropped");
  PARTKV_ASSIGN_OR_RETURN(Plan plan, MakePlan(table, q, false, {}));
  if (table.ttl_seconds() != kTtlOff) plan.expiry = table.ExpiryAt(store.NowTicks());
  std::optional<std::string> resume;
  if (!q.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(auto t, DecodeToken(store.secret(), q.continuation, plan.fingerprint));
    resume = std::move(t.resume_key);
  }
  if (plan.empty) return EmptyPage(out);

  rocksdb::DB* db = store.db();
  uint64_t examined = 0;
  bool single = plan.pk.lower && plan.pk.upper && plan.pk.lower->inclusive &&
                plan.pk.upper->inclusive && plan.pk.lower->key == plan.pk.upper->key;
  std::string lower, upper;
  if (single) {
    // One PartitionKey: one physical partition, exact bounds, no skipping, nothing to merge.
    const std::string& pk = plan.pk.lower->key;
    size_t physical = table.PartitionIndexOf(pk);
    if (Throttler* t = table.throttler()) {
      Status ts = t->Charge(false, pk, physical, ReadCost(table.profile(), 0));
      if (!ts.ok()) {
        table.stats().RecordThrottled(physical);
        return ts;
      }
    }
    if (auto kept = TakeKept<CursorRead>(store, table, q)) {
      return ReadPageAndKeep(store, table, std::move(kept), plan, 0, &pk, out);
    }
    RowBounds(pk, plan.rk, &lower, &upper);
    const size_t prefix_length = PartitionPrefixLength(lower);
    if (resume) ApplyResume(*resume, plan.descending, &lower, &upper);
    if (RangeEmpty(lower, upper)) return EmptyPage(out);
    auto read = std::make_shared<CursorRead>(db);
    const PhysicalPartition& part = table.partitions()[physical];
    auto cursor = std::make_unique<PartitionCursor>(db, part.cf, part.prefix, read->snap.snap,
                                                    lower, upper, plan.descending, std::nullopt);
    cursor->physical = physical;
    cursor->set_prefix_length(prefix_length);
    read->stream.Open(std::move(cursor));
    examined += read->stream.Start();
    return ReadPageAndKeep(store, table, std::move(read), plan, examined, &pk, out);
  }
  if (auto kept = TakeKept<MergedRead>(store, table, q)) {
    return ReadPageAndKeep(store, table, std::move(kept), plan, 0, nullptr, out);
  }
  auto read = std::make_shared<MergedRead>(
      db, plan.descending, std::min<uint64_t>(plan.page_size, plan.budget), store.spare_lanes());
  PartitionBounds(plan.pk, &lower, &upper);
  if (resume) ApplyResume(*resume, plan.descending, &lower, &upper);
  std::optional<KeyRange> rows;
  if (plan.rk.lower || plan.rk.upper) rows = plan.rk;
  if (!RangeEmpty(lower, upper)) {
    const CacheUse cache =
        BulkRead(store, table, lower, upper) ? CacheUse::kBypass : CacheUse::kFill;
    for (size_t i = 0; i < table.partitions().size(); ++i) {
      const PhysicalPartition& part = table.partitions()[i];
      auto cursor = std::make_unique<PartitionCursor>(db, part.cf, part.prefix, read->snap.snap,
                                                      lower, upper, plan.descending, rows, cache);
      cursor->physical = i;
      read->merge.Add(std::move(cursor));
    }
  }
  return ReadPageAndKeep(store, table, std::move(read), plan, 0, nullptr, out);
}

Status RunShardQuery(StoreState& store, const SharedTable& table,
                     const std::vector<std::string>& partition_keys, const Query& q, Page* out) {
  PerfCountersOff quiet;
  if (table.dropped())
    return Status::NotFound("table '" + table.record().name + "' has been dropped");
  if (q.partition_key || q.partition_lower || q.partition_upper) {
    return Status::InvalidArgument("a sharded read takes its PartitionKeys from the key's shards");
  }
  if (partition_keys.empty())
    return Status::InvalidArgument("a sharded read needs at least one shard");
  PARTKV_ASSIGN_OR_RETURN(Plan plan, MakePlan(table, q, true, partition_keys));
  if (table.ttl_seconds() != kTtlOff) plan.expiry = table.ExpiryAt(store.NowTicks());
  std::optional<std::string> resume_pk, resume_rk;
  if (!q.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(auto t, DecodeToken(store.secret(), q.continuation, plan.fingerprint));
    std::string pk, rk;
    PARTKV_RETURN_IF_ERROR(
        DecodeEntityKey(t.resume_key, &pk, &rk).WithContext("continuation token"));
    resume_pk = std::move(pk);
    resume_rk = std::move(rk);
  }
  if (plan.empty) return EmptyPage(out);
  rocksdb::DB* db = store.db();
  uint64_t examined = 0;
  std::shared_ptr<ShardRead> read = TakeKept<ShardRead>(store, table, q);
  if (!read) {
    read = std::make_shared<ShardRead>(db, plan.descending,
                                       std::min<uint64_t>(plan.page_size, plan.budget));
    PARTKV_RETURN_IF_ERROR(
        AddShards(table, partition_keys, plan, resume_pk, resume_rk, &read->stream));
    examined = read->stream.Start(&store.scan_pool(), store.scan_threads());
  }
  return ReadPageAndKeep(store, table, std::move(read), plan, examined, nullptr, out);
}

}  // namespace partkv::engine
