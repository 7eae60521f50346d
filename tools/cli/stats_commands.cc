// partkv stats TABLE and partkv analyze --pk STRATEGY: where the entities of a table are, and
// where a key strategy would put a sample of them — as bar charts, or as JSON with --json.
//
// `stats` scans every physical partition's column family once (engine internals: the table's
// partitions, the store's RocksDB handle, the key codec), from one snapshot and without filling
// the block cache. Keys within a column family sort by PartitionKey first, so a logical
// partition is one run of keys sharing a prefix, and counting needs no memory per partition: only
// the `top` hottest are kept.
//
// `analyze` feeds JSON Lines entities to partkv::Analyzer and writes nothing.

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "api/front/front_access.h"
#include "engine/cursor.h"
#include "engine/key_codec.h"
#include "engine/store_state.h"
#include "engine/table_handle.h"
#include "nlohmann/json.hpp"
#include "partkv/analyzer.h"
#include "partkv/json.h"
#include "rocksdb/db.h"
#include "tools/cli/bars.h"
#include "tools/cli/cli.h"

namespace partkv::cli {
namespace {

using ordered_json = nlohmann::ordered_json;

constexpr int kDefaultWidth = 80;
// Charts of more physical partitions show the fullest ones only.
constexpr size_t kMaxPartitionBars = 64;

struct StatsArgs {
  std::string table;
  bool json = false;
  size_t top = 10;
};

struct AnalyzeArgs {
  std::string strategy;
  uint32_t partitions = AnalyzerOptions().physical_partitions;
  std::string file;
  bool json = false;
  size_t top = 10;
};

std::string Dump(const ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

int Width() { return TerminalColumns(STDOUT_FILENO, kDefaultWidth); }

// ---- stats ----

struct PhysicalStats {
  uint64_t entities = 0;
  uint64_t bytes = 0;  // encoded keys and values
  uint64_t logical = 0;
};

struct LogicalStats {
  std::string key;
  size_t physical = 0;
  uint64_t entities = 0;
  uint64_t bytes = 0;
};

// Hottest first: more entities, then the smaller key.
bool Hotter(const LogicalStats& a, const LogicalStats& b) {
  return a.entities != b.entities ? a.entities > b.entities : a.key < b.key;
}

// Keeps the `top` hottest logical partitions seen.
class TopPartitions {
 public:
  explicit TopPartitions(size_t top) : top_(top) {}
  void Offer(LogicalStats stats) {
    if (top_ == 0) return;
    if (heap_.size() < top_) {
      heap_.push_back(std::move(stats));
      std::push_heap(heap_.begin(), heap_.end(), Hotter);
    } else if (Hotter(stats, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Hotter);
      heap_.back() = std::move(stats);
      std::push_heap(heap_.begin(), heap_.end(), Hotter);
    }
  }
  std::vector<LogicalStats> Sorted() const {
    std::vector<LogicalStats> out = heap_;
    std::sort(out.begin(), out.end(), Hotter);
    return out;
  }

 private:
  size_t top_;
  std::vector<LogicalStats> heap_;  // a heap whose front is the coolest kept
};

Status ScanPartition(rocksdb::DB* db, const rocksdb::Snapshot* snapshot,
                     const engine::PhysicalPartition& partition, size_t index,
                     PhysicalStats* stats, TopPartitions* top) {
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  options.fill_cache = false;
  options.readahead_size = 2u << 20;
  // The partition is the range of its prefix in a shared column family (docs/format.md).
  const std::string begin = partition.prefix, end = engine::PrefixEnd(partition.prefix);
  const rocksdb::Slice begin_slice(begin), end_slice(end);
  options.iterate_lower_bound = &begin_slice;
  options.iterate_upper_bound = &end_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(options, partition.cf));
  std::string prefix;  // of the current logical partition
  LogicalStats current;
  auto finish = [&] {
    if (current.entities > 0) top->Offer(std::move(current));
    current = LogicalStats();
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view k = it->key().ToStringView().substr(begin.size());
    size_t n = engine::PartitionPrefixLength(k);
    if (n == 0) return Status::Corruption("a malformed key in physical partition " +
                                          std::to_string(index));
    if (current.entities == 0 || k.substr(0, n) != prefix) {
      finish();
      prefix.assign(k.data(), n);
      std::string rk;
      PARTKV_RETURN_IF_ERROR(engine::DecodeEntityKey(k, &current.key, &rk));
      current.physical = index;
      ++stats->logical;
    }
    uint64_t bytes = k.size() + it->value().size();
    ++stats->entities;
    stats->bytes += bytes;
    ++current.entities;
    current.bytes += bytes;
  }
  finish();
  if (!it->status().ok()) {
    return Status::IOError("scanning physical partition " + std::to_string(index) + ": " +
                           it->status().ToString());
  }
  return Status::OK();
}

void PrintStatsChart(const std::string& table, const std::vector<PhysicalStats>& physical,
                     const std::vector<LogicalStats>& hottest) {
  PhysicalStats total;
  for (const PhysicalStats& p : physical) {
    total.entities += p.entities;
    total.bytes += p.bytes;
    total.logical += p.logical;
  }
  std::string out = "table " + table + ": " + GroupDigits(total.entities) + " entities, " +
                    HumanBytes(total.bytes) + ", " + GroupDigits(total.logical) +
                    " logical partitions in " + GroupDigits(physical.size()) +
                    " physical partitions\n\n";
  std::vector<size_t> order(physical.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (order.size() > kMaxPartitionBars) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return physical[a].entities > physical[b].entities;
    });
    order.resize(kMaxPartitionBars);
    out += "entities in the " + std::to_string(kMaxPartitionBars) + " fullest physical partitions\n";
  } else {
    out += "entities per physical partition\n";
  }
  std::vector<Bar> bars;
  for (size_t i : order) {
    bars.push_back(Bar{"p" + std::to_string(i), physical[i].entities,
                       {HumanBytes(physical[i].bytes),
                        GroupDigits(physical[i].logical) + " logical"}});
  }
  out += RenderBars(bars, Width());
  if (!hottest.empty()) {
    out += "\nhottest logical partitions\n";
    bars.clear();
    for (const LogicalStats& l : hottest) {
      bars.push_back(Bar{l.key, l.entities,
                         {HumanBytes(l.bytes), "p" + std::to_string(l.physical),
                          Percent(l.entities, total.entities)}});
    }
    out += RenderBars(bars, Width());
  }
  std::fputs(out.c_str(), stdout);
}

