#include "tools/bench/csv_report.h"

#include <functional>
#include <memory>
#include <utility>

#include "fmt/format.h"
#include "tools/bench/findings.h"
#include "tools/bench/recommendation.h"

namespace partkv::compare {
namespace {

using Getter = std::function<std::string(const ComparisonResult&, const StrategyResult&)>;

std::string Num(double v) { return fmt::format("{:.6g}", v); }
std::string Num(uint64_t v) { return std::to_string(v); }

const CloudEstimate* Cloud(const StrategyResult& r, const std::string& profile) {
  for (const CloudEstimate& c : r.analysis.cloud) {
    if (c.profile == profile) return &c;
  }
  return nullptr;
}

const ThrottleStats* Throttle(const StrategyResult& r, const std::string& profile) {
  for (const ThrottleStats& t : r.throttle) {
    if (t.profile == profile) return &t;
  }
  return nullptr;
}

// A column-name part from a read's name: letters, digits and '_' ("device-day" -> "device_day").
std::string ColumnName(std::string name) {
  for (char& c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  }
  return name;
}

void AddRead(std::vector<std::pair<std::string, Getter>>* cols, const std::string& name, size_t k) {
  static const ReadStats kNone;
  const std::string prefix = ColumnName(name);
  auto get = [k](const StrategyResult& r) -> const ReadStats& {
    return k < r.reads.size() ? r.reads[k] : kNone;
  };
  cols->push_back({prefix + "_how", [=](auto&, auto& r) { return get(r).how; }});
  cols->push_back(
      {prefix + "_fanout", [=](auto&, auto& r) { return Num(uint64_t{get(r).fanout}); }});
  cols->push_back({prefix + "_samples", [=](auto&, auto& r) { return Num(get(r).samples); }});
  cols->push_back({prefix + "_p50_us", [=](auto&, auto& r) { return Num(get(r).p50_micros); }});
  cols->push_back({prefix + "_p99_us", [=](auto&, auto& r) { return Num(get(r).p99_micros); }});
  cols->push_back({prefix + "_entities", [=](auto&, auto& r) { return Num(get(r).entities); }});
  cols->push_back({prefix + "_examined", [=](auto&, auto& r) { return Num(get(r).examined); }});
  cols->push_back({prefix + "_pages", [=](auto&, auto& r) { return Num(get(r).pages); }});
  cols->push_back({prefix + "_entities_per_s",
                   [=](auto&, auto& r) { return Num(get(r).entities_per_second()); }});
  cols->push_back(
      {prefix + "_us_per_page", [=](auto&, auto& r) { return Num(get(r).micros_per_page()); }});
  cols->push_back({prefix + "_cpu_us_per_page",
                   [=](auto&, auto& r) { return Num(get(r).cpu_micros_per_page()); }});
}

// --target's columns, empty without it.
void AddTarget(std::vector<std::pair<std::string, Getter>>* cols,
               const std::vector<ReadSummary>& reads) {
  using Field = std::function<std::string(const TargetStats&)>;
  auto add = [cols](const std::string& name, Field field) {
    cols->push_back({"target_" + name, [field](auto&, auto& r) {
                       return r.target ? field(*r.target) : std::string();
                     }});
  };
  cols->push_back({"target", [](auto& c, auto&) { return c.target; }});
  cols->push_back({"target_profile", [](auto& c, auto&) { return c.target_profile; }});
  add("table", [](auto& t) { return t.table; });
  add("entities_written", [](auto& t) { return Num(t.entities_written); });
  add("batches", [](auto& t) { return Num(t.batches); });
  add("offered_seconds", [](auto& t) { return Num(t.offered_seconds); });
  add("write_seconds", [](auto& t) { return Num(t.write_seconds); });
  add("write_entities_per_s", [](auto& t) { return Num(t.write_rate()); });
  add("max_lag_seconds", [](auto& t) { return Num(t.max_lag_seconds); });
  add("throttled_answers", [](auto& t) { return Num(t.throttled_answers); });
  add("retry_wait_seconds", [](auto& t) { return Num(t.retry_wait_seconds); });
  add("batches_resent", [](auto& t) { return Num(t.batches_resent); });
  for (size_t k = 0; k < reads.size(); ++k) {
    const std::string n = ColumnName(reads[k].name);
    auto get = [k](const TargetStats& t) { return k < t.reads.size() ? t.reads[k] : ReadStats{}; };
    add(n + "_p50_us", [get](auto& t) { return Num(get(t).p50_micros); });
    add(n + "_p99_us", [get](auto& t) { return Num(get(t).p99_micros); });
    add(n + "_entities", [get](auto& t) { return Num(get(t).entities); });
  }
}

// The columns that every CSV has: the strategy, the workload, the writes and the layout.
std::vector<std::pair<std::string, Getter>> FixedColumns() {
  return {
      {"strategy", [](auto&, auto& r) { return r.label; }},
      {"strategy_text", [](auto&, auto& r) { return r.strategy; }},
      {"table", [](auto&, auto& r) { return r.table; }},
      {"events", [](auto& c, auto&) { return Num(c.workload.events); }},
      {"days", [](auto& c, auto&) { return Num(uint64_t{c.workload.days}); }},
      {"seed", [](auto& c, auto&) { return Num(c.workload.seed); }},
      {"physical_partitions", [](auto& c, auto&) { return Num(uint64_t{c.physical_partitions}); }},
      {"entities_written", [](auto&, auto& r) { return Num(r.entities_written); }},
      {"entities_on_disk", [](auto&, auto& r) { return Num(r.entities_on_disk()); }},
      {"batches", [](auto&, auto& r) { return Num(r.batches); }},
      {"write_seconds", [](auto&, auto& r) { return Num(r.write_seconds); }},
      {"write_entities_per_s", [](auto&, auto& r) { return Num(r.write_rate()); }},
      {"write_us_per_entity", [](auto&, auto& r) { return Num(r.micros_per_entity()); }},
      {"write_cpu_us_per_entity", [](auto&, auto& r) { return Num(r.cpu_micros_per_entity()); }},
      {"raw_write_seconds", [](auto&, auto& r) { return Num(r.raw_write_seconds); }},
      {"raw_write_entities_per_s", [](auto&, auto& r) { return Num(r.raw_write_rate()); }},
      {"write_ratio_to_raw", [](auto&, auto& r) { return Num(r.write_ratio()); }},
      {"bytes_on_disk", [](auto&, auto& r) { return Num(r.bytes_on_disk); }},
      {"raw_bytes_on_disk", [](auto&, auto& r) { return Num(r.raw_bytes_on_disk); }},
      {"logical_partitions", [](auto&, auto& r) { return Num(r.analysis.logical.partitions); }},
      {"logical_max", [](auto&, auto& r) { return Num(r.analysis.logical.max); }},
      {"logical_mean", [](auto&, auto& r) { return Num(r.analysis.logical.mean); }},
      {"logical_cv", [](auto&, auto& r) { return Num(r.analysis.logical.cv); }},
      {"logical_hottest_share",
       [](auto&, auto& r) { return Num(r.analysis.logical.hottest_share); }},
      {"hottest_key",
       [](auto&, auto& r) {
         return r.analysis.hottest_logical.empty() ? std::string()
                                                   : r.analysis.hottest_logical.front().key;
       }},
      {"physical_max", [](auto&, auto& r) { return Num(r.analysis.physical.max); }},
      {"physical_mean", [](auto&, auto& r) { return Num(r.analysis.physical.mean); }},
      {"physical_cv", [](auto&, auto& r) { return Num(r.analysis.physical.cv); }},
      {"physical_max_over_mean", [](auto&, auto& r) { return Num(r.physical_max_over_mean()); }},
      {"burst_hour_hot_share", [](auto&, auto& r) { return Num(r.peak_hour_hot_share); }},
      {"read_fanout", [](auto&, auto& r) { return Num(uint64_t{r.analysis.read_fanout}); }},
      {"physical_counts",
       [](auto&, auto& r) {
         std::string out;
         for (uint64_t v : r.physical_on_disk) {
           if (!out.empty()) out += ';';
           out += Num(v);
         }
         return out;
       }},
  };
}

// Per profile: the analyzer's predicted write times and the throttled replay's figures.
void AddProfiles(std::vector<std::pair<std::string, Getter>>* c) {
  for (std::string profile : {"azure-table", "dynamodb", "cosmos"}) {
    std::string p = profile;
    for (char& ch : p) ch = ch == '-' ? '_' : ch;
    c->push_back({p + "_predicted_s", [profile](auto&, auto& r) {
                    auto* e = Cloud(r, profile);
                    return e ? Num(e->seconds_with_skew) : std::string();
                  }});
    c->push_back({p + "_predicted_even_s", [profile](auto&, auto& r) {
                    auto* e = Cloud(r, profile);
                    return e ? Num(e->seconds_if_spread_evenly) : std::string();
                  }});
    c->push_back({p + "_offered_entities", [profile](auto&, auto& r) {
                    auto* t = Throttle(r, profile);
                    return t ? Num(t->offered_entities) : std::string();
                  }});
    c->push_back({p + "_throttled_entities", [profile](auto&, auto& r) {
                    auto* t = Throttle(r, profile);
                    return t ? Num(t->throttled_entities) : std::string();
                  }});
    c->push_back({p + "_throttle_rate", [profile](auto&, auto& r) {
                    auto* t = Throttle(r, profile);
                    return t ? Num(t->rate()) : std::string();
                  }});
  }
}

// The recommendation (recommendation.h): each strategy's score, its place, its traps.
void AddRecommendation(std::vector<std::pair<std::string, Getter>>* c,
                       const ComparisonResult& result) {
  auto rec = std::make_shared<const Recommendation>(Recommend(result));
  auto score = [rec](const StrategyResult& r) -> const StrategyScore* {
    for (const StrategyScore& m : rec->scores) {
      if (m.strategy == r.label) return &m;
    }
    return nullptr;
  };
  c->push_back({"score", [score](auto&, auto& r) {
                  auto* m = score(r);
                  return m ? Num(m->score) : std::string();
                }});
  c->push_back({"weighted_read_us", [score](auto&, auto& r) {
                  auto* m = score(r);
                  return m ? Num(m->read_micros) : std::string();
                }});
  c->push_back({"recommendation", [rec](auto&, auto& r) {
                  return r.label == rec->best        ? std::string("best")
                         : r.label == rec->runner_up ? std::string("runner-up")
                                                     : std::string();
                }});
  c->push_back({"traps", [rec](auto&, auto& r) {
                  std::string out;
                  for (const Trap& t : rec->traps) {
                    if (t.strategy == r.label) out += (out.empty() ? "" : "; ") + t.kind;
                  }
                  return out;
                }});
}

// The columns of `result`'s CSV: fixed ones, then read_<name>_* per read, then per profile.
std::vector<std::pair<std::string, Getter>> Columns(const ComparisonResult& result) {
  auto columns = FixedColumns();
  auto* c = &columns;
  for (size_t k = 0; k < result.reads.size(); ++k) AddRead(c, result.reads[k].name, k);
  AddProfiles(c);
  c->push_back({"replay_entities_per_s", [](auto& c, auto&) { return Num(c.replay_rate); }});
  AddRecommendation(c, result);
  AddTarget(c, result.reads);
  return columns;
}

}  // namespace

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> CsvColumns(const ComparisonResult& result) {
  std::vector<std::string> names;
  for (const auto& [name, get] : Columns(result)) names.push_back(name);
  return names;
}

std::string RenderCsv(const ComparisonResult& result) {
  const auto columns = Columns(result);
  std::string out;
  for (const auto& [name, get] : columns) {
    if (!out.empty()) out += ',';
    out += CsvField(name);
  }
  out += "\r\n";
  for (const StrategyResult& r : result.strategies) {
    std::string line;
    for (const auto& [name, get] : columns) {
      if (!line.empty()) line += ',';
      line += CsvField(get(result, r));
    }
    out += line + "\r\n";
  }
  return out;
}

std::string RenderSweepCsv(const SweepResult& sweep) {
  const std::string read = sweep.runs.empty() ? "" : ColumnName(SweepReadName(sweep.runs.front()));
  std::string out = fmt::format(
      "events,strategy,write_us_per_entity,write_cpu_us_per_entity,write_entities_per_s,"
      "raw_write_entities_per_s,write_ratio_to_raw,read,read_us_per_page,read_cpu_us_per_page,"
      "bytes_on_disk,settled,wall_seconds\r\n");
  for (const ComparisonResult& run : sweep.runs) {
    for (const StrategyResult& r : run.strategies) {
      const ReadStats* rs = SweepRead(r);
      out +=
          fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n", run.workload.events,
                      CsvField(r.label), Num(r.micros_per_entity()), Num(r.cpu_micros_per_entity()),
                      Num(r.write_rate()), Num(r.raw_write_rate()), Num(r.write_ratio()),
                      CsvField(read), Num(rs != nullptr ? rs->micros_per_page() : 0),
                      Num(rs != nullptr ? rs->cpu_micros_per_page() : 0), r.bytes_on_disk,
                      run.settled ? "yes" : "no", Num(run.wall_seconds));
    }
  }
  return out;
}

}  // namespace partkv::compare
