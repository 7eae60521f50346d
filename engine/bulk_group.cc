#include "engine/bulk_group.h"

#include <algorithm>
#include <bitset>
#include <mutex>
#include <numeric>

#include "engine/key_codec.h"
#include "engine/rocks_status.h"
#include "engine/store_state.h"
#include "engine/table_handle.h"
#include "engine/value_codec.h"
#include "rocksdb/write_batch.h"

namespace partkv::engine {

void BulkGroup::Append(const SealedRow& row, uint64_t position, uint64_t line) {
  if (rows_.empty()) first_position_ = position;
  const bool new_batch =
      rows_.empty() || row.partition_key() != batch_pk_ ||
      rows_.size() - batch_starts_.back() >= limits_.max_batch_operations ||
      batch_size_ + row.size() > limits_.max_batch_bytes || BatchHasRow(row.row_key());
  if (new_batch) {
    batch_starts_.push_back(rows_.size());
    batch_pk_.assign(row.partition_key());
    batch_max_row_key_.clear();
    batch_size_ = 0;
    batch_row_keys_.clear();
  }
  const size_t offset = bytes_.size();
  bytes_.append(row.bytes());
  batch_row_keys_.emplace_back(offset + (row.row_key().data() - row.bytes().data()),
                               row.row_key().size());
  if (row.row_key() > batch_max_row_key_) batch_max_row_key_.assign(row.row_key());
  batch_size_ += row.size();
  rows_.push_back(Row{offset, static_cast<uint32_t>(row.bytes().size()),
                      static_cast<uint32_t>(batch_starts_.size() - 1), line});
}

bool BulkGroup::BatchHasRow(std::string_view row_key) const {
  if (batch_row_keys_.empty() || row_key > batch_max_row_key_) return false;
  for (const auto& [offset, size] : batch_row_keys_) {
    if (std::string_view(bytes_).substr(offset, size) == row_key) return true;
  }
  return false;
}

void BulkGroup::Clear() {
  bytes_.clear();
  rows_.clear();
  batch_starts_.clear();
  batch_pk_.clear();
  batch_max_row_key_.clear();
  batch_size_ = 0;
  batch_row_keys_.clear();
}

namespace {

// The rows of a group as CommitGroup sees them: parsed, with their physical partitions and full
// keys, and their order by key.
struct Keyed {
  std::vector<SealedRow> rows;
  std::vector<uint32_t> physical;
  std::string key_buffer;
  std::vector<std::string_view> keys;
  std::vector<uint32_t> order;  // row indexes by (key, index)
};

Status KeyRows(const SharedTable& data, const RowSealer& sealer, const BulkGroup& group,
               Keyed* k) {
  const size_t n = group.rows();
  k->rows.resize(n);
  k->physical.resize(n);
  std::vector<size_t> key_end(n);
  size_t physical = 0;
  for (size_t i = 0; i < n; ++i) {
    SealedRow& row = k->rows[i];
    PARTKV_ASSIGN_OR_RETURN(bool whole, sealer.Parse(group.row(i), &row));
    if (!whole) return Status::Corruption("a bulk group holds a row cut short");
    // Rows of one PartitionKey usually come together: hash it once for them.
    if (i == 0 || row.partition_key() != k->rows[i - 1].partition_key()) {
      physical = data.PartitionIndexOf(row.partition_key());
    }
    k->physical[i] = static_cast<uint32_t>(physical);
    k->key_buffer += data.partitions()[physical].prefix;
    AppendEntityKey(row.partition_key(), row.row_key(), &k->key_buffer);
    key_end[i] = k->key_buffer.size();
  }
  k->keys.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t begin = i == 0 ? 0 : key_end[i - 1];
    k->keys[i] = std::string_view(k->key_buffer).substr(begin, key_end[i] - begin);
  }
  // The partition prefix (table id, partition index) leads the key, so key order groups the rows
  // by physical partition; equal keys keep their stream order.
  k->order.resize(n);
  std::iota(k->order.begin(), k->order.end(), 0);
  auto by_key = [&](uint32_t a, uint32_t b) {
    int c = k->keys[a].compare(k->keys[b]);
    return c < 0 || (c == 0 && a < b);
  };
  if (!std::is_sorted(k->order.begin(), k->order.end(), by_key)) {
    std::sort(k->order.begin(), k->order.end(), by_key);
  }
  return Status::OK();
}

// Charges every run of the group's rows (in key order) that shares a budget: one PartitionKey,
// or one physical partition when the profile budgets those. A refusal leaves the runs before it
// charged: the emulation errs on the slow side, as it does when it forgets banked burst.
Status ChargeRuns(SharedTable& data, const Keyed& k) {
  Throttler* throttler = data.throttler();
  if (throttler == nullptr) return Status::OK();
  const bool by_physical =
      throttler->model().scope == ThroughputModel::Scope::kPhysicalPartition;
  const size_t n = k.order.size();
  for (size_t j = 0; j < n;) {
    const SealedRow& first = k.rows[k.order[j]];
    const uint32_t physical = k.physical[k.order[j]];
    double cost = 0;
    size_t end = j;
    for (; end < n; ++end) {
      const SealedRow& row = k.rows[k.order[end]];
      if (k.physical[k.order[end]] != physical ||
          (!by_physical && row.partition_key() != first.partition_key())) {
        break;
      }
      cost += row.cost();
    }
    Status s = throttler->Charge(true, first.partition_key(), physical, cost);
    if (!s.ok()) {
      data.stats().RecordThrottled(physical);
      return s;
    }
    j = end;
  }
  return Status::OK();
}

// Every distinct stripe of the group's keys, locked in ascending order (as batches lock theirs).
std::vector<std::unique_lock<std::mutex>> LockStripes(StoreState& store, const Keyed& k) {
  std::bitset<StoreState::kLockStripes> stripes;
  for (std::string_view key : k.keys) stripes.set(StoreState::StripeOf(HashBytes(key)));
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(stripes.count());
  for (size_t s = 0; s < stripes.size(); ++s) {
    if (stripes.test(s)) locks.emplace_back(store.Stripe(s));
  }
  return locks;
}

// The current value of every row, in key order (values[j] belongs to row order[j]): one MultiGet
// with sorted input per physical partition.
Status ReadCurrent(StoreState& store, const SharedTable& data, const Keyed& k,
                   std::vector<rocksdb::PinnableSlice>* values,
                   std::vector<rocksdb::Status>* statuses) {
  const size_t n = k.order.size();
  std::vector<rocksdb::Slice> slices(n);
  for (size_t j = 0; j < n; ++j) {
    std::string_view key = k.keys[k.order[j]];
    slices[j] = rocksdb::Slice(key.data(), key.size());
  }
  values->resize(n);
  statuses->resize(n);
  for (size_t j = 0; j < n;) {
    const uint32_t physical = k.physical[k.order[j]];
    size_t end = j;
    while (end < n && k.physical[k.order[end]] == physical) ++end;
    store.db()->MultiGet(rocksdb::ReadOptions(), data.partitions()[physical].cf, end - j,
                         slices.data() + j, values->data() + j, statuses->data() + j,
                         /*sorted_input=*/true);
    j = end;
  }
  for (const rocksdb::Status& s : *statuses) {
    if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "read entity");
  }
  return Status::OK();
}

