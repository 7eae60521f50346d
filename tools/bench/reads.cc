#include "tools/bench/reads.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <unordered_map>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "tools/bench/format.h"

namespace partkv::compare {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr uint32_t kPageSize = 1000;
// Samples of each read run once untimed first (the tables share one block cache).
constexpr size_t kWarmups = 3;
// A read's sampling gives up after this many draws per sample wanted (entities lacking the
// attributes, or repeating a tuple already drawn).
constexpr uint32_t kDrawsPerSample = 50;

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

// Whether `got` holds every attribute of `asked` with the same value.
bool Holds(const Entity& got, const Entity& asked) {
  if (!asked.partition_key().empty() && got.partition_key() != asked.partition_key()) {
    return false;
  }
  if (!asked.row_key().empty() && got.row_key() != asked.row_key()) return false;
  for (const auto& [name, value] : asked) {
    const Value* v = got.Get(name);
    if (v == nullptr || !(*v == value)) return false;
  }
  return true;
}

void Summarize(std::vector<double>* latencies, ReadStats* stats) {
  stats->samples = latencies->size();
  for (double l : *latencies) stats->seconds += l;
  std::vector<double> micros;
  for (double l : *latencies) micros.push_back(l * 1e6);
  stats->p50_micros = Percentile(&micros, 0.50);
  stats->p99_micros = Percentile(&micros, 0.99);
}

// A value's part of a tuple's identity: its filter literal (type and value), with -0.0 as 0.0
// (`eq` finds both). Empty for a value no filter can name (NaN, infinities).
std::string TuplePart(const Value& v) {
  if (v.type() == Type::kDouble) {
    const double d = v.as_double();
    if (!std::isfinite(d)) return "";
    if (d == 0) return FilterLiteral(Value::Double(0));
  }
  return FilterLiteral(v);
}

// The identity of entity i's values of `columns`; empty when it lacks one (or has a NaN).
std::string TupleKey(const DataSet& data, size_t i, const std::vector<size_t>& columns) {
  std::string key;
  for (size_t c : columns) {
    const Value* v = data.Get(i, c);
    if (v == nullptr) return "";
    std::string part = TuplePart(*v);
    if (part.empty()) return "";
    key += part;
    key += '\x1f';
  }
  return key;
}

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 40) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

bool ValidAttribute(std::string_view name) {
  if (name.empty() || name.size() > 255) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

}  // namespace

std::vector<ReadSpec> DefaultReads() {
  return {
      {"point", {"date", "deviceId", "orderId", "time"}, 5, 500},
      {"day", {"date"}, 1, 5},
      {"device-day", {"deviceId", "date"}, 2, 12},
  };
}

Result<ReadSpec> ParseReadSpec(std::string_view text) {
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(
        fmt::format("invalid read '{}': {} (expected NAME=ATTR[,ATTR...][@WEIGHT], e.g. "
                    "by-customer=customerId@3)",
                    text, what));
  };
  ReadSpec spec;
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return bad("no '=' after the read's name");
  spec.name = std::string(text.substr(0, eq));
  if (!ValidName(spec.name)) {
    return bad("the name must be 1..40 letters, digits, '-' or '_'");
  }
  std::string_view rest = text.substr(eq + 1);
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string weight(rest.substr(at + 1));
    char* end = nullptr;
    const double w = std::strtod(weight.c_str(), &end);
    if (weight.empty() || end != weight.c_str() + weight.size() || !(w > 0) || !std::isfinite(w)) {
      return bad(fmt::format("weight '{}' is not a number > 0", weight));
    }
    spec.weight = w;
    rest = rest.substr(0, at);
  }
  std::set<std::string> seen;
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view attr = rest.substr(0, comma);
    while (!attr.empty() && attr.front() == ' ') attr.remove_prefix(1);
    while (!attr.empty() && attr.back() == ' ') attr.remove_suffix(1);
    if (attr.empty()) return bad("an attribute name is empty");
    if (!ValidAttribute(attr)) {
      return bad(fmt::format("'{}' is not a property name ([A-Za-z_][A-Za-z0-9_]*)", attr));
    }
    if (!seen.insert(std::string(attr)).second) {
      return bad(fmt::format("attribute '{}' appears twice", attr));
    }
    spec.attributes.emplace_back(attr);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  // A filter holds at most 15 comparisons (Azure's limit).
  if (spec.attributes.size() > 15) return bad("more than 15 attributes");
  return spec;
}

