#include "engine/local/table_handle.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>

#include "engine/batch_rules.h"
#include "engine/etag.h"
#include "engine/key_codec.h"
#include "engine/key_schemes.h"
#include "engine/local/rocks_status.h"
#include "engine/local/row_sealer.h"
#include "engine/port/mutex.h"
#include "engine/profile_spec.h"
#include "engine/validation.h"
#include "engine/value_codec.h"
#include "rocksdb/write_batch.h"

namespace partkv::engine {
namespace {

bool NeedsEntityValidation(OpType type) { return type != OpType::kDelete; }

// What one operation will do to its row, decided under the row's lock.
struct Prepared {
  bool is_delete = false;
  std::string value;   // the new encoded value when !is_delete (empty for a sealed row)
  ValueHeader header;  // the new value's header when !is_delete
  WriteResult result;
};

std::string RowDescription(std::string_view pk, std::string_view rk) {
  return "(PartitionKey '" + std::string(pk) + "', RowKey '" + std::string(rk) + "')";
}

// Decides an operation on row (pk, rk) against the row's current encoded value (nullopt when
// absent). `encoded` holds the new value already encoded with `header` for the operations that
// write the caller's properties as they are (everything but Merge on an existing row), or is
// empty for a sealed row, whose value the caller assembles from out->header; `entity` is the
// caller's entity, which only a Merge reads (REQUIRES: non-null for kMerge and kInsertOrMerge).
Status Decide(OpType type, std::string_view pk, std::string_view rk, const Entity* entity,
              const IfMatch& if_match, std::optional<std::string_view> current,
              const ValueHeader& header, std::string encoded, Prepared* out) {
  ValueHeader cur;
  if (current) PARTKV_RETURN_IF_ERROR(DecodeValueHeader(*current, &cur));
  bool conditional = type == OpType::kReplace || type == OpType::kMerge || type == OpType::kDelete;
  if (type == OpType::kInsert && current) {
    return EntityExists(pk, rk);
  }
  if (conditional) {
    if (!current) return Status::NotFound("entity " + RowDescription(pk, rk) + " does not exist");
    if (!if_match.is_any()) {
      auto wanted = ParseEtag(if_match.etag());
      if (!wanted || *wanted != cur.etag_version) {
        return Status::PreconditionFailed("entity " + RowDescription(pk, rk) + ": If-Match ETag " +
                                          if_match.etag() + " does not match the current ETag " +
                                          FormatEtag(cur.etag_version));
      }
    }
  }
  if (type == OpType::kDelete) {
    out->is_delete = true;
    return Status::OK();
  }
  // The header's tick (Timestamp and ETag version) is above every tick the store issued before
  // (StoreState::IssueTicks), so above the current row's: Timestamps only grow, ETags never repeat.
  const ValueHeader& h = header;
  bool merge = type == OpType::kMerge || type == OpType::kInsertOrMerge;
  if (merge && current) {
    Entity merged;
    ValueHeader ignored;
    PARTKV_RETURN_IF_ERROR(DecodeValue(*current, &ignored, &merged));
    for (const auto& [name, value] : *entity) merged.Set(name, value);
    out->value.clear();
    EncodeValue(h, merged, &out->value);
  } else if (!encoded.empty()) {
    out->value = std::move(encoded);
  }
  out->header = h;
  out->result.etag = FormatEtag(h.etag_version);
  out->result.timestamp = DateTime{h.timestamp_ticks};
  return Status::OK();
}

// The change feed entries of one operation decided (`p`) against its row's stored value
// `current`, which had expired when `expired`, and whose entry by reference is `found`: the
// superseded version written into its entry, the expiry, then the change, by reference.
Status AddFeedEntries(const ChangeFeed& feed, OpType type, std::string_view pk, std::string_view rk,
                      std::optional<std::string_view> current, bool expired,
                      const std::optional<FeedVersion>& found, const Prepared& p, int64_t now,
                      FeedEntries* out) {
  ValueHeader cur;
  if (current) {
    PARTKV_RETURN_IF_ERROR(DecodeValueHeader(*current, &cur));
    PARTKV_RETURN_IF_ERROR(out->Supersede(feed, found, cur.etag_version, pk, rk, *current));
  }
  if (expired) out->Add(ChangeOp::kExpire, now, cur.etag_version, pk, rk);
  if (p.is_delete) {
    out->Add(ChangeOp::kDelete, now, cur.etag_version, pk, rk);
    return Status::OK();
  }
  ChangeOp op = ChangeOp::kInsert;
  if (current && !expired) {
    op = type == OpType::kMerge || type == OpType::kInsertOrMerge ? ChangeOp::kMerge
                                                                  : ChangeOp::kReplace;
  }
  out->AddByReference(op, p.header.timestamp_ticks, p.header.etag_version, pk, rk);
  return Status::OK();
}

// What a write needs to know of its table's time to live and feed: the expiry rule now, and
// whether to record its changes.
struct WriteContext {
  Expiry expiry;
  bool feed = false;
  int64_t now = 0;
};

WriteContext WriteContextOf(StoreState& store, const SharedTable& data) {
  WriteContext w;
  w.feed = data.feed().enabled();
  const int64_t ttl = data.ttl_seconds();
  if (w.feed || ttl != kTtlOff) w.now = store.NowTicks();
  w.expiry = Expiry{ttl, w.now};
  return w;
}

// One operation of a batch that has passed the batch's checks.
struct CommitOp {
  OpType type;
  std::string_view row_key;
  const IfMatch* if_match;
  const Entity* entity;   // the caller's entity; nullptr for a sealed row
  std::string_view body;  // a sealed row's encoded properties (engine/local/row_sealer.h)
};

// Charges the batch's `cost` units to its partition's throughput, when the table is throttled.
Status ChargeThroughput(SharedTable& data, std::string_view pk, size_t physical, double cost) {
  if (Throttler* t = data.throttler()) {
    Status ts = t->Charge(true, pk, physical, cost);
    if (!ts.ok()) {
      data.stats().RecordThrottled(physical);
      return ts;
    }
  }
  return Status::OK();
}

// The first of the ticks of the batch's writes (0 when it only deletes).
Result<int64_t> IssueTicksFor(StoreState& store, const std::vector<CommitOp>& ops) {
  size_t writes = 0;
  for (const auto& op : ops) writes += op.type != OpType::kDelete;
  int64_t tick = 0;
  if (writes > 0) {
    PARTKV_ASSIGN_OR_RETURN(tick, store.IssueTicks(writes));
  }
  return tick;
}

// Every operation's full key (`prefix`, then the entity key), in *buffer: one allocation for the
// batch, not one per row. (*keys)[i] views operation i's in *buffer.
void BuildKeys(const std::string& prefix, std::string_view pk, const std::vector<CommitOp>& ops,
               std::string* buffer, std::vector<std::string_view>* keys) {
  std::string& key_buffer = *buffer;
  {
    size_t total = 0;
    for (const auto& op : ops) total += prefix.size() + pk.size() + op.row_key.size() + 1;
    key_buffer.reserve(total + pk.size());  // (escaping may lengthen pk a little)
  }
  std::vector<size_t> key_end(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    key_buffer += prefix;
    AppendEntityKey(pk, ops[i].row_key, &key_buffer);
    key_end[i] = key_buffer.size();
  }
  keys->resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const size_t begin = i == 0 ? 0 : key_end[i - 1];
    (*keys)[i] = std::string_view(key_buffer).substr(begin, key_end[i] - begin);
  }
}

// The new values of a batch's writes, by operation: a header each, with a tick of its own, and
// the caller's entity encoded with it (nothing for a delete; only the header for a sealed row).
struct NewValues {
  explicit NewValues(size_t n) : headers(n), encoded(n) {}
  std::vector<ValueHeader> headers;
  std::vector<std::string> encoded;
};

NewValues EncodeNewValues(const std::vector<CommitOp>& ops, int64_t tick) {
  NewValues out(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].type == OpType::kDelete) continue;
    ValueHeader& header = out.headers[i];
    header.timestamp_ticks = tick++;
    header.etag_version = static_cast<uint64_t>(header.timestamp_ticks);
    if (ops[i].entity != nullptr) {
      out.encoded[i].reserve(64 + ops[i].entity->property_count() * 24);
      EncodeValue(header, *ops[i].entity, &out.encoded[i]);
    }
  }
  return out;
}

