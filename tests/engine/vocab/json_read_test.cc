// EntityFromJson's two readers (engine/vocab/json_internal.h) against each other: whatever the fast
// reader accepts, the exact reader accepts with the same content; whatever the exact reader
// rejects, the fast reader declines; the plain shapes of bulk data take the fast path; and
// EntityFromJson gives the exact reader's answer, message and all, either way.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "engine/vocab/json_internal.h"
#include "partkv/json.h"
#include "tests/testing/status_matchers.h"

namespace partkv::json_internal {
namespace {

using ::partkv::testing::IsOk;
using ::testing::Not;

// Checks one document; returns whether the fast reader took it.
bool Agrees(std::string_view json, JsonReadOptions options = {}) {
  std::optional<Entity> fast = FastEntityFromJson(json, options);
  Result<Entity> exact = ExactEntityFromJson(json, options);
  Result<Entity> library = EntityFromJson(json, options);
  EXPECT_EQ(library.ok(), exact.ok()) << json;
  if (library.ok() && exact.ok()) EXPECT_TRUE(library->SameContent(*exact)) << json;
  if (!library.ok() && !exact.ok()) EXPECT_EQ(library.status().message(), exact.status().message());
  if (!fast) return false;
  EXPECT_OK(exact) << "the fast reader accepted what the exact one rejects: " << json;
  if (exact.ok()) {
    EXPECT_TRUE(fast->SameContent(*exact))
        << json << "\n fast:  " << fast->DebugString() << "\n exact: " << exact->DebugString();
  }
  return true;
}

TEST(JsonReadTest, PlainShapesTakeTheFastPathWithTheExactContent) {
  const char* const docs[] = {
      R"({"PartitionKey":"p","RowKey":"r"})",
      R"({"PartitionKey":"p","RowKey":"r","s":"text","b":true,"i":-5,"d":1.5,"e":1e10,"z":-0.0})",
      R"({"RowKey":"r","PartitionKey":"p","i64":"9007199254740993","i64@odata.type":"Edm.Int64"})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Int64","x":-9223372036854775808})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Int32","x":"-2147483648"})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":3})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":-0})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":123456789012345678})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":"1.23456789012346e+24"})",
      R"({"PartitionKey":"p","RowKey":"r","x":"NaN","x@odata.type":"Edm.Double","y":"-Infinity","y@odata.type":"Edm.Double"})",
      R"({"PartitionKey":"p","RowKey":"r","x":"+.5","x@odata.type":"Edm.Double","y":"-1e-400","y@odata.type":"Edm.Double"})",
      R"({"PartitionKey":"p","RowKey":"r","t@odata.type":"Edm.DateTime","t":"2013-08-22T01:12:06.2608595Z"})",
      R"({"PartitionKey":"p","RowKey":"r","t@odata.type":"Edm.DateTime","t":"2013-08-22T01:12:06+00:00"})",
      R"({"PartitionKey":"p","RowKey":"r","g@odata.type":"Edm.Guid","g":"{C9DA6455-213D-42C9-9A79-3E9149A57833}"})",
      R"({"PartitionKey":"p","RowKey":"r","bin@odata.type":"Edm.Binary","bin":"AAH+/w=="})",
      R"({"PartitionKey":"p","RowKey":"r","s@odata.type":"Edm.String","s":"x","f@odata.type":"Edm.Boolean","f":false})",
      R"({"PartitionKey":"Zürich","RowKey":"\u65e5\u672c\ud83d\ude00","n\u00e9":"\"\\\/\b\f\n\r\t"})",
      R"({"odata.etag":"W/\"1\"","PartitionKey":"p","RowKey":"r","Timestamp@odata.type":"Edm.DateTime","Timestamp":"x","odata.metadata":"m"})",
      R"({"PartitionKey":"p","RowKey":"r","gone":null,"gone@odata.type":"Edm.Int64"})",
      " \n{ \"PartitionKey\" : \"p\" , \"RowKey\" : \"r\" , \"n\" : 7 }\n ",
      R"({"PartitionKey":"p","RowKey":"r","Big":2147483647,"Small":-2147483648,"Tiny":5e-324,"Huge":1.7976931348623157e308})",
      R"({"PartitionKey":"p","RowKey":"r","z":1,"a":2,"m@odata.type":"Edm.Int64","m":"3","b":"4"})",
      R"({"PartitionKey":"p","RowKey":"r","Timestamp@odata.type":"Edm.Int32","odata":1,"odatax":2})",
  };
  for (const char* doc : docs) {
    bool fast = Agrees(doc);
    if (HaveFastReader()) EXPECT_TRUE(fast) << "declined: " << doc;
  }
  bool fast = Agrees(R"({"n":1})");  // keys are optional unless required
  if (HaveFastReader()) EXPECT_TRUE(fast);
}

