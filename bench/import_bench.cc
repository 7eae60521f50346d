// partkv-import-bench: `partkv import` of the same rows sorted by PartitionKey and with their
// PartitionKeys interleaved, against the library's own batch insert of those rows, in one run,
// and the import's peak resident memory.
//
//   partkv-import-bench [--entities N] [--partition_keys K] [--rounds R] [--partkv PATH]
//                       [--report_only]
//
// The rows: N entities of the common benchmark shape (bench_common.h: 8 typed properties, about
// 400 bytes of JSON), spread over K PartitionKeys (default 5,000), N / K rows each; row j of
// PartitionKey p is entity p·N/K + j with PartitionKey PartitionKeyOf(p).
//   - sorted.jsonl: PartitionKey by PartitionKey (p outer, j inner), as an export writes them;
//   - interleaved.jsonl: round robin over the PartitionKeys (j outer, p inner), as a telemetry
//     export of K devices reporting in turn is.
// Each round measures, each into a fresh store with the same table options:
//   1. the baseline, in this process: Table::Submit of the sorted rows in batches of 100 (of one
//      PartitionKey each); only the Submit calls are timed, not building the entities;
//   2. `partkv --store DIR import Bench sorted.jsonl` as a child process, timed from fork to exit
//      (process start, store open and both of import's passes), its peak RSS the child's
//      ru_maxrss;
//   3. the same with interleaved.jsonl.
// Targets: interleaved >= 0.8 x sorted, each >= 0.5 x the batch insert (median ratios of the
// rounds), every import's peak RSS < 400 MiB. The exit status is 1 when a target is missed,
// unless --report_only (for runs at sizes where the figures mean nothing).
//
// CPU time is reported beside the rates, as a busy machine disturbs it less than wall time: the
// library's is the calling thread's during the Submit calls (not RocksDB's background work), the
// tool's is the child's, every thread of it, so the CPU ratio leans against the tool.
//
// Not a Google Benchmark: one of the quantities is a child process's peak memory.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "partkv/json.h"
#include "partkv/store.h"
#include "tools/common/child_process.h"

#ifndef PARTKV_CLI_PATH
#define PARTKV_CLI_PATH "partkv"
#endif

namespace partkv::bench {
namespace {

constexpr char kTableName[] = "Bench";
constexpr double kTargetInterleavedRatio = 0.8;  // interleaved / sorted
constexpr double kTargetLibraryRatio = 0.5;      // each import / the batch insert
constexpr double kTargetPeakMiB = 400;

using SteadyClock = std::chrono::steady_clock;

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

// The rows: K PartitionKeys of `per_key` rows each.
struct Layout {
  uint64_t keys = 0;
  uint64_t per_key = 0;
  uint64_t rows() const { return keys * per_key; }
  Entity Row(uint64_t p, uint64_t j) const {
    Entity e = MakeEntity(p * per_key + j);
    e.set_partition_key(PartitionKeyOf(p));
    return e;
  }
};

// Writes the rows as JSON Lines, PartitionKey by PartitionKey or round robin; returns the bytes.
uint64_t WriteInput(const std::string& path, const Layout& layout, bool interleaved) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) Die("cannot create " + path);
  uint64_t bytes = 0;
  const uint64_t outer = interleaved ? layout.per_key : layout.keys;
  const uint64_t inner = interleaved ? layout.keys : layout.per_key;
  for (uint64_t a = 0; a < outer; ++a) {
    for (uint64_t b = 0; b < inner; ++b) {
      std::string line = EntityToJson(interleaved ? layout.Row(b, a) : layout.Row(a, b));
      line.push_back('\n');
      bytes += std::fwrite(line.data(), 1, line.size(), f);
    }
  }
  if (std::fclose(f) != 0) Die("cannot write " + path);
  return bytes;
}

struct Run {
  double rate = 0;         // rows per second
  double cpu_seconds = 0;  // see the header
  double peak_rss_mib = 0;
};

// Table::Submit of the rows, sorted, in batches of at most 100 rows of one PartitionKey; only the
// Submit calls are timed.
Run LibraryRun(const std::string& dir, const Layout& layout) {
  auto store = Store::Open(dir);
  if (!store.ok()) Die("open store: " + store.status().ToString());
  Status cs = store->CreateTable(kTableName);
  if (!cs.ok()) Die("create table: " + cs.ToString());
  auto table = store->OpenTable(kTableName);
  if (!table.ok()) Die("open table: " + table.status().ToString());
  SteadyClock::duration busy{};
  double cpu = 0;
  for (uint64_t p = 0; p < layout.keys; ++p) {
    for (uint64_t j = 0; j < layout.per_key; j += 100) {
      Batch batch;
      for (uint64_t k = j; k < std::min(j + 100, layout.per_key); ++k) {
        batch.Insert(layout.Row(p, k));
      }
      double cpu0 = ThisThreadCpuSeconds();
      SteadyClock::time_point t0 = SteadyClock::now();
      auto r = table->Submit(batch);
      busy += SteadyClock::now() - t0;
      cpu += ThisThreadCpuSeconds() - cpu0;
      if (!r.ok()) Die(fmt::format("batch {}/{}: {}", p, j, r.status().ToString()));
    }
  }
  return {static_cast<double>(layout.rows()) / Seconds(busy), cpu, 0};
}

