#include "tools/bench/suggest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "tools/bench/format.h"

namespace partkv::compare {
namespace {

// Half of DynamoDB's 1,000 WCU/s per partition key (an entity of up to 1 KB), the strictest of
// the three services' per-partition write limits: headroom for the rate's noise.
constexpr double kShardRate = 500;
constexpr uint32_t kMaxShards = 1000;

bool DateLike(const AttributeSummary& a) {
  const std::string& v = a.top_value;
  return a.type == Type::kString && v.size() >= 10 && v[4] == '-' && v[7] == '-' &&
         std::isdigit(static_cast<unsigned char>(v[0])) &&
         std::isdigit(static_cast<unsigned char>(v[5]));
}

}  // namespace

std::vector<StrategySpec> Suggest(const SuggestInput& in) {
  std::vector<StrategySpec> out;
  std::set<std::string> taken;
  for (const StrategySpec& s : *in.given) taken.insert(s.partition_key.ToString());
  auto attribute = [&](const std::string& name) -> const AttributeSummary* {
    for (const AttributeSummary& a : *in.attributes) {
      if (a.name == name) return &a;
    }
    return nullptr;
  };
  auto add = [&](const std::string& text, std::string why) {
    if (out.size() >= kMaxSuggestions) return;
    auto key = KeyStrategy::Parse(text);
    if (!key.ok() || !taken.insert(key->ToString()).second) return;
    StrategySpec spec{text, fmt::format("Suggested{}", out.size() + 1), *key, std::move(why), true};
    out.push_back(std::move(spec));
  };
  const double n = static_cast<double>(in.entities);

  // 1. Per read, its attributes concatenated: the read goes to one partition.
  for (const ReadSpec& r : *in.reads) {
    bool usable = true;
    for (const std::string& a : r.attributes) {
      const AttributeSummary* s = attribute(a);
      usable = usable && s != nullptr && s->type != Type::kBinary;
    }
    if (!usable) continue;
    add(fmt::format("concat({})", fmt::join(r.attributes, ",")),
        fmt::format("suggested: read {} goes to one partition", r.name));
  }

  // 2. Per grouping attribute the reads use: a bucketed key sized from the write rate.
  std::vector<const AttributeSummary*> groups;
  for (const ReadSpec& r : *in.reads) {
    for (const std::string& a : r.attributes) {
      const AttributeSummary* s = attribute(a);
      if (s == nullptr || s->type == Type::kBinary || s->distinct < 2 ||
          static_cast<double>(s->distinct) > n / 10) {
        continue;
      }
      if (std::find(groups.begin(), groups.end(), s) == groups.end()) groups.push_back(s);
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](auto* a, auto* b) { return DateLike(*a) && !DateLike(*b); });
  const std::string source =
      in.row_key != nullptr && !in.row_key->fields().empty() ? in.row_key->fields()[0] : "";
  for (size_t g = 0; g < groups.size() && g < 2; ++g) {
    const AttributeSummary& a = *groups[g];
    const double peak = in.replay_rate * a.top_share * std::max(1.0, in.burst_factor);
    const uint32_t shards = static_cast<uint32_t>(
        std::clamp(std::ceil(peak / kShardRate), 1.0, static_cast<double>(kMaxShards)));
    if (shards <= 1 || source.empty() || source == "RowKey") {
      add(fmt::format("concat({})", a.name),
          fmt::format("suggested: one partition per {}; its busiest value peaks near {}, which "
                      "one partition keeps up with",
                      a.name, Rate(peak)));
    } else {
      add(fmt::format("hash-suffix({},{},{})", a.name, source, shards),
          fmt::format("suggested: each {} over {} shards by a hash of {}: its busiest value "
                      "peaks near {}, {} per shard",
                      a.name, shards, source, Rate(peak), Rate(peak / shards)));
    }
  }

  // 3. The best-spread attribute a read uses that is not unique (an identifier's type: a String,
  // an integer, a Guid).
  std::set<std::string> read_attributes;
  for (const ReadSpec& r : *in.reads)
    read_attributes.insert(r.attributes.begin(), r.attributes.end());
  const AttributeSummary* spread = nullptr;
  for (const AttributeSummary& a : *in.attributes) {
    if (read_attributes.count(a.name) == 0 || a.name == "RowKey" || a.present < in.entities ||
        !(a.type == Type::kString || a.type == Type::kInt32 || a.type == Type::kInt64 ||
          a.type == Type::kGuid)) {
      continue;
    }
    if (a.top_share >= 0.01 || static_cast<double>(a.distinct) >= 0.9 * n || a.distinct < 16) {
      continue;
    }
    if (spread == nullptr || a.distinct > spread->distinct) spread = &a;
  }
  if (spread != nullptr) {
    add(fmt::format("concat({})", spread->name),
        fmt::format("suggested: {} has {} values and none holds more than {} of the entities",
                    spread->name, Grouped(spread->distinct), Share(spread->top_share)));
  }
  return out;
}

}  // namespace partkv::compare
