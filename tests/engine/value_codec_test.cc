#include "engine/value_codec.h"

#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;

Entity EveryType() {
  Entity e("pk", "rk");
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes += static_cast<char>(i);
  e.Set("s", Value::String("héllo ☃"))
      .Set("empty", Value::String(""))
      .Set("bin", Value::Binary(all_bytes))
      .Set("yes", Value::Boolean(true))
      .Set("no", Value::Boolean(false))
      .Set("when", Value::DateTime(DateTime{DateTime::kMaxTicks}))
      .Set("d", Value::Double(-0.0))
      .Set("nan", Value::Double(std::numeric_limits<double>::quiet_NaN()))
      .Set("inf", Value::Double(-std::numeric_limits<double>::infinity()))
      .Set("g", Value::Guid(*Guid::Parse("a455c695-df98-5678-aaaa-81d3367e5a34")))
      .Set("i32", Value::Int32(std::numeric_limits<int32_t>::min()))
      .Set("i64", Value::Int64(std::numeric_limits<int64_t>::max()));
  return e;
}

std::string Encode(const Entity& e, ValueHeader h = {123456789, 42}) {
  std::string out;
  EncodeValue(h, e, &out);
  return out;
}

TEST(ValueCodec, EveryTypeRoundTrips) {
  Entity e = EveryType();
  std::string bytes = Encode(e, {DateTime::kMaxTicks, std::numeric_limits<uint64_t>::max()});
  Entity back;
  ValueHeader h;
  ASSERT_OK(DecodeValue(bytes, &h, &back));
  EXPECT_EQ(h.timestamp_ticks, DateTime::kMaxTicks);
  EXPECT_EQ(h.etag_version, std::numeric_limits<uint64_t>::max());
  ASSERT_EQ(back.property_count(), e.property_count());
  for (const auto& [name, value] : e) {
    ASSERT_NE(back.Get(name), nullptr) << name;
    EXPECT_EQ(*back.Get(name), value) << name;  // bitwise for doubles: -0.0 and NaN survive
  }
}

TEST(ValueCodec, HeaderDecodesWithoutProperties) {
  ValueHeader h;
  ASSERT_OK(DecodeValueHeader(Encode(EveryType(), {77, 300}), &h));
  EXPECT_EQ(h.timestamp_ticks, 77);
  EXPECT_EQ(h.etag_version, 300u);
}

TEST(ValueCodec, EveryTruncationIsCorruption) {
  std::string bytes = Encode(EveryType());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Entity e;
    ValueHeader h;
    Status s = DecodeValue(std::string_view(bytes).substr(0, n), &h, &e);
    EXPECT_THAT(s, StatusIs(Status::Code::kCorruption)) << "prefix of " << n << " bytes";
  }
}

TEST(ValueCodec, TrailingBytesAreCorruption) {
  std::string bytes = Encode(EveryType()) + "x";
  Entity e;
  ValueHeader h;
  EXPECT_THAT(DecodeValue(bytes, &h, &e), StatusIs(Status::Code::kCorruption));
}

TEST(ValueCodec, UnknownVersionAndTagAreCorruption) {
  Entity one;
  one.Set("n", Value::Int32(5));
  std::string bytes = Encode(one);
  Entity e;
  ValueHeader h;
  std::string v2 = bytes;
  v2[0] = 2;
  Status s = DecodeValue(v2, &h, &e);
  EXPECT_THAT(s, StatusIs(Status::Code::kCorruption));
  EXPECT_NE(s.message().find("version 2"), std::string_view::npos) << s.ToString();
  std::string bad_tag = bytes;
  bad_tag[bytes.size() - 5] = 9;  // the type tag precedes the 4-byte Int32 payload
  s = DecodeValue(bad_tag, &h, &e);
  EXPECT_THAT(s, StatusIs(Status::Code::kCorruption));
  EXPECT_NE(s.message().find("type tag 9"), std::string_view::npos) << s.ToString();
}

TEST(ValueCodec, BadBooleanAndUnsortedNamesAreCorruption) {
  Entity b;
  b.Set("b", Value::Boolean(true));
  std::string bytes = Encode(b);
  bytes.back() = 2;
  Entity e;
  ValueHeader h;
  EXPECT_THAT(DecodeValue(bytes, &h, &e), StatusIs(Status::Code::kCorruption));

  Entity two;
  two.Set("a", Value::Boolean(true)).Set("b", Value::Boolean(true));
  std::string sorted = Encode(two);
  // Swap the two names: "a" and "b" become "b" then "a".
  size_t first = sorted.find('a'), second = sorted.find('b');
  std::swap(sorted[first], sorted[second]);
  EXPECT_THAT(DecodeValue(sorted, &h, &e), StatusIs(Status::Code::kCorruption));
}

