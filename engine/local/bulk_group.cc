#include "engine/local/bulk_group.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

#include "engine/key_codec.h"
#include "engine/local/rocks_status.h"
#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"
#include "engine/value_codec.h"
#include "rocksdb/write_batch.h"

namespace partkv::engine {

Status RepeatedInsert(std::string_view pk, std::string_view rk) {
  Status exists = EntityExists(pk, rk);
  return Status::AlreadyExists(std::string(exists.message()) +
                               ": an earlier row of this bulk write inserts it");
}

bool BatchCutter::Add(const SealedRow& row) {
  const bool opens = rows_ == 0 || row.partition_key() != partition_key_ ||
                     rows_ >= limits_.max_batch_operations ||
                     size_ + row.size() > limits_.max_batch_bytes || HasRow(row.row_key());
  if (opens) {
    rows_ = 0;
    size_ = 0;
    partition_key_.assign(row.partition_key());
    max_row_key_.clear();
    row_keys_.clear();
    row_key_ends_.clear();
  }
  ++rows_;
  size_ += row.size();
  row_keys_.append(row.row_key());
  row_key_ends_.push_back(row_keys_.size());
  if (row.row_key() > max_row_key_) max_row_key_.assign(row.row_key());
  return opens;
}

bool BatchCutter::HasRow(std::string_view row_key) const {
  if (rows_ == 0 || row_key > max_row_key_) return false;
  size_t begin = 0;
  for (size_t end : row_key_ends_) {
    if (std::string_view(row_keys_).substr(begin, end - begin) == row_key) return true;
    begin = end;
  }
  return false;
}

GroupBudget::GroupBudget(const SharedTable& data)
    : data_(data),
      by_physical_(data.throttler()->model().scope == ThroughputModel::Scope::kPhysicalPartition),
      capacity_(data.throttler()->model().write_rate * data.throttler()->model().burst_seconds) {}

std::string_view GroupBudget::Key(const SealedRow& row) {
  if (!by_physical_) return row.partition_key();
  const auto physical = static_cast<uint32_t>(data_.PartitionIndexOf(row.partition_key()));
  char bytes[sizeof physical];
  std::memcpy(bytes, &physical, sizeof bytes);
  key_.assign(bytes, sizeof bytes);
  return key_;
}

bool GroupBudget::Fits(const SealedRow& row) {
  if (capacity_ <= 0) return true;  // a profile without budgets
  auto it = spent_.find(Key(row));
  return it == spent_.end() || it->second + row.cost() <= capacity_;
}

void GroupBudget::Add(const SealedRow& row) {
  std::string_view key = Key(row);
  auto it = spent_.find(key);
  if (it == spent_.end()) it = spent_.emplace(std::string(key), 0.0).first;
  it->second += row.cost();
}

BulkGroup::BulkGroup(const SharedTable& data, bool cut_batches) {
  if (cut_batches) cutter_.emplace(data.limits());
  if (data.throttler() != nullptr) budget_.emplace(data);
}

void BulkGroup::Append(const SealedRow& row, uint64_t position, uint64_t line) {
  prepared_ = false;
  if (budget_) budget_->Add(row);
  const bool opens = cutter_ ? cutter_->Add(row) : rows_.empty();
  if (opens || rows_.empty()) batch_starts_.push_back(rows_.size());
  rows_.push_back(Row{bytes_.size(), static_cast<uint32_t>(row.bytes().size()),
                      static_cast<uint32_t>(batch_starts_.size() - 1), line});
  positions_.push_back(position);
  bytes_.append(row.bytes());
}

void BulkGroup::Clear() {
  prepared_ = false;
  if (budget_) budget_->Clear();
  bytes_.clear();
  rows_.clear();
  positions_.clear();
  batch_starts_.clear();
  if (cutter_) cutter_->Reset();
}

namespace {

// Statistics gathered over at most this many groups or partitions before they are recorded.
constexpr size_t kStatisticsGroups = 16;
constexpr size_t kStatisticsPartitions = 65536;

// The value of a run of rows with one key for kInsertOrMerge: the stored entity (`current`,
// when `exists`) with each row's properties (`bodies`, in stream order) set on it, under
// `header`.
Status MergedValue(const std::vector<std::string_view>& bodies,
                   const rocksdb::PinnableSlice& current, bool exists, const ValueHeader& header,
                   std::string* out) {
  Entity merged;
  ValueHeader ignored;
  if (exists) PARTKV_RETURN_IF_ERROR(DecodeValue(current.ToStringView(), &ignored, &merged));
  std::string patch_value;
  Entity patch;
  for (std::string_view body : bodies) {
    patch_value.clear();
    AppendValueHeader(ValueHeader{}, &patch_value);
    patch_value.append(body);
    PARTKV_RETURN_IF_ERROR(DecodeValue(patch_value, &ignored, &patch));
    for (const auto& [name, value] : patch) merged.Set(name, value);
  }
  out->clear();
  EncodeValue(header, merged, out);
  return Status::OK();
}

}  // namespace

GroupWriter::GroupWriter(TableHandle& table, const RowSealer& sealer, OpType mode, bool sync)
    : table_(table), sealer_(sealer), mode_(mode), sync_(sync) {}

Status BulkGroup::Prepare(const SharedTable& data, const RowSealer& sealer) {
  if (prepared_) return Status::OK();
  const size_t n = rows();
  parsed_.resize(n);
  physical_.resize(n);
  key_end_.resize(n);
  key_buffer_.clear();
  size_t physical = 0;
  for (size_t i = 0; i < n; ++i) {
    SealedRow& row = parsed_[i];
    PARTKV_ASSIGN_OR_RETURN(bool whole, sealer.Parse(this->row(i), &row));
    if (!whole) return Status::Corruption("a bulk group holds a row cut short");
    // Rows of one PartitionKey usually come together: hash it once for them.
    if (i == 0 || row.partition_key() != parsed_[i - 1].partition_key()) {
      physical = data.PartitionIndexOf(row.partition_key());
    }
    physical_[i] = static_cast<uint32_t>(physical);
    key_buffer_ += data.partitions()[physical].prefix;
    AppendEntityKey(row.partition_key(), row.row_key(), &key_buffer_);
    key_end_[i] = key_buffer_.size();
  }
  keys_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t begin = i == 0 ? 0 : key_end_[i - 1];
    keys_[i] = std::string_view(key_buffer_).substr(begin, key_end_[i] - begin);
  }
  // The partition prefix (table id, partition index) leads the key, so key order groups the rows
  // by physical partition; equal keys keep their stream order.
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  auto by_key = [&](uint32_t a, uint32_t b) {
    int c = keys_[a].compare(keys_[b]);
    return c < 0 || (c == 0 && a < b);
  };
  if (!std::is_sorted(order_.begin(), order_.end(), by_key)) {
    std::sort(order_.begin(), order_.end(), by_key);
  }
  prepared_ = true;
  return Status::OK();
}

