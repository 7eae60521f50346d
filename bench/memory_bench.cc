// partkv-memory-bench: the peak resident memory of a store with the default memory budget
// (64 MiB), for a table of 16 and of 256 physical partitions.
//
// Each configuration runs in a child process of its own (this program re-executed with
// --child), so each peak is measured from a clean process: the child opens a fresh store, writes
// N entities (batches of 100 per PartitionKey, N/100 PartitionKeys), flushes, reads every entity
// back with Get in a scrambled order, and reports its peak RSS (VmHWM) with a breakdown of where
// RocksDB's memory sits (block cache, memtables, table readers) as one JSON line on stdout. The
// parent prints the table and the 256/16 ratio against the targets: P=16 peak < 300 MiB, and the
// 256-partition peak < 2x the 16-partition one.
//
//   partkv-memory-bench [--entities N] [--partitions 16,256]
//
// Not a Google Benchmark: the quantity is a process-wide peak, which only a fresh process shows.

#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "api/front/front_access.h"
#include "bench/bench_common.h"
#include "engine/local/table_handle.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "partkv/store.h"
#include "rocksdb/db.h"
#include "rocksdb/write_buffer_manager.h"
#include "tools/common/child_process.h"

namespace partkv::bench {
namespace {

constexpr char kTableName[] = "Memory";

double MiB(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

class Child {
 public:
  Child(uint64_t entities, uint32_t partitions) : entities_(entities), partitions_(partitions) {}

  nlohmann::json Run() {
    Phase("start");
    auto store = Store::Open(dir_.Sub("store"));
    if (!store.ok()) Die("open store: " + store.status().ToString());
    TableOptions options;
    options.physical_partitions = partitions_;
    Status cs = store->CreateTable(kTableName, options);
    if (!cs.ok()) Die("create table: " + cs.ToString());
    auto table = store->OpenTable(kTableName);
    if (!table.ok()) Die("open table: " + table.status().ToString());
    Phase("open");
    RocksStats(*store, *table, "after_open");

    uint64_t batches = entities_ / kEntitiesPerPartitionKey;
    for (uint64_t b = 0; b < batches; ++b) {
      auto r = table->Submit(MakeInsertBatch(b));
      if (!r.ok()) Die("write batch " + std::to_string(b) + ": " + r.status().ToString());
    }
    Phase("write");
    RocksStats(*store, *table, "after_write");
    Status fs = store->Flush();
    if (!fs.ok()) Die("flush: " + fs.ToString());
    Phase("flush");

    uint64_t n = batches * kEntitiesPerPartitionKey;
    Permutation order(n);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t e = order[i];
      auto r = table->Get(PartitionKeyOf(e / kEntitiesPerPartitionKey), RowKeyOf(e));
      if (!r.ok()) Die("read entity " + std::to_string(e) + ": " + r.status().ToString());
    }
    Phase("read");
    RocksStats(*store, *table, "after_read");

    struct mallinfo2 mi = mallinfo2();
    out_["malloc"] = {{"heap_mib", MiB(mi.arena)},
                      {"mmapped_mib", MiB(mi.hblkhd)},
                      {"in_use_mib", MiB(mi.uordblks + mi.hblkhd)},
                      {"free_in_heap_mib", MiB(mi.fordblks)}};
    EntitySize size = SizeOfEntity(0);
    out_["partitions"] = partitions_;
    out_["entities"] = n;
    out_["logical_data_mib"] = MiB(n * (size.key_bytes + size.value_bytes));
    out_["peak_rss_mib"] = static_cast<double>(ProcStatusKiB("VmHWM")) / 1024;
    return out_;
  }

 private:
  void Phase(const char* name) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    out_["phases"].push_back(
        {{"phase", name},
         {"seconds", seconds},
         {"rss_mib", static_cast<double>(ProcStatusKiB("VmRSS")) / 1024},
         {"peak_rss_mib", static_cast<double>(ProcStatusKiB("VmHWM")) / 1024}});
  }

