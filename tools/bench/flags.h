// partkv-bench's command line. Every flag is checked before anything runs; a bad value is one
// InvalidArgument whose message starts with the flag's name and says what was expected:
//   --events: 'abc' is not a whole number (expected 100..50,000,000)

#ifndef PARTKV_TOOLS_BENCH_FLAGS_H_
#define PARTKV_TOOLS_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "partkv/result.h"

namespace partkv::compare {

struct BenchFlags {
  static constexpr uint64_t kMinEvents = 100;
  static constexpr uint64_t kMaxEvents = 50'000'000;
  static constexpr uint32_t kMaxDays = 366;
  static constexpr uint32_t kMaxPartitions = 1024;  // a table's limit
  static constexpr double kMaxReplayRate = 10'000'000;

  uint64_t events = 200'000;
  uint32_t days = 7;
  uint64_t seed = 20261129;
  uint32_t partitions = 16;
  double replay_rate = 5000;
  std::string out = "partkv-report";
  // Where the stores are written while the run lasts; empty = a fresh directory under $TMPDIR.
  std::string work_dir;
  bool sweep = false;
  // --target: a Table endpoint's connection string or SAS URL; empty = none.
  std::string target;
  uint32_t target_in_flight = 16;
  bool keep_target_tables = false;
  // --data: the user's entities as JSON Lines ("-" = stdin); empty = the built-in workload.
  std::string data;
  // --strategy, in the order given, as typed (checked by KeyStrategy::Parse).
  std::vector<std::string> strategies;
  // --row-key: the RowKey scheme's text; empty = the built-in orderId, or the data's RowKey.
  std::string row_key;
  // --read, in the order given (checked by ParseReadSpec; names unique).
  std::vector<std::string> reads;
  // --time: the attribute that orders the user's data's timeline; empty = file order.
  std::string time;
  // --suggest: also compare candidates proposed from the data (suggest.h).
  bool suggest = false;
  // --workload: the JSON file the settings above came from (the command line adds strategies
  // and reads to it and overrides the rest); empty = none.
  std::string workload;
  // --export-workload: write the built-in workload's entities (keys empty) to this JSON Lines
  // file and exit, e.g. to compare the --data path on the same entities; empty = no.
  std::string export_workload;
  bool help = false;
  std::string help_text;  // filled when help is set
};

// Parses and checks argv. InvalidArgument naming the flag for a bad value, an unknown flag or a
// missing value; for --out, also when the directory cannot be created or written.
Result<BenchFlags> ParseFlags(int argc, const char* const* argv);

// The comparison as a workload file (--workload): data, strategies (with `extra`, e.g. the
// suggested ones), row_key, reads, time, replay_rate, partitions; two-space indented JSON.
std::string WorkloadJson(const BenchFlags& flags, const std::vector<std::string>& extra = {});

// Creates `dir` (and parents) if needed and checks that a file can be written in it.
// InvalidArgument starting with `flag` when not.
Status CheckWritableDirectory(const std::string& flag, const std::string& dir);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_FLAGS_H_