Status RunStats(const Context& ctx, const StatsArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.table));
  rocksdb::DB* db = FrontAccess::Of(store).db();
  const auto& partitions = FrontAccess::Of(table).data().partitions();
  const rocksdb::Snapshot* snapshot = db->GetSnapshot();
  std::vector<PhysicalStats> physical(partitions.size());
  TopPartitions top(args.top);
  Status s;
  for (size_t i = 0; i < partitions.size() && s.ok(); ++i) {
    s = ScanPartition(db, snapshot, partitions[i], i, &physical[i], &top);
  }
  db->ReleaseSnapshot(snapshot);
  PARTKV_RETURN_IF_ERROR(s);
  std::vector<LogicalStats> hottest = top.Sorted();

  if (!args.json) {
    PrintStatsChart(table.name(), physical, hottest);
    return Status::OK();
  }
  ordered_json j;
  j["table"] = table.name();
  j["physical_partitions"] = partitions.size();
  uint64_t entities = 0, bytes = 0, logical = 0;
  ordered_json parts = ordered_json::array();
  for (size_t i = 0; i < physical.size(); ++i) {
    entities += physical[i].entities;
    bytes += physical[i].bytes;
    logical += physical[i].logical;
    parts.push_back({{"index", i},
                     {"entities", physical[i].entities},
                     {"bytes", physical[i].bytes},
                     {"logical_partitions", physical[i].logical}});
  }
  j["entities"] = entities;
  j["bytes"] = bytes;
  j["logical_partitions"] = logical;
  j["partitions"] = std::move(parts);
  ordered_json hot = ordered_json::array();
  for (const LogicalStats& l : hottest) {
    hot.push_back({{"key", l.key},
                   {"physical_partition", l.physical},
                   {"entities", l.entities},
                   {"bytes", l.bytes}});
  }
  j["hottest_logical"] = std::move(hot);
  PrintLine(Dump(j));
  return Status::OK();
}

// ---- analyze ----

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string SkewLine(const SkewStats& s) {
  return "max " + GroupDigits(s.max) + ", mean " + Fixed(s.mean, 1) + ", cv " + Fixed(s.cv, 2) +
         ", hottest " + Fixed(100 * s.hottest_share, 1) + "%";
}

