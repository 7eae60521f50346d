// partkv stats TABLE and partkv analyze --pk STRATEGY: where the entities of a table are, and
// where a key strategy would put a sample of them — as bar charts, or as JSON with --json.
//
// `stats` prints the table's census (Table::Census, partkv/census.h): every physical partition
// read once from one snapshot, without filling the block cache, keeping only the `top` hottest
// logical partitions.
//
// For a table with a change feed or a time to live it adds the feed's extent and size
// (Table::FeedState) and the expired entities not yet reclaimed (TableCensus::expired_entities).
//
// `analyze` feeds JSON Lines entities to partkv::Analyzer and writes nothing.

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/analyzer.h"
#include "partkv/census.h"
#include "partkv/changes.h"
#include "partkv/json.h"
#include "partkv/table.h"
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

// The physical partitions a chart of `entities` (one count per partition) draws, in the order it
// draws them — every one by index, or the kMaxPartitionBars fullest — and the chart's heading,
// appended to *out.
std::vector<size_t> ChartedPartitions(const std::vector<uint64_t>& entities, std::string* out) {
  std::vector<size_t> order(entities.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (order.size() <= kMaxPartitionBars) {
    *out += "entities per physical partition\n";
    return order;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return entities[a] > entities[b]; });
  order.resize(kMaxPartitionBars);
  *out += "entities in the " + std::to_string(kMaxPartitionBars) + " fullest physical partitions\n";
  return order;
}

// ---- stats ----

// 604800 -> "7d", 5400 -> "90m", 0 -> "no limit".
std::string DurationText(int64_t seconds) {
  if (seconds == 0) return "no limit";
  for (auto [unit, size] : {std::pair{"d", 86400}, std::pair{"h", 3600}, std::pair{"m", 60}}) {
    if (seconds % size == 0) return std::to_string(seconds / size) + unit;
  }
  return std::to_string(seconds) + "s";
}

std::string TtlText(int64_t ttl_seconds) {
  if (ttl_seconds == kTtlOff) return "off";
  if (ttl_seconds == kTtlNoDefault) return "-1 (only entities with a ttl property expire)";
  return DurationText(ttl_seconds);
}

// The change feed and time to live lines of the chart: none for a table with neither.
std::string FeedAndTtlText(const TableInfo& info, const std::optional<ChangeFeedState>& feed,
                           const TableCensus& census) {
  std::string out;
  if (feed) {
    out += "change feed: " + HumanBytes(feed->bytes) + ", positions " +
           GroupDigits(feed->first_seq) + " (oldest kept) to " + GroupDigits(feed->next_seq) +
           " (next); retention " + DurationText(feed->options.retention.count()) + ", max " +
           (feed->options.max_bytes == 0 ? std::string("no limit")
                                         : HumanBytes(feed->options.max_bytes)) +
           "\n";
  }
  if (info.ttl_seconds != kTtlOff || census.expired_entities > 0) {
    out += "time to live: " + TtlText(info.ttl_seconds) + "; " +
           GroupDigits(census.expired_entities) + " expired entities not yet reclaimed\n";
  }
  return out;
}

void PrintStatsChart(const TableCensus& census, const std::string& feed_and_ttl) {
  std::string out = "table " + census.table + ": " + GroupDigits(census.entities) + " entities, " +
                    HumanBytes(census.bytes) + ", " + GroupDigits(census.logical_partitions) +
                    " logical partitions in " + GroupDigits(census.partitions.size()) +
                    " physical partitions\n" + feed_and_ttl + "\n";
  const std::vector<PartitionCensus>& physical = census.partitions;
  std::vector<uint64_t> entities;
  for (const PartitionCensus& p : physical) entities.push_back(p.entities);
  std::vector<Bar> bars;
  for (size_t i : ChartedPartitions(entities, &out)) {
    bars.push_back(Bar{
        "p" + std::to_string(i),
        physical[i].entities,
        {HumanBytes(physical[i].bytes), GroupDigits(physical[i].logical_partitions) + " logical"}});
  }
  out += RenderBars(bars, Width());
  if (!census.largest.empty()) {
    out += "\nhottest logical partitions\n";
    bars.clear();
    for (const LogicalPartitionCensus& l : census.largest) {
      bars.push_back(Bar{l.partition_key,
                         l.entities,
                         {HumanBytes(l.bytes), "p" + std::to_string(l.physical_partition),
                          Percent(l.entities, census.entities)}});
    }
    out += RenderBars(bars, Width());
  }
  std::fputs(out.c_str(), stdout);
}

