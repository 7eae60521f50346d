#include "engine/local/change_feed.h"

#include <algorithm>
#include <cstring>

#include "engine/etag.h"
#include "engine/local/catalog.h"
#include "engine/local/rocks_status.h"
#include "engine/local/row_sealer.h"
#include "engine/value_codec.h"

namespace partkv::engine {
namespace {

constexpr uint8_t kFeedEntryV1 = 1;
constexpr uint8_t kFeedEntryV2 = 2;  // with the change's origin
constexpr uint8_t kMaxOrigin = static_cast<uint8_t>(WriteOrigin::kSync);

bool ReadVarint(std::string_view* in, uint64_t* v) {
  size_t pos = 0;
  if (GetVarint(*in, &pos, v) != VarintRead::kOk) return false;  // engine/local/row_sealer.h's
  in->remove_prefix(pos);
  return true;
}

bool GetBytes(std::string_view* in, std::string_view* out) {
  uint64_t n;
  if (!ReadVarint(in, &n) || n > in->size()) return false;
  *out = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

// PartitionKeyPrefix(table_id, index), then `n` as a big-endian u64: a feed key, a version key.
std::string PrefixedNumber(uint32_t table_id, uint32_t index, uint64_t n) {
  std::string key = PartitionKeyPrefix(table_id, index);
  for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>(n >> (8 * i)));
  return key;
}

}  // namespace

std::string FeedKey(uint32_t table_id, uint64_t seq) {
  return PrefixedNumber(table_id, kFeedPartitionIndex, seq);
}

std::string FeedVersionKey(uint32_t table_id, uint64_t etag_version) {
  return PrefixedNumber(table_id, kFeedVersionIndex, etag_version);
}

bool ParseFeedKey(std::string_view key, uint64_t* seq) {
  if (key.size() != kPartitionKeyPrefixLength + 8) return false;
  if (static_cast<uint8_t>(key[4]) != 0xFF || static_cast<uint8_t>(key[5]) != 0xFF) return false;
  uint64_t v = 0;
  for (size_t i = kPartitionKeyPrefixLength; i < key.size(); ++i) {
    v = (v << 8) | static_cast<uint8_t>(key[i]);
  }
  *seq = v;
  return true;
}

void AppendFeedVersion(const FeedVersion& version, std::string* out) {
  PutVarint(version.seq, out);
  out->push_back(static_cast<char>(static_cast<uint8_t>(version.op) |
                                   (static_cast<uint8_t>(version.origin) << 4)));
}

bool DecodeFeedVersion(std::string_view in, FeedVersion* version) {
  if (!ReadVarint(&in, &version->seq) || in.size() != 1) return false;
  const auto op = static_cast<uint8_t>(in[0] & 0x0F);
  const auto origin = static_cast<uint8_t>(static_cast<uint8_t>(in[0]) >> 4);
  if (op < static_cast<uint8_t>(ChangeOp::kInsert) || op > static_cast<uint8_t>(ChangeOp::kMerge))
    return false;
  if (origin > kMaxOrigin) return false;
  version->op = static_cast<ChangeOp>(op);
  version->origin = static_cast<WriteOrigin>(origin);
  return true;
}

void AppendFeedEntry(WriteOrigin origin, ChangeOp op, int64_t time_ticks, uint64_t etag_version,
                     std::string_view pk, std::string_view rk, std::string_view value_header,
                     std::string_view value_body, std::string* out) {
  if (origin == WriteOrigin::kApplication) {
    out->push_back(static_cast<char>(kFeedEntryV1));
  } else {
    out->push_back(static_cast<char>(kFeedEntryV2));
    out->push_back(static_cast<char>(origin));
  }
  out->push_back(static_cast<char>(op));
  auto time = static_cast<uint64_t>(time_ticks);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(time >> (8 * i)));
  PutVarint(etag_version, out);
  PutVarint(pk.size(), out);
  out->append(pk);
  PutVarint(rk.size(), out);
  out->append(rk);
  out->append(value_header);
  out->append(value_body);
}

