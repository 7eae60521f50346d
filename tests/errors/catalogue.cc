// The rows of the bad-input catalogue, in the order of docs/errors.md. Each feeds one bad input
// through the public API (or a helper process) and returns the Status it got; errors_test.cc
// checks the code, the fragment, and that the stored entities survived.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/local/catalog.h"
#include "engine/local/store_creation.h"
#include "partkv/json.h"
#include "tests/errors/errors_fixture.h"

namespace partkv::errors {
namespace {

std::function<Status(ErrorsTest&)> Inserting(Entity e) {
  return [e](ErrorsTest& t) { return t.table().Insert(e).status(); };
}
Entity WithKeys(std::string pk, std::string rk) {
  Entity e(std::move(pk), std::move(rk));
  e.Set("x", Value::Int32(1));
  return e;
}
Entity WithProperty(std::string name, Value v) {
  Entity e("gamma", "1");
  e.Set(std::move(name), std::move(v));
  return e;
}
std::function<Status(ErrorsTest&)> Json(std::string text, JsonReadOptions o = {}) {
  return [text, o](ErrorsTest& t) {
    // As a caller would: parse, and write only what parsed.
    auto e = EntityFromJson(text, o);
    if (!e.ok()) return e.status();
    return t.table().Insert(*e).status();
  };
}
std::function<Status(ErrorsTest&)> Filtering(std::string filter) {
  return [filter](ErrorsTest& t) {
    Query q;
    q.filter = filter;
    return t.table().QueryEntities(q).status();
  };
}
std::function<Status(ErrorsTest&)> Strategy(std::string text) {
  return [text](ErrorsTest&) { return KeyStrategy::Parse(text).status(); };
}

// Keys.
std::vector<Case> KeyCases() {
  std::vector<Case> c;
  c.push_back({"K01", "PartitionKeyWithSlash", Code::kInvalidArgument,
               "PartitionKey 'a/b' contains the forbidden character '/'",
               Inserting(WithKeys("a/b", "r"))});
  c.push_back({"K02", "RowKeyWithBackslash", Code::kInvalidArgument,
               "RowKey 'a\\b' contains the forbidden character '\\'",
               Inserting(WithKeys("p", "a\\b"))});
  c.push_back({"K03", "PartitionKeyWithHash", Code::kInvalidArgument,
               "contains the forbidden character '#'", Inserting(WithKeys("a#", "r"))});
  c.push_back({"K04", "RowKeyWithQuestionMark", Code::kInvalidArgument,
               "contains the forbidden character '?'", Inserting(WithKeys("p", "?"))});
  c.push_back({"K05", "PartitionKeyWithNul", Code::kInvalidArgument,
               "contains the forbidden character U+0000 at byte 1",
               Inserting(WithKeys(std::string("a\0b", 3), "r"))});
  c.push_back({"K06", "RowKeyWithUnitSeparator", Code::kInvalidArgument,
               "contains the forbidden character U+001F at byte 1",
               Inserting(WithKeys("p", "a\x1f"))});
  c.push_back({"K07", "PartitionKeyWithDelete", Code::kInvalidArgument,
               "contains the forbidden character U+007F at byte 1",
               Inserting(WithKeys("a\x7f", "r"))});
  c.push_back({"K08", "RowKeyWithC1Control", Code::kInvalidArgument,
               "contains the forbidden character U+0085 at byte 1",
               Inserting(WithKeys("p", "a\xc2\x85"))});
  c.push_back({"K09", "PartitionKeyWithLoneContinuationByte", Code::kInvalidArgument,
               "PartitionKey is not valid UTF-8", Inserting(WithKeys("a\x80", "r"))});
  c.push_back({"K10", "RowKeyWithOverlongEncoding", Code::kInvalidArgument,
               "RowKey is not valid UTF-8", Inserting(WithKeys("p", "\xc0\xaf"))});
  c.push_back({"K11", "PartitionKeyWithSurrogate", Code::kInvalidArgument,
               "PartitionKey is not valid UTF-8", Inserting(WithKeys("\xed\xa0\x80", "r"))});
  c.push_back({"K12", "RowKeyBeyondU10FFFF", Code::kInvalidArgument, "RowKey is not valid UTF-8",
               Inserting(WithKeys("p", "\xf4\x90\x80\x80"))});
  c.push_back({"K13", "PartitionKeyWithTruncatedSequence", Code::kInvalidArgument,
               "PartitionKey is not valid UTF-8", Inserting(WithKeys("\xe2\x82", "r"))});
  c.push_back({"K14", "PartitionKeyOver1KiB", Code::kInvalidArgument,
               "is 1026 bytes in UTF-16; the limit is 1024 bytes",
               Inserting(WithKeys(std::string(513, 'k'), "r"))});
  c.push_back({"K15", "RowKeyOver1KiBInSurrogatePairs", Code::kInvalidArgument,
               "is 1028 bytes in UTF-16; the limit is 1024 bytes",
               Inserting(WithKeys("p", Repeat("\xf0\x9f\x98\x80", 257)))});
  c.push_back({"K16", "DeleteWithForbiddenKey", Code::kInvalidArgument,
               "contains the forbidden character '#'",
               [](ErrorsTest& t) { return t.table().Delete("alpha#", "1", IfMatch::Any()); }});
  c.push_back({"K17", "GetWithForbiddenKey", Code::kNotFound,
               "entity (PartitionKey 'alpha/', RowKey '1') does not exist",
               [](ErrorsTest& t) { return t.table().Get("alpha/", "1").status(); }});
  return c;
}

// Properties and values.
std::vector<Case> PropertyCases() {
  std::vector<Case> c;
  c.push_back({"P01", "TooManyProperties", Code::kInvalidArgument,
               "entity has 253 properties; the limit is 252 custom properties", [](ErrorsTest& t) {
                 Entity e("gamma", "1");
                 for (int i = 0; i < 253; ++i) e.Set("p" + std::to_string(i), Value::Int32(i));
                 return t.table().Insert(e).status();
               }});
  c.push_back({"P02", "PropertyNameStartingWithDigit", Code::kInvalidArgument,
               "property name '1abc' must start with a letter or '_'",
               Inserting(WithProperty("1abc", Value::Int32(1)))});
  c.push_back({"P03", "PropertyNameWithDash", Code::kInvalidArgument,
               "property name 'a-b' contains '-'",
               Inserting(WithProperty("a-b", Value::Int32(1)))});
  c.push_back({"P04", "PropertyNameOver255Characters", Code::kInvalidArgument,
               "is 256 characters; the limit is 255",
               Inserting(WithProperty(std::string(256, 'n'), Value::Int32(1)))});
  c.push_back({"P05", "PropertyNamedTimestamp", Code::kInvalidArgument,
               "property name 'Timestamp' is a system property",
               Inserting(WithProperty("Timestamp", Value::Int32(1)))});
  c.push_back({"P06", "EmptyPropertyName", Code::kInvalidArgument, "property name '' is empty",
               Inserting(WithProperty("", Value::Int32(1)))});
  c.push_back({"P07", "StringOver64KiBInUtf16", Code::kInvalidArgument,
               "String value is 65538 bytes in UTF-16; the limit is 65536 bytes (64 KiB)",
               Inserting(WithProperty("s", Value::String(std::string(32769, 's'))))});
  c.push_back({"P08", "BinaryOver64KiB", Code::kInvalidArgument,
               "Binary value is 65537 bytes; the limit is 65536 bytes (64 KiB)",
               Inserting(WithProperty("b", Value::Binary(std::string(65537, 'b'))))});
  c.push_back({"P09", "EntityOver1MiB", Code::kInvalidArgument,
               "by Azure's size formula; the limit is 1048576 bytes (1 MiB)", [](ErrorsTest& t) {
                 Entity e("gamma", "1");
                 for (int i = 0; i < 17; ++i) {
                   e.Set("b" + std::to_string(i), Value::Binary(std::string(64000, 'b')));
                 }
                 return t.table().Insert(e).status();
               }});
  c.push_back({"P10", "StringNotUtf8", Code::kInvalidArgument, "String value is not valid UTF-8",
               Inserting(WithProperty("s", Value::String("\xff\xfe")))});
  c.push_back(
      {"P11", "MergeWithBadProperty", Code::kInvalidArgument, "contains '-'", [](ErrorsTest& t) {
         Entity e("alpha", "1");
         e.Set("a-b", Value::Int32(1));
         return t.table().Merge(e, IfMatch::Any()).status();
       }});
  return c;
}

// Batches.
std::vector<Case> BatchCases() {
  std::vector<Case> c;
  c.push_back({"B01", "BatchOf101Operations", Code::kInvalidArgument,
               "operation 100: the batch has 101 operations; the limit is 100", [](ErrorsTest& t) {
                 Batch b;
                 for (int i = 0; i < 101; ++i) b.Insert(WithKeys("delta", std::to_string(i)));
                 return t.table().Submit(b).status();
               }});
  c.push_back({"B02", "BatchOver4MiB", Code::kInvalidArgument,
               "the batch's entities exceed 4194304 bytes (4 MiB)", [](ErrorsTest& t) {
                 Batch b;
                 for (int i = 0; i < 40; ++i) {
                   Entity e("delta", std::to_string(i));
                   e.Set("b", Value::Binary(std::string(60000, 'b')));
                   e.Set("c", Value::Binary(std::string(60000, 'c')));
                   b.Insert(std::move(e));
                 }
                 return t.table().Submit(b).status();
               }});
  c.push_back({"B03", "BatchWithRepeatedRow", Code::kInvalidArgument,
               "operation 1: a command with RowKey '1' is already present in the batch",
               [](ErrorsTest& t) {
                 Batch b;
                 b.Insert(WithKeys("delta", "1")).InsertOrReplace(WithKeys("delta", "1"));
                 return t.table().Submit(b).status();
               }});
  c.push_back({"B04", "BatchAcrossPartitionKeys", Code::kInvalidArgument,
               "operation 1: all operations of a batch must share one PartitionKey",
               [](ErrorsTest& t) {
                 Batch b;
                 b.Insert(WithKeys("delta", "1")).Insert(WithKeys("epsilon", "1"));
                 return t.table().Submit(b).status();
               }});
  c.push_back({"B05", "BatchWithInvalidEntity", Code::kInvalidArgument,
               "operation 2: RowKey '3?' contains the forbidden character '?'", [](ErrorsTest& t) {
                 Batch b;
                 b.Insert(WithKeys("delta", "1")).Insert(WithKeys("delta", "2"));
                 b.Insert(WithKeys("delta", "3?"));
                 return t.table().Submit(b).status();
               }});
  c.push_back({"B06", "BatchInsertOfExistingRow", Code::kAlreadyExists,
               "operation 1: entity (PartitionKey 'beta', RowKey 'row3') already exists",
               [](ErrorsTest& t) {
                 Batch b;
                 b.Insert(WithKeys("beta", "new")).Insert(WithKeys("beta", "row3"));
                 return t.table().Submit(b).status();
               }});
  return c;
}

// ETags.
std::vector<Case> ETagCases() {
  std::vector<Case> c;
  c.push_back(
      {"T01", "MalformedETag", Code::kPreconditionFailed,
       "If-Match ETag garbage does not match the current ETag", [](ErrorsTest& t) {
         return t.table().Replace(WithKeys("alpha", "2"), IfMatch::ETag("garbage")).status();
       }});
  c.push_back({"T02", "StaleETag", Code::kPreconditionFailed, "does not match the current ETag",
               [](ErrorsTest& t) {
                 // A row replaced by another writer since this one read it.
                 auto first = t.table().Insert(WithKeys("gamma", "1"));
                 if (!first.ok() ||
                     !t.table().Replace(WithKeys("gamma", "1"), IfMatch::Any()).ok()) {
                   return Status::Corruption("setup");
                 }
                 Status s = t.table().Delete("gamma", "1", IfMatch::ETag(first->etag));
                 if (!t.table().Delete("gamma", "1", IfMatch::Any()).ok()) {
                   return Status::Corruption("teardown");
                 }
                 return s;
               }});
  return c;
}

// JSON entities.
std::vector<Case> JsonCases() {
  std::vector<Case> c;
  c.push_back({"J01", "JsonTruncated", Code::kInvalidArgument, "invalid JSON at byte 21",
               Json(R"({"PartitionKey":"p",)")});
  c.push_back({"J02", "JsonNotAnObject", Code::kInvalidArgument, "entity JSON must be an object",
               Json("[1,2]")});
  c.push_back({"J03", "JsonDuplicateMember", Code::kInvalidArgument, "appears more than once",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":1,"a":2})")});
  c.push_back({"J04", "JsonNestedObject", Code::kInvalidArgument,
               "property 'a': value is an object",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":{"b":1}})")});
  c.push_back({"J05", "JsonArrayValue", Code::kInvalidArgument, "property 'a': value is an array",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":[1]})")});
  c.push_back({"J06", "JsonUnknownEdmType", Code::kInvalidArgument,
               "unknown type \"Edm.Nope\" in a@odata.type",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":"1","a@odata.type":"Edm.Nope"})")});
  c.push_back({"J07", "JsonAnnotationWithoutProperty", Code::kInvalidArgument,
               "annotation a@odata.type has no property a",
               Json(R"({"PartitionKey":"p","RowKey":"r","a@odata.type":"Edm.Int64"})")});
  c.push_back({"J08", "JsonInt64NotDecimal", Code::kInvalidArgument,
               "Edm.Int64 value must be a decimal string",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":"12x","a@odata.type":"Edm.Int64"})")});
  c.push_back({"J09", "JsonIntegerOutsideInt32", Code::kInvalidArgument,
               "integer 2147483648 is outside the Int32 range",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":2147483648})")});
  c.push_back({"J10", "JsonInvalidUtf8", Code::kInvalidArgument, "ill-formed UTF-8",
               Json("{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"a\":\"\xff\"}")});
  c.push_back({"J11", "JsonKeyNotAString", Code::kInvalidArgument,
               "property 'PartitionKey': keys must be strings",
               Json(R"({"PartitionKey":5,"RowKey":"r"})")});
  c.push_back(
      {"J12", "JsonBadDateTime", Code::kInvalidArgument, "property 'a': invalid DateTime",
       Json(
           R"({"PartitionKey":"p","RowKey":"r","a":"2024-13-01T00:00:00Z","a@odata.type":"Edm.DateTime"})")});
  c.push_back({"J13", "JsonBadGuid", Code::kInvalidArgument, "property 'a': invalid Guid 'nope'",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":"nope","a@odata.type":"Edm.Guid"})")});
  c.push_back({"J14", "JsonBadBase64", Code::kInvalidArgument, "property 'a': invalid base64",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":"!!!","a@odata.type":"Edm.Binary"})")});
  c.push_back({"J15", "JsonMissingRowKey", Code::kInvalidArgument, "property 'RowKey': missing",
               Json(R"({"PartitionKey":"p"})", {.require_keys = true})});
  c.push_back({"J16", "JsonFractionalInt32", Code::kInvalidArgument,
               "Edm.Int32 value must be an integer",
               Json(R"({"PartitionKey":"p","RowKey":"r","a":1.5,"a@odata.type":"Edm.Int32"})")});
  c.push_back(
      {"J17", "JsonEmptyInput", Code::kInvalidArgument, "invalid JSON at byte 1", Json("")});
  c.push_back({"J18", "JsonTrailingGarbage", Code::kInvalidArgument, "expected end of input",
               Json(R"({"PartitionKey":"p","RowKey":"r"} x)")});
  c.push_back({"J19", "JsonValidButInvalidKey", Code::kInvalidArgument,
               "contains the forbidden character '/'",
               Json(R"({"PartitionKey":"a/b","RowKey":"r"})")});
  return c;
}

