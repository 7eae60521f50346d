// The key-strategy analyzer: per-partition counters, skew statistics and the cloud write-time
// model. docs/analyzer.md defines the numbers and gives the sources of the limits.

#include "partkv/analyzer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "engine/local/catalog.h"
#include "engine/local/shared_table.h"
#include "engine/validation.h"

namespace partkv {
namespace {

// Members in the order written here (the field order of the structs).
using Json = nlohmann::ordered_json;

SkewStats Stats(const std::vector<uint64_t>& counts) {
  SkewStats s;
  s.partitions = counts.size();
  for (uint64_t c : counts) {
    s.total += c;
    s.max = std::max(s.max, c);
  }
  if (s.partitions == 0 || s.total == 0) return s;
  s.mean = static_cast<double>(s.total) / static_cast<double>(s.partitions);
  double sum_sq = 0;
  for (uint64_t c : counts) {
    double d = static_cast<double>(c) - s.mean;
    sum_sq += d * d;
  }
  s.cv = std::sqrt(sum_sq / static_cast<double>(s.partitions)) / s.mean;
  s.hottest_share = static_cast<double>(s.max) / static_cast<double>(s.total);
  return s;
}

// `costs[i]` is partition i's write cost in the limit's unit and `names[i]` its name; the
// partitions come in name order (keys sorted, physical partitions by index), so the first of
// equally busy partitions is the one a tie goes to.
CloudEstimate Estimate(std::string profile, double limit, std::string unit,
                       const std::vector<double>& costs, const std::vector<std::string>& names) {
  CloudEstimate e;
  e.profile = std::move(profile);
  e.limit_per_partition = limit;
  e.unit = std::move(unit);
  e.partitions = costs.size();
  size_t busiest = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    e.total_units += costs[i];
    if (costs[i] > costs[busiest]) busiest = i;
  }
  if (e.total_units == 0) return e;
  e.bottleneck_units = costs[busiest];
  e.bottleneck_partition = names[busiest];
  e.seconds_if_spread_evenly = e.total_units / (limit * static_cast<double>(costs.size()));
  e.seconds_with_skew = e.bottleneck_units / limit;
  return e;
}

Json StatsJson(const SkewStats& s) {
  return {{"partitions", s.partitions},
          {"total", s.total},
          {"max", s.max},
          {"mean", s.mean},
          {"cv", s.cv},
          {"hottest_share", s.hottest_share}};
}

}  // namespace

Result<Analyzer> Analyzer::Create(KeyStrategy strategy, AnalyzerOptions options) {
  Status valid = strategy.Validate();
  if (!valid.ok()) return valid;
  uint32_t n = options.physical_partitions;
  if (n < 1 || n > AnalyzerOptions::kMaxPhysicalPartitions) {
    return Status::InvalidArgument("analyzer physical_partitions is " + std::to_string(n) +
                                   "; it must be 1.." +
                                   std::to_string(AnalyzerOptions::kMaxPhysicalPartitions));
  }
  return Analyzer(std::move(strategy), options);
}

Analyzer::Analyzer(KeyStrategy strategy, AnalyzerOptions options)
    : strategy_(std::move(strategy)),
      options_(options),
      lower_bounds_(engine::EvenLowerBounds(options.physical_partitions)),
      random_(options.seed),
      physical_(options.physical_partitions) {}

void Analyzer::Add(const Entity& entity) {
  // One draw per Add, used or not, so that the i-th entity always gets the i-th draw.
  Result<std::string> key = strategy_.Compute(entity, random_());
  if (!key.ok()) {
    if (errors_++ == 0) first_error_ = std::string(key.status().message());
    return;
  }
  // The entity as it would be stored: its own size with the computed PartitionKey in place of
  // its own (keys count two bytes per UTF-16 code unit in Azure's formula).
  uint64_t bytes = engine::EstimateEntitySize(entity) + 2 * engine::Utf16Length(*key) -
                   2 * engine::Utf16Length(entity.partition_key());
  uint64_t wcu = DynamoDbWriteUnits(bytes);
  // The default indexing policy indexes every property path; a scalar property is one term.
  double ru = CosmosWriteRequestUnits(bytes, entity.property_count());

  // The physical partition whose hash range holds the key, exactly as a partkv table routes it.
  uint64_t hash = engine::HashPartitionKey(*key);
  size_t index = std::upper_bound(lower_bounds_.begin(), lower_bounds_.end(), hash) -
                 lower_bounds_.begin() - 1;
  for (Load* load : {&logical_[*std::move(key)], &physical_[index]}) {
    ++load->entities;
    load->bytes += bytes;
    load->wcu += wcu;
    load->ru += ru;
  }
}

