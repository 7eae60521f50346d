// The import's fast JSON reader (tools/cli/fast_entity_json.h) against the library's
// EntityFromJson: whatever the fast reader accepts, the library accepts with the same content;
// whatever the library rejects, the fast reader declines; and the plain shapes of bulk files take
// the fast path.

#include "tools/cli/fast_entity_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "partkv/json.h"

namespace partkv::cli {
namespace {

// Checks one document; returns whether the fast reader took it.
bool Agrees(std::string_view json, JsonReadOptions options = {}) {
  FastEntityJson fast;
  std::optional<Entity> mine = fast.TryParse(json, options);
  Result<Entity> library = EntityFromJson(json, options);
  if (!mine) return false;
  EXPECT_TRUE(library.ok()) << "the fast reader accepted what the library rejects: " << json
                            << " -> " << library.status().ToString();
  if (library.ok()) {
    EXPECT_TRUE(mine->SameContent(*library))
        << json << "\n fast:    " << mine->DebugString() << "\n library: " << library->DebugString();
  }
  return true;
}

TEST(FastEntityJsonTest, PlainShapesTakeTheFastPathWithTheLibrarysContent) {
  const char* const docs[] = {
      R"({"PartitionKey":"p","RowKey":"r"})",
      R"({"PartitionKey":"p","RowKey":"r","s":"text","b":true,"i":-5,"d":1.5,"e":1e10,"z":-0.0})",
      R"({"RowKey":"r","PartitionKey":"p","i64":"9007199254740993","i64@odata.type":"Edm.Int64"})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Int64","x":-9223372036854775808})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Int32","x":"-2147483648"})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":3})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":-0})",
      R"({"PartitionKey":"p","RowKey":"r","x@odata.type":"Edm.Double","x":123456789012345678})",
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
  };
  for (const char* doc : docs) EXPECT_TRUE(Agrees(doc)) << "declined: " << doc;
  EXPECT_TRUE(Agrees(R"({"n":1})"));  // keys are optional unless required
}

