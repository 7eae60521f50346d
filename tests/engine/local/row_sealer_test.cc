// Sealed rows (engine/local/row_sealer.h): validated and encoded once, then written by SubmitSealed
// with the same result as Table::Submit; and nothing that did not pass the table's validation gets
// in — not a damaged row, not a row of another sealer, not a row for another table.

#include "engine/local/row_sealer.h"

#include <string>
#include <vector>

#include "api/front/front_access.h"
#include "engine/local/table_handle.h"
#include "engine/value_codec.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::IsOk;
using ::partkv::testing::IsOkAndHolds;
using ::partkv::testing::StatusIs;
using ::testing::Not;

class RowSealerTest : public testing::StoreFixture {
 protected:
  TableHandle& state() { return FrontAccess::Of(*table_); }

  RowSealer Sealer(OpType type = OpType::kInsert) {
    auto sealer = state().NewRowSealer(type);
    EXPECT_OK(sealer);
    return *sealer;
  }

  // The sealed rows of `entities`, one string each.
  static std::vector<std::string> Seal(const RowSealer& sealer,
                                       const std::vector<Entity>& entities) {
    std::vector<std::string> rows;
    for (const Entity& e : entities) {
      std::string row;
      Status s = sealer.Seal(e, &row);
      EXPECT_OK(s);
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // Reads `rows` back with `reader` (default: `sealer`) and submits them with `sealer`.
  Status Submit(const RowSealer& sealer, const std::vector<std::string>& rows,
                const RowSealer* reader = nullptr) {
    std::vector<SealedRow> sealed(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      auto whole = (reader != nullptr ? *reader : sealer).Parse(rows[i], &sealed[i]);
      EXPECT_THAT(whole, IsOkAndHolds(true)) << i;
      if (!whole.ok() || !*whole) return Status::Corruption("unreadable test row");
    }
    return state().SubmitSealed(sealer, sealed, {});
  }

  static Entity Rich(std::string pk, std::string rk) {
    Entity e(std::move(pk), std::move(rk));
    e.Set("s", Value::String("héllo"))
        .Set("n", Value::Int32(-7))
        .Set("big", Value::Int64(9007199254740993LL))
        .Set("d", Value::Double(2.5))
        .Set("b", Value::Boolean(true))
        .Set("bin", Value::Binary(std::string("\x00\xff", 2)))
        .Set("t", Value::DateTime(DateTime{638000000000000000}))
        .Set("g", Value::Guid(*Guid::Parse("a455c695-df98-5678-aaaa-81d3367e5a34")));
    return e;
  }
};

TEST_F(RowSealerTest, HeaderAndBodyMakeTheValueEncoding) {
  // SubmitSealed prepends a header to a sealed row's body; that must be EncodeValue's output.
  Entity e = Rich("p", "r");
  for (ValueHeader h : {ValueHeader{}, ValueHeader{1, 1}, ValueHeader{638000000000000000, 300},
                        ValueHeader{DateTime::kMaxTicks, ~uint64_t{0}}}) {
    std::string whole;
    EncodeValue(h, e, &whole);
    std::string header;
    AppendValueHeader(h, &header);
    std::string zero;
    EncodeValue(ValueHeader{}, e, &zero);
    std::string zero_header;
    AppendValueHeader(ValueHeader{}, &zero_header);
    ASSERT_EQ(whole.substr(0, header.size()), header);
    EXPECT_EQ(whole.substr(header.size()), zero.substr(zero_header.size()));
  }
}

TEST_F(RowSealerTest, SealedRowsWriteWhatSubmitWrites) {
  RowSealer sealer = Sealer();
  ASSERT_OK(Submit(sealer, Seal(sealer, {Rich("p", "a"), Rich("p", "b")})));
  Batch batch;
  batch.Insert(Rich("q", "a"));
  ASSERT_OK(table_->Submit(batch));
  auto sealed = table_->Get("p", "a");
  auto submitted = table_->Get("q", "a");
  ASSERT_OK(sealed);
  ASSERT_OK(submitted);
  EXPECT_EQ(Get("p", "a"), Get("q", "a"));
  EXPECT_EQ(Get("p", "b"), Get("q", "a"));
  EXPECT_FALSE(sealed->etag().empty());
  EXPECT_NE(sealed->etag(), table_->Get("p", "b")->etag());
  EXPECT_GT(sealed->timestamp().ticks, 0);
}

TEST_F(RowSealerTest, SealRefusesWhatSubmitRefusesWithItsMessage) {
  RowSealer sealer = Sealer();
  Entity bad("p", "r");
  bad.Set("bad name", Value::Int32(1));
  std::string out = "kept";
  Status sealed = sealer.Seal(bad, &out);
  Batch batch;
  batch.Insert(bad);
  auto submitted = table_->Submit(batch);
  ASSERT_THAT(sealed, StatusIs(Status::Code::kInvalidArgument));
  ASSERT_THAT(submitted, Not(IsOk()));
  // Submit prefixes the operation's index; the reason is the same.
  EXPECT_EQ("operation 0: " + std::string(sealed.message()), submitted.status().message());
  EXPECT_EQ(out, "kept");
  EXPECT_THAT(sealer.Seal(Entity("p/q", "r"), &out),
              StatusIs(Status::Code::kInvalidArgument));  // key characters
}

TEST_F(RowSealerTest, OnlyWholeEntityWritesCanBeSealed) {
  EXPECT_OK(state().NewRowSealer(OpType::kInsertOrReplace));
  for (OpType t : {OpType::kMerge, OpType::kReplace, OpType::kInsertOrMerge, OpType::kDelete}) {
    EXPECT_THAT(state().NewRowSealer(t), StatusIs(Status::Code::kInvalidArgument)) << OpTypeName(t);
  }
}

TEST_F(RowSealerTest, ParseReadsConcatenatedRowsAndAsksForMore) {
  RowSealer sealer = Sealer();
  std::vector<std::string> rows = Seal(sealer, {Make("p", "a", 1), Rich("p", "bb")});
  std::string both = rows[0] + rows[1];
  SealedRow row;
  auto r = sealer.Parse(both, &row);
  ASSERT_THAT(r, IsOkAndHolds(true));
  EXPECT_EQ(row.partition_key(), "p");
  EXPECT_EQ(row.row_key(), "a");
  EXPECT_EQ(row.bytes().size(), rows[0].size());
  EXPECT_GT(row.size(), 0u);
  r = sealer.Parse(std::string_view(both).substr(rows[0].size()), &row);
  ASSERT_THAT(r, IsOkAndHolds(true));
  EXPECT_EQ(row.row_key(), "bb");
  for (size_t cut = 0; cut < rows[1].size(); ++cut) {
    r = sealer.Parse(std::string_view(rows[1]).substr(0, cut), &row);
    ASSERT_OK(r) << cut;
    EXPECT_FALSE(*r) << cut;
  }
}

TEST_F(RowSealerTest, ADamagedRowIsNeverReadAsARow) {
  RowSealer sealer = Sealer();
  std::string row = Seal(sealer, {Rich("p", "a")})[0];
  for (size_t i = 0; i < row.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = row;
      damaged[i] ^= static_cast<char>(1 << bit);
      SealedRow read;
      auto r = sealer.Parse(damaged, &read);
      // Corruption, or a length field now pointing past the end ("read more"); never a row.
      EXPECT_THAT(r, Not(IsOkAndHolds(true))) << "byte " << i << " bit " << bit;
      if (!r.ok()) EXPECT_THAT(r, StatusIs(Status::Code::kCorruption));
    }
  }
}

TEST_F(RowSealerTest, RowsOfAnotherSealerOrTableAreRefused) {
  RowSealer mine = Sealer();
  RowSealer other = Sealer();
  std::vector<std::string> rows = Seal(other, {Make("p", "a", 1)});
  SealedRow read;
  auto r = mine.Parse(rows[0], &read);
  EXPECT_THAT(r, StatusIs(Status::Code::kCorruption));
  // Read by `other`, submitted with `mine`.
  Status s = Submit(mine, rows, &other);
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.failed_op(), 0);
  // A default SealedRow was read by no sealer.
  EXPECT_THAT(state().SubmitSealed(mine, {SealedRow()}, {}),
              StatusIs(Status::Code::kInvalidArgument));

