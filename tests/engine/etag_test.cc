#include "engine/etag.h"

#include <random>

#include "gtest/gtest.h"
#include "partkv/value.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

TEST(Etag, FormatIsAzuresDatetimeFormOfTheTicks) {
  // 2021-04-06T21:03:31.9231271Z, the form Azure's own responses carry.
  auto t = DateTime::Parse("2021-04-06T21:03:31.9231271Z");
  ASSERT_OK(t);
  EXPECT_EQ(FormatEtag(static_cast<uint64_t>(t->ticks)),
            "W/\"datetime'2021-04-06T21%3A03%3A31.9231271Z'\"");
  EXPECT_EQ(FormatEtag(0), "W/\"datetime'0001-01-01T00%3A00%3A00.0000000Z'\"");
  EXPECT_EQ(FormatEtag(static_cast<uint64_t>(DateTime::kMaxTicks)),
            "W/\"datetime'9999-12-31T23%3A59%3A59.9999999Z'\"");
}

TEST(Etag, EveryVersionParsesBackToItself) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> ticks(0, static_cast<uint64_t>(DateTime::kMaxTicks));
  for (int i = 0; i < 20000; ++i) {
    uint64_t v =
        i < 3 ? std::initializer_list<uint64_t>{0, 1, DateTime::kMaxTicks}.begin()[i] : ticks(rng);
    ASSERT_EQ(ParseEtag(FormatEtag(v)), v) << FormatEtag(v);
  }
}

TEST(Etag, AgreesWithDateTimeTextEverywhere) {
  // The ETag's datetime is the entity's Timestamp: the same calendar arithmetic as DateTime.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> ticks(0, DateTime::kMaxTicks);
  for (int i = 0; i < 2000; ++i) {
    DateTime t{ticks(rng)};
    std::string text = t.ToString();  // YYYY-MM-DDTHH:MM:SS[.f]Z
    auto parsed = ParseEtag("W/\"datetime'" + text + "'\"");
    if (text.find('.') == std::string::npos || text.size() != 28) continue;  // trimmed fraction
    ASSERT_EQ(parsed, static_cast<uint64_t>(t.ticks)) << text;
  }
}

TEST(Etag, UnencodedColonsAreAcceptedToo) {
  EXPECT_EQ(ParseEtag("W/\"datetime'2021-04-06T21:03:31.9231271Z'\""),
            ParseEtag("W/\"datetime'2021-04-06T21%3A03%3A31.9231271Z'\""));
  EXPECT_TRUE(ParseEtag("W/\"datetime'2021-04-06T21:03:31.9231271Z'\"").has_value());
}

TEST(Etag, AnythingElseMatchesNothing) {
  for (const char* bad :
       {"", "*", "W/\"\"", "W/\"1f3\"", "\"datetime'2021-04-06T21%3A03%3A31.9231271Z'\"",
        "W/\"datetime'2021-04-06T21%3A03%3A31.923127Z'\"",      // six digits
        "W/\"datetime'2021-04-06T21%3A03%3A31.9231271'\"",      // no Z
        "W/\"datetime'2021-02-29T21%3A03%3A31.9231271Z'\"",     // not a leap year
        "W/\"datetime'2021-13-06T21%3A03%3A31.9231271Z'\"",     // month 13
        "W/\"datetime'2021-04-06T24%3A03%3A31.9231271Z'\"",     // hour 24
        "W/\"datetime'2021-04-06T21%3a03%3A31.9231271Z'\"",     // lower-case escape
        "W/\"datetime'2021-04-06T21%3A03%3A31.9231271Z'",       // unterminated
        "W/\"datetime'0000-04-06T21%3A03%3A31.9231271Z'\""}) {  // year 0
    EXPECT_FALSE(ParseEtag(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace partkv::engine
