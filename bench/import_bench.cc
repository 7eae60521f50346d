// partkv-import-bench: `partkv import` of a JSON Lines file against the library's own batch insert
// of the same entities, in the same run, and the import's peak resident memory.
//
//   partkv-import-bench [--entities N] [--partkv PATH] [--rounds R]
//
// 1. Writes N entities of the common benchmark layout (bench_common.h) as JSON Lines, in key order,
//    so that every 100 consecutive lines share a PartitionKey.
// 2. Baseline, in this process: a fresh store, then Table::Submit of the same entities in batches
//    of 100 (MakeInsertBatch); only the Submit calls are timed.
// 3. The tool, as a child process: `partkv --store DIR import Bench FILE` into a fresh store with
//    the same table options; timed from fork to exit (so it includes the process start, the store
//    open and both of import's passes), and its peak RSS is the child's ru_maxrss.
// Each round runs both; the report gives every round and the median ratio. Targets (issue #5):
// import rate >= 0.5 x the library's batch-insert rate, and peak RSS < 400 MiB.
//
// Each round also reports CPU time, which a busy machine disturbs less than wall time: the
// library's is the calling thread's during the Submit calls (not RocksDB's background flushes),
// the tool's is the child's, every thread of it (flushes, process start and store open
// included), so the CPU ratio leans against the tool.
//
// Not a Google Benchmark: one of the two quantities is a child process's peak memory.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "partkv/json.h"
#include "partkv/store.h"

#ifndef PARTKV_CLI_PATH
#define PARTKV_CLI_PATH "partkv"
#endif

namespace partkv::bench {
namespace {

constexpr char kTableName[] = "Bench";
constexpr double kTargetRatio = 0.5;
constexpr double kTargetPeakMiB = 400;

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "partkv-import-bench: error: %s\n", what.c_str());
  std::exit(1);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

uint64_t WriteInput(const std::string& path, uint64_t entities) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) Die("cannot create " + path);
  uint64_t bytes = 0;
  for (uint64_t n = 0; n < entities; ++n) {
    std::string line = EntityToJson(MakeEntity(n));
    line.push_back('\n');
    bytes += std::fwrite(line.data(), 1, line.size(), f);
  }
  if (std::fclose(f) != 0) Die("cannot write " + path);
  return bytes;
}

double ThreadCpuSeconds() {
  struct rusage usage {};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct LibraryRun {
  double rate = 0;         // entities per second of the Submit calls
  double cpu_seconds = 0;  // the calling thread's CPU time in them
};

// Table::Submit over the whole layout, counting only the Submit calls.
LibraryRun LibraryRate(const std::string& dir, uint64_t entities) {
  auto store = Store::Open(dir);
  if (!store.ok()) Die("open store: " + store.status().ToString());
  Status cs = store->CreateTable(kTableName);
  if (!cs.ok()) Die("create table: " + cs.ToString());
  auto table = store->OpenTable(kTableName);
  if (!table.ok()) Die("open table: " + table.status().ToString());
  Clock::duration busy{};
  double cpu = 0;
  for (uint64_t b = 0; b < entities / kEntitiesPerPartitionKey; ++b) {
    Batch batch = MakeInsertBatch(b);
    double cpu0 = ThreadCpuSeconds();
    Clock::time_point t0 = Clock::now();
    auto r = table->Submit(batch);
    busy += Clock::now() - t0;
    cpu += ThreadCpuSeconds() - cpu0;
    if (!r.ok()) Die("batch " + std::to_string(b) + ": " + r.status().ToString());
  }
  return {static_cast<double>(entities) / Seconds(busy), cpu};
}

struct ChildRun {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, all threads
  double peak_rss_mib = 0;
};

// Runs the tool with `args` (its stdout to /dev/null when `quiet`); exits when it fails.
ChildRun RunTool(const std::string& partkv, const std::vector<std::string>& args,
                 bool quiet = false) {
  std::vector<std::string> all = {partkv};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  Clock::time_point start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) Die("fork failed");
  if (pid == 0) {
    if (quiet) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, STDOUT_FILENO);
    }
    execv(partkv.c_str(), argv.data());
    std::perror(("partkv-import-bench: exec " + partkv).c_str());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) Die("wait4 failed");
  ChildRun run;
  run.seconds = Seconds(Clock::now() - start);
  run.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  run.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024;  // ru_maxrss is in KiB
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Die(fmt::format("`partkv {}` failed (status {})", fmt::join(args, " "), status));
  }
  return run;
}