  ASSERT_OK(store_->CreateTable("Others"));
  auto others = store_->OpenTable("Others");
  ASSERT_OK(others);
  auto foreign = FrontAccess::Of(*others).NewRowSealer(OpType::kInsert);
  ASSERT_OK(foreign);
  rows = Seal(*foreign, {Make("p", "a", 1)});
  s = Submit(*foreign, rows);
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("sealed for table 'Others'"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(Get("p", "a"), "NOT_FOUND");

  // The same table through another handle is the same table.
  auto again = store_->OpenTable("Items");
  ASSERT_OK(again);
  rows = Seal(other, {Make("p", "a", 1)});
  std::vector<SealedRow> sealed(1);
  ASSERT_OK(other.Parse(rows[0], &sealed[0]));
  EXPECT_OK(FrontAccess::Of(*again).SubmitSealed(other, sealed, {}));
  EXPECT_EQ(Get("p", "a"), "{n=1}");
}

TEST_F(RowSealerTest, BatchRulesHoldForSealedRows) {
  RowSealer sealer = Sealer();
  Status s = Submit(sealer, Seal(sealer, {Make("p", "a", 1), Make("q", "b", 2)}));
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.failed_op(), 1);
  s = Submit(sealer, Seal(sealer, {Make("p", "a", 1), Make("p", "b", 2), Make("p", "a", 3)}));
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.failed_op(), 2);
  EXPECT_NE(s.message().find("RowKey 'a' is already present"), std::string_view::npos);
  std::vector<Entity> many;
  for (int i = 0; i < 101; ++i) many.push_back(Make("p", "r" + std::to_string(i), i));
  EXPECT_THAT(Submit(sealer, Seal(sealer, many)), StatusIs(Status::Code::kInvalidArgument));
  // 20 entities of about 240 KB by Azure's formula: each within 1 MiB, together over 4 MiB.
  std::vector<Entity> large;
  for (int i = 0; i < 20; ++i) {
    Entity e("p", "r" + std::to_string(i));
    for (const char* name : {"s", "t", "u", "v"}) {
      e.Set(name, Value::String(std::string(30000, name[0])));
    }
    large.push_back(std::move(e));
  }
  s = Submit(sealer, Seal(sealer, large));
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("4 MiB"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(Get("p", "a"), "NOT_FOUND");
  EXPECT_EQ(Get("p", "r0"), "NOT_FOUND");
}