// The current values of a batch's rows, from one MultiGet: operation i's row is
// statuses[at[i]] and values[at[i]].
struct CurrentRows {
  explicit CurrentRows(size_t n) : at(n), values(n), statuses(n) {}
  std::vector<size_t> at;
  std::vector<rocksdb::PinnableSlice> values;
  std::vector<rocksdb::Status> statuses;
};

CurrentRows ReadCurrentRows(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                            const std::vector<std::string_view>& keys,
                            const std::vector<rocksdb::Slice>& key_slices) {
  const size_t n = keys.size();
  // MultiGet in key order with sorted_input, so RocksDB need not sort (rows of a batch usually
  // arrive sorted already); at[i] is where operation i's row sits in that order.
  std::vector<size_t> order(n);
  CurrentRows current(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  auto by_key = [&](size_t a, size_t b) { return keys[a] < keys[b]; };
  if (!std::is_sorted(order.begin(), order.end(), by_key)) {
    std::sort(order.begin(), order.end(), by_key);
  }
  std::vector<rocksdb::Slice> sorted_slices(n);
  for (size_t j = 0; j < n; ++j) {
    sorted_slices[j] = key_slices[order[j]];
    current.at[order[j]] = j;
  }
  db.MultiGet(rocksdb::ReadOptions(), cf, n, sorted_slices.data(), current.values.data(),
              current.statuses.data(), /*sorted_input=*/true);
  return current;
}

// Decides each operation against its row's current value and adds its write to *wb. Errors name
// the operation that failed.
Result<std::vector<WriteResult>> StageWrites(
    rocksdb::ColumnFamilyHandle* cf, std::string_view pk, const std::vector<CommitOp>& ops,
    const std::vector<rocksdb::Slice>& key_slices, const CurrentRows& current,
    NewValues& new_values, const WriteContext& context, const ChangeFeed& change_feed,
    const std::vector<std::optional<FeedVersion>>& versions, FeedEntries* feed,
    rocksdb::WriteBatch* wb) {
  std::vector<WriteResult> results(ops.size());
  std::string header;  // a sealed row's value is its header, then its body
  for (size_t i = 0; i < ops.size(); ++i) {
    const rocksdb::Status& status = current.statuses[current.at[i]];
    if (!status.ok() && !status.IsNotFound()) {
      return FromRocks(status, "read entity").WithFailedOp(static_cast<int>(i));
    }
    std::optional<std::string_view> cur;
    if (status.ok()) cur = current.values[current.at[i]].ToStringView();
    // An expired row is no row: to the conditions, and to what the write records.
    const bool expired = cur && context.expiry.ExpiredValue(*cur);
    Prepared p;
    Status s = Decide(ops[i].type, pk, ops[i].row_key, ops[i].entity, *ops[i].if_match,
                      expired ? std::nullopt : cur, new_values.headers[i],
                      std::move(new_values.encoded[i]), &p);
    if (!s.ok()) return s.WithFailedOp(static_cast<int>(i));
    rocksdb::Status ws;
    if (p.is_delete) {
      ws = wb->Delete(cf, key_slices[i]);
    } else if (ops[i].entity == nullptr) {
      header.clear();
      AppendValueHeader(p.header, &header);
      const rocksdb::Slice value[2] = {header, ops[i].body};
      ws = wb->Put(cf, rocksdb::SliceParts(&key_slices[i], 1), rocksdb::SliceParts(value, 2));
    } else {
      ws = wb->Put(cf, key_slices[i], p.value);
    }
    if (!ws.ok()) return FromRocks(ws, "build batch").WithFailedOp(static_cast<int>(i));
    if (feed != nullptr) {
      PARTKV_RETURN_IF_ERROR(AddFeedEntries(change_feed, ops[i].type, pk, ops[i].row_key, cur,
                                            expired, versions[i], p, context.now, feed));
    }
    results[i] = std::move(p.result);
  }
  return results;
}

// What Submit and SubmitSealed share once every operation is checked: the throughput charge
// (`cost` units), one ETag step and one clock reading for the batch, the row locks in stripe
// order, one MultiGet, each operation's condition, and one RocksDB WriteBatch.
Result<std::vector<WriteResult>> CommitBatch(StoreState& store, SharedTable& data,
                                             std::string_view pk, const std::vector<CommitOp>& ops,
                                             double cost, const WriteOptions& options) {
  const size_t physical = data.PartitionIndexOf(pk);
  PARTKV_RETURN_IF_ERROR(ChargeThroughput(data, pk, physical, cost));
  PARTKV_ASSIGN_OR_RETURN(const int64_t tick, IssueTicksFor(store, ops));
  std::string key_buffer;
  std::vector<std::string_view> keys;
  BuildKeys(data.partitions()[physical].prefix, pk, ops, &key_buffer, &keys);
  NewValues new_values = EncodeNewValues(ops, tick);
  StoreState::RowLocks locks = store.LockRows(keys);

  rocksdb::ColumnFamilyHandle* cf = data.partitions()[physical].cf;
  std::vector<rocksdb::Slice> key_slices(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    key_slices[i] = rocksdb::Slice(keys[i].data(), keys[i].size());
  const CurrentRows current = ReadCurrentRows(*store.db(), cf, keys, key_slices);
  rocksdb::WriteBatch wb;
  const WriteContext context = WriteContextOf(store, data);
  FeedEntries feed(options.origin);
  std::vector<std::optional<FeedVersion>> versions(ops.size());
  if (context.feed) {
    std::vector<std::optional<std::string_view>> rows(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      if (current.statuses[current.at[i]].ok()) {
        rows[i] = current.values[current.at[i]].ToStringView();
      }
    }
    PARTKV_RETURN_IF_ERROR(FindRowVersions(store.db(), data.feed(), rows, &versions));
  }
  PARTKV_ASSIGN_OR_RETURN(std::vector<WriteResult> results,
                          StageWrites(cf, pk, ops, key_slices, current, new_values, context,
                                      data.feed(), versions, context.feed ? &feed : nullptr, &wb));
  std::optional<ChangeFeed::Reservation> reservation;
  if (!feed.empty()) {
    PARTKV_ASSIGN_OR_RETURN(ChangeFeed::Reservation r, feed.Stage(data.feed(), &wb));
    reservation.emplace(std::move(r));
  }
  PARTKV_RETURN_IF_ERROR(store.Write(options.sync, &wb, "write batch"));
  data.stats().RecordWrite(physical, pk, ops.size(), wb.GetDataSize());
  return results;
}

}  // namespace

Status EntityExists(std::string_view pk, std::string_view rk) {
  return Status::AlreadyExists("entity " + RowDescription(pk, rk) + " already exists");
}

Result<const Entity*> TableHandle::WithSchemeKeys(OpType type, const Entity& entity,
                                                  std::optional<Entity>* computed) const {
  return engine::WithSchemeKeys({data_->partition_key_scheme(), data_->row_key_scheme()}, type,
                                entity, computed);
}

Result<Entity> TableHandle::GetByAttributes(const Entity& attributes) const {
  PARTKV_RETURN_IF_ERROR(CheckLive());
  return engine::GetByAttributes(
      {data_->partition_key_scheme(), data_->row_key_scheme()}, data_->record().name, attributes,
      [this](const std::vector<std::pair<std::string, std::string>>& candidates) -> Result<Entity> {
        for (const auto& [pk, rk] : candidates) {
          auto e = Get(pk, rk);
          if (e.ok() || !e.status().IsNotFound() || &pk == &candidates.back().first) return e;
        }
        return Status::NotFound("no candidate keys");
      });
}

Status TableHandle::CheckLive() const {
  if (data_->dropped()) {
    return Status::NotFound("table '" + data_->record().name + "' has been dropped");
  }
  return Status::OK();
}

Result<WriteResult> TableHandle::Write(OpType type, const Entity& given, const IfMatch& if_match,
                                       const WriteOptions& options) {
  PARTKV_RETURN_IF_ERROR(CheckLive());
  std::optional<Entity> computed;
  PARTKV_ASSIGN_OR_RETURN(const Entity* keyed, WithSchemeKeys(type, given, &computed));
  const Entity& entity = *keyed;
  const Limits& limits = data_->limits();
  if (NeedsEntityValidation(type)) {
    PARTKV_RETURN_IF_ERROR(ValidateEntity(entity, limits));
  } else {
    PARTKV_RETURN_IF_ERROR(ValidateKey(entity.partition_key(), "PartitionKey", limits));
    PARTKV_RETURN_IF_ERROR(ValidateKey(entity.row_key(), "RowKey", limits));
  }
  const size_t physical = data_->PartitionIndexOf(entity.partition_key());
  const PhysicalPartition& part = data_->partitions()[physical];
  rocksdb::ColumnFamilyHandle* cf = part.cf;
  std::string key = part.prefix;
  AppendEntityKey(entity.partition_key(), entity.row_key(), &key);
  if (Throttler* t = data_->throttler()) {
    // Charged before anything is read or written: a throttled call changes nothing.
    Status ts =
        t->Charge(true, entity.partition_key(), physical, WriteCost(data_->profile(), entity));
    if (!ts.ok()) {
      data_->stats().RecordThrottled(physical);
      return ts;
    }
  }

  // Everything that does not depend on the current row happens before taking the lock.
  ValueHeader header;
  std::string encoded;
  if (type != OpType::kDelete) {
    PARTKV_ASSIGN_OR_RETURN(header.timestamp_ticks, store_->IssueTicks(1));
    header.etag_version = static_cast<uint64_t>(header.timestamp_ticks);
    encoded.reserve(64 + entity.property_count() * 24);
    EncodeValue(header, entity, &encoded);
  }

  rocksdb::DB* db = store_->db();
  port::MutexLock lock(&store_->Stripe(StoreState::StripeOf(HashBytes(key))));
  rocksdb::PinnableSlice current;
  rocksdb::Status gs = db->Get(rocksdb::ReadOptions(), cf, key, &current);
  if (!gs.ok() && !gs.IsNotFound()) return FromRocks(gs, "read entity");
  std::optional<std::string_view> cur;
  if (gs.ok()) cur = current.ToStringView();
  const WriteContext context = WriteContextOf(*store_, *data_);
  // An expired row is no row: to the condition, and to what the write records.
  const bool expired = cur && context.expiry.ExpiredValue(*cur);
  Prepared p;
  PARTKV_RETURN_IF_ERROR(Decide(type, entity.partition_key(), entity.row_key(), &entity, if_match,
                                expired ? std::nullopt : cur, header, std::move(encoded), &p));
  rocksdb::WriteBatch wb;
  rocksdb::Status ws = p.is_delete ? wb.Delete(cf, key) : wb.Put(cf, key, p.value);
  if (!ws.ok()) return FromRocks(ws, "write entity");
  std::optional<ChangeFeed::Reservation> reservation;
  if (context.feed) {
    FeedEntries feed(options.origin);
    std::vector<std::optional<FeedVersion>> found;
    PARTKV_RETURN_IF_ERROR(FindRowVersions(db, data_->feed(), {cur}, &found));
    PARTKV_RETURN_IF_ERROR(AddFeedEntries(data_->feed(), type, entity.partition_key(),
                                          entity.row_key(), cur, expired, found[0], p, context.now,
                                          &feed));
    PARTKV_ASSIGN_OR_RETURN(ChangeFeed::Reservation r, feed.Stage(data_->feed(), &wb));
    reservation.emplace(std::move(r));
  }
  PARTKV_RETURN_IF_ERROR(store_->Write(options.sync, &wb, "write entity"));
  data_->stats().RecordWrite(physical, entity.partition_key(), 1, key.size() + p.value.size());
  return std::move(p.result);
}

Result<Entity> TableHandle::Get(std::string_view pk, std::string_view rk) const {
  PARTKV_RETURN_IF_ERROR(CheckLive());
  const size_t physical = data_->PartitionIndexOf(pk);
  const PhysicalPartition& part = data_->partitions()[physical];
  rocksdb::ColumnFamilyHandle* cf = part.cf;
  std::string key = part.prefix;
  AppendEntityKey(pk, rk, &key);
  Throttler* throttler = data_->throttler();
  const double min_cost = ReadCost(data_->profile(), 0);
  if (throttler != nullptr) {
    Status ts = throttler->Charge(false, pk, physical, min_cost);
    if (!ts.ok()) {
      data_->stats().RecordThrottled(physical);
      return ts;
    }
  }
  rocksdb::PinnableSlice value;
  rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), cf, key, &value);
  data_->stats().RecordRead(physical, pk, 1, s.ok() ? key.size() + value.size() : 0);
  if (throttler != nullptr && s.ok()) {
    // The size is known only now: charge the rest as debt on the partition's budget.
    throttler->Debit(false, pk, physical, ReadCost(data_->profile(), value.size()) - min_cost);
  }
  if (s.IsNotFound()) {
    return Status::NotFound("entity (PartitionKey '" + std::string(pk) + "', RowKey '" +
                            std::string(rk) + "') does not exist");
  }
  if (!s.ok()) return FromRocks(s, "read entity");
  Entity e{std::string(pk), std::string(rk)};
  ValueHeader h;
  PARTKV_RETURN_IF_ERROR(DecodeValue(value.ToStringView(), &h, &e));
  e.set_timestamp(DateTime{h.timestamp_ticks});
  e.set_etag(FormatEtag(h.etag_version));
  if (data_->ttl_seconds() != kTtlOff && data_->ExpiryAt(store_->NowTicks()).Expired(e)) {
    return Status::NotFound("entity (PartitionKey '" + std::string(pk) + "', RowKey '" +
                            std::string(rk) + "') does not exist (its time to live ran out)");
  }
  return e;
}

