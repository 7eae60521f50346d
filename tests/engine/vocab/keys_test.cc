// Key strategies: the guides' worked examples as test vectors, the spread of the sharding
// suffixes, the text forms and their errors. docs/keys.md is the specification checked here.

#include "partkv/keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/testing/status_matchers.h"

namespace partkv {
namespace {

using ::partkv::testing::IsOk;
using ::partkv::testing::StatusIs;
using ::testing::Not;

// Whether `text` contains `fragment`, with both in the failure message.
::testing::AssertionResult Contains(const std::string& text, const std::string& fragment) {
  if (text.find(fragment) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not contain \"" << fragment << "\"";
}

// The key, or "ERROR: <message>" — so assertions read like the spec.
std::string Key(const KeyStrategy& s, const Entity& e) {
  Result<std::string> key = s.Compute(e);
  return key.ok() ? *key : "ERROR: " + std::string(key.status().message());
}

std::string Key(const KeyStrategy& s, const Entity& e, uint64_t random) {
  Result<std::string> key = s.Compute(e, random);
  return key.ok() ? *key : "ERROR: " + std::string(key.status().message());
}

// The canonical form of a parsed text, or "ERROR: <message>".
std::string Canonical(std::string_view text) {
  Result<KeyStrategy> s = KeyStrategy::Parse(text);
  return s.ok() ? s->ToString() : "ERROR: " + std::string(s.status().message());
}

std::string ParseError(std::string_view text) {
  Result<KeyStrategy> s = KeyStrategy::Parse(text);
  EXPECT_THAT(s, Not(IsOk())) << text << " parsed as " << s->ToString();
  if (s.ok()) return "";
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  return std::string(s.status().message());
}

std::string Md5Bits(std::string_view input, uint32_t k) {
  Result<std::string> bits = Md5BinaryString(input, k);
  return bits.ok() ? *bits : "ERROR: " + std::string(bits.status().message());
}

// Expands a hex digest into bits, most significant bit of each byte first.
std::string HexToBits(std::string_view hex) {
  std::string bits;
  for (char c : hex) {
    int v = c <= '9' ? c - '0' : c - 'a' + 10;
    for (int b = 3; b >= 0; --b) bits += (v >> b & 1) ? '1' : '0';
  }
  return bits;
}

DateTime At(std::string_view iso) { return DateTime::Parse(iso).value(); }

// ---------------------------------------------------------------------------------------------
// The guides' examples.

TEST(ConcatTest, JoinsDeviceIdAndYearAsInTheCosmosGuide) {
  // Cosmos DB "synthetic partition keys": deviceId "abc-123" + date 2018 -> "abc-123-2018".
  Entity e;
  e.Set("deviceId", Value::String("abc-123")).Set("date", Value::Int32(2018));
  EXPECT_EQ(Key(KeyStrategy::Concat({"deviceId", "date"}), e), "abc-123-2018");
  EXPECT_EQ(Key(KeyStrategy::Concat({"date", "deviceId"}, "_"), e), "2018_abc-123");
  EXPECT_EQ(Key(KeyStrategy::Concat({"deviceId", "date"}, ""), e), "abc-1232018");
}

TEST(ConcatTest, FieldValuesOfEveryTypeBecomeTheirDocumentedText) {
  Entity e;
  e.Set("s", Value::String("x"))
      .Set("i32", Value::Int32(-7))
      .Set("i64", Value::Int64(9000000000LL))
      .Set("g", Value::Guid(Guid::Parse("0F8FAD5B-D9CB-469F-A165-70867728950E").value()))
      .Set("b", Value::Boolean(true))
      .Set("t", Value::DateTime(At("2018-08-09T10:11:12Z")))
      .Set("d1", Value::Double(0.1))
      .Set("d2", Value::Double(100.0))
      .Set("d3", Value::Double(1e21));
  EXPECT_EQ(Key(KeyStrategy::Concat({"s", "i32", "i64", "g", "b"}, "|"), e),
            "x|-7|9000000000|0f8fad5b-d9cb-469f-a165-70867728950e|true");
  EXPECT_EQ(Key(KeyStrategy::Concat({"t"}), e), "2018-08-09T10:11:12.0000000Z");
  // Shortest text that reads back as the same double.
  EXPECT_EQ(Key(KeyStrategy::Concat({"d1", "d2", "d3"}, "|"), e), "0.1|100|1e+21");
}

TEST(RandomSuffixTest, SuffixesStayWithin1To400AsInTheDynamoDbGuide) {
  // DynamoDB "write sharding": 2018-08-09.1 ... 2018-08-09.400, uniformly.
  Entity e;
  e.Set("day", Value::String("2018-08-09"));
  KeyStrategy s = KeyStrategy::RandomSuffix("day", 400);
  std::set<int> seen;
  for (int i = 0; i < 20000; ++i) {
    std::string key = Key(s, e);
    ASSERT_EQ(key.rfind("2018-08-09.", 0), 0u) << key;
    int suffix = std::stoi(key.substr(11));
    ASSERT_GE(suffix, 1) << key;
    ASSERT_LE(suffix, 400) << key;
    seen.insert(suffix);
  }
  // 20,000 uniform draws over 400 values miss one with probability ~400 * e^-50.
  EXPECT_EQ(seen.size(), 400u);
}

TEST(RandomSuffixTest, DeterministicVariantMapsTheWhole64BitRangeOnto1ToN) {
  Entity e;
  e.Set("day", Value::String("2018-08-09"));
  KeyStrategy s = KeyStrategy::RandomSuffix("day", 400);
  EXPECT_EQ(Key(s, e, 0), "2018-08-09.1");
  EXPECT_EQ(Key(s, e, std::numeric_limits<uint64_t>::max()), "2018-08-09.400");
  // Lemire: (2^63 * 400) >> 64 = 200, plus 1.
  EXPECT_EQ(Key(s, e, uint64_t{1} << 63), "2018-08-09.201");
  EXPECT_EQ(Key(s, e, 12345), Key(s, e, 12345));
}

TEST(HashSuffixTest, SuffixesStayWithin1To200AndRepeatForTheSameSource) {
  for (SuffixHash hash : {SuffixHash::kXxh3, SuffixHash::kMd5, SuffixHash::kCodepointProduct}) {
    KeyStrategy s = KeyStrategy::HashSuffix("day", "OrderId", 200, hash);
    for (int i = 0; i < 2000; ++i) {
      Entity e;
      e.Set("day", Value::String("2018-08-09"))
          .Set("OrderId", Value::String("order-" + std::to_string(i)));
      std::string key = Key(s, e);
      ASSERT_EQ(key.rfind("2018-08-09.", 0), 0u) << key;
      int suffix = std::stoi(key.substr(11));
      ASSERT_GE(suffix, 1) << SuffixHashName(hash) << " " << key;
      ASSERT_LE(suffix, 200) << SuffixHashName(hash) << " " << key;
      ASSERT_EQ(Key(s, e), key) << "a hash suffix must be deterministic";
    }
  }
}

TEST(HashSuffixTest, Xxh3SuffixIsTheHashModNPlusOne) {
  // XXH3_64bits("") = 0x2D06800538D394C2 = 3244421341483603138 (xxHash's own test vector);
  // 3244421341483603138 mod 200 = 138 (1000 is a multiple of 200: the last three digits),
  // + 1 = 139.
  EXPECT_EQ(Xxh3Suffix("", 200), 139u);
  EXPECT_EQ(Xxh3Suffix("anything", 1), 1u);
  EXPECT_EQ(Xxh3Suffix("anything", 0), 0u);
  Entity e;
  e.Set("day", Value::String("d")).Set("vin", Value::String(""));
  EXPECT_EQ(Key(KeyStrategy::HashSuffix("day", "vin", 200), e), "d.139");
}

TEST(HashSuffixTest, Md5SuffixIsTheFirst8BytesBigEndianModNPlusOne) {
  // MD5("abc") = 900150983cd24fb0 d6963f7d28e17f72. First 8 bytes big-endian:
  // 0x900150983cd24fb0 = 10376663631224000432; mod 200 = 432 mod 200 = 32; + 1 = 33.
  Result<uint32_t> suffix = Md5Suffix("abc", 200);
  ASSERT_OK(suffix);
  EXPECT_EQ(*suffix, 33u);
  EXPECT_THAT(Md5Suffix("abc", 0), StatusIs(Status::Code::kInvalidArgument));
  Entity e;
  e.Set("day", Value::String("d")).Set("OrderId", Value::String("abc"));
  EXPECT_EQ(Key(KeyStrategy::HashSuffix("day", "OrderId", 200, SuffixHash::kMd5), e), "d.33");
}

TEST(HashSuffixTest, CodepointProductIsTheDynamoDbGuidesCalculation) {
  // OrderId "AB1": code points 65, 66, 49. 65 * 66 = 4290; 4290 * 49 = 210210;
  // 210210 mod 200 = 10; + 1 = 11.
  EXPECT_EQ(CodepointProductSuffix("AB1", 200), 11u);
  // Code points, not UTF-8 bytes: "é" is U+00E9 = 233 -> 233 mod 200 + 1 = 34 (its bytes
  // C3 A9 would give 195 * 169 = 32955 -> 155 + 1 = 156).
  EXPECT_EQ(CodepointProductSuffix("\xC3\xA9", 200), 34u);
  // No overflow: 122^30 (63 digits) mod 200 = 24, + 1 = 25.
  EXPECT_EQ(CodepointProductSuffix(std::string(30, 'z'), 200), 25u);
  // The empty product is 1.
  EXPECT_EQ(CodepointProductSuffix("", 200), 2u);
  // The guide's hash collapses once the product holds 200 = 2^3 * 5^2: '-' = 45 = 3^2 * 5,
  // '2' = 50 = 2 * 5^2, 'D' = 68 = 2^2 * 17, so 45 * 50 * 68 = 153000 = 765 * 200 divides the
  // product of "ORD-20180809-0001": 0 mod 200, suffix 1 (docs/keys.md's caution).
  EXPECT_EQ(CodepointProductSuffix("ORD-20180809-0001", 200), 1u);
  // A byte outside well-formed UTF-8 counts as its own value: 0xFF = 255 -> 55 + 1.
  EXPECT_EQ(CodepointProductSuffix("\xFF", 200), 56u);
  Entity e;
  e.Set("day", Value::String("2018-08-09")).Set("OrderId", Value::String("AB1"));
  EXPECT_EQ(Key(KeyStrategy::HashSuffix("day", "OrderId", 200, SuffixHash::kCodepointProduct), e),
            "2018-08-09.11");
}

TEST(Md5BitsTest, BinaryStringsMatchKnownDigests) {
  // MD5("") = d4 1d 8c d9 ... : d = 1101, 4 = 0100, 1 = 0001, d = 1101.
  EXPECT_EQ(Md5Bits("", 1), "1");
  EXPECT_EQ(Md5Bits("", 4), "1101");
  EXPECT_EQ(Md5Bits("", 16), "1101010000011101");
  // MD5("abc") = 90 01 50 98 ... : 9 = 1001, 0 = 0000, 0 = 0000, 1 = 0001, 5 = 0101,
  // 0 = 0000, 9 = 1001, 8 = 1000.
  EXPECT_EQ(Md5Bits("abc", 4), "1001");
  EXPECT_EQ(Md5Bits("abc", 12), "100100000000");
  EXPECT_EQ(Md5Bits("abc", 32), "10010000000000010101000010011000");
  EXPECT_EQ(Md5Bits("abc", 128), HexToBits("900150983cd24fb0d6963f7d28e17f72"));
  EXPECT_EQ(Md5Bits("", 128), HexToBits("d41d8cd98f00b204e9800998ecf8427e"));
}

TEST(Md5BitsTest, BitCountOutside1To128IsRejected) {
  EXPECT_TRUE(Contains(Md5Bits("abc", 0), "outside 1..128"));
  EXPECT_TRUE(Contains(Md5Bits("abc", 129), "outside 1..128"));
}

TEST(Md5BitsTest, StrategyHashesTheSourceFieldText) {
  Entity e;
  e.Set("id", Value::String("abc")).Set("n", Value::Int32(0));
  EXPECT_EQ(Key(KeyStrategy::Md5Bits("id", 4), e), "1001");
  EXPECT_EQ(Key(KeyStrategy::Md5Bits("id", 12), e), "100100000000");
  // The AtContent article derives the PartitionKey from the id, which may be the RowKey.
  Entity r("", "abc");
  EXPECT_EQ(Key(KeyStrategy::Md5Bits("RowKey", 4), r), "1001");
}

TEST(TicksTest, DescendingTicksIsMaxValueMinusTicksPaddedTo19Digits) {
  DateTime t = At("2018-08-09T00:00:00Z");
  // 2018-08-09 is 1533772800 s after the Unix epoch:
  // ticks = 621355968000000000 + 1533772800 * 10^7 = 636693696000000000.
  ASSERT_EQ(t.ticks, 636693696000000000LL);
  // 3155378975999999999 - 636693696000000000 = 2518685279999999999.
  EXPECT_EQ(DescendingTicksKey(t), "2518685279999999999");
  EXPECT_EQ(AscendingTicksKey(t), "0636693696000000000");
  EXPECT_EQ(AscendingTicksKey(DateTime{0}), "0000000000000000000");
  EXPECT_EQ(DescendingTicksKey(DateTime{DateTime::kMaxTicks}), "0000000000000000000");
  EXPECT_EQ(DescendingTicksKey(DateTime{0}), "3155378975999999999");
  // 1 tick (100 ns) later sorts first.
  EXPECT_LT(DescendingTicksKey(DateTime{t.ticks + 1}), DescendingTicksKey(t));
  EXPECT_GT(AscendingTicksKey(DateTime{t.ticks + 1}), AscendingTicksKey(t));
  // Ticks from different decades still compare as times (the padding).
  EXPECT_LT(DescendingTicksKey(At("2030-01-01T00:00:00Z")),
            DescendingTicksKey(At("0999-01-01T00:00:00Z")));
}

TEST(TicksTest, StrategiesReadTheDateTimeField) {
  Entity e;
  e.Set("when", Value::DateTime(At("2018-08-09T00:00:00Z")));
  EXPECT_EQ(Key(KeyStrategy::DescendingTicks("when"), e), "2518685279999999999");
  EXPECT_EQ(Key(KeyStrategy::AscendingTicks("when"), e), "0636693696000000000");
  Entity s;
  s.Set("when", Value::String("2018-08-09T00:00:00Z"));
  EXPECT_TRUE(Contains(Key(KeyStrategy::DescendingTicks("when"), s),
                       "property 'when' is String, but key strategy desc-ticks(when) needs a "
                       "DateTime"));
  Entity bad;
  bad.Set("when", Value::DateTime(DateTime{-1}));
  EXPECT_TRUE(Contains(Key(KeyStrategy::AscendingTicks("when"), bad), "outside 0.."));
}

TEST(TicksTest, ParseRoundTripsAndAcceptsAUniqueSuffix) {
  for (int64_t ticks : {int64_t{0}, int64_t{1}, int64_t{636693696000000000},
                        DateTime::kMaxTicks - 1, DateTime::kMaxTicks}) {
    Result<DateTime> asc = ParseAscendingTicksKey(AscendingTicksKey(DateTime{ticks}));
    Result<DateTime> desc = ParseDescendingTicksKey(DescendingTicksKey(DateTime{ticks}));
    ASSERT_OK(asc);
    ASSERT_OK(desc);
    EXPECT_EQ(asc->ticks, ticks);
    EXPECT_EQ(desc->ticks, ticks);
  }
  std::string key = DescendingTicksKey(DateTime{636693696000000000}) + "_" + UniqueRowSuffix();
  Result<DateTime> t = ParseDescendingTicksKey(key);
  ASSERT_OK(t);
  EXPECT_EQ(t->ToString(), "2018-08-09T00:00:00.0000000Z");
}

TEST(TicksTest, ParseRejectsWhatIsNotATicksKey) {
  auto error = [](std::string_view key) {
    Result<DateTime> t = ParseAscendingTicksKey(key);
    return t.ok() ? std::string("parsed") : std::string(t.status().message());
  };
  EXPECT_TRUE(Contains(error("063669369600000000"), "shorter than 19 digits"));
  EXPECT_TRUE(Contains(error("06366936960000000001"), "more than 19 digits"));
  EXPECT_TRUE(Contains(error("06366936960000x0000"), "not a digit"));
  EXPECT_TRUE(Contains(error("-636693696000000000"), "not a digit"));
  EXPECT_TRUE(Contains(error("3155378976000000000"), "above DateTime.MaxValue.Ticks"));
  EXPECT_TRUE(Contains(error("9999999999999999999"), "above DateTime.MaxValue.Ticks"));
  EXPECT_THAT(ParseDescendingTicksKey(""), Not(IsOk()));
}

TEST(UniqueRowSuffixTest, IsRandomLowerCaseAlphanumerics) {
  std::string a = UniqueRowSuffix(), b = UniqueRowSuffix();
  EXPECT_EQ(a.size(), 8u);
  EXPECT_EQ(UniqueRowSuffix(20).size(), 20u);
  EXPECT_EQ(UniqueRowSuffix(0), "");
  EXPECT_EQ(a.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz"), std::string::npos) << a;
  EXPECT_NE(a, b) << "two 8-character suffixes collide with probability 36^-8";
}

// ---------------------------------------------------------------------------------------------
// Spread: a hot suffix would defeat write sharding.

size_t HottestCount(const std::map<std::string, size_t>& counts) {
  size_t hottest = 0;
  for (const auto& [key, count] : counts) hottest = std::max(hottest, count);
  return hottest;
}

TEST(SpreadTest, RandomSuffixSpreads100kKeysOver200Suffixes) {
  constexpr int kKeys = 100000;
  constexpr uint32_t kShards = 200;
  Entity e;
  e.Set("day", Value::String("2018-08-09"));
  KeyStrategy s = KeyStrategy::RandomSuffix("day", kShards);
  std::mt19937_64 rng(20180809);  // fixed seed: the test is deterministic
  std::map<std::string, size_t> counts;
  for (int i = 0; i < kKeys; ++i) ++counts[Key(s, e, rng())];
  EXPECT_EQ(counts.size(), kShards);
  EXPECT_LT(HottestCount(counts), 1.5 * kKeys / kShards);
}

TEST(SpreadTest, Xxh3HashSuffixSpreads100kOrderIdsOver200Suffixes) {
  constexpr int kKeys = 100000;
  constexpr uint32_t kShards = 200;
  KeyStrategy s = KeyStrategy::HashSuffix("day", "OrderId", kShards);
  std::map<std::string, size_t> counts;
  for (int i = 0; i < kKeys; ++i) {
    Entity e;
    e.Set("day", Value::String("2018-08-09"))
        .Set("OrderId", Value::String("ORD-" + std::to_string(i)));
    ++counts[Key(s, e)];
  }
  EXPECT_EQ(counts.size(), kShards);
  EXPECT_LT(HottestCount(counts), 1.5 * kKeys / kShards);
}

// ---------------------------------------------------------------------------------------------
// Sharded reads.

TEST(ShardKeysTest, EnumeratesExactlyNKeysBaseDot1ToBaseDotN) {
  std::vector<std::string> keys = KeyStrategy::RandomSuffix("day", 400).ShardKeys("2018-08-09");
  ASSERT_EQ(keys.size(), 400u);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i], "2018-08-09." + std::to_string(i + 1));
  }
  EXPECT_EQ(KeyStrategy::HashSuffix("d", "v", 3).ShardKeys("b"),
            (std::vector<std::string>{"b.1", "b.2", "b.3"}));
  EXPECT_EQ(KeyStrategy::HashSuffix("d", "v", 3).shard_count(), 3u);
  // A non-sharded strategy's key is its one shard.
  EXPECT_EQ(KeyStrategy::Concat({"a"}).ShardKeys("k"), std::vector<std::string>{"k"});
  EXPECT_EQ(KeyStrategy::Concat({"a"}).shard_count(), 1u);
  EXPECT_FALSE(KeyStrategy::Md5Bits("a", 4).is_sharded());
}

TEST(ShardKeysTest, EveryComputedKeyIsAmongTheShardKeysOfItsBase) {
  Entity e;
  e.Set("day", Value::String("2018-08-09")).Set("OrderId", Value::String("ORD-1"));
  for (const KeyStrategy& s :
       {KeyStrategy::RandomSuffix("day", 50), KeyStrategy::HashSuffix("day", "OrderId", 50),
        KeyStrategy::Concat({"day", "OrderId"})}) {
    Result<std::string> base = s.ComputeBase(e);
    ASSERT_OK(base);
    std::vector<std::string> shards = s.ShardKeys(*base);
    std::string key = Key(s, e);
    EXPECT_NE(std::find(shards.begin(), shards.end(), key), shards.end()) << s.ToString();
  }
  // The base of a hash-suffix key needs the source too.
  Entity no_source;
  no_source.Set("day", Value::String("2018-08-09"));
  EXPECT_THAT(KeyStrategy::HashSuffix("day", "OrderId", 50).ComputeBase(no_source), Not(IsOk()));
}

// ---------------------------------------------------------------------------------------------
// Field errors.

TEST(FieldErrorTest, MissingFieldNamesTheFieldAndTheStrategy) {
  Entity e;
  e.Set("day", Value::String("2018-08-09"));
  EXPECT_EQ(Key(KeyStrategy::HashSuffix("day", "VIN", 200), e),
            "ERROR: entity has no property 'VIN' required by key strategy "
            "hash-suffix(day,VIN,200,hash=xxh3)");
  EXPECT_TRUE(Contains(Key(KeyStrategy::Concat({"day", "deviceId"}), e),
                       "'deviceId' required by key strategy concat(day,deviceId,sep=-)"));
  // An empty RowKey is no RowKey.
  EXPECT_TRUE(Contains(Key(KeyStrategy::Md5Bits("RowKey", 4), e), "no property 'RowKey'"));
}

TEST(FieldErrorTest, BinaryAndNonFiniteDoubleCannotFormAKey) {
  Entity e;
  e.Set("blob", Value::Binary("\x01\x02")).Set("nan", Value::Double(std::nan("")));
  EXPECT_EQ(Key(KeyStrategy::Concat({"blob"}), e),
            "ERROR: property 'blob' is Binary, which cannot form a key (key strategy "
            "concat(blob,sep=-))");
  EXPECT_TRUE(Contains(Key(KeyStrategy::RandomSuffix("nan", 4), e), "non-finite Double"));
  Result<std::string> key = KeyStrategy::Concat({"blob"}).Compute(e);
  EXPECT_THAT(key, StatusIs(Status::Code::kInvalidArgument));
}

TEST(FieldErrorTest, InvalidStrategyValuesAreRejectedByCompute) {
  Entity e;
  e.Set("a", Value::String("x"));
  EXPECT_TRUE(Contains(Key(KeyStrategy::RandomSuffix("a", 0), e), "N = 0 is outside 1..65535"));
  EXPECT_TRUE(Contains(Key(KeyStrategy::Md5Bits("a", 200), e), "K = 200 is outside 1..128"));
  EXPECT_TRUE(Contains(Key(KeyStrategy::Concat({}), e), "concat takes 1..16 fields"));
  EXPECT_TRUE(Contains(Key(KeyStrategy::Concat({"a"}, "/"), e), "separator '/'"));
  EXPECT_TRUE(
      Contains(Key(KeyStrategy::AscendingTicks("9lives"), e), "'9lives' is not a property name"));
  EXPECT_OK(KeyStrategy::HashSuffix("a", "b", 65535).Validate());
  EXPECT_THAT(KeyStrategy::HashSuffix("a", "b", 65536).Validate(), Not(IsOk()));
}

// ---------------------------------------------------------------------------------------------
// Text forms.

TEST(TextFormTest, EveryKindRoundTrips) {
  const std::vector<KeyStrategy> strategies = {
      KeyStrategy::Concat({"deviceId", "date"}),
      KeyStrategy::Concat({"a", "b", "c"}, "::"),
      KeyStrategy::Concat({"a"}, ""),
      KeyStrategy::RandomSuffix("day", 400),
      KeyStrategy::HashSuffix("day", "OrderId", 200),
      KeyStrategy::HashSuffix("day", "VIN", 7, SuffixHash::kMd5),
      KeyStrategy::HashSuffix("day", "OrderId", 200, SuffixHash::kCodepointProduct),
      KeyStrategy::Md5Bits("id", 4),
      KeyStrategy::Md5Bits("RowKey", 128),
      KeyStrategy::AscendingTicks("when"),
      KeyStrategy::DescendingTicks("_when2"),
  };
  for (const KeyStrategy& s : strategies) {
    ASSERT_OK(s.Validate()) << s.ToString();
    Result<KeyStrategy> parsed = KeyStrategy::Parse(s.ToString());
    ASSERT_OK(parsed) << s.ToString();
    EXPECT_EQ(*parsed, s) << s.ToString();
    EXPECT_EQ(parsed->ToString(), s.ToString());
  }
}

TEST(TextFormTest, CanonicalFormsSpellOutDefaultsAndDropWhitespace) {
  EXPECT_EQ(Canonical("concat(deviceId,date)"), "concat(deviceId,date,sep=-)");
  EXPECT_EQ(Canonical("  concat ( deviceId , date , sep = _ )  "), "concat(deviceId,date,sep=_)");
  EXPECT_EQ(Canonical("concat(a,sep=)"), "concat(a,sep=)");
  EXPECT_EQ(Canonical("random-suffix(day, 400)"), "random-suffix(day,400)");
  EXPECT_EQ(Canonical("hash-suffix(day,OrderId,200)"), "hash-suffix(day,OrderId,200,hash=xxh3)");
  EXPECT_EQ(Canonical("hash-suffix(day,OrderId,200,hash=codepoint-product)"),
            "hash-suffix(day,OrderId,200,hash=codepoint-product)");
  EXPECT_EQ(Canonical("hash-suffix(day,VIN,0200, hash = md5)"),
            "hash-suffix(day,VIN,200,hash=md5)");
  EXPECT_EQ(Canonical("md5-bits(id,4)"), "md5-bits(id,4)");
  EXPECT_EQ(Canonical("asc-ticks(when)"), "asc-ticks(when)");
  EXPECT_EQ(Canonical("\tdesc-ticks( when )\n"), "desc-ticks(when)");
}

TEST(TextFormTest, ParsedStrategiesComputeLikeTheirFactories) {
  Entity e;
  e.Set("deviceId", Value::String("abc-123")).Set("date", Value::Int32(2018));
  Result<KeyStrategy> s = KeyStrategy::Parse("concat(deviceId,date,sep=-)");
  ASSERT_OK(s);
  EXPECT_EQ(s->kind(), KeyStrategy::Kind::kConcat);
  EXPECT_EQ(s->separator(), "-");
  EXPECT_EQ(s->fields(), (std::vector<std::string>{"deviceId", "date"}));
  EXPECT_EQ(Key(*s, e), "abc-123-2018");
  Result<KeyStrategy> h = KeyStrategy::Parse("hash-suffix(day,OrderId,200,hash=md5)");
  ASSERT_OK(h);
  EXPECT_EQ(h->hash(), SuffixHash::kMd5);
  EXPECT_EQ(h->shard_count(), 200u);
  EXPECT_EQ(KeyStrategy::Parse("md5-bits(id,12)")->bits(), 12u);
}

TEST(TextFormTest, ABarePropertyNameIsConcatOfThatName) {
  Result<KeyStrategy> bare = KeyStrategy::Parse("orderDate");
  ASSERT_OK(bare);
  Result<KeyStrategy> concat = KeyStrategy::Parse("concat(orderDate)");
  ASSERT_OK(concat);
  EXPECT_EQ(*bare, *concat);
  EXPECT_EQ(*bare, KeyStrategy::Concat({"orderDate"}));
  EXPECT_EQ(bare->kind(), KeyStrategy::Kind::kConcat);
  EXPECT_EQ(bare->fields(), (std::vector<std::string>{"orderDate"}));
  EXPECT_EQ(bare->separator(), "-");
  // The canonical form is the concat one, and it parses back to the same strategy.
  EXPECT_EQ(bare->ToString(), "concat(orderDate,sep=-)");
  EXPECT_EQ(*KeyStrategy::Parse(bare->ToString()), *bare);

  Entity e;
  e.Set("orderDate", Value::String("2018-08-09")).Set("orderId", Value::Int64(17));
  EXPECT_EQ(Key(*bare, e), "2018-08-09");
  EXPECT_EQ(Key(*bare, e), Key(*concat, e));
  EXPECT_EQ(Key(*KeyStrategy::Parse("orderId"), e), "17");
  EXPECT_EQ(Key(*bare, Entity()),
            "ERROR: entity has no property 'orderDate' required by key strategy "
            "concat(orderDate,sep=-)");

  // Whitespace around the name is dropped, as around a form.
  EXPECT_EQ(Canonical("  orderDate\t\n"), "concat(orderDate,sep=-)");
  // Every property name is accepted: the entity's keys, a leading underscore, 255 characters,
  // and names that only differ from a form's by case.
  EXPECT_EQ(Canonical("RowKey"), "concat(RowKey,sep=-)");
  EXPECT_EQ(Canonical("_when2"), "concat(_when2,sep=-)");
  EXPECT_EQ(Canonical("Concat"), "concat(Concat,sep=-)");
  const std::string longest(255, 'a');
  EXPECT_EQ(Canonical(longest), "concat(" + longest + ",sep=-)");
  // A property named like the concat form is reached by the form itself.
  EXPECT_EQ(Canonical("concat(concat)"), "concat(concat,sep=-)");
}

TEST(TextFormTest, StrategiesThatDifferInAnyArgumentAreUnequal) {
  EXPECT_NE(KeyStrategy::HashSuffix("d", "v", 200),
            KeyStrategy::HashSuffix("d", "v", 200, SuffixHash::kMd5));
  EXPECT_NE(KeyStrategy::HashSuffix("d", "v", 200), KeyStrategy::HashSuffix("d", "v", 201));
  EXPECT_NE(KeyStrategy::HashSuffix("d", "v", 200), KeyStrategy::HashSuffix("v", "d", 200));
  EXPECT_NE(KeyStrategy::Concat({"a", "b"}), KeyStrategy::Concat({"a", "b"}, "_"));
  EXPECT_NE(KeyStrategy::AscendingTicks("t"), KeyStrategy::DescendingTicks("t"));
  EXPECT_NE(KeyStrategy::RandomSuffix("d", 4), KeyStrategy::Md5Bits("d", 4));
}

TEST(TextFormTest, EachKindOfErrorSaysWhatWasWrongAndListsTheAcceptedForms) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty text"},
      {"concat",
       "expected NAME(ARGUMENTS): concat takes arguments (a property named concat is "
       "concat(concat))"},
      {" md5-bits ", "expected NAME(ARGUMENTS): md5-bits takes arguments"},
      {"random-suffix", "expected NAME(ARGUMENTS): random-suffix takes arguments"},
      {"order Date",
       "expected NAME(ARGUMENTS) or a property name alone, but field 'order Date' is not a "
       "property name ([A-Za-z_][A-Za-z0-9_]*, at most 255 characters)"},
      {"2day", "field '2day' is not a property name"},
      {"order-date", "field 'order-date' is not a property name"},
      {"orderDate)", "field 'orderDate)' is not a property name"},
      {"a,b", "field 'a,b' is not a property name"},
      {"sep=_", "field 'sep=_' is not a property name"},
      {std::string(256, 'a'), "is not a property name"},
      {"randm-suffix(a,3)", "unknown form 'randm-suffix'"},
      {"orderDate (x)", "unknown form 'orderDate'"},
      {"concat(a,b", "expected NAME(ARGUMENTS)"},
      {"sum(a,b)", "unknown form 'sum'"},
      {"Concat(a)", "unknown form 'Concat'"},
      {"concat()", "argument 1 is empty"},
      {"concat(a,,b)", "argument 2 is empty"},
      {"concat(a,sep=_,b)", "positional argument 'b' after a named argument"},
      {"concat(a,hash=md5)", "concat has no named argument 'hash'"},
      {"concat(a,sep=_,sep=-)", "named argument 'sep' given twice"},
      {"concat(a,sep=/)", "separator '/'"},
      {"concat(a,sep=a b)", "separator 'a b'"},
      {"concat(a,sep=123456789)", "longer than 8 characters"},
      {"concat(a,b c)", "'b c' is not a property name"},
      {"concat(a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q)",
       "concat takes 1..16 positional arguments, not 17"},
      {"random-suffix(day)", "random-suffix takes 2 positional arguments, not 1"},
      {"random-suffix(day,400,1)", "random-suffix takes 2 positional arguments, not 3"},
      {"random-suffix(day,0)", "N = 0 is outside 1..65535"},
      {"random-suffix(day,65536)", "N = 65536 is outside 1..65535"},
      {"random-suffix(day,99999999999999999999999)", "is outside 1..65535"},
      {"random-suffix(day,-1)", "N '-1' is not a positive integer"},
      {"random-suffix(day,+4)", "N '+4' is not a positive integer"},
      {"random-suffix(day,abc)", "N 'abc' is not a positive integer"},
      {"random-suffix(day,4,sep=-)", "random-suffix has no named argument 'sep'"},
      {"random-suffix(2day,4)", "base field '2day' is not a property name"},
      {"hash-suffix(day,200)", "hash-suffix takes 3 positional arguments, not 2"},
      {"hash-suffix(day,OrderId,200,hash=sha1)",
       "unknown hash 'sha1' (expected xxh3, md5 or "
       "codepoint-product)"},
      {"hash-suffix(day,OrderId,200,hash=XXH3)", "unknown hash 'XXH3'"},
      {"hash-suffix(day,Order-Id,200)", "source field 'Order-Id' is not a property name"},
      {"md5-bits(id)", "md5-bits takes 2 positional arguments, not 1"},
      {"md5-bits(id,0)", "K = 0 is outside 1..128"},
      {"md5-bits(id,129)", "K = 129 is outside 1..128"},
      {"asc-ticks()", "argument 1 is empty"},
      {"asc-ticks(a,b)", "asc-ticks takes 1 positional argument, not 2"},
      {"desc-ticks(when,sep=-)", "desc-ticks has no named argument 'sep'"},
      {"desc-ticks(wh.en)", "'wh.en' is not a property name"},
  };
  for (const auto& [text, fragment] : cases) {
    std::string message = ParseError(text);
    EXPECT_TRUE(Contains(message, fragment)) << text;
    EXPECT_TRUE(Contains(message, "invalid key strategy '" + text + "'")) << text;
    EXPECT_TRUE(Contains(message,
                         "accepted forms: concat(FIELD,FIELD,...,sep=-) | "
                         "random-suffix(FIELD,N) | "
                         "hash-suffix(FIELD,SOURCE,N,hash=xxh3|md5|codepoint-product) | "
                         "md5-bits(FIELD,K) | asc-ticks(FIELD) | desc-ticks(FIELD) | "
                         "FIELD alone, short for concat(FIELD)"))
        << text;
  }
}

}  // namespace
}  // namespace partkv
