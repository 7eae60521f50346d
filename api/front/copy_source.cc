#include "api/front/copy_source.h"

#include <algorithm>

#include "api/front/front_access.h"

namespace partkv::copy {
namespace {

// Rows and stored bytes a local unit reads at a time.
constexpr size_t kChunkRows = 1024;
constexpr size_t kChunkBytes = 4u << 20;

class LocalUnit : public UnitReader {
 public:
  LocalUnit(std::shared_ptr<const engine::TableSnapshot> snapshot, uint32_t index,
            const std::optional<std::pair<std::string, std::string>>& after, const Filter& filter)
      : reader_(std::move(snapshot), index, after), filter_(filter) {}

  Status Next(std::vector<Entity>* out) override {
    for (;;) {
      PARTKV_RETURN_IF_ERROR(reader_.Next(kChunkRows, kChunkBytes, out));
      if (out->empty() || filter_.empty()) return Status::OK();
      size_t kept = 0;
      for (size_t i = 0; i < out->size(); ++i) {
        if (!filter_.Matches((*out)[i])) continue;
        if (kept != i) std::swap((*out)[kept], (*out)[i]);
        ++kept;
      }
      out->resize(kept);
      if (kept > 0) return Status::OK();
    }
  }
  uint64_t bytes_read() const override { return reader_.bytes_read(); }

 private:
  engine::PartitionReader reader_;
  const Filter& filter_;
};

// Reads PartitionKeys [lower, upper) ("" = unbounded) with paged queries; after a resumed key,
// first the rest of its partition, then the partitions after it.
class RemoteUnit : public UnitReader {
 public:
  RemoteUnit(const Table& from, const CopyMapper& mapper, std::string lower, std::string upper,
             const std::optional<std::pair<std::string, std::string>>& after)
      : from_(from) {
    base_.filter = mapper.filter().Canonical();
    base_.select = mapper.read_select();
    base_.page_size = Query::kMaxPageSize;
    if (!upper.empty()) base_.partition_upper = Bound::Exclusive(std::move(upper));
    if (after) {
      Query rest_of_partition = base_;
      rest_of_partition.partition_upper.reset();
      rest_of_partition.partition_key = after->first;
      rest_of_partition.row_lower = Bound::Exclusive(after->second);
      queries_.push_back(std::move(rest_of_partition));
      base_.partition_lower = Bound::Exclusive(after->first);
    } else if (!lower.empty()) {
      base_.partition_lower = Bound::Inclusive(std::move(lower));
    }
    queries_.push_back(base_);
  }

  Status Next(std::vector<Entity>* out) override {
    while (next_query_ < queries_.size()) {
      Query& query = queries_[next_query_];
      PARTKV_RETURN_IF_ERROR(from_.QueryEntities(query, &page_));
      if (page_.has_more()) {
        query.continuation = page_.continuation;
      } else {
        ++next_query_;
      }
      if (!page_.entities.empty()) {
        out->swap(page_.entities);
        return Status::OK();
      }
    }
    out->clear();
    return Status::OK();
  }

 private:
  Table from_;
  Query base_;
  std::vector<Query> queries_;
  size_t next_query_ = 0;
  Page page_;
};

// The byte length of the UTF-8 character starting with `lead` (1 for a stray byte).
size_t CharLength(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

uint32_t DecodeChar(std::string_view c) {
  const auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(c[i])); };
  switch (c.size()) {
    case 1:
      return b(0);
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

std::string EncodeChar(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// The character after `c` (a whole UTF-8 character), skipping surrogates; "" after U+10FFFF.
std::string NextChar(std::string_view c) {
  uint32_t cp = DecodeChar(c) + 1;
  if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
  if (cp > 0x10FFFF) return "";
  return EncodeChar(cp);
}

// The smallest string after every string that starts with `prefix` ("" when there is none).
std::string PrefixUpper(std::string prefix) {
  while (!prefix.empty()) {
    size_t start = prefix.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(prefix[start]) & 0xC0) == 0x80) --start;
    const std::string next = NextChar(std::string_view(prefix).substr(start));
    prefix.resize(start);
    if (!next.empty()) return prefix + next;
  }
  return "";
}

// Finds where a remote source's keys are by asking for the first PartitionKey at or after a
// string: a prefix's children are its keys' distinct next characters, found one query each.
class RangeProber {
 public:
  RangeProber(const Table& from, uint64_t* probes) : from_(from), probes_(probes) {}

  struct Leaf {
    std::string prefix;
    bool exact = false;  // a key equal to the prefix: nothing below it to split
  };

