#include "engine/query.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/cursor.h"
#include "engine/filter.h"
#include "engine/key_codec.h"
#include "engine/profile.h"
#include "engine/throttle.h"
#include "engine/rocks_status.h"
#include "engine/token.h"
#include "engine/validation.h"
#include "engine/value_codec.h"
#include "engine/etag.h"
#include "xxhash.h"

namespace partkv::engine {
namespace {

constexpr uint64_t kDefaultBudgetPerRow = 10;
constexpr size_t kMaxSelect = 255;
constexpr uint8_t kFlagDescending = 1;
constexpr uint8_t kFlagShards = 2;

struct Range {
  std::optional<KeyBound> lower, upper;
};

// Keeps the tighter of two lower bounds.
void TightenLower(std::optional<KeyBound>* cur, const KeyBound& b) {
  if (!*cur) {
    *cur = b;
    return;
  }
  int c = b.value.compare((*cur)->value);
  if (c > 0 || (c == 0 && !b.inclusive)) *cur = b;
}

void TightenUpper(std::optional<KeyBound>* cur, const KeyBound& b) {
  if (!*cur) {
    *cur = b;
    return;
  }
  int c = b.value.compare((*cur)->value);
  if (c < 0 || (c == 0 && !b.inclusive)) *cur = b;
}

bool IsEmpty(const Range& r) {
  if (!r.lower || !r.upper) return false;
  int c = r.lower->value.compare(r.upper->value);
  return c > 0 || (c == 0 && !(r.lower->inclusive && r.upper->inclusive));
}

std::optional<KeyBound> ToKeyBound(const std::optional<Bound>& b) {
  if (!b) return std::nullopt;
  return KeyBound{b->key, b->inclusive};
}

void AppendBound(std::string* out, const char* tag, const std::optional<KeyBound>& b) {
  if (!b) return;
  *out += tag;
  *out += b->inclusive ? "=" : ":";
  *out += std::to_string(b->value.size());
  *out += ':';
  *out += b->value;
}

// Everything a page needs, resolved and validated once.
struct Plan {
  Range pk, rk;
  bool empty = false;
  Filter filter;
  std::vector<std::string> select;
  bool descending = false;
  uint32_t page_size = 1000;
  uint64_t budget = 10000;
  uint64_t fingerprint = 0;
  uint8_t flags = 0;
};

Result<Plan> MakePlan(const TableData& table, const Query& q, bool shards,
                      const std::vector<std::string>& shard_keys) {
  Plan p;
  if (q.page_size < 1 || q.page_size > Query::kMaxPageSize) {
    return Status::InvalidArgument("page size is " + std::to_string(q.page_size) +
                                   "; it must be 1.." + std::to_string(Query::kMaxPageSize));
  }
  if (q.partition_key && (q.partition_lower || q.partition_upper)) {
    return Status::InvalidArgument(
        "a query takes either one PartitionKey or a PartitionKey range, not both");
  }
  if (q.select.size() > kMaxSelect) {
    return Status::InvalidArgument("$select names " + std::to_string(q.select.size()) +
                                   " properties; the limit is 255");
  }
  for (const auto& name : q.select) {
    if (name == "PartitionKey" || name == "RowKey" || name == "Timestamp") continue;
    Status s = ValidatePropertyName(name, table.limits());
    if (!s.ok()) return s.WithContext("$select");
  }
  p.select = q.select;
  std::sort(p.select.begin(), p.select.end());
  p.select.erase(std::unique(p.select.begin(), p.select.end()), p.select.end());
  PARTKV_ASSIGN_OR_RETURN(p.filter, Filter::Parse(q.filter));
  p.descending = q.descending;
  p.page_size = q.page_size;
  p.budget = q.scan_budget != 0 ? q.scan_budget : kDefaultBudgetPerRow * q.page_size;

  if (q.partition_key) {
    p.pk.lower = p.pk.upper = KeyBound{*q.partition_key, true};
  } else {
    p.pk.lower = ToKeyBound(q.partition_lower);
    p.pk.upper = ToKeyBound(q.partition_upper);
  }
  p.rk.lower = ToKeyBound(q.row_lower);
  p.rk.upper = ToKeyBound(q.row_upper);
  if (q.row_prefix) {
    TightenLower(&p.rk.lower, KeyBound{*q.row_prefix, true});
    std::string end = PrefixEnd(*q.row_prefix);
    if (!end.empty()) TightenUpper(&p.rk.upper, KeyBound{end, false});
  }
  const KeyConditions& kc = p.filter.key_conditions();
  if (kc.pk_lower) TightenLower(&p.pk.lower, *kc.pk_lower);
  if (kc.pk_upper) TightenUpper(&p.pk.upper, *kc.pk_upper);
  if (kc.rk_lower) TightenLower(&p.rk.lower, *kc.rk_lower);
  if (kc.rk_upper) TightenUpper(&p.rk.upper, *kc.rk_upper);
  p.empty = kc.unsatisfiable || IsEmpty(p.pk) || IsEmpty(p.rk);

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
void PartitionBounds(const Range& pk, std::string* lower, std::string* upper) {
  lower->clear();
  upper->clear();
  if (pk.lower) {
    if (pk.lower->inclusive) {
      AppendPartitionPrefix(pk.lower->value, lower);
    } else {
      *lower = PartitionEnd(pk.lower->value);
    }
  }
  if (pk.upper) {
    if (pk.upper->inclusive) {
      *upper = PartitionEnd(pk.upper->value);
    } else {
      AppendPartitionPrefix(pk.upper->value, upper);
    }
  }
}

// Encoded-key bounds of one PartitionKey with a RowKey range.
void RowBounds(std::string_view pk, const Range& rk, std::string* lower, std::string* upper) {
  lower->clear();
  AppendPartitionPrefix(pk, lower);
  std::string prefix = *lower;
  if (rk.lower) {
    *lower += rk.lower->value;
    if (!rk.lower->inclusive) lower->push_back('\0');
  }
  if (rk.upper) {
    *upper = prefix + rk.upper->value;
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

Entity Project(Entity e, const std::vector<std::string>& select) {
  if (select.empty()) return e;
  Entity out(e.partition_key(), e.row_key());
  out.set_timestamp(e.timestamp());
  out.set_etag(e.etag());
  for (auto& [name, value] : e) {
    if (std::binary_search(select.begin(), select.end(), name)) out.AppendSorted(name, value);
  }
  return out;
}

// Drains the merged stream into one page.
Result<Page> ReadPage(StoreState& store, const TableData& table, MergedStream& stream,
                      const Plan& plan, uint64_t examined, const std::string* single_pk) {
  // Entities and bytes read per physical partition, for statistics and read budgets.
  std::vector<std::pair<uint64_t, uint64_t>> reads(table.partitions().size());
  Page page;
  page.entities.reserve(std::min<uint64_t>(plan.page_size, plan.budget));
  std::string last_key;
  Entity e;
  while (stream.Valid()) {
    if (page.entities.size() >= plan.page_size || examined >= plan.budget) break;
    PartitionCursor& c = stream.Top();
    std::string_view key = c.key();
    last_key.assign(key);
    reads[c.physical].first += 1;
    reads[c.physical].second += key.size() + c.value().size();
    ++examined;
    // The cursor has found the PartitionKey's end already; a PartitionKey without 0x00 bytes (all
    // of them under the default key profile) is its own escaped form.
    std::string_view escaped = c.prefix_length() == 0 ? std::string_view()
                                                      : key.substr(0, c.prefix_length() - 1);
    if (c.prefix_length() != 0 && std::memchr(escaped.data(), 0, escaped.size()) == nullptr) {
      e.set_partition_key(std::string(escaped));
      e.set_row_key(std::string(key.substr(c.prefix_length())));
    } else {
      std::string pk, rk;
      PARTKV_RETURN_IF_ERROR(DecodeEntityKey(key, &pk, &rk));
      e.set_partition_key(std::move(pk));
      e.set_row_key(std::move(rk));
    }
    ValueHeader h;
    PARTKV_RETURN_IF_ERROR(DecodeValue(c.value(), &h, &e));
    e.set_timestamp(DateTime{h.timestamp_ticks});
    e.set_etag(FormatEtag(h.etag_version));
    if (plan.filter.Matches(e)) {
      if (plan.select.empty()) {
        page.entities.push_back(std::move(e));
      } else {
        page.entities.push_back(Project(std::move(e), plan.select));
      }
    }
    examined += stream.Next();
  }
  if (!stream.status().ok()) return FromRocks(stream.status(), "query");
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
      double cost = ReadCost(table.profile(), reads[i].second) - ReadCost(table.profile(), 0);
      throttler->Debit(false, single_pk ? *single_pk : std::string_view(), i, cost);
    }
  }
  if (stream.Valid() && !last_key.empty()) {
    page.continuation =
        EncodeToken(store.secret(), TokenContents{plan.flags, plan.fingerprint, last_key});
  }
  page.examined = examined;
  return page;
}

struct SnapshotHolder {
  rocksdb::DB* db;
  const rocksdb::Snapshot* snap;
  ~SnapshotHolder() { db->ReleaseSnapshot(snap); }
};

}  // namespace

Result<Page> RunQuery(StoreState& store, const TableData& table, const Query& q) {
  if (table.dropped()) return Status::NotFound("table '" + table.record().name + "' has been dropped");
  PARTKV_ASSIGN_OR_RETURN(Plan plan, MakePlan(table, q, false, {}));
  std::optional<std::string> resume;
  if (!q.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(auto t, DecodeToken(store.secret(), q.continuation, plan.fingerprint));
    resume = std::move(t.resume_key);
  }
  if (plan.empty) return Page{};

  rocksdb::DB* db = store.db();
  SnapshotHolder snap{db, db->GetSnapshot()};
  MergedStream stream(MergeOrder::kByKey, plan.descending);
  uint64_t examined = 0;
  bool single = plan.pk.lower && plan.pk.upper && plan.pk.lower->inclusive &&
                plan.pk.upper->inclusive && plan.pk.lower->value == plan.pk.upper->value;
  std::string lower, upper;
  if (single) {
    // One PartitionKey: one physical partition, exact bounds, no skipping.
    const std::string& pk = plan.pk.lower->value;
    if (Throttler* t = table.throttler()) {
      size_t physical = table.PartitionIndexOf(pk);
      Status ts = t->Charge(false, pk, physical, ReadCost(table.profile(), 0));
      if (!ts.ok()) {
        table.stats().RecordThrottled(physical);
        return ts;
      }
    }
    RowBounds(pk, plan.rk, &lower, &upper);
    if (resume) ApplyResume(*resume, plan.descending, &lower, &upper);
    if (!RangeEmpty(lower, upper)) {
      size_t physical = table.PartitionIndexOf(pk);
      auto cursor = std::make_unique<PartitionCursor>(db, table.partitions()[physical].cf, snap.snap,
                                                      lower, upper, plan.descending, std::nullopt);
      cursor->physical = physical;
      examined += stream.Add(std::move(cursor));
    }
  } else {
    PartitionBounds(plan.pk, &lower, &upper);
    if (resume) ApplyResume(*resume, plan.descending, &lower, &upper);
    std::optional<RowRange> rows;
    if (plan.rk.lower || plan.rk.upper) rows = RowRange{plan.rk.lower, plan.rk.upper};
    if (!RangeEmpty(lower, upper)) {
      for (size_t i = 0; i < table.partitions().size(); ++i) {
        auto cursor = std::make_unique<PartitionCursor>(db, table.partitions()[i].cf, snap.snap,
                                                        lower, upper, plan.descending, rows);
        cursor->physical = i;
        examined += stream.Add(std::move(cursor));
      }
    }
  }
  return ReadPage(store, table, stream, plan, examined, single ? &plan.pk.lower->value : nullptr);
}

Result<Page> RunShardQuery(StoreState& store, const TableData& table,
                           const std::vector<std::string>& partition_keys, const Query& q) {
  if (table.dropped()) return Status::NotFound("table '" + table.record().name + "' has been dropped");
  if (q.partition_key || q.partition_lower || q.partition_upper) {
    return Status::InvalidArgument("a sharded read takes its PartitionKeys from the key's shards");
  }
  if (partition_keys.empty()) return Status::InvalidArgument("a sharded read needs at least one shard");
  PARTKV_ASSIGN_OR_RETURN(Plan plan, MakePlan(table, q, true, partition_keys));
  std::optional<std::string> resume_pk, resume_rk;
  if (!q.continuation.empty()) {
    PARTKV_ASSIGN_OR_RETURN(auto t, DecodeToken(store.secret(), q.continuation, plan.fingerprint));
    std::string pk, rk;
    PARTKV_RETURN_IF_ERROR(DecodeEntityKey(t.resume_key, &pk, &rk).WithContext("continuation token"));
    resume_pk = std::move(pk);
    resume_rk = std::move(rk);
  }
  if (plan.empty) return Page{};
  rocksdb::DB* db = store.db();
  SnapshotHolder snap{db, db->GetSnapshot()};
  MergedStream stream(MergeOrder::kByRowKey, plan.descending);
  uint64_t examined = 0;
  for (const auto& pk : partition_keys) {
    // The filter's PartitionKey conditions still apply to each shard.
    Range one;
    one.lower = one.upper = KeyBound{pk, true};
    bool in_range = true;
    if (plan.pk.lower) {
      int c = pk.compare(plan.pk.lower->value);
      in_range = c > 0 || (c == 0 && plan.pk.lower->inclusive);
    }
    if (in_range && plan.pk.upper) {
      int c = pk.compare(plan.pk.upper->value);
      in_range = c < 0 || (c == 0 && plan.pk.upper->inclusive);
    }
    if (!in_range) continue;
    Range rows = plan.rk;
    if (resume_rk) {
      // Resume after (resume_rk, resume_pk) in (RowKey, PartitionKey) order.
      bool after_in_tie = plan.descending ? pk < *resume_pk : pk > *resume_pk;
      KeyBound b{*resume_rk, after_in_tie};
      if (plan.descending) {
        TightenUpper(&rows.upper, b);
      } else {
        TightenLower(&rows.lower, b);
      }
      if (IsEmpty(rows)) continue;
    }
    std::string lower, upper;
    RowBounds(pk, rows, &lower, &upper);
    if (RangeEmpty(lower, upper)) continue;
    size_t physical = table.PartitionIndexOf(pk);
    auto cursor = std::make_unique<PartitionCursor>(db, table.partitions()[physical].cf, snap.snap,
                                                    lower, upper, plan.descending, std::nullopt);
    cursor->physical = physical;
    examined += stream.Add(std::move(cursor));
  }
  return ReadPage(store, table, stream, plan, examined, nullptr);
}

}  // namespace partkv::engine