// The first row (by index) that an Insert may not write, and its error: its key exists, or an
// earlier row of the group has it.
std::optional<size_t> FirstConflict(const Keyed& k, const std::vector<rocksdb::Status>& statuses,
                                    Status* error) {
  std::optional<size_t> bad;
  for (size_t j = 0; j < k.order.size(); ++j) {
    const uint32_t i = k.order[j];
    if (bad && i > *bad) continue;
    const bool exists = statuses[j].ok();
    const bool repeated = j > 0 && k.keys[k.order[j - 1]] == k.keys[i];
    if (!exists && !repeated) continue;
    bad = i;
    const SealedRow& row = k.rows[i];
    *error = EntityExists(row.partition_key(), row.row_key());
    if (!exists) {
      *error = Status::AlreadyExists(std::string(error->message()) +
                                     ": an earlier row of this bulk write inserts it");
    }
  }
  return bad;
}

// The value of a run of rows with one key, [j, end) in key order, for kInsertOrMerge: the stored
// entity (if any) with each row's properties set on it in stream order, under the last row's
// header.
Status MergedValue(const Keyed& k, size_t j, size_t end, const rocksdb::PinnableSlice& current,
                   bool exists, const ValueHeader& header, std::string* out) {
  Entity merged;
  ValueHeader ignored;
  if (exists) PARTKV_RETURN_IF_ERROR(DecodeValue(current.ToStringView(), &ignored, &merged));
  std::string patch_value;
  Entity patch;
  for (size_t m = j; m < end; ++m) {
    patch_value.clear();
    AppendValueHeader(ValueHeader{}, &patch_value);
    patch_value.append(k.rows[k.order[m]].body());
    PARTKV_RETURN_IF_ERROR(DecodeValue(patch_value, &ignored, &patch));
    for (const auto& [name, value] : patch) merged.Set(name, value);
  }
  out->clear();
  EncodeValue(header, merged, out);
  return Status::OK();
}

}  // namespace