TEST(FastEntityJsonTest, EverythingTheLibraryRejectsIsDeclined) {
  const char* const docs[] = {
      "", "   ", "[]", "5", "\"s\"", "null", "{", R"({"a":1)", R"({"a":1}})", R"({"a":1} {})",
      R"({"a":1}x)", R"({"a":1,})", R"({a:1})", R"({"a":tru})", R"({"a":01})", R"({"a":1.})",
      R"({"a":-})", R"({"a":1e400})", R"({"a":{"b":1}})", R"({"a":[1]})", R"({"a":1,"a":2})",
      R"({"PartitionKey":"p","PartitionKey":"q"})", R"({"a":3000000000})",
      R"({"a":9223372036854775808})", R"({"a":99999999999999999999999})",
      R"({"a@odata.type":"Edm.Int64"})", R"({"a":1,"a@odata.type":"Edm.Decimal"})",
      R"({"a":1,"a@odata.type":5})", R"({"a":"1.5","a@odata.type":"Edm.Int32"})",
      R"({"a":2147483648,"a@odata.type":"Edm.Int32"})", R"({"a":"x","a@odata.type":"Edm.Int64"})",
      R"({"a":"-9223372036854775809","a@odata.type":"Edm.Int64"})",
      R"({"a":"nan","a@odata.type":"Edm.Double"})", R"({"a":"yes","a@odata.type":"Edm.Boolean"})",
      R"({"a":5,"a@odata.type":"Edm.String"})", R"({"a":"2013-13-01","a@odata.type":"Edm.DateTime"})",
      R"({"a":0,"a@odata.type":"Edm.DateTime"})", R"({"a":"nope","a@odata.type":"Edm.Guid"})",
      R"({"a":"A=A","a@odata.type":"Edm.Binary"})", R"({"PartitionKey":5,"RowKey":"r"})",
      R"({"PartitionKey":null,"RowKey":"r"})", R"({"PartitionKey":"p","PartitionKey@odata.type":"Edm.Int64"})",
      "{\"a\":\"\xff\"}", "{\"a\xc3\":1}", R"({"a":"\ud83d"})", R"({"a":"\x"})",
      "{\"a\":\"tab\there\"}",
  };
  for (const char* doc : docs) {
    FastEntityJson fast;
    EXPECT_FALSE(fast.TryParse(doc).has_value()) << "accepted: " << doc;
    EXPECT_FALSE(EntityFromJson(doc).ok()) << "the library accepts: " << doc;
  }
  FastEntityJson fast;
  EXPECT_FALSE(fast.TryParse(R"({"RowKey":"r"})", {.require_keys = true}).has_value());
  Result<Entity> r = fast.Parse(R"({"a":1,"a":2})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "property 'a': appears more than once");  // the library's words
}

TEST(FastEntityJsonTest, UnusualButValidFormsGetTheLibrarysAnswer) {
  // Declining is allowed; disagreeing is not. Parse() must equal the library either way.
  const char* const docs[] = {
      R"({"a":5.0,"a@odata.type":"Edm.Int32"})", R"({"a":"NaN","a@odata.type":"Edm.Double"})",
      R"({"a":"Infinity","a@odata.type":"Edm.Double"})", R"({"a":5e0,"a@odata.type":"Edm.Int64"})",
      R"({"PartitionKey":"p","PartitionKey@odata.type":"Edm.String"})", R"({"x@y":1})",
      R"({"odata.other":1})", R"({"Timestamp@odata.type":"Edm.Int32"})",
  };
  for (const char* doc : docs) {
    Agrees(doc);
    FastEntityJson fast;
    Result<Entity> mine = fast.Parse(doc);
    Result<Entity> library = EntityFromJson(doc);
    ASSERT_EQ(mine.ok(), library.ok()) << doc;
    if (mine.ok()) EXPECT_TRUE(mine->SameContent(*library)) << doc;
  }
}

TEST(FastEntityJsonTest, RandomEntitiesReadBackAsTheLibraryReadsThem) {
  std::mt19937_64 rng(7);
  auto random_text = [&](size_t max) {
    static const char* const pieces[] = {"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\x01",
                                         "é", "日", "😀", "\x7f", "ü"};
    std::string s;
    size_t n = rng() % (max + 1);
    for (size_t i = 0; i < n; ++i) s += pieces[rng() % std::size(pieces)];
    return s;
  };
  int fast_taken = 0;
  for (int i = 0; i < 2000; ++i) {
    Entity e(random_text(12), random_text(12));
    for (int p = 0; p < 6; ++p) {
      std::string name = "p" + std::to_string(rng() % 10);
      uint64_t bits = rng();
      switch (rng() % 8) {
        case 0: e.Set(name, Value::String(random_text(20))); break;
        case 1: e.Set(name, Value::Binary(random_text(10))); break;
        case 2: e.Set(name, Value::Boolean(bits & 1)); break;
        case 3: e.Set(name, Value::DateTime(DateTime{static_cast<int64_t>(bits % DateTime::kMaxTicks)})); break;
        case 4: {
          double d;
          std::memcpy(&d, &bits, sizeof d);
          if (std::isnan(d)) d = 1.25;
          e.Set(name, Value::Double(rng() % 2 ? d : static_cast<double>(static_cast<int32_t>(bits))));
          break;
        }
        case 5: {
          Guid g;
          for (auto& b : g.bytes) b = static_cast<uint8_t>(rng());
          e.Set(name, Value::Guid(g));
          break;
        }
        case 6: e.Set(name, Value::Int32(static_cast<int32_t>(bits))); break;
        default: e.Set(name, Value::Int64(static_cast<int64_t>(bits))); break;
      }
    }
    for (JsonMetadata m : {JsonMetadata::kMinimal, JsonMetadata::kFull}) {
      std::string json = EntityToJson(e, {.metadata = m});
      if (Agrees(json)) ++fast_taken;
    }
  }
  // Infinities travel as strings, which the fast reader leaves to the library; all else is fast.
  EXPECT_GT(fast_taken, 3900);
}

}  // namespace
}  // namespace partkv::cli
