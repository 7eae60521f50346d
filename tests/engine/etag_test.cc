#include "engine/etag.h"

#include "gtest/gtest.h"

namespace partkv::engine {
namespace {

TEST(Etag, FormatMatchesDocumentAndParsesBack) {
  EXPECT_EQ(FormatEtag(0x1f3), "W/\"1f3\"");
  EXPECT_EQ(FormatEtag(0), "W/\"0\"");
  for (uint64_t v : {uint64_t{1}, uint64_t{255}, uint64_t{1} << 44, ~uint64_t{0}}) {
    EXPECT_EQ(ParseEtag(FormatEtag(v)), v);
  }
}

TEST(Etag, OnlyTheCanonicalTextMatches) {
  for (const char* bad : {"", "*", "W/\"\"", "W/\"01f3\"", "W/\"1F3\"", "\"1f3\"", "W/\"1f3",
                          "W/\"12345678901234567\"", "W/\"xyz\""}) {
    EXPECT_FALSE(ParseEtag(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace partkv::engine
