// Tests of engine/filter: the $filter grammar, Azure Table's comparison semantics, error
// messages, key pushdown and the canonical text. Each vector row states one rule of
// docs/filter.md against one sample entity.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/filter_expr.h"
#include "engine/key_codec.h"
#include "engine/value_codec.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

DateTime Time(std::string_view text) { return DateTime::Parse(text).value(); }

// The entity the vector rows are evaluated against.
Entity Sample() {
  Entity e("pk1", "rk5");
  e.set_timestamp(Time("2020-01-01T00:00:00Z"));
  e.Set("Name", Value::String("Alice"));
  e.Set("Quote", Value::String("O'Brien"));
  e.Set("Accent", Value::String("\xC3\xA9"));          // U+00E9
  e.Set("Astral", Value::String("\xF0\x9F\x98\x80"));  // U+1F600
  e.Set("Age", Value::Int32(30));
  e.Set("Min32", Value::Int32(std::numeric_limits<int32_t>::min()));
  e.Set("Count", Value::Int64(30));
  e.Set("Big", Value::Int64(5'000'000'000LL));
  e.Set("Score", Value::Double(1.5));
  e.Set("Ratio", Value::Double(2.0));
  e.Set("NotANumber", Value::Double(std::nan("")));
  e.Set("Active", Value::Boolean(true));
  e.Set("Deleted", Value::Boolean(false));
  e.Set("Born", Value::DateTime(Time("2008-07-10T00:00:00Z")));
  e.Set("Id", Value::Guid(Guid::Parse("a455c695-df98-5678-aaaa-81d3367e5a34").value()));
  e.Set("Blob", Value::Binary(std::string("\x01\x02\xff", 3)));
  return e;
}

// `entity` as stored: its encoded key and value.
struct Stored {
  explicit Stored(const Entity& e)
      : key(EntityKey(e.partition_key(), e.row_key())), prefix_length(PartitionPrefixLength(key)) {
    EncodeValue(ValueHeader{e.timestamp().ticks, 7}, e, &value);
  }
  EncodedRow Row() const { return EncodedRow(key, prefix_length, value); }
  std::string key;
  size_t prefix_length;
  std::string value;
};

// "match", "no match", or "error: <message>". The filter is evaluated twice, on the decoded
// entity and on the row as stored (read in place, as queries do first); a disagreement is the
// answer.
std::string Eval(std::string_view text, const Entity& entity = Sample()) {
  Result<Filter> filter = Filter::Parse(text);
  if (!filter.ok()) return "error: " + std::string(filter.status().message());
  const bool decoded = filter->Matches(entity);
  Stored stored(entity);
  EncodedRow row = stored.Row();
  const Filter::RowMatch in_place = filter->Matches(row);
  if (in_place == Filter::RowMatch::kUndecided) return "undecided in place";
  if ((in_place == Filter::RowMatch::kYes) != decoded) {
    return std::string("decoded: ") + (decoded ? "match" : "no match") + ", in place: the other";
  }
  return decoded ? "match" : "no match";
}

// "OK" or the InvalidArgument message of a rejected filter.
std::string ParseError(std::string_view text) {
  Result<Filter> filter = Filter::Parse(text);
  if (filter.ok()) return "OK";
  EXPECT_THAT(filter, StatusIs(Status::Code::kInvalidArgument));
  return std::string(filter.status().message());
}

std::string RenderRange(const KeyRange& range) {
  const std::optional<Bound>& lower = range.lower;
  const std::optional<Bound>& upper = range.upper;
  std::string out;
  out += lower ? (lower->inclusive ? "['" : "('") + lower->key + "'" : "(*";
  out += ",";
  out += upper ? "'" + upper->key + (upper->inclusive ? "']" : "')") : "*)";
  return out;
}

// The key conditions in interval notation, e.g. "pk:['p','p'] rk:('a',*)", or "unsatisfiable".
std::string Keys(std::string_view text) {
  Result<Filter> filter = Filter::Parse(text);
  if (!filter.ok()) return "error: " + std::string(filter.status().message());
  const KeyConditions& k = filter->key_conditions();
  if (k.unsatisfiable) return "unsatisfiable";
  return "pk:" + RenderRange(k.pk) + " rk:" + RenderRange(k.rk);
}

std::string Canonical(std::string_view text) {
  Result<Filter> filter = Filter::Parse(text);
  if (!filter.ok()) return "error: " + std::string(filter.status().message());
  return filter->Canonical();
}

// "C0 eq 0 and C1 eq 1 and ..." with `n` comparisons.
std::string Conjunction(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += " and ";
    out += "C" + std::to_string(i) + " eq " + std::to_string(i);
  }
  return out;
}

struct MatchCase {
  const char* filter;
  bool matches;
};

// Against Sample(). Every operator, every literal type, and the mismatch rules.
const MatchCase kMatchVectors[] = {
    // String: ordinal, case-sensitive; '' is an escaped quote.
    {"Name eq 'Alice'", true},
    {"Name eq 'alice'", false},
    {"Name ne 'Bob'", true},
    {"Name ne 'Alice'", false},
    {"Name gt 'Al'", true},
    {"Name gt 'Alice'", false},
    {"Name ge 'Alice'", true},
    {"Name lt 'Alicf'", true},
    {"Name lt 'Alice'", false},
    {"Name le 'Alic'", false},
    {"Name le 'Alice'", true},
    {"Quote eq 'O''Brien'", true},
    {"Quote eq 'OBrien'", false},
    {"Accent gt 'z'", true},             // bytes, not a locale collation
    {"Astral gt '\xEF\xBF\xBD'", true},  // U+1F600 > U+FFFD (UTF-16 order would say <)
    {"Name eq 'Alice' and Name ne ''", true},
    // Int32.
    {"Age eq 30", true},
    {"Age ne 30", false},
    {"Age gt 29", true},
    {"Age gt 30", false},
    {"Age ge 30", true},
    {"Age lt 31", true},
    {"Age lt 30", false},
    {"Age le 29", false},
    {"Age gt -5", true},
    {"Min32 eq -2147483648", true},
    // Int64; an Int32 literal never matches an Int64 property, nor the reverse.
    {"Count eq 30L", true},
    {"Count eq 30l", true},
    {"Count eq 30", false},
    {"Count ne 31", false},
    {"Age eq 30L", false},
    {"Age ne 31L", false},
    {"Big eq 5000000000L", true},
    {"Big gt 4999999999L", true},
    {"Big lt 4999999999L", false},
    // Double; an Int32 literal never matches a Double property, nor the reverse.
    {"Score eq 1.5", true},
    {"Score eq 1.5d", true},
    {"Score eq 1.5D", true},
    {"Score eq 15e-1", true},
    {"Score eq 0.15E1", true},
    {"Score eq 1.5E+0", true},
    {"Score gt 1.49", true},
    {"Score lt 1.5", false},
    {"Score ge -0.5", true},
    {"Score le 1e3", true},
    {"Ratio eq 2.0", true},
    {"Ratio eq 2d", true},
    {"Ratio eq 2", false},
    {"Age eq 30.0", false},
    // NaN compares false except ne.
    {"NotANumber eq 1.0", false},
    {"NotANumber lt 1.0", false},
    {"NotANumber ge 1.0", false},
    {"NotANumber ne 1.0", true},
    {"not (NotANumber lt 1.0)", true},
    // Boolean: false < true.
    {"Active eq true", true},
    {"Active eq false", false},
    {"Deleted lt true", true},
    {"Active gt false", true},
    {"Active le false", false},
    {"Active eq 'true'", false},
    {"Active eq 1", false},
    // DateTime: by ticks.
    {"Born eq datetime'2008-07-10T00:00:00Z'", true},
    {"Born eq datetime'2008-07-10T00:00:00.0000001Z'", false},
    {"Born gt datetime'2008-07-09T23:59:59.9999999Z'", true},
    {"Born lt datetime'2008-07-10T00:00:00.0000001Z'", true},
    {"Born eq '2008-07-10T00:00:00Z'", false},
    {"Timestamp ge datetime'2020-01-01T00:00:00Z'", true},
    {"Timestamp lt datetime'2020-01-01T00:00:00Z'", false},
    {"Timestamp eq '2020-01-01T00:00:00Z'", false},
    // Guid: by bytes; hex case is irrelevant.
    {"Id eq guid'a455c695-df98-5678-aaaa-81d3367e5a34'", true},
    {"Id eq guid'A455C695-DF98-5678-AAAA-81D3367E5A34'", true},
    {"Id gt guid'a455c695-df98-5678-aaaa-81d3367e5a33'", true},
    {"Id lt guid'b0000000-0000-0000-0000-000000000000'", true},
    {"Id ge guid'b0000000-0000-0000-0000-000000000000'", false},
    {"Id eq 'a455c695-df98-5678-aaaa-81d3367e5a34'", false},
    // Binary: unsigned bytes, a proper prefix sorts first.
    {"Blob eq X'0102ff'", true},
    {"Blob eq binary'0102FF'", true},
    {"Blob lt X'0103'", true},
    {"Blob gt X'0102'", true},
    {"Blob gt X'01027f'", true},
    {"Blob eq X''", false},
    {"Blob eq '\x01\x02\xff'", false},
    // System properties.
    {"PartitionKey eq 'pk1'", true},
    {"RowKey gt 'rk4'", true},
    {"RowKey lt 'rk5'", false},
    {"PartitionKey eq 1", false},
    {"PartitionKey ne 1", false},
    // A missing property makes the comparison false, whatever the operator.
    {"Missing eq 1", false},
    {"Missing ne 1", false},
    {"not (Missing eq 1)", true},
    {"Missing ne 1 or Age eq 30", true},
    // not: plain negation; binds tighter than and/or and applies to the whole comparison.
    {"not Age eq 30", false},
    {"not Age eq 31", true},
    {"not (Age eq 30)", false},
    {"not not (Age eq 30)", true},
    {"not Age eq 1 and Name eq 'Bob'", false},  // (not a) and b
    // Precedence: and binds tighter than or.
    {"Age eq 30 or Age eq 1 and Name eq 'Bob'", true},     // a or (b and c)
    {"Name eq 'Bob' and Age eq 1 or Age eq 30", true},     // (a and b) or c
    {"(Age eq 30 or Age eq 1) and Name eq 'Bob'", false},  // parentheses override
    {"Age eq 30 and (Name eq 'Bob' or Active eq true)", true},
    // A literal on the left flips the operator.
    {"30 eq Age", true},
    {"31 gt Age", true},
    {"30 gt Age", false},
    {"30 ge Age", true},
    {"29 lt Age", true},
    {"30 lt Age", false},
    {"30 le Age", true},
    {"31 le Age", false},
    {"31 ne Age", true},
    {"'Alice' eq Name", true},
    {"datetime'2000-01-01T00:00:00Z' lt Born", true},
    {"'pk0' lt PartitionKey", true},
    // Whitespace and redundant parentheses.
    {"  Age\teq\n30  ", true},
    {"((Age eq 30))", true},
    {"(Age eq 30)and(Name eq 'Alice')", true},
};

TEST(FilterTest, MatchVectorsFollowAzureSemantics) {
  for (const MatchCase& c : kMatchVectors) {
    EXPECT_EQ(Eval(c.filter), c.matches ? "match" : "no match") << "filter: " << c.filter;
  }
}

TEST(FilterTest, EmptyFilterMatchesEverything) {
  EXPECT_TRUE(Filter().empty());
  EXPECT_TRUE(Filter().Matches(Entity("a", "b")));
  for (const char* text : {"", "   ", " \t\r\n "}) {
    Result<Filter> f = Filter::Parse(text);
    ASSERT_OK(f);
    EXPECT_TRUE(f->empty());
    EXPECT_TRUE(f->Matches(Sample()));
    EXPECT_EQ(f->Canonical(), "");
    EXPECT_THAT(f->PropertyNames(), IsEmpty());
  }
  EXPECT_FALSE(Filter::Parse("Age eq 30")->empty());
}

TEST(FilterTest, IntegerLiteralRanges) {
  EXPECT_EQ(ParseError("Age eq 2147483647"), "OK");
  EXPECT_EQ(ParseError("Age eq -2147483648"), "OK");
  EXPECT_EQ(ParseError("Age eq 2147483648"),
            "filter: at position 7: integer literal 2147483648 is out of the Int32 range; add "
            "the L suffix for an Int64 (2147483648L)");
  EXPECT_THAT(ParseError("Age eq -2147483649"), HasSubstr("add the L suffix"));
  EXPECT_EQ(ParseError("Big eq 9223372036854775807L"), "OK");
  EXPECT_THAT(ParseError("Big eq 9223372036854775808L"), HasSubstr("out of the Int64 range"));
  EXPECT_THAT(ParseError("Score eq 1e999"), HasSubstr("out of range"));
  EXPECT_THAT(ParseError("Score eq 1.5L"), HasSubstr("malformed number '1.5L'"));
  EXPECT_THAT(ParseError("Score eq 1."), HasSubstr("malformed number '1.'"));
}

TEST(FilterTest, FifteenComparisonsAcceptedSixteenRejected) {
  Entity e("p", "r");
  for (int i = 0; i < 16; ++i) e.Set("C" + std::to_string(i), Value::Int32(i));
  EXPECT_EQ(Eval(Conjunction(15), e), "match");

  const std::string sixteen = Conjunction(16);
  const size_t last = sixteen.rfind("C15");
  EXPECT_EQ(ParseError(sixteen), "filter: at position " + std::to_string(last) +
                                     ": more than 15 comparisons (Azure Table's limit per filter)");
  // The limit counts comparisons anywhere in the tree, not only in the top-level conjunction.
  std::string nested = "not (" + Conjunction(8) + ") or (" + Conjunction(8) + ")";
  EXPECT_THAT(ParseError(nested), HasSubstr("more than 15 comparisons"));
}

TEST(FilterTest, NullLiteralRejected) {
  EXPECT_EQ(ParseError("Name eq null"),
            "filter: at position 8: null literals are not allowed in a filter");
  EXPECT_EQ(ParseError("null ne Name"),
            "filter: at position 0: null literals are not allowed in a filter");
}

TEST(FilterTest, ComparisonNeedsExactlyOnePropertySide) {
  EXPECT_EQ(ParseError("Age eq Count"),
            "filter: at position 0: comparison of two properties ('Age' and 'Count'): one side "
            "must be a literal");
  EXPECT_EQ(ParseError("Age eq 1 and 1 eq 2"),
            "filter: at position 13: comparison of two literals: one side must be a property "
            "name");
  EXPECT_THAT(ParseError("Active eq True"), HasSubstr("(keywords are lower case: 'true')"));
}

struct ErrorCase {
  const char* filter;
  const char* message;
};

TEST(FilterTest, ErrorsNamePositionExpectedAndFound) {
  const ErrorCase kCases[] = {
      {"Age gt 30 and Nm eqq 'x'",
       "at position 17: expected a comparison operator (eq, ne, gt, ge, lt, le), found 'eqq'"},
      {"Age EQ 30",
       "at position 4: expected a comparison operator (eq, ne, gt, ge, lt, le), found 'EQ' "
       "(keywords are lower case: 'eq')"},
      {"Active and Age eq 1",
       "at position 7: expected a comparison operator (eq, ne, gt, ge, lt, le), found 'and'"},
      {"Age eq",
       "at position 6: expected a property name or a literal after 'eq', found end of "
       "filter"},
      {"Age eq 30 and", "at position 13: expected a comparison, 'not' or '(', found end of filter"},
      {"Age eq 30 Name eq 'x'",
       "at position 10: expected 'and', 'or' or end of filter, found 'Name'"},
      {"Age eq 30 'x'",
       "at position 10: expected 'and', 'or' or end of filter, found the String literal 'x'"},
      {"Age eq 30 AND Name eq 'x'",
       "at position 10: expected 'and', 'or' or end of filter, found 'AND' (keywords are lower "
       "case: 'and')"},
      {"Name eq 'abc", "at position 8: unterminated string literal (no closing quote)"},
      {"Name eq 'it''s", "at position 8: unterminated string literal (no closing quote)"},
      {"(Age eq 30",
       "at position 10: expected 'and', 'or' or ')' to close the '(' at position 0, found end "
       "of filter"},
      {"Age eq 30)", "at position 9: unbalanced parentheses: ')' has no matching '('"},
      {"Age eq 30 and ()",
       "at position 14: empty parentheses: expected an expression between '(' and ')'"},
      {"eq eq 1", "at position 0: expected a comparison, 'not' or '(', found 'eq'"},
      {"Age eq \"x\"",
       "at position 7: unexpected character '\"' (string literals use single quotes)"},
      {"Age eq 30 && Name eq 'x'", "at position 10: unexpected character '&'"},
      {"Age eq 30x", "at position 7: malformed number '30x'"},
      {"Blob eq X'012'",
       "at position 8: invalid Binary literal X'012' (expected an even number of hex digits)"},
      {"Blob eq binary'0g'",
       "at position 8: invalid Binary literal binary'0g' (expected an even number of hex "
       "digits)"},
      {"Born eq datetime'2008-07-10",
       "at position 8: unterminated datetime literal (no closing "
       "quote)"},
  };
  for (const ErrorCase& c : kCases) {
    EXPECT_EQ(ParseError(c.filter), std::string("filter: ") + c.message) << "filter: " << c.filter;
  }
}

TEST(FilterTest, MalformedTypedLiteralsRejectedAtTheirPosition) {
  EXPECT_THAT(ParseError("Born eq datetime'2008-13-01T00:00:00Z'"),
              StartsWith("filter: at position 8: invalid DateTime '2008-13-01T00:00:00Z'"));
  EXPECT_THAT(ParseError("Born gt datetime'yesterday'"),
              StartsWith("filter: at position 8: invalid DateTime"));
  EXPECT_THAT(ParseError("Id eq guid'a455c695-df98'"),
              StartsWith("filter: at position 6: invalid Guid 'a455c695-df98'"));
}

TEST(FilterTest, NestingIsBounded) {
  const int n = Filter::kMaxNesting;
  EXPECT_EQ(ParseError(std::string(n, '(') + "Age eq 30" + std::string(n, ')')), "OK");
  EXPECT_THAT(ParseError(std::string(n + 1, '(') + "Age eq 30" + std::string(n + 1, ')')),
              HasSubstr("nested deeper than 64 levels"));
  std::string nots;
  for (int i = 0; i < 100'000; ++i) nots += "not ";
  EXPECT_THAT(ParseError(nots + "Age eq 30"), HasSubstr("nested deeper than 64 levels"));
  EXPECT_THAT(ParseError(std::string(100'000, '(')), HasSubstr("nested deeper than 64 levels"));
}

TEST(FilterTest, KeyEqualityPushedDownAsClosedRange) {
  EXPECT_EQ(Keys("PartitionKey eq 'p'"), "pk:['p','p'] rk:(*,*)");
  EXPECT_EQ(Keys("PartitionKey eq 'p' and RowKey eq 'r'"), "pk:['p','p'] rk:['r','r']");
  EXPECT_EQ(Keys("'p' eq PartitionKey"), "pk:['p','p'] rk:(*,*)");
  EXPECT_EQ(Keys(""), "pk:(*,*) rk:(*,*)");
  EXPECT_EQ(Keys("Age eq 1 and Timestamp gt datetime'2020-01-01T00:00:00Z'"), "pk:(*,*) rk:(*,*)");
}

TEST(FilterTest, KeyRangesPushedDown) {
  EXPECT_EQ(Keys("PartitionKey eq 'p' and RowKey ge 'a' and RowKey lt 'b'"),
            "pk:['p','p'] rk:['a','b')");
  EXPECT_EQ(Keys("RowKey gt 'a' and Age eq 1 and RowKey le 'z'"), "pk:(*,*) rk:('a','z']");
  EXPECT_EQ(Keys("'m' gt RowKey"), "pk:(*,*) rk:(*,'m')");
  EXPECT_EQ(Keys("(PartitionKey ge 'a' and Age eq 1) and (RowKey gt 'x')"),
            "pk:['a',*) rk:('x',*)");
}

TEST(FilterTest, TighterKeyBoundWins) {
  EXPECT_EQ(Keys("RowKey gt 'a' and RowKey gt 'c' and RowKey lt 'x' and RowKey le 'm'"),
            "pk:(*,*) rk:('c','m']");
  EXPECT_EQ(Keys("RowKey le 'm' and RowKey lt 'x' and RowKey gt 'c' and RowKey gt 'a'"),
            "pk:(*,*) rk:('c','m']");
  // At one value the exclusive bound is the tighter, in either order.
  EXPECT_EQ(Keys("RowKey ge 'c' and RowKey gt 'c'"), "pk:(*,*) rk:('c',*)");
  EXPECT_EQ(Keys("RowKey gt 'c' and RowKey ge 'c'"), "pk:(*,*) rk:('c',*)");
  EXPECT_EQ(Keys("RowKey le 'c' and RowKey lt 'c'"), "pk:(*,*) rk:(*,'c')");
  EXPECT_EQ(Keys("PartitionKey ge 'a' and PartitionKey eq 'b'"), "pk:['b','b'] rk:(*,*)");
  EXPECT_EQ(Keys("RowKey ge 'a' and RowKey le 'a'"), "pk:(*,*) rk:['a','a']");
}

TEST(FilterTest, KeyComparisonsUnderNeOrNotAreNotPushedDown) {
  EXPECT_EQ(Keys("PartitionKey ne 'p'"), "pk:(*,*) rk:(*,*)");
  EXPECT_EQ(Keys("PartitionKey eq 'a' or PartitionKey eq 'b'"), "pk:(*,*) rk:(*,*)");
  EXPECT_EQ(Keys("(PartitionKey eq 'a' and RowKey eq 'b') or Age eq 1"), "pk:(*,*) rk:(*,*)");
  EXPECT_EQ(Keys("not (PartitionKey eq 'a')"), "pk:(*,*) rk:(*,*)");
  EXPECT_EQ(Keys("not PartitionKey lt 'a' and RowKey lt 'b'"), "pk:(*,*) rk:(*,'b')");
  // Matches still evaluates what was not pushed down.
  EXPECT_EQ(Eval("PartitionKey eq 'a' or RowKey eq 'b'", Entity("x", "b")), "match");
  EXPECT_EQ(Eval("PartitionKey eq 'a' or RowKey eq 'b'", Entity("x", "c")), "no match");
  EXPECT_EQ(Eval("PartitionKey ne 'a'", Entity("a", "c")), "no match");
  EXPECT_EQ(Eval("not (PartitionKey lt 'b')", Entity("a", "c")), "no match");
  EXPECT_EQ(Eval("not (PartitionKey lt 'b')", Entity("b", "c")), "match");
}

TEST(FilterTest, ContradictoryKeyConditionsAreUnsatisfiable) {
  EXPECT_EQ(Keys("PartitionKey eq 'a' and PartitionKey eq 'b'"), "unsatisfiable");
  EXPECT_EQ(Keys("RowKey gt 'b' and RowKey lt 'a'"), "unsatisfiable");
  EXPECT_EQ(Keys("RowKey gt 'a' and RowKey le 'a'"), "unsatisfiable");
  EXPECT_EQ(Keys("RowKey ge 'a' and RowKey lt 'a'"), "unsatisfiable");
  EXPECT_EQ(Keys("PartitionKey eq 'p' and RowKey gt 'z' and RowKey lt 'a'"), "unsatisfiable");
  // A key is a String: a comparison with another type never matches, even with ne.
  EXPECT_EQ(Keys("PartitionKey eq 1"), "unsatisfiable");
  EXPECT_EQ(Keys("Age eq 1 and RowKey ne 1L"), "unsatisfiable");
  // Only the top-level conjunction counts.
  EXPECT_EQ(Keys("PartitionKey eq 1 or Age eq 1"), "pk:(*,*) rk:(*,*)");
  EXPECT_EQ(Eval("PartitionKey eq 'a' and PartitionKey eq 'b'", Entity("a", "r")), "no match");
  EXPECT_EQ(Eval("PartitionKey eq 1", Entity("1", "r")), "no match");
}

TEST(FilterTest, CanonicalIgnoresWhitespaceParenthesesAndLiteralSide) {
  const std::string expected = "((Age gt 30) and (Name eq 'x'))";
  EXPECT_EQ(Canonical("Age gt 30 and Name eq 'x'"), expected);
  EXPECT_EQ(Canonical("  ( Age gt 30 )and(Name   eq\t'x')  "), expected);
  EXPECT_EQ(Canonical("((Age gt 30) and ((Name eq 'x')))"), expected);
  EXPECT_EQ(Canonical("30 lt Age and 'x' eq Name"), expected);
}

TEST(FilterTest, CanonicalWritesLiteralsInCanonicalForm) {
  EXPECT_EQ(Canonical("Age gt 30 and not Name eq 'O''x'"),
            "((Age gt 30) and (not (Name eq 'O''x')))");
  EXPECT_EQ(Canonical("Count eq 30l"), Canonical("Count eq 30L"));
  EXPECT_EQ(Canonical("Score eq 1.5d"), Canonical("Score eq 1.50"));
  EXPECT_EQ(Canonical("Score eq 1e3"), "(Score eq 1000.0)");
  EXPECT_EQ(Canonical("Id eq guid'A455C695-DF98-5678-AAAA-81D3367E5A34'"),
            "(Id eq guid'a455c695-df98-5678-aaaa-81d3367e5a34')");
  EXPECT_EQ(Canonical("Blob eq binary'0102FF'"), "(Blob eq X'0102ff')");
  EXPECT_EQ(Canonical("Born eq datetime'2008-07-10T00:00:00Z'"),
            "(Born eq datetime'2008-07-10T00:00:00.0000000Z')");
  EXPECT_EQ(Canonical("Active eq true or Count lt -5L"), "((Active eq true) or (Count lt -5L))");
}

TEST(FilterTest, CanonicalDiffersForDifferentFilters) {
  const std::pair<const char*, const char*> kPairs[] = {
      {"Age gt 30", "Age ge 30"},
      {"Age eq 30", "Age eq 30L"},
      {"Age eq 30", "Age eq 30.0"},
      {"Name eq 'x'", "Name eq 'X'"},
      {"Name eq 'x'", "Nam eq 'x'"},
      {"Age eq 1 or Age eq 2 and Age eq 3", "(Age eq 1 or Age eq 2) and Age eq 3"},
      {"Age eq 1 and Age eq 2", "Age eq 1 or Age eq 2"},
      {"Age eq 1", "not Age eq 1"},
      {"Name eq 'a'' or Name eq ''b'", "Name eq 'a' or Name eq 'b'"},
  };
  for (const auto& [a, b] : kPairs) {
    EXPECT_NE(Canonical(a), Canonical(b)) << a << " vs " << b;
  }
}

TEST(FilterTest, CanonicalParsesBackToItself) {
  for (const char* text :
       {"Age gt 30 and not Name eq 'O''x'", "Score eq 0.1 or Score lt -1.5e-300",
        "Big ge -9223372036854775808L and Min32 eq -2147483648",
        "not not (Blob lt X'00ff' or Born ge datetime'1601-01-01T00:00:00.0000001Z')",
        "Id ne guid'a455c695-df98-5678-aaaa-81d3367e5a34' and 'r' lt RowKey"}) {
    std::string canonical = Canonical(text);
    ASSERT_THAT(canonical, Not(StartsWith("error"))) << text;
    EXPECT_EQ(Canonical(canonical), canonical) << text;
  }
}

TEST(FilterTest, PropertyNamesListsEachPropertyOnce) {
  Result<Filter> f =
      Filter::Parse("Age gt 1 and (Name eq 'x' or not Age lt 5) and PartitionKey eq 'p'");
  ASSERT_OK(f);
  EXPECT_THAT(f->PropertyNames(), ElementsAre("Age", "Name", "PartitionKey"));
}

TEST(FilterTest, CopiesAndMovesAreIndependent) {
  std::optional<Filter> original = *Filter::Parse("Name eq 'Alice' and RowKey ge 'rk'");
  Filter copy = *original;
  Filter assigned;
  assigned = *original;
  Filter moved = std::move(*original);
  original.reset();
  for (const Filter* f : {&copy, &assigned, &moved}) {
    EXPECT_TRUE(f->Matches(Sample()));
    EXPECT_FALSE(f->Matches(Entity("pk1", "rk5")));
    EXPECT_EQ(f->Canonical(), "((Name eq 'Alice') and (RowKey ge 'rk'))");
    ASSERT_TRUE(f->key_conditions().rk.lower.has_value());
    EXPECT_EQ(f->key_conditions().rk.lower->key, "rk");
  }
}

// A stored row the filter cannot read in place is left to the decoder, which reports what is
// wrong with it: never a silent "no match".
TEST(FilterTest, RowsThatCannotBeReadInPlaceAreUndecided) {
  auto f = Filter::Parse("Name eq 'Alice' or PartitionKey eq 'pk1'");
  ASSERT_OK(f);
  Stored good(Sample());
  EncodedRow row = good.Row();
  EXPECT_EQ(f->Matches(row), Filter::RowMatch::kYes);
  // Truncated inside the properties, before "Name".
  Stored truncated(Sample());
  truncated.value.resize(truncated.value.size() / 3);
  EncodedRow cut = truncated.Row();
  EXPECT_EQ(f->Matches(cut), Filter::RowMatch::kUndecided);
  // An unknown type tag.
  Entity one("pk1", "rk5");
  one.Set("Name", Value::String("Alice"));
  Stored tagged(one);
  tagged.value[tagged.value.size() - 7] = '\x7f';  // the tag before len:1 "Alice"
  EncodedRow bad_tag = tagged.Row();
  EXPECT_EQ(f->Matches(bad_tag), Filter::RowMatch::kUndecided);
  // An unknown value format version.
  Stored versioned(Sample());
  versioned.value[0] = 9;
  EncodedRow bad_version = versioned.Row();
  EXPECT_EQ(f->Matches(bad_version), Filter::RowMatch::kUndecided);
  // A PartitionKey with 0x00 bytes is escaped in the key: compared only once decoded.
  auto pk_filter = Filter::Parse("PartitionKey eq 'a'");
  ASSERT_OK(pk_filter);
  Stored zero(Entity(std::string("a\0b", 3), "r"));
  EncodedRow escaped = zero.Row();
  EXPECT_EQ(pk_filter->Matches(escaped), Filter::RowMatch::kUndecided);
  // Bytes after the last property, when the filter reads past every property.
  auto absent = Filter::Parse("Zzz eq 1");
  ASSERT_OK(absent);
  Stored trailing(one);
  trailing.value += "x";
  EncodedRow extra = trailing.Row();
  EXPECT_EQ(absent->Matches(extra), Filter::RowMatch::kUndecided);
  Stored plain(one);
  EncodedRow clean = plain.Row();
  EXPECT_EQ(absent->Matches(clean), Filter::RowMatch::kNo);
}

}  // namespace
}  // namespace partkv::engine
