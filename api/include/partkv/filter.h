// partkv::Filter — a parsed OData `$filter` expression with Azure Table's semantics
// (docs/filter.md), evaluated on entities in memory: for what is filtered outside a table query
// (`partkv serve` filters table names with it) and for checking entities that came from
// elsewhere. A query takes its filter as text (Query::filter) and runs this same parser and
// evaluator, with the filter's key conditions pushed down into the scan.
//
// A Filter is an immutable value: copies share one parsed tree, so copying is cheap. Thread-safety:
// any number of threads may call const methods on one Filter, and on its copies, at once.

#ifndef PARTKV_FILTER_H_
#define PARTKV_FILTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/entity.h"
#include "partkv/result.h"

namespace partkv::engine {
class Filter;
}  // namespace partkv::engine

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class Filter {
 public:
  // Azure Table accepts at most 15 discrete comparisons in one $filter.
  static constexpr int kMaxComparisons = 15;
  // Nesting of parentheses and `not`: bounds the parser's recursion (no Azure counterpart).
  static constexpr int kMaxNesting = 64;

  // Parses `$filter` text. Empty or all-whitespace text gives the empty filter. InvalidArgument
  // on a syntax error, a malformed or `null` literal, a comparison without exactly one property
  // side, more than kMaxComparisons comparisons or nesting deeper than kMaxNesting; the message
  // names the 0-based byte position: "filter: at position 17: expected a comparison operator
  // ...".
  static Result<Filter> Parse(std::string_view odata_filter);

  // The empty filter: matches every entity.
  Filter();
  ~Filter();
  Filter(const Filter&);
  Filter& operator=(const Filter&);
  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;

  bool empty() const;

  // Whether `entity` satisfies the filter. A comparison with a property the entity lacks, or
  // whose literal's type differs from the property's, is false (Azure's rule). PartitionKey,
  // RowKey and Timestamp are read from the entity's keys and Timestamp. Does not allocate.
  bool Matches(const Entity& entity) const;

  // A fully parenthesised text of the expression with literals in canonical form, e.g.
  // "((Age gt 30) and (not (PartitionKey eq 'a')))"; texts that parse to the same expression give
  // the same text, and it parses back to that expression. "" for the empty filter.
  std::string Canonical() const;

  // The distinct property names the filter reads, sorted by bytes; PartitionKey, RowKey and
  // Timestamp among them when it reads them. For a reader that fetches only some properties.
  std::vector<std::string> PropertyNames() const;

 private:
  // Null for the empty filter. Shared and never changed after Parse, so copies need no lock.
  std::shared_ptr<const engine::Filter> parsed_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_FILTER_H_