// Typed values parsed from text.
std::vector<Case> TypedTextCases() {
  std::vector<Case> c;
  c.push_back({"V01", "DateTimeMonth13", Code::kInvalidArgument,
               "invalid DateTime '2024-13-01T00:00:00Z'",
               [](ErrorsTest&) { return DateTime::Parse("2024-13-01T00:00:00Z").status(); }});
  c.push_back({"V02", "DateTimeNotIso8601", Code::kInvalidArgument, "invalid DateTime 'yesterday'",
               [](ErrorsTest&) { return DateTime::Parse("yesterday").status(); }});
  c.push_back({"V03", "GuidMalformed", Code::kInvalidArgument, "invalid Guid 'c9da6455-213d'",
               [](ErrorsTest&) { return Guid::Parse("c9da6455-213d").status(); }});
  return c;
}

// Filters.
std::vector<Case> FilterCases() {
  std::vector<Case> c;
  c.push_back({"F01", "FilterUnknownOperator", Code::kInvalidArgument,
               "filter: at position 4: expected a comparison operator", Filtering("Age eqq 30")});
  c.push_back({"F02", "FilterUpperCaseOperator", Code::kInvalidArgument,
               "(keywords are lower case: 'eq')", Filtering("Age EQ 30")});
  c.push_back({"F03", "FilterUnterminatedString", Code::kInvalidArgument,
               "unterminated string literal", Filtering("Name eq 'abc")});
  c.push_back({"F04", "FilterUnbalancedParenthesis", Code::kInvalidArgument,
               "unbalanced parentheses", Filtering("(Age eq 1))")});
  c.push_back({"F05", "FilterEmptyParentheses", Code::kInvalidArgument, "empty parentheses",
               Filtering("()")});
  c.push_back({"F06", "Filter16Comparisons", Code::kInvalidArgument, "more than 15 comparisons",
               [](ErrorsTest& t) {
                 std::string f = "a eq 0";
                 for (int i = 1; i < 16; ++i) f += " or a eq " + std::to_string(i);
                 return Filtering(f)(t);
               }});
  c.push_back({"F07", "FilterNested65Deep", Code::kInvalidArgument, "nested deeper than 64",
               Filtering(std::string(65, '(') + "a eq 1" + std::string(65, ')'))});
  c.push_back({"F08", "FilterInt32OutOfRange", Code::kInvalidArgument, "out of the Int32 range",
               Filtering("Age eq 2147483648")});
  c.push_back({"F09", "FilterNullLiteral", Code::kInvalidArgument, "null literals are not allowed",
               Filtering("Age eq null")});
  c.push_back({"F10", "FilterBadDateTimeLiteral", Code::kInvalidArgument,
               "filter: at position 8: invalid DateTime 'yesterday'",
               Filtering("When eq datetime'yesterday'")});
  c.push_back({"F11", "FilterBadGuidLiteral", Code::kInvalidArgument,
               "filter: at position 6: invalid Guid 'nope'", Filtering("Id eq guid'nope'")});
  c.push_back({"F12", "FilterOddHexBinaryLiteral", Code::kInvalidArgument,
               "invalid Binary literal X'0'", Filtering("Blob eq X'0'")});
  c.push_back({"F13", "FilterTwoProperties", Code::kInvalidArgument, "comparison of two properties",
               Filtering("Age eq Other")});
  c.push_back({"F14", "FilterTwoLiterals", Code::kInvalidArgument, "comparison of two literals",
               Filtering("1 eq 1")});
  c.push_back({"F15", "FilterTrailingTokens", Code::kInvalidArgument,
               "expected 'and', 'or' or end of filter, found 'Name'", Filtering("Age eq 1 Name")});
  c.push_back({"F16", "FilterDoubleOutOfRange", Code::kInvalidArgument,
               "Double literal '1e999' is out of range", Filtering("Ratio eq 1e999")});
  return c;
}

