// Assertions and gmock matchers on partkv::Status and partkv::Result<T>, so that a failed check
// prints the status (its code and message) rather than "Value of: s.ok() Actual: false".
//
//   ASSERT_OK(store_->CreateTable("Items"));            // a Status or a Result<T>
//   EXPECT_OK(table_->Insert(e)) << "row " << i;        // streams extra context like EXPECT_TRUE
//   ASSERT_OK_AND_ASSIGN(auto table, store_->OpenTable("Items"));
//   EXPECT_THAT(table_->Get("p", "r"), StatusIs(Status::Code::kNotFound));
//   EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument, HasSubstr("RowKey")));
//   EXPECT_THAT(r, IsOk());
//   EXPECT_THAT(sealer.Parse(bytes, &row), IsOkAndHolds(true));   // a Result<T>'s value
//
// ASSERT_OK/EXPECT_OK evaluate their argument once and have the meaning of
// ASSERT_TRUE/EXPECT_TRUE(x.ok()). IsOk() and StatusIs() accept a Status or a Result<T>; a
// Result that holds a value has the OK status; IsOkAndHolds(m) accepts a Result<T> and matches
// its value against `m` (a matcher or a value of T). StatusIs(code) ignores the message;
// StatusIs(code, m) matches Status::message() (the text after "<CodeName>: ") against `m`, a
// matcher or a value of std::string. ASSERT_OK_AND_ASSIGN(lhs, expr) asserts that the Result
// `expr` is OK and moves its value into `lhs` (a declaration such as `auto x`, or an lvalue);
// like every ASSERT_ it returns from the enclosing function, which must return void.
//
// The header also gives gtest a PrintTo for Status and Result<T> (in namespace partkv, where
// argument-dependent lookup finds it), so that EXPECT_EQ/EXPECT_THAT print them readably.
//
// Names: the matchers are in partkv::testing; a test file outside that namespace declares
// `using ::partkv::testing::StatusIs;` (and IsOk, IsOkAndHolds). The macros need no declaration.

#ifndef PARTKV_TESTS_TESTING_STATUS_MATCHERS_H_
#define PARTKV_TESTS_TESTING_STATUS_MATCHERS_H_

#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "partkv/result.h"
#include "partkv/status.h"

namespace partkv {

// gtest's printer for a Status: "OK" or "<CodeName>: <message>".
inline void PrintTo(const Status& status, std::ostream* os) { *os << status.ToString(); }

// gtest's printer for a Result<T>: its status, or "OK: " and the value.
template <typename T>
void PrintTo(const Result<T>& result, std::ostream* os) {
  if (!result.ok()) {
    *os << result.status().ToString();
    return;
  }
  *os << "OK: " << ::testing::PrintToString(*result);
}

namespace testing {
namespace status_internal {

// The status of a Status or a Result<T>.
inline const Status& GetStatus(const Status& status) { return status; }
template <typename T>
Status GetStatus(const Result<T>& result) {
  return result.status();
}

// The predicate-formatter of ASSERT_OK/EXPECT_OK.
template <typename T>
::testing::AssertionResult IsOkPredFormat(const char* expr, const T& value) {
  const Status& status = GetStatus(value);  // a temporary's life is extended
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "Value of: " << expr << "\n  Actual: " << status.ToString() << "\nExpected: OK";
}

class IsOkMatcher {
 public:
  // No explanation: gtest prints the value beside a failure, and its status with it.
  template <typename T>
  bool MatchAndExplain(const T& value, ::testing::MatchResultListener* /*listener*/) const {
    return GetStatus(value).ok();
  }
  void DescribeTo(std::ostream* os) const { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is not OK"; }
};

class StatusIsMatcher {
 public:
  // `message` absent: any message.
  StatusIsMatcher(Status::Code code, std::optional<::testing::Matcher<const std::string&>> message)
      : code_(code), message_(std::move(message)) {}

  template <typename T>
  bool MatchAndExplain(const T& value, ::testing::MatchResultListener* listener) const {
    const Status& status = GetStatus(value);
    if (status.code() != code_) {
      *listener << "whose code is " << Status::CodeName(status.code());
      return false;
    }
    if (!message_.has_value()) return true;
    const std::string message(status.message());
    ::testing::StringMatchResultListener message_listener;
    if (!message_->MatchAndExplain(message, &message_listener)) {
      *listener << "whose message " << Describe(*message_, /*negation=*/true);
      if (!message_listener.str().empty()) *listener << ", " << message_listener.str();
      return false;
    }
    return true;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "has status code " << Status::CodeName(code_);
    if (message_.has_value()) *os << " and a message that " << Describe(*message_, false);
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "has a status code other than " << Status::CodeName(code_);
    if (message_.has_value()) *os << " or a message that " << Describe(*message_, true);
  }