struct Round {
  double library_rate = 0;
  double import_rate = 0;
  double library_cpu = 0;  // seconds
  double import_cpu = 0;
  double peak_rss_mib = 0;
  double ratio() const { return import_rate / library_rate; }
  double cpu_ratio() const { return library_cpu / import_cpu; }
};

int Main(int argc, char** argv) {
  uint64_t entities = 1'000'000;
  std::string partkv = PARTKV_CLI_PATH;
  int rounds = 3;
  CLI::App app{"partkv-import-bench: partkv import against the library's batch insert"};
  app.add_option("--entities", entities, "entities in the file (default 1,000,000)")
      ->check(CLI::Range(uint64_t{100}, uint64_t{1'000'000'000}));
  app.add_option("--partkv", partkv, "the partkv tool (default: the one built with this)");
  app.add_option("--rounds", rounds, "rounds of both measurements (default 3)")
      ->check(CLI::Range(1, 20));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  entities -= entities % kEntitiesPerPartitionKey;

  TempDir dir("partkv-import-bench");
  std::string input = dir.Sub("entities.jsonl");
  uint64_t input_bytes = WriteInput(input, entities);
  PrintConfiguration(
      stdout, "partkv-import-bench: `partkv import` vs Table::Submit of the same entities",
      {{"entities", fmt::format("{} ({} PartitionKeys of 100 rows), {} physical partitions",
                                entities, entities / kEntitiesPerPartitionKey,
                                TableOptions().physical_partitions)},
       {"input", fmt::format("{:.1f} MiB of JSON Lines ({} B a line)",
                             static_cast<double>(input_bytes) / (1 << 20),
                             input_bytes / entities)},
       {"baseline", "Table::Submit of MakeInsertBatch(b), only the calls timed, in-process"},
       {"tool", partkv + " import (insert mode), timed from fork to exit; peak = ru_maxrss"}});

  std::vector<Round> results;
  for (int r = 0; r < rounds; ++r) {
    Round round;
    std::string lib_dir = dir.Sub("library-" + std::to_string(r));
    LibraryRun library = LibraryRate(lib_dir, entities);
    round.library_rate = library.rate;
    round.library_cpu = library.cpu_seconds;
    std::error_code ec;
    std::filesystem::remove_all(lib_dir, ec);

    std::string cli_dir = dir.Sub("tool-" + std::to_string(r));
    (void)RunTool(partkv, {"--store", cli_dir, "table", "create", kTableName}, /*quiet=*/true);
    ChildRun run = RunTool(partkv, {"--store", cli_dir, "import", kTableName, input});
    std::filesystem::remove_all(cli_dir, ec);
    round.import_rate = static_cast<double>(entities) / run.seconds;
    round.import_cpu = run.cpu_seconds;
    round.peak_rss_mib = run.peak_rss_mib;
    results.push_back(round);
  }

  std::printf("\n%-6s %16s %16s %8s %14s %12s %12s %10s\n", "round", "library rows/s",
              "import rows/s", "ratio", "import peak", "library CPU", "import CPU", "CPU ratio");
  for (size_t i = 0; i < results.size(); ++i) {
    const Round& r = results[i];
    std::printf("%-6zu %16.0f %16.0f %8.2f %10.1f MiB %10.2f s %10.2f s %10.2f\n", i + 1,
                r.library_rate, r.import_rate, r.ratio(), r.peak_rss_mib, r.library_cpu,
                r.import_cpu, r.cpu_ratio());
  }
  std::vector<double> ratios, cpu_ratios;
  double peak = 0;
  for (const Round& r : results) {
    ratios.push_back(r.ratio());
    cpu_ratios.push_back(r.cpu_ratio());
    peak = std::max(peak, r.peak_rss_mib);
  }
  double median = Median(ratios);
  std::printf("\ntarget: import >= %.1fx the library's batch insert: median %.2fx, %s\n",
              kTargetRatio, median, median >= kTargetRatio ? "met" : "MISSED");
  std::printf("CPU: the library's Submit calls over the import's whole process: median %.2fx\n",
              Median(cpu_ratios));
  std::printf("target: import peak RSS < %.0f MiB: %.1f MiB, %s\n", kTargetPeakMiB, peak,
              peak < kTargetPeakMiB ? "met" : "MISSED");
  return 0;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
