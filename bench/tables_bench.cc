// partkv-tables-bench: what a table costs a store that holds many of them (issue 15). In one run:
//
//   1. Build, in a child process (this program re-executed with --child build): a fresh store of
//      the largest --tables count, every table holding --entities entities of the common layout
//      (bench_common.h; table i holds entities i*E .. i*E+E-1, in batches of one PartitionKey),
//      then closed. The child reports its peak RSS (VmHWM of /proc/self/status).
//   2. Hold, in a second child (--child hold): opens that store, opens every table, reads one
//      entity (Get) and one page (QueryEntities) of each, and reports its open time and peak RSS.
//   3. Reopen, here: Store::Open of the built store after the children closed it, --rounds times;
//      the median.
//   4. Creation latency: a store of each --tables count (the smaller ones built here the same way)
//      held open at once; --samples times, in turn on each store, a table is created (timed) and
//      dropped again (untimed), so every store keeps its count and a noisy moment of the machine
//      falls on every count alike. Median and p99 per count.
//   5. One table among many: a fresh table in the built store and one in a store of no other
//      table; --rounds rounds, each running on both tables --ops single Inserts, a paged query of
//      the whole table and --ops point Gets in scrambled order (the reads after a flush of both
//      stores, so that every row is read from files), every phase interleaved: 1/200 of the
//      operations (a page, for the query) on one table, then on the other, the first
//      alternating. Each rate's ratio is the median over the rounds of rate(many) / rate(one),
//      timed by the calling thread's CPU time — on a machine whose cores other processes share,
//      the wall clock mostly measures them (a round's wall-clock ratios spread from 0.5 to 1.6 on
//      two busy cores) — with the wall-clock ratio printed beside it.
//
// Targets (issue 15): creation p99 at the largest count <= 2x the p99 at the smallest; both peaks
// < 200 MiB; insert, query and Get ratios >= 0.9; reopen < 2 s. The figures are printed as one
// table with each target and PASS or FAIL; the exit status is 1 when a target is missed (0 with
// --report_only, for a smoke run at a size where the figures mean nothing) and 2 on an error.
//
//   partkv-tables-bench [--tables 10,1000,10000] [--entities 100] [--samples 200] [--rounds 5]
//                       [--ops 20000] [--report_only]
//
// Not a Google Benchmark: two of the figures are whole processes' peaks, and the latencies are
// percentiles of single calls.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"
#include "partkv/store.h"
#include "tools/common/child_process.h"

namespace partkv::bench {
namespace {

constexpr double kMaxP99Ratio = 2.0;
constexpr double kMaxPeakMiB = 200;
constexpr double kMinRateRatio = 0.9;
constexpr double kMaxReopenSeconds = 2.0;
constexpr char kHotTable[] = "Hot";

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
double PeakMiB() { return static_cast<double>(ProcStatusKiB("VmHWM")) / 1024; }

// Progress on stderr, only when someone watches it.
void Progress(const std::string& what) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) std::fprintf(stderr, "%s\n", what.c_str());
}

// "T00042": the tables of every store.
std::string TableName(uint64_t i) { return fmt::format("T{:05d}", i); }

Store OpenStore(const std::string& dir) {
  auto store = Store::Open(dir);
  if (!store.ok()) Die("open " + dir + ": " + store.status().ToString());
  return std::move(*store);
}

Table OpenTable(const Store& store, const std::string& name) {
  auto table = store.OpenTable(name);
  if (!table.ok()) Die("open table " + name + ": " + table.status().ToString());
  return *table;
}

// Entities first .. first+count-1 of the common layout, one batch per PartitionKey.
void WriteEntities(Table& table, uint64_t first, uint64_t count) {
  Batch batch;
  auto submit = [&] {
    auto r = table.Submit(batch);
    if (!r.ok()) Die("write " + table.name() + ": " + r.status().ToString());
    batch.Clear();
  };
  for (uint64_t n = first; n < first + count; ++n) {
    if (!batch.empty() && n % kEntitiesPerPartitionKey == 0) submit();
    batch.Insert(MakeEntity(n));
  }
  if (!batch.empty()) submit();
}