  void RocksStats(const Store& store, const Table& /*table*/, const char* when) {
    rocksdb::DB* db = FrontAccess::Of(store).db();
    const auto& parts = FrontAccess::Of(store).data_column_families();
    auto sum = [&](const char* property) {
      uint64_t total = 0;
      for (auto* cf : parts) {
        uint64_t v = 0;
        if (db->GetIntProperty(cf, property, &v)) total += v;
      }
      return total;
    };
    auto one = [&](const char* property) {
      uint64_t v = 0;
      db->GetIntProperty(parts.front(), property, &v);
      return v;
    };
    // "rocksdb.num-files-at-level<N>" is a string property, not an int one.
    uint64_t sst_files = 0;
    for (auto* cf : parts) {
      for (int level = 0; level < 7; ++level) {
        std::string v;
        if (db->GetProperty(
                cf, rocksdb::DB::Properties::kNumFilesAtLevelPrefix + std::to_string(level), &v)) {
          sst_files += std::strtoull(v.c_str(), nullptr, 10);
        }
      }
    }
    auto wbm = db->GetDBOptions().write_buffer_manager;
    out_[when] = {
        // The block cache is shared by every column family: read it once. Memtables are charged
        // to it through the write-buffer manager, so its usage includes them.
        {"block_cache_usage_mib", MiB(one("rocksdb.block-cache-usage"))},
        {"block_cache_pinned_mib", MiB(one("rocksdb.block-cache-pinned-usage"))},
        {"block_cache_capacity_mib", MiB(one("rocksdb.block-cache-capacity"))},
        {"memtables_mib", MiB(sum("rocksdb.cur-size-all-mem-tables"))},
        {"write_buffer_manager_mib", MiB(wbm ? wbm->memory_usage() : 0)},
        {"table_readers_mib", MiB(sum("rocksdb.estimate-table-readers-mem"))},
        {"sst_files", sst_files},
        {"sst_mib", MiB(sum("rocksdb.total-sst-files-size"))},
    };
  }

