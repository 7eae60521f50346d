#include "engine/key_codec.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;

std::string RandomKey(std::mt19937_64& rng) {
  // A small alphabet with 0x00 and 0xFF-adjacent bytes makes prefix and escape cases common.
  static const char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\x7f', '\xc3', '\xbc'};
  std::string s(rng() % 5, ' ');
  for (char& c : s) c = kAlphabet[rng() % sizeof(kAlphabet)];
  return s;
}

TEST(KeyCodec, EncodedOrderIsPartitionThenRowOrder) {
  std::mt19937_64 rng(1);
  std::vector<std::pair<std::string, std::string>> keys;
  for (int i = 0; i < 3000; ++i) {
    std::string rk = RandomKey(rng);
    // RowKeys are UTF-8 and never start with 0xFF; the generator cannot produce it either.
    keys.emplace_back(RandomKey(rng), rk);
  }
  auto by_tuple = keys;
  std::sort(by_tuple.begin(), by_tuple.end());
  auto by_encoding = keys;
  std::sort(by_encoding.begin(), by_encoding.end(), [](const auto& a, const auto& b) {
    return EntityKey(a.first, a.second) < EntityKey(b.first, b.second);
  });
  EXPECT_EQ(by_tuple, by_encoding);
}

TEST(KeyCodec, DecodeInvertsEncode) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 2000; ++i) {
    std::string pk = RandomKey(rng), rk = RandomKey(rng);
    std::string dpk, drk;
    ASSERT_OK(DecodeEntityKey(EntityKey(pk, rk), &dpk, &drk));
    EXPECT_EQ(dpk, pk);
    EXPECT_EQ(drk, rk);
  }
}

TEST(KeyCodec, PartitionRangeHoldsExactlyItsKeys) {
  std::string begin;
  AppendPartitionPrefix("ab", &begin);
  std::string end = PartitionEnd("ab");
  auto inside = [&](std::string_view pk, std::string_view rk) {
    std::string k = EntityKey(pk, rk);
    return k >= begin && k < end;
  };
  EXPECT_TRUE(inside("ab", ""));
  EXPECT_TRUE(inside("ab", "\xf4\x8f\xbf\xbf"));
  EXPECT_FALSE(inside("a", "b"));
  EXPECT_FALSE(inside("abc", ""));
  EXPECT_FALSE(inside(std::string("ab\0", 3), "x"));
}

TEST(KeyCodec, KeyWithoutTerminatorIsCorruption) {
  std::string pk, rk;
  EXPECT_THAT(DecodeEntityKey("abc", &pk, &rk), StatusIs(Status::Code::kCorruption));
  EXPECT_THAT(DecodeEntityKey(std::string("a\0\xff", 3), &pk, &rk),
              StatusIs(Status::Code::kCorruption));
}

}  // namespace
}  // namespace partkv::engine