// Tables 0 .. tables-1 of `entities` entities each, created first and written after.
void AddTables(Store& store, uint64_t tables, uint64_t entities) {
  for (uint64_t i = 0; i < tables; ++i) {
    Status s = store.CreateTable(TableName(i));
    if (!s.ok()) Die("create table " + std::to_string(i) + ": " + s.ToString());
    if ((i + 1) % 1000 == 0) Progress(fmt::format("  {} tables created", i + 1));
  }
  for (uint64_t i = 0; i < tables; ++i) {
    Table table = OpenTable(store, TableName(i));
    WriteEntities(table, i * entities, entities);
    if ((i + 1) % 1000 == 0) Progress(fmt::format("  {} tables written", i + 1));
  }
}

// --child build: the store of `tables` tables in `dir`, then this process's peak.
nlohmann::json ChildBuild(const std::string& dir, uint64_t tables, uint64_t entities) {
  {
    Store store = OpenStore(dir);
    AddTables(store, tables, entities);
  }
  return {{"peak_rss_mib", PeakMiB()}};
}

// --child hold: opens the store in `dir`, every table, and reads from each.
nlohmann::json ChildHold(const std::string& dir, uint64_t tables, uint64_t entities) {
  Clock::time_point start = Clock::now();
  Store store = OpenStore(dir);
  double open_seconds = Seconds(Clock::now() - start);
  auto listed = store.ListTables();
  if (!listed.ok() || listed->size() != tables) {
    Die(fmt::format("the built store lists {} tables, not {}", listed.ok() ? listed->size() : 0,
                    tables));
  }
  std::vector<Table> held;
  held.reserve(tables);
  Query page;
  page.page_size = 100;
  for (uint64_t i = 0; i < tables; ++i) {
    held.push_back(OpenTable(store, TableName(i)));
    uint64_t n = i * entities;
    auto got = held.back().Get(PartitionKeyOf(n / kEntitiesPerPartitionKey), RowKeyOf(n));
    if (entities > 0 && !got.ok()) Die("get from " + TableName(i) + ": " + got.status().ToString());
    auto q = held.back().QueryEntities(page);
    if (!q.ok()) Die("query " + TableName(i) + ": " + q.status().ToString());
  }
  return {{"open_seconds", open_seconds}, {"peak_rss_mib", PeakMiB()}};
}

// Runs this program again with --child `mode`; returns the JSON line it prints.
nlohmann::json RunChild(const std::string& mode, const std::string& dir, uint64_t tables,
                        uint64_t entities) {
  std::vector<std::string> args = {"partkv-tables-bench",
                                   "--child",
                                   mode,
                                   "--dir",
                                   dir,
                                   "--tables",
                                   std::to_string(tables),
                                   "--entities",
                                   std::to_string(entities)};
  tools::ChildRun run = tools::RunChild("/proc/self/exe", args, tools::ChildOutput::kCapture);
  if (!run.exited_ok()) {
    Die(fmt::format("the {} child failed (status {})", mode, run.wait_status));
  }
  auto report = nlohmann::json::parse(run.output, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) Die("the " + mode + " child printed no report");
  return report;
}

struct Latency {
  uint64_t tables = 0;
  std::vector<double> create_ms;
  std::vector<double> drop_ms;  // for context
};

// --samples creates (and drops) on each store in turn.
std::vector<Latency> CreationLatency(std::vector<Store>& stores,
                                     const std::vector<uint64_t>& counts, uint64_t samples) {
  std::vector<Latency> out(stores.size());
  for (size_t k = 0; k < stores.size(); ++k) out[k].tables = counts[k];
  for (uint64_t s = 0; s < samples; ++s) {
    std::string name = fmt::format("Probe{:05d}", s);
    for (size_t k = 0; k < stores.size(); ++k) {
      Clock::time_point t0 = Clock::now();
      Status created = stores[k].CreateTable(name);
      Clock::time_point t1 = Clock::now();
      if (!created.ok()) Die("create " + name + ": " + created.ToString());
      Status dropped = stores[k].DropTable(name);
      Clock::time_point t2 = Clock::now();
      if (!dropped.ok()) Die("drop " + name + ": " + dropped.ToString());
      out[k].create_ms.push_back(Seconds(t1 - t0) * 1e3);
      out[k].drop_ms.push_back(Seconds(t2 - t1) * 1e3);
    }
  }
  return out;
}

// The three phases of a round.
enum Phase { kInsert = 0, kQuery = 1, kGet = 2 };
constexpr const char* kPhaseNames[] = {"insert", "table query", "point Get"};

