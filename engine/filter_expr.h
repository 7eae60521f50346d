// partkv::engine::Filter — a parsed OData `$filter` expression with Azure Table's semantics
// (docs/filter.md; Microsoft's "Querying tables and entities").
//
// Filter::Parse turns the text into a compact tree (a vector of nodes addressed by index, plus a
// vector of comparisons). From it the query engine takes three things:
//   - Matches(entity): the full expression, evaluated per scanned entity without allocating;
//   - key_conditions(): the PartitionKey/RowKey bounds implied by the top-level `and`
//     conjunction, to be turned into iterator bounds (a superset of the matching keys: Matches
//     must still be called on every entity inside them);
//   - Canonical(): a stable text of the tree, to bind continuation tokens to their query.
//
// Every parse error is InvalidArgument with a message of the form
//   filter: at position 17: expected a comparison operator (eq, ne, gt, ge, lt, le), found 'eqq'
// where the position is the 0-based byte offset into the text.
//
// A Filter is a plain copyable value that owns everything it refers to. Thread-safety: const
// methods may be called concurrently on one Filter.

#ifndef PARTKV_ENGINE_FILTER_EXPR_H_
#define PARTKV_ENGINE_FILTER_EXPR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/key_range.h"
#include "partkv/entity.h"
#include "partkv/result.h"
#include "partkv/value.h"

namespace partkv::engine {

class EncodedRow;

// The comparison operators of the grammar, in the order eq ne gt ge lt le.
enum class CompareOp : uint8_t { kEq, kNe, kGt, kGe, kLt, kLe };

// Bounds on PartitionKey and RowKey implied by the filter's top-level conjunction. An absent
// bound is unbounded on that side.
struct KeyConditions {
  // `PartitionKey eq 'x'` sets both pk bounds to {'x', inclusive}.
  KeyRange pk, rk;
  // The conjunction provably matches nothing (e.g. PK eq 'a' and PK eq 'b', lower > upper, or a
  // key compared with a non-String literal). The bounds are then meaningless.
  bool unsatisfiable = false;
};

class Filter {
 public:
  // Azure Table accepts at most 15 discrete comparisons per $filter.
  static constexpr int kMaxComparisons = 15;
  // Nesting of parentheses and `not`; bounds the parser's recursion (no Azure counterpart).
  static constexpr int kMaxNesting = 64;

  // The empty filter: matches everything.
  Filter();

  // Parses Azure Table $filter text. Empty or all-whitespace text gives the empty filter.
  // InvalidArgument on a syntax error, a malformed or `null` literal, a comparison that does not
  // have exactly one property side, more than kMaxComparisons comparisons, or nesting deeper than
  // kMaxNesting.
  static Result<Filter> Parse(std::string_view text);

  bool empty() const { return nodes_.empty(); }

  // Whether the entity satisfies the filter. A comparison with a missing property, or whose
  // literal's type differs from the property's, is false. Does not allocate.
  bool Matches(const Entity& entity) const;

  // The same, for a stored row read in place (value_codec.h): kUndecided when the row could not
  // be read in place (it must be decoded, and Matches asked).
  enum class RowMatch : uint8_t { kNo, kYes, kUndecided };
  RowMatch Matches(EncodedRow& row) const;

  const KeyConditions& key_conditions() const { return key_conditions_; }

  // A fully parenthesised text of the tree with literals in canonical form, e.g.
  //   ((Age gt 30) and (not (PartitionKey eq 'a')))
  // Texts that parse to the same tree give the same Canonical(), and it parses back to that tree
  // (unless its added parentheses pass kMaxNesting).
  // The empty filter gives "".
  std::string Canonical() const;

  // The distinct names of the properties the filter reads, sorted by bytes; includes the system
  // names PartitionKey, RowKey and Timestamp when the filter reads them.
  std::vector<std::string> PropertyNames() const;

 private:
  class Parser;

  enum class NodeKind : uint8_t { kAnd, kOr, kNot, kCompare };
  // Where a comparison reads its value: a system property or the named custom property.
  enum class Field : uint8_t { kPartitionKey, kRowKey, kTimestamp, kProperty };

  struct Node {
    NodeKind kind;
    // kAnd/kOr: both children (node indices); kNot: child in `a`; kCompare: `a` indexes
    // comparisons_.
    int32_t a = -1;
    int32_t b = -1;
  };
  // Always `property op literal`: a literal on the left is flipped at parse time.
  struct Comparison {
    Field field;
    CompareOp op;
    std::string property;
    Value literal;
  };

  // Row: EncodedRow, or filter.cc's view of an Entity.
  template <typename Row>
  bool Eval(int32_t node, Row& row) const;
  template <typename Row>
  static bool EvalComparison(const Comparison& c, Row& row);
  void AppendCanonical(int32_t node, std::string* out) const;
  // Fills key_conditions_ from the tree.
  void ComputeKeyConditions();
  void AddKeyConditions(int32_t node);

  std::vector<Node> nodes_;  // empty for the empty filter
  std::vector<Comparison> comparisons_;
  int32_t root_ = -1;
  KeyConditions key_conditions_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_FILTER_EXPR_H_
