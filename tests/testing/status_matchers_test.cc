// The status assertions and matchers themselves (status_matchers.h): they pass on what they
// should, fail on the rest, and a failure's message carries the status.

#include "tests/testing/status_matchers.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "partkv/result.h"
#include "partkv/status.h"

namespace partkv {
namespace {

using ::partkv::testing::IsOk;
using ::partkv::testing::IsOkAndHolds;
using ::partkv::testing::StatusIs;
using ::testing::DescribeMatcher;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

using Code = Status::Code;

Status Missing() { return Status::NotFound("table 'Gone' does not exist"); }
Result<int> Seven() { return 7; }
Result<int> MissingInt() { return Missing(); }

// What `matcher` says about `value` when it does not match it.
template <typename M, typename T>
std::string Explain(const M& matcher, const T& value) {
  ::testing::StringMatchResultListener listener;
  ::testing::Matcher<const T&> m = matcher;
  m.MatchAndExplain(value, &listener);
  return listener.str();
}

TEST(StatusMatchersTest, OkMacrosPassOnOkStatusesAndResults) {
  EXPECT_OK(Status::OK());
  ASSERT_OK(Status::OK());
  EXPECT_OK(Seven());
  ASSERT_OK(Seven()) << "context is accepted";
  const Result<std::unique_ptr<int>> move_only = std::make_unique<int>(1);
  EXPECT_OK(move_only);
}

TEST(StatusMatchersTest, ExpectOkFailsWithTheStatusAndTheExpression) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Missing()), "NotFound: table 'Gone' does not exist");
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Missing()), "Missing()");
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(MissingInt()), "NotFound: table 'Gone' does not exist");
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Missing()) << "row " << 42, "row 42");
}

TEST(StatusMatchersTest, AssertOkFailsFatallyWithTheStatus) {
  EXPECT_FATAL_FAILURE(ASSERT_OK(Missing()), "NotFound: table 'Gone' does not exist");
  EXPECT_FATAL_FAILURE(ASSERT_OK(MissingInt()), "NotFound: table 'Gone' does not exist");
  EXPECT_FATAL_FAILURE(ASSERT_OK(Status::Busy("held")) << "while opening", "while opening");
}

// ASSERT_OK returns from the function that holds it: nothing after it runs.
void AssertOkThenMark(bool* reached) {
  ASSERT_OK(Status::InvalidArgument("bad"));
  *reached = true;
}

TEST(StatusMatchersTest, AssertOkStopsTheFunction) {
  static bool reached = false;
  EXPECT_FATAL_FAILURE(AssertOkThenMark(&reached), "InvalidArgument: bad");
  EXPECT_FALSE(reached);
}

TEST(StatusMatchersTest, AssertOkAndAssignMovesTheValueOut) {
  ASSERT_OK_AND_ASSIGN(const int seven, Seven());
  EXPECT_EQ(seven, 7);
  std::unique_ptr<int> owned;
  ASSERT_OK_AND_ASSIGN(owned, Result<std::unique_ptr<int>>(std::make_unique<int>(3)));
  EXPECT_EQ(*owned, 3);
  EXPECT_FATAL_FAILURE(
      {
        ASSERT_OK_AND_ASSIGN(int never, MissingInt());
        (void)never;
      },
      "NotFound: table 'Gone' does not exist");
}

TEST(StatusMatchersTest, IsOkMatchesOkStatusesAndResults) {
  EXPECT_THAT(Status::OK(), IsOk());
  EXPECT_THAT(Seven(), IsOk());
  EXPECT_THAT(Missing(), Not(IsOk()));
  EXPECT_THAT(MissingInt(), Not(IsOk()));
  EXPECT_EQ(Explain(IsOk(), Missing()), "");  // the printed value says it all
  EXPECT_EQ(DescribeMatcher<Status>(IsOk()), "is OK");
  EXPECT_EQ(DescribeMatcher<Status>(IsOk(), /*negation=*/true), "is not OK");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(MissingInt(), IsOk()),
                          "NotFound: table 'Gone' does not exist");
}

TEST(StatusMatchersTest, StatusIsMatchesTheCodeOfAStatus) {
  EXPECT_THAT(Missing(), StatusIs(Code::kNotFound));
  EXPECT_THAT(Missing(), Not(StatusIs(Code::kAlreadyExists)));
  EXPECT_THAT(Status::OK(), StatusIs(Code::kOk));
  EXPECT_THAT(Status::OK(), Not(StatusIs(Code::kNotFound)));
  EXPECT_THAT(Status::Throttled("slow down", std::chrono::milliseconds(5)),
              StatusIs(Code::kThrottled));
}

