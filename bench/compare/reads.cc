#include "bench/compare/reads.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "bench/compare/format.h"
#include "fmt/format.h"

namespace partkv::compare {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr uint32_t kPageSize = 1000;
constexpr uint32_t kWarmupPointReads = 20;

struct QueryOutcome {
  uint64_t entities = 0;
  uint64_t examined = 0;
  uint64_t pages = 0;
};

// Runs `plan` to its end, page by page.
Result<QueryOutcome> RunPlan(const Table& table, const ReadPlan& plan) {
  Query q;
  q.filter = plan.filter;
  q.page_size = kPageSize;
  if (plan.kind == ReadPlan::Kind::kOnePartition) q.partition_key = plan.key;
  QueryOutcome out;
  for (;;) {
    Result<Page> page = plan.kind == ReadPlan::Kind::kShards ? table.QueryShards(plan.key, q)
                                                             : table.QueryEntities(q);
    if (!page.ok()) return page.status();
    out.entities += page->entities.size();
    out.examined += page->examined;
    ++out.pages;
    if (!page->has_more()) break;
    q.continuation = std::move(page->continuation);
  }
  return out;
}

// The attributes a day read or a device-day read knows.
Entity DayAttributes(uint32_t day) {
  Entity e;
  e.Set("date", Value::String(Workload::DateText(day)));
  return e;
}

Entity DeviceDayAttributes(uint32_t device, uint32_t day) {
  Entity e = DayAttributes(day);
  e.Set("deviceId", Value::String(Workload::DeviceId(device)));
  return e;
}

uint64_t CountDeviceOnDay(const Workload& w, uint32_t device, uint32_t day) {
  uint64_t n = 0;
  for (size_t i = w.DayBegin(day); i < w.DayBegin(day + 1); ++i)
    n += w.events()[i].device == device;
  return n;
}

void Summarize(std::vector<double>* latencies, ReadStats* stats) {
  stats->samples = latencies->size();
  for (double l : *latencies) stats->seconds += l;
  std::vector<double> micros;
  for (double l : *latencies) micros.push_back(l * 1e6);
  stats->p50_micros = Percentile(&micros, 0.50);
  stats->p99_micros = Percentile(&micros, 0.99);
}

// Reads every planned (attributes, expected count) pair; the first `warmup` are also read once
// untimed before the timed pass.
struct PlannedRead {
  ReadPlan plan;
  uint64_t expected = 0;
};

Status TimedQueries(const Table& table, const std::vector<PlannedRead>& reads, size_t warmup,
                    ReadStats* stats, const std::function<void(double)>& tick) {
  for (size_t k = 0; k < std::min(warmup, reads.size()); ++k) {
    auto r = RunPlan(table, reads[k].plan);
    if (!r.ok()) return r.status();
  }
  std::vector<double> latencies;
  for (size_t k = 0; k < reads.size(); ++k) {
    const auto start = SteadyClock::now();
    const double cpu_start = ThreadCpuSeconds();
    auto r = RunPlan(table, reads[k].plan);
    stats->cpu_seconds += ThreadCpuSeconds() - cpu_start;
    latencies.push_back(SecondsSince(start));
    if (!r.ok()) return r.status().WithContext(reads[k].plan.Describe());
    stats->entities += r->entities;
    stats->examined += r->examined;
    stats->pages += r->pages;
    stats->mismatches += r->entities != reads[k].expected;
    tick(static_cast<double>(k + 1) / reads.size());
  }
  if (!reads.empty()) {
    stats->fanout = reads.front().plan.fanout;
    stats->how = reads.front().plan.Describe();
  }
  Summarize(&latencies, stats);
  return Status::OK();
}

}  // namespace

double Percentile(std::vector<double>* values, double q) {
  if (values->empty()) return 0;
  std::sort(values->begin(), values->end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values->size())));
  rank = std::clamp<size_t>(rank, 1, values->size());
  return (*values)[rank - 1];
}

