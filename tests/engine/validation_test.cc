// Each of Azure's limits rejects the first value past it and accepts the last within it.

#include "engine/validation.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;

const Limits kAzure = Limits::AzureTable();

Status CheckEntity(const Entity& e) { return ValidateEntity(e, kAzure); }

Entity WithProperty(std::string name, Value v) {
  Entity e("p", "r");
  e.Set(std::move(name), std::move(v));
  return e;
}

void ExpectRejected(const Status& s, std::string_view mention) {
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find(mention), std::string_view::npos)
      << "message should mention '" << mention << "': " << s.ToString();
}

TEST(Validation, KeyOfOneKibAcceptedOneCharMoreRejected) {
  // 1 KiB in UTF-16 is 512 BMP characters.
  EXPECT_OK(ValidateKey(std::string(512, 'k'), "RowKey", kAzure));
  ExpectRejected(ValidateKey(std::string(513, 'k'), "RowKey", kAzure), "limit is 1024");
  // A character outside the BMP takes two UTF-16 units.
  std::string astral = "\xF0\x9F\x98\x80";  // U+1F600
  std::string at_limit, over;
  for (int i = 0; i < 256; ++i) at_limit += astral;
  EXPECT_OK(ValidateKey(at_limit, "PartitionKey", kAzure));
  ExpectRejected(ValidateKey(at_limit + "x", "PartitionKey", kAzure), "PartitionKey");
}

TEST(Validation, ForbiddenKeyCharactersRejected) {
  for (std::string bad :
       std::vector<std::string>{"a/b", "a\\b", "a#b", "a?b", std::string("a\0b", 3), "a\tb",
                                "a\x1f", "a\x7f", "a\xc2\x80", "a\xc2\x9f"}) {
    ExpectRejected(ValidateKey(bad, "RowKey", kAzure), "forbidden character");
  }
  for (std::string good : {"", "a b", "O'Brien", "100%", "Zürich", "东京", "a\xc2\xa0"}) {
    EXPECT_OK(ValidateKey(good, "RowKey", kAzure)) << good;
  }
}

TEST(Validation, InvalidUtf8KeysRejected) {
  for (std::string bad : {"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    ExpectRejected(ValidateKey(bad, "PartitionKey", kAzure), "UTF-8");
  }
}

TEST(Validation, PropertyCountLimitIs252) {
  Entity e("p", "r");
  for (int i = 0; i < 252; ++i) e.Set("p" + std::to_string(i), Value::Int32(i));
  EXPECT_OK(CheckEntity(e));
  e.Set("one_more", Value::Int32(0));
  ExpectRejected(CheckEntity(e), "limit is 252");
}

TEST(Validation, PropertyNamesFollowIdentifierRules) {
  EXPECT_OK(CheckEntity(WithProperty(std::string(255, 'n'), Value::Int32(1))));
  ExpectRejected(CheckEntity(WithProperty(std::string(256, 'n'), Value::Int32(1))), "limit is 255");
  for (std::string good : {"a", "_x", "Name1", "größe"}) {
    EXPECT_OK(CheckEntity(WithProperty(good, Value::Int32(1)))) << good;
  }
  for (std::string bad : {"1abc", "with-dash", "has space", "dot.ted", "a@odata"}) {
    ExpectRejected(CheckEntity(WithProperty(bad, Value::Int32(1))), "property name");
  }
  for (std::string reserved : {"PartitionKey", "RowKey", "Timestamp"}) {
    ExpectRejected(CheckEntity(WithProperty(reserved, Value::String("x"))), "system property");
  }
}

TEST(Validation, StringOf64KibAcceptedOneCharMoreRejected) {
  EXPECT_OK(CheckEntity(WithProperty("s", Value::String(std::string(32768, 'x')))));
  ExpectRejected(CheckEntity(WithProperty("s", Value::String(std::string(32769, 'x')))),
                 "limit is 65536");
  ExpectRejected(CheckEntity(WithProperty("s", Value::String("\xff"))), "UTF-8");
}

TEST(Validation, BinaryOf64KibAcceptedOneByteMoreRejected) {
  EXPECT_OK(CheckEntity(WithProperty("b", Value::Binary(std::string(65536, 'x')))));
  ExpectRejected(CheckEntity(WithProperty("b", Value::Binary(std::string(65537, 'x')))),
                 "limit is 65536");
}

TEST(Validation, EntityOfOneMibAcceptedOneByteMoreRejected) {
  // Fill with Binary properties, then trim the last one so the estimate lands exactly on 1 MiB.
  Entity e("p", "r");
  const size_t kLimit = 1u << 20;
  int i = 0;
  while (EstimateEntitySize(e) + 8 + 2 * 4 + 65536 + 4 <= kLimit) {
    e.Set("b" + std::to_string(100 + i++), Value::Binary(std::string(65536, 'x')));
  }
  std::string last = "z999";
  e.Set(last, Value::Binary(""));
  size_t room = kLimit - EstimateEntitySize(e);
  e.Set(last, Value::Binary(std::string(room, 'y')));
  ASSERT_EQ(EstimateEntitySize(e), kLimit);
  EXPECT_OK(CheckEntity(e));
  e.Set(last, Value::Binary(std::string(room + 1, 'y')));
  ExpectRejected(CheckEntity(e), "limit is 1048576");
}

TEST(Validation, EntitySizeFollowsAzureFormula) {
  Entity e("pk", "rk");  // 4 + 2*(2+2) = 12
  EXPECT_EQ(EstimateEntitySize(e), 12u);
  e.Set("ab", Value::String("xyz"));  // 8 + 4 + (6 + 4) = 22
  EXPECT_EQ(EstimateEntitySize(e), 34u);
  e.Set("n", Value::Int32(1));  // 8 + 2 + 4 = 14
  EXPECT_EQ(EstimateEntitySize(e), 48u);
  e.Set("g", Value::Guid(Guid{}));  // 8 + 2 + 16 = 26
  EXPECT_EQ(EstimateEntitySize(e), 74u);
}

TEST(Validation, TableNamesFollowAzureRule) {
  for (std::string good : std::vector<std::string>{"abc", "Orders", "T123", std::string(63, 'a')}) {
    EXPECT_OK(ValidateTableName(good)) << good;
  }
  for (std::string bad : std::vector<std::string>{"ab", "1abc", "with-dash", "has_underscore",
                                                  std::string(64, 'a'), ""}) {
    ExpectRejected(ValidateTableName(bad), "table name");
  }
  ExpectRejected(ValidateTableName("Tables"), "reserved");
}

}  // namespace
}  // namespace partkv::engine