Status DecodeFeedEntry(std::string_view in, FeedEntryView* e) {
  auto bad = [](const char* what) {
    return Status::Corruption(std::string("change feed entry: ") + what);
  };
  if (in.empty()) return bad("truncated");
  const auto version = static_cast<uint8_t>(in[0]);
  e->origin = WriteOrigin::kApplication;
  if (version == kFeedEntryV2) {
    if (in.size() < 2) return bad("truncated");
    const auto origin = static_cast<uint8_t>(in[1]);
    if (origin > kMaxOrigin) return bad("unknown origin");
    e->origin = static_cast<WriteOrigin>(origin);
    in.remove_prefix(1);  // the rest is laid out as version 1's
  } else if (version != kFeedEntryV1) {
    return bad("unknown version");
  }
  if (in.size() < 10) return bad("truncated");
  const auto op = static_cast<uint8_t>(in[1]);
  if (op < static_cast<uint8_t>(ChangeOp::kInsert) || op > static_cast<uint8_t>(ChangeOp::kExpire))
    return bad("unknown operation");
  e->op = static_cast<ChangeOp>(op);
  uint64_t time = 0;
  for (int i = 0; i < 8; ++i)
    time |= static_cast<uint64_t>(static_cast<uint8_t>(in[2 + i])) << (8 * i);
  e->time_ticks = static_cast<int64_t>(time);
  in.remove_prefix(10);
  if (!ReadVarint(&in, &e->etag_version)) return bad("truncated ETag");
  if (!GetBytes(&in, &e->partition_key) || !GetBytes(&in, &e->row_key))
    return bad("truncated keys");
  const bool removal = e->op == ChangeOp::kDelete || e->op == ChangeOp::kExpire;
  if (removal && !in.empty()) return bad("an entity after a removal");
  e->value = in;  // empty after an insert, replace or merge: by reference
  return Status::OK();
}

Status ChangeOfEntry(uint64_t seq, const FeedEntryView& entry, Change* change) {
  return ChangeOfEntry(seq, entry, std::string(entry.partition_key), std::string(entry.row_key),
                       change);
}

Status ChangeOfEntry(uint64_t seq, const FeedEntryView& entry, std::string pk, std::string rk,
                     Change* change) {
  change->seq = seq;
  change->op = entry.op;
  change->origin = entry.origin;
  change->time = DateTime{entry.time_ticks};
  change->etag = FormatEtag(entry.etag_version);
  change->entity = Entity{std::move(pk), std::move(rk)};
  if (!entry.value.empty()) {
    ValueHeader h;
    PARTKV_RETURN_IF_ERROR(DecodeValue(entry.value, &h, &change->entity));
    change->entity.set_timestamp(DateTime{h.timestamp_ticks});
    change->entity.set_etag(h.etag_version == entry.etag_version ? change->etag
                                                                 : FormatEtag(h.etag_version));
  }
  return Status::OK();
}

ChangeFeed::ChangeFeed(uint32_t table_id, rocksdb::ColumnFamilyHandle* cf,
                       ChangeFeedOptions options, bool configured, uint64_t trim, uint64_t next)
    : table_id_(table_id),
      cf_(cf),
      enabled_(options.enabled),
      trim_(trim),
      options_(options),
      configured_(configured),
      next_(std::max(next, trim)) {}

bool ChangeFeed::configured() const {
  port::MutexLock lock(&mu_);
  return configured_;
}

ChangeFeedOptions ChangeFeed::options() const {
  port::MutexLock lock(&mu_);
  return options_;
}

void ChangeFeed::SetOptions(const ChangeFeedOptions& options, std::optional<uint64_t> restart_at) {
  port::MutexLock lock(&mu_);
  if (restart_at) {
    next_ = std::max(next_, *restart_at);
    trim_.store(std::max(trim_.load(), *restart_at), std::memory_order_release);
  }
  options_ = options;
  configured_ = true;
  enabled_.store(options.enabled, std::memory_order_release);
}

void ChangeFeed::RaiseTrim(uint64_t trim) {
  port::MutexLock lock(&mu_);
  trim = std::min(trim, next_);
  if (trim > trim_.load()) trim_.store(trim, std::memory_order_release);
}

uint64_t ChangeFeed::next() const {
  port::MutexLock lock(&mu_);
  return next_;
}

uint64_t ChangeFeed::horizon() const {
  port::MutexLock lock(&mu_);
  return in_flight_.empty() ? next_ : *in_flight_.begin();
}

bool ChangeFeed::AwaitHorizonAbove(uint64_t seq, std::chrono::steady_clock::time_point deadline) {
  port::MutexLock lock(&mu_);
  while ((in_flight_.empty() ? next_ : *in_flight_.begin()) <= seq) {
    if (!committed_.WaitUntil(deadline) && std::chrono::steady_clock::now() >= deadline) {
      return (in_flight_.empty() ? next_ : *in_flight_.begin()) > seq;
    }
  }
  return true;
}

ChangeFeed::Reservation ChangeFeed::Reserve(uint64_t n) {
  port::MutexLock lock(&mu_);
  const uint64_t first = next_;
  next_ += n;
  in_flight_.insert(first);
  return Reservation(this, first);
}

void ChangeFeed::Release(uint64_t first) {
  {
    port::MutexLock lock(&mu_);
    in_flight_.erase(in_flight_.find(first));
  }
  committed_.SignalAll();
}

void FeedEntries::Add(ChangeOp op, int64_t time_ticks, uint64_t etag_version, std::string_view pk,
                      std::string_view rk, std::string_view value_header,
                      std::string_view value_body) {
  const WriteOrigin origin = op == ChangeOp::kExpire ? WriteOrigin::kApplication : origin_;
  AppendFeedEntry(origin, op, time_ticks, etag_version, pk, rk, value_header, value_body, &bytes_);
  ends_.push_back(bytes_.size());
  by_reference_.push_back(0);
  ops_.push_back(op);
  origins_.push_back(origin);
}

