// DataSet (dataset.h): the JSON Lines reader (its chunked line loop in line_file.h), the bounded
// per-attribute summaries and the timeline.

#include "tools/bench/dataset.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "partkv/json.h"
#include "partkv/stored_entity.h"
#include "tools/bench/attribute_tracker.h"
#include "tools/bench/line_file.h"

namespace partkv::compare {
namespace {

constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();
constexpr size_t kNoColumn = std::numeric_limits<size_t>::max();
// The lines whose mean length sizes the per-entity arrays of a file.
constexpr size_t kEntitiesToSize = 1024;
// Names listed in "the attributes present: ..." before "…".
constexpr size_t kMaxListed = 20;
const std::string kPartitionKey = "PartitionKey", kRowKey = "RowKey";
// The Unix seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: DateTime's range.
constexpr int64_t kMinUnixSeconds = -62135596800, kMaxUnixSeconds = 253402300799;
constexpr std::string_view kTimeNeeds =
    "--time needs a DateTime, a DateTime string or Unix seconds";

// Gives back unused capacity past a quarter of the size (doubling leaves up to a half): a copy
// costs a moment's second array, so a small waste is kept.
template <typename T>
void ShrinkIfWasteful(std::vector<T>* v) {
  if (v->capacity() > v->size() + v->size() / 4) v->shrink_to_fit();
}

// The distinct values of one kept attribute. The lookup (ids by open addressing, at most half
// full) exists only while loading: Finish() drops it. Values' hashes are not stored but made
// again when the lookup grows: for a column of unique values that saves 8 bytes an entity.
class ValuePool {
 public:
  uint32_t Intern(const Value& value, uint64_t hash) {
    if ((values_.size() + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t s = hash & mask;; s = (s + 1) & mask) {
      const uint32_t id = slots_[s];
      if (id == kAbsent) {
        slots_[s] = static_cast<uint32_t>(values_.size());
        values_.push_back(value);
        return slots_[s];
      }
      if (values_[id] == value) return id;
    }
  }

  std::vector<Value> Finish() {
    slots_ = {};
    ShrinkIfWasteful(&values_);
    return std::move(values_);
  }

 private:
  void Grow() {
    std::vector<uint32_t> slots(std::max<size_t>(16, slots_.size() * 2), kAbsent);
    const size_t mask = slots.size() - 1;
    for (uint32_t id = 0; id < values_.size(); ++id) {
      size_t s = ValueHash(values_[id]) & mask;
      while (slots[s] != kAbsent) s = (s + 1) & mask;
      slots[s] = id;
    }
    slots_ = std::move(slots);
  }

  std::vector<Value> values_;
  std::vector<uint32_t> slots_;
};

// Everything a DataSet holds; DataSet::Impl is this.
struct Data {
  std::string source;
  std::shared_ptr<const Workload> workload;  // the built-in workload, or null for a file
  UniqueFd file;                             // the file (or stdin's copy), read by MakeEntity
  size_t size = 0;
  std::vector<uint64_t> offsets;  // of each entity's line
  std::vector<uint32_t> lengths;  // of each line, without "\r\n"
  std::vector<uint32_t> lines;    // empty: entity i is on line i + 1
  bool has_time = false;
  std::vector<int64_t> times;  // a file with a time attribute; else see TimeMicros
  double rate = 1000;
  std::vector<std::string> kept;
  std::vector<std::vector<uint32_t>> ids;  // [column][entity]: an id into values, or kAbsent
  std::vector<std::vector<Value>> values;  // [column][id]
  std::vector<size_t> property_columns;    // the columns other than the keys, by name
  size_t partition_key_column = kNoColumn, row_key_column = kNoColumn;
  std::vector<AttributeSummary> attributes;
};

// One pass over the entities: the kept columns, the times and the summaries.
class Collector {
 public:
  Collector(const std::vector<std::string>& keep, std::string time_attribute)
      : time_attribute_(std::move(time_attribute)) {
    for (const std::string& name : keep) {
      if (std::find(kept_.begin(), kept_.end(), name) == kept_.end()) kept_.push_back(name);
    }
    for (size_t c = 0; c < kept_.size(); ++c) column_of_[NewTracker(kept_[c])] = c;
    pools_.resize(kept_.size());
    ids_.resize(kept_.size());
  }