AnalysisReport Analyzer::Finish() const {
  AnalysisReport r;
  r.strategy = strategy_.ToString();
  r.physical_partitions = options_.physical_partitions;
  r.read_fanout = strategy_.shard_count();
  r.errors = errors_;
  r.first_error = first_error_;

  // Logical partitions in key order, so that every tie below is broken by key.
  std::vector<std::pair<const std::string*, const Load*>> logical;
  logical.reserve(logical_.size());
  for (const auto& [key, load] : logical_) logical.emplace_back(&key, &load);
  std::sort(logical.begin(), logical.end(),
            [](const auto& a, const auto& b) { return *a.first < *b.first; });

  std::vector<uint64_t> entities;
  std::vector<double> azure_cost, dynamo_cost;
  std::vector<std::string> logical_names;
  entities.reserve(logical.size());
  for (const auto& [key, load] : logical) {
    entities.push_back(load->entities);
    azure_cost.push_back(static_cast<double>(load->entities));
    dynamo_cost.push_back(static_cast<double>(load->wcu));
    logical_names.push_back(*key);
  }
  r.logical = Stats(entities);

  size_t top = std::min(options_.top, logical.size());
  std::stable_sort(logical.begin(), logical.end(), [](const auto& a, const auto& b) {
    return a.second->entities > b.second->entities;
  });
  for (size_t i = 0; i < top; ++i) {
    r.hottest_logical.push_back(
        {*logical[i].first, logical[i].second->entities, logical[i].second->bytes});
  }

  std::vector<double> cosmos_cost;
  std::vector<std::string> physical_names;
  for (size_t i = 0; i < physical_.size(); ++i) {
    r.physical_counts.push_back(physical_[i].entities);
    cosmos_cost.push_back(physical_[i].ru);
    physical_names.push_back("p" + std::to_string(i));
  }
  r.physical = Stats(r.physical_counts);

  r.cloud.push_back(Estimate("azure-table", kAzureTableEntitiesPerSecond, "entities/s", azure_cost,
                             logical_names));
  r.cloud.push_back(
      Estimate("dynamodb", kDynamoDbWcuPerSecond, "WCU/s", dynamo_cost, logical_names));
  CloudEstimate cosmos =
      Estimate("cosmos", kCosmosRuPerSecond, "RU/s", cosmos_cost, physical_names);
  r.cloud.push_back(std::move(cosmos));
  return r;
}

std::string AnalysisReportToJson(const AnalysisReport& report) {
  Json hottest = Json::array();
  for (const PartitionCount& p : report.hottest_logical) {
    hottest.push_back({{"key", p.key}, {"entities", p.entities}, {"bytes", p.bytes}});
  }
  Json cloud = Json::array();
  for (const CloudEstimate& c : report.cloud) {
    cloud.push_back({{"profile", c.profile},
                     {"limit_per_partition", c.limit_per_partition},
                     {"unit", c.unit},
                     {"partitions", c.partitions},
                     {"total_units", c.total_units},
                     {"bottleneck_units", c.bottleneck_units},
                     {"seconds_if_spread_evenly", c.seconds_if_spread_evenly},
                     {"seconds_with_skew", c.seconds_with_skew},
                     {"bottleneck_partition", c.bottleneck_partition}});
  }
  Json j = {{"strategy", report.strategy},
            {"physical_partitions", report.physical_partitions},
            {"logical", StatsJson(report.logical)},
            {"physical", StatsJson(report.physical)},
            {"hottest_logical", std::move(hottest)},
            {"physical_counts", report.physical_counts},
            {"read_fanout", report.read_fanout},
            {"cloud", std::move(cloud)},
            {"errors", report.errors},
            {"first_error", report.first_error}};
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace partkv
