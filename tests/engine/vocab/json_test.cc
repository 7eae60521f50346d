// Entity JSON: type inference and annotations, the three metadata levels, round trips of every
// type's edge values, and the error messages (each must name the property at fault).

#include "partkv/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/vocab/json_internal.h"
#include "tests/testing/status_matchers.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

// "(pk,rk){name=value,...}" in OData literal forms (5 is Int32, 5L Int64, 5.0 Double), or
// "ERROR: <message>", so expectations read like the format's documentation.
std::string Parse(std::string_view json, JsonReadOptions options = {}) {
  auto r = EntityFromJson(json, options);
  return r.ok() ? r->DebugString() : "ERROR: " + std::string(r.status().message());
}

// The message of a failed parse; fails the test when the parse succeeds or the code is wrong.
std::string Error(std::string_view json, JsonReadOptions options = {}) {
  auto r = EntityFromJson(json, options);
  if (r.ok()) {
    ADD_FAILURE() << "expected an error for " << json << ", got " << r->DebugString();
    return "";
  }
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  return std::string(r.status().message());
}

Guid TestGuid() { return *Guid::Parse("c9da6455-213d-42c9-9a79-3e9149a57833"); }
DateTime TestTime() { return *DateTime::Parse("2013-08-22T01:12:06.2608595Z"); }

// One property of each type, with a Timestamp and an ETag.
Entity AllTypes() {
  Entity e("p", "r");
  e.Set("bin", Value::Binary(std::string("\x00\x01\xfe", 3)));
  e.Set("bool", Value::Boolean(true));
  e.Set("dt", Value::DateTime(TestTime()));
  e.Set("dbl", Value::Double(1.5));
  e.Set("dint", Value::Double(3.0));
  e.Set("guid", Value::Guid(TestGuid()));
  e.Set("i32", Value::Int32(-7));
  e.Set("i64", Value::Int64(9007199254740993LL));
  e.Set("str", Value::String("s"));
  e.set_timestamp(*DateTime::Parse("2024-01-02T03:04:05.1234567Z"));
  e.set_etag("W/\"0x5B168C7B6E589D2\"");
  return e;
}

// Expects EntityFromJson(EntityToJson(e)) to have e's content at kMinimal and kFull.
void ExpectRoundTrip(const Entity& e) {
  for (JsonMetadata m : {JsonMetadata::kMinimal, JsonMetadata::kFull}) {
    std::string json = EntityToJson(e, {.metadata = m});
    auto back = EntityFromJson(json);
    ASSERT_OK(back) << "for " << json;
    EXPECT_TRUE(back->SameContent(e)) << "wrote " << json << "\nexpected " << e.DebugString()
                                      << "\nread    " << back->DebugString();
  }
}

Entity WithProperty(Value v) {
  Entity e("p", "r");
  e.Set("v", std::move(v));
  return e;
}

// Input typing ------------------------------------------------------------------------------

TEST(EntityFromJsonTest, UntypedValuesAreStringBooleanInt32OrDouble) {
  EXPECT_EQ(Parse(R"({"PartitionKey":"p","RowKey":"r","s":"x","b":false,"n":5,"d":1.5,)"
                  R"("e":2e3,"neg":-2147483648})"),
            "(p,r){b=false,d=1.5,e=2000.0,n=5,neg=-2147483648,s='x'}");
}

TEST(EntityFromJsonTest, Int64TravelsAsAnnotatedString) {
  EXPECT_EQ(Parse(R"({"big":"9007199254740993","big@odata.type":"Edm.Int64"})"),
            "(,){big=9007199254740993L}");
  EXPECT_EQ(Parse(R"({"m":"-9223372036854775808","m@odata.type":"Edm.Int64",)"
                  R"("x":"9223372036854775807","x@odata.type":"Edm.Int64"})"),
            "(,){m=-9223372036854775808L,x=9223372036854775807L}");
}

TEST(EntityFromJsonTest, AnnotationMayPrecedeOrFollowItsProperty) {
  EXPECT_EQ(Parse(R"({"a@odata.type":"Edm.Int64","a":"1","b":"2","b@odata.type":"Edm.Int64"})"),
            "(,){a=1L,b=2L}");
}

