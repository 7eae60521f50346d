#include "engine/local/bulk_stage.h"

#include <algorithm>

#include "engine/key_codec.h"
#include "engine/local/rocks_status.h"
#include "engine/local/table_handle.h"

namespace partkv::engine {
namespace {

// Runs are read through a buffer of this size each, so a merge of kFanIn runs holds 16 MiB.
constexpr size_t kReadBytes = 256u << 10;
// Entries are written to the spill file through a buffer of this size.
constexpr size_t kWriteBytes = 1u << 20;
// Keys looked up by one MultiGet of FindFirstConflict.
constexpr size_t kLookupKeys = 1024;

bool Get(std::string_view data, size_t* pos, uint64_t* v, bool* partial) {
  switch (GetVarint(data, pos, v)) {
    case VarintRead::kOk:
      return true;
    case VarintRead::kPartial:
      *partial = true;
      return false;
    case VarintRead::kBad:
      return false;
  }
  return false;
}

// Reads the entry at the start of `data`. False with *partial when `data` holds only its
// beginning; Corruption when it is malformed or its row's seal does not hold.
Result<bool> ParseEntry(const RowSealer& sealer, std::string_view data, StagedRow* row,
                        bool* partial) {
  *partial = false;
  size_t pos = 0;
  uint64_t key_size = 0, physical = 0;
  bool ok = Get(data, &pos, &key_size, partial);
  if (ok && key_size > data.size() - pos) {
    *partial = true;
    return false;
  }
  if (ok) {
    row->key = data.substr(pos, key_size);
    pos += key_size;
    ok = Get(data, &pos, &physical, partial) && Get(data, &pos, &row->position, partial) &&
         Get(data, &pos, &row->batch, partial) && Get(data, &pos, &row->batch_offset, partial) &&
         Get(data, &pos, &row->line, partial);
  }
  if (*partial) return false;
  if (!ok) return Status::Corruption("a staged row of a bulk write is malformed");
  row->physical = static_cast<uint32_t>(physical);
  PARTKV_ASSIGN_OR_RETURN(bool whole, sealer.Parse(data.substr(pos), &row->row));
  if (!whole) {
    *partial = true;
    return false;
  }
  row->bytes = data.substr(0, pos + row->row.bytes().size());
  return true;
}

}  // namespace

Result<std::unique_ptr<BulkStage>> BulkStage::Create(const TableHandle& table,
                                                     const RowSealer& sealer,
                                                     const std::string& directory, size_t run_bytes,
                                                     size_t fan_in) {
  PARTKV_ASSIGN_OR_RETURN(SpillFile file, SpillFile::Create(directory));
  return std::unique_ptr<BulkStage>(
      new BulkStage(table, sealer, std::move(file), run_bytes, std::max<size_t>(2, fan_in)));
}

BulkStage::BulkStage(const TableHandle& table, const RowSealer& sealer, SpillFile file,
                     size_t run_bytes, size_t fan_in)
    : table_(table),
      sealer_(sealer),
      file_(std::move(file)),
      run_bytes_(run_bytes),
      fan_in_(fan_in),
      cutter_(table.data().limits()) {
  // Grown by doubling, the buffer would be copied and fresh pages touched a dozen times.
  buffer_.reserve(run_bytes_ + (1u << 20));
}

Status BulkStage::Add(const SealedRow& row, uint64_t position, uint64_t line) {
  if (cutter_.Add(row)) ++batches_;
  const SharedTable& data = table_.data();
  if (rows_ == 0 || row.partition_key() != last_partition_key_) {
    last_partition_key_.assign(row.partition_key());
    last_physical_ = static_cast<uint32_t>(data.PartitionIndexOf(row.partition_key()));
  }
  ++rows_;
  Entry e;
  e.begin = buffer_.size();
  e.position = position;
  key_.assign(data.partitions()[last_physical_].prefix);
  AppendEntityKey(row.partition_key(), row.row_key(), &key_);
  PutVarint(key_.size(), &buffer_);
  e.key_begin = buffer_.size();
  e.key_size = key_.size();
  buffer_ += key_;
  PutVarint(last_physical_, &buffer_);
  PutVarint(position, &buffer_);
  PutVarint(batches_ - 1, &buffer_);
  PutVarint(cutter_.offset(), &buffer_);
  PutVarint(line, &buffer_);
  buffer_.append(row.bytes());
  e.size = buffer_.size() - e.begin;
  entries_.push_back(e);
  return buffer_.size() >= run_bytes_ ? SpillRun() : Status::OK();
}

Status BulkStage::SpillRun() {
  if (entries_.empty()) return Status::OK();
  auto key = [&](const Entry& e) {
    return std::string_view(buffer_).substr(e.key_begin, e.key_size);
  };
  std::sort(entries_.begin(), entries_.end(), [&](const Entry& a, const Entry& b) {
    int c = key(a).compare(key(b));
    return c < 0 || (c == 0 && a.position < b.position);
  });
  Run run{file_.size(), 0};
  std::string out;
  out.reserve(kWriteBytes + (1u << 16));
  for (const Entry& e : entries_) {
    out.append(buffer_, e.begin, e.size);
    if (out.size() >= kWriteBytes) {
      PARTKV_RETURN_IF_ERROR(file_.Append(out));
      out.clear();
    }
  }
  PARTKV_RETURN_IF_ERROR(file_.Append(out));
  run.size = file_.size() - run.offset;
  runs_.push_back(run);
  buffer_.clear();
  entries_.clear();
  return Status::OK();
}

Status BulkStage::Close() {
  if (closed_) return Status::OK();
  PARTKV_RETURN_IF_ERROR(SpillRun());
  closed_ = true;
  std::string().swap(buffer_);  // the run buffer's memory is not needed any more
  std::vector<Entry>().swap(entries_);
  return Status::OK();
}

Status BulkStage::MergeRuns(size_t count) {
  std::vector<Run> merged(runs_.begin(), runs_.begin() + static_cast<ptrdiff_t>(count));
  Reader reader(file_, sealer_, merged);
  Run run{file_.size(), 0};
  std::string out;
  StagedRow row;
  while (true) {
    PARTKV_ASSIGN_OR_RETURN(bool more, reader.Next(&row));
    if (more) out.append(row.bytes);
    if (!more || out.size() >= kWriteBytes) {
      PARTKV_RETURN_IF_ERROR(file_.Append(out));
      out.clear();
    }
    if (!more) break;
  }
  run.size = file_.size() - run.offset;
  runs_.erase(runs_.begin(), runs_.begin() + static_cast<ptrdiff_t>(count));
  runs_.push_back(run);
  ++merges_;
  return Status::OK();
}

Result<std::unique_ptr<BulkStage::Reader>> BulkStage::Read() {
  while (runs_.size() > fan_in_) PARTKV_RETURN_IF_ERROR(MergeRuns(fan_in_));
  return std::unique_ptr<Reader>(new Reader(file_, sealer_, runs_));
}

BulkStage::Reader::Reader(const SpillFile& file, const RowSealer& sealer,
                          const std::vector<Run>& runs)
    : file_(file), sealer_(sealer), cursors_(runs.size()) {
  for (size_t i = 0; i < runs.size(); ++i) cursors_[i].run = runs[i];
}

Result<bool> BulkStage::Reader::Load(Cursor& c) {
  while (true) {
    bool partial = false;
    PARTKV_ASSIGN_OR_RETURN(
        bool whole,
        ParseEntry(sealer_, std::string_view(c.buffer).substr(c.pos), &c.current, &partial));
    if (whole) return true;
    if (c.consumed == c.run.size) {
      if (c.pos == c.buffer.size()) return false;
      return Status::Corruption("a run of a bulk write's spill file ends inside a row");
    }
    c.buffer.erase(0, c.pos);
    c.pos = 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kReadBytes, c.run.size - c.consumed));
    const size_t before = c.buffer.size();
    PARTKV_RETURN_IF_ERROR(file_.ReadAt(c.run.offset + c.consumed, n, &c.buffer));
    if (c.buffer.size() - before != n) {
      return Status::Corruption("a bulk write's spill file is shorter than what was written");
    }
    c.consumed += n;
  }
}