TEST(ValueCodec, RandomCorruptionNeverCrashes) {
  std::mt19937_64 rng(7);
  std::string good = Encode(EveryType());
  size_t corrupt = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    Entity e;
    ValueHeader h;
    Status s = DecodeValue(bytes, &h, &e);
    if (!s.ok()) {
      EXPECT_THAT(s, StatusIs(Status::Code::kCorruption));
      ++corrupt;
    }
  }
  EXPECT_GT(corrupt, 0u);  // the mutations did reach the checks
}

TEST(ValueCodec, HugeCountIsRejectedBeforeAllocating) {
  // version, timestamp, etag 1, then a property count of 2^35.
  std::string bytes =
      std::string("\x01", 1) + std::string(8, '\0') + "\x01" + "\x80\x80\x80\x80\x80\x01";
  Entity e;
  ValueHeader h;
  EXPECT_THAT(DecodeValue(bytes, &h, &e), StatusIs(Status::Code::kCorruption));
}

// Decoding into an entity that already holds properties (a reused page's slot) gives exactly the
// encoded entity, whatever it held; corruption is still found when the names match the slots',
// also after a decode that failed half-way.
TEST(ValueCodec, DecodingIntoAUsedEntityGivesExactlyTheEncodedOne) {
  Entity slot;
  ValueHeader h;
  Entity few;
  few.Set("d", Value::String("a string longer than the inline buffer")).Set("i32", Value::Int32(5));
  const Entity every = EveryType();
  for (const Entity& want : {every, few, every, Entity(), few}) {
    ASSERT_OK(DecodeValue(Encode(want), &h, &slot));
    ASSERT_EQ(slot.property_count(), want.property_count());
    for (const auto& [name, value] : want) {
      const Value* got = slot.Get(name);
      ASSERT_NE(got, nullptr) << name;
      EXPECT_EQ(*got, value) << name;
    }
  }

  // "a" then "b", decoded into a slot that holds a and b; then the same bytes with the names
  // swapped must still fail.
  Entity two;
  two.Set("a", Value::Boolean(true)).Set("b", Value::Boolean(true));
  const std::string sorted = Encode(two);
  ASSERT_OK(DecodeValue(sorted, &h, &slot));
  std::string swapped = sorted;
  size_t first = swapped.find('a'), second = swapped.find('b');
  std::swap(swapped[first], swapped[second]);
  EXPECT_THAT(DecodeValue(swapped, &h, &slot), StatusIs(Status::Code::kCorruption));
  // A failed decode leaves no half-decoded names behind. Slots a, b; a decode of {c: bad
  // Boolean} fails after naming slot 0 "c"; were "c", "b" left in the slots, the corrupt names
  // "c" then "b" would match them one by one and pass unchecked.
  ASSERT_OK(DecodeValue(sorted, &h, &slot));
  Entity c;
  c.Set("c", Value::Boolean(true));
  std::string bad_c = Encode(c);
  bad_c.back() = 7;
  EXPECT_THAT(DecodeValue(bad_c, &h, &slot), StatusIs(Status::Code::kCorruption));
  Entity bc;
  bc.Set("b", Value::Boolean(true)).Set("c", Value::Boolean(true));
  std::string cb = Encode(bc);
  size_t b_at = cb.find('b'), c_at = cb.find('c');
  std::swap(cb[b_at], cb[c_at]);
  EXPECT_THAT(DecodeValue(cb, &h, &slot), StatusIs(Status::Code::kCorruption));
  ASSERT_OK(DecodeValue(sorted, &h, &slot));
  EXPECT_TRUE(slot.SameContent(two));
}

// A reused slot keeps its name when the next entity's name at that position is the same; names
// of the same length that differ in any byte — first, middle or last, in names of 1 to 20 bytes,
// compared in words — must not be taken for it.
TEST(ValueCodec, ReusedSlotsTellApartNamesOfTheSameLength) {
  Entity slot;
  ValueHeader h;
  for (size_t len = 1; len <= 20; ++len) {
    const std::string base(len, 'm');
    for (size_t at = 0; at < len; ++at) {
      std::string other = base;
      other[at] = 'n';
      Entity first, second;
      first.Set(base, Value::Int32(1));
      second.Set(other, Value::Int32(2));
      ASSERT_OK(DecodeValue(Encode(first), &h, &slot));
      ASSERT_OK(DecodeValue(Encode(second), &h, &slot));
      ASSERT_TRUE(slot.SameContent(second))
          << "length " << len << ", differing at " << at << ": " << slot.DebugString();
    }
  }
}

}  // namespace
}  // namespace partkv::engine
