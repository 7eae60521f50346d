// EncodeStoredEntity: the engine's key and value codecs, as a table writes with them.

#include "partkv/stored_entity.h"

#include "engine/key_codec.h"
#include "engine/value_codec.h"

namespace partkv {

StoredEntity EncodeStoredEntity(const Entity& entity, DateTime timestamp, uint64_t etag_version) {
  StoredEntity out;
  out.key = engine::EntityKey(entity.partition_key(), entity.row_key());
  engine::EncodeValue(engine::ValueHeader{timestamp.ticks, etag_version}, entity, &out.value);
  return out;
}

}  // namespace partkv