  uint64_t entities_;
  uint32_t partitions_;
  TempDir dir_{"partkv-memory-bench"};
  nlohmann::json out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Runs this program again with --child for one configuration; returns its JSON report.
nlohmann::json RunChild(uint64_t entities, uint32_t partitions) {
  std::vector<std::string> args = {"partkv-memory-bench", "--child",
                                   "--entities",          std::to_string(entities),
                                   "--partitions",        std::to_string(partitions)};
  tools::ChildRun run = tools::RunChild("/proc/self/exe", args, tools::ChildOutput::kCapture);
  if (!run.exited_ok()) {
    Die(fmt::format("the child for {} partitions failed (status {})", partitions, run.wait_status));
  }
  auto report = nlohmann::json::parse(run.output, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) {
    Die("the child for " + std::to_string(partitions) + " partitions printed no report");
  }
  return report;
}

void PrintReport(const std::vector<nlohmann::json>& reports) {
  std::printf("\n%-11s %9s %9s %9s %9s %9s | %9s %9s %9s %9s | %9s %9s %6s\n", "partitions",
              "peak RSS", "open", "write", "flush", "read", "cache", "memtables", "tbl.rdrs",
              "heap", "logical", "SST", "files");
  std::printf("%-11s %9s %9s %9s %9s %9s | %9s %9s %9s %9s | %9s %9s %6s\n", "", "MiB", "RSS MiB",
              "RSS MiB", "RSS MiB", "RSS MiB", "MiB", "MiB", "MiB", "MiB", "MiB", "MiB", "");
  for (const auto& r : reports) {
    auto rss = [&](size_t i) { return r["phases"][i]["rss_mib"].get<double>(); };
    const auto& after = r["after_read"];
    std::printf("%-11d %9.1f %9.1f %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f %9.1f | %9.1f %9.1f %6d\n",
                r["partitions"].get<int>(), r["peak_rss_mib"].get<double>(), rss(1), rss(2), rss(3),
                rss(4), after["block_cache_usage_mib"].get<double>(),
                after["memtables_mib"].get<double>(), after["table_readers_mib"].get<double>(),
                r["malloc"]["in_use_mib"].get<double>(), r["logical_data_mib"].get<double>(),
                after["sst_mib"].get<double>(), after["sst_files"].get<int>());
  }
  std::printf(
      "(cache, memtables, table readers, heap: after the reads; memtables are also charged "
      "to the cache)\n");
  for (const auto& r : reports) {
    const auto& o = r["after_open"];
    const auto& w = r["after_write"];
    std::printf(
        "P=%d after open: memtables %.1f MiB, cache %.1f MiB; after writes: cache %.1f MiB, "
        "memtables %.1f MiB, write-buffer manager %.1f MiB, %d SST files; phases (s): "
        "write %.1f, flush %.1f, read %.1f\n",
        r["partitions"].get<int>(), o["memtables_mib"].get<double>(),
        o["block_cache_usage_mib"].get<double>(), w["block_cache_usage_mib"].get<double>(),
        w["memtables_mib"].get<double>(), w["write_buffer_manager_mib"].get<double>(),
        w["sst_files"].get<int>(),
        r["phases"][2]["seconds"].get<double>() - r["phases"][1]["seconds"].get<double>(),
        r["phases"][3]["seconds"].get<double>() - r["phases"][2]["seconds"].get<double>(),
        r["phases"][4]["seconds"].get<double>() - r["phases"][3]["seconds"].get<double>());
  }
}

int Main(int argc, char** argv) {
  uint64_t entities = 1'000'000;
  std::vector<uint32_t> partitions = {16, 256};
  bool child = false;
  CLI::App app{"partkv-memory-bench: peak RSS of a store with the default memory budget"};
  app.add_option("--entities", entities, "entities written and read per configuration")
      ->check(CLI::Range(uint64_t{100}, uint64_t{1'000'000'000}));
  app.add_option("--partitions", partitions, "physical partition counts, e.g. 16,256")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  app.add_flag("--child", child, "run one configuration and print its JSON report")->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (child) {
    if (partitions.size() != 1) Die("--child takes exactly one --partitions value");
    std::printf("%s\n", Child(entities, partitions[0]).Run().dump().c_str());
    return 0;
  }

  PrintConfiguration(
      stdout, "partkv-memory-bench: peak RSS, default StoreOptions (64 MiB budget)",
      {{"entities", fmt::format("{} per configuration, batches of 100 per "
                                "PartitionKey ({} PartitionKeys), then flush, then "
                                "a Get of each in scrambled order",
                                entities, entities / kEntitiesPerPartitionKey)},
       {"memory budget", fmt::format("{} MiB", StoreOptions{}.memory_budget_bytes >> 20)},
       {"measure", "VmHWM of a fresh child process per configuration"}});
  std::vector<nlohmann::json> reports;
  for (uint32_t p : partitions) {
    std::fprintf(stderr, "running %u partitions...\n", p);
    reports.push_back(RunChild(entities, p));
  }
  PrintReport(reports);

  std::printf("\n");
  for (const auto& r : reports) {
    if (r["partitions"].get<uint32_t>() == 16) {
      double peak = r["peak_rss_mib"].get<double>();
      std::printf("target: P=16 peak < 300 MiB: %.1f MiB, %s\n", peak,
                  peak < 300 ? "met" : "MISSED");
    }
  }
  if (reports.size() >= 2) {
    double first = reports.front()["peak_rss_mib"].get<double>();
    double last = reports.back()["peak_rss_mib"].get<double>();
    double ratio = last / first;
    std::printf("target: P=%u peak < 2x P=%u peak: %.2fx, %s\n", partitions.back(),
                partitions.front(), ratio, ratio < 2 ? "met" : "MISSED");
  }
  return 0;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
