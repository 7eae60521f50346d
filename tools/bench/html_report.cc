#include "tools/bench/html_report.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "fmt/format.h"
#include "tools/bench/findings.h"
#include "tools/bench/format.h"
#include "tools/bench/html_style.h"
#include "tools/bench/recommendation.h"
#include "tools/bench/svg_charts.h"

namespace partkv::compare {
namespace {

// Colour-blind-safe (Okabe–Ito) series colours.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73",
                                    "#CC79A7", "#56B4E9", "#D55E00"};
constexpr const char* kPartkv = "#0072B2";
constexpr const char* kRaw = "#AEB8C2";
constexpr const char* kProfiles[][3] = {{"azure-table", "Azure Table", "#0072B2"},
                                        {"dynamodb", "DynamoDB", "#E69F00"},
                                        {"cosmos", "Cosmos DB", "#009E73"}};

double CloudSeconds(const StrategyResult& r, const std::string& profile) {
  for (const CloudEstimate& c : r.analysis.cloud) {
    if (c.profile == profile) return c.seconds_with_skew;
  }
  return 0;
}

const ThrottleStats* Throttle(const StrategyResult& r, const std::string& profile) {
  for (const ThrottleStats& t : r.throttle) {
    if (t.profile == profile) return &t;
  }
  return nullptr;
}

std::vector<std::string> Labels(const ComparisonResult& r) {
  std::vector<std::string> out;
  for (const StrategyResult& s : r.strategies) out.push_back(s.label);
  return out;
}

Series SeriesOf(const ComparisonResult& r, std::string name, const char* colour,
                const std::function<double(const StrategyResult&)>& get) {
  Series s{std::move(name), colour, {}};
  for (const StrategyResult& x : r.strategies) s.values.push_back(get(x));
  return s;
}

// A table column: its header, the cell text, and the value that ranks it (lower_is_better says
// which end is best; no ranking when rank is null).
struct Column {
  std::string header;
  std::function<std::string(const StrategyResult&)> text;
  std::function<double(const StrategyResult&)> rank;
  bool lower_is_better = true;
};

std::string SummaryTable(const ComparisonResult& r) {
  std::vector<Column> columns = {
      {"entities/s", [](auto& s) { return Rate(s.write_rate()); },
       [](auto& s) { return s.write_rate(); }, false},
      {"× raw", [](auto& s) { return Ratio(s.write_ratio()); },
       [](auto& s) { return s.write_ratio(); }, false},
      {"keys", [](auto& s) { return Grouped(s.analysis.logical.partitions); }, nullptr},
      {"hottest key", [](auto& s) { return Share(s.analysis.logical.hottest_share); },
       [](auto& s) { return s.analysis.logical.hottest_share; }},
      {"phys max/mean", [](auto& s) { return Ratio(s.physical_max_over_mean()); },
       [](auto& s) { return s.physical_max_over_mean(); }},
      {"busiest hour: hottest key", [](auto& s) { return Share(s.peak_hour_hot_share); },
       [](auto& s) { return s.peak_hour_hot_share; }},
  };
  for (size_t k = 0; k < r.reads.size(); ++k) {
    auto p50 = [k](const StrategyResult& s) {
      return k < s.reads.size() ? s.reads[k].p50_micros : 0.0;
    };
    columns.push_back({r.reads[k].name + " p50", [p50](auto& s) { return Latency(p50(s)); }, p50});
  }
  std::vector<Column> cloud = {
      {"Azure", [](auto& s) { return Duration(CloudSeconds(s, "azure-table")); },
       [](auto& s) { return CloudSeconds(s, "azure-table"); }},
      {"DynamoDB", [](auto& s) { return Duration(CloudSeconds(s, "dynamodb")); },
       [](auto& s) { return CloudSeconds(s, "dynamodb"); }},
      {"Cosmos", [](auto& s) { return Duration(CloudSeconds(s, "cosmos")); },
       [](auto& s) { return CloudSeconds(s, "cosmos"); }},
      {"refused, Azure",
       [](auto& s) {
         auto* t = Throttle(s, "azure-table");
         return t ? Share(t->rate()) : "–";
       },
       [](auto& s) {
         auto* t = Throttle(s, "azure-table");
         return t ? t->rate() : 0.0;
       }},
  };
  columns.insert(columns.end(), cloud.begin(), cloud.end());
  std::string out = fmt::format(
      "<div class=\"scroll\"><table id=\"summary\"><thead><tr><th rowspan=\"2\">strategy</th>"
      "<th colspan=\"2\" class=\"group\">writes</th><th colspan=\"4\" class=\"group\">layout "
      "and skew</th><th colspan=\"{}\" class=\"group\">reads on disk</th><th colspan=\"4\" "
      "class=\"group\">cloud: predicted write time · throttling</th></tr><tr>",
      r.reads.size());
  for (const Column& c : columns) out += "<th>" + Escape(c.header) + "</th>";
  out += "</tr></thead><tbody>";
  for (const StrategyResult& s : r.strategies) {
    out += fmt::format("<tr data-strategy=\"{0}\"><td class=\"name\" title=\"{1}\">{0}{2}</td>",
                       Escape(s.label), Escape(s.explanation),
                       s.suggested ? " <span class=\"dim\">(suggested)</span>" : "");
    for (const Column& c : columns) {
      std::string cls;
      if (c.rank) {
        double best = c.rank(s), worst = c.rank(s);
        for (const StrategyResult& o : r.strategies) {
          best = c.lower_is_better ? std::min(best, c.rank(o)) : std::max(best, c.rank(o));
          worst = c.lower_is_better ? std::max(worst, c.rank(o)) : std::min(worst, c.rank(o));
        }
        if (best != worst && c.rank(s) == best) cls = " class=\"best\"";
        if (best != worst && c.rank(s) == worst) cls = " class=\"worst\"";
      }
      out += "<td" + cls + ">" + Escape(c.text(s)) + "</td>";
    }
    out += "</tr>";
  }
  return out + "</tbody></table></div>";
}

std::string HeatSection(const ComparisonResult& r) {
  uint64_t max = 0;
  for (const StrategyResult& s : r.strategies) {
    for (uint64_t c : s.physical_on_disk) max = std::max(max, c);
  }
  std::string out =
      "<section id=\"heat\"><h2>Partition heat</h2><p class=\"lead\">Entities per physical "
      "partition (RocksDB column family) as counted on disk, on one scale for every strategy; "
      "the dashed line is the mean. A strategy with few PartitionKeys leaves most partitions "
      "idle and overloads the rest.</p>";
  out +=
      "<div class=\"heat-legend\"><span>below the mean</span><i style=\"background:linear-"
      "gradient(90deg," +
      HeatColour(0.01) + "," + HeatColour(1) + "," + HeatColour(2) + "," + HeatColour(4) +
      ")\"></i><span>4× the mean and above</span></div>";
  out += "<div class=\"grid g3\">";
  for (const StrategyResult& s : r.strategies) {
    const AnalysisReport& a = s.analysis;
    const std::string hottest = a.hottest_logical.empty() ? "" : a.hottest_logical.front().key;
    out += fmt::format(
        "<div class=\"card\"><h3>{}</h3><p class=\"note\">{}</p>{}<p class=\"stats\">"
        "<b>{}</b> keys · hottest <code>{}</code> holds <b>{}</b> · physical max/mean "
        "<b>{}</b> · CV {:.2f}</p></div>",
        Escape(s.label), Escape(s.explanation),
        HeatHistogram({s.label, s.physical_on_disk, max, a.physical.mean}),
        Grouped(a.logical.partitions), Escape(hottest), Share(a.logical.hottest_share),
        Ratio(s.physical_max_over_mean()), a.physical.cv);
  }
  return out + "</div></section>";
}

std::string RatesSection(const ComparisonResult& r) {
  const auto labels = Labels(r);
  BarChartSpec write{
      "Write rate: partkv vs raw RocksDB on the same bytes",
      "entities/s (higher is better)",
      labels,
      {SeriesOf(r, "partkv Table::Submit", kPartkv, [](auto& s) { return s.write_rate(); }),
       SeriesOf(r, "raw RocksDB WriteBatch", kRaw, [](auto& s) { return s.raw_write_rate(); })},
      false,
      [](double v) { return Rate(v); },
      "write"};
  // One chart per read: p50 and p99, log scale.
  std::vector<BarChartSpec> read_charts;
  for (size_t k = 0; k < r.reads.size(); ++k) {
    auto pick = [k](const StrategyResult& s) -> const ReadStats* {
      return k < s.reads.size() ? &s.reads[k] : nullptr;
    };
    std::string attributes;
    for (const std::string& a : r.reads[k].attributes) {
      attributes += (attributes.empty() ? "" : ", ") + a;
    }
    std::string id = "read-";
    for (char c : r.reads[k].name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    read_charts.push_back(
        {fmt::format("Read \"{}\": every entity with given {}", r.reads[k].name, attributes),
         "latency of the whole read, log scale (lower is better)",
         labels,
         {SeriesOf(r, "p50", kPalette[(2 + k) % std::size(kPalette)],
                   [pick](auto& s) { return pick(s) ? pick(s)->p50_micros : 0.0; }),
          SeriesOf(r, "p99", "#BBBBBB",
                   [pick](auto& s) { return pick(s) ? pick(s)->p99_micros : 0.0; })},
         true,
         [](double v) { return Latency(v); },
         id});
  }
  std::string out =
      "<section id=\"rates\"><h2>Writes and reads, side by side</h2><p class=\"lead\">Writes: "
      "time inside <code>Table::Submit</code> against a raw RocksDB <code>WriteBatch</code> of "
      "the same key and value bytes in the same batches. Reads: wall time of the whole read on "
      "disk, every page, after an untimed warm-up.</p><div class=\"grid g2\">";
  std::vector<const BarChartSpec*> charts = {&write};
  for (const BarChartSpec& c : read_charts) charts.push_back(&c);
  for (const BarChartSpec* c : charts) {
    out +=
        "<div class=\"card\"><h3>" + Escape(c->title) + "</h3>" + HorizontalBarChart(*c) + "</div>";
  }
  std::string head, how;
  for (const ReadSummary& rs : r.reads) head += "<th>" + Escape(rs.name) + "</th>";
  for (const StrategyResult& s : r.strategies) {
    how += "<tr><td>" + Escape(s.label) + "</td>";
    for (const ReadStats& rs : s.reads) {
      how += fmt::format("<td>{} <span class=\"dim\">({} examined per row)</span></td>",
                         Escape(rs.how), Fixed(rs.examined_per_entity(), 1));
    }
    how += "</tr>";
  }
  out +=
      "</div><div class=\"card how\"><h3>How each read is asked</h3><div class=\"scroll\">"
      "<table><thead><tr><th>strategy</th>" +
      head + "</tr></thead><tbody>" + how + "</tbody></table></div></div>";
  return out + "</section>";
}

std::string CloudSection(const ComparisonResult& r) {
  const auto labels = Labels(r);
  BarChartSpec predicted{"Predicted time to write the data",
                         "seconds, log scale (lower is better)",
                         labels,
                         {},
                         true,
                         [](double v) { return Duration(v); },
                         "cloud"};
  BarChartSpec refused{
      fmt::format("Refused with throttling on, busiest day at {} average", Rate(r.replay_rate)),
      "share of offered entities refused (lower is better)",
      labels,
      {},
      false,
      [](double v) { return Share(v); },
      "throttle"};
  refused.zero_is_value = true;
  for (const auto& p : kProfiles) {
    predicted.series.push_back(
        SeriesOf(r, p[1], p[2], [&](auto& s) { return CloudSeconds(s, p[0]); }));
    refused.series.push_back(SeriesOf(r, p[1], p[2], [&](auto& s) {
      auto* t = Throttle(s, p[0]);
      return t ? t->rate() : 0.0;
    }));
  }
  return "<section id=\"cloud\"><h2>Cloud limits</h2><p class=\"lead\">Left: the time the "
         "data needs when every partition is held to its service's limit (Azure Table 2,000 "
         "entities/s per PartitionKey, DynamoDB 1,000 WCU/s per key, Cosmos DB 10,000 RU/s per "
         "physical partition) — the busiest partition's load over its limit, from "
         "<code>partkv::Analyzer</code>. Right: the busiest day replayed against tables with "
         "throttling emulation on (an injected clock, no sleeping), each refused batch counted "
         "and not retried.</p><div class=\"grid g2\"><div class=\"card\"><h3>" +
         Escape(predicted.title) + "</h3>" + HorizontalBarChart(predicted) +
         "</div><div class=\"card\"><h3>" + Escape(refused.title) + "</h3>" +
         HorizontalBarChart(refused) + "</div></div></section>";
}

// --target: the endpoint's answers beside the prediction for its profile; empty without it.
std::string TargetSection(const ComparisonResult& r) {
  if (r.target.empty()) return "";
  const auto labels = Labels(r);
  const char* colour = "#0072B2";
  for (const auto& p : kProfiles) {
    if (r.target_profile == p[0]) colour = p[2];
  }
  BarChartSpec answers{"503/429 answers the endpoint gave while it was written",
                       "throttled answers, each waited out and retried (lower is better)",
                       labels,
                       {},
                       false,
                       [](double v) { return Grouped(static_cast<uint64_t>(v)); },
                       "target-throttled"};
  answers.zero_is_value = true;
  answers.series.push_back(SeriesOf(r, "measured", colour, [](auto& s) {
    return s.target ? static_cast<double>(s.target->throttled_answers) : 0.0;
  }));
  BarChartSpec wait{"Time spent waiting to retry",
                    "seconds of back-off and retry-after (lower is better)",
                    labels,
                    {},
                    false,
                    [](double v) { return Duration(v); },
                    "target-wait"};
  wait.zero_is_value = true;
  wait.series.push_back(SeriesOf(r, "measured", colour, [](auto& s) {
    return s.target ? s.target->retry_wait_seconds : 0.0;
  }));
  std::string rows;
  for (const StrategyResult& s : r.strategies) {
    if (!s.target) continue;
    const TargetStats& m = *s.target;
    const ThrottleStats* predicted = Throttle(s, r.target_profile);
    rows += "<tr><td>" + Escape(s.label) + "</td><td>" + Duration(m.write_seconds) + "</td><td>" +
            Rate(m.write_rate()) + "</td><td>" + Duration(m.max_lag_seconds) + "</td><td>" +
            Grouped(m.throttled_answers) + "</td><td>" + Duration(m.retry_wait_seconds) +
            "</td><td>" + Grouped(m.batches_resent) + "</td><td>" +
            (predicted ? Share(predicted->rate()) : std::string("–")) + "</td>";
    for (const ReadStats& rs : m.reads) rows += "<td>" + Latency(rs.p50_micros) + "</td>";
    rows += "</tr>";
  }
  std::string read_heads;
  for (const ReadSummary& rs : r.reads) read_heads += "<th>" + Escape(rs.name) + " p50</th>";
  const StrategyResult& first = r.strategies.front();
  const double offered = first.target ? first.target->offered_seconds : 0;
  return "<section id=\"target\"><h2>Measured on the endpoint</h2><p class=\"lead\">" +
         Escape(fmt::format(
             "{}: every strategy's batches sent again at the replay's pace ({} of replay time, "
             "bursts included), then the same reads. The answers below are what the service "
             "said; the predicted column is the share of the busiest day refused under {} "
             "throttling emulation.",
             r.target, Duration(offered), r.target_profile)) +
         "</p><div class=\"grid g2\"><div class=\"card\"><h3>" + Escape(answers.title) + "</h3>" +
         HorizontalBarChart(answers) + "</div><div class=\"card\"><h3>" + Escape(wait.title) +
         "</h3>" + HorizontalBarChart(wait) +
         "</div></div><div class=\"card\"><div class=\"scroll\"><table><thead><tr>"
         "<th>strategy</th><th>written in</th><th>rate</th><th>behind replay</th>"
         "<th>503/429 answers</th><th>retry wait, summed</th><th>resent</th><th>predicted "
         "refused</th>" +
         read_heads + "</tr></thead><tbody>" + rows + "</tbody></table></div></div></section>";
}

std::string SweepSection(const SweepResult& sweep) {
  if (sweep.runs.size() < 2) return "";
  const auto growth = Growth(sweep);
  LineSpec write, read;
  write.title = "Write cost per entity";
  write.y_label = "µs per entity inside Submit";
  read.title = fmt::format("Read \"{}\" cost per page", SweepReadName(sweep.runs.front()));
  read.y_label = "µs per page of ≤ 1,000";
  write.x_label = read.x_label = "events (log scale)";
  for (const ComparisonResult& run : sweep.runs) {
    write.x.push_back(static_cast<double>(run.workload.events));
    read.x.push_back(static_cast<double>(run.workload.events));
  }
  std::string rows;
  for (size_t i = 0; i < growth.size(); ++i) {
    const char* colour = kPalette[i % std::size(kPalette)];
    write.lines.push_back({growth[i].label, colour, growth[i].write_micros_per_entity});
    read.lines.push_back({growth[i].label, colour, growth[i].day_micros_per_page});
    rows += fmt::format(
        "<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        Escape(growth[i].label),
        growth[i].write_growth <= kSweepWriteGrowthTarget ? "best" : "worst",
        Ratio(growth[i].write_growth), Ratio(growth[i].write_cpu_growth),
        Ratio(growth[i].raw_write_growth), Ratio(growth[i].read_growth),
        Ratio(growth[i].read_cpu_growth));
  }
  for (LineSpec* l : {&write, &read}) {
    l->format_x = [](double v) { return Grouped(static_cast<uint64_t>(v)); };
    l->format_y = [](double v) { return Fixed(v, v < 10 ? 1 : 0); };
    l->id = l == &write ? "sweep-write" : "sweep-read";
  }
  return fmt::format(
      "<section id=\"sweep\"><h2>Scaling sweep</h2><p class=\"lead\">The same comparison at "
      "{} to {} events. Target: the write cost per entity grows at most {:.1f}× from 1× to 10×."
      "</p><div class=\"grid g2\"><div class=\"card\"><h3>{}</h3>{}</div><div class=\"card\">"
      "<h3>{}</h3>{}</div></div><div class=\"card\"><table><thead><tr><th>strategy</th>"
      "<th>write cost growth</th><th>… in CPU time</th><th>raw RocksDB write growth</th>"
      "<th>read cost growth (per page)</th><th>… in CPU time</th></tr></thead><tbody>{}"
      "</tbody></table></div></section>",
      Grouped(sweep.runs.front().workload.events), Grouped(sweep.runs.back().workload.events),
      kSweepWriteGrowthTarget, Escape(write.title), LineChart(write), Escape(read.title),
      LineChart(read), rows);
}

std::string MethodSection(const ComparisonResult& r) {
  const WorkloadSummary& w = r.workload;
  std::vector<std::pair<std::string, std::string>> facts;
  if (w.built_in) {
    facts.push_back(
        {"workload",
         fmt::format("{} telemetry orders over {} days ({} … {}); {} devices and 20,000 "
                     "customers drawn from Zipf distributions; diurnal curve, weekends "
                     "at 60 %, burst hour {} ({} events); seed {}",
                     Grouped(w.events), w.days, w.first_day, w.last_day, Grouped(w.devices),
                     w.burst_hour, Grouped(w.burst_hour_events), w.seed)});
    facts.push_back(
        {"entities",
         fmt::format("15 typed properties (String, Int32, Int64, Double, DateTime, "
                     "Guid, Boolean); encoded values {}–{} B, mean {:.0f} B; RowKey "
                     "= {}",
                     w.min_value_bytes, w.max_value_bytes, w.mean_value_bytes, w.row_key)});
  } else {
    facts.push_back(
        {"data", fmt::format("{}: {} entities; encoded values {}–{} B, mean {:.0f} B; RowKey = {}",
                             w.source, Grouped(w.events), w.min_value_bytes, w.max_value_bytes,
                             w.mean_value_bytes, w.row_key)});
    facts.push_back(
        {"timeline",
         w.time_attribute.empty()
             ? std::string("file order, at the replay rate")
             : fmt::format("by {}: {} days ({} … {}), busiest hour {} ({} entities), busiest "
                           "day {} ({} entities)",
                           w.time_attribute, w.days, w.first_day, w.last_day, w.burst_hour,
                           Grouped(w.burst_hour_events), w.burst_day,
                           Grouped(w.busiest_day_events))});
  }
  std::string reads;
  for (const ReadSummary& rs : r.reads) {
    std::string attributes;
    for (const std::string& a : rs.attributes) attributes += (attributes.empty() ? "" : ", ") + a;
    reads += fmt::format("{}{} ({}; weight {})", reads.empty() ? "" : "; ", rs.name, attributes,
                         Fixed(rs.weight, 1));
  }
  facts.push_back({"read mix", reads});
  std::vector<std::pair<std::string, std::string>> more = {
      {"store", fmt::format("one store, default 64 MiB memory budget, one table per strategy "
                            "with {} physical partitions and its key scheme declared",
                            r.physical_partitions)},
      {"writes", fmt::format("batches of ≤ 100 entities of one PartitionKey, sent when full or "
                             "after 1 s on a timeline compressed to {} on average; timed around "
                             "each call, partkv and raw interleaved 16 batches at a time",
                             Rate(r.replay_rate))},
      {"baseline",
       "raw RocksDB configured like the store (same options, fresh cache of the same "
       "size), same key/value bytes, same batches, same partition routing"},
      {"reads",
       "wall time of whole reads (all pages of ≤ 1,000) after flush and settling; the "
       "same samples for every strategy; every result checked against the data"},
      {"run", Duration(r.wall_seconds)},
  };
  facts.insert(facts.end(), more.begin(), more.end());
  for (const auto& f : r.facts) facts.push_back(f);
  std::string out =
      "<section id=\"method\"><h2>Machine and method</h2><div class=\"card\">"
      "<dl class=\"facts\">";
  for (const auto& [k, v] : facts) out += "<dt>" + Escape(k) + "</dt><dd>" + Escape(v) + "</dd>";
  out += "</dl>";
  if (!w.built_in && !w.attributes.empty()) {
    out +=
        "<h3>Data attributes</h3><div class=\"scroll\"><table id=\"attributes\"><thead><tr>"
        "<th>attribute</th><th>type</th><th>present</th><th>distinct</th><th>most frequent"
        "</th><th>its share</th></tr></thead><tbody>";
    for (const AttributeSummary& a : w.attributes) {
      out += fmt::format(
          "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td>"
          "<td>{}</td></tr>",
          Escape(a.name), TypeName(a.type), Grouped(a.present), a.distinct_exact ? "" : "≈",
          Grouped(a.distinct), Escape(a.top_value), Share(a.top_share));
    }
    out += "</tbody></table></div>";
  }
  if (!r.workload_file.empty()) {
    out +=
        "<h3>This comparison as a workload file</h3><p class=\"dim\">Saved as a file, "
        "<code>partkv-bench --workload FILE</code> runs it again.</p><pre>" +
        Escape(r.workload_file) + "</pre>";
  }
  return out + "</div></section>";
}

std::string RecommendationSection(const ComparisonResult& r) {
  const Recommendation rec = Recommend(r);
  if (rec.best.empty()) return "";
  std::string out =
      "<section id=\"recommendation\"><h2>Recommendation</h2><div class=\"card\"><p "
      "class=\"lead\"><b>" +
      Escape(rec.best) + "</b> best serves the stated mix of writes and reads.</p><ul>";
  for (const std::string& reason : rec.reasons) out += "<li>" + Escape(reason) + "</li>";
  if (!rec.versus_runner_up.empty()) out += "<li>" + Escape(rec.versus_runner_up) + "</li>";
  out += "</ul>";
  std::string rows;
  for (const StrategyScore& m : rec.scores) {
    rows += fmt::format(
        "<tr{}><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td></tr>",
        m.strategy == rec.best ? " class=\"best\"" : "", Escape(m.strategy), Share(m.refused),
        Duration(m.cloud_seconds), m.read_micros > 0 ? Latency(m.read_micros) : "–", Bytes(m.bytes),
        Fixed(m.throttling_term, 2), Fixed(m.cloud_term, 2), Fixed(m.read_term, 2),
        Fixed(m.storage_term, 2), Fixed(m.score, 2));
  }
  out +=
      "<div class=\"scroll\"><table id=\"scores\"><thead><tr><th>strategy</th><th>refused"
      "</th><th>cloud write</th><th>weighted read</th><th>on disk</th><th>throttling</th>"
      "<th>+ cloud</th><th>+ reads</th><th>+ storage</th><th>= score</th></tr></thead><tbody>" +
      rows +
      "</tbody></table></div><p class=\"dim\">Lower scores are better: 8 × the share of the "
      "busiest day refused, + log2 of the predicted cloud write time over the best's, + 1.5 × "
      "the weighted mean of log2(each read's median over that read's best strategy), + 0.5 × "
      "log2 of the bytes on disk over the least. The read column is the medians' weighted "
      "geometric mean.</p>";
  if (!rec.traps.empty()) {
    out += "<h3>Traps found in the candidates</h3><ul class=\"traps\">";
    for (const Trap& t : rec.traps) {
      out += "<li><span class=\"m\">" + Escape(t.kind) + "</span> " + Escape(t.text) + "</li>";
    }
    out += "</ul>";
  }
  return out + "</div></section>";
}

std::string CheckScript(const ComparisonResult& r) {
  std::string names;
  for (const StrategyResult& s : r.strategies) {
    std::string quoted;
    for (char c : s.label) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c == '<' ? std::string("\\u003c") : std::string(1, c);
    }
    names += (names.empty() ? "\"" : ",\"") + quoted + "\"";
  }
  // The charts: the write rate, one per read, and the two cloud charts.
  return fmt::format(kCheckScriptTemplate, names, r.physical_partitions, 3 + r.reads.size());
}

}  // namespace