// Query shape and $select.
std::vector<Case> QueryShapeCases() {
  std::vector<Case> c;
  c.push_back({"Q01", "PageSizeZero", Code::kInvalidArgument, "page size is 0; it must be 1..1000",
               [](ErrorsTest& t) {
                 Query q;
                 q.page_size = 0;
                 return t.table().QueryEntities(q).status();
               }});
  c.push_back({"Q02", "PageSize1001", Code::kInvalidArgument,
               "page size is 1001; it must be 1..1000", [](ErrorsTest& t) {
                 Query q;
                 q.page_size = 1001;
                 return t.table().QueryEntities(q).status();
               }});
  c.push_back({"Q03", "PartitionKeyAndRange", Code::kInvalidArgument,
               "either one PartitionKey or a PartitionKey range, not both", [](ErrorsTest& t) {
                 Query q;
                 q.partition_key = "alpha";
                 q.partition_lower = Bound::Inclusive("a");
                 return t.table().QueryEntities(q).status();
               }});
  c.push_back({"Q04", "SelectInvalidName", Code::kInvalidArgument,
               "$select: property name 'a-b' contains '-'", [](ErrorsTest& t) {
                 Query q;
                 q.select = {"a-b"};
                 return t.table().QueryEntities(q).status();
               }});
  return c;
}

