#include "engine/local/shared_table.h"

#include <algorithm>

#include "xxhash.h"

namespace partkv::engine {

uint64_t HashPartitionKey(std::string_view pk) { return XXH3_64bits(pk.data(), pk.size()); }
uint64_t HashBytes(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

SharedTable::SharedTable(TableRecord record, std::vector<PhysicalPartition> partitions,
                         std::optional<KeyStrategy> pk_scheme, std::optional<KeyStrategy> rk_scheme,
                         ProfileSpec profile, std::unique_ptr<Throttler> throttler,
                         std::unique_ptr<ChangeFeed> feed)
    : record_(std::move(record)),
      partitions_(std::move(partitions)),
      pk_scheme_(std::move(pk_scheme)),
      rk_scheme_(std::move(rk_scheme)),
      profile_(std::move(profile)),
      throttler_(std::move(throttler)),
      stats_(std::make_unique<TableStatsCollector>(partitions_.size())),
      feed_(std::move(feed)),
      ttl_seconds_(record_.ttl_seconds),
      acl_(record_.access_policies) {}

TableRecord SharedTable::CurrentRecord() const {
  TableRecord r = record_;
  r.access_policies = access_policies();
  r.feed_set = feed_->configured();
  r.feed = feed_->options();
  r.ttl_seconds = ttl_seconds();
  return r;
}

size_t SharedTable::PartitionIndexOfHash(uint64_t hash) const {
  auto it =
      std::upper_bound(partitions_.begin(), partitions_.end(), hash,
                       [](uint64_t h, const PhysicalPartition& p) { return h < p.lower_bound; });
  return static_cast<size_t>(it - partitions_.begin()) - 1;
}

size_t SharedTable::PartitionIndexOf(std::string_view pk) const {
  return PartitionIndexOfHash(HashPartitionKey(pk));
}

}  // namespace partkv::engine
