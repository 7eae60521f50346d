// The numbers one comparison run produces, as plain values: what the terminal table, the CSV and
// the HTML report print, and what the tests check.

#ifndef PARTKV_TOOLS_BENCH_RESULTS_H_
#define PARTKV_TOOLS_BENCH_RESULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "partkv/analyzer.h"
#include "tools/bench/dataset.h"

namespace partkv::compare {

// One kind of read (reads.h, ReadSpec), repeated `samples` times.
struct ReadStats {
  std::string name;  // the read's name: "point", "day", or the user's --read NAME
  uint64_t samples = 0;
  double p50_micros = 0;
  double p99_micros = 0;    // nearest rank: the largest sample when there are fewer than 100
  uint64_t entities = 0;    // returned, over all samples
  uint64_t examined = 0;    // entities the store read to return them (Page::examined)
  uint64_t pages = 0;       // query pages (point reads: 0)
  double seconds = 0;       // total time of all samples
  double cpu_seconds = 0;   // the reading thread's CPU time over all samples (queries only)
  uint32_t fanout = 1;      // PartitionKeys one read visits; 0 = a scan of the whole table
  std::string how;          // "200 shards (QueryShards) + filter on deviceId"
  bool point = false;       // Table::GetByAttributes: the read names one entity
  bool table_scan = false;  // a filtered scan of the whole table
  uint64_t mismatches = 0;  // samples whose result differed from the data's truth

  // Entities examined per entity returned (1 for a read that examines only what it returns).
  double examined_per_entity() const {
    return entities > 0 ? static_cast<double>(examined) / entities : 0;
  }
  double entities_per_second() const { return seconds > 0 ? entities / seconds : 0; }
  double micros_per_page() const { return pages > 0 ? seconds * 1e6 / pages : 0; }
  double cpu_micros_per_page() const { return pages > 0 ? cpu_seconds * 1e6 / pages : 0; }
};

// The throttled replay of the burst day under one profile.
struct ThrottleStats {
  std::string profile;
  uint64_t offered_entities = 0;
  uint64_t throttled_entities = 0;
  uint64_t offered_calls = 0;
  uint64_t throttled_calls = 0;
  uint64_t store_throttled = 0;  // throttled calls as Table::Statistics() counted them
  double replay_seconds = 0;     // the simulated span of the replay

  double rate() const {
    return offered_entities > 0 ? static_cast<double>(throttled_entities) / offered_entities : 0;
  }
};

// One strategy's writes and reads against the --target endpoint (target.h).
struct TargetStats {
  std::string table;  // the endpoint's table
  uint64_t entities_written = 0;
  uint64_t batches = 0;
  double offered_seconds = 0;      // the replay timeline's span of the batches
  double write_seconds = 0;        // from the first batch sent to the last acknowledged
  double max_lag_seconds = 0;      // the latest a batch was sent behind its replay time
  uint64_t throttled_answers = 0;  // 503/429 answers, each waited out and retried
  double retry_wait_seconds = 0;   // time spent waiting before retries
  uint64_t batches_resent = 0;     // batches still Throttled after the retries, sent again
  std::vector<ReadStats> reads;    // as StrategyResult's, on the endpoint
  bool kept = false;               // the table was left on the endpoint

  double write_rate() const { return write_seconds > 0 ? entities_written / write_seconds : 0; }
};

struct StrategyResult {
  std::string label;
  std::string strategy;  // canonical text form
  std::string explanation;
  std::string table;
  bool suggested = false;  // proposed by --suggest (suggest.h), with its reason as explanation

  // Writes.
  uint64_t entities_written = 0;
  uint64_t batches = 0;
  double write_seconds = 0;      // time inside Table::Submit
  double write_cpu_seconds = 0;  // the writing thread's CPU time inside Table::Submit
  double raw_write_seconds = 0;  // time inside the raw WriteBatch + DB::Write of the same bytes
  uint64_t bytes_on_disk = 0;    // live SST bytes after flush, background work settled
  uint64_t raw_bytes_on_disk = 0;
  std::string lsm_shape;

