#include "bench/compare/strategies.h"

#include <algorithm>
#include <deque>
#include <random>
#include <unordered_map>

#include "fmt/format.h"

namespace partkv::compare {
namespace {

KeyStrategy Parsed(const char* text) {
  auto s = KeyStrategy::Parse(text);
  // The texts below are constants; a failure is a bug in this file.
  if (!s.ok()) {
    std::fprintf(stderr, "partkv-bench: bad built-in strategy %s: %s\n", text,
                 s.status().ToString().c_str());
    std::abort();
  }
  return *s;
}

bool Has(const Entity& attributes, const std::string& field) {
  return attributes.Get(field) != nullptr;
}

// The filter `name eq 'value' and ...` on the String attributes not in `skip`.
void SetFilter(const Entity& attributes, const std::set<std::string>& skip, ReadPlan* plan) {
  std::string& filter = plan->filter;
  for (const auto& [name, value] : attributes) {
    if (skip.count(name) != 0 || value.type() != Type::kString) continue;
    std::string literal;
    for (char c : value.as_string()) {
      literal += c;
      if (c == '\'') literal += '\'';  // OData doubles a quote inside a literal
    }
    if (!filter.empty()) filter += " and ";
    filter += fmt::format("{} eq '{}'", name, literal);
    plan->filter_fields.push_back(name);
  }
}

}  // namespace

std::vector<StrategySpec> DefaultStrategies() {
  return {
      {"date", "ByDate", Parsed("concat(date)"),
       "one partition per day: the hot-partition anti-pattern"},
      {"concat(deviceId,date)", "ByDeviceDate", Parsed("concat(deviceId,date)"),
       "one partition per device and day"},
      {"random-suffix(date,200)", "RandomSuffix", Parsed("random-suffix(date,200)"),
       "each day written over 200 random shards"},
      {"hash-suffix(date,orderId,200)", "HashSuffixXxh3",
       Parsed("hash-suffix(date,orderId,200,hash=xxh3)"),
       "each day over 200 shards chosen by XXH3 of the orderId"},
      {"hash-suffix(…,codepoint-product)", "HashSuffixCodepoint",
       Parsed("hash-suffix(date,orderId,200,hash=codepoint-product)"),
       "as above with the DynamoDB guide's code-point product"},
      {"md5-bits(deviceId,4)", "Md5Bits", Parsed("md5-bits(deviceId,4)"),
       "16 buckets from the first 4 bits of MD5(deviceId)"},
  };
}

std::string ReadPlan::Describe() const {
  std::string out;
  switch (kind) {
    case Kind::kOnePartition:
      out = "one partition";
      break;
    case Kind::kShards:
      out = fmt::format("{} shards (QueryShards)", fanout);
      break;
    case Kind::kTableScan:
      out = "whole-table scan";
      break;
  }
  for (size_t i = 0; i < filter_fields.size(); ++i) {
    out += (i == 0 ? " + filter on " : ", ") + filter_fields[i];
  }
  return out;
}

KeyStrategy RowKeyScheme() { return Parsed("concat(orderId)"); }

Result<ReadPlan> PlanRead(const KeyStrategy& strategy, const Entity& attributes) {
  ReadPlan plan;
  const auto& fields = strategy.fields();
  switch (strategy.kind()) {
    case KeyStrategy::Kind::kConcat:
      if (std::all_of(fields.begin(), fields.end(),
                      [&](const std::string& f) { return Has(attributes, f); })) {
        PARTKV_ASSIGN_OR_RETURN(plan.key, strategy.Compute(attributes));
        plan.kind = ReadPlan::Kind::kOnePartition;
        // The key spells out its fields' values: only the other attributes need a filter.
        SetFilter(attributes, {fields.begin(), fields.end()}, &plan);
        return plan;
      }
      break;
    case KeyStrategy::Kind::kRandomSuffix:
    case KeyStrategy::Kind::kHashSuffix:
      if (Has(attributes, fields[0]) && attributes.Get(fields[0])->type() == Type::kString) {
        // The base is the base field's text (a String as is). Not ComputeBase(): for
        // hash-suffix it also asks for the source field, which a read of a whole day lacks.
        plan.key = attributes.Get(fields[0])->as_string();
        plan.kind = ReadPlan::Kind::kShards;
        plan.fanout = strategy.shard_count();
        SetFilter(attributes, {fields[0]}, &plan);
        return plan;
      }
      break;
    case KeyStrategy::Kind::kMd5Bits:
      if (Has(attributes, fields[0])) {
        PARTKV_ASSIGN_OR_RETURN(plan.key, strategy.Compute(attributes));
        plan.kind = ReadPlan::Kind::kOnePartition;
        // A bucket holds many devices: filter on every attribute.
        SetFilter(attributes, {}, &plan);
        return plan;
      }
      break;
    default:
      break;
  }
  plan.kind = ReadPlan::Kind::kTableScan;
  plan.fanout = 0;
  SetFilter(attributes, {}, &plan);
  return plan;
}

Result<std::vector<BatchPlan>> PlanBatches(const Workload& workload, const KeyStrategy& strategy,
                                           uint64_t seed,
                                           const std::vector<int64_t>& replay_micros) {
  struct Open {
    BatchPlan plan;
    int64_t deadline = 0;
  };
  std::vector<BatchPlan> out;
  std::unordered_map<uint64_t, Open> open;  // by batch id
  std::unordered_map<std::string, uint64_t> open_by_key;
  std::deque<uint64_t> by_deadline;  // ids in opening order = deadline order
  uint64_t next_id = 0;
  auto send = [&](uint64_t id, int64_t at) {
    auto it = open.find(id);
    it->second.plan.send_micros = at;
    open_by_key.erase(it->second.plan.partition_key);
    out.push_back(std::move(it->second.plan));
    open.erase(it);
  };
  std::mt19937_64 random(seed);
  for (size_t i = 0; i < workload.size(); ++i) {
    const int64_t now = replay_micros[i];
    while (!by_deadline.empty()) {
      auto it = open.find(by_deadline.front());
      if (it != open.end() && it->second.deadline > now) break;
      if (it != open.end()) send(it->first, it->second.deadline);
      by_deadline.pop_front();
    }
    auto key = strategy.Compute(workload.Attributes(i), random());
    if (!key.ok()) return key.status();
    auto [at, inserted] = open_by_key.try_emplace(*key, next_id);
    if (inserted) {
      Open& o = open[next_id];
      o.plan.partition_key = *key;
      o.plan.events.reserve(8);
      o.deadline = now + kLingerMicros;
      by_deadline.push_back(next_id++);
    }
    const uint64_t id = at->second;
    BatchPlan& plan = open[id].plan;
    plan.events.push_back(static_cast<uint32_t>(i));
    if (plan.events.size() == kMaxBatch) send(id, now);
  }
  for (uint64_t id : by_deadline) {
    auto it = open.find(id);
    if (it != open.end()) send(id, it->second.deadline);
  }
  return out;
}

Entity PlannedEntity(const Workload& workload, uint32_t i, const std::string& pk) {
  Entity e = workload.MakeEntity(i);
  e.set_partition_key(pk);
  e.set_row_key(Workload::OrderId(i));
  return e;
}

}  // namespace partkv::compare
