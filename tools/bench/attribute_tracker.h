// The bounded summary of one attribute of a data set (AttributeSummary, dataset.h), built one
// value at a time, and the value hash and key text it rests on.
//
// Values are counted by a 64-bit hash (ValueHash), so a long value costs nothing to count; a
// collision among kExactDistinct values has odds of about 1e-10. Up to kExactDistinct distinct
// values the counts are exact (about 2 MB at most); past that they give way to a k-minimum-values
// sketch of kSketchSize hashes (the distinct count, ±1.6 % standard error) and kHeavyCounters
// space-saving counters (the most frequent value), about 40 KB together.
//
// An AttributeTracker is a plain movable value, used from one thread.

#ifndef PARTKV_TOOLS_BENCH_ATTRIBUTE_TRACKER_H_
#define PARTKV_TOOLS_BENCH_ATTRIBUTE_TRACKER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "partkv/value.h"
#include "tools/bench/dataset.h"

namespace partkv::compare {

// A value's identity in 64 bits (XXH3): its type and the bytes Value's operator== compares.
uint64_t ValueHash(const Value& value);

// A value as key text (docs/keys.md "Field values as key text"; keys.h keeps its own function
// internal): String as is, Int32/Int64 in decimal, Guid lower-case, Boolean true/false, DateTime
// as DateTime::ToString(), Double in the shortest round-trip form. A summary names every value,
// so Binary gets its base64 and a non-finite Double NaN, Infinity or -Infinity, where a key
// strategy would reject them.
std::string KeyText(const Value& value);
// KeyText(value).size(), without making the text.
size_t KeyTextSize(const Value& value);

class AttributeTracker {
 public:
  // k of the k-minimum-values sketch: relative standard error 1/sqrt(k - 2), about 1.6 %, so
  // AttributeSummary's ±5 % holds at three standard errors.
  static constexpr size_t kSketchSize = 4096;
  // Space-saving counters for the most frequent value once exact counting stops.
  static constexpr size_t kHeavyCounters = 64;

  explicit AttributeTracker(std::string name);

  const std::string& name() const { return name_; }
  // The values added.
  uint64_t present() const { return present_; }

  // One entity's value; `hash` is ValueHash(value).
  void Add(const Value& value, uint64_t hash);
  AttributeSummary Summary() const;

 private:
  struct Slot {
    uint64_t hash = 0;  // 0: empty
    uint64_t count = 0;
  };
  // A space-saving counter: the value's count is at least count - error, at most count.
  struct Heavy {
    uint64_t hash = 0;
    uint64_t count = 0;
    uint64_t error = 0;
    bool text_known = false;
    std::string text;
  };

  void AddExact(const Value& value, uint64_t hash);
  size_t Probe(uint64_t hash) const;
  void GrowExact();
  void StartEstimating();
  void AddEstimated(const Value& value, uint64_t hash);

  std::string name_;
  uint64_t present_ = 0;
  uint64_t value_bytes_ = 0;
  std::array<uint64_t, 9> type_counts_{};  // by Type's number (1..8)
  bool exact_ = true;
  // Exact phase: counts by hash (open addressing, power-of-two size, at most half full), and
  // the most frequent value so far.
  std::vector<Slot> slots_;
  uint64_t distinct_ = 0;
  uint64_t top_hash_ = 0, top_count_ = 0;
  std::string top_text_;
  // Estimating phase.
  std::vector<uint64_t> sketch_;  // the kSketchSize smallest hashes seen, ascending
  std::vector<Heavy> heavy_;
};

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_ATTRIBUTE_TRACKER_H_
