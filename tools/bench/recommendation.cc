#include "tools/bench/recommendation.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "partkv/keys.h"
#include "tools/bench/format.h"

namespace partkv::compare {
namespace {

constexpr double kThrottlingWeight = 8, kCloudWeight = 1, kReadWeight = 1.5, kStorageWeight = 0.5;

// A sharded key using fewer than this share of its suffixes has collapsed (with enough entities
// to fill them: a good hash fills nearly all N with 4 N entities).
constexpr double kCollapsedShare = 0.5;
// A refused share below this is a brief burst at the limit, not a trap.
constexpr double kThrottledShare = 0.01;

const char* ProfileName(const std::string& profile) {
  if (profile == "azure-table") return "Azure Table";
  if (profile == "dynamodb") return "DynamoDB";
  if (profile == "cosmos") return "Cosmos DB";
  return profile.c_str();
}

const AttributeSummary* Attribute(const ComparisonResult& r, const std::string& name) {
  for (const AttributeSummary& a : r.workload.attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// The weighted geometric mean of the reads' medians (a typical read's time, for display).
double ReadMicros(const ComparisonResult& result, const StrategyResult& s) {
  double sum = 0, weights = 0;
  for (size_t k = 0; k < s.reads.size() && k < result.reads.size(); ++k) {
    const ReadStats& rs = s.reads[k];
    if (rs.samples == 0 || rs.p50_micros <= 0) continue;
    sum += result.reads[k].weight * std::log(rs.p50_micros);
    weights += result.reads[k].weight;
  }
  return weights > 0 ? std::exp(sum / weights) : 0;
}

// log2 of each read's median over the best strategy's median for that read, weighted: a read
// twice as slow as it could be costs 1 whatever its absolute time, so a cheap read that is asked
// often counts as much as its weight says.
double ReadDoublings(const ComparisonResult& result, const StrategyResult& s) {
  double sum = 0, weights = 0;
  for (size_t k = 0; k < s.reads.size() && k < result.reads.size(); ++k) {
    double best = 0;
    for (const StrategyResult& o : result.strategies) {
      if (k < o.reads.size() && o.reads[k].p50_micros > 0 &&
          (best == 0 || o.reads[k].p50_micros < best)) {
        best = o.reads[k].p50_micros;
      }
    }
    if (best <= 0 || s.reads[k].p50_micros <= 0) continue;
    sum += result.reads[k].weight * std::log2(s.reads[k].p50_micros / best);
    weights += result.reads[k].weight;
  }
  return weights > 0 ? sum / weights : 0;
}

StrategyScore Measure(const ComparisonResult& result, const StrategyResult& s) {
  StrategyScore m;
  m.strategy = s.label;
  for (const ThrottleStats& t : s.throttle) m.refused += t.rate();
  if (!s.throttle.empty()) m.refused /= static_cast<double>(s.throttle.size());
  // The data arrives at the replay rate: writing it takes at least its span at that rate, and
  // longer only where the busiest partition's limit is slower.
  const double span =
      result.replay_rate > 0 ? static_cast<double>(result.workload.events) / result.replay_rate : 0;
  double log_sum = 0;
  int n = 0;
  for (const CloudEstimate& c : s.analysis.cloud) {
    const double seconds = std::max(c.seconds_with_skew, span);
    if (seconds > 0) {
      log_sum += std::log(seconds);
      ++n;
    }
  }
  m.cloud_seconds = n > 0 ? std::exp(log_sum / n) : 0;
  m.read_micros = ReadMicros(result, s);
  m.bytes = s.bytes_on_disk;
  return m;
}

// log2(v / best), 0 when either is not positive.
double Doublings(double v, double best) { return v > 0 && best > 0 ? std::log2(v / best) : 0; }

void FindTraps(const ComparisonResult& result, const StrategyResult& s, std::vector<Trap>* out) {
  auto add = [&](const char* kind, std::string text) {
    out->push_back({s.label, kind, std::move(text)});
  };
  auto parsed = KeyStrategy::Parse(s.strategy);
  if (parsed.ok() && parsed->is_sharded() && s.shard_count > 1 &&
      result.workload.events >= 4ull * s.shard_count &&
      static_cast<double>(s.shards_used) < kCollapsedShare * s.shard_count) {
    std::string why;
    if (parsed->kind() == KeyStrategy::Kind::kHashSuffix &&
        parsed->hash() == SuffixHash::kCodepointProduct) {
      why =
          "the code-point product of these values keeps the prime factors of N, so most "
          "products are 0 mod N";
    } else if (parsed->kind() == KeyStrategy::Kind::kHashSuffix) {
      const AttributeSummary* a = Attribute(result, parsed->fields()[1]);
      why = a != nullptr ? fmt::format("its source {} has only {} distinct values", a->name,
                                       Grouped(a->distinct))
                         : "its source attribute has few distinct values";
    } else {
      why = "few entities per key";
    }
    add("collapsed shards",
        fmt::format("{} uses only {} of its {} suffixes: {}; its writes are not spread as N "
                    "promises",
                    s.label, Grouped(s.shards_used), Grouped(s.shard_count), why));
  }
  if (parsed.ok() && (parsed->kind() == KeyStrategy::Kind::kMd5Bits ||
                      parsed->kind() == KeyStrategy::Kind::kHashSuffix)) {
    const std::string& source =
        parsed->kind() == KeyStrategy::Kind::kMd5Bits ? parsed->fields()[0] : parsed->fields()[1];
    const double buckets = parsed->kind() == KeyStrategy::Kind::kMd5Bits
                               ? std::ldexp(1.0, static_cast<int>(std::min(parsed->bits(), 60u)))
                               : static_cast<double>(parsed->shard_count());
    const AttributeSummary* a = Attribute(result, source);
    if (a != nullptr && a->top_share > 2.0 / buckets && a->top_share >= 0.02) {
      add("hot value",
          fmt::format("{}: the value '{}' of {} holds {} of the entities, more than {}× a "
                      "bucket's even share ({}); hashing cannot split one value, so its bucket "
                      "stays that hot",
                      s.label, a->top_value, source, Share(a->top_share),
                      Fixed(a->top_share * buckets, 1), Share(1.0 / buckets)));
    }
  }
  std::string scans;
  for (const ReadStats& rs : s.reads) {
    if (rs.point && rs.fanout > 1) {
      add("probing point read",
          fmt::format("read {} names one entity, but {} must probe up to {} shards for it (the "
                      "random suffix cannot be computed from the attributes)",
                      rs.name, s.label, rs.fanout));
    }
    if (rs.table_scan) {
      scans += fmt::format("{}{} ({} examined per entity returned)", scans.empty() ? "" : ", ",
                           rs.name, Grouped(static_cast<uint64_t>(rs.examined_per_entity() + 0.5)));
    }
  }
  if (!scans.empty()) {
    add("table scan", fmt::format("{} scans the whole table for read{} {}", s.label,
                                  scans.find(" (") == scans.rfind(" (") ? "" : "s", scans));
  }
  std::string refused;
  for (const ThrottleStats& t : s.throttle) {
    if (t.rate() >= kThrottledShare) {
      refused += fmt::format("{}{} under {}", refused.empty() ? "" : ", ", Share(t.rate()),
                             ProfileName(t.profile));
    }
  }
  if (!refused.empty()) {
    add("throttled", fmt::format("{} has the busiest day refused, offered at {}: {}", s.label,
                                 Rate(result.replay_rate), refused));
  }
}

// The best (least) predicted cloud write time and bytes on disk among the strategies measured;
// 0 where none has one.
struct Bests {
  double cloud = 0;
  uint64_t bytes = 0;
};

Bests FindBests(const std::vector<StrategyScore>& scores) {
  Bests b;
  for (const StrategyScore& m : scores) {
    if (m.cloud_seconds > 0 && (b.cloud == 0 || m.cloud_seconds < b.cloud)) {
      b.cloud = m.cloud_seconds;
    }
    if (m.bytes > 0 && (b.bytes == 0 || m.bytes < b.bytes)) b.bytes = m.bytes;
  }
  return b;
}

// Each score's terms and their sum, the measures weighed against the best of them.
void Score(const ComparisonResult& result, const Bests& bests, std::vector<StrategyScore>* scores) {
  for (StrategyScore& m : *scores) {
    m.throttling_term = kThrottlingWeight * m.refused;
    m.cloud_term = kCloudWeight * Doublings(m.cloud_seconds, bests.cloud);
    m.read_term = kReadWeight * ReadDoublings(result, result.strategies[&m - scores->data()]);
    m.storage_term =
        kStorageWeight * Doublings(static_cast<double>(m.bytes), static_cast<double>(bests.bytes));
    m.score = m.throttling_term + m.cloud_term + m.read_term + m.storage_term;
  }
}

// The strategies' indexes, the lowest score first (ties in the given order).
std::vector<size_t> Ranked(const std::vector<StrategyScore>& scores) {
  std::vector<size_t> order(scores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a].score < scores[b].score; });
  return order;
}

// Why the best: each measure, in plain words.
std::vector<std::string> Reasons(const ComparisonResult& result, const StrategyScore& best,
                                 const StrategyResult& bs, const Bests& bests) {
  std::vector<std::string> reasons;
  std::vector<std::string> profiles;
  for (const ThrottleStats& t : bs.throttle) profiles.push_back(ProfileName(t.profile));
  std::string profile_list;
  for (size_t i = 0; i < profiles.size(); ++i) {
    profile_list += (i == 0 ? "" : i + 1 == profiles.size() ? " and " : ", ") + profiles[i];
  }
  if (!bs.throttle.empty()) {
    reasons.push_back(
        best.refused == 0
            ? fmt::format("It has none of the busiest day refused under {} at {} offered.",
                          profile_list, Rate(result.replay_rate))
            : fmt::format("It has {} of the busiest day refused on average under {} at {} "
                          "offered{}.",
                          Share(best.refused), profile_list, Rate(result.replay_rate),
                          best.throttling_term <= 1e-9 ? "" : ", and no candidate does better"));
  }
  if (best.cloud_seconds > 0) {
    reasons.push_back(
        best.cloud_term < 0.05
            ? fmt::format("Its predicted cloud write time is the shortest: {} (geometric mean "
                          "over the profiles; the busiest partition at its limit).",
                          Duration(best.cloud_seconds))
            : fmt::format("Its predicted cloud write time, {}, is {} the shortest ({}).",
                          Duration(best.cloud_seconds), Ratio(best.cloud_seconds / bests.cloud),
                          Duration(bests.cloud)));
  }
  if (best.read_micros > 0) {
    std::string plans;
    for (const ReadStats& rs : bs.reads) {
      plans += fmt::format("{}{}: {}", plans.empty() ? "" : "; ", rs.name, rs.how);
    }
    reasons.push_back(
        best.read_term < 0.05
            ? fmt::format("Its reads are the cheapest of every kind asked ({}).", plans)
            : fmt::format("Its reads take {:.2f}× the cheapest plan's time, on the weighted "
                          "geometric mean over the reads ({}).",
                          std::exp2(best.read_term / kReadWeight), plans));
  }
  if (best.bytes > 0) {
    reasons.push_back(best.storage_term < 0.05
                          ? fmt::format("It stores the data in {}, the least.", Bytes(best.bytes))
                          : fmt::format("It stores the data in {}, {} the least.",
                                        Bytes(best.bytes),
                                        Ratio(static_cast<double>(best.bytes) / bests.bytes)));
  }
  return reasons;
}

// What the runner-up (`second`, strategy `sr`) loses most on against the best (`best`, `bs`):
// the measure's name and its figures.
std::pair<const char*, std::string> WorstGap(const StrategyScore& best, const StrategyResult& bs,
                                             const StrategyScore& second,
                                             const StrategyResult& sr) {
  const std::pair<const char*, double> gaps[] = {
      {"throttling", second.throttling_term - best.throttling_term},
      {"predicted cloud write time", second.cloud_term - best.cloud_term},
      {"weighted read cost", second.read_term - best.read_term},
      {"storage", second.storage_term - best.storage_term},
  };
  const auto* worst = std::max_element(std::begin(gaps), std::end(gaps),
                                       [](auto& a, auto& b) { return a.second < b.second; });
  std::string detail;
  if (std::string_view(worst->first) == "throttling") {
    detail = fmt::format("{} refused against {}", Share(second.refused), Share(best.refused));
  } else if (std::string_view(worst->first) == "predicted cloud write time") {
    detail =
        fmt::format("{} against {}", Duration(second.cloud_seconds), Duration(best.cloud_seconds));
  } else if (std::string_view(worst->first) == "weighted read cost") {
    std::string reads;
    for (size_t k = 0; k < sr.reads.size() && k < bs.reads.size(); ++k) {
      reads += fmt::format("{}{} {} against {}", reads.empty() ? "" : "; ", sr.reads[k].name,
                           Latency(sr.reads[k].p50_micros), Latency(bs.reads[k].p50_micros));
    }
    detail = reads;
  } else {
    detail = fmt::format("{} against {}", Bytes(second.bytes), Bytes(best.bytes));
  }
  return {worst->first, detail};
}

// The runner-up against the best, in one sentence.
std::string VersusRunnerUp(const StrategyScore& best, const StrategyResult& bs,
                           const StrategyScore& second, const StrategyResult& sr) {
  const auto [worst, detail] = WorstGap(best, bs, second, sr);
  return second.score - best.score < 0.25
             ? fmt::format(
                   "The runner-up, {}, is close (score {} against {}): it loses most on "
                   "{} ({}); on another run or machine they may swap.",
                   second.strategy, Fixed(second.score, 2), Fixed(best.score, 2), worst, detail)
             : fmt::format("The runner-up, {}, scores {} against {}: it loses most on {} ({}).",
                           second.strategy, Fixed(second.score, 2), Fixed(best.score, 2), worst,
                           detail);
}

}  // namespace

Recommendation Recommend(const ComparisonResult& result) {
  Recommendation out;
  if (result.strategies.empty()) return out;
  for (const StrategyResult& s : result.strategies) out.scores.push_back(Measure(result, s));
  const Bests bests = FindBests(out.scores);
  Score(result, bests, &out.scores);
  for (const StrategyResult& s : result.strategies) FindTraps(result, s, &out.traps);

  const std::vector<size_t> order = Ranked(out.scores);
  const StrategyScore& best = out.scores[order[0]];
  const StrategyResult& bs = result.strategies[order[0]];
  out.best = best.strategy;
  out.reasons = Reasons(result, best, bs, bests);
  if (order.size() >= 2) {
    const StrategyScore& second = out.scores[order[1]];
    out.runner_up = second.strategy;
    out.versus_runner_up = VersusRunnerUp(best, bs, second, result.strategies[order[1]]);
  }
  return out;
}

}  // namespace partkv::compare