// Continuation tokens.
std::vector<Case> TokenCases() {
  std::vector<Case> c;
  c.push_back({"C01", "TokenNotBase64url", Code::kInvalidArgument,
               "invalid continuation token: not base64url",
               [](ErrorsTest& t) { return t.QueryWithToken("!!not-a-token!!"); }});
  c.push_back({"C02", "TokenTruncated", Code::kInvalidArgument,
               "invalid continuation token: truncated",
               [](ErrorsTest& t) { return t.QueryWithToken(t.Token().substr(0, 12)); }});
  c.push_back({"C03", "TokenAltered", Code::kInvalidArgument,
               "checksum mismatch: the token was altered, forged or issued by another store",
               [](ErrorsTest& t) {
                 std::string token = t.Token();
                 char& ch = token[token.size() / 2];
                 ch = ch == 'A' ? 'B' : 'A';
                 return t.QueryWithToken(token);
               }});
  c.push_back({"C04", "TokenFromAnotherStore", Code::kInvalidArgument, "checksum mismatch",
               [](ErrorsTest& t) {
                 std::string token;
                 {
                   auto other = Store::Open(t.Sub("other"));
                   (void)other->CreateTable("Items");
                   auto table = *other->OpenTable("Items");
                   for (int i = 0; i < 3; ++i)
                     (void)table.Insert(WithKeys("alpha", std::to_string(i)));
                   Query q;
                   q.page_size = 2;
                   token = table.QueryEntities(q)->continuation;
                 }
                 return t.QueryWithToken(token);
               }});
  c.push_back({"C05", "TokenFromAnotherQuery", Code::kInvalidArgument,
               "it belongs to a different query",
               [](ErrorsTest& t) { return t.QueryWithToken(t.Token(), "i ge 0"); }});
  c.push_back({"C06", "TokenFromAnotherTable", Code::kInvalidArgument,
               "it belongs to a different query", [](ErrorsTest& t) {
                 std::string token = t.Token();
                 if (!t.store().CreateTable("Other").ok()) return Status::Corruption("setup");
                 Query q;
                 q.page_size = 2;
                 q.continuation = token;
                 Status s = t.store().OpenTable("Other")->QueryEntities(q).status();
                 if (!t.store().DropTable("Other").ok()) return Status::Corruption("teardown");
                 return s;
               }});
  c.push_back({"C07", "TokenTooLong", Code::kInvalidArgument, "longer than 8192 characters",
               [](ErrorsTest& t) { return t.QueryWithToken(std::string(9000, 'A')); }});
  return c;
}

