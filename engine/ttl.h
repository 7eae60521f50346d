// Time to live (docs/changes.md "Time to live"): when an entity expires, from its Timestamp, its
// "ttl" property and its table's default, with Cosmos DB's rules. Pure functions over the
// vocabulary; the local engine asks them on every read path, so that an expired entity is
// invisible at once, and in its compaction filter, which reclaims the space.

#ifndef PARTKV_ENGINE_TTL_H_
#define PARTKV_ENGINE_TTL_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "partkv/changes.h"
#include "partkv/entity.h"

namespace partkv::engine {

inline constexpr int64_t kNeverExpires = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kTicksPerSecond = 10'000'000;

// The tick at which an entity whose Timestamp is `timestamp_ticks` and whose "ttl" property holds
// `entity_ttl` (nullopt: none, or not an Int32/Int64) expires in a table whose time to live is
// `table_ttl`; kNeverExpires when it never does. kTtlOff ignores the property.
int64_t ExpiresAt(int64_t table_ttl, int64_t timestamp_ticks, std::optional<int64_t> entity_ttl);

// The Int32 or Int64 "ttl" property of `entity`; nullopt for none or another type.
std::optional<int64_t> EntityTtl(const Entity& entity);

// A table's time to live and the time of one read: the question every read path asks of a row.
struct Expiry {
  int64_t table_ttl = kTtlOff;
  int64_t now_ticks = 0;

  bool on() const { return table_ttl != kTtlOff; }
  // Whether a decoded entity (with its Timestamp) has expired.
  bool Expired(const Entity& entity) const {
    return on() && now_ticks >= ExpiresAt(table_ttl, entity.timestamp().ticks, EntityTtl(entity));
  }
  // Whether a stored value has expired, read in place (false when it is malformed: decoding it
  // reports that).
  bool ExpiredValue(std::string_view value) const;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_TTL_H_