  // The next entity; `line` (1-based) names it in messages.
  Status Add(const Entity& entity, uint64_t line) {
    for (auto& column : ids_) column.push_back(kAbsent);
    if (!entity.partition_key().empty()) {
      if (partition_key_tracker_ == kAbsent) {
        partition_key_tracker_ = TrackerOf(kPartitionKey, kNoColumn);
      }
      Observe(partition_key_tracker_, Value::String(entity.partition_key()));
    }
    if (!entity.row_key().empty()) {
      if (row_key_tracker_ == kAbsent) row_key_tracker_ = TrackerOf(kRowKey, kNoColumn);
      Observe(row_key_tracker_, Value::String(entity.row_key()));
    }
    size_t position = 0;
    for (const auto& [name, value] : entity) Observe(TrackerOf(name, position++), value);
    if (time_attribute_.empty()) return Status::OK();
    Result<int64_t> time = TimeOf(entity);
    if (!time.ok()) {
      return Status::InvalidArgument("line " + std::to_string(line) + ": " +
                                     std::string(time.status().message()));
    }
    times_.push_back(*time);
    return Status::OK();
  }

  // Room for n entities in every per-entity array.
  void Reserve(size_t n) {
    for (auto& column : ids_) column.reserve(n);
    if (!time_attribute_.empty()) times_.reserve(n);
  }

  // OK, or InvalidArgument naming the first kept attribute that no entity has.
  Status CheckKept() const {
    for (const std::string& name : kept_) {
      if (trackers_[tracker_index_.at(name)].present() > 0) continue;
      std::vector<std::string> present;
      for (const AttributeTracker& t : trackers_) {
        if (t.present() > 0) present.push_back(t.name());
      }
      std::sort(present.begin(), present.end());
      std::string list;
      for (size_t k = 0; k < present.size() && k < kMaxListed; ++k) {
        list += (k > 0 ? ", " : "") + present[k];
      }
      if (present.size() > kMaxListed) list += ", …";
      return Status::InvalidArgument("no entity has the attribute '" + name +
                                     "' (the attributes present: " + list + ")");
    }
    return Status::OK();
  }

  // Moves the columns, times and summaries into `data`.
  void Finish(Data* data) {
    data->kept = kept_;
    data->ids = std::move(ids_);
    for (ValuePool& pool : pools_) data->values.push_back(pool.Finish());
    for (size_t c = 0; c < kept_.size(); ++c) {
      if (kept_[c] == kPartitionKey) {
        data->partition_key_column = c;
      } else if (kept_[c] == kRowKey) {
        data->row_key_column = c;
      } else {
        data->property_columns.push_back(c);
      }
    }
    std::sort(data->property_columns.begin(), data->property_columns.end(),
              [&](size_t a, size_t b) { return kept_[a] < kept_[b]; });
    for (const AttributeTracker& t : trackers_) {
      if (t.present() > 0) data->attributes.push_back(t.Summary());
    }
    std::sort(data->attributes.begin(), data->attributes.end(),
              [](const AttributeSummary& a, const AttributeSummary& b) { return a.name < b.name; });
    data->times = std::move(times_);
  }

 private:
  // The tracker of attribute `name`, the `position`-th property of its entity (kNoColumn: not a
  // property), or kAbsent when DataSet::kMaxAttributes names are tracked already. Entities of
  // one file mostly list the same names in the same order: the previous entity's tracker at the
  // same position is tried before the map.
  uint32_t TrackerOf(const std::string& name, size_t position) {
    if (position < recent_.size() && recent_[position] != kAbsent &&
        trackers_[recent_[position]].name() == name) {
      return recent_[position];
    }
    uint32_t t = kAbsent;
    if (auto it = tracker_index_.find(name); it != tracker_index_.end()) {
      t = it->second;
    } else if (trackers_.size() < DataSet::kMaxAttributes) {
      t = NewTracker(name);
    }
    if (position != kNoColumn) {
      if (position >= recent_.size()) recent_.resize(position + 1, kAbsent);
      recent_[position] = t;
    }
    return t;
  }

  uint32_t NewTracker(const std::string& name) {
    const auto t = static_cast<uint32_t>(trackers_.size());
    trackers_.emplace_back(name);
    column_of_.push_back(kNoColumn);
    tracker_index_.emplace(name, t);
    return t;
  }