void FeedEntries::AddByReference(ChangeOp op, int64_t time_ticks, uint64_t etag_version,
                                 std::string_view pk, std::string_view rk) {
  AppendFeedEntry(origin_, op, time_ticks, etag_version, pk, rk, {}, {}, &bytes_);
  ends_.push_back(bytes_.size());
  by_reference_.push_back(etag_version);
  ops_.push_back(op);
  origins_.push_back(origin_);
}

Status FeedEntries::Supersede(const ChangeFeed& feed, const std::optional<FeedVersion>& found,
                              uint64_t etag_version, std::string_view pk, std::string_view rk,
                              std::string_view value) {
  if (!found) return Status::OK();
  if (value.empty()) return Status::Corruption("change feed: a row without a value");
  Rewrite r{found->seq, etag_version, rewrite_bytes_.size(), 0};
  // An entry by reference records an insert, replace or merge, whose time is its version.
  AppendFeedEntry(found->origin, found->op, static_cast<int64_t>(etag_version), etag_version, pk,
                  rk, value, {}, &rewrite_bytes_);
  r.end = rewrite_bytes_.size();
  // Below the trim the entry is no longer read (and goes at the next compaction): only the index
  // entry is removed.
  if (found->seq < feed.trim()) r.begin = r.end;
  rewrites_.push_back(r);
  return Status::OK();
}

Result<ChangeFeed::Reservation> FeedEntries::Stage(ChangeFeed& feed,
                                                   rocksdb::WriteBatch* wb) const {
  for (const Rewrite& r : rewrites_) {
    rocksdb::Status s = wb->Delete(feed.cf(), FeedVersionKey(feed.table_id(), r.etag_version));
    if (s.ok() && r.begin < r.end) {
      s = wb->Put(feed.cf(), FeedKey(feed.table_id(), r.seq),
                  rocksdb::Slice(rewrite_bytes_.data() + r.begin, r.end - r.begin));
    }
    if (!s.ok()) return FromRocks(s, "change feed entry");
  }
  ChangeFeed::Reservation r = feed.Reserve(ends_.size());
  size_t begin = 0;
  std::string version;
  for (size_t i = 0; i < ends_.size(); ++i) {
    const uint64_t seq = r.first() + i;
    rocksdb::Status s = wb->Put(feed.cf(), FeedKey(feed.table_id(), seq),
                                rocksdb::Slice(bytes_.data() + begin, ends_[i] - begin));
    if (s.ok() && by_reference_[i] != 0) {
      version.clear();
      AppendFeedVersion(FeedVersion{seq, ops_[i], origins_[i]}, &version);
      s = wb->Put(feed.cf(), FeedVersionKey(feed.table_id(), by_reference_[i]), version);
    }
    if (!s.ok()) return FromRocks(s, "change feed entry");
    begin = ends_[i];
  }
  return r;
}

Status FindVersions(rocksdb::DB* db, const ChangeFeed& feed,
                    const std::vector<uint64_t>& etag_versions,
                    std::vector<std::optional<FeedVersion>>* found) {
  const size_t n = etag_versions.size();
  found->assign(n, std::nullopt);
  if (n == 0) return Status::OK();
  std::vector<std::string> keys(n);
  std::vector<rocksdb::Slice> slices(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = FeedVersionKey(feed.table_id(), etag_versions[i]);
    slices[i] = keys[i];
  }
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  db->MultiGet(rocksdb::ReadOptions(), feed.cf(), n, slices.data(), values.data(), statuses.data());
  for (size_t i = 0; i < n; ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return FromRocks(statuses[i], "read the change feed's version index");
    FeedVersion v;
    if (!DecodeFeedVersion(values[i].ToStringView(), &v)) {
      return Status::Corruption("change feed: malformed version index entry");
    }
    (*found)[i] = v;
  }
  return Status::OK();
}

Status FindRowVersions(rocksdb::DB* db, const ChangeFeed& feed,
                       const std::vector<std::optional<std::string_view>>& rows,
                       std::vector<std::optional<FeedVersion>>* found) {
  std::vector<uint64_t> etags;
  std::vector<size_t> at;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i]) continue;
    ValueHeader h;
    PARTKV_RETURN_IF_ERROR(DecodeValueHeader(*rows[i], &h));
    etags.push_back(h.etag_version);
    at.push_back(i);
  }
  std::vector<std::optional<FeedVersion>> versions;
  PARTKV_RETURN_IF_ERROR(FindVersions(db, feed, etags, &versions));
  found->assign(rows.size(), std::nullopt);
  for (size_t k = 0; k < at.size(); ++k) (*found)[at[k]] = versions[k];
  return Status::OK();
}

}  // namespace partkv::engine
