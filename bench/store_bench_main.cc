// partkv-store-bench: the store foundation's operations against their raw RocksDB counterparts,
// run in the same process on the same key and value bytes, reported as ratios partkv/raw.
//
//   Insert (validation, ETag, uniqueness check under the row lock)  vs  DB::Put
//   Submit of a 100-insert Batch (MultiGet + one WriteBatch)        vs  a WriteBatch of the 100
//   Get decoded into an Entity                                     vs  DB::Get into a PinnableSlice
//
// The raw database is configured like a store: its options are taken from an open store
// (engine::StoreState) and only the shared objects — block cache and write-buffer manager — are
// replaced by fresh ones of the same sizes, so a change to the store's options moves the baseline
// with it. Raw writes go to 16 column families, routed exactly as the table routes them, with the
// keys and values partkv itself would write (engine/key_codec.h, engine/value_codec.h). The raw
// Get reads the very column families of the store the partkv Get reads, so both see one LSM shape
// and one warm block cache.
//
// Every write benchmark starts from an empty database and runs a fixed number of operations, so
// both sides do the same work; entities are generated outside the timed region. The pairs run
// interleaved for --rounds rounds (alternating which side goes first); each ratio is the median of
// the per-round ratios. Extra flags, after Google Benchmark's own:
//   --rounds N  --inserts N  --batches N  --read_entities N  --gets N  --ratios_out PATH
//
// This file holds main() and the ratio table; the stores are in store_bench_fixture.h, the
// benchmark bodies in store_bench_benchmarks.h.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "bench/bench_report.h"
#include "bench/store_bench_benchmarks.h"
#include "bench/store_bench_fixture.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace partkv::bench::store_bench {
namespace {

struct Pair {
  const char* label;
  const char* partkv;
  const char* raw;
  void (*partkv_fn)(benchmark::State&);
  void (*raw_fn)(benchmark::State&);
  uint64_t iterations;
  double target;
};

// Items per second of the benchmark thread's CPU time. The pairs run UseRealTime(), so
// items_per_second is the wall-clock rate (what a caller sees); the CPU rate is steadier when
// other processes share the cores.
double CpuRate(const RunRate& rate) {
  return rate.items_per_second * rate.real_seconds / rate.cpu_seconds;
}

// Parses the command line into g_config. The exit status when the program ends here (help, or
// a bad flag); nullopt to go on.
std::optional<int> ParseFlags(int argc, char** argv) {
  CLI::App app{"partkv-store-bench: partkv operations against raw RocksDB"};
  app.add_option("--rounds", g_config.rounds, "interleaved rounds of every pair")
      ->check(CLI::Range(1, 99));
  app.add_option("--inserts", g_config.inserts, "single inserts per round")
      ->check(CLI::PositiveNumber);
  app.add_option("--batches", g_config.batches, "100-insert batches per round")
      ->check(CLI::PositiveNumber);
  app.add_option("--read_entities", g_config.read_entities, "entities in the read table")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--gets", g_config.gets, "Gets per round")->check(CLI::PositiveNumber);
  app.add_option("--ratios_out", g_config.ratios_out, "write the ratios as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return std::nullopt;
}

// Registers every pair once per round.
void RegisterRounds(const std::vector<Pair>& pairs) {
  for (int round = 1; round <= g_config.rounds; ++round) {
    for (const Pair& p : pairs) {
      auto add = [&](const char* name, void (*fn)(benchmark::State&)) {
        benchmark::RegisterBenchmark(fmt::format("{}/round:{}", name, round).c_str(), fn)
            ->Iterations(static_cast<benchmark::IterationCount>(p.iterations))
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      };
      // Alternate who goes first, so background work left by one side does not always fall on
      // the other.
      if (round % 2 == 1) {
        add(p.partkv, p.partkv_fn);
        add(p.raw, p.raw_fn);
      } else {
        add(p.raw, p.raw_fn);
        add(p.partkv, p.partkv_fn);
      }
    }
  }
}

// Pair `p`'s line of the ratio table, its entry in out["ratios"] and its line of per-round and
// CPU-time ratios in `cpu_lines`. False when it missed its target.
bool ReportPair(const Pair& p, const RatesByName& rates, nlohmann::json* out,
                std::vector<std::string>* cpu_lines) {
  auto pk = rates.find(p.partkv);
  auto rw = rates.find(p.raw);
  if (pk == rates.end() || rw == rates.end()) {
    std::printf("%-34s %11s\n", p.label, "not run");
    return true;
  }
  std::vector<double> partkv_rates, raw_rates, ratios, cpu_ratios;
  for (const auto& [round, rate] : pk->second) {
    partkv_rates.push_back(rate.items_per_second);
    if (auto r = rw->second.find(round); r != rw->second.end() && r->second.items_per_second > 0) {
      ratios.push_back(rate.items_per_second / r->second.items_per_second);
      cpu_ratios.push_back(CpuRate(rate) / CpuRate(r->second));
    }
  }
  for (const auto& [round, rate] : rw->second) raw_rates.push_back(rate.items_per_second);
  double ratio = Median(ratios);
  double cpu_ratio = Median(cpu_ratios);
  bool met = ratio >= p.target;
  std::printf("%-34s %11.0f %11.0f %6.2fx %6.2fx %8s\n", p.label, Median(partkv_rates),
              Median(raw_rates), ratio, p.target, met ? "met" : "MISSED");
  std::string rounds;
  for (double r : ratios) rounds += fmt::format(" {:.2f}", r);
  cpu_lines->push_back(
      fmt::format("  {:<32} per round:{}; by CPU time {:.2f}x", p.label, rounds, cpu_ratio));
  (*out)["ratios"].push_back({{"pair", p.label},
                              {"partkv", p.partkv},
                              {"raw", p.raw},
                              {"partkv_items_per_second", Median(partkv_rates)},
                              {"raw_items_per_second", Median(raw_rates)},
                              {"per_round_ratios", ratios},
                              {"ratio", ratio},
                              {"ratio_by_cpu_time", cpu_ratio},
                              {"target", p.target},
                              {"met", met}});
  return met;
}

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (std::optional<int> exit = ParseFlags(argc, argv)) return *exit;

  Fixture fixture;
  g_fixture = &fixture;
  std::fprintf(stderr, "populating the read table (%llu entities)...\n",
               static_cast<unsigned long long>(g_config.read_entities));
  BuildFixture(&fixture);
  PrintConfiguration(stdout, "partkv-store-bench: partkv vs raw RocksDB, same process, same bytes",
                     FixtureFacts(fixture));

  const std::vector<Pair> pairs = {
      {"Insert / raw Put", "partkv_Insert", "raw_Put", BM_PartkvInsert, BM_RawPut, g_config.inserts,
       0.7},
      {"Batch(100) / raw WriteBatch(100)", "partkv_Batch100", "raw_WriteBatch100", BM_PartkvBatch,
       BM_RawWriteBatch, g_config.batches, 0.6},
      {"Get / raw Get", "partkv_Get", "raw_Get", BM_PartkvGet, BM_RawGet, g_config.gets, 0.7},
  };
  RegisterRounds(pairs);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  nlohmann::json out = ReportJson(FixtureFacts(fixture));
  out["ratios"] = nlohmann::json::array();
  std::printf("\n%-34s %11s %11s %7s %7s %8s\n", "items/s (median of rounds)", "partkv", "raw",
              "ratio", "target", "");
  bool all_met = true;
  std::vector<std::string> cpu_lines;
  for (const Pair& p : pairs) {
    const bool met = ReportPair(p, reporter.rates(), &out, &cpu_lines);
    all_met = all_met && met;
  }
  for (const auto& line : cpu_lines) std::printf("%s\n", line.c_str());
  out["all_targets_met"] = all_met;
  return FinishReport("partkv-store-bench", reporter, out, g_config.ratios_out);
}

}  // namespace
}  // namespace partkv::bench::store_bench

int main(int argc, char** argv) { return partkv::bench::store_bench::Main(argc, argv); }