TEST(EntityFromJsonTest, Int64AcceptsJsonNumberOnlyWhenExactInteger) {
  EXPECT_EQ(Parse(R"({"a":5,"a@odata.type":"Edm.Int64"})"), "(,){a=5L}");
  EXPECT_EQ(Parse(R"({"a":5.0,"a@odata.type":"Edm.Int64"})"), "(,){a=5L}");
  EXPECT_EQ(Parse(R"({"a":-1.5e1,"a@odata.type":"Edm.Int64"})"), "(,){a=-15L}");
  // Exactness is decided on the digits: a double would round these to ...992.
  EXPECT_EQ(Parse(R"({"a":9007199254740993,"a@odata.type":"Edm.Int64"})"),
            "(,){a=9007199254740993L}");
  EXPECT_EQ(Parse(R"({"a":9007199254740993.0,"a@odata.type":"Edm.Int64"})"),
            "(,){a=9007199254740993L}");
  EXPECT_EQ(Error(R"({"big":1.5,"big@odata.type":"Edm.Int64"})"),
            "property 'big': Edm.Int64 value must be a decimal string, got number 1.5");
  EXPECT_EQ(Error(R"({"big":9007199254740993.5,"big@odata.type":"Edm.Int64"})"),
            "property 'big': Edm.Int64 value must be a decimal string, got number "
            "9007199254740993.5");
  EXPECT_EQ(Error(R"({"big":9223372036854775808,"big@odata.type":"Edm.Int64"})"),
            "property 'big': Edm.Int64 value is outside [-9223372036854775808, "
            "9223372036854775807], got number 9223372036854775808");
  EXPECT_EQ(Error(R"({"big":1e19,"big@odata.type":"Edm.Int64"})"),
            "property 'big': Edm.Int64 value is outside [-9223372036854775808, "
            "9223372036854775807], got number 1e19");
}

TEST(EntityFromJsonTest, Int64StringMustBeDecimalInRange) {
  for (const char* bad :
       {R"("")", R"("12a")", R"("+5")", R"(" 5")", R"("1.0")", R"("0x10")", "true"}) {
    std::string json = std::string(R"({"n@odata.type":"Edm.Int64","n":)") + bad + "}";
    EXPECT_EQ(Error(json).rfind("property 'n': Edm.Int64 value must be a decimal string, got ", 0),
              0u)
        << json;
  }
  EXPECT_EQ(Error(R"({"n@odata.type":"Edm.Int64","n":"-9223372036854775809"})"),
            "property 'n': Edm.Int64 value is outside [-9223372036854775808, "
            "9223372036854775807], got string \"-9223372036854775809\"");
}

TEST(EntityFromJsonTest, UnannotatedIntegerOutsideInt32Rejected) {
  EXPECT_EQ(Parse(R"({"a":2147483647,"b":-2147483648})"), "(,){a=2147483647,b=-2147483648}");
  EXPECT_EQ(Error(R"({"big":2147483648})"),
            "property 'big': integer 2147483648 is outside the Int32 range; send it as a decimal "
            "string with \"big@odata.type\":\"Edm.Int64\"");
  EXPECT_EQ(Error(R"({"big":-2147483649})"),
            "property 'big': integer -2147483649 is outside the Int32 range; send it as a "
            "decimal string with \"big@odata.type\":\"Edm.Int64\"");
  // Past uint64, nlohmann reports a double; it is still an integer literal.
  EXPECT_EQ(Error(R"({"big":99999999999999999999999})"),
            "property 'big': integer 99999999999999999999999 is outside the Int32 range; send it "
            "as a decimal string with \"big@odata.type\":\"Edm.Int64\"");
}

TEST(EntityFromJsonTest, Int32AnnotationAcceptsDecimalString) {
  EXPECT_EQ(Parse(R"({"a":"5","a@odata.type":"Edm.Int32","b":"-2147483648",)"
                  R"("b@odata.type":"Edm.Int32","c":7.0,"c@odata.type":"Edm.Int32"})"),
            "(,){a=5,b=-2147483648,c=7}");
  EXPECT_EQ(Error(R"({"a":"2147483648","a@odata.type":"Edm.Int32"})"),
            "property 'a': Edm.Int32 value is outside [-2147483648, 2147483647], got string "
            "\"2147483648\"");
  EXPECT_EQ(Error(R"({"a":"five","a@odata.type":"Edm.Int32"})"),
            "property 'a': Edm.Int32 value must be an integer, got string \"five\"");
  EXPECT_EQ(Error(R"({"a":0.5,"a@odata.type":"Edm.Int32"})"),
            "property 'a': Edm.Int32 value must be an integer, got number 0.5");
}

TEST(EntityFromJsonTest, DoubleAnnotationTurnsIntegerIntoDouble) {
  EXPECT_EQ(Parse(R"({"d":3,"d@odata.type":"Edm.Double"})"), "(,){d=3.0}");
  EXPECT_EQ(Parse(R"({"d":3.0})"), "(,){d=3.0}");
}