 private:
  static std::string Describe(const ::testing::Matcher<const std::string&>& matcher,
                              bool negation) {
    std::ostringstream out;
    if (negation) {
      matcher.DescribeNegationTo(&out);
    } else {
      matcher.DescribeTo(&out);
    }
    return out.str();
  }

  Status::Code code_;
  std::optional<::testing::Matcher<const std::string&>> message_;
};

// IsOkAndHolds(m) as a matcher of one Result type.
template <typename ResultRef>
class IsOkAndHoldsImpl : public ::testing::MatcherInterface<ResultRef> {
 public:
  using Value = std::remove_cvref_t<decltype(*std::declval<ResultRef>())>;

  template <typename InnerMatcher>
  explicit IsOkAndHoldsImpl(InnerMatcher&& inner)
      : inner_(::testing::SafeMatcherCast<const Value&>(std::forward<InnerMatcher>(inner))) {}

  bool MatchAndExplain(ResultRef result, ::testing::MatchResultListener* listener) const override {
    if (!result.ok()) {
      *listener << "which is not OK";
      return false;
    }
    ::testing::StringMatchResultListener inner_listener;
    const bool matches = inner_.MatchAndExplain(*result, &inner_listener);
    if (!inner_listener.str().empty()) {
      *listener << "whose value " << inner_listener.str();
    }
    return matches;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "is OK and has a value that ";
    inner_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is not OK or has a value that ";
    inner_.DescribeNegationTo(os);
  }

 private:
  ::testing::Matcher<const Value&> inner_;
};

// IsOkAndHolds(m), polymorphic in the Result type.
template <typename InnerMatcher>
class IsOkAndHoldsMatcher {
 public:
  explicit IsOkAndHoldsMatcher(InnerMatcher inner) : inner_(std::move(inner)) {}

  template <typename ResultType>
  operator ::testing::Matcher<ResultType>() const {  // NOLINT(runtime/explicit)
    return ::testing::Matcher<ResultType>(new IsOkAndHoldsImpl<const ResultType&>(inner_));
  }

 private:
  InnerMatcher inner_;
};

}  // namespace status_internal

// Matches a Status or a Result<T> that is OK.
inline ::testing::PolymorphicMatcher<status_internal::IsOkMatcher> IsOk() {
  return ::testing::MakePolymorphicMatcher(status_internal::IsOkMatcher());
}

// Matches a Result<T> that is OK and whose value matches `inner` (a matcher of T, or a value it
// must equal).
template <typename InnerMatcher>
status_internal::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>> IsOkAndHolds(
    InnerMatcher&& inner) {
  return status_internal::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>>(
      std::forward<InnerMatcher>(inner));
}

// Matches a Status or a Result<T> whose code is `code` and whose message matches `message`
// (a matcher of std::string, or a string it must equal).
template <typename MessageMatcher>
::testing::PolymorphicMatcher<status_internal::StatusIsMatcher> StatusIs(Status::Code code,
                                                                         MessageMatcher&& message) {
  return ::testing::MakePolymorphicMatcher(status_internal::StatusIsMatcher(
      code, ::testing::MatcherCast<const std::string&>(std::forward<MessageMatcher>(message))));
}

// Matches a Status or a Result<T> whose code is `code`, whatever the message.
inline ::testing::PolymorphicMatcher<status_internal::StatusIsMatcher> StatusIs(Status::Code code) {
  return ::testing::MakePolymorphicMatcher(status_internal::StatusIsMatcher(code, std::nullopt));
}

}  // namespace testing
}  // namespace partkv

// Asserts that a Status or a Result<T> is OK; prints its status when it is not. Extra context
// may be streamed: ASSERT_OK(s) << "row " << i.
#define ASSERT_OK(expr) \
  ASSERT_PRED_FORMAT1(::partkv::testing::status_internal::IsOkPredFormat, expr)
#define EXPECT_OK(expr) \
  EXPECT_PRED_FORMAT1(::partkv::testing::status_internal::IsOkPredFormat, expr)

// Evaluates the Result<T> `expr`, ASSERT_OKs it and moves its value into `lhs`.
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  PARTKV_ASSERT_OK_AND_ASSIGN_IMPL_(PARTKV_CONCAT_(partkv_test_result_, __LINE__), lhs, expr, #expr)
#define PARTKV_ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr, text)                \
  auto tmp = (expr);                                                           \
  GTEST_ASSERT_(::partkv::testing::status_internal::IsOkPredFormat(text, tmp), \
                GTEST_FATAL_FAILURE_);                                         \
  lhs = std::move(tmp).value()

#endif  // PARTKV_TESTS_TESTING_STATUS_MATCHERS_H_
