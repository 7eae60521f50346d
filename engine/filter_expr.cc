// Filter: evaluation, canonical text and key-condition extraction. Parsing is in
// filter_parser.cc.

#include "engine/filter_expr.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "engine/compare_keys.h"
#include "engine/value_codec.h"

namespace partkv::engine {
namespace {

std::string_view OpText(CompareOp op) {
  static constexpr std::string_view kText[] = {"eq", "ne", "gt", "ge", "lt", "le"};
  return kText[static_cast<int>(op)];
}

template <typename T>
int ThreeWay(const T& x, const T& y) {
  return (y < x) - (x < y);
}

// Strings and Binary compare as unsigned bytes (char_traits<char> compares as unsigned char),
// which for UTF-8 is code-point order.
int ThreeWayBytes(std::string_view x, std::string_view y) {
  int c = CompareKeys(x, y);  // inline: the values a filter compares are mostly short
  return (c > 0) - (c < 0);
}

}  // namespace

Filter::Filter() = default;

namespace {

// An Entity as the rows Filter::Eval reads.
class EntityRow {
 public:
  explicit EntityRow(const Entity& e) : e_(e) {}
  std::string_view partition_key() const { return e_.partition_key(); }
  std::string_view row_key() const { return e_.row_key(); }
  int64_t timestamp_ticks() const { return e_.timestamp().ticks; }
  std::optional<ValueView> Find(std::string_view name) const {
    const Value* v = e_.Get(name);
    if (v == nullptr) return std::nullopt;
    return ViewOf(*v);
  }

 private:
  const Entity& e_;
};

}  // namespace

bool Filter::Matches(const Entity& entity) const {
  if (nodes_.empty()) return true;
  EntityRow row(entity);
  return Eval(root_, row);
}

Filter::RowMatch Filter::Matches(EncodedRow& row) const {
  if (nodes_.empty()) return RowMatch::kYes;
  if (row.undecided()) return RowMatch::kUndecided;
  bool match = Eval(root_, row);
  if (row.undecided()) return RowMatch::kUndecided;
  return match ? RowMatch::kYes : RowMatch::kNo;
}

template <typename Row>
bool Filter::Eval(int32_t index, Row& row) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
    case NodeKind::kAnd:
      return Eval(node.a, row) && Eval(node.b, row);
    case NodeKind::kOr:
      return Eval(node.a, row) || Eval(node.b, row);
    case NodeKind::kNot:
      return !Eval(node.a, row);
    case NodeKind::kCompare:
      return EvalComparison(comparisons_[node.a], row);
  }
  return false;
}

namespace {

// Applies `op` to the sign of a three-way comparison.
bool ApplyOrder(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq:
      return c == 0;
    case CompareOp::kNe:
      return c != 0;
    case CompareOp::kGt:
      return c > 0;
    case CompareOp::kGe:
      return c >= 0;
    case CompareOp::kLt:
      return c < 0;
    case CompareOp::kLe:
      return c <= 0;
  }
  return false;
}

// IEEE semantics: every comparison with a NaN is false except `ne`.
bool ApplyDouble(CompareOp op, double x, double y) {
  switch (op) {
    case CompareOp::kEq:
      return x == y;
    case CompareOp::kNe:
      return x != y;
    case CompareOp::kGt:
      return x > y;
    case CompareOp::kGe:
      return x >= y;
    case CompareOp::kLt:
      return x < y;
    case CompareOp::kLe:
      return x <= y;
  }
  return false;
}

// REQUIRES: x.type == y.type().
bool CompareValues(CompareOp op, const ValueView& x, const Value& y) {
  switch (x.type) {
    case Type::kString:
      return ApplyOrder(op, ThreeWayBytes(x.bytes, y.as_string()));
    case Type::kBinary:
      return ApplyOrder(op, ThreeWayBytes(x.bytes, y.as_binary()));
    case Type::kBoolean:
      return ApplyOrder(op, ThreeWay(x.integer != 0, y.as_bool()));
    case Type::kDateTime:
      return ApplyOrder(op, ThreeWay(x.integer, y.as_datetime().ticks));
    case Type::kDouble:
      return ApplyDouble(op, x.real, y.as_double());
    case Type::kGuid: {
      int c = std::memcmp(x.bytes.data(), y.as_guid().bytes.data(), 16);
      return ApplyOrder(op, (c > 0) - (c < 0));
    }
    case Type::kInt32:
      return ApplyOrder(op, ThreeWay(static_cast<int32_t>(x.integer), y.as_int32()));
    case Type::kInt64:
      return ApplyOrder(op, ThreeWay(x.integer, y.as_int64()));
  }
  return false;
}

}  // namespace