  // Layout, as written and as the analyzer predicts it.
  std::vector<uint64_t> physical_on_disk;  // entities per physical partition, counted on disk
  AnalysisReport analysis;
  // In the busiest hour of the data, the share of its writes that went to its hottest
  // PartitionKey: 1.0 when all concurrent writes hit one partition.
  double peak_hour_hot_share = 0;
  // A sharded strategy's suffixes: how many it has, and how many distinct ones its keys used.
  uint32_t shard_count = 1;
  uint64_t shards_used = 1;

  // One per read of ComparisonResult::reads, in that order.
  std::vector<ReadStats> reads;

  std::vector<ThrottleStats> throttle;  // azure-table, dynamodb, cosmos
  std::optional<TargetStats> target;    // --target only

  uint64_t entities_on_disk() const {
    uint64_t n = 0;
    for (uint64_t c : physical_on_disk) n += c;
    return n;
  }
  double write_rate() const { return write_seconds > 0 ? entities_written / write_seconds : 0; }
  double raw_write_rate() const {
    return raw_write_seconds > 0 ? entities_written / raw_write_seconds : 0;
  }
  double write_ratio() const { return raw_write_rate() > 0 ? write_rate() / raw_write_rate() : 0; }
  double micros_per_entity() const {
    return entities_written > 0 ? write_seconds * 1e6 / entities_written : 0;
  }
  double cpu_micros_per_entity() const {
    return entities_written > 0 ? write_cpu_seconds * 1e6 / entities_written : 0;
  }
  // Physical partitions: hottest / mean.
  double physical_max_over_mean() const {
    return analysis.physical.mean > 0 ? analysis.physical.max / analysis.physical.mean : 0;
  }
  double logical_max_over_mean() const {
    return analysis.logical.mean > 0 ? analysis.logical.max / analysis.logical.mean : 0;
  }
};

// What was written: the built-in workload or the user's data (dataset.h).
struct WorkloadSummary {
  std::string source;  // "built-in workload" or the file as given
  bool built_in = true;
  uint64_t events = 0;         // entities
  uint32_t days = 0;           // calendar days (UTC) the timeline spans
  uint32_t devices = 0;        // built-in only
  uint64_t seed = 0;           // built-in only
  std::string time_attribute;  // what orders the timeline: "" = file order
  std::string first_day, last_day;
  std::string burst_day;   // the busiest day (UTC), which the throttled replay offers
  std::string burst_hour;  // the busiest hour's start, "2026-11-05 19:00"
  uint64_t burst_hour_events = 0;
  uint64_t busiest_day_events = 0;
  double mean_value_bytes = 0;
  size_t min_value_bytes = 0, max_value_bytes = 0;
  std::string row_key;                       // the RowKey scheme's text form
  std::vector<AttributeSummary> attributes;  // every attribute of the data
};

// A read the comparison made, as the reports name it.
struct ReadSummary {
  std::string name;
  std::vector<std::string> attributes;
  double weight = 1;
};

struct ComparisonResult {
  uint32_t physical_partitions = 16;
  double replay_rate = 0;  // entities/s, the workload's average in the replay
  WorkloadSummary workload;
  std::vector<ReadSummary> reads;
  std::vector<StrategyResult> strategies;
  double wall_seconds = 0;
  // Where the wall time went: step name and seconds, in run order.
  std::vector<std::pair<std::string, double>> phase_seconds;
  // Whether flushes and compactions had finished before sizes and reads were measured (they are
  // waited for up to 10 minutes).
  bool settled = true;
  // --target: the endpoint (its key and signature redacted) and the profile it is compared
  // with; empty without --target.
  std::string target;
  std::string target_profile;
  // The comparison as a workload file (flags.h, WorkloadJson): what the report says ran; empty
  // when the caller gives none.
  std::string workload_file;
  // Machine, build and method facts, name/value, in print order.
  std::vector<std::pair<std::string, std::string>> facts;
};

// --sweep: the same comparison at 1x, 3x and 10x the events.
struct SweepResult {
  std::vector<ComparisonResult> runs;  // ascending events
};

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_RESULTS_H_
