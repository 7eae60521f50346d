// partkv-throttle-bench: the cost of throttling emulation on single-entity inserts. Each round
// writes the same entities into a fresh store twice — throttling off, and on with budgets that
// are never exhausted (azure-table, 2,000 entities/s per PartitionKey; each key gets 100 rows) —
// and the ratio on/off is the median over interleaved rounds (thread CPU time, since the machine
// may be shared).
//
// Usage: partkv-throttle-bench [--entities N] [--rounds R]

#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <cstdio>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "partkv/partkv.h"

namespace partkv::bench {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "partkv-throttle-bench: error: %s\n", what.c_str());
  std::exit(1);
}

double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Inserts `entities` into a fresh store; returns inserts per CPU second.
double Run(const std::vector<Entity>& entities, bool throttling) {
  TempDir dir;
  StoreOptions options;
  options.throttling = throttling;
  auto store = Store::Open(dir.Sub("store"), options);
  if (!store.ok() || !store->CreateTable("Bench").ok()) Die("cannot create the store");
  auto table = store->OpenTable("Bench");
  double start = ThreadSeconds();
  for (const auto& e : entities) {
    auto r = table->Insert(e);
    if (!r.ok()) Die("insert failed: " + r.status().ToString());
  }
  double seconds = ThreadSeconds() - start;
  if (throttling && table->Statistics().total.throttled != 0) Die("a budget was exhausted");
  return static_cast<double>(entities.size()) / seconds;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main(int argc, char** argv) {
  size_t n = 100000;
  int rounds = 5;
  CLI::App app("partkv-throttle-bench");
  app.add_option("--entities", n, "entities inserted per run");
  app.add_option("--rounds", rounds, "interleaved rounds");
  CLI11_PARSE(app, argc, argv);
  std::vector<Entity> entities;
  entities.reserve(n);
  for (size_t i = 0; i < n; ++i) entities.push_back(MakeEntity(i));
  PrintConfiguration(stdout, "partkv-throttle-bench",
                     {{"workload", std::to_string(n) + " single inserts, 100 per PartitionKey"},
                      {"profile", "azure-table (2,000 entities/s per PartitionKey)"},
                      {"rounds", std::to_string(rounds) + " (off/on interleaved, order alternating)"}});
  std::vector<double> off, on, ratios;
  (void)Run(entities, false);  // warm-up, discarded: the first run of a process pays for it
  for (int r = 0; r < rounds; ++r) {
    double a, b;
    if (r % 2 == 0) {
      a = Run(entities, false);
      b = Run(entities, true);
    } else {
      b = Run(entities, true);
      a = Run(entities, false);
    }
    off.push_back(a);
    on.push_back(b);
    ratios.push_back(b / a);
    std::printf("round %d: off %.0f/s, on %.0f/s, on/off %.3f\n", r, a, b, b / a);
  }
  double ratio = Median(ratios);
  std::printf("\ninserts/s (median, CPU time)   off %.0f   on %.0f   on/off %.3f   cost of on: %.1f%%"
              "   target <= 10%%: %s\n",
              Median(off), Median(on), ratio, (1 - ratio) * 100, ratio >= 0.9 ? "met" : "MISSED");
  return 0;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
