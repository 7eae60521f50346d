// partkv::CopyTable and partkv::VerifyCopy — copy one table into another, between any two stores
// (local or remote, in any pair), and compare the two afterwards (docs/copy.md).
//
//   partkv::CopyOptions options;
//   options.checkpoint = "orders.copy-checkpoint";  // resumable
//   auto report = partkv::CopyTable(source, destination, options);
//   if (!report.ok()) { ...report.status()... }  // the copy never started
//   if (!report->error.ok()) { ...the copy stopped; report->... says how far it got... }
//   auto diff = partkv::VerifyCopy(source, destination, options);
//
// Reading. The source is read in units, each in (PartitionKey, RowKey) order, by `streams`
// threads at once:
//   - a local source: one unit per physical partition, every unit read from one snapshot taken
//     when the copy starts — the copy is the table as it was at that instant;
//   - a remote source: one unit per PartitionKey range. The ranges are found by probing the
//     service for the keys' distinct leading characters (a query of one entity per probe, at most
//     kMaxRangeProbes of them; CopyReport::probes), so they split the key space where keys are,
//     not by rows. A remote service has no snapshot: an entity written, changed or deleted while
//     the copy runs may be copied as it was before or after, or not at all if it was inserted
//     into a range already read.
// `filter` and `select` are applied to the source (the filter's key conditions bound the reads).
//
// Writing. Each unit's entities are written to the destination by a BulkWriter of their own
// (partkv/bulk_writer.h), in `mode`: Insert (an entity the destination already has stops the copy,
// naming it), InsertOrReplace or InsertOrMerge. The destination sets its own Timestamp and ETag;
// keep_timestamp_as keeps the source's Timestamp as a DateTime property.
//
// Re-keying. With partition_key and/or row_key, each entity's destination keys are computed from
// its properties (KeyStrategy::Compute); keep_partition_key_as / keep_row_key_as keep the old keys
// as String properties. Two source entities that map to one destination key fail an Insert copy
// naming both. Random-suffix schemes are refused: a copy must map an entity to the same key every
// time it is read (for a resumed copy and for VerifyCopy); hash-suffix spreads keys as well.
//
// Resuming. With `checkpoint`, the copy records in that file, per unit, the last source key whose
// entity the destination acknowledged (rewritten atomically after every acknowledged group), and
// deletes the file when the copy has finished. `resume` continues a copy from its checkpoint:
// units recorded as done are skipped, the others are read from after their key. The entities
// after a unit's key that the interrupted copy may have sent — at most one group on a local
// destination (BulkWriteOptions::max_group_rows), at most the batches in flight on a remote one —
// are looked up in the destination first: one that is there with the content the copy would give
// it is counted in CopyReport::resent and not sent again (so an Insert copy resumes cleanly).
// The window slides on from every entity found there (interrupted runs in a row each wrote up to
// a window past the last one found) and is at least the window of the run that wrote the
// checkpoint; every entity after it is sent. A checkpoint written by a different copy (other
// stores, tables, filter, select, mode, schemes or source layout) is refused, naming what differs.
//
// Failures. Throttling and transient faults are retried by the stores themselves (a remote
// store's RemoteOptions; a local table's emulated budgets with retry_throttled). A failure that
// remains stops every unit: CopyReport::error names it (the entity, for a bad or conflicting
// row), the checkpoint records what was written, and a resumed copy carries on from there.
//
// Thread-safety: CopyTable and VerifyCopy may run beside any other use of both tables; they use
// `streams` threads of their own.
#ifndef PARTKV_COPY_H_
#define PARTKV_COPY_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "partkv/keys.h"
#include "partkv/profile.h"
#include "partkv/result.h"
#include "partkv/status.h"
#include "partkv/table.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)

namespace partkv {

enum class CopyMode {
  kInsert,  // an entity the destination already has stops the copy
  kUpsert,  // InsertOrReplace
  kMerge,   // InsertOrMerge
};

// What a copy has done so far (CopyOptions::on_progress).
struct CopyProgress {
  uint64_t rows_read = 0;     // source entities the filter selected
  uint64_t rows_written = 0;  // acknowledged by the destination
  // The source's entities to copy when known: a local source without a filter estimates it from
  // its stored bytes once the first rows are read (approximate); a remote source never knows it.
  std::optional<uint64_t> source_rows_estimate;
  uint32_t units_done = 0;
  uint32_t units = 0;
};

struct CopyOptions {
  // OData $filter on the source (partkv/query.h); "" copies every entity.
  std::string filter;
  // The properties copied (the keys always are); empty copies all.
  std::vector<std::string> select;
  CopyMode mode = CopyMode::kInsert;

  // Re-keying (above). A scheme left unset keeps that key as it is.
  std::optional<KeyStrategy> partition_key;
  std::optional<KeyStrategy> row_key;
  // Names of String properties that keep the source's PartitionKey and RowKey (both or neither;
  // only with re-keying). An entity that already has a property of that name is an error.
  std::string keep_partition_key_as;
  std::string keep_row_key_as;
  // Name of a DateTime property that keeps the source's Timestamp; "" keeps none.
  std::string keep_timestamp_as;

