// AttributeTracker (attribute_tracker.h): exact counts, then a k-minimum-values sketch and
// space-saving counters.

#include "tools/bench/attribute_tracker.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <utility>

#include "partkv/base64.h"

namespace partkv::compare {
namespace {

template <typename T>
uint64_t HashBytes(const T& v, Type type) {
  return XXH3_64bits_withSeed(&v, sizeof v, static_cast<uint64_t>(type));
}

}  // namespace

uint64_t ValueHash(const Value& v) {
  switch (v.type()) {
    case Type::kString:
    case Type::kBinary:
      return XXH3_64bits_withSeed(v.as_string().data(), v.as_string().size(),
                                  static_cast<uint64_t>(v.type()));
    case Type::kBoolean:
      return HashBytes(static_cast<uint8_t>(v.as_bool()), v.type());
    case Type::kDateTime:
      return HashBytes(v.as_datetime().ticks, v.type());
    case Type::kDouble:
      return HashBytes(std::bit_cast<uint64_t>(v.as_double()), v.type());
    case Type::kGuid:
      return HashBytes(v.as_guid().bytes, v.type());
    case Type::kInt32:
      return HashBytes(v.as_int32(), v.type());
    case Type::kInt64:
      return HashBytes(v.as_int64(), v.type());
  }
  return 0;
}

std::string KeyText(const Value& v) {
  switch (v.type()) {
    case Type::kString:
      return v.as_string();
    case Type::kBinary:
      return Base64Encode(v.as_binary());
    case Type::kBoolean:
      return v.as_bool() ? "true" : "false";
    case Type::kDateTime:
      return v.as_datetime().ToString();
    case Type::kDouble: {
      const double d = v.as_double();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      char buf[32];
      const auto result = std::to_chars(buf, buf + sizeof buf, d);
      return std::string(buf, result.ptr);
    }
    case Type::kGuid:
      return v.as_guid().ToString();
    case Type::kInt32:
      return std::to_string(v.as_int32());
    case Type::kInt64:
      return std::to_string(v.as_int64());
  }
  return {};
}

// Counted for every value of every entity: no text is made for the common types.
size_t KeyTextSize(const Value& v) {
  char buf[32];
  switch (v.type()) {
    case Type::kString:
      return v.as_string().size();
    case Type::kBinary:
      return (v.as_binary().size() + 2) / 3 * 4;
    case Type::kBoolean:
      return v.as_bool() ? 4 : 5;
    case Type::kDateTime: {
      const int64_t ticks = v.as_datetime().ticks;
      return ticks >= 0 && ticks <= DateTime::kMaxTicks ? 28 : KeyText(v).size();
    }
    case Type::kDouble:
      return std::isfinite(v.as_double())
                 ? static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v.as_double()).ptr -
                                       buf)
                 : KeyText(v).size();
    case Type::kGuid:
      return 36;
    case Type::kInt32:
      return static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v.as_int32()).ptr - buf);
    case Type::kInt64:
      return static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v.as_int64()).ptr - buf);
  }
  return 0;
}

namespace {

// *out = KeyText(v), reusing out's buffer for a String.
void AssignKeyText(const Value& v, std::string* out) {
  if (v.type() == Type::kString) {
    out->assign(v.as_string());
  } else {
    *out = KeyText(v);
  }
}

}  // namespace

AttributeTracker::AttributeTracker(std::string name) : name_(std::move(name)), slots_(16) {}

void AttributeTracker::Add(const Value& value, uint64_t hash) {
  ++present_;
  ++type_counts_[static_cast<size_t>(value.type())];
  value_bytes_ += KeyTextSize(value);
  if (hash == 0) hash = 1;  // 0 marks an empty slot
  if (exact_) {
    AddExact(value, hash);
  } else {
    AddEstimated(value, hash);
  }
}