// Rows per second of one round's phases on one table, by the wall clock and by the calling
// thread's CPU time.
struct Rates {
  double wall[3] = {};
  double cpu[3] = {};
};

// Operations a slice of a phase runs on one table before the other table takes its turn.
constexpr uint64_t kSlices = 200;

// Round `round` on both tables, each phase interleaved slice by slice (the table going first
// alternates from slice to slice), so that a moment of a busy machine falls on both alike:
// inserts of entities round*ops .. round*ops+ops-1 one by one; a query of the whole table, a page
// of each in turn; Gets of `ops` of the entities written so far, in scrambled order.
std::pair<Rates, Rates> RunRound(Store& store_a, Table& a, Store& store_b, Table& b, uint64_t round,
                                 uint64_t ops) {
  Table* tables[2] = {&a, &b};
  double wall[2][3] = {}, cpu[2][3] = {};
  auto timed = [&](int side, Phase phase, auto&& body) {
    double cpu0 = ThisThreadCpuSeconds();
    Clock::time_point t0 = Clock::now();
    body();
    wall[side][phase] += Seconds(Clock::now() - t0);
    cpu[side][phase] += ThisThreadCpuSeconds() - cpu0;
  };
  const uint64_t slice = std::max<uint64_t>(1, ops / kSlices);
  // Runs `step(table, begin, end)` over [0, count) on both tables, slice by slice.
  auto interleave = [&](Phase phase, uint64_t count, auto&& step) {
    for (uint64_t begin = 0, turn = round; begin < count; begin += slice, ++turn) {
      uint64_t end = std::min(count, begin + slice);
      for (uint64_t k = 0; k < 2; ++k) {
        int side = static_cast<int>((turn + k) % 2);
        timed(side, phase, [&] { step(*tables[side], begin, end); });
      }
    }
  };

  std::vector<Entity> entities;
  entities.reserve(ops);
  for (uint64_t n = round * ops; n < (round + 1) * ops; ++n) entities.push_back(MakeEntity(n));
  interleave(kInsert, ops, [&](Table& table, uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      auto w = table.Insert(entities[i]);
      if (!w.ok()) Die("insert into " + table.name() + ": " + w.status().ToString());
    }
  });

  // The reads find every row of both tables in files, as most of a store's rows are, not some
  // in a memtable and some in files by where each store's last flush happened to fall.
  for (Store* store : {&store_a, &store_b}) {
    Status flushed = store->Flush();
    if (!flushed.ok()) Die("flush: " + flushed.ToString());
  }

  // One page per turn: both tables hold the same rows, so their pages pair up.
  const uint64_t written = (round + 1) * ops;
  Query queries[2];
  Page pages[2];
  uint64_t rows[2] = {0, 0};
  bool done[2] = {false, false};
  for (uint64_t turn = round; !done[0] || !done[1]; ++turn) {
    for (uint64_t k = 0; k < 2; ++k) {
      int side = static_cast<int>((turn + k) % 2);
      if (done[side]) continue;
      Table& table = *tables[side];
      Status s;
      timed(side, kQuery, [&] { s = table.QueryEntities(queries[side], &pages[side]); });
      if (!s.ok()) Die("query " + table.name() + ": " + s.ToString());
      rows[side] += pages[side].entities.size();
      done[side] = !pages[side].has_more();
      queries[side].continuation = pages[side].continuation;
    }
  }
  for (int side = 0; side < 2; ++side) {
    if (rows[side] != written) {
      Die(fmt::format("the query of {} read {} rows, not {}", tables[side]->name(), rows[side],
                      written));
    }
  }

  Permutation order(written);
  std::vector<std::pair<std::string, std::string>> keys;
  keys.reserve(ops);
  for (uint64_t i = 0; i < ops; ++i) {
    uint64_t n = order[(round * ops + i) % written];
    keys.emplace_back(PartitionKeyOf(n / kEntitiesPerPartitionKey), RowKeyOf(n));
  }
  interleave(kGet, ops, [&](Table& table, uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      auto e = table.Get(keys[i].first, keys[i].second);
      if (!e.ok()) Die("get from " + table.name() + ": " + e.status().ToString());
    }
  });

  auto rates = [&](int side) {
    const double rows[3] = {static_cast<double>(ops), static_cast<double>(written),
                            static_cast<double>(ops)};
    Rates r;
    for (int phase = 0; phase < 3; ++phase) {
      r.wall[phase] = rows[phase] / wall[side][phase];
      r.cpu[phase] = rows[phase] / cpu[side][phase];
    }
    return r;
  };
  return {rates(0), rates(1)};
}

