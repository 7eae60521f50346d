// The entities a comparison writes: the built-in workload (workload.h) or the user's own, read
// from JSON Lines in the format `partkv export` writes (Azure's JSON, docs/json.md). PartitionKey
// and RowKey are optional in the user's data: they are what is being chosen.
//
// A DataSet keeps in memory only what keys, reads and the timeline need:
//   - per entity, its values of the *kept* attributes (the fields the strategies, the RowKey
//     scheme and the reads name), interned per attribute, so a value
//     repeated by many entities is stored once;
//   - per entity, its time on the timeline (microseconds since the Unix epoch);
//   - per entity, where its whole entity can be made again: the built-in workload's generator, or
//     the byte offset of its line in the file (a file given as `-`, stdin, is first copied to
//     `spool_dir`, so it can be read again by offset);
//   - per attribute of the whole data (kept or not), a bounded summary: type, entities having it,
//     distinct values (exact up to kExactDistinct, estimated beyond), the most frequent value and
//     its share (estimated beyond the same bound).
// So a file larger than memory works: the whole entities are parsed again, one at a time, when a
// strategy writes them. Per entity that is 12 bytes (offset and line length), 8 more with a time
// attribute (its time; 4 more for its line when the timeline reorders the file), 4 per kept
// attribute (a value id), plus each distinct kept value once. The summaries take at most about
// 2 MB per attribute while its distinct values are still counted exactly, then about 40 KB and
// 64 values' text (a k-minimum-values sketch of 4,096 hashes and 64 space-saving counters:
// attribute_tracker.h).
//
// Entities are in timeline order: by the time attribute when one is given (entities with equal
// times keep their file order), else in file order. Without a time attribute the timeline is the
// file order at one entity per `1 / default_rate` seconds.
//
// Thread-safety: a DataSet is immutable once made; MakeEntity may be called from several threads.

#ifndef PARTKV_TOOLS_BENCH_DATASET_H_
#define PARTKV_TOOLS_BENCH_DATASET_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "partkv/entity.h"
#include "partkv/result.h"
#include "partkv/value.h"
#include "tools/bench/workload.h"

namespace partkv::compare {

// What the data says about one attribute (a property name, or PartitionKey / RowKey when the data
// has them), over every entity.
struct AttributeSummary {
  static constexpr uint64_t kExactDistinct = 65536;

  std::string name;
  Type type = Type::kString;  // the type most entities give it
  uint64_t present = 0;       // entities that have it
  uint64_t distinct = 0;      // exact when distinct_exact, else an estimate (±5 %)
  bool distinct_exact = true;
  // The most frequent value, as key text (docs/keys.md); a Binary value, which has no key text,
  // as base64; a non-finite Double as NaN, Infinity or -Infinity.
  std::string top_value;
  // Its entities / present. When !distinct_exact, a lower bound, at most present / 64 below the
  // truth (space-saving counters).
  double top_share = 0;
  uint64_t total_value_bytes = 0;  // the values' key-text bytes, over the entities having it
};

struct DataSetOptions {
  // The JSON Lines file, or "-" for stdin.
  std::string path;
  // Attributes whose per-entity values are kept (any order, duplicates allowed). Each must be
  // present in at least one entity: else InvalidArgument naming it (see Load). PartitionKey and
  // RowKey name the entities' own keys (an empty key counts as absent).
  std::vector<std::string> keep;
  // The attribute that orders the timeline: a DateTime, a String in DateTime::Parse's format, or
  // an Int32/Int64 of Unix seconds. Empty: file order. It is kept too (see kept()).
  std::string time_attribute;
  // Without a time attribute: the timeline's rate, entities per second of real time.
  double default_rate = 1000;
  // Where stdin is copied to (a directory that exists; empty: $TMPDIR, else /tmp); unused for a
  // file. The copy is unlinked as soon as it is made: it lives as long as the DataSet's open
  // descriptor, so nothing is left behind even by a crash.
  std::string spool_dir;
};

class DataSet;

namespace internal {
// Load's reading of stdin, from any readable descriptor (a pipe, a file): read to its end, copied
// to a file in options.spool_dir as it is parsed, and read again from that copy. options.path
// only names the data in messages ("-" reads as "stdin"). For tests; Load("-") calls it with
// STDIN_FILENO. The descriptor is not closed.
Result<DataSet> LoadSpooling(int input_fd, const DataSetOptions& options);
}  // namespace internal

class DataSet {
 public:
  // Reads the JSON Lines file in one streaming pass. Lines may end in "\r\n"; a UTF-8 byte order
  // mark before line 1 is skipped; blank lines at the end of the file are ignored. Entities are
  // read as EntityFromJson reads them (docs/json.md): PartitionKey and RowKey optional, Timestamp
  // and odata.* members ignored. InvalidArgument, with a message a user can act on, for:
  //   - a line that is not an entity: "line 17: <the JSON reader's message>"; a blank line with
  //     entities after it: "line 17: empty line (one entity per line)";
  //   - no entities at all: "<path>: no entities (the file is empty)" (or "(only blank lines)";
  //     for stdin "stdin: no entities (the input is empty)");
  //   - a kept attribute no entity has: "no entity has the attribute 'custId' (the attributes
  //     present: a, b, c)" (sorted; after 20 names, ", …");
  //   - an entity without the time attribute, or with a value that is not a time:
  //     "line 9: attribute 'when' is missing (it orders the timeline: --time)" / "... is Boolean;
  //     --time needs a DateTime, a DateTime string or Unix seconds" (a String that does not
  //     parse, or seconds outside the years 1-9999, are named likewise);
  //   - default_rate not a positive finite number (without a time attribute).
  // IOError when the file cannot be read (or, for stdin, the copy cannot be written).
  static Result<DataSet> Load(const DataSetOptions& options);