AttributeSummary AttributeTracker::Summary() const {
  AttributeSummary s;
  s.name = name_;
  s.present = present_;
  s.total_value_bytes = value_bytes_;
  const auto most = std::max_element(type_counts_.begin(), type_counts_.end());
  s.type = static_cast<Type>(most - type_counts_.begin());
  uint64_t top_count = top_count_;
  s.top_value = top_text_;
  if (exact_) {
    s.distinct = distinct_;
  } else {
    s.distinct_exact = false;
    const double kth = static_cast<double>(sketch_.back()) / 18446744073709551616.0;
    const auto estimate = static_cast<uint64_t>(std::llround((kSketchSize - 1) / kth));
    // More than kExactDistinct were seen, and no more than one per entity can be.
    s.distinct = std::clamp<uint64_t>(estimate, AttributeSummary::kExactDistinct + 1, present_);
    // By the guaranteed count: a newcomer inherits the count it evicted, which for data of
    // mostly distinct values would make any value look as frequent as n / kHeavyCounters.
    const Heavy* top = &heavy_[0];
    for (const Heavy& h : heavy_) {
      const uint64_t count = h.count - h.error, best = top->count - top->error;
      if (count > best || (count == best && h.text_known && !top->text_known)) top = &h;
    }
    top_count = top->count - top->error;
    s.top_value = top->text;
  }
  s.top_share = present_ > 0 ? static_cast<double>(top_count) / present_ : 0;
  return s;
}

void AttributeTracker::AddExact(const Value& value, uint64_t hash) {
  size_t s = Probe(hash);
  if (slots_[s].hash == 0) {
    if (distinct_ == AttributeSummary::kExactDistinct) {
      StartEstimating();
      AddEstimated(value, hash);
      return;
    }
    if ((distinct_ + 1) * 2 > slots_.size()) {
      GrowExact();
      s = Probe(hash);
    }
    slots_[s].hash = hash;
    ++distinct_;
  }
  const uint64_t count = ++slots_[s].count;
  if (hash == top_hash_) {
    top_count_ = count;
  } else if (count > top_count_) {
    top_hash_ = hash;
    top_count_ = count;
    top_text_ = KeyText(value);
  }
}

size_t AttributeTracker::Probe(uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  size_t s = hash & mask;
  while (slots_[s].hash != 0 && slots_[s].hash != hash) s = (s + 1) & mask;
  return s;
}

void AttributeTracker::GrowExact() {
  std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.size() * 2));
  for (const Slot& slot : old) {
    if (slot.hash != 0) slots_[Probe(slot.hash)] = slot;
  }
}

// The exact counts seed both estimators: the kSketchSize smallest hashes, and the
// kHeavyCounters largest counts (exact, so without error).
void AttributeTracker::StartEstimating() {
  std::vector<Slot> live;
  live.reserve(distinct_);
  for (const Slot& slot : slots_) {
    if (slot.hash != 0) live.push_back(slot);
  }
  slots_ = {};
  std::partial_sort(live.begin(), live.begin() + kHeavyCounters, live.end(),
                    [](const Slot& a, const Slot& b) { return a.count > b.count; });
  for (size_t k = 0; k < kHeavyCounters; ++k) {
    // The exact phase knows only its leader's text: the others' is set at their next
    // occurrence (one that never recurs can at most tie with the leader).
    const bool leader = live[k].hash == top_hash_;
    heavy_.push_back({live[k].hash, live[k].count, 0, leader, leader ? top_text_ : std::string()});
  }
  std::nth_element(live.begin(), live.begin() + kSketchSize - 1, live.end(),
                   [](const Slot& a, const Slot& b) { return a.hash < b.hash; });
  sketch_.reserve(kSketchSize + 1);  // Add inserts before it drops the largest
  for (size_t k = 0; k < kSketchSize; ++k) sketch_.push_back(live[k].hash);
  std::sort(sketch_.begin(), sketch_.end());
  exact_ = false;
}

void AttributeTracker::AddEstimated(const Value& value, uint64_t hash) {
  if (hash < sketch_.back()) {
    const auto at = std::lower_bound(sketch_.begin(), sketch_.end(), hash);
    if (*at != hash) {
      sketch_.insert(at, hash);
      sketch_.pop_back();
    }
  }
  size_t least = 0;
  for (size_t c = 0; c < heavy_.size(); ++c) {
    Heavy& h = heavy_[c];
    if (h.hash == hash) {
      ++h.count;
      if (!h.text_known) {
        AssignKeyText(value, &h.text);
        h.text_known = true;
      }
      return;
    }
    if (h.count < heavy_[least].count) least = c;
  }
  // Space-saving: the newcomer takes the smallest counter, and its count as its error.
  Heavy& h = heavy_[least];
  h.hash = hash;
  h.error = h.count;
  ++h.count;
  h.text_known = true;
  AssignKeyText(value, &h.text);
}

}  // namespace partkv::compare