// Key strategies (text forms and tables declaring them).
std::vector<Case> StrategyCases() {
  std::vector<Case> c;
  c.push_back({"S01", "StrategyUnknownName", Code::kInvalidArgument, "unknown form 'reverse'",
               Strategy("reverse(a)")});
  c.push_back({"S02", "StrategyZeroShards", Code::kInvalidArgument, "N = 0 is outside 1..65535",
               Strategy("random-suffix(a,0)")});
  c.push_back({"S03", "StrategyTooManyShards", Code::kInvalidArgument,
               "N = 65536 is outside 1..65535", Strategy("hash-suffix(a,b,65536)")});
  c.push_back({"S04", "StrategyTooManyMd5Bits", Code::kInvalidArgument, "K = 129 is outside 1..128",
               Strategy("md5-bits(a,129)")});
  c.push_back({"S05", "StrategyBadFieldName", Code::kInvalidArgument,
               "field '1a' is not a property name", Strategy("concat(1a,b)")});
  c.push_back({"S06", "StrategyUnclosed", Code::kInvalidArgument, "expected NAME(ARGUMENTS)",
               Strategy("concat(a,b")});
  c.push_back({"S07", "TableWithInvalidScheme", Code::kInvalidArgument,
               "key scheme: N = 0 is outside 1..65535", [](ErrorsTest& t) {
                 return t.store().CreateTable(
                     "Sharded", {.partition_key_scheme = KeyStrategy::RandomSuffix("a", 0)});
               }});
  c.push_back({"S08", "SchemeFieldMissing", Code::kInvalidArgument,
               "entity has no property 'Day' required by key strategy", [](ErrorsTest& t) {
                 Status s = t.store().CreateTable(
                     "Sharded",
                     {.partition_key_scheme = KeyStrategy::HashSuffix("Day", "Day", 10)});
                 if (!s.ok()) return s;
                 Entity e("", "r");
                 e.Set("Other", Value::Int32(1));
                 Status w = t.store().OpenTable("Sharded")->Insert(e).status();
                 if (!t.store().DropTable("Sharded").ok()) return Status::Corruption("teardown");
                 return w;
               }});
  return c;
}