TEST(EntityFromJsonTest, DoubleSpecialValuesTravelAsAnnotatedStrings) {
  auto r =
      EntityFromJson(R"({"n":"NaN","n@odata.type":"Edm.Double","i":"Infinity",)"
                     R"("i@odata.type":"Edm.Double","m":"-Infinity","m@odata.type":"Edm.Double"})");
  ASSERT_OK(r);
  EXPECT_TRUE(std::isnan(r->Get("n")->as_double()));
  EXPECT_EQ(r->Get("i")->as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(r->Get("m")->as_double(), -std::numeric_limits<double>::infinity());
  // Without the annotation they are just strings.
  EXPECT_EQ(Parse(R"({"n":"NaN"})"), "(,){n='NaN'}");
  EXPECT_EQ(Error(R"({"d":"nan","d@odata.type":"Edm.Double"})"),
            "property 'd': Edm.Double value must be a number, or a string holding a decimal or "
            "scientific number or one of \"NaN\", \"Infinity\", \"-Infinity\", got string "
            "\"nan\"");
}

// The value of "d" read from {"d":"<text>","d@odata.type":"Edm.Double"}, as its bits' double.
double DoubleFromString(std::string_view text) {
  std::string doc = R"({"d":")" + std::string(text) + R"(","d@odata.type":"Edm.Double"})";
  auto r = EntityFromJson(doc);
  if (!r.ok()) {
    ADD_FAILURE() << doc << ": " << r.status().ToString();
    return std::nan("");
  }
  const Value* v = r->Get("d");
  EXPECT_TRUE(v != nullptr && v->type() == Type::kDouble) << r->DebugString();
  return v != nullptr && v->type() == Type::kDouble ? v->as_double() : std::nan("");
}

TEST(EntityFromJsonTest, DoubleAnnotationAcceptsNumbersWrittenAsStrings) {
  // Azure accepts an Edm.Double in a string in any decimal or scientific form; the Azure SDK for
  // JavaScript sends values such as "1.23456789012346e+24" that way.
  EXPECT_EQ(DoubleFromString("1.23456789012346e+24"), 1.23456789012346e+24);
  EXPECT_EQ(DoubleFromString("-1.5"), -1.5);
  EXPECT_EQ(DoubleFromString("+2"), 2.0);
  EXPECT_EQ(DoubleFromString("3."), 3.0);
  EXPECT_EQ(DoubleFromString(".25"), 0.25);
  EXPECT_EQ(DoubleFromString("1E-3"), 1e-3);
  EXPECT_EQ(DoubleFromString("0.1"), 0.1);  // correctly rounded, as a JSON number is
  EXPECT_EQ(DoubleFromString("5e-324"), 5e-324);
  EXPECT_EQ(DoubleFromString("1.7976931348623157e308"), 1.7976931348623157e308);
  // Below the smallest double: zero of the number's sign, as for a JSON number.
  EXPECT_EQ(DoubleFromString("1e-400"), 0.0);
  EXPECT_TRUE(std::signbit(DoubleFromString("-1e-400")));
  EXPECT_TRUE(std::signbit(DoubleFromString("-0")));
  // The same value as the JSON number.
  EXPECT_EQ(Parse(R"({"a":"12.5","a@odata.type":"Edm.Double","b":12.5})"), "(,){a=12.5,b=12.5}");
}

TEST(EntityFromJsonTest, DoubleStringThatIsNoNumberRejectedNamingProperty) {
  for (const char* text : {"", " 1", "1 ", "abc", "1e", "e5", ".", "-", "1.2.3", "--1", "0x10",
                           "inf", "nan", "Inf", "+Infinity", "1,5", "1_000"}) {
    EXPECT_EQ(Error(R"({"d":")" + std::string(text) + R"(","d@odata.type":"Edm.Double"})"),
              "property 'd': Edm.Double value must be a number, or a string holding a decimal "
              "or scientific number or one of \"NaN\", \"Infinity\", \"-Infinity\", got "
              "string \"" +
                  std::string(text) + "\"")
        << text;
  }
  EXPECT_EQ(Error(R"({"d":"1e400","d@odata.type":"Edm.Double"})"),
            "property 'd': Edm.Double value is outside the range of a double, got string "
            "\"1e400\"");
  EXPECT_EQ(Error(R"({"d":"-2e308","d@odata.type":"Edm.Double"})"),
            "property 'd': Edm.Double value is outside the range of a double, got string "
            "\"-2e308\"");
}

TEST(EntityFromJsonTest, AnnotatedTypesParseTheirTextForms) {
  EXPECT_EQ(Parse(R"({"t":"2013-08-22T01:12:06.2608595Z","t@odata.type":"Edm.DateTime",)"
                  R"("g@odata.type":"Edm.Guid","g":"C9DA6455-213D-42C9-9A79-3E9149A57833",)"
                  R"("b":"AAH+","b@odata.type":"Edm.Binary","s":"5","s@odata.type":"Edm.String",)"
                  R"("f":true,"f@odata.type":"Edm.Boolean"})"),
            "(,){b=X'0001fe',f=true,g=guid'c9da6455-213d-42c9-9a79-3e9149a57833',s='5',"
            "t=datetime'2013-08-22T01:12:06.2608595Z'}");
}

// What the Azure SDKs send back after reading without type conversion: the Boolean as a string.
TEST(EntityFromJsonTest, AnnotatedBooleanMayBeAStringInAnyCase) {
  EXPECT_EQ(Parse(R"({"a":"true","a@odata.type":"Edm.Boolean","b@odata.type":"Edm.Boolean",)"
                  R"("b":"False","c":"TRUE","c@odata.type":"Edm.Boolean"})"),
            "(,){a=true,b=false,c=true}");
}

TEST(EntityFromJsonTest, ValueNotMatchingItsAnnotationNamesProperty) {
  EXPECT_EQ(Error(R"({"s":5,"s@odata.type":"Edm.String"})"),
            "property 's': Edm.String value must be a string, got number 5");
  EXPECT_EQ(Error(R"({"f":"yes","f@odata.type":"Edm.Boolean"})"),
            "property 'f': Edm.Boolean value must be true or false (or the string \"true\" or "
            "\"false\"), got string \"yes\"");
  EXPECT_EQ(Error(R"({"f":1,"f@odata.type":"Edm.Boolean"})"),
            "property 'f': Edm.Boolean value must be true or false (or the string \"true\" or "
            "\"false\"), got number 1");
  EXPECT_EQ(Error(R"({"t":"yesterday","t@odata.type":"Edm.DateTime"})"),
            "property 't': invalid DateTime 'yesterday': malformed date (expected "
            "YYYY-MM-DDTHH:MM:SS[.fffffff]Z)");
  EXPECT_EQ(Error(R"({"t":0,"t@odata.type":"Edm.DateTime"})"),
            "property 't': Edm.DateTime value must be an ISO 8601 string, got number 0");
  EXPECT_EQ(Error(R"({"g":"not-a-guid","g@odata.type":"Edm.Guid"})"),
            "property 'g': invalid Guid 'not-a-guid' (expected "
            "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
  EXPECT_EQ(Error(R"({"b":"AA*=","b@odata.type":"Edm.Binary"})"),
            "property 'b': invalid base64: invalid character at offset 2");
  EXPECT_EQ(Error(R"({"b":false,"b@odata.type":"Edm.Binary"})"),
            "property 'b': Edm.Binary value must be a base64 string, got false");
}

TEST(EntityFromJsonTest, LongValueInMessageIsCutAtCharacterBoundary) {
  std::string long_text;
  for (int i = 0; i < 100; ++i) long_text += "\xc3\xa9";  // é
  std::string msg = Error(R"({"n@odata.type":"Edm.Int64","n":")" + long_text + "\"}");
  ASSERT_NE(msg.find("...", msg.size() - 3), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 150u);
  size_t leads = 0, continuations = 0;
  for (unsigned char c : msg) {
    leads += c == 0xc3;
    continuations += c == 0xa9;
  }
  EXPECT_EQ(leads, continuations) << "a multi-byte character was split: " << msg;
}

TEST(EntityFromJsonTest, NullPropertyIsOmitted) {
  EXPECT_EQ(Parse(R"({"PartitionKey":"p","RowKey":"r","a":null,"b":1})"), "(p,r){b=1}");
  // An annotation on a null property is not an orphan.
  EXPECT_EQ(Parse(R"({"a":null,"a@odata.type":"Edm.Int64"})"), "(,){}");
}

TEST(EntityFromJsonTest, KeysMayBeAbsentUnlessRequired) {
  EXPECT_EQ(Parse(R"({"a":1})"), "(,){a=1}");
  EXPECT_EQ(Parse(R"({"PartitionKey":"","RowKey":""})", {.require_keys = true}), "(,){}");
  EXPECT_EQ(Error(R"({"RowKey":"r"})", {.require_keys = true}), "property 'PartitionKey': missing");
  EXPECT_EQ(Error(R"({"PartitionKey":"p"})", {.require_keys = true}), "property 'RowKey': missing");
}

TEST(EntityFromJsonTest, KeysMustBeStrings) {
  EXPECT_EQ(Error(R"({"PartitionKey":5,"RowKey":"r"})"),
            "property 'PartitionKey': keys must be strings, got number 5");
  EXPECT_EQ(Error(R"({"PartitionKey":"p","RowKey":null})"),
            "property 'RowKey': keys must be strings, got null");
  EXPECT_EQ(Parse(R"({"RowKey":"r","RowKey@odata.type":"Edm.String"})"), "(,r){}");
  EXPECT_EQ(Error(R"({"RowKey":"5","RowKey@odata.type":"Edm.Int64"})"),
            "property 'RowKey': annotated Edm.Int64, but keys are always Edm.String");
}

TEST(EntityFromJsonTest, SystemAndODataMembersIgnored) {
  EXPECT_EQ(
      Parse(R"({"odata.metadata":"https://a/$metadata#t/@Element","odata.type":"a.t",)"
            R"j("odata.id":"https://a/t(PartitionKey='p',RowKey='r')","odata.etag":"W/\"1\"",)j"
            R"j("odata.editLink":"t(PartitionKey='p',RowKey='r')","PartitionKey":"p",)j"
            R"("RowKey":"r","Timestamp@odata.type":"Edm.DateTime",)"
            R"("Timestamp":"2013-08-22T01:12:06.2608595Z","x":1})"),
      "(p,r){x=1}");
  // Ignored whatever their form.
  EXPECT_EQ(Parse(R"({"Timestamp":5,"odata.etag":null})"), "(,){}");
}

// Input errors ------------------------------------------------------------------------------

TEST(EntityFromJsonTest, DuplicatePropertyRejected) {
  EXPECT_EQ(Error(R"({"a":1,"b":2,"a":1})"), "property 'a': appears more than once");
  EXPECT_EQ(Error(R"({"PartitionKey":"p","PartitionKey":"q"})"),
            "property 'PartitionKey': appears more than once");
  EXPECT_EQ(Error(R"({"a":"1","a@odata.type":"Edm.Int64","a@odata.type":"Edm.Int32"})"),
            "property 'a@odata.type': appears more than once");
}

TEST(EntityFromJsonTest, NestedValueRejectedNamingProperty) {
  EXPECT_EQ(Error(R"({"a":1,"obj":{"x":1}})"),
            "property 'obj': value is an object; property values must be strings, numbers, "
            "booleans or null");
  EXPECT_EQ(Error(R"({"arr":[1,2]})"),
            "property 'arr': value is an array; property values must be strings, numbers, "
            "booleans or null");
  // Deep nesting stops at the first level instead of recursing.
  EXPECT_EQ(Error(R"({"deep":)" + std::string(100000, '['))
                .rfind("property 'deep': value is an "
                       "array",
                       0),
            0u);
}

TEST(EntityFromJsonTest, UnknownEdmTypeRejectedNamingIt) {
  EXPECT_EQ(Error(R"({"x":1,"x@odata.type":"Edm.Decimal"})"),
            "property 'x': unknown type \"Edm.Decimal\" in x@odata.type (expected Edm.String, "
            "Edm.Binary, Edm.Boolean, Edm.DateTime, Edm.Double, Edm.Guid, Edm.Int32 or "
            "Edm.Int64)");
  // Type names are case-sensitive, as in OData.
  EXPECT_NE(Error(R"({"x":"1","x@odata.type":"edm.int64"})").find("unknown type \"edm.int64\""),
            std::string::npos);
  EXPECT_EQ(Error(R"({"x":"1","x@odata.type":64})"),
            "property 'x': annotation x@odata.type must be a string such as \"Edm.Int64\", got "
            "number 64");
}

TEST(EntityFromJsonTest, AnnotationWithoutPropertyRejected) {
  EXPECT_EQ(Error(R"({"PartitionKey":"p","x@odata.type":"Edm.Int64"})"),
            "property 'x': annotation x@odata.type has no property x");
}

TEST(EntityFromJsonTest, InvalidUtf8RejectedNamingProperty) {
  // Byte numbers count from 1, as nlohmann reports them: 0xFF is the 9th byte.
  std::string msg = Error("{\"s\":\"ab\xff\"}");
  EXPECT_EQ(msg.rfind("property 's': invalid JSON at byte 9: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("ill-formed UTF-8"), std::string::npos) << msg;
  // The message quotes the bad byte escaped, so it is itself valid UTF-8.
  EXPECT_EQ(msg.find('\xff'), std::string::npos) << msg;
  EXPECT_NE(msg.find("\\xFF"), std::string::npos) << msg;
  // Overlong encoding and an unpaired surrogate escape.
  EXPECT_NE(Error("{\"s\":\"\xc0\xaf\"}").find("ill-formed UTF-8"), std::string::npos);
  EXPECT_NE(Error(R"({"s":"\ud800"})").find("property 's': invalid JSON"), std::string::npos);
  // In a name there is no property to name yet, only the position.
  EXPECT_EQ(Error("{\"\xfe\":1}").rfind("invalid JSON at byte 3: ", 0), 0u);
}

TEST(EntityFromJsonTest, MalformedJsonReportsBytePosition) {
  EXPECT_EQ(Error(R"({"a":1,})"),
            "invalid JSON at byte 8: syntax error while parsing object key - unexpected '}'; "
            "expected string literal");
  EXPECT_EQ(Error(R"({"a":1} x)").rfind("invalid JSON at byte 9: ", 0), 0u);
  EXPECT_EQ(Error("").rfind("invalid JSON at byte 1: ", 0), 0u);
  EXPECT_EQ(Error(R"({"a":1e400})"),
            "property 'a': invalid JSON at byte 10: number overflow "
            "parsing '1e400'");
}

TEST(EntityFromJsonTest, NonObjectDocumentRejected) {
  EXPECT_EQ(Error("[]"), "entity JSON must be an object, got an array");
  EXPECT_EQ(Error("5"), "entity JSON must be an object, got number 5");
  EXPECT_EQ(Error(R"("x")"), "entity JSON must be an object, got string \"x\"");
}

// Output ------------------------------------------------------------------------------------

TEST(EntityToJsonTest, MinimalMetadataAnnotatesOnlyAmbiguousTypes) {
  EXPECT_EQ(EntityToJson(AllTypes()),
            R"({"odata.etag":"W/\"0x5B168C7B6E589D2\"","PartitionKey":"p","RowKey":"r",)"
            R"("Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-01-02T03:04:05.1234567Z",)"
            R"("bin@odata.type":"Edm.Binary","bin":"AAH+","bool":true,"dbl":1.5,)"
            R"("dint@odata.type":"Edm.Double","dint":3.0,)"
            R"("dt@odata.type":"Edm.DateTime","dt":"2013-08-22T01:12:06.2608595Z",)"
            R"("guid@odata.type":"Edm.Guid","guid":"c9da6455-213d-42c9-9a79-3e9149a57833",)"
            R"("i32":-7,"i64@odata.type":"Edm.Int64","i64":"9007199254740993","str":"s"})");
}

TEST(EntityToJsonTest, FullMetadataAnnotatesEveryNonStringProperty) {
  EXPECT_EQ(EntityToJson(AllTypes(), {.metadata = JsonMetadata::kFull}),
            R"({"odata.etag":"W/\"0x5B168C7B6E589D2\"","PartitionKey":"p","RowKey":"r",)"
            R"("Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-01-02T03:04:05.1234567Z",)"
            R"("bin@odata.type":"Edm.Binary","bin":"AAH+",)"
            R"("bool@odata.type":"Edm.Boolean","bool":true,)"
            R"("dbl@odata.type":"Edm.Double","dbl":1.5,)"
            R"("dint@odata.type":"Edm.Double","dint":3.0,)"
            R"("dt@odata.type":"Edm.DateTime","dt":"2013-08-22T01:12:06.2608595Z",)"
            R"("guid@odata.type":"Edm.Guid","guid":"c9da6455-213d-42c9-9a79-3e9149a57833",)"
            R"("i32@odata.type":"Edm.Int32","i32":-7,)"
            R"("i64@odata.type":"Edm.Int64","i64":"9007199254740993","str":"s"})");
}

TEST(EntityToJsonTest, DateTimePropertyWrittenAsAzureReturnsIt) {
  // Azure returns a DateTime property without the fraction's trailing zeros, and a whole second
  // without a fraction; Timestamp always with 7 digits (docs/json.md "Output rules").
  auto json_of = [](std::string_view text) {
    Entity e = WithProperty(Value::DateTime(*DateTime::Parse(text)));
    e.set_timestamp(*DateTime::Parse("2024-01-02T03:04:05Z"));
    return EntityToJson(e, {.metadata = JsonMetadata::kNone});
  };
  const std::string kSystem =
      R"({"PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.0000000Z","v":)";
  EXPECT_EQ(json_of("2020-09-17T00:00:00.99999Z"), kSystem + R"("2020-09-17T00:00:00.99999Z"})");
  EXPECT_EQ(json_of("2020-09-17T00:00:00Z"), kSystem + R"("2020-09-17T00:00:00Z"})");
  EXPECT_EQ(json_of("2020-09-17T00:00:00.0000000Z"), kSystem + R"("2020-09-17T00:00:00Z"})");
  EXPECT_EQ(json_of("2020-09-17T00:00:00.1000000Z"), kSystem + R"("2020-09-17T00:00:00.1Z"})");
  EXPECT_EQ(json_of("2013-08-22T01:12:06.2608595Z"),
            kSystem + R"("2013-08-22T01:12:06.2608595Z"})");
  EXPECT_EQ(json_of("2020-09-17T00:00:00.0000001Z"),
            kSystem + R"("2020-09-17T00:00:00.0000001Z"})");
  EXPECT_EQ(json_of("0001-01-01T00:00:00Z"), kSystem + R"("0001-01-01T00:00:00Z"})");
  EXPECT_EQ(json_of("9999-12-31T23:59:59.9999999Z"),
            kSystem + R"("9999-12-31T23:59:59.9999999Z"})");
}

TEST(EntityToJsonTest, NoMetadataWritesNoAnnotationsNorEtag) {
  EXPECT_EQ(EntityToJson(AllTypes(), {.metadata = JsonMetadata::kNone}),
            R"({"PartitionKey":"p","RowKey":"r","Timestamp":"2024-01-02T03:04:05.1234567Z",)"
            R"("bin":"AAH+","bool":true,"dbl":1.5,"dint":3.0,)"
            R"("dt":"2013-08-22T01:12:06.2608595Z","guid":"c9da6455-213d-42c9-9a79-3e9149a57833",)"
            R"("i32":-7,"i64":"9007199254740993","str":"s"})");
}

TEST(EntityToJsonTest, SystemPropertiesOnlyWhenIncludedAndSet) {
  Entity e = AllTypes();
  for (JsonMetadata m : {JsonMetadata::kNone, JsonMetadata::kMinimal, JsonMetadata::kFull}) {
    std::string json = EntityToJson(e, {.metadata = m, .include_system = false});
    EXPECT_EQ(json.find("Timestamp"), std::string::npos) << json;
    EXPECT_EQ(json.find("odata.etag"), std::string::npos) << json;
  }
  e.set_timestamp(DateTime{0});
  e.set_etag("");
  e.ClearProperties();
  EXPECT_EQ(EntityToJson(e, {.metadata = JsonMetadata::kFull}),
            R"({"PartitionKey":"p","RowKey":"r"})");
}

TEST(EntityToJsonTest, DoubleAlwaysHasDecimalPointOrExponent) {
  auto json_of = [](double d) {
    std::string json =
        EntityToJson(WithProperty(Value::Double(d)), {.metadata = JsonMetadata::kNone});
    return json.substr(json.find("\"v\":") + 4, json.size() - json.find("\"v\":") - 5);
  };
  EXPECT_EQ(json_of(3.0), "3.0");
  EXPECT_EQ(json_of(-0.0), "-0.0");
  EXPECT_EQ(json_of(0.1), "0.1");
  EXPECT_EQ(json_of(1e308), "1e+308");
  EXPECT_EQ(json_of(5e-324), "5e-324");
  EXPECT_EQ(json_of(123456789.0), "123456789.0");
  EXPECT_EQ(json_of(std::nan("")), "\"NaN\"");
  EXPECT_EQ(json_of(-std::numeric_limits<double>::infinity()), "\"-Infinity\"");
}

TEST(EntityToJsonTest, OutputIsCompactSingleLineUtf8) {
  Entity e("Zürich", "東京");
  e.Set("s", Value::String("line1\nline2\t\"q\"\\ \x01 é"));
  EXPECT_EQ(EntityToJson(e),
            "{\"PartitionKey\":\"Zürich\",\"RowKey\":\"東京\","
            "\"s\":\"line1\\nline2\\t\\\"q\\\"\\\\ \\u0001 é\"}");
}

TEST(EntityToJsonTest, InvalidUtf8InEntityWrittenAsReplacementCharacter) {
  std::string json =
      EntityToJson(WithProperty(Value::String("a\xff"
                                              "b")));
  EXPECT_EQ(json,
            "{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"v\":\"a\xef\xbf\xbd"
            "b\"}");
  EXPECT_OK(EntityFromJson(json));
}

// Round trips -------------------------------------------------------------------------------

TEST(EntityJsonRoundTripTest, AllTypesRoundTrip) { ExpectRoundTrip(AllTypes()); }

TEST(EntityJsonRoundTripTest, TypeEdgeValuesRoundTrip) {
  std::vector<Value> values = {
      Value::String(""),
      Value::String("Zürich-東京 \"quoted\" \\ \x7f 😀"),
      Value::String("9007199254740993"),  // a String that looks like an Int64 stays a String
      Value::String("NaN"),
      Value::Binary(""),
      Value::Boolean(false),
      Value::Int32(std::numeric_limits<int32_t>::min()),
      Value::Int32(std::numeric_limits<int32_t>::max()),
      Value::Int32(0),
      Value::Int64(std::numeric_limits<int64_t>::min()),
      Value::Int64(std::numeric_limits<int64_t>::max()),
      Value::Int64(0),
      Value::DateTime(DateTime{0}),  // 0001-01-01T00:00:00.0000000Z
      Value::DateTime(DateTime{DateTime::kMaxTicks}),
      Value::DateTime(DateTime{DateTime::kMinAzureTicks + 1}),
      Value::Guid(Guid{}),
      Value::Guid(TestGuid()),
  };
  for (double d :
       {0.1, -0.0, 0.0, 1e308, -1e308, 5e-324, 2.2250738585072014e-308, 3.0, -3.0, 1e16,
        9007199254740993.0, 123456789012345680000.0, std::numeric_limits<double>::max(),
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    values.push_back(Value::Double(d));
  }
  for (const Value& v : values) {
    SCOPED_TRACE(v.DebugString());
    ExpectRoundTrip(WithProperty(v));
  }
}

TEST(EntityJsonRoundTripTest, BinaryWithEveryByteValueRoundTrips) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  ExpectRoundTrip(WithProperty(Value::Binary(bytes)));
}

TEST(EntityJsonRoundTripTest, NonAsciiKeysAndNamesRoundTrip) {
  Entity e("Zürich-東京", "Ωmega 😀");
  e.Set("Größe", Value::Int64(1));
  e.Set("名前", Value::String("値"));
  ExpectRoundTrip(e);
  ExpectRoundTrip(Entity("", ""));
}

TEST(EntityJsonRoundTripTest, RandomDoublesRoundTripBitExact) {
  std::mt19937_64 rng(20240102);
  Entity e("p", "r");
  for (int i = 0; i < 2000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d)) continue;  // NaN payloads are not kept (documented)
    e.Set("d" + std::to_string(i), Value::Double(d));
  }
  ExpectRoundTrip(e);
}

}  // namespace
}  // namespace partkv

