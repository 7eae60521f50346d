#include "tools/bench/terminal_report.h"

#include <algorithm>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "tools/bench/findings.h"
#include "tools/bench/format.h"
#include "tools/bench/recommendation.h"

namespace partkv::compare {
namespace {

std::string Pad(const std::string& s, size_t width, bool right) {
  const size_t w = DisplayWidth(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

void TrimRight(std::string* line) {
  while (!line->empty() && line->back() == ' ') line->pop_back();
}

std::string CloudTime(const StrategyResult& r, const std::string& profile) {
  for (const CloudEstimate& c : r.analysis.cloud) {
    if (c.profile == profile) return Duration(c.seconds_with_skew);
  }
  return "–";
}

std::string Throttled(const StrategyResult& r, const std::string& profile) {
  for (const ThrottleStats& t : r.throttle) {
    if (t.profile == profile) return Share(t.rate());
  }
  return "–";
}

std::string Header(const ComparisonResult& r) {
  const WorkloadSummary& w = r.workload;
  std::string out = "partkv-bench: key strategies on disk\n";
  if (w.built_in) {
    out += fmt::format(
        "  workload  {} events over {} days ({} … {}), {} devices (Zipf), burst hour {} "
        "({} events; busiest day {})\n"
        "            values {}–{} B encoded (mean {:.0f} B), 15 typed properties; seed {}\n",
        Grouped(w.events), w.days, w.first_day, w.last_day, Grouped(w.devices), w.burst_hour,
        Grouped(w.burst_hour_events), Grouped(w.busiest_day_events), w.min_value_bytes,
        w.max_value_bytes, w.mean_value_bytes, w.seed);
  } else {
    out += fmt::format(
        "  data      {}: {} entities, values {}–{} B encoded (mean {:.0f} B), {} attributes\n",
        w.source, Grouped(w.events), w.min_value_bytes, w.max_value_bytes, w.mean_value_bytes,
        w.attributes.size());
    out += w.time_attribute.empty()
               ? fmt::format("  timeline  file order, at the replay rate\n")
               : fmt::format(
                     "  timeline  by {}: {} days ({} … {}), busiest hour {} ({} entities; "
                     "busiest day {} with {})\n",
                     w.time_attribute, w.days, w.first_day, w.last_day, w.burst_hour,
                     Grouped(w.burst_hour_events), w.burst_day, Grouped(w.busiest_day_events));
  }
  std::string reads;
  for (const ReadSummary& rs : r.reads) {
    reads += fmt::format("{}{} ({}, weight {})", reads.empty() ? "" : "; ", rs.name,
                         fmt::join(rs.attributes, ", "),
                         Fixed(rs.weight, rs.weight == static_cast<int64_t>(rs.weight) ? 0 : 2));
  }
  out += fmt::format("  reads     {}\n", reads);
  for (const StrategyResult& s : r.strategies) {
    if (s.suggested) out += fmt::format("  suggested {} — {}\n", s.label, s.explanation);
  }
  out += fmt::format(
      "  store     one table per strategy, {} physical partitions each; RowKey = {}\n"
      "  replay    the timeline compressed to an average {} (batches of ≤ 100, ≤ 1 s wait)\n",
      r.physical_partitions, w.row_key, Rate(r.replay_rate));
  std::string machine;
  for (const auto& [k, v] : r.facts) machine += (machine.empty() ? "" : "; ") + k + " " + v;
  out += "  machine   " + machine + "\n";
  return out;
}

// --target: what the endpoint did beside what was predicted for it; empty without --target.
std::string TargetSection(const ComparisonResult& r) {
  if (r.target.empty()) return "";
  TextTable t({{"strategy", false},
               {"written in"},
               {"rate"},
               {"behind replay"},
               {"503/429 answers"},
               {"retry wait, summed"},
               {"resent"},
               {"predicted refused: " + r.target_profile}});
  for (const ReadSummary& rs : r.reads) t.AddColumn({rs.name + " p50"});
  for (const StrategyResult& s : r.strategies) {
    if (!s.target) continue;
    const TargetStats& m = *s.target;
    std::vector<std::string> row = {s.label,
                                    Duration(m.write_seconds),
                                    Rate(m.write_rate()),
                                    Duration(m.max_lag_seconds),
                                    Grouped(m.throttled_answers),
                                    Duration(m.retry_wait_seconds),
                                    Grouped(m.batches_resent),
                                    Throttled(s, r.target_profile)};
    for (const ReadStats& rs : m.reads) row.push_back(Latency(rs.p50_micros));
    t.AddRow(std::move(row));
  }
  const StrategyResult& first = r.strategies.front();
  const double offered = first.target ? first.target->offered_seconds : 0;
  return fmt::format(
             "Measured on the target {}: the same batches sent at the replay's pace ({} of "
             "replay time), the same reads; 503/429 answers and retry waits as the remote "
             "store's retries met them, beside the predicted share refused under {}\n",
             r.target, Duration(offered), r.target_profile) +
         t.Render() + "\n";
}

}  // namespace

std::string TextTable::Render() const {
  std::vector<size_t> widths;
  for (const Column& c : columns_) widths.push_back(DisplayWidth(c.header));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i > 0) out += "  ";
      out += Pad(i < cells.size() ? cells[i] : "", widths[i], columns_[i].right);
    }
    TrimRight(&out);
    return out + "\n";
  };
  std::vector<std::string> headers;
  for (const Column& c : columns_) headers.push_back(c.header);
  std::string out = line(headers);
  size_t total = 0;
  for (size_t w : widths) total += w;
  total += 2 * (widths.empty() ? 0 : widths.size() - 1);
  std::string rule;
  for (size_t i = 0; i < total; ++i) rule += "─";
  out += rule + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string AttributeTable(const std::vector<AttributeSummary>& attributes) {
  TextTable t({{"attribute", false},
               {"type", false},
               {"present"},
               {"distinct"},
               {"most frequent", false},
               {"its share"},
               {"mean key text"}});
  for (const AttributeSummary& a : attributes) {
    std::string top = a.top_value.size() > 32 ? a.top_value.substr(0, 31) + "…" : a.top_value;
    t.AddRow({a.name, std::string(TypeName(a.type)), Grouped(a.present),
              (a.distinct_exact ? "" : "≈") + Grouped(a.distinct), top, Share(a.top_share),
              fmt::format("{:.0f} B", a.present ? static_cast<double>(a.total_value_bytes) /
                                                      static_cast<double>(a.present)
                                                : 0.0)});
  }
  return t.Render();
}

std::string RenderRecommendation(const Recommendation& rec) {
  if (rec.best.empty()) return "";
  TextTable scores({{"strategy", false},
                    {"refused"},
                    {"cloud write"},
                    {"read"},
                    {"on disk"},
                    {"throttling"},
                    {"+ cloud"},
                    {"+ reads"},
                    {"+ storage"},
                    {"= score"}});
  for (const StrategyScore& m : rec.scores) {
    scores.AddRow({m.strategy, Share(m.refused), Duration(m.cloud_seconds),
                   m.read_micros > 0 ? Latency(m.read_micros) : "–", Bytes(m.bytes),
                   Fixed(m.throttling_term, 2), Fixed(m.cloud_term, 2), Fixed(m.read_term, 2),
                   Fixed(m.storage_term, 2), Fixed(m.score, 2)});
  }
  std::string out = fmt::format("Recommendation: {}\n", rec.best);
  for (const std::string& reason : rec.reasons) out += "  " + reason + "\n";
  if (!rec.versus_runner_up.empty()) out += "  " + rec.versus_runner_up + "\n";
  out +=
      "\nScores (lower is better: 8 × the share refused, + log2 of the cloud write time over the "
      "best's, + 1.5 × the weighted mean of log2(each read's median over that read's best), + "
      "0.5 × log2 of the bytes over the least; read: the medians' weighted geometric mean)\n" +
      scores.Render();
  if (!rec.traps.empty()) {
    out += "\nTraps found in the candidates\n";
    for (const Trap& t : rec.traps) out += fmt::format("  - {}: {}\n", t.kind, t.text);
  }
  return out;
}

namespace {

// Writes and layout: each strategy's write rate against raw RocksDB, its bytes and its skew.
std::string WritesSection(const ComparisonResult& r) {
  TextTable writes({{"strategy", false},
                    {"write"},
                    {"× raw"},
                    {"raw RocksDB"},
                    {"per batch"},
                    {"on disk"},
                    {"× raw"},
                    {"keys"},
                    {"hottest key"},
                    {"phys max/mean"},
                    {"phys CV"},
                    {"burst-hour hot key"},
                    {"physical partitions", false}});
  for (const StrategyResult& s : r.strategies) {
    writes.AddRow(
        {s.label, Rate(s.write_rate()), Ratio(s.write_ratio()), Rate(s.raw_write_rate()),
         Fixed(s.batches ? static_cast<double>(s.entities_written) / s.batches : 0, 1),
         Bytes(s.bytes_on_disk),
         Ratio(s.raw_bytes_on_disk ? static_cast<double>(s.bytes_on_disk) / s.raw_bytes_on_disk
                                   : 0),
         Grouped(s.analysis.logical.partitions), Share(s.analysis.logical.hottest_share),
         Ratio(s.physical_max_over_mean()), Fixed(s.analysis.physical.cv, 2),
         Share(s.peak_hour_hot_share), Sparkline(s.physical_on_disk)});
  }
  return "Writes and layout (entities/s inside Table::Submit vs raw WriteBatch of the same "
         "bytes; skew over the whole data)\n" +
         writes.Render() + "\n";
}

// Reads on disk: each read under each strategy, its plan and its latencies.
std::string ReadsSection(const ComparisonResult& r) {
  TextTable reads({{"read", false},
                   {"strategy", false},
                   {"plan", false},
                   {"p50"},
                   {"p99"},
                   {"rows/read"},
                   {"examined/row"}});
  for (size_t k = 0; k < r.reads.size(); ++k) {
    for (const StrategyResult& s : r.strategies) {
      if (k >= s.reads.size()) continue;
      const ReadStats& rs = s.reads[k];
      reads.AddRow({rs.name, s.label, rs.how, Latency(rs.p50_micros), Latency(rs.p99_micros),
                    Fixed(rs.samples ? static_cast<double>(rs.entities) / rs.samples : 0, 1),
                    Fixed(rs.examined_per_entity(), rs.examined_per_entity() < 10 ? 1 : 0)});
    }
  }
  const StrategyResult& first = r.strategies.front();
  std::string counts;
  for (const ReadStats& rs : first.reads) {
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", Grouped(rs.samples), rs.name);
  }
  return fmt::format(
             "Reads on disk (wall time of the whole read, all pages; samples per strategy: {})\n",
             counts) +
         reads.Render() + "\n";
}

// Cloud: the predicted write time under each profile, and the share of the busiest day refused.
std::string CloudSection(const ComparisonResult& r) {
  const StrategyResult& first = r.strategies.front();
  std::vector<TextTable::Column> cloud_columns = {
      {"strategy", false}, {"Azure Table"}, {"DynamoDB"}, {"Cosmos DB"}};
  for (const ThrottleStats& t : first.throttle) cloud_columns.push_back({"refused: " + t.profile});
  TextTable cloud(cloud_columns);
  for (const StrategyResult& s : r.strategies) {
    std::vector<std::string> row = {s.label, CloudTime(s, "azure-table"), CloudTime(s, "dynamodb"),
                                    CloudTime(s, "cosmos")};
    for (const ThrottleStats& t : first.throttle) row.push_back(Throttled(s, t.profile));
    cloud.AddRow(std::move(row));
  }
  return fmt::format(
             "Cloud: predicted time to write the data (busiest partition ÷ its per-partition "
             "limit; partkv::Analyzer), and the share of the busiest day refused with throttling "
             "emulation on when offered at {} on average\n",
             Rate(r.replay_rate)) +
         cloud.Render() + "\n";
}

// The findings, the recommendation, the data's attributes (for the user's data) and the
// workload file.
std::string Conclusions(const ComparisonResult& r) {
  std::string out = "Findings\n";
  for (const Finding& f : Findings(r)) {
    out += fmt::format("  - {}: {} — {}\n", f.measure, f.winner, f.detail);
  }
  out += "\n" + RenderRecommendation(Recommend(r));
  if (!r.workload.built_in) {
    out += "\nData attributes\n" + AttributeTable(r.workload.attributes);
  }
  if (!r.workload_file.empty()) {
    out += "\nThis comparison as a workload file (partkv-bench --workload FILE runs it again):\n" +
           r.workload_file + "\n";
  }
  return out;
}

// The run's time, by phase; a note when background work had not settled.
std::string Footer(const ComparisonResult& r) {
  std::string phases;
  for (const auto& [phase, seconds] : r.phase_seconds) {
    if (seconds >= 0.05)
      phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", phase, Duration(seconds));
  }
  std::string out = fmt::format("\nfinished in {} ({})\n", Duration(r.wall_seconds), phases);
  if (!r.settled) {
    out +=
        "note: flushes and compactions were still running after 10 minutes of waiting; the "
        "sizes and reads above were measured while they ran\n";
  }
  return out;
}

}  // namespace

std::string RenderTerminalReport(const ComparisonResult& r) {
  return Header(r) + "\n" + WritesSection(r) + ReadsSection(r) + CloudSection(r) +
         TargetSection(r) + Conclusions(r) + Footer(r);
}

std::string RenderSweepReport(const SweepResult& sweep) {
  if (sweep.runs.empty()) return "";
  std::vector<TextTable::Column> columns = {{"strategy", false}};
  for (const ComparisonResult& run : sweep.runs) {
    columns.push_back({fmt::format("write µs/entity @{}", Grouped(run.workload.events))});
  }
  columns.push_back({"growth"});
  columns.push_back({"CPU"});
  columns.push_back({"raw"});
  for (const ComparisonResult& run : sweep.runs) {
    columns.push_back(
        {fmt::format("{} read µs/page @{}", SweepReadName(run), Grouped(run.workload.events))});
  }
  columns.push_back({"growth"});
  columns.push_back({"CPU"});
  TextTable table(columns);
  for (const SweepGrowth& g : Growth(sweep)) {
    std::vector<std::string> row = {g.label};
    for (double v : g.write_micros_per_entity) row.push_back(Fixed(v, 2));
    row.push_back(Ratio(g.write_growth));
    row.push_back(Ratio(g.write_cpu_growth));
    row.push_back(Ratio(g.raw_write_growth));
    for (const double v : g.day_micros_per_page) row.push_back(Fixed(v, 0));
    row.push_back(Ratio(g.read_growth));
    row.push_back(Ratio(g.read_cpu_growth));
    table.AddRow(std::move(row));
  }
  std::string out = fmt::format(
      "Sweep: cost growth from {} to {} events (target: write cost per entity ≤ {:.1f}× at 10×)\n",
      Grouped(sweep.runs.front().workload.events), Grouped(sweep.runs.back().workload.events),
      kSweepWriteGrowthTarget);
  out += table.Render();
  out +=
      "(growth: largest run ÷ smallest, wall time; CPU: the same in the measuring thread's CPU "
      "time; raw: the raw RocksDB write of the same bytes, wall time)\n";
  double wall = 0;
  for (const ComparisonResult& run : sweep.runs) wall += run.wall_seconds;
  out += fmt::format("\nsweep finished in {}\n", Duration(wall));
  return out;
}

}  // namespace partkv::compare
