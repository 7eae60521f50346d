#include "tools/bench/strategies.h"

#include <algorithm>
#include <deque>
#include <random>
#include <unordered_map>

#include "fmt/format.h"
#include "fmt/ranges.h"

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

// Whether `attributes` gives `field` (PartitionKey and RowKey are the entity's keys).
bool Has(const Entity& attributes, const std::string& field) {
  if (field == "PartitionKey") return !attributes.partition_key().empty();
  if (field == "RowKey") return !attributes.row_key().empty();
  return attributes.Get(field) != nullptr;
}

std::string Quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';  // OData doubles a quote inside a literal
  }
  return out + "'";
}

void AddComparison(const std::string& name, const std::string& literal, ReadPlan* plan) {
  if (!plan->filter.empty()) plan->filter += " and ";
  plan->filter += fmt::format("{} eq {}", name, literal);
  plan->filter_fields.push_back(name);
}

// The filter `name eq <literal> and ...` on the attributes (keys included) not in `skip`.
void SetFilter(const Entity& attributes, const std::set<std::string>& skip, ReadPlan* plan) {
  if (!attributes.partition_key().empty() && skip.count("PartitionKey") == 0) {
    AddComparison("PartitionKey", Quoted(attributes.partition_key()), plan);
  }
  if (!attributes.row_key().empty() && skip.count("RowKey") == 0) {
    AddComparison("RowKey", Quoted(attributes.row_key()), plan);
  }
  for (const auto& [name, value] : attributes) {
    if (skip.count(name) != 0) continue;
    AddComparison(name, FilterLiteral(value), plan);
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

Result<StrategySpec> UserStrategy(std::string_view text, size_t index) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  PARTKV_ASSIGN_OR_RETURN(KeyStrategy key, KeyStrategy::Parse(text));
  StrategySpec spec{std::string(text), fmt::format("Strategy{}", index + 1), key, ""};
  const auto& f = key.fields();
  switch (key.kind()) {
    case KeyStrategy::Kind::kConcat:
      spec.explanation =
          f.size() == 1 ? fmt::format("one partition per {}", f[0])
                        : fmt::format("one partition per combination of {}", fmt::join(f, ", "));
      break;
    case KeyStrategy::Kind::kRandomSuffix:
      spec.explanation =
          fmt::format("each {} written over {} random shards", f[0], key.shard_count());
      break;
    case KeyStrategy::Kind::kHashSuffix:
      spec.explanation = fmt::format("each {} over {} shards chosen by a hash of {}", f[0],
                                     key.shard_count(), f[1]);
      break;
    case KeyStrategy::Kind::kMd5Bits:
      spec.explanation = fmt::format("buckets from the first bits of MD5({})", f[0]);
      break;
    default:
      spec.explanation = fmt::format("one partition per time value of {}", f[0]);
      break;
  }
  return spec;
}

std::string FilterLiteral(const Value& value) {
  switch (value.type()) {
    case Type::kString:
      return Quoted(value.as_string());
    case Type::kInt32:
      return std::to_string(value.as_int32());
    case Type::kInt64:
      return std::to_string(value.as_int64()) + "L";
    case Type::kDouble: {
      std::string text = fmt::format("{:.17g}", value.as_double());
      if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // a Double, not Int32
      return text;
    }
    case Type::kBoolean:
      return value.as_bool() ? "true" : "false";
    case Type::kDateTime:
      return "datetime'" + value.as_datetime().ToString() + "'";
    case Type::kGuid:
      return "guid'" + value.as_guid().ToString() + "'";
    case Type::kBinary: {
      std::string hex = "X'";
      for (unsigned char c : value.as_binary()) hex += fmt::format("{:02x}", c);
      return hex + "'";
    }
  }
  return "''";
}

std::string ReadPlan::Describe() const {
  std::string out;
  switch (kind) {
    case Kind::kPoint:
      out = fanout > 1 ? fmt::format("point read: up to {} Gets, one per shard", fanout)
                       : "point read: one Get";
      break;
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

Result<ReadPlan> PlanRead(const KeyStrategy& strategy, const KeyStrategy& row_key,
                          const Entity& attributes) {
  ReadPlan plan;
  const auto& fields = strategy.fields();
  auto has_all = [&](const std::vector<std::string>& names) {
    return std::all_of(names.begin(), names.end(),
                       [&](const std::string& f) { return Has(attributes, f); });
  };
  if (has_all(row_key.fields()) && has_all(fields)) {
    // The attributes name one entity: a Get, or one per shard of a random suffix (drawn at write
    // time, so any shard may hold it).
    plan.kind = ReadPlan::Kind::kPoint;
    plan.fanout = strategy.kind() == KeyStrategy::Kind::kRandomSuffix ? strategy.shard_count() : 1;
    return plan;
  }
  switch (strategy.kind()) {
    case KeyStrategy::Kind::kConcat:
      if (std::all_of(fields.begin(), fields.end(),
                      [&](const std::string& f) { return Has(attributes, f); })) {
        PARTKV_ASSIGN_OR_RETURN(plan.key, strategy.Compute(attributes));
        plan.kind = ReadPlan::Kind::kOnePartition;
        // A one-field key spells out its field's value: only the other attributes need a filter.
        // Several fields joined by a separator may be ambiguous ("a-b" + "c", "a" + "b-c").
        if (fields.size() == 1) {
          SetFilter(attributes, {fields[0]}, &plan);
        } else {
          SetFilter(attributes, {}, &plan);
        }
        return plan;
      }
      break;
    case KeyStrategy::Kind::kRandomSuffix:
    case KeyStrategy::Kind::kHashSuffix:
      if (Has(attributes, fields[0])) {
        // The base is the base field's key text. Not ComputeBase(): for hash-suffix it also asks
        // for the source field, which a read of a whole day lacks.
        PARTKV_ASSIGN_OR_RETURN(plan.key, KeyStrategy::Concat({fields[0]}).Compute(attributes));
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

Result<std::vector<BatchPlan>> PlanBatches(const DataSet& data, const StrategySpec& spec,
                                           uint64_t seed,
                                           const std::vector<int64_t>& replay_micros) {
  const KeyStrategy& strategy = spec.partition_key;
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
  for (size_t i = 0; i < data.size(); ++i) {
    const int64_t now = replay_micros[i];
    while (!by_deadline.empty()) {
      auto it = open.find(by_deadline.front());
      if (it != open.end() && it->second.deadline > now) break;
      if (it != open.end()) send(it->first, it->second.deadline);
      by_deadline.pop_front();
    }
    auto key = strategy.Compute(data.Attributes(i), random());
    if (!key.ok()) return EntityError(data, i, key.status(), "strategy " + spec.label);
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

Result<Entity> PlannedEntity(const DataSet& data, uint32_t i, const std::string& pk,
                             const KeyStrategy& row_key) {
  PARTKV_ASSIGN_OR_RETURN(Entity e, data.MakeEntity(i));
  auto rk = row_key.Compute(data.Attributes(i));
  if (!rk.ok()) return EntityError(data, i, rk.status(), "--row-key " + row_key.ToString());
  e.set_partition_key(pk);
  e.set_row_key(std::move(*rk));
  return e;
}

Status EntityError(const DataSet& data, size_t i, const Status& status, const std::string& what) {
  const uint64_t line = data.Line(i);
  std::string where = line > 0 ? fmt::format("line {}", line) : fmt::format("entity {}", i + 1);
  return Status::InvalidArgument(fmt::format("{}: {}: {}", where, what, status.message()));
}

}  // namespace partkv::compare
