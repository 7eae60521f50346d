// partkv::Query and partkv::Page — one page of a table query (docs/design.md "Queries").
//
// A Query names any of: a PartitionKey condition (one key, a range, or none), a RowKey range
// (bounds and/or a prefix), an OData $filter (Azure's grammar), a $select list, a page size
// (1..1000), the order, and a continuation token from a previous page of the same query.
// Table::QueryEntities returns one Page: entities in (PartitionKey, RowKey) order (reversed when
// descending) and, when more may follow, an opaque continuation token.
//
// Key conditions, explicit or inside the filter (PartitionKey/RowKey comparisons joined by
// `and`), become iterator bounds: a query of one PartitionKey reads one physical partition from
// its first matching row; a wider query merges the physical partitions' ordered streams. Each page
// reads one consistent snapshot and stops after examining `scan_budget` entities, after
// `scan_time_budget`, or once its entities reach `page_bytes`, returning what it found (possibly
// nothing) with a token, so no call runs unbounded and no page is held whole in memory. A query
// over several physical partitions reads them in parallel (StoreOptions::scan_threads); its pages
// are the same whatever the number of threads.
//
// Tokens are bound to the store, the table and the query (conditions, filter, select, order), and
// carry a keyed checksum: a malformed, forged, cross-store or cross-query token is
// InvalidArgument. Tokens stay valid across store restarts and across writes between pages: an
// entity that existed before the first page and still exists is returned exactly once.

#ifndef PARTKV_QUERY_H_
#define PARTKV_QUERY_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "partkv/entity.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// One end of a key range.
struct Bound {
  std::string key;
  bool inclusive = true;

  static Bound Inclusive(std::string k) { return Bound{std::move(k), true}; }
  static Bound Exclusive(std::string k) { return Bound{std::move(k), false}; }
};

struct Query {
  static constexpr uint32_t kMaxPageSize = 1000;

  // PartitionKey condition: `partition_key` for one partition, or a range; none = all.
  // REQUIRES: not both partition_key and a range.
  std::optional<std::string> partition_key;
  std::optional<Bound> partition_lower;
  std::optional<Bound> partition_upper;

  // RowKey condition, within every matching partition: bounds and/or a prefix (all apply).
  std::optional<Bound> row_lower;
  std::optional<Bound> row_upper;
  std::optional<std::string> row_prefix;

  // OData $filter (Azure Table's grammar); empty = no filter.
  std::string filter;
  // $select: the properties to return (PartitionKey, RowKey, Timestamp and the ETag always come
  // back); empty = all.
  std::vector<std::string> select;

  uint32_t page_size = kMaxPageSize;  // 1..1000 ($top per page)
  bool descending = false;            // Azure returns ascending only; descending is partkv's own
  std::string continuation;           // from Page::continuation of the previous page

  static constexpr size_t kDefaultPageBytes = 4u << 20;

  // Entities examined per page before it returns early; 0 = 10 × page_size; UINT64_MAX = no bound
  // by rows (bound the page by time instead).
  uint64_t scan_budget = 0;
  // Time a page may take before it returns early with what it found and a token; 0 = no bound by
  // time. Counted from the call (opening the page's cursors counts too); checked every few
  // hundred rows each thread reads, so a page overruns it by that much. At least one row is
  // examined. `partkv serve` gives 5 s, as Azure Table's service bounds a page.
  std::chrono::milliseconds scan_time_budget{0};
  // Bytes of entities (encoded keys and values, as stored) per page: the page ends after the
  // entity that reaches it, so it holds at least one. 0 = kDefaultPageBytes (4 MiB). Azure Table
  // allows a page of fewer than page_size entities with a continuation at any point; DynamoDB
  // bounds its pages at 1 MB the same way.
  size_t page_bytes = 0;
};

struct Page {
  std::vector<Entity> entities;
  // Empty when the query is complete; else pass it as Query::continuation for the next page.
  std::string continuation;
  uint64_t examined = 0;  // entities read to produce this page (for statistics and tests)

  bool has_more() const { return !continuation.empty(); }
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_QUERY_H_