bool BulkStage::Reader::After(size_t a, size_t b) const {
  const StagedRow& x = cursors_[a].current;
  const StagedRow& y = cursors_[b].current;
  int c = x.key.compare(y.key);
  return c > 0 || (c == 0 && x.position > y.position);
}

Result<bool> BulkStage::Reader::Next(StagedRow* row) {
  auto after = [this](size_t a, size_t b) { return After(a, b); };
  if (!started_) {
    started_ = true;
    for (size_t i = 0; i < cursors_.size(); ++i) {
      PARTKV_ASSIGN_OR_RETURN(bool any, Load(cursors_[i]));
      if (any) heap_.push_back(i);
    }
    std::make_heap(heap_.begin(), heap_.end(), after);
  } else if (last_) {
    Cursor& c = cursors_[*last_];
    c.pos += c.current.bytes.size();
    PARTKV_ASSIGN_OR_RETURN(bool more, Load(c));
    if (more) {
      heap_.push_back(*last_);
      std::push_heap(heap_.begin(), heap_.end(), after);
    }
    last_.reset();
  }
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), after);
  last_ = heap_.back();
  heap_.pop_back();
  *row = cursors_[*last_].current;
  return true;
}

GroupFeed::GroupFeed(BulkStage& stage, const SharedTable& data, const RowSealer& sealer,
                     uint64_t cut, size_t max_rows, size_t max_bytes)
    : stage_(stage),
      data_(data),
      sealer_(sealer),
      cut_(cut),
      max_rows_(max_rows),
      max_bytes_(max_bytes) {
  for (int i = 0; i < 3; ++i) {
    // Staged rows come in key order: their groups have no batches of their own.
    groups_.push_back(std::make_unique<BulkGroup>(data, /*cut_batches=*/false));
    free_.push_back(groups_.back().get());
  }
  thread_ = std::thread([this] { Run(); });
}