  // The built-in workload: its entities, kept attributes date, deviceId, orderId, time (and the
  // summaries of all its attributes), its own timeline.
  static DataSet FromWorkload(std::shared_ptr<const Workload> workload);

  DataSet(DataSet&&) noexcept;
  DataSet& operator=(DataSet&&) noexcept;
  ~DataSet();

  size_t size() const;
  // The kept attributes, in the order given (duplicates removed); column c is kept()[c]. The time
  // attribute is a column only when kept: each entity's time is kept apart (TimeMicros).
  const std::vector<std::string>& kept() const;
  // The column of kept attribute `name`, or nullopt.
  std::optional<size_t> Column(std::string_view name) const;
  // Entity i's value of column c; nullptr when entity i does not have it.
  const Value* Get(size_t i, size_t column) const;
  // Entity i's kept attributes as an Entity: properties, and PartitionKey / RowKey set as keys
  // when kept and present.
  Entity Attributes(size_t i) const;
  // The whole entity i, as the data holds it (keys as given, possibly empty). For a file, the
  // line is read and parsed again (pread on the descriptor opened by Load, so a file renamed or
  // unlinked since still reads); IOError if the file was truncated or the line no longer parses.
  Result<Entity> MakeEntity(size_t i) const;
  // The 1-based line of entity i in the file (for messages); 0 for the built-in workload.
  uint64_t Line(size_t i) const;

  // Entity i's time, microseconds since the Unix epoch; non-decreasing in i.
  int64_t TimeMicros(size_t i) const;
  // Whether the timeline comes from the data (a time attribute or the built-in workload) rather
  // than from file order.
  bool has_time() const;

  // Every attribute of the data, by name (byte order). At most kMaxAttributes names are tracked,
  // the kept ones always among them: names first seen after that many are left out, so data with
  // a name per entity stays bounded.
  static constexpr size_t kMaxAttributes = 1000;
  const std::vector<AttributeSummary>& attributes() const;
  // Entities' encoded value sizes (the store's value codec, keys excluded) over a sample.
  Workload::SizeStats SampleValueSizes(size_t sample = 2000) const;
  // "orders.jsonl" (the file name as given), "stdin" for "-", or "built-in workload".
  const std::string& source() const;

 private:
  friend Result<DataSet> internal::LoadSpooling(int input_fd, const DataSetOptions& options);

  struct Impl;
  explicit DataSet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_DATASET_H_