  void Observe(uint32_t tracker, const Value& value) {
    if (tracker == kAbsent) return;
    const uint64_t hash = ValueHash(value);
    trackers_[tracker].Add(value, hash);
    const size_t column = column_of_[tracker];
    if (column != kNoColumn) ids_[column].back() = pools_[column].Intern(value, hash);
  }

  // Microseconds since the Unix epoch, or why the entity's time attribute is not a time.
  Result<int64_t> TimeOf(const Entity& entity) const {
    const std::string& name = time_attribute_;
    std::optional<Value> key;
    const Value* v = nullptr;
    if (name == kPartitionKey || name == kRowKey) {
      const std::string& text = name == kPartitionKey ? entity.partition_key() : entity.row_key();
      if (!text.empty()) v = &key.emplace(Value::String(text));
    } else {
      v = entity.Get(name);
    }
    auto fail = [&](const std::string& why) {
      return Status::InvalidArgument("attribute '" + name + "' " + why);
    };
    if (v == nullptr) return fail("is missing (it orders the timeline: --time)");
    switch (v->type()) {
      case Type::kDateTime:
        return v->as_datetime().ToUnixMicros();
      case Type::kString: {
        Result<DateTime> t = DateTime::Parse(v->as_string());
        if (t.ok()) return t->ToUnixMicros();
        std::string shown = v->as_string().substr(0, 40);
        if (shown.size() < v->as_string().size()) shown += "…";
        return fail("is the String '" + shown + "', which is not a DateTime (" +
                    std::string(t.status().message()) + "); " + std::string(kTimeNeeds));
      }
      case Type::kInt32:
      case Type::kInt64: {
        const int64_t s = v->type() == Type::kInt32 ? v->as_int32() : v->as_int64();
        if (s >= kMinUnixSeconds && s <= kMaxUnixSeconds) return s * 1000000;
        return fail("is " + std::to_string(s) + ", outside the Unix seconds of the years 1-9999; " +
                    std::string(kTimeNeeds));
      }
      default:
        return fail("is " + std::string(TypeName(v->type())) + "; " + std::string(kTimeNeeds));
    }
  }