// Charges every run of the group's rows (in key order) that shares a budget: one PartitionKey,
// or one physical partition when the profile budgets those. A refusal leaves the runs before it
// charged: the emulation errs on the slow side, as it does when it forgets banked burst.
Status GroupWriter::ChargeRuns(const BulkGroup& g) {
  SharedTable& data = table_.data();
  Throttler* throttler = data.throttler();
  if (throttler == nullptr) return Status::OK();
  const bool by_physical = throttler->model().scope == ThroughputModel::Scope::kPhysicalPartition;
  const std::vector<uint32_t>& order = g.order();
  const size_t n = order.size();
  for (size_t j = 0; j < n;) {
    const SealedRow& first = g.parsed(order[j]);
    const uint32_t physical = g.physical(order[j]);
    double cost = 0;
    size_t end = j;
    for (; end < n; ++end) {
      const SealedRow& row = g.parsed(order[end]);
      if (g.physical(order[end]) != physical ||
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

// The current value of every row, in key order (values_[j] belongs to row order[j]): one
// MultiGet with sorted input per physical partition.
Status GroupWriter::ReadCurrent(const BulkGroup& g) {
  const SharedTable& data = table_.data();
  const std::vector<uint32_t>& order = g.order();
  const size_t n = order.size();
  slices_.resize(n);
  for (size_t j = 0; j < n; ++j) {
    std::string_view key = g.key(order[j]);
    slices_[j] = rocksdb::Slice(key.data(), key.size());
  }
  values_.resize(n);
  statuses_.resize(n);
  for (size_t j = 0; j < n;) {
    const uint32_t physical = g.physical(order[j]);
    size_t end = j;
    while (end < n && g.physical(order[end]) == physical) ++end;
    table_.store().db()->MultiGet(rocksdb::ReadOptions(), data.partitions()[physical].cf, end - j,
                                  slices_.data() + j, values_.data() + j, statuses_.data() + j,
                                  /*sorted_input=*/true);
    j = end;
  }
  for (const rocksdb::Status& s : statuses_) {
    if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "read entity");
  }
  return Status::OK();
}

// The first row (by index) that an Insert may not write, and its error: its key exists, or an
// earlier row of the group has it.
std::optional<size_t> GroupWriter::FirstConflict(const BulkGroup& g, Status* error) const {
  const std::vector<uint32_t>& order = g.order();
  std::optional<size_t> bad;
  for (size_t j = 0; j < order.size(); ++j) {
    const uint32_t i = order[j];
    if (bad && i > *bad) continue;
    const bool exists = Exists(j);
    const bool repeated = j > 0 && g.key(order[j - 1]) == g.key(i);
    if (!exists && !repeated) continue;
    bad = i;
    const SealedRow& row = g.parsed(i);
    *error = exists ? EntityExists(row.partition_key(), row.row_key())
                    : RepeatedInsert(row.partition_key(), row.row_key());
  }
  return bad;
}

// The WriteBatch of the group's rows before `cut`, in key order. Row i's header carries tick
// first_tick + i; a merge run's value carries its last row's.
Status GroupWriter::Build(const BulkGroup& g, size_t cut, int64_t first_tick, int64_t now,
                          FeedEntries* feed) {
  const SharedTable& data = table_.data();
  const std::vector<uint32_t>& order = g.order();
  const size_t n = order.size();
  batch_.Clear();
  std::string header, merged;
  std::vector<std::string_view> bodies;
  for (size_t j = 0; j < n;) {
    const uint32_t i = order[j];
    size_t end = j + 1;
    if (mode_ == OpType::kInsertOrMerge) {
      while (end < n && g.key(order[end]) == g.key(i)) ++end;
    }
    if (i >= cut) {
      j = end;
      continue;
    }
    rocksdb::ColumnFamilyHandle* cf = data.partitions()[g.physical(i)].cf;
    const rocksdb::Slice key(g.key(i).data(), g.key(i).size());
    ValueHeader h;
    h.timestamp_ticks = first_tick + static_cast<int64_t>(order[end - 1]);
    h.etag_version = static_cast<uint64_t>(h.timestamp_ticks);
    // An earlier row of the group with this key (InsertOrReplace) wrote the entity before this one.
    const bool after_same_key = j > 0 && g.key(order[j - 1]) == g.key(i);
    const bool exists = after_same_key || Exists(j);
    rocksdb::Status ws;
    std::string_view value_header, value_body;
    if (mode_ == OpType::kInsertOrMerge && (end - j > 1 || exists)) {
      bodies.clear();
      for (size_t m = j; m < end; ++m) bodies.push_back(g.parsed(order[m]).body());
      PARTKV_RETURN_IF_ERROR(MergedValue(bodies, values_[j], exists, h, &merged));
      ws = batch_.Put(cf, key, merged);
      value_header = merged;
    } else {
      header.clear();
      AppendValueHeader(h, &header);
      const rocksdb::Slice value[2] = {header, g.parsed(i).body()};
      ws = batch_.Put(cf, rocksdb::SliceParts(&key, 1), rocksdb::SliceParts(value, 2));
      value_header = header;
      value_body = g.parsed(i).body();
    }
    if (!ws.ok()) return FromRocks(ws, "build a bulk group");
    if (feed != nullptr) {
      const SealedRow& row = g.parsed(i);
      if (!after_same_key && statuses_[j].ok()) {
        // The stored version this row replaces: into its entry, and recorded expired first.
        const std::string_view stored = values_[j].ToStringView();
        ValueHeader old;
        PARTKV_RETURN_IF_ERROR(DecodeValueHeader(stored, &old));
        PARTKV_RETURN_IF_ERROR(feed->Supersede(table_.data().feed(), versions_[j], old.etag_version,
                                               row.partition_key(), row.row_key(), stored));
        if (!exists) {
          feed->Add(ChangeOp::kExpire, now, old.etag_version, row.partition_key(), row.row_key());
        }
      }
      ChangeOp op = ChangeOp::kInsert;
      if (exists) op = mode_ == OpType::kInsertOrMerge ? ChangeOp::kMerge : ChangeOp::kReplace;
      // A later row of the group with this key (InsertOrReplace) replaces this version in the same
      // write: its entry holds the entity; otherwise the row does.
      const bool replaced_here = end < n && g.key(order[end]) == g.key(i);
      if (replaced_here) {
        feed->Add(op, h.timestamp_ticks, h.etag_version, row.partition_key(), row.row_key(),
                  value_header, value_body);
      } else {
        feed->AddByReference(op, h.timestamp_ticks, h.etag_version, row.partition_key(),
                             row.row_key());
      }
    }
    j = end;
  }
  return Status::OK();
}

// Adds the rows before `cut` to the statistics not yet recorded, a run of one PartitionKey (in
// key order) at a time.
void GroupWriter::GatherStatistics(const BulkGroup& g, size_t cut) {
  const std::vector<uint32_t>& order = g.order();
  const size_t n = order.size();
  for (size_t j = 0; j < n;) {
    const uint32_t i = order[j];
    const std::string_view pk = g.parsed(i).partition_key();
    uint64_t rows = 0, bytes = 0;
    size_t end = j;
    for (; end < n && g.physical(order[end]) == g.physical(i) &&
           g.parsed(order[end]).partition_key() == pk;
         ++end) {
      if (order[end] >= cut) continue;
      ++rows;
      bytes += g.key(order[end]).size() + g.parsed(order[end]).body().size();
    }
    j = end;
    if (rows == 0) continue;
    const uint32_t physical_index = g.physical(i);
    char physical[sizeof(uint32_t)];
    std::memcpy(physical, &physical_index, sizeof physical);
    statistics_key_.assign(physical, sizeof physical);
    statistics_key_.append(pk);
    auto it = statistics_.find(std::string_view(statistics_key_));
    if (it == statistics_.end()) {
      it = statistics_.emplace(statistics_key_, Written{physical_index, 0, 0}).first;
    }
    it->second.rows += rows;
    it->second.bytes += bytes;
  }
  if (++statistics_groups_ >= kStatisticsGroups || statistics_.size() >= kStatisticsPartitions) {
    RecordStatistics();
  }
}

void GroupWriter::RecordStatistics() {
  TableStatsCollector& stats = table_.data().stats();
  for (const auto& [key, written] : statistics_) {
    stats.RecordWrite(written.physical, std::string_view(key).substr(sizeof(uint32_t)),
                      written.rows, written.bytes);
  }
  statistics_.clear();
  statistics_groups_ = 0;
}

GroupOutcome GroupWriter::Commit(BulkGroup& group) {
  GroupOutcome out;
  StoreState& store = table_.store();
  const size_t n = group.rows();
  if (n == 0) return out;
  out.status = table_.CheckLive();
  if (out.status.ok()) out.status = group.Prepare(table_.data(), sealer_);
  if (out.status.ok()) out.status = ChargeRuns(group);
  if (!out.status.ok()) return out;
  Result<int64_t> tick = store.IssueTicks(n);
  if (!tick.ok()) {
    out.status = tick.status();
    return out;
  }
  out.first_tick = *tick;

  StoreState::RowLocks locks = store.LockRows(group.keys());
  SharedTable& data = table_.data();
  const bool feed = data.feed().enabled();
  const int64_t ttl = data.ttl_seconds();
  const int64_t now = feed || ttl != kTtlOff ? store.NowTicks() : 0;
  expiry_ = Expiry{ttl, now};
  if (mode_ == OpType::kInsertOrReplace && !feed) {
    // An upsert does not depend on the current rows: nothing to read.
    statuses_.assign(n, rocksdb::Status::NotFound());
  } else {
    out.status = ReadCurrent(group);
    if (!out.status.ok()) return out;
  }
  if (feed) {
    std::vector<std::optional<std::string_view>> rows(n);
    for (size_t j = 0; j < n; ++j) {
      if (statuses_[j].ok()) rows[j] = values_[j].ToStringView();
    }
    out.status = FindRowVersions(store.db(), data.feed(), rows, &versions_);
    if (!out.status.ok()) return out;
  }
  Status conflict;
  if (mode_ == OpType::kInsert) out.bad_row = FirstConflict(group, &conflict);
  // A conflict writes the batches before the conflicting row's, nothing from it on.
  const size_t cut = out.bad_row ? group.batch_start(group.batch_of(*out.bad_row)) : n;
  FeedEntries entries;
  out.status = Build(group, cut, out.first_tick, now, feed ? &entries : nullptr);
  std::optional<ChangeFeed::Reservation> reservation;
  if (out.status.ok() && !entries.empty()) {
    Result<ChangeFeed::Reservation> r = entries.Stage(data.feed(), &batch_);
    if (r.ok()) {
      reservation.emplace(std::move(*r));
    } else {
      out.status = r.status();
    }
  }
  if (out.status.ok()) out.status = store.Write(sync_, &batch_, "write a bulk group");
  reservation.reset();
  locks.clear();
  values_.clear();  // unpins what the reads pinned
  if (!out.status.ok()) {
    out.bad_row.reset();
    return out;
  }
  GatherStatistics(group, cut);
  out.written = cut;
  out.batches = cut == n ? group.batches() : group.batch_of(cut);
  out.status = conflict;
  return out;
}

}  // namespace partkv::engine