GroupFeed::~GroupFeed() {
  {
    port::MutexLock lock(&mu_);
    stop_ = true;
  }
  changed_.SignalAll();
  thread_.join();
}

Result<BulkGroup*> GroupFeed::Next() {
  port::MutexLock lock(&mu_);
  while (ready_.empty() && !done_) changed_.Wait();
  if (!ready_.empty()) {
    BulkGroup* group = ready_.front();
    ready_.pop_front();
    return group;
  }
  if (!status_.ok()) return status_;
  return static_cast<BulkGroup*>(nullptr);
}

void GroupFeed::Done(BulkGroup* group) {
  group->Clear();
  {
    port::MutexLock lock(&mu_);
    free_.push_back(group);
  }
  changed_.SignalAll();
}

uint64_t GroupFeed::cut_line() const {
  port::MutexLock lock(&mu_);
  return cut_line_;
}

void GroupFeed::Run() {
  Status s = Fill();
  {
    port::MutexLock lock(&mu_);
    done_ = true;
    status_ = std::move(s);
  }
  changed_.SignalAll();
}

Status GroupFeed::Fill() {
  PARTKV_ASSIGN_OR_RETURN(std::unique_ptr<BulkStage::Reader> reader, stage_.Read());
  BulkGroup* group = nullptr;
  // Hands the group over prepared, and waits for an empty one; false when told to stop.
  auto hand_over = [&]() -> Result<bool> {
    if (group != nullptr && !group->empty()) {
      PARTKV_RETURN_IF_ERROR(group->Prepare(data_, sealer_));
      port::MutexLock lock(&mu_);
      ready_.push_back(group);
      group = nullptr;
    }
    changed_.SignalAll();
    port::MutexLock lock(&mu_);
    while (!stop_ && free_.empty()) changed_.Wait();
    if (stop_) return false;
    if (group == nullptr) {
      group = free_.back();
      free_.pop_back();
    }
    return true;
  };
  PARTKV_ASSIGN_OR_RETURN(bool go, hand_over());
  StagedRow row;
  while (go) {
    PARTKV_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    if (row.position >= cut_) {
      if (row.position == cut_) {
        port::MutexLock lock(&mu_);
        cut_line_ = row.line;
      }
      continue;
    }
    if (group->Full(row.row, max_rows_, max_bytes_)) {
      PARTKV_ASSIGN_OR_RETURN(go, hand_over());
      if (!go) break;
    }
    group->Append(row.row, row.position, row.line);
  }
  if (go && group != nullptr && !group->empty()) {
    PARTKV_RETURN_IF_ERROR(group->Prepare(data_, sealer_));
    port::MutexLock lock(&mu_);
    ready_.push_back(group);
  }
  return Status::OK();
}