namespace partkv {
namespace {

// JsonNeedsAnnotation says exactly where EntityToJson writes an annotation, at every level.
TEST(JsonNeedsAnnotationTest, MatchesTheWriter) {
  Guid g;
  g.bytes.fill(7);
  const std::vector<Value> values = {
      Value::String("s"),
      Value::Boolean(true),
      Value::Int32(1),
      Value::Int64(1),
      Value::Double(1.0),
      Value::Double(1.5),
      Value::Double(std::numeric_limits<double>::infinity()),
      Value::DateTime(DateTime{637000000000000000LL}),
      Value::Guid(g),
      Value::Binary("b"),
  };
  for (JsonMetadata m : {JsonMetadata::kNone, JsonMetadata::kMinimal, JsonMetadata::kFull}) {
    for (const Value& v : values) {
      Entity e("p", "r");
      e.Set("x", v);
      JsonWriteOptions o;
      o.metadata = m;
      o.include_system = false;
      const bool written = EntityToJson(e, o).find("x@odata.type") != std::string::npos;
      EXPECT_EQ(JsonNeedsAnnotation(v, m), written)
          << v.DebugString() << " at level " << static_cast<int>(m);
    }
  }
  EXPECT_FALSE(JsonNeedsAnnotation(Value::Int32(1), JsonMetadata::kMinimal));
  EXPECT_TRUE(JsonNeedsAnnotation(Value::Int64(1), JsonMetadata::kMinimal));
  EXPECT_TRUE(JsonNeedsAnnotation(Value::Int32(1), JsonMetadata::kFull));
}

// A finite Double carries Edm.Double in minimal metadata only when its shortest digits would read
// as an integer, as Azure answers: 1.23456789012346e+24 comes back unannotated (a recorded
// response of the Azure SDK for JavaScript's tests), 12.0 annotated.
TEST(JsonNeedsAnnotationTest, DoubleOnlyWhenItsDigitsReadAsAnInteger) {
  const auto minimal = [](double d) {
    return JsonNeedsAnnotation(Value::Double(d), JsonMetadata::kMinimal);
  };
  EXPECT_TRUE(minimal(12.0));
  EXPECT_TRUE(minimal(-0.0));
  EXPECT_TRUE(minimal(123456789.0));
  EXPECT_TRUE(minimal(std::nan("")));
  EXPECT_FALSE(minimal(12.5));
  EXPECT_FALSE(minimal(1.23456789012346e+24));
  EXPECT_FALSE(minimal(1e308));
  EXPECT_FALSE(minimal(5e-324));
  EXPECT_EQ(EntityToJson(WithProperty(Value::Double(1.23456789012346e+24)),
                         {.metadata = JsonMetadata::kMinimal, .include_system = false}),
            R"({"PartitionKey":"p","RowKey":"r","v":1.23456789012346e+24})");
}

// The writer escapes well-formed UTF-8 itself and leaves the rest to nlohmann: its output must be
// nlohmann's for every string, the control characters, quotes, backslashes, DEL, every UTF-8
// length and every kind of malformed sequence (overlong, surrogate, past U+10FFFF, truncated,
// stray continuation bytes) included.
TEST(EntityToJsonTest, StringEscapingIsNlohmannsForEveryString) {
  auto nlohmann_quoted = [](std::string_view s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  // A table of strings, several to a line.
  // clang-format off
  std::vector<std::string> fixed = {
      "", "plain", "q\"uote", "back\\slash", std::string("nul\0in", 6), "\b\f\n\r\t", "\x01\x1f\x7f",
      "Z\xc3\xbcrich", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
      "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82", "\x80", "a\xff" "b", "\xc3", "\xf0\x9f\x98"};
  // clang-format on
  for (const std::string& s : fixed) {
    EXPECT_EQ(json_internal::QuoteJson(s), nlohmann_quoted(s)) << ::testing::PrintToString(s);
  }
  std::mt19937_64 random(20261203);
  // Bytes drawn mostly from the interesting ones, so that short valid and invalid sequences of
  // every kind come up often.
  const std::string interesting(
      "\x00\x01\x08\x09\x0a\x0c\x0d\x1f\x20\x22\x5c\x41\x7f\x80\xbf"
      "\xc0\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff",
      25);
  for (int i = 0; i < 200000; ++i) {
    std::string s(random() % 12, '\0');
    for (char& c : s) {
      c = random() % 4 == 0 ? static_cast<char>(random() % 256)
                            : interesting[random() % interesting.size()];
    }
    std::string quoted = json_internal::QuoteJson(s);
    ASSERT_EQ(quoted, nlohmann_quoted(s)) << ::testing::PrintToString(s);
    // The entity writer appends through the same code.
    std::string appended = "x";
    json_internal::AppendQuotedJson(appended, s);
    ASSERT_EQ(appended, "x" + quoted);
  }
}

}  // namespace
}  // namespace partkv