// Runs the tool with `args` (its stdout to /dev/null when `quiet`); exits when it fails.
Run RunTool(const std::string& partkv, const std::vector<std::string>& args, uint64_t rows,
            bool quiet = false) {
  std::vector<std::string> all = {partkv};
  all.insert(all.end(), args.begin(), args.end());
  tools::ChildRun child = tools::RunChild(
      partkv, all, quiet ? tools::ChildOutput::kDiscard : tools::ChildOutput::kInherit);
  if (!child.exited_ok()) {
    Die(fmt::format("`partkv {}` failed (status {})", fmt::join(args, " "), child.wait_status));
  }
  Run run;
  run.rate = static_cast<double>(rows) / child.seconds;
  run.cpu_seconds = child.cpu_seconds;
  run.peak_rss_mib = child.peak_rss_mib;
  return run;
}

// `partkv import` of `input` into a fresh store in `dir`, removed afterwards.
Run ImportRun(const std::string& partkv, const std::string& dir, const std::string& input,
              uint64_t rows) {
  (void)RunTool(partkv, {"--store", dir, "table", "create", kTableName}, 0, /*quiet=*/true);
  Run run = RunTool(partkv, {"--store", dir, "import", kTableName, input}, rows);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return run;
}

struct Round {
  Run library, sorted, interleaved;
};

std::string Verdict(bool met) { return met ? "met" : "MISSED"; }

// The command line.
struct Flags {
  uint64_t entities = 1'000'000;
  uint64_t keys = 5'000;
  std::string partkv = PARTKV_CLI_PATH;
  int rounds = 3;
  bool report_only = false;
};