std::string RenderHtml(const ComparisonResult& r, const SweepResult* sweep) {
  const WorkloadSummary& w = r.workload;
  std::string date, cpu;
  for (const auto& [k, v] : r.facts) {
    if (k == "date") date = v;
    if (k == "cpu") cpu = v;
  }
  std::string out =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>partkv — key strategies on disk</title><style>";
  out += kReportCss;
  out +=
      "</style></head><body><main><header><p class=\"kicker\">partkv-bench</p><h1>Partition-"
      "key strategies on disk</h1>";
  out += fmt::format(
      "<p class=\"sub\">The same data written under {} strategies, each "
      "into its own table, against raw RocksDB on the same bytes · {} · {}</p>",
      r.strategies.size(), Escape(date), Escape(cpu));
  out += "<div class=\"chips\">";
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {w.built_in ? "events" : "entities", Grouped(w.events)},
           {"days", std::to_string(w.days)},
           {"reads", std::to_string(r.reads.size())},
           {"physical partitions", std::to_string(r.physical_partitions)},
           {"mean value", fmt::format("{:.0f} B", w.mean_value_bytes)},
           {"run time", Duration(r.wall_seconds)}}) {
    out += "<span class=\"chip\"><b>" + Escape(v) + "</b> " + Escape(k) + "</span>";
  }
  out += "</div></header>";

  out += RecommendationSection(r);
  out +=
      "<section id=\"findings\"><h2>What the numbers say</h2><div class=\"card\"><ul "
      "class=\"findings\">";
  for (const Finding& f : Findings(r)) {
    out += "<li><span class=\"m\">" + Escape(f.measure) + "</span><span><b>" + Escape(f.winner) +
           "</b> — " + Escape(f.detail) + "</span></li>";
  }
  out += "</ul></div></section>";
  out +=
      "<section id=\"table\"><h2>Summary</h2><p class=\"lead\">Best value of each column in "
      "green, worst in red. Skew is over the whole data; the busiest-hour column is the "
      "share of that hour's writes that hit its hottest PartitionKey.</p><div class=\"card\">" +
      SummaryTable(r) + "</div></section>";
  out += HeatSection(r);
  out += RatesSection(r);
  out += CloudSection(r);
  out += TargetSection(r);
  if (sweep != nullptr) out += SweepSection(*sweep);
  out += MethodSection(r);
  out +=
      "<footer>Generated by partkv-bench. Self-contained: no scripts, fonts or images are "
      "loaded from anywhere.</footer></main>";
  out += CheckScript(r);
  return out + "</body></html>\n";
}

}  // namespace partkv::compare