// One line of the result table.
struct Figure {
  std::string label;
  std::string value;
  std::string target;  // empty: for context only
  bool pass = true;
};

// The command line.
struct Flags {
  std::vector<uint64_t> counts = {10, 1000, 10000};
  uint64_t entities = 100;
  uint64_t samples = 200;
  uint64_t rounds = 5;
  uint64_t ops = 20000;
  bool report_only = false;
  std::string child, child_dir;
};

// Parses the command line into `flags`, the table counts sorted and unique. The exit status
// when the program ends here (help, or a bad flag); nullopt to go on.
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  CLI::App app{"partkv-tables-bench: what a table costs a store of many tables"};
  app.add_option("--tables", flags->counts,
                 "table counts for the creation latencies, smallest first; the largest is also "
                 "the store of the memory, rate and reopen figures (default 10,1000,10000)")
      ->delimiter(',')
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000}));
  app.add_option("--entities", flags->entities, "entities in every table (default 100)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1'000'000}));
  app.add_option("--samples", flags->samples, "timed table creations per count (default 200)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{99'999}));
  app.add_option("--rounds", flags->rounds,
                 "rounds of the rate comparison and of the reopen (default 5)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{99}));
  app.add_option("--ops", flags->ops, "inserts and Gets per round (default 20,000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_flag("--report_only", flags->report_only,
               "print the targets' PASS/FAIL but exit 0 when one is missed");
  app.add_option("--child", flags->child, "run one child step (build, hold)")->group("");
  app.add_option("--dir", flags->child_dir, "the child's store")->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  std::sort(flags->counts.begin(), flags->counts.end());
  flags->counts.erase(std::unique(flags->counts.begin(), flags->counts.end()), flags->counts.end());
  return std::nullopt;
}

// --child STEP: runs the step on the store of `many` tables and prints its report as JSON.
int RunChildStep(const Flags& flags, uint64_t many) {
  nlohmann::json report;
  if (flags.child == "build") {
    report = ChildBuild(flags.child_dir, many, flags.entities);
  } else if (flags.child == "hold") {
    report = ChildHold(flags.child_dir, many, flags.entities);
  } else {
    Die("unknown --child step '" + flags.child + "'");
  }
  std::printf("%s\n", report.dump().c_str());
  return 0;
}

void PrintBenchConfiguration(const Flags& flags, uint64_t many) {
  PrintConfiguration(
      stdout, "partkv-tables-bench: the cost of a table in a store of many tables",
      {{"tables", fmt::format("{} (creation latency at each count; the last also for memory, "
                              "rates and reopen)",
                              fmt::join(flags.counts, ", "))},
       {"table", fmt::format("{} entities, {} physical partitions, default StoreOptions "
                             "({} MiB memory budget)",
                             flags.entities, TableOptions().physical_partitions,
                             StoreOptions().memory_budget_bytes >> 20)},
       {"creation", fmt::format("{} timed CreateTable per count, each dropped again untimed, "
                                "counts in turn",
                                flags.samples)},
       {"rates", fmt::format("{} rounds of {} single Inserts, a paged query of the table, {} "
                             "Gets in scrambled order; {} tables vs 1, interleaved in slices of "
                             "{} operations (a page for the query); timed by the thread's CPU time "
                             "(and the wall clock)",
                             flags.rounds, flags.ops, flags.ops, many,
                             std::max<uint64_t>(1, flags.ops / kSlices))},
       {"memory",
        "VmHWM of a fresh child process: one builds the store, one reopens it and reads "
        "every table"}});
}

// Store::Open of the store in `dir`, `rounds` times: the seconds of each.
std::vector<double> TimeReopens(const std::string& dir, uint64_t rounds) {
  std::vector<double> reopen_seconds;
  for (uint64_t r = 0; r < rounds; ++r) {
    Clock::time_point t0 = Clock::now();
    Store store = OpenStore(dir);
    reopen_seconds.push_back(Seconds(Clock::now() - t0));
  }
  return reopen_seconds;
}

// A store of each table count: the largest is the one built in `many_dir`, the others are built
// here under `dir`.
std::vector<Store> OpenStoresOfEachCount(const TempDir& dir, const std::string& many_dir,
                                         const Flags& flags, uint64_t many) {
  std::vector<Store> stores;
  for (uint64_t count : flags.counts) {
    if (count == many) {
      stores.push_back(OpenStore(many_dir));
    } else {
      stores.push_back(OpenStore(dir.Sub(fmt::format("tables-{}", count))));
      AddTables(stores.back(), count, flags.entities);
    }
  }
  return stores;
}

// Each round's rates of the table among many and of the table alone.
struct RateRounds {
  std::vector<Rates> with_many, alone;
};

// Creates the hot table in both stores and runs the rounds on them.
RateRounds CompareOneAmongMany(Store& many_store, Store& one_store, const Flags& flags) {
  for (Store* s : {&many_store, &one_store}) {
    Status created = s->CreateTable(kHotTable);
    if (!created.ok()) Die(std::string("create ") + kHotTable + ": " + created.ToString());
  }
  Table hot_many = OpenTable(many_store, kHotTable);
  Table hot_one = OpenTable(one_store, kHotTable);
  RateRounds out;
  for (uint64_t r = 0; r < flags.rounds; ++r) {
    auto [m, o] = RunRound(many_store, hot_many, one_store, hot_one, r, flags.ops);
    out.with_many.push_back(m);
    out.alone.push_back(o);
  }
  return out;
}

// Per round, rate(many) / rate(one) of `phase` by `clock`.
std::vector<double> Ratios(const RateRounds& rates, double (Rates::*clock)[3], int phase) {
  std::vector<double> out;
  for (size_t r = 0; r < rates.with_many.size(); ++r) {
    out.push_back((rates.with_many[r].*clock)[phase] / (rates.alone[r].*clock)[phase]);
  }
  return out;
}

// The median over `rounds` of the rate of `phase` by `clock`.
double MedianRate(const std::vector<Rates>& rounds, double (Rates::*clock)[3], int phase) {
  std::vector<double> v;
  for (const Rates& r : rounds) v.push_back((r.*clock)[phase]);
  return Median(v);
}

// Creation and drop latencies at each count, and the creation p99's growth (a target).
void AddLatencyFigures(const std::vector<Latency>& latency, std::vector<Figure>* figures) {
  for (const Latency& l : latency) {
    figures->push_back(
        {fmt::format("create: median / p99 at {} tables", l.tables),
         fmt::format("{:.2f} / {:.2f} ms", Median(l.create_ms), Quantile(l.create_ms, 0.99)), "",
         true});
  }
  for (const Latency& l : latency) {
    figures->push_back(
        {fmt::format("drop: median / p99 at {} tables", l.tables),
         fmt::format("{:.2f} / {:.2f} ms", Median(l.drop_ms), Quantile(l.drop_ms, 0.99)), "",
         true});
  }
  double p99_ratio =
      Quantile(latency.back().create_ms, 0.99) / Quantile(latency.front().create_ms, 0.99);
  figures->push_back({fmt::format("create p99: {} tables / {} tables", latency.back().tables,
                                  latency.front().tables),
                      fmt::format("{:.2f}x", p99_ratio), fmt::format("<= {:.1f}x", kMaxP99Ratio),
                      p99_ratio <= kMaxP99Ratio});
}

// The children's peak RSS (targets).
void AddMemoryFigures(const nlohmann::json& built, const nlohmann::json& held, uint64_t many,
                      uint64_t entities, std::vector<Figure>* figures) {
  for (const auto& [what, report] :
       {std::pair<std::string, const nlohmann::json*>{"building", &built}, {"holding", &held}}) {
    double peak = (*report)["peak_rss_mib"].get<double>();
    figures->push_back({fmt::format("peak RSS {} {} tables x {}", what, many, entities),
                        fmt::format("{:.1f} MiB", peak), fmt::format("< {:.0f} MiB", kMaxPeakMiB),
                        peak < kMaxPeakMiB});
  }
}

// Per phase: the median over the rounds of rate(many) / rate(one), by CPU time (the target) and
// by the wall clock.
void AddRateFigures(const RateRounds& rates, uint64_t many, std::vector<Figure>* figures) {
  for (int phase = 0; phase < 3; ++phase) {
    double ratio = Median(Ratios(rates, &Rates::cpu, phase));
    figures->push_back(
        {fmt::format("{}: {} tables / 1, CPU time (wall clock {:.2f}x)", kPhaseNames[phase], many,
                     Median(Ratios(rates, &Rates::wall, phase))),
         fmt::format("{:.2f}x", ratio), fmt::format(">= {:.2f}x", kMinRateRatio),
         ratio >= kMinRateRatio});
  }
}

// The first open in a fresh process, and the reopen's median (a target).
void AddOpenFigures(const nlohmann::json& held, const std::vector<double>& reopen_seconds,
                    uint64_t many, std::vector<Figure>* figures) {
  figures->push_back({"open: first, in a fresh process",
                      fmt::format("{:.3f} s", held["open_seconds"].get<double>()), "", true});
  double reopen = Median(reopen_seconds);
  figures->push_back({fmt::format("reopen of the {}-table store (median)", many),
                      fmt::format("{:.3f} s", reopen), fmt::format("< {:.0f} s", kMaxReopenSeconds),
                      reopen < kMaxReopenSeconds});
}

// The result table. True when every target was met.
bool PrintFigures(const std::vector<Figure>& figures) {
  std::printf("\n%-62s %16s %10s  %s\n", "figure", "value", "target", "result");
  bool all_pass = true;
  for (const Figure& f : figures) {
    std::string result = f.target.empty() ? "" : f.pass ? "PASS" : "FAIL";
    std::printf("%-62s %16s %10s  %s\n", f.label.c_str(), f.value.c_str(), f.target.c_str(),
                result.c_str());
    all_pass = all_pass && f.pass;
  }
  std::printf("\n");
  return all_pass;
}

// By CPU time and by the wall clock: each side's median rate per phase, and each round's ratios.
void PrintRates(const RateRounds& rates, uint64_t many) {
  for (auto [clock, name] : {std::pair{&Rates::cpu, "CPU time"}, {&Rates::wall, "wall clock"}}) {
    std::printf("rows/s by %s, %zu tables vs 1 (median):", name, static_cast<size_t>(many));
    for (int phase = 0; phase < 3; ++phase) {
      std::printf(" %s %.0f vs %.0f;", kPhaseNames[phase],
                  MedianRate(rates.with_many, clock, phase), MedianRate(rates.alone, clock, phase));
    }
    std::printf("\n  ratio per round (insert, query, Get):");
    std::vector<double> by_phase[3] = {Ratios(rates, clock, kInsert), Ratios(rates, clock, kQuery),
                                       Ratios(rates, clock, kGet)};
    for (size_t r = 0; r < rates.with_many.size(); ++r) {
      std::printf(" [%.2f %.2f %.2f]", by_phase[0][r], by_phase[1][r], by_phase[2][r]);
    }
    std::printf("\n");
  }
}

int Main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;
  const uint64_t many = flags.counts.back();
  if (!flags.child.empty()) return RunChildStep(flags, many);

  TempDir dir("partkv-tables-bench");
  PrintBenchConfiguration(flags, many);

  const std::string many_dir = dir.Sub("many");
  Progress(
      fmt::format("building {} tables of {} entities (child process)...", many, flags.entities));
  nlohmann::json built = RunChild("build", many_dir, many, flags.entities);
  Progress("reopening them and reading every table (child process)...");
  nlohmann::json held = RunChild("hold", many_dir, many, flags.entities);
  const std::vector<double> reopen_seconds = TimeReopens(many_dir, flags.rounds);

  Progress("building the smaller stores...");
  std::vector<Store> stores = OpenStoresOfEachCount(dir, many_dir, flags, many);
  Progress("timing table creation...");
  std::vector<Latency> latency = CreationLatency(stores, flags.counts, flags.samples);

  Progress("comparing one table among many with one alone...");
  Store one_store = OpenStore(dir.Sub("one"));
  const RateRounds rates = CompareOneAmongMany(stores.back(), one_store, flags);

  std::vector<Figure> figures;
  AddLatencyFigures(latency, &figures);
  AddMemoryFigures(built, held, many, flags.entities, &figures);
  AddRateFigures(rates, many, &figures);
  AddOpenFigures(held, reopen_seconds, many, &figures);
  const bool all_pass = PrintFigures(figures);
  PrintRates(rates, many);
  std::printf("%s\n", all_pass ? "every target met" : "a target was missed");
  return all_pass || flags.report_only ? 0 : 1;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