// Tables.
std::vector<Case> TableCases() {
  std::vector<Case> c;
  c.push_back({"N01", "TableNameTooShort", Code::kInvalidArgument, "invalid table name 'ab'",
               [](ErrorsTest& t) { return t.store().CreateTable("ab"); }});
  c.push_back({"N02", "TableNameWithDash", Code::kInvalidArgument, "invalid table name 'my-table'",
               [](ErrorsTest& t) { return t.store().CreateTable("my-table"); }});
  c.push_back({"N03", "TableNameReserved", Code::kInvalidArgument,
               "table name 'tables' is reserved",
               [](ErrorsTest& t) { return t.store().CreateTable("tables"); }});
  c.push_back({"N04", "ZeroPhysicalPartitions", Code::kInvalidArgument,
               "physical_partitions is 0; it must be 1..1024", [](ErrorsTest& t) {
                 return t.store().CreateTable("Zero", {.physical_partitions = 0});
               }});
  c.push_back({"N05", "TooManyPhysicalPartitions", Code::kInvalidArgument,
               "physical_partitions is 1025; it must be 1..1024", [](ErrorsTest& t) {
                 return t.store().CreateTable("Many", {.physical_partitions = 1025});
               }});
  c.push_back({"N06", "TableExistsInOtherCase", Code::kAlreadyExists, "table 'ITEMS' exists",
               [](ErrorsTest& t) { return t.store().CreateTable("ITEMS"); }});
  c.push_back({"N07", "OpenMissingTable", Code::kNotFound, "table 'Nope' does not exist",
               [](ErrorsTest& t) { return t.store().OpenTable("Nope").status(); }});
  return c;
}