Result<std::optional<StagedConflict>> FindFirstConflict(BulkStage& stage,
                                                        const TableHandle& table) {
  const SharedTable& data = table.data();
  PARTKV_ASSIGN_OR_RETURN(std::unique_ptr<BulkStage::Reader> reader, stage.Read());
  std::optional<StagedConflict> first;
  std::string first_key;  // its key, for its message
  bool first_repeated = false;
  auto consider = [&](const StagedRow& row, std::string_view key, bool repeated) {
    if (first && first->position <= row.position) return;
    first = StagedConflict{row.position, row.batch, row.batch_offset, row.line, Status::OK()};
    first_key.assign(key);
    first_repeated = repeated;
  };
  // Keys of one physical partition waiting for their MultiGet, with their rows' places.
  std::string keys;
  std::vector<size_t> key_ends;
  std::vector<StagedRow> waiting;
  uint32_t waiting_physical = 0;
  std::vector<rocksdb::Slice> slices;
  std::vector<rocksdb::PinnableSlice> values;
  std::vector<rocksdb::Status> statuses;
  auto look_up = [&]() -> Status {
    const size_t n = waiting.size();
    if (n == 0) return Status::OK();
    slices.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const size_t begin = i == 0 ? 0 : key_ends[i - 1];
      slices[i] = rocksdb::Slice(keys.data() + begin, key_ends[i] - begin);
    }
    values.resize(n);
    statuses.resize(n);
    table.store().db()->MultiGet(rocksdb::ReadOptions(), data.partitions()[waiting_physical].cf, n,
                                 slices.data(), values.data(), statuses.data(),
                                 /*sorted_input=*/true);
    for (size_t i = 0; i < n; ++i) {
      if (statuses[i].ok()) {
        consider(waiting[i], slices[i].ToStringView(), false);
      } else if (!statuses[i].IsNotFound()) {
        return FromRocks(statuses[i], "read entity");
      }
    }
    values.clear();
    keys.clear();
    key_ends.clear();
    waiting.clear();
    return Status::OK();
  };
  std::string previous;
  StagedRow row;
  while (true) {
    PARTKV_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    const bool repeated = !previous.empty() && row.key == previous;
    previous.assign(row.key);
    if (repeated) {
      consider(row, row.key, true);
      continue;
    }
    if (!waiting.empty() && (row.physical != waiting_physical || waiting.size() >= kLookupKeys)) {
      PARTKV_RETURN_IF_ERROR(look_up());
    }
    waiting_physical = row.physical;
    keys.append(row.key);
    key_ends.push_back(keys.size());
    waiting.push_back(row);  // the row's views are not used after Next, only its numbers
  }
  PARTKV_RETURN_IF_ERROR(look_up());
  if (!first) return first;
  std::string pk, rk;
  const size_t prefix = data.partitions()[0].prefix.size();
  PARTKV_RETURN_IF_ERROR(DecodeEntityKey(std::string_view(first_key).substr(prefix), &pk, &rk));
  first->error = first_repeated ? RepeatedInsert(pk, rk) : EntityExists(pk, rk);
  return first;
}

}  // namespace partkv::engine
