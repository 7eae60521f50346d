#include "tools/bench/findings.h"

#include <algorithm>
#include <functional>

#include "fmt/format.h"
#include "tools/bench/format.h"

namespace partkv::compare {
namespace {

// The strategy with the smallest key(r) (largest with `max`), ties to the earlier one.
const StrategyResult* Best(const ComparisonResult& result,
                           const std::function<double(const StrategyResult&)>& key,
                           bool max = false) {
  const StrategyResult* best = nullptr;
  for (const StrategyResult& r : result.strategies) {
    if (best == nullptr || (max ? key(r) > key(*best) : key(r) < key(*best))) best = &r;
  }
  return best;
}

double Cloud(const StrategyResult& r, const std::string& profile) {
  for (const CloudEstimate& c : r.analysis.cloud) {
    if (c.profile == profile) return c.seconds_with_skew;
  }
  return 0;
}

double Throttled(const StrategyResult& r, const std::string& profile) {
  for (const ThrottleStats& t : r.throttle) {
    if (t.profile == profile) return t.rate();
  }
  return 0;
}

// Differences below this factor are within what a shared machine moves a rate between runs.
constexpr double kClose = 1.15;

// "; within 15 % of <runner-up>, not a clear lead" when the best is not clearly ahead.
std::string Lead(const ComparisonResult& result, const StrategyResult* best,
                 const std::function<double(const StrategyResult&)>& key, bool higher_is_better) {
  const StrategyResult* second = nullptr;
  for (const StrategyResult& r : result.strategies) {
    if (&r == best) continue;
    if (second == nullptr || (higher_is_better ? key(r) > key(*second) : key(r) < key(*second))) {
      second = &r;
    }
  }
  if (second == nullptr || key(*best) <= 0 || key(*second) <= 0) return "";
  const double lead = higher_is_better ? key(*best) / key(*second) : key(*second) / key(*best);
  return lead < kClose ? fmt::format("; within {:.0f} % of {}, not a clear lead", (lead - 1) * 100,
                                     second->label)
                       : "";
}

// The winner's label, with how many others score exactly the same: "concat(deviceId,date) and
// 3 more".
std::string Winner(const ComparisonResult& result, const StrategyResult* best,
                   const std::function<double(const StrategyResult&)>& key) {
  int ties = 0;
  for (const StrategyResult& r : result.strategies) ties += &r != best && key(r) == key(*best);
  return ties == 0 ? best->label : fmt::format("{} and {} more", best->label, ties);
}

}  // namespace

// A measure on which every strategy scores the same has no winner and yields no finding.
std::vector<Finding> Findings(const ComparisonResult& result) {
  std::vector<Finding> out;
  if (result.strategies.empty()) return out;
  auto worst = [&](auto key) { return Best(result, key, true); };

  const auto write_rate = [](const StrategyResult& r) { return r.write_rate(); };
  if (auto* w = Best(result, write_rate, true)) {
    auto* slow = Best(result, write_rate);
    out.push_back(
        {"fastest write", w->label,
         fmt::format("{} ({} raw RocksDB on the same bytes), {} entities per batch on "
                     "average{}; slowest: {} at {} ({:.1f} per batch)",
                     Rate(w->write_rate()), Ratio(w->write_ratio()),
                     Fixed(static_cast<double>(w->entities_written) / w->batches, 1),
                     Lead(result, w, write_rate, true), slow->label, Rate(slow->write_rate()),
                     static_cast<double>(slow->entities_written) / slow->batches)});
  }
  if (auto* e = Best(result, [](auto& r) { return r.physical_max_over_mean(); })) {
    auto* s = worst([](auto& r) { return r.physical_max_over_mean(); });
    if (s->physical_max_over_mean() > e->physical_max_over_mean()) {
      out.push_back(
          {"most even spread", e->label,
           fmt::format("hottest physical partition {} the mean, hottest PartitionKey "
                       "{} of the data; most skewed: {} at {} and {}",
                       Ratio(e->physical_max_over_mean()), Share(e->analysis.logical.hottest_share),
                       s->label, Ratio(s->physical_max_over_mean()),
                       Share(s->analysis.logical.hottest_share))});
    }
  }
  if (auto* h = Best(result, [](auto& r) { return r.peak_hour_hot_share; })) {
    auto* s = worst([](auto& r) { return r.peak_hour_hot_share; });
    if (s->peak_hour_hot_share > h->peak_hour_hot_share) {
      out.push_back(
          {"least concurrent heat", h->label,
           fmt::format("in the busiest hour its hottest PartitionKey took {} of the "
                       "writes; {} sent {} of them to one key",
                       Share(h->peak_hour_hot_share), s->label, Share(s->peak_hour_hot_share))});
    }
  }
  for (size_t k = 0; k < result.reads.size(); ++k) {
    const auto read = [k](const StrategyResult& r) {
      return k < r.reads.size() ? r.reads[k].p50_micros : 0;
    };
    auto* p = Best(result, read);
    auto* s = worst(read);
    if (p == nullptr || k >= p->reads.size() || k >= s->reads.size()) continue;
    const ReadStats& best = p->reads[k];
    const ReadStats& slow = s->reads[k];
    out.push_back(
        {fmt::format("cheapest {} read", best.name), p->label,
         fmt::format("p50 {} ({}, {} examined per row){}; slowest: {} at p50 {} ({})",
                     Latency(best.p50_micros), best.how, Fixed(best.examined_per_entity(), 1),
                     Lead(result, p, read, false), s->label, Latency(slow.p50_micros), slow.how)});
  }
  for (const char* profile : {"azure-table", "dynamodb", "cosmos"}) {
    const auto cloud = [profile](const StrategyResult& r) { return Cloud(r, profile); };
    auto* c = Best(result, cloud);
    auto* s = worst(cloud);
    if (c == nullptr || cloud(*c) <= 0 || cloud(*s) <= cloud(*c)) continue;  // no difference
    out.push_back({fmt::format("fastest predicted {} write", profile), Winner(result, c, cloud),
                   fmt::format("{} for the whole data{}; slowest: {} at {} ({} longer)",
                               Duration(cloud(*c)), Lead(result, c, cloud, false), s->label,
                               Duration(cloud(*s)), Ratio(cloud(*s) / cloud(*c)))});
  }
  if (!result.strategies.front().throttle.empty()) {
    for (const ThrottleStats& t : result.strategies.front().throttle) {
      auto* c = Best(result, [&](auto& r) { return Throttled(r, t.profile); });
      auto* s = worst([&](auto& r) { return Throttled(r, t.profile); });
      if (Throttled(*s, t.profile) == Throttled(*c, t.profile)) {
        out.push_back({fmt::format("throttling ({})", t.profile), "no difference",
                       fmt::format("every strategy had {} of the busiest day refused at {} offered",
                                   Share(Throttled(*c, t.profile)), Rate(result.replay_rate))});
        continue;
      }
      const auto refused = [&](const StrategyResult& r) { return Throttled(r, t.profile); };
      out.push_back({fmt::format("fewest throttled ({})", t.profile), Winner(result, c, refused),
                     fmt::format("{} of the busiest day refused at {} offered; most: {} with {}",
                                 Share(Throttled(*c, t.profile)), Rate(result.replay_rate),
                                 s->label, Share(Throttled(*s, t.profile)))});
    }
  }
  return out;
}

const ReadStats* SweepRead(const StrategyResult& r) {
  for (const ReadStats& rs : r.reads) {
    if (!rs.point) return &rs;
  }
  return r.reads.empty() ? nullptr : &r.reads.front();
}

std::string SweepReadName(const ComparisonResult& run) {
  if (run.strategies.empty()) return "";
  const ReadStats* read = SweepRead(run.strategies.front());
  return read != nullptr ? read->name : "";
}

std::vector<SweepGrowth> Growth(const SweepResult& sweep) {
  std::vector<SweepGrowth> out;
  if (sweep.runs.empty()) return out;
  for (size_t s = 0; s < sweep.runs.front().strategies.size(); ++s) {
    SweepGrowth g;
    g.label = sweep.runs.front().strategies[s].label;
    std::vector<double> write_cpu, read_cpu, raw;
    for (const ComparisonResult& run : sweep.runs) {
      const StrategyResult& r = run.strategies[s];
      g.write_micros_per_entity.push_back(r.micros_per_entity());
      const ReadStats* read = SweepRead(r);
      g.day_micros_per_page.push_back(read != nullptr ? read->micros_per_page() : 0);
      write_cpu.push_back(r.cpu_micros_per_entity());
      read_cpu.push_back(read != nullptr ? read->cpu_micros_per_page() : 0);
      raw.push_back(r.raw_write_rate() > 0 ? 1e6 / r.raw_write_rate() : 0);
    }
    auto growth = [](const std::vector<double>& v) {
      return v.front() > 0 ? v.back() / v.front() : 0;
    };
    g.write_growth = growth(g.write_micros_per_entity);
    g.read_growth = growth(g.day_micros_per_page);
    g.write_cpu_growth = growth(write_cpu);
    g.read_cpu_growth = growth(read_cpu);
    g.raw_write_growth = growth(raw);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace partkv::compare