// Store directories and the options that open them.
std::vector<Case> StoreDirectoryCases() {
  std::vector<Case> c;
  c.push_back({"D01", "StorePathIsAFile", Code::kInvalidArgument, "exists and is not a directory",
               [](ErrorsTest& t) {
                 std::ofstream(t.Sub("file")) << "x";
                 return Store::Open(t.Sub("file")).status();
               }});
  c.push_back({"D02", "DirectoryThatIsNotAStore", Code::kInvalidArgument,
               "is not a partkv store: the directory is not empty and holds no store",
               [](ErrorsTest& t) {
                 std::filesystem::create_directories(t.Sub("photos"));
                 std::ofstream(t.Sub("photos/cat.jpg")) << "meow";
                 Status s = Store::Open(t.Sub("photos")).status();
                 if (std::distance(std::filesystem::directory_iterator(t.Sub("photos")), {}) != 1) {
                   return Status::Corruption("the directory was modified");
                 }
                 return s;
               }});
  c.push_back(
      {"D03", "PlainRocksDbDatabase", Code::kInvalidArgument,
       "is not a partkv store: it is a RocksDB database without partkv's meta column family",
       [](ErrorsTest& t) {
         rocksdb::Options o;
         o.create_if_missing = true;
         rocksdb::DB* raw = nullptr;
         if (!rocksdb::DB::Open(o, t.Sub("plain"), &raw).ok()) return Status::Corruption("setup");
         delete raw;
         return Store::Open(t.Sub("plain")).status();
       }});
  c.push_back({"D04", "NewerFormatVersion", Code::kInvalidArgument,
               "has on-disk format version 5; this build of partkv reads format versions 1 "
               "to 3 (upgraded on open) and 4",
               [](ErrorsTest& t) {
                 t.Close();
                 t.RawMetaPut(engine::kFormatKey, std::to_string(engine::kStoreFormatVersion + 1));
                 Status s = t.Open();
                 // back to this build's format
                 t.RawMetaPut(engine::kFormatKey, std::to_string(engine::kStoreFormatVersion));
                 return s;
               }});
  c.push_back({"D05", "StoreOpenInAnotherProcess", Code::kBusy,
               "the store is already open in another process", [](ErrorsTest& t) {
                 t.Close();
                 pid_t pid = -1;
                 int stdin_fd = -1;
                 auto lines = RunHelper({"hold", t.store_path()}, &pid, &stdin_fd, 1);
                 Status s = lines.size() == 1 && lines[0] == "HELD"
                                ? Store::Open(t.store_path()).status()
                                : Status::Corruption("holder: " + (lines.empty() ? "" : lines[0]));
                 ::close(stdin_fd);  // the holder closes the store and exits
                 int status = 0;
                 ::waitpid(pid, &status, 0);
                 return s;
               }});
  c.push_back({"D06", "MissingStoreWithoutCreate", Code::kNotFound, "(create_if_missing is off)",
               [](ErrorsTest& t) {
                 return Store::Open(t.Sub("absent"), {.create_if_missing = false}).status();
               }});
  c.push_back({"D07", "ExistingStoreWithErrorIfExists", Code::kAlreadyExists,
               "(error_if_exists is on)", [](ErrorsTest& t) {
                 t.Close();
                 return Store::Open(t.store_path(), {.error_if_exists = true}).status();
               }});
  c.push_back({"D08", "MemoryBudgetTooSmall", Code::kInvalidArgument, "the minimum is 4 MiB",
               [](ErrorsTest& t) {
                 return Store::Open(t.Sub("tiny"), {.memory_budget_bytes = 1024}).status();
               }});
  c.push_back({"D09", "EmptyStorePath", Code::kInvalidArgument, "store path is empty",
               [](ErrorsTest&) { return Store::Open("").status(); }});
  return c;
}

