#include "engine/ttl.h"

#include "engine/value_codec.h"

namespace partkv::engine {

int64_t ExpiresAt(int64_t table_ttl, int64_t timestamp_ticks, std::optional<int64_t> entity_ttl) {
  if (table_ttl == kTtlOff) return kNeverExpires;
  int64_t seconds = table_ttl;
  if (entity_ttl && (*entity_ttl == -1 || *entity_ttl > 0)) seconds = *entity_ttl;
  if (seconds <= 0) return kNeverExpires;  // -1: never
  if (seconds > (kNeverExpires - timestamp_ticks) / kTicksPerSecond) return kNeverExpires;
  return timestamp_ticks + seconds * kTicksPerSecond;
}

std::optional<int64_t> EntityTtl(const Entity& entity) {
  const Value* v = entity.Get(kTtlProperty);
  if (v == nullptr) return std::nullopt;
  if (v->type() == Type::kInt32) return v->as_int32();
  if (v->type() == Type::kInt64) return v->as_int64();
  return std::nullopt;
}

bool Expiry::ExpiredValue(std::string_view value) const {
  if (!on()) return false;
  ValueHeader header;
  std::optional<ValueView> ttl;
  if (!FindProperty(value, kTtlProperty, &header, &ttl).ok()) return false;
  std::optional<int64_t> entity_ttl;
  if (ttl && (ttl->type == Type::kInt32 || ttl->type == Type::kInt64)) entity_ttl = ttl->integer;
  return now_ticks >= ExpiresAt(table_ttl, header.timestamp_ticks, entity_ttl);
}

}  // namespace partkv::engine
