// Migrations of older stores (docs/format.md "Format versions"), run by StoreState::Open when it
// finds format 1 or 3.
//
// Format 1 kept each physical partition of each table in a column family of its own
// ("t<id>.p<i>") and issued ETags from a counter. Format 2 keeps every table in the store's
// shared data column families under a 6-byte partition prefix, and an entity's ETag version is
// its Timestamp. The migration copies every entity of every table in the catalog to its format-2
// key, with the ETag version set to the Timestamp, then in one synced write sets the format to 2
// and the clock's reserved mark above every Timestamp copied. The format-1 column families are
// read, never changed, so a migration interrupted anywhere before that write is simply run again
// at the next open (the copies it made are written again, byte for byte); the open that finds
// format 2 drops the format-1 column families.
//
// An If-Match ETag of format 1's counter form (W/"1f3") matches no entity after the migration.

#ifndef PARTKV_ENGINE_LOCAL_MIGRATION_H_
#define PARTKV_ENGINE_LOCAL_MIGRATION_H_

#include <string>
#include <utility>
#include <vector>

#include "partkv/status.h"
#include "rocksdb/db.h"

namespace partkv::engine {

class StoreState;

// Format 4 moves the change feeds (format 3) out of the data column families into one of their
// own ("feed"), under the same keys. MigrateFormat3 copies each feed table's entries there, then
// in one synced write deletes them from the data column family and sets the format to 4; an
// upgrade interrupted before that write is run again at the next open.
// REQUIRES: `store` is open on a format-3 database with its feed column family made.
Status MigrateFormat3(StoreState* store);

// REQUIRES: `store` is open on a format-1 database (its meta column family loaded, the data
// column families not necessarily made) and `format1` holds every "t<id>.p<i>" column family.
Status MigrateFormat1(
    StoreState* store,
    const std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>>& format1);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_MIGRATION_H_