  // Threads reading units and writing them, 1..kMaxStreams.
  static constexpr uint32_t kMaxStreams = 64;
  uint32_t streams = 1;
  // The batches each unit's writer keeps in flight on a remote destination
  // (BulkWriteOptions::max_batches_in_flight); no effect on a local destination.
  size_t max_batches_in_flight = 4;
  // Rows per group on a local destination (BulkWriteOptions::max_group_rows): the most a resumed
  // copy looks up again per unit.
  size_t max_group_rows = 16384;
  // A local destination's emulated throttling is waited out under this policy.
  std::optional<RetryPolicy> retry_throttled = RetryPolicy{};

  // The checkpoint file (above); "" keeps none. `identity` is recorded in it and must match on
  // resume: the CLI puts the two locations there (without their secrets). The tables' names and
  // the options above are recorded beside it.
  std::string checkpoint;
  bool resume = false;
  std::string identity;

  // Called after every acknowledged group and when a unit ends, one call at a time, on the copy's
  // threads. It must not block for long.
  std::function<void(const CopyProgress&)> on_progress;
};

// What a copy did (CopyTable).
struct CopyReport {
  uint64_t rows_read = 0;     // source entities the filter selected, read in this run
  uint64_t rows_written = 0;  // acknowledged by the destination in this run
  // Entities a resumed copy found already in the destination, as the interrupted run sent them.
  uint64_t resent = 0;
  // Source entities skipped because a unit's checkpoint lies past them: rows_skipped is not
  // counted (the source is not read there); units_skipped counts units the checkpoint records done.
  uint32_t units_skipped = 0;
  uint64_t rows_failed = 0;       // the entity that stopped the copy (0 or 1)
  uint64_t rekey_collisions = 0;  // two source entities mapped to one destination key
  uint64_t throttled = 0;         // group writes the destination answered Throttled
  int64_t throttled_wait_micros = 0;
  // A remote store's requests answered 503 or 429 and retried by its client, on either side, and
  // the time waited before retrying (Table::Statistics of both tables: other users of the same
  // table handles are counted too).
  uint64_t service_throttled = 0;
  int64_t retry_wait_micros = 0;
  uint64_t probes = 0;  // queries spent finding a remote source's ranges
  uint32_t units = 0;
  uint32_t streams = 0;
  std::chrono::microseconds elapsed{0};
  // OK when the copy finished; else why it stopped (the checkpoint, if any, says how far).
  Status error;
};

// The checks CopyTable and VerifyCopy make of `options` before anything else: InvalidArgument
// naming the option (a filter that does not parse, a bad property name, a random-suffix scheme,
// keep-as names without re-keying or repeated, a stream count outside 1..kMaxStreams, resume
// without a checkpoint). For a caller that prepares the destination before copying.
Status CheckCopyOptions(const CopyOptions& options);

// Copies `from` into `to` (above). Returns an error before anything is written for bad options
// (InvalidArgument naming the option), a checkpoint that cannot be used (a missing one with
// `resume`, an existing one without `resume`, one of another copy) or a source that cannot be
// read; otherwise a report, whose `error` says whether the copy finished.
Result<CopyReport> CopyTable(const Table& from, const Table& to, const CopyOptions& options);

// A destination entity's keys, as listed by VerifyCopy.
struct CopyKey {
  std::string partition_key;
  std::string row_key;
  friend bool operator==(const CopyKey&, const CopyKey&) = default;
};

struct VerifyReport {
  uint64_t source_rows = 0;       // source entities the filter selected
  uint64_t destination_rows = 0;  // entities of the destination
  uint64_t missing = 0;           // source entities whose image is not in the destination
  uint64_t extra = 0;             // destination entities that are no source entity's image
  uint64_t different = 0;         // images present with other properties
  // The first max_listed keys of each kind, in the order found: missing as destination keys
  // (with the source keys beside them in missing_source), extra and different as destination keys.
  std::vector<CopyKey> first_missing;
  std::vector<CopyKey> first_missing_source;
  std::vector<CopyKey> first_extra;
  std::vector<CopyKey> first_different;
  bool clean() const { return missing == 0 && extra == 0 && different == 0; }
};

// Reads both tables and compares the destination with what copying `from` with `options` gives:
// each selected source entity, mapped through select, re-keying and the keep-as properties, is
// looked for in `to` by its destination keys. Timestamps and ETags are not compared (a property
// kept by keep_timestamp_as is). Memory: 24 bytes per source entity, whatever their size. After a
// merge copy (mode kMerge) an image is found when its properties are there with their values,
// beside any others the destination entity has: each image is then read from the destination by
// its keys (a request each on a remote destination).
// Errors as CopyTable's for bad options; IOError and the like when either side cannot be read.
Result<VerifyReport> VerifyCopy(const Table& from, const Table& to, const CopyOptions& options,
                                size_t max_listed = 10);

// The most queries a copy spends finding a remote source's PartitionKey ranges.
inline constexpr uint64_t kMaxRangeProbes = 512;

}  // namespace partkv

#pragma GCC visibility pop

#endif  // PARTKV_COPY_H_
