// Atomic batches (docs/design.md "Semantics": Batch): all or nothing, checked before anything is
// written, and the error names the failing operation's 0-based index.

#include "partkv/batch.h"

#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

class BatchTest : public testing::StoreFixture {
 protected:
  // All entities of partition `pk`, as "rk=n;..." in RowKey order (by probing the known rows).
  std::string Rows(const std::string& pk, int count) {
    std::string out;
    for (int i = 0; i < count; ++i) {
      std::string rk = RowKey(i);
      auto e = table_->Get(pk, rk);
      if (e.ok()) out += rk + "=" + std::to_string(e->Get("n")->as_int32()) + ";";
    }
    return out;
  }
  static std::string RowKey(int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "r%03d", i);
    return buf;
  }
};

TEST_F(BatchTest, AllOperationsApplyTogether) {
  ASSERT_OK(table_->Insert(Make("p", RowKey(1), 1)));
  ASSERT_OK(table_->Insert(Make("p", RowKey(2), 2)));
  std::string etag2 = EtagOf("p", RowKey(2));
  Batch b;
  b.Insert(Make("p", RowKey(0), 10))
      .Replace(Make("p", RowKey(1), 11), IfMatch::Any())
      .Delete("p", RowKey(2), IfMatch::ETag(etag2))
      .InsertOrMerge(Make("p", RowKey(3), 13));
  auto r = table_->Submit(b);
  ASSERT_OK(r);
  ASSERT_EQ(r->size(), 4u);
  EXPECT_FALSE((*r)[0].etag.empty());
  EXPECT_TRUE((*r)[2].etag.empty());
  EXPECT_EQ(Rows("p", 5), "r000=10;r001=11;r003=13;");
  EXPECT_EQ(EtagOf("p", RowKey(0)), (*r)[0].etag);
}

TEST_F(BatchTest, FailureAtOp57LeavesPartitionUntouchedAndReports57) {
  ASSERT_OK(table_->Insert(Make("p", RowKey(57), -1)));
  std::string before = Rows("p", 100);
  Batch b;
  for (int i = 0; i < 100; ++i) b.Insert(Make("p", RowKey(i), i));
  auto r = table_->Submit(b);
  EXPECT_THAT(r, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(r.status().failed_op(), 57);
  // Named once, and a service's own "57:" before its message is left to failed_op().
  const std::string message(r.status().message());
  EXPECT_NE(message.find("operation 57"), std::string::npos) << message;
  EXPECT_EQ(message.find("operation 57"), message.rfind("operation 57")) << message;
  EXPECT_EQ(message.find("(57:"), std::string::npos) << message;
  EXPECT_EQ(Rows("p", 100), before);
}

TEST_F(BatchTest, RowsInAnyOrderAreCheckedAgainstTheirOwnState) {
  ASSERT_OK(table_->Insert(Make("p", RowKey(3), 3)));
  ASSERT_OK(table_->Insert(Make("p", RowKey(7), 7)));
  Batch merge_existing;
  // Descending RowKeys: each operation must see its own row's state, not a neighbour's.
  merge_existing.Merge(Make("p", RowKey(7), 70), IfMatch::Any())
      .Insert(Make("p", RowKey(5), 5))
      .Replace(Make("p", RowKey(3), 30), IfMatch::Any());
  ASSERT_OK(table_->Submit(merge_existing));
  EXPECT_EQ(Rows("p", 8), "r003=30;r005=5;r007=70;");
  Batch collide;
  collide.Insert(Make("p", RowKey(6), 6)).Insert(Make("p", RowKey(3), 0));
  auto r = table_->Submit(collide);
  EXPECT_THAT(r, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(r.status().failed_op(), 1);
  EXPECT_EQ(Rows("p", 8), "r003=30;r005=5;r007=70;");
}

TEST_F(BatchTest, StaleEtagInBatchFailsWholeBatch) {
  ASSERT_OK(table_->Insert(Make("p", RowKey(1), 1)));
  Batch b;
  b.Insert(Make("p", RowKey(0), 0)).Merge(Make("p", RowKey(1), 5), IfMatch::ETag("W/\"0\""));
  auto r = table_->Submit(b);
  EXPECT_THAT(r, StatusIs(Status::Code::kPreconditionFailed));
  EXPECT_EQ(r.status().failed_op(), 1);
  EXPECT_EQ(Rows("p", 3), "r001=1;");
}

TEST_F(BatchTest, MoreThan100OperationsRejected) {
  Batch b;
  for (int i = 0; i < 100; ++i) b.Insert(Make("p", RowKey(i), i));
  Batch over = b;
  over.Insert(Make("p", "r100", 100));
  auto r = table_->Submit(over);
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(r.status().failed_op(), 100);
  EXPECT_EQ(Rows("p", 100), "");
  EXPECT_OK(table_->Submit(b));  // exactly 100 is fine
}

TEST_F(BatchTest, MixedPartitionKeysRejected) {
  Batch b;
  b.Insert(Make("p", RowKey(0), 0)).Insert(Make("q", RowKey(1), 1));
  auto r = table_->Submit(b);
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(r.status().failed_op(), 1);
  EXPECT_EQ(Rows("p", 2), "");
  EXPECT_EQ(Rows("q", 2), "");
}

TEST_F(BatchTest, DuplicateRowsRejected) {
  Batch b;
  b.Insert(Make("p", RowKey(0), 0))
      .Insert(Make("p", RowKey(1), 1))
      .InsertOrReplace(Make("p", RowKey(0), 2));
  auto r = table_->Submit(b);
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(r.status().failed_op(), 2);
  EXPECT_NE(r.status().message().find("already present"), std::string_view::npos);
  EXPECT_EQ(Rows("p", 2), "");
}

TEST_F(BatchTest, MoreThan4MibRejectedAtTheCrossingOperation) {
  Batch b;
  // Each entity is ~64 KiB of Binary by Azure's formula; 64 of them pass 4 MiB.
  for (int i = 0; i < 70; ++i) {
    Entity e("p", RowKey(i));
    e.Set("n", Value::Int32(i)).Set("blob", Value::Binary(std::string(65000, 'x')));
    b.Insert(std::move(e));
  }
  auto r = table_->Submit(b);
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(r.status().message().find("4 MiB"), std::string_view::npos) << r.status().ToString();
  EXPECT_EQ(r.status().failed_op(), 64);
  EXPECT_EQ(Rows("p", 70), "");
}

TEST_F(BatchTest, InvalidEntityNamesItsIndex) {
  Batch b;
  Entity bad("p", RowKey(1));
  bad.Set("bad-name", Value::Int32(1));
  b.Insert(Make("p", RowKey(0), 0)).Insert(bad);
  auto r = table_->Submit(b);
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(r.status().failed_op(), 1);
  EXPECT_EQ(Rows("p", 2), "");
}

}  // namespace
}  // namespace partkv