  // The children of `prefix` (the key equal to it first), in key order.
  Result<std::vector<Leaf>> Children(const std::string& prefix) {
    std::vector<Leaf> children;
    const std::string upper = PrefixUpper(prefix);
    std::string at = prefix;
    while (*probes_ < kMaxRangeProbes) {
      PARTKV_ASSIGN_OR_RETURN(std::optional<std::string> key, FirstAtLeast(at, upper));
      if (!key) break;
      if (*key == prefix) {
        children.push_back({prefix, true});
        // Keys hold no control characters: the next key after `prefix` is at least prefix + ' '.
        at = prefix + " ";
        continue;
      }
      if (*key < at && !prefix.empty()) {
        return Status::IOError("the remote source answered a probe for PartitionKeys from " +
                               KeyText(at, "") + " with the key " + KeyText(*key, ""));
      }
      // A key past the prefix: Azure orders keys by UTF-16 code units, where the characters
      // U+10000 and above (surrogate pairs) sort before U+E000..U+FFFF, so the upper bound of a
      // prefix ending in U+D7FF lets them through.
      if (key->compare(0, prefix.size(), prefix) != 0 || key->size() <= prefix.size()) break;
      const size_t length = std::min(CharLength(static_cast<unsigned char>((*key)[prefix.size()])),
                                     key->size() - prefix.size());
      const std::string c = key->substr(prefix.size(), length);
      // Only characters below U+D800 make boundaries: below it UTF-16 order (Azure's, Azurite's)
      // and code point order (partkv's) agree, so a range holds the same keys on every service.
      // The keys from the first character above it on stay in the range before them.
      if (DecodeChar(c) >= 0xD800) break;
      children.push_back({prefix + c, false});
      const std::string next = NextChar(c);
      if (next.empty()) break;
      at = prefix + next;
    }
    return children;
  }

 private:
  Result<std::optional<std::string>> FirstAtLeast(const std::string& lower,
                                                  const std::string& upper) {
    Query query;
    query.page_size = 1;
    query.select = {"PartitionKey"};
    if (!lower.empty()) query.partition_lower = Bound::Inclusive(lower);
    if (!upper.empty()) query.partition_upper = Bound::Exclusive(upper);
    Page page;
    do {
      if (*probes_ >= kMaxRangeProbes) return std::optional<std::string>();
      ++*probes_;
      PARTKV_RETURN_IF_ERROR(from_.QueryEntities(query, &page));
      if (!page.entities.empty())
        return std::optional<std::string>(page.entities[0].partition_key());
      query.continuation = page.continuation;
    } while (page.has_more());
    return std::optional<std::string>();
  }

  Table from_;
  uint64_t* probes_;
};

}  // namespace

Result<Source> Source::Open(const Table& from, const CopyMapper& mapper) {
  Source source(from, mapper);
  if (engine::TableHandle* local = FrontAccess::LocalOf(from)) {
    PARTKV_ASSIGN_OR_RETURN(source.snapshot_, engine::TableSnapshot::Take(*local));
  }
  return source;
}

SourceLayout Source::LocalLayout() const {
  SourceLayout layout;
  layout.local = true;
  layout.partitions = snapshot_->partitions();
  return layout;
}

uint64_t Source::ApproximateBytes() const {
  if (!snapshot_) return 0;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < snapshot_->partitions(); ++i) bytes += snapshot_->ApproximateBytes(i);
  return bytes;
}

Result<SourceLayout> Source::PlanRemoteRanges(uint32_t units, uint64_t* probes) const {
  SourceLayout layout;
  layout.local = false;
  std::vector<RangeProber::Leaf> leaves;
  if (units > 1) {
    RangeProber prober(from_, probes);
    PARTKV_ASSIGN_OR_RETURN(leaves, prober.Children(""));
    // Deepen every splittable leaf, a level at a time, until there are enough to cut `units`
    // ranges from or the probes run out.
    while (leaves.size() < units && *probes < kMaxRangeProbes) {
      std::vector<RangeProber::Leaf> deeper;
      bool deepened = false;
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (leaves[i].exact || *probes >= kMaxRangeProbes) {
          deeper.push_back(leaves[i]);
          continue;
        }
        PARTKV_ASSIGN_OR_RETURN(std::vector<RangeProber::Leaf> children,
                                prober.Children(leaves[i].prefix));
        if (children.empty()) {  // nothing to split it by (or the probes ran out)
          deeper.push_back({leaves[i].prefix, true});
          continue;
        }
        deepened = true;
        for (auto& child : children) deeper.push_back(std::move(child));
      }
      leaves = std::move(deeper);
      if (!deepened) break;  // every leaf is a whole key
    }
  }
  // Cut the leaves into `units` runs of about equal numbers: each run is a range from its first
  // leaf to the next run's first leaf; the first range starts at the beginning and the last
  // ends at the end, so every key is in exactly one range whatever is written meanwhile.
  const size_t n = std::max<size_t>(1, std::min<size_t>(units, leaves.size()));
  std::vector<std::string> starts = {""};
  for (size_t j = 1; j < n; ++j) starts.push_back(leaves[j * leaves.size() / n].prefix);
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  for (size_t j = 0; j < starts.size(); ++j) {
    layout.ranges.emplace_back(starts[j], j + 1 < starts.size() ? starts[j + 1] : "");
  }
  return layout;
}

Result<std::unique_ptr<UnitReader>> Source::OpenUnit(
    const SourceLayout& layout, size_t index,
    const std::optional<std::pair<std::string, std::string>>& after) const {
  if (layout.local) {
    return std::unique_ptr<UnitReader>(
        new LocalUnit(snapshot_, static_cast<uint32_t>(index), after, mapper_->filter()));
  }
  const auto& [lower, upper] = layout.ranges[index];
  return std::unique_ptr<UnitReader>(new RemoteUnit(from_, *mapper_, lower, upper, after));
}

}  // namespace partkv::copy