template <typename Row>
bool Filter::EvalComparison(const Comparison& c, Row& row) {
  const CompareOp op = c.op;
  switch (c.field) {
    case Field::kPartitionKey:
      return c.literal.type() == Type::kString &&
             ApplyOrder(op, ThreeWayBytes(row.partition_key(), c.literal.as_string()));
    case Field::kRowKey:
      return c.literal.type() == Type::kString &&
             ApplyOrder(op, ThreeWayBytes(row.row_key(), c.literal.as_string()));
    case Field::kTimestamp:
      return c.literal.type() == Type::kDateTime &&
             ApplyOrder(op, ThreeWay(row.timestamp_ticks(), c.literal.as_datetime().ticks));
    case Field::kProperty: {
      std::optional<ValueView> value = row.Find(c.property);
      return value && value->type == c.literal.type() && CompareValues(op, *value, c.literal);
    }
  }
  return false;
}

std::string Filter::Canonical() const {
  std::string out;
  if (!nodes_.empty()) AppendCanonical(root_, &out);
  return out;
}

void Filter::AppendCanonical(int32_t index, std::string* out) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
    case NodeKind::kAnd:
    case NodeKind::kOr:
      *out += '(';
      AppendCanonical(node.a, out);
      *out += node.kind == NodeKind::kAnd ? " and " : " or ";
      AppendCanonical(node.b, out);
      *out += ')';
      return;
    case NodeKind::kNot:
      *out += "(not ";
      AppendCanonical(node.a, out);
      *out += ')';
      return;
    case NodeKind::kCompare: {
      const Comparison& c = comparisons_[node.a];
      *out += '(';
      *out += c.property;
      *out += ' ';
      *out += OpText(c.op);
      *out += ' ';
      // Value::DebugString is the OData literal form; Doubles use %.17g, which round-trips.
      *out += c.literal.DebugString();
      *out += ')';
      return;
    }
  }
}

std::vector<std::string> Filter::PropertyNames() const {
  std::vector<std::string> names;
  names.reserve(comparisons_.size());
  for (const Comparison& c : comparisons_) names.push_back(c.property);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

void Filter::ComputeKeyConditions() {
  key_conditions_ = KeyConditions();
  if (nodes_.empty()) return;
  AddKeyConditions(root_);
  KeyConditions& k = key_conditions_;
  if (k.pk.Empty() || k.rk.Empty()) {
    k.unsatisfiable = true;
  }
}

// Walks the top-level conjunction only: a bound found under `or` or `not` does not hold for
// every match.
void Filter::AddKeyConditions(int32_t index) {
  const Node& node = nodes_[index];
  if (node.kind == NodeKind::kAnd) {
    AddKeyConditions(node.a);
    AddKeyConditions(node.b);
    return;
  }
  if (node.kind != NodeKind::kCompare) return;
  const Comparison& c = comparisons_[node.a];
  if (c.field != Field::kPartitionKey && c.field != Field::kRowKey) return;
  if (c.literal.type() != Type::kString) {
    // A key is always a String, so the comparison is false for every entity.
    key_conditions_.unsatisfiable = true;
    return;
  }
  const bool pk = c.field == Field::kPartitionKey;
  KeyRange& range = pk ? key_conditions_.pk : key_conditions_.rk;
  const std::string& value = c.literal.as_string();
  switch (c.op) {
    case CompareOp::kEq:
      range.TightenLower(Bound::Inclusive(value));
      range.TightenUpper(Bound::Inclusive(value));
      break;
    case CompareOp::kGt:
      range.TightenLower(Bound::Exclusive(value));
      break;
    case CompareOp::kGe:
      range.TightenLower(Bound::Inclusive(value));
      break;
    case CompareOp::kLt:
      range.TightenUpper(Bound::Exclusive(value));
      break;
    case CompareOp::kLe:
      range.TightenUpper(Bound::Inclusive(value));
      break;
    case CompareOp::kNe:
      break;  // a hole, not a range
  }
}

}  // namespace partkv::engine