GroupOutcome CommitGroup(TableHandle& table, const RowSealer& sealer, OpType mode,
                         const BulkGroup& group, bool sync) {
  GroupOutcome out;
  StoreState& store = table.store();
  SharedTable& data = table.data();
  const size_t n = group.rows();
  if (n == 0) return out;
  out.status = table.CheckLive();
  if (!out.status.ok()) return out;
  Keyed k;
  out.status = KeyRows(data, sealer, group, &k);
  if (out.status.ok()) out.status = ChargeRuns(data, k);
  if (!out.status.ok()) return out;
  Result<int64_t> tick = store.IssueTicks(n);
  if (!tick.ok()) {
    out.status = tick.status();
    return out;
  }
  out.first_tick = *tick;

  std::vector<std::unique_lock<std::mutex>> locks = LockStripes(store, k);
  std::vector<rocksdb::PinnableSlice> values;
  std::vector<rocksdb::Status> statuses(n);  // NotFound for every row unless read
  const bool reads = mode != OpType::kInsertOrReplace;
  if (reads) {
    out.status = ReadCurrent(store, data, k, &values, &statuses);
    if (!out.status.ok()) return out;
  } else {
    std::fill(statuses.begin(), statuses.end(), rocksdb::Status::NotFound());
  }
  Status conflict;
  if (mode == OpType::kInsert) out.bad_row = FirstConflict(k, statuses, &conflict);
  // A conflict writes the batches before the conflicting row's, nothing from it on.
  const size_t cut = out.bad_row ? group.batch_start(group.batch_of(*out.bad_row)) : n;

  size_t reserve = 0;
  for (size_t i = 0; i < n; ++i) reserve += k.keys[i].size() + k.rows[i].body().size() + 32;
  rocksdb::WriteBatch wb(reserve);
  std::string header, merged;
  for (size_t j = 0; j < n;) {
    const uint32_t i = k.order[j];
    size_t end = j + 1;
    if (mode == OpType::kInsertOrMerge) {
      while (end < n && k.keys[k.order[end]] == k.keys[i]) ++end;
    }
    if (i >= cut) {
      j = end;
      continue;
    }
    rocksdb::ColumnFamilyHandle* cf = data.partitions()[k.physical[i]].cf;
    const rocksdb::Slice key(k.keys[i].data(), k.keys[i].size());
    const uint32_t last = k.order[end - 1];
    ValueHeader h;
    h.timestamp_ticks = out.first_tick + static_cast<int64_t>(last);
    h.etag_version = static_cast<uint64_t>(h.timestamp_ticks);
    rocksdb::Status ws;
    if (mode == OpType::kInsertOrMerge && (end - j > 1 || statuses[j].ok())) {
      out.status = MergedValue(k, j, end, values[j], statuses[j].ok(), h, &merged);
      if (!out.status.ok()) return out;
      ws = wb.Put(cf, key, merged);
    } else {
      header.clear();
      AppendValueHeader(h, &header);
      const rocksdb::Slice value[2] = {header, k.rows[i].body()};
      ws = wb.Put(cf, rocksdb::SliceParts(&key, 1), rocksdb::SliceParts(value, 2));
    }
    if (!ws.ok()) {
      out.status = FromRocks(ws, "build a bulk group");
      return out;
    }
    j = end;
  }
  out.status = store.Write(sync, &wb, "write a bulk group");
  locks.clear();
  if (!out.status.ok()) {
    out.bad_row.reset();
    return out;
  }
  // Statistics per logical partition: a run of one PartitionKey in key order.
  for (size_t j = 0; j < n;) {
    const uint32_t i = k.order[j];
    size_t end = j, rows = 0;
    uint64_t bytes = 0;
    for (; end < n && k.physical[k.order[end]] == k.physical[i] &&
           k.rows[k.order[end]].partition_key() == k.rows[i].partition_key();
         ++end) {
      if (k.order[end] >= cut) continue;
      ++rows;
      bytes += k.keys[k.order[end]].size() + k.rows[k.order[end]].body().size();
    }
    if (rows > 0) data.stats().RecordWrite(k.physical[i], k.rows[i].partition_key(), rows, bytes);
    j = end;
  }
  out.written = cut;
  out.batches = cut == n ? group.batches() : group.batch_of(cut);
  out.status = conflict;
  return out;
}

}  // namespace partkv::engine