Result<std::vector<WriteResult>> TableHandle::Submit(const Batch& batch,
                                                     const WriteOptions& options) {
  PARTKV_RETURN_IF_ERROR(CheckLive());
  if (data_->partition_key_scheme() || data_->row_key_scheme()) {
    // Compute scheme keys first, so the batch's rules apply to the keys that will be written.
    Batch keyed;
    for (size_t i = 0; i < batch.ops().size(); ++i) {
      const BatchOp& op = batch.ops()[i];
      std::optional<Entity> computed;
      auto e = WithSchemeKeys(op.type, op.entity, &computed);
      if (!e.ok()) return e.status().WithFailedOp(static_cast<int>(i));
      keyed.Add(op.type, **e, op.if_match);
    }
    return SubmitKeyed(keyed, options);
  }
  return SubmitKeyed(batch, options);
}

Result<std::vector<WriteResult>> TableHandle::SubmitKeyed(const Batch& batch,
                                                          const WriteOptions& options) {
  const auto& ops = batch.ops();
  const Limits& limits = data_->limits();
  if (ops.empty()) return std::vector<WriteResult>();
  // Everything is checked before anything is locked or written.
  PARTKV_RETURN_IF_ERROR(ValidateBatch(ops, limits));
  const std::string& pk = ops[0].entity.partition_key();

  double cost = 0;
  if (data_->throttler() != nullptr) {
    for (const auto& op : ops) cost += WriteCost(data_->profile(), op.entity);
  }
  std::vector<CommitOp> commit;
  commit.reserve(ops.size());
  for (const auto& op : ops) {
    commit.push_back(CommitOp{op.type, op.entity.row_key(), &op.if_match, &op.entity, {}});
  }
  return CommitBatch(*store_, *data_, pk, commit, cost, options);
}