TEST_F(RowSealerTest, InsertOfAnExistingRowFailsTheBatchAndNamesIt) {
  ASSERT_OK(table_->Insert(Make("p", "c", 0)));
  RowSealer sealer = Sealer();
  Status s =
      Submit(sealer, Seal(sealer, {Make("p", "a", 1), Make("p", "b", 2), Make("p", "c", 3)}));
  EXPECT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(s.failed_op(), 2);
  EXPECT_EQ(Get("p", "a"), "NOT_FOUND");
  EXPECT_EQ(Get("p", "c"), "{n=0}");

  auto before = table_->Get("p", "c");
  ASSERT_OK(before);
  RowSealer upsert = Sealer(OpType::kInsertOrReplace);
  ASSERT_OK(Submit(upsert, Seal(upsert, {Make("p", "a", 1), Make("p", "c", 3)})));
  EXPECT_EQ(Get("p", "a"), "{n=1}");
  EXPECT_EQ(Get("p", "c"), "{n=3}");
  auto after = table_->Get("p", "c");
  ASSERT_OK(after);
  EXPECT_NE(after->etag(), before->etag());
  EXPECT_GT(after->timestamp().ticks, before->timestamp().ticks);
}

class RowSealerThrottleTest : public RowSealerTest {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.clock = clock_;  // budgets refill only when the test says
    Reopen(options);
    table_options_.profile = "dynamodb";
    table_options_.throttling = true;
    ASSERT_OK(store_->CreateTable("Items", table_options_));
    OpenTable();
  }
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1'000'000);
};

TEST_F(RowSealerThrottleTest, SealedRowsAreChargedTheirWriteCost) {
  // Entities of about 3 KB: 3 WCU each under DynamoDB. 100 of them need 300 units; a hot
  // partition's bucket holds 1,000 (one second at 1,000 WCU/s), so the fourth batch is throttled.
  RowSealer sealer = Sealer();
  Status s;
  int batch = 0;
  for (; batch < 10; ++batch) {
    std::vector<Entity> entities;
    for (int i = 0; i < 100; ++i) {
      Entity e("hot", "r" + std::to_string(batch * 100 + i));
      e.Set("payload", Value::String(std::string(2900, 'x')));
      entities.push_back(std::move(e));
    }
    s = Submit(sealer, Seal(sealer, entities));
    if (!s.ok()) break;
  }
  EXPECT_THAT(s, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(batch, 3);
  EXPECT_EQ(Get("hot", "r300"), "NOT_FOUND");
}

class RowSealerSchemeTest : public RowSealerTest {
 protected:
  void SetUp() override {
    table_options_.partition_key_scheme = KeyStrategy::Concat({"Device", "Day"});
    RowSealerTest::SetUp();
  }
};

TEST_F(RowSealerSchemeTest, TheTablesKeySchemeComputesMissingKeys) {
  RowSealer sealer = Sealer();
  Entity e("", "r");
  e.Set("Device", Value::String("d1")).Set("Day", Value::String("2024-01-02"));
  std::vector<std::string> rows = Seal(sealer, {e});
  SealedRow row;
  ASSERT_OK(sealer.Parse(rows[0], &row));
  EXPECT_FALSE(row.partition_key().empty());
  ASSERT_OK(Submit(sealer, rows));
  auto back = table_->GetByAttributes(e);
  ASSERT_OK(back);
  EXPECT_EQ(back->partition_key(), row.partition_key());
}

// The varints sealed rows (and the records that carry them, engine/local/bulk_spill.h) are made of.
TEST(SealVarintTest, VarintsReadBackAndTellACutFromAMalformedOne) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                     uint64_t{1} << 32, ~uint64_t{0}}) {
    std::string bytes;
    PutVarint(v, &bytes);
    size_t pos = 0;
    uint64_t back = 0;
    ASSERT_EQ(GetVarint(bytes, &pos, &back), VarintRead::kOk) << v;
    EXPECT_EQ(back, v);
    EXPECT_EQ(pos, bytes.size());
    pos = 0;
    EXPECT_EQ(GetVarint(std::string_view(bytes).substr(0, bytes.size() - 1), &pos, &back),
              VarintRead::kPartial)
        << v;
  }
  size_t pos = 0;
  uint64_t v = 0;
  EXPECT_EQ(GetVarint(std::string(11, '\x80'), &pos, &v), VarintRead::kBad);
}

}  // namespace
}  // namespace partkv::engine
