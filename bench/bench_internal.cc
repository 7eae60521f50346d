#include "bench/bench_internal.h"

#include <vector>

#include "api/front/front_access.h"
#include "engine/local/table_handle.h"
#include "rocksdb/db.h"

namespace partkv::bench {

uint64_t StoreIntProperty(rocksdb::DB* db, const std::string& name) {
  uint64_t v = 0;
  return db->GetAggregatedIntProperty(name, &v) ? v : 0;
}

uint64_t StoreFilesAtLevel(rocksdb::DB* db, int level) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  uint64_t n = 0;
  for (const auto& f : files) n += f.level == level;
  return n;
}

std::string LsmShape(const Table& table) {
  std::vector<rocksdb::LiveFileMetaData> live;
  FrontAccess::Of(table).store().db()->GetLiveFilesMetaData(&live);
  std::vector<uint64_t> files;
  for (const auto& f : live) {
    const size_t level = static_cast<size_t>(f.level);
    if (files.size() <= level) files.resize(level + 1);
    ++files[level];
  }
  return FormatLsmShape(files);
}

}  // namespace partkv::bench