Result<RowSealer> TableHandle::NewRowSealer(OpType type) const {
  PARTKV_RETURN_IF_ERROR(CheckLive());
  if (type != OpType::kInsert && type != OpType::kInsertOrReplace) {
    return Status::InvalidArgument("rows can be sealed for Insert and InsertOrReplace, not " +
                                   std::string(OpTypeName(type)));
  }
  // The seal's seed: random per sealer, so that rows of one sealer do not pass for another's.
  std::random_device random;
  uint64_t seed = (static_cast<uint64_t>(random()) << 32) ^ random();
  return RowSealer(this, type, seed);
}

Status TableHandle::SubmitSealed(const RowSealer& sealer, const std::vector<SealedRow>& rows,
                                 const WriteOptions& options) {
  PARTKV_RETURN_IF_ERROR(CheckLive());
  if (&sealer.table().data() != data_.get()) {
    return Status::InvalidArgument("the rows were sealed for table '" +
                                   sealer.table().data().record().name + "', not '" +
                                   data_->record().name + "'");
  }
  const Limits& limits = data_->limits();
  if (rows.empty()) return Status::OK();
  if (rows.size() > limits.max_batch_operations) return TooManyOperations(rows.size(), limits);
  // The entities were validated when sealed; what remains are the batch's own rules.
  const std::string_view pk = rows[0].partition_key();
  std::vector<CommitOp> commit;
  commit.reserve(rows.size());
  std::vector<std::pair<std::string_view, int>> row_keys;
  row_keys.reserve(rows.size());
  const IfMatch any = IfMatch::Any();
  uint64_t bytes = 0;
  double cost = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int index = static_cast<int>(i);
    const SealedRow& row = rows[i];
    if (!sealer.Parsed(row)) {
      return Status::InvalidArgument("a row was not read by this write's RowSealer")
          .WithFailedOp(index);
    }
    if (row.partition_key() != pk) return MixedPartitionKeys(row.partition_key(), pk, index);
    bytes += row.size();
    if (bytes > limits.max_batch_bytes) return BatchTooLarge(limits, index);
    cost += row.cost();
    row_keys.emplace_back(row.row_key(), index);
    commit.push_back(CommitOp{sealer.type(), row.row_key(), &any, nullptr, row.body()});
  }
  PARTKV_RETURN_IF_ERROR(DuplicateRows(row_keys));
  auto written = CommitBatch(*store_, *data_, pk, commit, cost, options);
  return written.ok() ? Status::OK() : written.status();
}

}  // namespace partkv::engine