TEST(JsonReadTest, EverythingTheExactReaderRejectsIsDeclined) {
  // A table of cases, several to a line.
  // clang-format off
  const char* const docs[] = {
      "", "   ", "[]", "5", "\"s\"", "null", "{", R"({"a":1)", R"({"a":1}})", R"({"a":1} {})",
      R"({"a":1}x)", R"({"a":1,})", R"({a:1})", R"({"a":tru})", R"({"a":01})", R"({"a":1.})",
      R"({"a":-})", R"({"a":1e400})", R"({"a":{"b":1}})", R"({"a":[1]})", R"({"a":1,"a":2})",
      R"({"a":1,"b":2,"a":null})", R"({"Timestamp":1,"Timestamp":2})",
      R"({"odata.etag":"x","odata.etag":"y"})", R"({"a":1,"a@odata.type":"Edm.Int32","a@odata.type":"Edm.Int32"})",
      R"({"PartitionKey":"p","PartitionKey":"q"})", R"({"a":3000000000})",
      R"({"a":9223372036854775808})", R"({"a":99999999999999999999999})",
      R"({"a@odata.type":"Edm.Int64"})", R"({"a":1,"a@odata.type":"Edm.Decimal"})",
      R"({"a":1,"a@odata.type":5})", R"({"a":"1.5","a@odata.type":"Edm.Int32"})",
      R"({"a":2147483648,"a@odata.type":"Edm.Int32"})", R"({"a":"x","a@odata.type":"Edm.Int64"})",
      R"({"a":"-9223372036854775809","a@odata.type":"Edm.Int64"})",
      R"({"a":"nan","a@odata.type":"Edm.Double"})", R"({"a":"yes","a@odata.type":"Edm.Boolean"})",
      R"({"a":"1e400","a@odata.type":"Edm.Double"})", R"({"a":" 1","a@odata.type":"Edm.Double"})",
      R"({"a":"0x1p3","a@odata.type":"Edm.Double"})", R"({"a":"","a@odata.type":"Edm.Double"})",
      R"({"a":"Inf","a@odata.type":"Edm.Double"})", R"({"a":"1e","a@odata.type":"Edm.Double"})",
      R"({"a":5,"a@odata.type":"Edm.String"})", R"({"a":"2013-13-01","a@odata.type":"Edm.DateTime"})",
      R"({"a":0,"a@odata.type":"Edm.DateTime"})", R"({"a":"nope","a@odata.type":"Edm.Guid"})",
      R"({"a":"A=A","a@odata.type":"Edm.Binary"})", R"({"PartitionKey":5,"RowKey":"r"})",
      R"({"PartitionKey":null,"RowKey":"r"})", R"({"PartitionKey":"p","PartitionKey@odata.type":"Edm.Int64"})",
      "{\"a\":\"\xff\"}", "{\"a\xc3\":1}", R"({"a":"\ud83d"})", R"({"a":"\x"})",
      "{\"a\":\"tab\there\"}",
  };
  // clang-format on
  for (const char* doc : docs) {
    EXPECT_FALSE(FastEntityFromJson(doc, {}).has_value()) << "accepted: " << doc;
    EXPECT_THAT(ExactEntityFromJson(doc, {}), Not(IsOk())) << "the exact reader accepts: " << doc;
    Agrees(doc);
  }
  EXPECT_FALSE(FastEntityFromJson(R"({"RowKey":"r"})", {.require_keys = true}).has_value());
  EXPECT_FALSE(Agrees(R"({"RowKey":"r"})", {.require_keys = true}));
  Result<Entity> r = EntityFromJson(R"({"a":1,"a":2})");
  ASSERT_THAT(r, Not(IsOk()));
  EXPECT_EQ(r.status().message(), "property 'a': appears more than once");  // the exact words
}