  std::vector<std::string> kept_;
  std::string time_attribute_;
  std::vector<AttributeTracker> trackers_;
  std::unordered_map<std::string, uint32_t> tracker_index_;
  std::vector<uint32_t> recent_;   // the tracker of the previous entity's property at each position
  std::vector<size_t> column_of_;  // by tracker: its column, or kNoColumn
  std::vector<ValuePool> pools_;   // by column
  std::vector<std::vector<uint32_t>> ids_;
  std::vector<int64_t> times_;
  uint32_t partition_key_tracker_ = kAbsent, row_key_tracker_ = kAbsent;
};

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

// Stable: equal times keep their file order. Each array is permuted in turn, so the peak is one
// array's copy, not all of them.
void SortByTime(Data* data) {
  if (std::is_sorted(data->times.begin(), data->times.end())) return;
  std::vector<uint32_t> order(data->size);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return data->times[a] < data->times[b]; });
  auto permute = [&](auto* v) {
    std::remove_reference_t<decltype(*v)> out;
    out.reserve(v->size());
    for (uint32_t i : order) out.push_back((*v)[i]);
    *v = std::move(out);
  };
  permute(&data->times);
  permute(&data->offsets);
  permute(&data->lengths);
  for (auto& column : data->ids) permute(&column);
  data->lines.resize(data->size);
  for (size_t k = 0; k < order.size(); ++k) data->lines[k] = order[k] + 1;
}

// Load's pass over `input` (copied to `spool` when >= 0).
Result<Data> Read(int input, int spool, std::string source, const DataSetOptions& options) {
  if (options.time_attribute.empty() &&
      !(std::isfinite(options.default_rate) && options.default_rate > 0)) {
    return Status::InvalidArgument(
        "the default rate must be a positive number of entities per "
        "second, not " +
        std::to_string(options.default_rate));
  }
  Data data;
  data.source = std::move(source);
  Collector collector(options.keep, options.time_attribute);
  uint64_t bytes = 0, blank_line = 0;
  // The per-entity arrays are sized once from the first lines' mean length, for a file whose
  // size is known: doubling leaves up to half of each unused, and each doubling briefly holds
  // two copies.
  struct stat st;
  const uint64_t file_bytes =
      spool < 0 && ::fstat(input, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
  auto reserve = [&](uint64_t bytes_so_far) {
    const double estimate = 1.05 * static_cast<double>(file_bytes) *
                                static_cast<double>(kEntitiesToSize) /
                                static_cast<double>(bytes_so_far) +
                            kEntitiesToSize;
    const size_t n = static_cast<size_t>(std::min(estimate, double{kAbsent - 1}));
    data.offsets.reserve(n);
    data.lengths.reserve(n);
    collector.Reserve(n);
  };
  auto on_line = [&](uint64_t offset, std::string_view text, uint64_t line) -> Status {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (line == 1 && text.starts_with("\xEF\xBB\xBF")) {  // a UTF-8 byte order mark
      text.remove_prefix(3);
      offset += 3;
    }
    if (IsBlank(text)) {
      if (blank_line == 0) blank_line = line;
      return Status::OK();
    }
    auto where = [line] { return "line " + std::to_string(line) + ": "; };
    if (blank_line != 0) {
      return Status::InvalidArgument("line " + std::to_string(blank_line) +
                                     ": empty line (one entity per line)");
    }
    if (data.offsets.size() >= kAbsent - 1) {
      return Status::InvalidArgument(where() + "more than 4294967294 entities; split the file");
    }
    if (text.size() > std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArgument(where() + "a line longer than 4 GiB");
    }
    Result<Entity> entity = EntityFromJson(text);
    if (!entity.ok()) {
      return Status::InvalidArgument(where() + std::string(entity.status().message()));
    }
    PARTKV_RETURN_IF_ERROR(collector.Add(*entity, line));
    data.offsets.push_back(offset);
    data.lengths.push_back(static_cast<uint32_t>(text.size()));
    if (data.offsets.size() == kEntitiesToSize && file_bytes > 0) reserve(offset + text.size());
    return Status::OK();
  };
  PARTKV_RETURN_IF_ERROR(ForEachLine(input, spool, data.source, &bytes, on_line));
  if (data.offsets.empty()) {
    return Status::InvalidArgument(data.source + ": no entities (" +
                                   (bytes > 0    ? "only blank lines"
                                    : spool >= 0 ? "the input is empty"
                                                 : "the file is empty") +
                                   ")");
  }
  PARTKV_RETURN_IF_ERROR(collector.CheckKept());
  data.size = data.offsets.size();
  ShrinkIfWasteful(&data.offsets);
  ShrinkIfWasteful(&data.lengths);
  collector.Finish(&data);
  for (auto& column : data.ids) ShrinkIfWasteful(&column);
  data.has_time = !options.time_attribute.empty();
  data.rate = options.default_rate;
  if (data.has_time) SortByTime(&data);
  return data;
}

}  // namespace

struct DataSet::Impl : Data {
  explicit Impl(Data data) : Data(std::move(data)) {}
};

DataSet::DataSet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DataSet::DataSet(DataSet&&) noexcept = default;
DataSet& DataSet::operator=(DataSet&&) noexcept = default;
DataSet::~DataSet() = default;

namespace internal {

Result<DataSet> LoadSpooling(int input_fd, const DataSetOptions& options) {
  std::string dir = options.spool_dir;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string path = dir + "/partkv-bench-stdin-XXXXXX";
  UniqueFd spool(::mkostemp(path.data(), O_CLOEXEC));
  if (spool.get() < 0) {
    return Status::IOError("cannot create a file in " + dir + " to hold stdin: " + Errno());
  }
  ::unlink(path.c_str());  // the descriptor keeps it for as long as the DataSet lives
  const std::string source = options.path == "-" || options.path.empty() ? "stdin" : options.path;
  PARTKV_ASSIGN_OR_RETURN(Data data, Read(input_fd, spool.get(), source, options));
  data.file = std::move(spool);
  return DataSet(std::make_unique<DataSet::Impl>(std::move(data)));
}

}  // namespace internal

Result<DataSet> DataSet::Load(const DataSetOptions& options) {
  if (options.path == "-") return internal::LoadSpooling(STDIN_FILENO, options);
  UniqueFd file(::open(options.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) return Status::IOError("cannot open " + options.path + ": " + Errno());
  ::posix_fadvise(file.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  PARTKV_ASSIGN_OR_RETURN(Data data, Read(file.get(), -1, options.path, options));
  data.file = std::move(file);
  return DataSet(std::make_unique<Impl>(std::move(data)));
}

DataSet DataSet::FromWorkload(std::shared_ptr<const Workload> workload) {
  // The summaries come from every entity, not a sample: about 4 µs an event with the entity's
  // making, so under a second at the default 200,000 events.
  Collector collector({"date", "deviceId", "orderId", "time"}, "");
  for (size_t i = 0; i < workload->size(); ++i) {
    (void)collector.Add(workload->MakeEntity(i), 0);  // OK without a time attribute
  }
  Data data;
  data.source = "built-in workload";
  data.size = workload->size();
  data.has_time = true;
  collector.Finish(&data);  // every entity has the four attributes
  data.workload = std::move(workload);
  return DataSet(std::make_unique<Impl>(std::move(data)));
}

size_t DataSet::size() const { return impl_->size; }

const std::vector<std::string>& DataSet::kept() const { return impl_->kept; }

std::optional<size_t> DataSet::Column(std::string_view name) const {
  const auto& kept = impl_->kept;
  const auto it = std::find(kept.begin(), kept.end(), name);
  if (it == kept.end()) return std::nullopt;
  return static_cast<size_t>(it - kept.begin());
}

const Value* DataSet::Get(size_t i, size_t column) const {
  const uint32_t id = impl_->ids[column][i];
  return id == kAbsent ? nullptr : &impl_->values[column][id];
}

Entity DataSet::Attributes(size_t i) const {
  Entity e;
  if (impl_->partition_key_column != kNoColumn) {
    if (const Value* v = Get(i, impl_->partition_key_column)) e.set_partition_key(v->as_string());
  }
  if (impl_->row_key_column != kNoColumn) {
    if (const Value* v = Get(i, impl_->row_key_column)) e.set_row_key(v->as_string());
  }
  e.ReserveProperties(impl_->property_columns.size());
  for (size_t c : impl_->property_columns) {  // in name order, as AppendSorted requires
    if (const Value* v = Get(i, c)) e.AppendSorted(impl_->kept[c], *v);
  }
  return e;
}

Result<Entity> DataSet::MakeEntity(size_t i) const {
  if (impl_->workload) return impl_->workload->MakeEntity(i);
  auto where = [&] { return impl_->source + ": line " + std::to_string(Line(i)); };
  std::string text(impl_->lengths[i], '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pread(impl_->file.get(), text.data() + done, text.size() - done,
                              static_cast<off_t>(impl_->offsets[i] + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError(where() + " cannot be read again: " + Errno());
    if (n == 0) return Status::IOError(where() + " is gone: the file is shorter than when loaded");
    done += static_cast<size_t>(n);
  }
  Result<Entity> entity = EntityFromJson(text);
  if (!entity.ok()) {
    return Status::IOError(
        where() + " changed since it was loaded: " + std::string(entity.status().message()));
  }
  return entity;
}

uint64_t DataSet::Line(size_t i) const {
  if (impl_->workload) return 0;
  return impl_->lines.empty() ? i + 1 : impl_->lines[i];
}

int64_t DataSet::TimeMicros(size_t i) const {
  if (impl_->workload) return impl_->workload->events()[i].unix_micros;
  if (impl_->has_time) return impl_->times[i];
  return Workload::kStartUnixSeconds * 1000000 +
         static_cast<int64_t>(static_cast<double>(i) * 1e6 / impl_->rate);
}

bool DataSet::has_time() const { return impl_->has_time; }

const std::vector<AttributeSummary>& DataSet::attributes() const { return impl_->attributes; }

Workload::SizeStats DataSet::SampleValueSizes(size_t sample) const {
  Workload::SizeStats s;
  const size_t n = std::min(sample, size());
  if (n == 0) return s;
  const size_t step = size() / n;
  double sum = 0;
  size_t measured = 0;
  s.min = SIZE_MAX;
  for (size_t k = 0; k < n; ++k) {
    Result<Entity> e = MakeEntity(k * step);
    if (!e.ok()) continue;  // a file changed since: the writes will say so
    const size_t value = EncodeStoredEntity(*e, DateTime{0}, 1).value.size();
    sum += static_cast<double>(value);
    s.min = std::min(s.min, value);
    s.max = std::max(s.max, value);
    ++measured;
  }
  if (measured == 0) return Workload::SizeStats{};
  s.mean = sum / static_cast<double>(measured);
  return s;
}

const std::string& DataSet::source() const { return impl_->source; }

}  // namespace partkv::compare