Status MeasureReads(const Table& table, const StrategySpec& spec, const Workload& workload,
                    const ReadSamples& samples, StrategyResult* out,
                    const std::function<void(double)>& tick) {
  // The same draws for every strategy: one generator per kind of read.
  const uint64_t n = workload.size();
  const uint32_t days = workload.options().days;
  // Weights of the three parts in the progress fraction.
  constexpr double kPointShare = 0.2, kDayShare = 0.5;

  // Point reads by natural attributes.
  {
    std::mt19937_64 random(samples.seed);
    std::vector<size_t> picks;
    for (uint32_t k = 0; k < samples.point_reads; ++k) picks.push_back(random() % n);
    for (size_t k = 0; k < std::min<size_t>(kWarmupPointReads, picks.size()); ++k) {
      auto e = table.GetByAttributes(workload.Attributes(picks[k]));
      if (!e.ok()) return e.status().WithContext("point read (warm-up)");
    }
    std::vector<double> latencies;
    for (size_t k = 0; k < picks.size(); ++k) {
      const Entity attributes = workload.Attributes(picks[k]);
      const auto start = SteadyClock::now();
      auto e = table.GetByAttributes(attributes);
      latencies.push_back(SecondsSince(start));
      if (e.ok()) {
        ++out->point.entities;
        out->point.mismatches += e->row_key() != Workload::OrderId(picks[k]);
      } else if (e.status().IsNotFound()) {
        ++out->point.mismatches;
      } else {
        return e.status().WithContext("point read");
      }
      if (k % 16 == 0) tick(kPointShare * (k + 1) / picks.size());
    }
    out->point.examined = out->point.entities;
    Summarize(&latencies, &out->point);
    const bool random_suffix = spec.partition_key.kind() == KeyStrategy::Kind::kRandomSuffix;
    out->point.fanout = random_suffix ? spec.partition_key.shard_count() : 1;
    out->point.how = random_suffix ? fmt::format("GetByAttributes: up to {} Gets, one per shard",
                                                 spec.partition_key.shard_count())
                                   : "GetByAttributes: one Get";
  }

  // Whole days: `day_reads` distinct ones (then again, in the same order, for the extra reads).
  {
    std::mt19937_64 random(samples.seed + 1);
    std::vector<uint32_t> order(days);
    for (uint32_t d = 0; d < days; ++d) order[d] = d;
    for (uint32_t d = days; d > 1; --d) std::swap(order[d - 1], order[random() % d]);
    std::vector<PlannedRead> reads;
    const uint32_t distinct = std::max<uint32_t>(1, std::min(days, samples.day_reads));
    for (uint32_t k = 0; k < distinct + samples.extra_day_reads; ++k) {
      const uint32_t day = order[k % distinct];
      PARTKV_ASSIGN_OR_RETURN(ReadPlan plan, PlanRead(spec.partition_key, DayAttributes(day)));
      reads.push_back({std::move(plan), workload.EventsOnDay(day)});
    }
    PARTKV_RETURN_IF_ERROR(TimedQueries(table, reads, 1, &out->day,
                                        [&](double f) { tick(kPointShare + kDayShare * f); }));
  }

  // One device's day, for devices drawn as events are (busy devices more often).
  {
    std::mt19937_64 random(samples.seed + 2);
    std::vector<PlannedRead> reads;
    for (uint32_t k = 0; k < samples.device_day_reads; ++k) {
      const size_t i = random() % n;
      const uint32_t device = workload.events()[i].device, day = workload.DayOf(i);
      PARTKV_ASSIGN_OR_RETURN(ReadPlan plan,
                              PlanRead(spec.partition_key, DeviceDayAttributes(device, day)));
      reads.push_back({std::move(plan), CountDeviceOnDay(workload, device, day)});
    }
    PARTKV_RETURN_IF_ERROR(TimedQueries(table, reads, 1, &out->device_day, [&](double f) {
      tick(kPointShare + kDayShare + (1 - kPointShare - kDayShare) * f);
    }));
  }
  return Status::OK();
}

}  // namespace partkv::compare