Status RunStats(const Context& ctx, const StatsArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  if (!store.capabilities().census) {
    return Status::InvalidArgument(
        "stats needs a local store: it counts the stored rows of every physical partition "
        "(Table::Census), which a " +
        store.capabilities().backend + " store does not have; --store names a " +
        store.capabilities().backend + " one");
  }
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.table));
  PARTKV_ASSIGN_OR_RETURN(TableCensus census, table.Census(CensusOptions{.top = args.top}));
  const TableInfo& info = table.info();
  std::optional<ChangeFeedState> feed;
  if (info.change_feed.enabled) {
    PARTKV_ASSIGN_OR_RETURN(feed, table.FeedState());
  }
  if (!args.json) {
    PrintStatsChart(census, FeedAndTtlText(info, feed, census));
    return Status::OK();
  }
  ordered_json j;
  j["table"] = census.table;
  j["physical_partitions"] = census.partitions.size();
  j["entities"] = census.entities;
  j["bytes"] = census.bytes;
  j["logical_partitions"] = census.logical_partitions;
  j["expired_entities"] = census.expired_entities;
  j["ttl_seconds"] = info.ttl_seconds;
  if (feed) {
    j["change_feed"] = {{"bytes", feed->bytes},
                        {"first_seq", feed->first_seq},
                        {"next_seq", feed->next_seq},
                        {"retention_seconds", feed->options.retention.count()},
                        {"max_bytes", feed->options.max_bytes}};
  } else {
    j["change_feed"] = nullptr;
  }
  ordered_json parts = ordered_json::array();
  for (const PartitionCensus& p : census.partitions) {
    parts.push_back({{"index", p.index},
                     {"entities", p.entities},
                     {"bytes", p.bytes},
                     {"logical_partitions", p.logical_partitions}});
  }
  j["partitions"] = std::move(parts);
  ordered_json hot = ordered_json::array();
  for (const LogicalPartitionCensus& l : census.largest) {
    hot.push_back({{"key", l.partition_key},
                   {"physical_partition", l.physical_partition},
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

  out += "\n";
  std::vector<Bar> bars;
  for (size_t i : ChartedPartitions(r.physical_counts, &out)) {
    bars.push_back(Bar{"p" + std::to_string(i),
                       r.physical_counts[i],
                       {Percent(r.physical_counts[i], r.physical.total)}});
  }
  out += RenderBars(bars, Width());
  if (!r.hottest_logical.empty()) {
    out += "\nhottest logical partitions\n";
    bars.clear();
    for (const PartitionCount& p : r.hottest_logical) {
      bars.push_back(
          Bar{p.key, p.entities, {HumanBytes(p.bytes), Percent(p.entities, r.logical.total)}});
    }
    out += RenderBars(bars, Width());
  }
  out += "\nwrite time of the sample at each cloud's per-partition limit\n";
  for (const CloudEstimate& c : r.cloud) {
    out += "  " + c.profile + ": " + Fixed(c.seconds_with_skew, 3) + " s with this skew, " +
           Fixed(c.seconds_if_spread_evenly, 3) + " s spread evenly over " +
           GroupDigits(c.partitions) + " partitions (" +
           GroupDigits(static_cast<uint64_t>(c.limit_per_partition)) + " " + c.unit + " each)\n";
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
      "stats",
      "Entities, bytes and logical partitions per physical partition, and the hottest "
      "logical partitions, as bar charts (or --json)");
  stats_cmd->add_option("TABLE", stats->table, "table name")->required();
  stats_cmd->add_flag("--json", stats->json, "print JSON instead of charts");
  stats_cmd->add_option("--top", stats->top, "how many hottest logical partitions (default 10)");
  stats_cmd->callback(
      [&ctx, stats] { ctx.action = [&ctx, stats] { return RunStats(ctx, *stats); }; });

  auto analyze = std::make_shared<AnalyzeArgs>();
  CLI::App* analyze_cmd =
      app.add_subcommand("analyze",
                         "How a PartitionKey strategy spreads a sample of entities (JSON Lines); "
                         "writes nothing");
  analyze_cmd
      ->add_option("--pk", analyze->strategy,
                   "the strategy, e.g. 'hash-suffix(date,OrderId,200)', or a property name "
                   "alone for concat(NAME) (docs/keys.md)")
      ->required()
      ->type_name("STRATEGY");
  analyze_cmd->add_option("--partitions", analyze->partitions,
                          "physical partitions to model, 1..65536 (default 16)");
  analyze_cmd->add_option("FILE", analyze->file, "JSON Lines sample; - or absent: stdin");
  analyze_cmd->add_flag("--json", analyze->json, "print the report as JSON");
  analyze_cmd->add_option("--top", analyze->top,
                          "how many hottest logical partitions (default 10)");
  analyze_cmd->callback(
      [&ctx, analyze] { ctx.action = [analyze] { return RunAnalyze(*analyze); }; });
}

}  // namespace partkv::cli
