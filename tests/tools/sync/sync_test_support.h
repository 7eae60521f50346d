// What the tests of sync share: a table's entities read whole into a map by keys, and two such
// maps compared by content (Timestamp and ETag aside).

#ifndef PARTKV_TESTS_TOOLS_SYNC_SYNC_TEST_SUPPORT_H_
#define PARTKV_TESTS_TOOLS_SYNC_SYNC_TEST_SUPPORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "partkv/partkv.h"

namespace partkv::testing {

using EntityMap = std::map<std::pair<std::string, std::string>, Entity>;

// Every entity of `table`, page by page; an empty map when the table does not exist.
inline Result<EntityMap> ReadAll(const Store& store, const std::string& table_name) {
  auto table = store.OpenTable(table_name);
  if (table.status().IsNotFound()) return EntityMap{};
  PARTKV_RETURN_IF_ERROR(table.status());
  EntityMap out;
  Query query;
  query.page_size = Query::kMaxPageSize;
  do {
    PARTKV_ASSIGN_OR_RETURN(Page page, table->QueryEntities(query));
    for (Entity& e : page.entities) {
      auto key = std::make_pair(e.partition_key(), e.row_key());
      out.emplace(std::move(key), std::move(e));
    }
    query.continuation = page.continuation;
  } while (!query.continuation.empty());
  return out;
}

// The differences between two maps, one line each ("" when they hold the same content), at most
// `limit` lines.
inline std::string Differences(const EntityMap& a, const std::string& a_name, const EntityMap& b,
                               const std::string& b_name, size_t limit = 20) {
  std::string out;
  size_t n = 0;
  auto add = [&](const std::string& line) {
    if (n++ < limit) out += line + "\n";
  };
  for (const auto& [key, e] : a) {
    auto it = b.find(key);
    if (it == b.end()) {
      add("only in " + a_name + ": " + e.DebugString());
    } else if (!e.SameContent(it->second)) {
      add("different: " + a_name + " " + e.DebugString() + " vs " + b_name + " " +
          it->second.DebugString());
    }
  }
  for (const auto& [key, e] : b) {
    if (!a.contains(key)) add("only in " + b_name + ": " + e.DebugString());
  }
  if (n > limit) out += "... " + std::to_string(n - limit) + " more\n";
  return out;
}

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TOOLS_SYNC_SYNC_TEST_SUPPORT_H_
