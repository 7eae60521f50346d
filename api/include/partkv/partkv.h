// partkv — an embedded, partitioned table store with Azure Table semantics on RocksDB.
// Including this header brings in the whole public API.

#ifndef PARTKV_PARTKV_H_
#define PARTKV_PARTKV_H_

#include "partkv/analyzer.h"
#include "partkv/base64.h"
#include "partkv/batch.h"
#include "partkv/bulk_writer.h"
#include "partkv/capabilities.h"
#include "partkv/census.h"
#include "partkv/clock.h"
#include "partkv/copy.h"
#include "partkv/entity.h"
#include "partkv/filter.h"
#include "partkv/if_match.h"
#include "partkv/json.h"
#include "partkv/keys.h"
#include "partkv/options.h"
#include "partkv/profile.h"
#include "partkv/query.h"
#include "partkv/result.h"
#include "partkv/stats.h"
#include "partkv/status.h"
#include "partkv/store.h"
#include "partkv/stored_entity.h"
#include "partkv/sync.h"
#include "partkv/table.h"
#include "partkv/table_info.h"
#include "partkv/value.h"

#endif  // PARTKV_PARTKV_H_