// Store files: damaged, too large for the disk, being created or held by another.
std::vector<Case> StoreFileCases() {
  std::vector<Case> c;
  c.push_back({"D10", "DamagedCurrentFile", Code::kCorruption,
               "CURRENT file does not end with newline", [](ErrorsTest& t) {
                 t.Close();
                 std::string current = t.store_path() + "/CURRENT";
                 std::string good;
                 std::getline(std::ifstream(current), good);
                 std::ofstream(current, std::ios::trunc) << "MANIFEST-999999";  // no newline
                 Status s = t.Open();
                 std::ofstream(current, std::ios::trunc) << good << "\n";
                 return s;
               }});
  c.push_back({"D11", "CorruptStoredValue", Code::kCorruption, "entity value: truncated timestamp",
               [](ErrorsTest& t) {
                 // Named, not a structured binding: the lambdas below capture them.
                 const auto located = t.Locate("alpha", "0-corrupt");
                 const std::string& cf = located.first;
                 const std::string& key = located.second;
                 t.Close();
                 t.WithRawDb([&](rocksdb::DB* db, const auto& cfs) {
                   ASSERT_TRUE(
                       db->Put(rocksdb::WriteOptions(), cfs.at(cf), key, "\x01garbage").ok());
                 });
                 if (!t.Open().ok()) return Status::Corruption("reopen");
                 Status get = t.table().Get("alpha", "0-corrupt").status();
                 Query q;
                 q.partition_key = "alpha";
                 Status query = t.table().QueryEntities(q).status();
                 // Its neighbours still read.
                 bool others = t.table().Get("alpha", "1").ok() && t.table().Get("alpha", "2").ok();
                 t.Close();
                 t.WithRawDb([&](rocksdb::DB* db, const auto& cfs) {
                   ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), cfs.at(cf), key).ok());
                 });
                 if (!others)
                   return Status::NotFound("a neighbour of the corrupt value is unreadable");
                 if (query.code() != get.code()) return query;
                 return get;
               }});
  c.push_back({"D12", "FileSizeLimitReached", Code::kIOError, "File too large", [](ErrorsTest& t) {
                 auto lines = RunHelper({"fill-disk", "fsize", t.Sub("fsize")});
                 std::string verify = Find(lines, "VERIFY ");
                 if (verify.rfind("ok ", 0) != 0) return Status::NotFound("VERIFY " + verify);
                 if (Find(lines, "READ ") != "OK")
                   return Status::NotFound("READ " + Find(lines, "READ "));
                 if (Find(lines, "WRITE ") != "OK")
                   return Status::NotFound("WRITE " + Find(lines, "WRITE "));
                 if (!Find(lines, "CRASHED ").empty()) return Status::NotFound("CRASHED");
                 if (!Has(lines, "CLOSED"))
                   return Status::NotFound("the worker did not close the store");
                 return StatusFromLine(Find(lines, "FAILED "));
               }});
  c.push_back({"D13", "DiskFull", Code::kIOError, "No space left on device", [](ErrorsTest& t) {
                 auto lines = RunHelper({"fill-disk", "tmpfs", t.Sub("tmpfs")});
                 if (std::string why = Find(lines, "SKIP "); !why.empty()) {
                   t.skip_reason_ = "a tmpfs cannot be mounted here (" + why +
                                    "); D12 covers running out of space with RLIMIT_FSIZE";
                   return Status::OK();
                 }
                 std::string verify = Find(lines, "VERIFY ");
                 if (verify.rfind("ok ", 0) != 0) return Status::NotFound("VERIFY " + verify);
                 if (Find(lines, "WRITE ") != "OK")
                   return Status::NotFound("WRITE " + Find(lines, "WRITE "));
                 if (!Has(lines, "CLOSED"))
                   return Status::NotFound("the worker did not close the store");
                 return StatusFromLine(Find(lines, "FAILED "));
               }});
  c.push_back(
      {"D14", "UnfinishedCreationWithForeignFiles", Code::kInvalidArgument,
       "holds an unfinished store creation (PARTKV-CREATING) and files partkv did not write",
       [](ErrorsTest& t) {
         // What a killed creation leaves (the marker, a RocksDB file), plus a file of
         // someone else's: the Open that would redo the creation touches nothing.
         std::string dir = t.Sub("half");
         std::filesystem::create_directories(dir);
         std::ofstream(dir + "/" + engine::kCreationMarker);
         std::ofstream(dir + "/IDENTITY") << "x";
         std::ofstream(dir + "/notes.txt") << "mine";
         Status s = Store::Open(dir).status();
         std::string notes;
         std::getline(std::ifstream(dir + "/notes.txt"), notes);
         if (std::distance(std::filesystem::directory_iterator(dir), {}) != 3 || notes != "mine") {
           return Status::Corruption("the directory was modified");
         }
         return s;
       }});
  c.push_back({"D15", "StoreBeingCreatedElsewhere", Code::kBusy,
               "is being created by another process", [](ErrorsTest& t) {
                 // A creator holds the marker's lock (flock locks of two open files conflict
                 // within one process too).
                 std::string dir = t.Sub("creating");
                 std::filesystem::create_directories(dir);
                 std::string marker = dir + "/" + engine::kCreationMarker;
                 int fd = ::open(marker.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
                 if (fd < 0 || ::flock(fd, LOCK_EX) != 0) return Status::Corruption("setup");
                 Status s = Store::Open(dir).status();
                 ::close(fd);
                 // Its creator gone, the next Open finishes the creation.
                 if (!Store::Open(dir).ok())
                   return Status::Corruption("the creation was not redone");
                 return s;
               }});
  c.push_back({"D16", "StoreOpenInThisProcess", Code::kBusy,
               "the store is already open in this process", [](ErrorsTest& t) {
                 // The fixture's own handles hold the store.
                 return Store::Open(t.store_path()).status();
               }});
  return c;
}

// Every case, kind by kind, in the order of docs/errors.md.
std::vector<Case> Catalogue() {
  std::vector<Case> all;
  for (std::vector<Case> (*kind)() :
       {KeyCases, PropertyCases, BatchCases, ETagCases, JsonCases, TypedTextCases, FilterCases,
        QueryShapeCases, TokenCases, StrategyCases, TableCases, StoreDirectoryCases,
        StoreFileCases}) {
    std::vector<Case> cases = kind();
    all.insert(all.end(), std::make_move_iterator(cases.begin()),
               std::make_move_iterator(cases.end()));
  }
  return all;
}

}  // namespace

const std::vector<Case>& AllCases() {
  static const std::vector<Case> cases = Catalogue();
  return cases;
}

}  // namespace partkv::errors