TEST(JsonReadTest, UnusualButValidFormsGetTheExactAnswer) {
  // Declining is allowed; disagreeing is not.
  const char* const docs[] = {
      R"({"a":5.0,"a@odata.type":"Edm.Int32"})",
      R"({"a":"NaN","a@odata.type":"Edm.Double"})",
      R"({"a":"Infinity","a@odata.type":"Edm.Double"})",
      R"({"a":5e0,"a@odata.type":"Edm.Int64"})",
      R"({"PartitionKey":"p","PartitionKey@odata.type":"Edm.String"})",
      R"({"x@y":1})",
      R"({"odata.other":1})",
      R"({"Timestamp@odata.type":"Edm.Int32"})",
      R"({"a":18446744073709551615,"a@odata.type":"Edm.Double"})",
  };
  for (const char* doc : docs) Agrees(doc);
}

TEST(JsonReadTest, NumberLiteralsReadAsTheExactReaderReadsThem) {
  // Doubles are correctly rounded from their digits; integers are exact.
  // A table of cases, several to a line.
  // clang-format off
  const char* const numbers[] = {
      "0",  "-0", "7", "-2147483648", "2147483647", "-9223372036854775808", "9223372036854775807",
      "0.0", "-0.0", "1E5", "1e+5", "1e-5", "-0.0e-0", "0.1e1", "5e-324", "2.2250738585072011e-308",
      "1.7976931348623157e308", "-5188762146151729152.0", "564167527883296960.0",
      "123456789012345678901234567890.5", "9007199254740993.0", "0.30000000000000004",
      "4.9406564584124654e-324", "1.0000000000000002", "12345678901234567890e-10",
      // More than 19 significant digits (simdjson 3.0 alone misreads the first as 3.8e-05).
      "0.53333333333333333333333", "0.12345678901234567890123", "-0.99999999999999999999999e-3",
      "1.00000000000000000000001", "3.14159265358979323846264338327950288",
  };
  // clang-format on
  for (const char* n : numbers) {
    for (const char* type : {"", "Edm.Double", "Edm.Int32", "Edm.Int64"}) {
      std::string doc = std::string(R"({"PartitionKey":"p","RowKey":"r","x":)") + n;
      if (*type != '\0') doc += std::string(R"(,"x@odata.type":")") + type + "\"";
      doc += "}";
      Agrees(doc);
    }
  }
}

TEST(JsonReadTest, LargeDocumentsReadTheSame) {
  // Past the size the thread's parser keeps, a document gets a parser of its own.
  std::string big =
      R"({"PartitionKey":"p","RowKey":"r","s":")" + std::string(100000, 'x') + R"(","n":5})";
  EXPECT_EQ(Agrees(big), HaveFastReader());
  EXPECT_TRUE(Agrees(R"({"PartitionKey":"p","RowKey":"r","n":6})") || !HaveFastReader());
}