void PrintAnalysisChart(const AnalysisReport& r) {
  std::string out = "strategy " + r.strategy + ": " + GroupDigits(r.logical.total) +
                    " entities keyed, " + GroupDigits(r.errors) + " could not be keyed\n";
  if (r.errors > 0) out += "first error: " + r.first_error + "\n";
  out += "logical partitions: " + GroupDigits(r.logical.partitions) + " keys; " +
         SkewLine(r.logical) + "\n";
  out += "physical partitions: " + GroupDigits(r.physical.partitions) + "; " +
         SkewLine(r.physical) + "\n";
  out += "read fan-out: " + GroupDigits(r.read_fanout) + " partition" +
         (r.read_fanout == 1 ? "" : "s") + " per base key\n";

  std::vector<size_t> order(r.physical_counts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (order.size() > kMaxPartitionBars) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return r.physical_counts[a] > r.physical_counts[b];
    });
    order.resize(kMaxPartitionBars);
    out += "\nentities in the " + std::to_string(kMaxPartitionBars) +
           " fullest physical partitions\n";
  } else {
    out += "\nentities per physical partition\n";
  }
  std::vector<Bar> bars;
  for (size_t i : order) {
    bars.push_back(Bar{"p" + std::to_string(i), r.physical_counts[i],
                       {Percent(r.physical_counts[i], r.physical.total)}});
  }
  out += RenderBars(bars, Width());
  if (!r.hottest_logical.empty()) {
    out += "\nhottest logical partitions\n";
    bars.clear();
    for (const PartitionCount& p : r.hottest_logical) {
      bars.push_back(Bar{p.key, p.entities, {HumanBytes(p.bytes), Percent(p.entities,
                                                                          r.logical.total)}});
    }
    out += RenderBars(bars, Width());
  }
  out += "\nwrite time of the sample at each cloud's per-partition limit\n";
  for (const CloudEstimate& c : r.cloud) {
    out += "  " + c.profile + ": " + Fixed(c.seconds_with_skew, 3) + " s with this skew, " +
           Fixed(c.seconds_if_spread_evenly, 3) + " s spread evenly over " +
           GroupDigits(c.partitions) + " partitions (" + GroupDigits(static_cast<uint64_t>(
                                                             c.limit_per_partition)) +
           " " + c.unit + " each)\n";
  }
  std::fputs(out.c_str(), stdout);
}

Status RunAnalyze(const AnalyzeArgs& args) {
  auto strategy = KeyStrategy::Parse(args.strategy);
  if (!strategy.ok()) return strategy.status().WithContext("--pk");
  AnalyzerOptions options;
  options.physical_partitions = args.partitions;
  options.top = args.top;
  auto analyzer = Analyzer::Create(std::move(*strategy), options);
  if (!analyzer.ok()) return analyzer.status();
  PARTKV_ASSIGN_OR_RETURN(LineReader reader, LineReader::Open(args.file));
  Status read_status;
  while (auto line = reader.Next(&read_status)) {
    if (IsBlank(*line)) continue;
    auto entity = EntityFromJson(*line);
    if (!entity.ok()) {
      return entity.status().WithContext("line " + std::to_string(reader.line_number()));
    }
    analyzer->Add(*entity);
  }
  PARTKV_RETURN_IF_ERROR(read_status);
  AnalysisReport report = analyzer->Finish();
  if (args.json) {
    PrintLine(AnalysisReportToJson(report));
  } else {
    PrintAnalysisChart(report);
  }
  return Status::OK();
}

}  // namespace

void AddStatsCommands(CLI::App& app, Context& ctx) {
  auto stats = std::make_shared<StatsArgs>();
  CLI::App* stats_cmd = app.add_subcommand(
      "stats", "Entities, bytes and logical partitions per physical partition, and the hottest "
               "logical partitions, as bar charts (or --json)");
  stats_cmd->add_option("TABLE", stats->table, "table name")->required();
  stats_cmd->add_flag("--json", stats->json, "print JSON instead of charts");
  stats_cmd->add_option("--top", stats->top, "how many hottest logical partitions (default 10)");
  stats_cmd->callback(
      [&ctx, stats] { ctx.action = [&ctx, stats] { return RunStats(ctx, *stats); }; });

  auto analyze = std::make_shared<AnalyzeArgs>();
  CLI::App* analyze_cmd = app.add_subcommand(
      "analyze", "How a PartitionKey strategy spreads a sample of entities (JSON Lines); "
                 "writes nothing");
  analyze_cmd->add_option("--pk", analyze->strategy,
                          "the strategy, e.g. 'hash-suffix(date,OrderId,200)' (docs/keys.md)")
      ->required()
      ->type_name("STRATEGY");
  analyze_cmd->add_option("--partitions", analyze->partitions,
                          "physical partitions to model, 1..65536 (default 16)");
  analyze_cmd->add_option("FILE", analyze->file, "JSON Lines sample; - or absent: stdin");
  analyze_cmd->add_flag("--json", analyze->json, "print the report as JSON");
  analyze_cmd->add_option("--top", analyze->top,
                          "how many hottest logical partitions (default 10)");
  analyze_cmd->callback([&ctx, analyze] {
    ctx.action = [analyze] { return RunAnalyze(*analyze); };
  });
}

}  // namespace partkv::cli