TEST(StatusMatchersTest, StatusIsMatchesTheCodeOfAResult) {
  EXPECT_THAT(MissingInt(), StatusIs(Code::kNotFound));
  EXPECT_THAT(MissingInt(), Not(StatusIs(Code::kInvalidArgument)));
  EXPECT_THAT(Seven(), StatusIs(Code::kOk));
  EXPECT_THAT(Seven(), Not(StatusIs(Code::kNotFound)));
}

TEST(StatusMatchersTest, StatusIsMatchesTheMessageWithoutTheCodeName) {
  EXPECT_THAT(Missing(), StatusIs(Code::kNotFound, "table 'Gone' does not exist"));
  EXPECT_THAT(Missing(), StatusIs(Code::kNotFound, HasSubstr("Gone")));
  EXPECT_THAT(MissingInt(), StatusIs(Code::kNotFound, StartsWith("table")));
  EXPECT_THAT(Missing(), Not(StatusIs(Code::kNotFound, HasSubstr("NotFound"))));
  EXPECT_THAT(Missing(), Not(StatusIs(Code::kNotFound, "table 'Gone'")));
  EXPECT_THAT(Missing(), Not(StatusIs(Code::kBusy, HasSubstr("Gone"))));
  EXPECT_THAT(Status::OK(), StatusIs(Code::kOk, Eq("")));
  EXPECT_THAT(Missing().WithContext("open"),
              StatusIs(Code::kNotFound, "open: table 'Gone' does not exist"));
}

TEST(StatusMatchersTest, StatusIsExplainsAndDescribesItself) {
  EXPECT_EQ(Explain(StatusIs(Code::kBusy), Missing()), "whose code is NotFound");
  EXPECT_EQ(Explain(StatusIs(Code::kOk), Seven()), "");  // a match explains nothing
  EXPECT_EQ(Explain(StatusIs(Code::kNotFound), Seven()), "whose code is OK");
  EXPECT_EQ(Explain(StatusIs(Code::kNotFound, HasSubstr("Kept")), Missing()),
            "whose message has no substring \"Kept\"");
  EXPECT_EQ(DescribeMatcher<Status>(StatusIs(Code::kNotFound)), "has status code NotFound");
  EXPECT_EQ(DescribeMatcher<Status>(StatusIs(Code::kNotFound, "x")),
            "has status code NotFound and a message that is equal to \"x\"");
  EXPECT_EQ(DescribeMatcher<Status>(StatusIs(Code::kNotFound), /*negation=*/true),
            "has a status code other than NotFound");
}

TEST(StatusMatchersTest, AFailedStatusIsPrintsTheStatusAndTheExpectedCode) {
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Missing(), StatusIs(Code::kInvalidArgument)),
                          "has status code InvalidArgument");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(MissingInt(), StatusIs(Code::kInvalidArgument)),
                          "NotFound: table 'Gone' does not exist");
  EXPECT_FATAL_FAILURE(ASSERT_THAT(Seven(), StatusIs(Code::kNotFound)), "OK: 7");
}

TEST(StatusMatchersTest, IsOkAndHoldsMatchesTheValueOfAnOkResult) {
  EXPECT_THAT(Seven(), IsOkAndHolds(7));
  EXPECT_THAT(Seven(), IsOkAndHolds(::testing::Gt(5)));
  EXPECT_THAT(Seven(), Not(IsOkAndHolds(8)));
  EXPECT_THAT(MissingInt(), Not(IsOkAndHolds(7)));
  EXPECT_EQ(Explain(IsOkAndHolds(7), MissingInt()), "which is not OK");
  EXPECT_EQ(DescribeMatcher<Result<int>>(IsOkAndHolds(7)),
            "is OK and has a value that is equal to 7");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Seven(), IsOkAndHolds(8)), "OK: 7");
}

TEST(StatusMatchersTest, GtestPrintsStatusesAndResultsReadably) {
  EXPECT_EQ(::testing::PrintToString(Missing()), "NotFound: table 'Gone' does not exist");
  EXPECT_EQ(::testing::PrintToString(Status::OK()), "OK");
  EXPECT_EQ(::testing::PrintToString(Seven()), "OK: 7");
  EXPECT_EQ(::testing::PrintToString(MissingInt()), "NotFound: table 'Gone' does not exist");
}

}  // namespace
}  // namespace partkv
