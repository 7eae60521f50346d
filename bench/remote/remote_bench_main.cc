// partkv-remote-bench: the workload of bench/remote/workload.h through partkv's remote client
// (Store::Open of a connection string; public API only), one process, every phase in turn. It
// is one half of bench/remote/run.sh, which runs sdk_bench.mjs (the same workload through
// @azure/data-tables) against the same `partkv serve` and reports the two side by side.
//
//   partkv-remote-bench --endpoint CONNECTION_STRING [--prefix cpp1] [--scale 1]
//                       [--phases shards_full,...]
//
// Creates the tables PREFIX + "bench" and PREFIX + "shards" (they must not exist) and prints one
// JSON document on stdout: the configuration and, per phase, its operations, wall seconds, this
// process's CPU seconds and its peak RSS during the phase (phase_meter.h). Setup that no phase
// times (creating tables, writing the sharded key) happens between phases. Any failed call ends
// the run: one line on stderr, exit status 2.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "bench/remote/phase_meter.h"
#include "bench/remote/workload.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "partkv/store.h"

namespace partkv::bench::remote {
namespace {

void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

// Progress on stderr, only when someone watches it.
void Progress(const std::string& what) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) std::fprintf(stderr, "  partkv: %s\n", what.c_str());
}

// Runs fn(i) for i in 0..count-1 on `threads` threads taking the next i in turn: `threads`
// calls in flight, as the SDK's `threads` promises.
template <typename Fn>
void InParallel(uint64_t count, uint32_t threads, Fn fn) {
  std::atomic<uint64_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  auto work = [&] {
    for (uint64_t i; (i = next.fetch_add(1)) < count;) {
      Status s = fn(i);
      if (!s.ok()) {
        std::lock_guard lock(failure_mutex);
        if (failure.empty()) failure = s.ToString();
        next = count;
      }
    }
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  if (!failure.empty()) Die(failure);
}

// The warm-up's inserts, batched entities and reads (workload.h).
constexpr uint64_t kWarmUpCalls = 1000;

class Bench {
 public:
  // `wanted`: the phases to time, all when empty.
  Bench(Store store, Workload w, std::string prefix, std::vector<std::string> wanted)
      : store_(std::move(store)), w_(w), prefix_(std::move(prefix)), wanted_(std::move(wanted)) {}

  nlohmann::json Run() {
    Table table = Create(prefix_ + "bench", {});
    WarmUp(table);
    const bool reads = Wanted("get16");
    const bool queries = Wanted("query10k") || Wanted("query100k");
    Phase("insert16", "single inserts, 16 in flight", w_.inserts, reads, table,
          [&] { Inserts(table); });
    Phase("batch100", "batches of 100 (entities)", w_.small_partition + w_.large_partition, queries,
          table, [&] {
            WritePartition(table, "p10k", w_.small_partition);
            WritePartition(table, "p100k", w_.large_partition);
          });
    Phase("get16", "point reads, 16 in flight", w_.reads, false, table, [&] { Gets(table); });
    Phase("query10k", "paged query, pages of 1000 (entities)", w_.small_partition, false, table,
          [&] { PagePartition(table, "p10k", w_.small_partition); });
    Phase("query100k", "paged query, pages of 1000 (entities)", w_.large_partition, false, table,
          [&] { PagePartition(table, "p100k", w_.large_partition); });

    if (Wanted("shards_full") || Wanted("shards_paged")) {
      OpenTableOptions schemes;
      schemes.partition_key_scheme = ShardScheme(w_.shards);
      Table sharded = Create(prefix_ + "shards", schemes);
      WriteSharded(sharded, kShardBase, w_.sharded);
      // Untimed, as WarmUp: the sharded path once, on a key of its own as large (a process's
      // first sharded reads also grow its fan-out workers' malloc arenas, 0.4-0.5 ms of page
      // faults per 1,000 rows; sdk_bench.mjs warms its sharded paths likewise).
      WriteSharded(sharded, kWarmShardBase, w_.sharded);
      PageShards(sharded, kWarmShardBase, w_.sharded);
      Phase("shards_full", "QueryShards, 200 shards, whole key (entities)", w_.sharded, false,
            sharded, [&] { PageShards(sharded, kShardBase, w_.sharded); });
      Phase("shards_paged", "QueryShards, 200 shards, page by page (entities)", w_.sharded, false,
            sharded, [&] { PageShards(sharded, kShardBase, w_.sharded); });
    }

    nlohmann::json out;
    out["client"] = "partkv";
    nlohmann::json config = nlohmann::json::object();
    for (const auto& [name, value] : ConfigurationFacts()) {
      // The entity and key facts describe the other benchmarks' layout, not this workload's.
      if (name != "entity" && name != "keys" && name != "RocksDB") config[name] = value;
    }
    config["fan_out"] = StoreOptions{}.remote.fan_out;
    config["max_connections"] = StoreOptions{}.remote.max_connections;
    config["rss_reset"] = meter_.reset_ok();
    out["config"] = config;
    out["phases"] = phases_;
    return out;
  }

 private:
  Table Create(const std::string& name, const OpenTableOptions& options) {
    Check(store_.CreateTable(name), "create table " + name);
    auto table = store_.OpenTable(name, options);
    Check(table.status(), "open table " + name);
    return *table;
  }

  // Untimed, before the phases, as sdk_bench.mjs does (its JIT compiles the SDK's paths here):
  // each call path the phases take, once per connection and then some.
  void WarmUp(Table& table) {
    InParallel(kWarmUpCalls, w_.in_flight, [&](uint64_t i) {
      return table.Insert(PayloadEntity("warm", RowKeyOf(i), i)).status();
    });
    WritePartition(table, "warmb", kWarmUpCalls);
    InParallel(kWarmUpCalls, w_.in_flight,
               [&](uint64_t i) { return table.Get("warm", RowKeyOf(i)).status(); });
    PagePartition(table, "warmb", kWarmUpCalls);
  }

  bool Wanted(std::string_view id) const {
    return wanted_.empty() || std::find(wanted_.begin(), wanted_.end(), id) != wanted_.end();
  }

  // Times fn as phase `id` when it is wanted; else runs it untimed when a later wanted phase
  // reads what it writes (`needed`), or not at all. With the costs go the entities and bytes
  // the service sent `table`'s client meanwhile (Table::Statistics of a remote table: what
  // the client was answered), to tell the rows a query fetched from the rows it returned.
  template <typename Fn>
  void Phase(const char* id, const char* name, uint64_t ops, bool needed, const Table& table,
             Fn fn) {
    if (!Wanted(id)) {
      if (needed) fn();
      return;
    }
    Progress(id);
    const PartitionStats before = table.Statistics(0).total;
    meter_.Start();
    fn();
    PhaseCost cost = meter_.Stop();
    const PartitionStats after = table.Statistics(0).total;
    phases_.push_back({{"id", id},
                       {"name", name},
                       {"ops", ops},
                       {"seconds", cost.seconds},
                       {"cpu_seconds", cost.cpu_seconds},
                       {"peak_rss_mib", cost.peak_rss_mib},
                       {"entities_received", after.reads - before.reads},
                       {"bytes_received", after.bytes_read - before.bytes_read}});
  }

  void Inserts(Table& table) {
    InParallel(w_.inserts, w_.in_flight, [&](uint64_t i) {
      return table.Insert(PayloadEntity(InsertPartitionOf(i), RowKeyOf(i), i)).status();
    });
  }

  void WritePartition(Table& table, const std::string& pk, uint64_t count) {
    Batch batch;
    for (uint64_t first = 0; first < count; first += Batch::kMaxOperations) {
      batch.Clear();
      for (uint64_t i = first; i < std::min(count, first + Batch::kMaxOperations); ++i) {
        batch.Insert(PayloadEntity(pk, RowKeyOf(i), i));
      }
      Check(table.Submit(batch).status(), "batch into " + pk);
    }
  }

  void Gets(Table& table) {
    Permutation order(w_.inserts);
    InParallel(w_.reads, w_.in_flight, [&](uint64_t i) {
      uint64_t n = order[i % w_.inserts];
      return table.Get(InsertPartitionOf(n), RowKeyOf(n)).status();
    });
  }

  // Every page into one reused Page, the library's paging API.
  void PagePartition(Table& table, const std::string& pk, uint64_t expected) {
    Query query;
    query.partition_key = pk;
    query.page_size = w_.page_size;
    Page page;
    uint64_t seen = 0;
    do {
      Check(table.QueryEntities(query, &page), "query " + pk);
      seen += page.entities.size();
      query.continuation = page.continuation;
    } while (page.has_more());
    if (seen != expected) Die(fmt::format("query {} returned {}, not {}", pk, seen, expected));
  }

  // Untimed: the sharded key, one batch per shard (split at 100).
  // Entities 0 .. count - 1 of the logical key `base`, batched by shard.
  void WriteSharded(Table& table, const char* base, uint64_t count) {
    std::map<std::string, std::vector<Entity>> by_shard;
    for (uint64_t i = 0; i < count; ++i) {
      auto keyed = table.ComputeKeys(ShardedEntity(i, base), OpType::kInsert);
      Check(keyed.status(), "compute keys");
      by_shard[keyed->partition_key()].push_back(std::move(*keyed));
    }
    Batch batch;
    for (auto& [pk, entities] : by_shard) {
      for (size_t first = 0; first < entities.size(); first += Batch::kMaxOperations) {
        batch.Clear();
        size_t end = std::min(entities.size(), first + Batch::kMaxOperations);
        for (size_t i = first; i < end; ++i) batch.Insert(std::move(entities[i]));
        Check(table.Submit(batch).status(), "batch into " + pk);
      }
    }
  }

  // Pages through the logical key `base`, checking the order and that it holds `count` rows.
  void PageShards(Table& table, const char* base, uint64_t count) {
    Query query;
    query.page_size = w_.page_size;
    Page page;
    uint64_t seen = 0;
    std::string last;
    do {
      Check(table.QueryShards(base, query, &page), "QueryShards");
      for (const Entity& e : page.entities) {
        if (e.row_key() <= last)
          Die("QueryShards returned RowKey " + e.row_key() + " after " + last);
        last = e.row_key();
      }
      seen += page.entities.size();
      query.continuation = page.continuation;
    } while (page.has_more());
    if (seen != count) Die(fmt::format("QueryShards returned {}, not {}", seen, count));
  }

  Store store_;
  Workload w_;
  std::string prefix_;
  std::vector<std::string> wanted_;
  PhaseMeter meter_;
  nlohmann::json phases_ = nlohmann::json::array();
};

}  // namespace
}  // namespace partkv::bench::remote

int main(int argc, char** argv) {
  using namespace partkv::bench::remote;
  CLI::App app{"partkv's remote client on the workload of bench/remote/workload.h"};
  std::string endpoint;
  std::string prefix = "cpp";
  double scale = 1;
  app.add_option("--endpoint", endpoint, "connection string of the Table endpoint")->required();
  app.add_option("--prefix", prefix, "table name prefix (letters and digits)");
  app.add_option("--scale", scale, "multiplies every count")->check(CLI::PositiveNumber);
  std::vector<std::string> phases;
  app.add_option("--phases", phases,
                 "time only these phases (for a profile of one); the ones they read from run "
                 "untimed")
      ->delimiter(',')
      ->check(CLI::IsMember({"insert16", "batch100", "get16", "query10k", "query100k",
                             "shards_full", "shards_paged"}));
  CLI11_PARSE(app, argc, argv);

  auto store = partkv::Store::Open(endpoint);
  if (!store.ok()) partkv::tools::Die("open " + endpoint + ": " + store.status().ToString());
  Bench bench(std::move(*store), Workload::Scaled(scale), prefix, phases);
  nlohmann::json out = bench.Run();
  out["config"]["scale"] = scale;
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