// Parses the command line into `flags`, the PartitionKeys at most the rows. The exit status
// when the program ends here (help, or a bad flag); nullopt to go on.
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  CLI::App app{
      "partkv-import-bench: partkv import of sorted and interleaved PartitionKeys "
      "against the library's batch insert"};
  app.add_option("--entities", flags->entities, "rows in each file (default 1,000,000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000'000}));
  app.add_option("--partition_keys", flags->keys,
                 "PartitionKeys the rows spread over (default 5,000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_option("--partkv", flags->partkv, "the partkv tool (default: the one built with this)");
  app.add_option("--rounds", flags->rounds, "rounds of the three measurements (default 3)")
      ->check(CLI::Range(1, 20));
  app.add_flag("--report_only", flags->report_only, "exit 0 even when a target is missed");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  flags->keys = std::min(flags->keys, flags->entities);
  return std::nullopt;
}

void PrintBenchConfiguration(const Flags& flags, const Layout& layout, uint64_t input_bytes) {
  const uint64_t rows = layout.rows();
  PrintConfiguration(
      stdout,
      "partkv-import-bench: `partkv import`, sorted and interleaved, vs Table::Submit of the same "
      "rows",
      {{"rows", fmt::format("{} ({} PartitionKeys of {} rows), {} physical partitions", rows,
                            layout.keys, layout.per_key, TableOptions().physical_partitions)},
       {"input", fmt::format("{:.1f} MiB of JSON Lines a file ({} B a line)",
                             static_cast<double>(input_bytes) / (1 << 20), input_bytes / rows)},
       {"sorted", "PartitionKey by PartitionKey"},
       {"interleaved", fmt::format("round robin over the {} PartitionKeys", layout.keys)},
       {"baseline", "Table::Submit of the sorted rows, 100 a batch, only the calls timed"},
       {"tool",
        flags.partkv + " import (insert mode), timed from fork to exit; peak = ru_maxrss"}});
}

// Each round: the library's batch insert, then the import of the sorted file and of the
// interleaved one, each into a fresh store under `dir`.
std::vector<Round> RunRounds(const Flags& flags, const TempDir& dir, const Layout& layout,
                             const std::string& sorted, const std::string& interleaved) {
  const uint64_t rows = layout.rows();
  std::vector<Round> results;
  for (int r = 0; r < flags.rounds; ++r) {
    Round round;
    const std::string lib_dir = dir.Sub("library-" + std::to_string(r));
    round.library = LibraryRun(lib_dir, layout);
    std::error_code ec;
    std::filesystem::remove_all(lib_dir, ec);
    round.sorted = ImportRun(flags.partkv, dir.Sub("sorted-" + std::to_string(r)), sorted, rows);
    round.interleaved =
        ImportRun(flags.partkv, dir.Sub("interleaved-" + std::to_string(r)), interleaved, rows);
    results.push_back(round);
  }
  return results;
}

// Per round, the rate ratios and CPU-time ratios; the largest peak RSS of an import.
struct RoundRatios {
  std::vector<double> inter_sorted, sorted_lib, inter_lib, cpu_sorted, cpu_inter;
  double peak = 0;
};

// Prints each round's rates, ratios and peaks, then its CPU seconds.
RoundRatios PrintRounds(const std::vector<Round>& results) {
  std::printf("\n%-6s %12s %12s %12s %11s %11s %11s %11s %11s\n", "round", "library/s", "sorted/s",
              "interleav/s", "inter/sort", "sort/lib", "inter/lib", "peak sort", "peak inter");
  RoundRatios m;
  for (size_t i = 0; i < results.size(); ++i) {
    const Round& r = results[i];
    m.inter_sorted.push_back(r.interleaved.rate / r.sorted.rate);
    m.sorted_lib.push_back(r.sorted.rate / r.library.rate);
    m.inter_lib.push_back(r.interleaved.rate / r.library.rate);
    m.cpu_sorted.push_back(r.library.cpu_seconds / r.sorted.cpu_seconds);
    m.cpu_inter.push_back(r.library.cpu_seconds / r.interleaved.cpu_seconds);
    m.peak = std::max({m.peak, r.sorted.peak_rss_mib, r.interleaved.peak_rss_mib});
    std::printf("%-6zu %12.0f %12.0f %12.0f %10.2fx %10.2fx %10.2fx %7.1f MiB %7.1f MiB\n", i + 1,
                r.library.rate, r.sorted.rate, r.interleaved.rate, m.inter_sorted.back(),
                m.sorted_lib.back(), m.inter_lib.back(), r.sorted.peak_rss_mib,
                r.interleaved.peak_rss_mib);
  }
  std::printf("\nCPU seconds per round (library: its Submit calls; imports: the whole process):\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const Round& r = results[i];
    std::printf("  round %zu: library %.2f s, sorted import %.2f s, interleaved import %.2f s\n",
                i + 1, r.library.cpu_seconds, r.sorted.cpu_seconds, r.interleaved.cpu_seconds);
  }
  return m;
}

// Each target, met or missed, on the medians over the rounds. True when every one was met.
bool PrintTargets(const RoundRatios& m) {
  const double m_inter_sorted = Median(m.inter_sorted), m_sorted_lib = Median(m.sorted_lib),
               m_inter_lib = Median(m.inter_lib);
  const bool ok_inter = m_inter_sorted >= kTargetInterleavedRatio;
  const bool ok_sorted_lib = m_sorted_lib >= kTargetLibraryRatio;
  const bool ok_inter_lib = m_inter_lib >= kTargetLibraryRatio;
  const bool ok_peak = m.peak < kTargetPeakMiB;
  std::printf("\ntarget: interleaved import >= %.1fx the sorted import: median %.2fx, %s\n",
              kTargetInterleavedRatio, m_inter_sorted, Verdict(ok_inter).c_str());
  std::printf("target: sorted import >= %.1fx the library's batch insert: median %.2fx, %s\n",
              kTargetLibraryRatio, m_sorted_lib, Verdict(ok_sorted_lib).c_str());
  std::printf("target: interleaved import >= %.1fx the library's batch insert: median %.2fx, %s\n",
              kTargetLibraryRatio, m_inter_lib, Verdict(ok_inter_lib).c_str());
  std::printf("target: import peak RSS < %.0f MiB: %.1f MiB, %s\n", kTargetPeakMiB, m.peak,
              Verdict(ok_peak).c_str());
  std::printf(
      "CPU: the library's Submit calls over each import's whole process: median %.2fx "
      "(sorted), %.2fx (interleaved)\n",
      Median(m.cpu_sorted), Median(m.cpu_inter));
  return ok_inter && ok_sorted_lib && ok_inter_lib && ok_peak;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;
  Layout layout{flags.keys, flags.entities / flags.keys};

  TempDir dir("partkv-import-bench");
  const std::string sorted = dir.Sub("sorted.jsonl"), interleaved = dir.Sub("interleaved.jsonl");
  uint64_t input_bytes = WriteInput(sorted, layout, /*interleaved=*/false);
  (void)WriteInput(interleaved, layout, /*interleaved=*/true);
  PrintBenchConfiguration(flags, layout, input_bytes);

  const std::vector<Round> results = RunRounds(flags, dir, layout, sorted, interleaved);
  const RoundRatios ratios = PrintRounds(results);
  const bool all_met = PrintTargets(ratios);
  if (!all_met && flags.report_only) {
    std::printf("(--report_only: a missed target does not fail)\n");
  }
  return all_met || flags.report_only ? 0 : 1;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