Result<std::vector<std::vector<SampledRead>>> SampleReads(const DataSet& data,
                                                          const std::vector<ReadSpec>& reads,
                                                          uint64_t seed) {
  std::vector<std::vector<SampledRead>> out(reads.size());
  const size_t n = data.size();
  for (size_t r = 0; r < reads.size(); ++r) {
    const ReadSpec& spec = reads[r];
    std::vector<size_t> columns;
    for (const std::string& a : spec.attributes) {
      std::optional<size_t> c = data.Column(a);
      if (!c) {
        return Status::InvalidArgument(
            fmt::format("read '{}': attribute '{}' is not kept by the data", spec.name, a));
      }
      columns.push_back(*c);
    }
    // Distinct tuples, drawn as entities are.
    std::mt19937_64 random(seed + r);
    std::unordered_map<std::string, size_t> index;  // tuple -> sample
    std::vector<SampledRead>& samples = out[r];
    const uint64_t draws = static_cast<uint64_t>(spec.samples) * kDrawsPerSample;
    for (uint64_t d = 0; d < draws && samples.size() < spec.samples && n > 0; ++d) {
      const size_t i = random() % n;
      std::string key = TupleKey(data, i, columns);
      if (key.empty() || index.count(key) != 0) continue;
      index.emplace(std::move(key), samples.size());
      Entity attributes = data.Attributes(i);
      Entity asked;
      for (const std::string& a : spec.attributes) {
        if (a == "PartitionKey") {
          asked.set_partition_key(attributes.partition_key());
        } else if (a == "RowKey") {
          asked.set_row_key(attributes.row_key());
        } else {
          asked.Set(a, *attributes.Get(a));
        }
      }
      samples.push_back({std::move(asked), 0});
    }
    if (samples.empty()) {
      return Status::InvalidArgument(
          fmt::format("read '{}': no entity has all of its attributes ({})", spec.name,
                      fmt::format("{}", fmt::join(spec.attributes, ", "))));
    }
    // The truth: how many entities hold each sampled tuple.
    for (size_t i = 0; i < n; ++i) {
      const std::string key = TupleKey(data, i, columns);
      if (key.empty()) continue;
      auto it = index.find(key);
      if (it != index.end()) ++samples[it->second].expected;
    }
  }
  return out;
}

double Percentile(std::vector<double>* values, double q) {
  if (values->empty()) return 0;
  std::sort(values->begin(), values->end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values->size())));
  rank = std::clamp<size_t>(rank, 1, values->size());
  return (*values)[rank - 1];
}

Status MeasureReads(const Table& table, const StrategySpec& spec, const KeyStrategy& row_key,
                    const std::vector<ReadSpec>& reads,
                    const std::vector<std::vector<SampledRead>>& samples,
                    std::vector<ReadStats>* out, const std::function<void(double)>& tick) {
  out->assign(reads.size(), ReadStats{});
  uint64_t total = 0, done = 0;
  for (const auto& s : samples) total += s.size();
  for (size_t r = 0; r < reads.size(); ++r) {
    ReadStats& stats = (*out)[r];
    stats.name = reads[r].name;
    std::vector<ReadPlan> plans;
    for (const SampledRead& s : samples[r]) {
      PARTKV_ASSIGN_OR_RETURN(ReadPlan plan, PlanRead(spec.partition_key, row_key, s.attributes));
      plans.push_back(std::move(plan));
    }
    if (plans.empty()) continue;
    stats.fanout = plans.front().fanout;
    stats.how = plans.front().Describe();
    stats.point = plans.front().kind == ReadPlan::Kind::kPoint;
    stats.table_scan = plans.front().kind == ReadPlan::Kind::kTableScan;
    if (stats.table_scan) stats.fanout = 0;

    // One read of a sample; its outcome counted when `timed`.
    std::vector<double> latencies;
    auto read = [&](size_t k, bool timed) -> Status {
      const SampledRead& s = samples[r][k];
      const auto start = SteadyClock::now();
      const double cpu_start = ThreadCpuSeconds();
      if (plans[k].kind == ReadPlan::Kind::kPoint) {
        auto e = table.GetByAttributes(s.attributes);
        const double seconds = SecondsSince(start);
        if (!e.ok() && !e.status().IsNotFound()) {
          return e.status().WithContext(reads[r].name + ": " + plans[k].Describe());
        }
        if (!timed) return Status::OK();
        latencies.push_back(seconds);
        stats.cpu_seconds += ThreadCpuSeconds() - cpu_start;
        const uint64_t got = e.ok() ? 1 : 0;
        stats.entities += got;
        stats.examined += got;
        stats.mismatches +=
            got != std::min<uint64_t>(s.expected, 1) || (e.ok() && !Holds(*e, s.attributes));
        return Status::OK();
      }
      auto o = RunPlan(table, plans[k]);
      const double seconds = SecondsSince(start);
      if (!o.ok()) return o.status().WithContext(reads[r].name + ": " + plans[k].Describe());
      if (!timed) return Status::OK();
      latencies.push_back(seconds);
      stats.cpu_seconds += ThreadCpuSeconds() - cpu_start;
      stats.entities += o->entities;
      stats.examined += o->examined;
      stats.pages += o->pages;
      stats.mismatches += o->entities != s.expected;
      return Status::OK();
    };
    for (size_t k = 0; k < std::min<size_t>(kWarmups, plans.size()); ++k) {
      PARTKV_RETURN_IF_ERROR(read(k, false));  // warm-up, untimed
    }
    for (size_t k = 0; k < plans.size(); ++k) {
      PARTKV_RETURN_IF_ERROR(read(k, true));
      ++done;
      if (k % 16 == 0 || k + 1 == plans.size()) tick(static_cast<double>(done) / total);
    }
    Summarize(&latencies, &stats);
  }
  return Status::OK();
}

}  // namespace partkv::compare