TEST(JsonReadTest, RandomEntitiesReadBackAsTheExactReaderReadsThem) {
  std::mt19937_64 rng(7);
  auto random_text = [&](size_t max) {
    static const char* const pieces[] = {"a",    "Z", "0",  " ", "\"",   "\\", "/", "\n", "\t",
                                         "\x01", "é", "日", "😀", "\x7f", "ü",  "@", "."};
    std::string s;
    size_t n = rng() % (max + 1);
    for (size_t i = 0; i < n; ++i) s += pieces[rng() % std::size(pieces)];
    return s;
  };
  int fast_taken = 0;
  for (int i = 0; i < 2000; ++i) {
    Entity e(random_text(12), random_text(12));
    for (int p = 0; p < 6; ++p) {
      std::string name = (rng() % 2 ? "p" : "Q") + std::to_string(rng() % 10);
      uint64_t bits = rng();
      switch (rng() % 8) {
        case 0:
          e.Set(name, Value::String(random_text(20)));
          break;
        case 1:
          e.Set(name, Value::Binary(random_text(10)));
          break;
        case 2:
          e.Set(name, Value::Boolean(bits & 1));
          break;
        case 3:
          e.Set(name, Value::DateTime(DateTime{static_cast<int64_t>(bits % DateTime::kMaxTicks)}));
          break;
        case 4: {
          double d;
          std::memcpy(&d, &bits, sizeof d);
          if (std::isnan(d)) d = 1.25;
          e.Set(name,
                Value::Double(rng() % 2 ? d : static_cast<double>(static_cast<int32_t>(bits))));
          break;
        }
        case 5: {
          Guid g;
          for (auto& b : g.bytes) b = static_cast<uint8_t>(rng());
          e.Set(name, Value::Guid(g));
          break;
        }
        case 6:
          e.Set(name, Value::Int32(static_cast<int32_t>(bits)));
          break;
        default:
          e.Set(name, Value::Int64(static_cast<int64_t>(bits)));
          break;
      }
    }
    for (JsonMetadata m : {JsonMetadata::kMinimal, JsonMetadata::kFull}) {
      std::string json = EntityToJson(e, {.metadata = m});
      if (Agrees(json)) ++fast_taken;
    }
  }
  // Everything the writer writes takes the fast path, the strings of non-finite Doubles too.
  if (HaveFastReader()) EXPECT_EQ(fast_taken, 4000);
}

TEST(JsonReadTest, DoubleStringsReadAlikeInBothReaders) {
  // Every string form of an Edm.Double, valid or not, with and without a sign and an exponent:
  // the fast reader takes exactly the valid ones, with the exact reader's value.
  // A table of cases, several to a line.
  // clang-format off
  const char* const texts[] = {
      "0", "-0", "+0", "1", "1.", ".1", "1.5", "-1.5", "+1.5", "1e5", "1E+5", "1e-5", "-.5e-3",
      "1.23456789012346e+24", "0.30000000000000004", "5e-324", "4.9e-324", "2e-324", "1e-400",
      "-1e-400", "1.7976931348623157e308", "1.7976931348623159e308", "1e309", "-1e309",
      "123456789012345678901234567890", "0.000000000000000000000000000001e330", "NaN",
      "Infinity", "-Infinity", "", ".", "e1", "1e", "1e+", "++1", "1..2", " 1", "1 ", "0x1",
      "nan", "inf", "-inf", "INF", "-NaN", "Infinity1", "1e99999999999999999999",
      "1e-99999999999999999999",
  };
  // clang-format on
  int taken = 0;
  for (const char* text : texts) {
    std::string doc = std::string(R"({"x":")") + text + R"(","x@odata.type":"Edm.Double"})";
    const bool fast = Agrees(doc);
    taken += fast;
    if (HaveFastReader()) {
      EXPECT_EQ(fast, ExactEntityFromJson(doc, {}).ok()) << doc;
    }
  }
  if (HaveFastReader()) EXPECT_GT(taken, 20);
}

}  // namespace
}  // namespace partkv::json_internal
