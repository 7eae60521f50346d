// partkv::CopyTable and partkv::VerifyCopy (partkv/copy.h) between two local stores: every
// property type and edge key copied exactly, filter and select, the three modes, re-keying (keys
// as the scheme computes them, collisions, the kept keys and Timestamp), the options and
// checkpoints refused before anything is written, stopping and resuming through the checkpoint,
// and what VerifyCopy counts and lists.

#include "partkv/copy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {

// gtest's printer for the keys VerifyCopy lists: ("pk", "rk").
static void PrintTo(const CopyKey& key, std::ostream* os) {
  *os << "(\"" << key.partition_key << "\", \"" << key.row_key << "\")";
}

namespace {

using ::partkv::testing::IsOk;
using ::partkv::testing::StatusIs;
using ::partkv::testing::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

// "%06d": row keys whose byte order is their numeric order.
std::string Rk(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06d", i);
  return buf;
}

// A key as the copy's messages name it: ("pk", "rk").
std::string Named(const std::string& pk, const std::string& rk) {
  return "(\"" + pk + "\", \"" + rk + "\")";
}

Entity Row(const std::string& pk, const std::string& rk, int n) {
  Entity e(pk, rk);
  e.Set("n", Value::Int32(n));
  e.Set("text", Value::String("row " + std::to_string(n)));
  return e;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

class CopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto from = Store::Open(dir_.Sub("from"));
    ASSERT_OK(from);
    from_.emplace(std::move(*from));
    auto to = Store::Open(dir_.Sub("to"));
    ASSERT_OK(to);
    to_.emplace(std::move(*to));
    checkpoint_ = dir_.Sub("copy.checkpoint");
  }

  static Result<Table> Create(Store& store, const std::string& name, TableOptions options = {}) {
    PARTKV_RETURN_IF_ERROR(store.CreateTable(name, options));
    return store.OpenTable(name);
  }
  // A source table of `partitions` physical partitions: with one, the copy reads one unit, in
  // key order, so where a copy stops is known.
  Result<Table> Source(const std::string& name, uint32_t partitions = 1) {
    TableOptions options;
    options.physical_partitions = partitions;
    return Create(*from_, name, options);
  }
  Result<Table> Destination(const std::string& name) { return Create(*to_, name); }

  // Every entity of `table`, in key order.
  static Result<std::vector<Entity>> All(const Table& table) {
    std::vector<Entity> out;
    Query query;
    for (;;) {
      PARTKV_ASSIGN_OR_RETURN(Page page, table.QueryEntities(query));
      for (Entity& e : page.entities) out.push_back(std::move(e));
      if (!page.has_more()) return out;
      query.continuation = page.continuation;
    }
  }
  static size_t Count(const Table& table) {
    auto all = All(table);
    EXPECT_OK(all);
    return all.ok() ? all->size() : 0;
  }
  // Rows ("p", Rk(i)) for i in [0, n), inserted 100 to a batch.
  static void Fill(Table& table, int n, const std::string& pk = "p") {
    Batch batch;
    for (int i = 0; i < n; ++i) {
      batch.Insert(Row(pk, Rk(i), i));
      if (batch.size() == 100 || i == n - 1) {
        ASSERT_OK(table.Submit(batch));
        batch.Clear();
      }
    }
  }
  // Every source entity is in the destination with the same keys and properties.
  static void ExpectSameEntities(const Table& from, const Table& to) {
    auto source = All(from);
    ASSERT_OK(source);
    auto destination = All(to);
    ASSERT_OK(destination);
    ASSERT_EQ(destination->size(), source->size());
    for (size_t i = 0; i < source->size(); ++i) {
      EXPECT_TRUE((*source)[i].SameContent((*destination)[i]))
          << (*source)[i].DebugString() << "\n  copied as " << (*destination)[i].DebugString();
    }
  }
  static void ExpectClean(const Table& from, const Table& to, const CopyOptions& options) {
    auto verified = VerifyCopy(from, to, options);
    ASSERT_OK(verified);
    EXPECT_TRUE(verified->clean()) << "missing " << verified->missing << ", extra "
                                   << verified->extra << ", different " << verified->different;
  }
  bool CheckpointExists() const { return std::filesystem::exists(checkpoint_); }

  TempDir dir_;
  std::optional<Store> from_;
  std::optional<Store> to_;
  std::string checkpoint_;
};

// ---------------------------------------------------------------------------------------------
// What is copied.

// Entities of every property type with values at their limits, and keys at theirs.
std::vector<Entity> EveryTypeAndEdgeKey() {
  std::vector<Entity> out;
  const std::string max_ascii(512, 'k');  // 1 KiB in UTF-16
  std::string max_two_byte, max_surrogates;
  for (int i = 0; i < 512; ++i) max_two_byte += "é";    // 512 UTF-16 units, 1,024 UTF-8 bytes
  for (int i = 0; i < 256; ++i) max_surrogates += "😀";  // 512 UTF-16 units (pairs)
  const std::string quotes = "it's \"quoted\" ''";
  const std::vector<std::pair<std::string, std::string>> keys = {
      {"", ""},         {"", "r"},   {"Zürich ☃", "日本-0001"}, {"😀 emoji", "'"},
      {quotes, quotes}, {"'", "''"}, {max_ascii, max_two_byte}, {max_surrogates, max_ascii},
      {"plain", "row"},
  };
  auto guid = Guid::Parse("c9da6455-213d-42c9-9a79-3e9149a57833");
  for (size_t i = 0; i < keys.size(); ++i) {
    Entity e(keys[i].first, keys[i].second);
    e.Set("Str", Value::String(i % 2 == 0 ? "" : "naïve 😀 \"q\" ' \\ \t end"));
    e.Set("EmptyStr", Value::String(""));
    e.Set("Bin", Value::Binary(std::string("\0\x01\xfe\xff", 4)));
    e.Set("EmptyBin", Value::Binary(""));
    e.Set("True", Value::Boolean(true));
    e.Set("False", Value::Boolean(false));
    e.Set("OldDate", Value::DateTime(DateTime{DateTime::kMinAzureTicks}));
    e.Set("LastDate", Value::DateTime(DateTime{DateTime::kMaxTicks}));
    e.Set("Ticks", Value::DateTime(DateTime{DateTime::kUnixEpochTicks + 1234567}));
    e.Set("Integral", Value::Double(3.0));
    e.Set("NegZero", Value::Double(-0.0));
    e.Set("Huge", Value::Double(std::numeric_limits<double>::max()));
    e.Set("Tiny", Value::Double(std::numeric_limits<double>::denorm_min()));
    e.Set("NegInf", Value::Double(-std::numeric_limits<double>::infinity()));
    e.Set("Big53", Value::Double(9007199254740993.0));
    e.Set("Id", Value::Guid(*guid));
    e.Set("I32Min", Value::Int32(std::numeric_limits<int32_t>::min()));
    e.Set("I32Max", Value::Int32(std::numeric_limits<int32_t>::max()));
    e.Set("I64Min", Value::Int64(std::numeric_limits<int64_t>::min()));
    e.Set("I64Max", Value::Int64(std::numeric_limits<int64_t>::max()));
    e.Set("Index", Value::Int64(static_cast<int64_t>(i)));
    if (i == 2) {
      e.Set("LongStr", Value::String(std::string(32 * 1024, 'x')));  // 64 KiB in UTF-16
      e.Set("LongBin", Value::Binary(std::string(64 * 1024, '\x7f')));
    }
    out.push_back(std::move(e));
  }
  return out;
}

TEST_F(CopyTest, EveryTypeAndEdgeKeyIsCopiedExactly) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items", 4));
  std::vector<Entity> entities = EveryTypeAndEdgeKey();
  for (const Entity& e : entities) ASSERT_OK(from.Insert(e)) << e.DebugString();
  for (uint32_t streams : {1u, 4u}) {
    SCOPED_TRACE("streams " + std::to_string(streams));
    ASSERT_OK_AND_ASSIGN(Table to, Destination("Items" + std::to_string(streams)));
    CopyOptions options;
    options.streams = streams;
    std::optional<CopyProgress> last;
    options.on_progress = [&](const CopyProgress& p) { last = p; };
    ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
    ASSERT_OK(report.error);
    ASSERT_TRUE(last.has_value());
    EXPECT_EQ(last->units, 4u);
    EXPECT_EQ(last->units_done, 4u);
    EXPECT_EQ(last->rows_written, entities.size());
    EXPECT_EQ(report.rows_read, entities.size());
    EXPECT_EQ(report.rows_written, entities.size());
    EXPECT_EQ(report.resent, 0u);
    EXPECT_EQ(report.rows_failed, 0u);
    EXPECT_EQ(report.units, 4u);
    EXPECT_EQ(report.streams, streams);
    ExpectSameEntities(from, to);
    for (const Entity& e : entities) {
      auto copied = to.Get(e.partition_key(), e.row_key());
      ASSERT_OK(copied) << e.DebugString();
      EXPECT_TRUE(copied->SameContent(e)) << copied->DebugString();
      // -0 stays -0 (Values compare Doubles bitwise, so SameContent sees it; checked once more).
      EXPECT_TRUE(std::signbit(copied->Get("NegZero")->as_double()));
    }
    ASSERT_OK_AND_ASSIGN(VerifyReport verified, VerifyCopy(from, to, options));
    EXPECT_TRUE(verified.clean());
    EXPECT_EQ(verified.source_rows, entities.size());
    EXPECT_EQ(verified.destination_rows, entities.size());
  }
}

// A copy stopped after any edge key resumes after exactly that key: the key a checkpoint
// records is sought in the source again, whatever its characters and length.
TEST_F(CopyTest, ResumesAfterEveryEdgeKey) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  for (const Entity& e : EveryTypeAndEdgeKey()) ASSERT_OK(from.Insert(e));
  ASSERT_OK_AND_ASSIGN(std::vector<Entity> in_order, All(from));
  const size_t n = in_order.size();
  for (size_t k = 1; k < n; ++k) {
    const Entity& planted = in_order[k];
    SCOPED_TRACE("stopped at " + std::to_string(k) + ": " + planted.DebugString().substr(0, 80));
    ASSERT_OK_AND_ASSIGN(Table to, Destination("Items" + std::to_string(k)));
    ASSERT_OK(to.Insert(Entity(planted.partition_key(), planted.row_key())));
    CopyOptions options;
    options.max_group_rows = 1;
    options.checkpoint = checkpoint_;
    ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
    EXPECT_THAT(report.error, StatusIs(Status::Code::kAlreadyExists));
    EXPECT_EQ(report.rows_written, k);
    ASSERT_OK(to.Delete(planted.partition_key(), planted.row_key(), IfMatch::Any()));
    options.resume = true;
    ASSERT_OK_AND_ASSIGN(report, CopyTable(from, to, options));
    ASSERT_OK(report.error);
    EXPECT_EQ(report.rows_read, n - k);
    EXPECT_EQ(report.rows_written, n - k);
    EXPECT_EQ(report.resent, 0u);
    EXPECT_FALSE(CheckpointExists());
    ExpectSameEntities(from, to);
  }
}

// Units longer than one read of the source (by rows and by bytes), with and without a filter
// that drops whole reads.
TEST_F(CopyTest, UnitsOfManyReadsAreCopiedWhole) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 3000);
  ASSERT_OK_AND_ASSIGN(Table big, Source("Big"));
  for (int i = 0; i < 200; ++i) {
    Entity e = Row("b" + std::to_string(i % 3), Rk(i), i);
    e.Set("payload", Value::String(std::string(32 * 1024, static_cast<char>('a' + i % 26))));
    ASSERT_OK(big.Insert(e));
  }
  const std::vector<std::string> filters = {"", "n lt 500 or n ge 2900", "n ge 1500 and n lt 1510"};
  for (size_t f = 0; f < filters.size(); ++f) {
    SCOPED_TRACE("filter " + filters[f]);
    CopyOptions options;
    options.filter = filters[f];
    options.max_group_rows = 700;
    const std::string suffix = std::to_string(f);
    for (Table* source : {&from, &big}) {
      ASSERT_OK_AND_ASSIGN(Table to, Destination(source->name() + suffix));
      ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(*source, to, options));
      ASSERT_OK(report.error);
      EXPECT_EQ(report.rows_written, report.rows_read);
      ASSERT_OK_AND_ASSIGN(VerifyReport verified, VerifyCopy(*source, to, options));
      EXPECT_TRUE(verified.clean()) << source->name();
      EXPECT_EQ(verified.destination_rows, Count(to));
      EXPECT_EQ(verified.source_rows, report.rows_read);
    }
  }
  ASSERT_OK_AND_ASSIGN(Table all, to_->OpenTable("Items0"));
  EXPECT_EQ(Count(all), 3000u);
  ASSERT_OK_AND_ASSIGN(Table some, to_->OpenTable("Items1"));
  EXPECT_EQ(Count(some), 600u);
  ASSERT_OK_AND_ASSIGN(Table few, to_->OpenTable("Items2"));
  EXPECT_EQ(Count(few), 10u);
  ASSERT_OK_AND_ASSIGN(Table big_all, to_->OpenTable("Big0"));
  ExpectSameEntities(big, big_all);
}

TEST_F(CopyTest, FilterAndSelectCopyOnlyMatchingEntitiesAndSelectedProperties) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items", 4));
  for (const char* pk : {"a", "b", "c"}) {
    for (int i = 0; i < 30; ++i) {
      Entity e = Row(pk, Rk(i), i);
      e.Set("kind", Value::String(i % 3 == 0 ? "red" : "blue"));
      ASSERT_OK(from.Insert(e));
    }
  }
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  CopyOptions options;
  options.filter = "PartitionKey ne 'b' and n ge 10 and kind eq 'red'";
  options.select = {"kind", "n"};
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_read, 12u);  // n = 12, 15, ..., 27 in a and c
  EXPECT_EQ(report.rows_written, 12u);
  ASSERT_OK_AND_ASSIGN(std::vector<Entity> copied, All(to));
  ASSERT_EQ(copied.size(), 12u);
  for (const Entity& e : copied) {
    EXPECT_NE(e.partition_key(), "b");
    ASSERT_NE(e.Get("n"), nullptr) << e.DebugString();
    EXPECT_GE(e.Get("n")->as_int32(), 10);
    EXPECT_EQ(e.Get("n")->as_int32() % 3, 0);
    EXPECT_EQ(e.row_key(), Rk(e.Get("n")->as_int32()));
    EXPECT_EQ(e.property_count(), 2u) << e.DebugString();  // kind and n: not text
    EXPECT_EQ(e.Get("text"), nullptr);
    ASSERT_NE(e.Get("kind"), nullptr);
    EXPECT_EQ(e.Get("kind")->as_string(), "red");
  }
  ExpectClean(from, to, options);
  // Without the select, the copy's entities lack `text`: every one differs.
  CopyOptions all_properties = options;
  all_properties.select.clear();
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, VerifyCopy(from, to, all_properties));
  EXPECT_EQ(verified.different, 12u);
}

// ---------------------------------------------------------------------------------------------
// Modes.

TEST_F(CopyTest, InsertOntoAnExistingRowStopsNamingItAndResumesOnceItIsGone) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 100);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  ASSERT_OK(to.Insert(Row("p", Rk(25), -1)));
  CopyOptions options;
  options.max_group_rows = 10;
  options.checkpoint = checkpoint_;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  EXPECT_THAT(report.error, StatusIs(Status::Code::kAlreadyExists,
                                     AllOf(HasSubstr(Named("p", Rk(25))), HasSubstr("'Items'"))));
  EXPECT_EQ(report.rows_written, 20u);  // the groups before the one of row 25
  EXPECT_EQ(report.rows_failed, 1u);
  EXPECT_EQ(report.rekey_collisions, 0u);
  EXPECT_TRUE(CheckpointExists());
  EXPECT_EQ(Count(to), 21u);
  ASSERT_OK_AND_ASSIGN(Entity kept, to.Get("p", Rk(25)));
  EXPECT_EQ(kept.Get("n")->as_int32(), -1);  // not overwritten

  // Resumed with the row still there: the same stop, nothing more written.
  options.resume = true;
  ASSERT_OK_AND_ASSIGN(report, CopyTable(from, to, options));
  EXPECT_THAT(report.error, StatusIs(Status::Code::kAlreadyExists, HasSubstr(Named("p", Rk(25)))));
  EXPECT_EQ(Count(to), 21u);
  EXPECT_TRUE(CheckpointExists());

  // Once it is gone the copy finishes from where the checkpoint says: 80 rows, none found
  // already there (the checkpoint recorded exactly the 20 written).
  ASSERT_OK(to.Delete("p", Rk(25), IfMatch::Any()));
  ASSERT_OK_AND_ASSIGN(report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_read, 80u);
  EXPECT_EQ(report.rows_written, 80u);
  EXPECT_EQ(report.resent, 0u);
  EXPECT_FALSE(CheckpointExists());
  ExpectSameEntities(from, to);
  ExpectClean(from, to, CopyOptions{});
}

TEST_F(CopyTest, UpsertReplacesDestinationRows) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 10);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  Entity there = Row("p", Rk(3), -3);
  there.Set("only_here", Value::String("x"));
  ASSERT_OK(to.Insert(there));
  ASSERT_OK(to.Insert(Row("q", "other", 7)));
  CopyOptions options;
  options.mode = CopyMode::kUpsert;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_written, 10u);
  ASSERT_OK_AND_ASSIGN(Entity replaced, to.Get("p", Rk(3)));
  EXPECT_TRUE(replaced.SameContent(Row("p", Rk(3), 3))) << replaced.DebugString();
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, VerifyCopy(from, to, options));
  EXPECT_EQ(verified.missing, 0u);
  EXPECT_EQ(verified.different, 0u);
  EXPECT_EQ(verified.extra, 1u);  // ("q", "other"), which the copy leaves alone
  EXPECT_EQ(verified.first_extra, (std::vector<CopyKey>{{"q", "other"}}));
}

TEST_F(CopyTest, MergeKeepsDestinationOnlyProperties) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 10);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  Entity there = Row("p", Rk(3), -3);
  there.Set("only_here", Value::String("x"));
  ASSERT_OK(to.Insert(there));
  CopyOptions options;
  options.mode = CopyMode::kMerge;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_written, 10u);
  ASSERT_OK_AND_ASSIGN(Entity merged, to.Get("p", Rk(3)));
  Entity expected = Row("p", Rk(3), 3);
  expected.Set("only_here", Value::String("x"));
  EXPECT_TRUE(merged.SameContent(expected)) << merged.DebugString();
  ASSERT_OK_AND_ASSIGN(Entity untouched, to.Get("p", Rk(4)));
  EXPECT_TRUE(untouched.SameContent(Row("p", Rk(4), 4)));
}

// The destination after a merge copy is what copying with merge gives (copy.h: VerifyCopy
// "compares the destination with what copying `from` with `options` gives"): an entity that
// holds every property of its image, plus properties of its own the merge kept, is the merge's
// result, not a difference; `partkv copy --mode merge --verify` would otherwise exit 8 after a
// copy that did what it was asked.
TEST_F(CopyTest, VerifyAfterAMergeCopyIsCleanBesideDestinationOnlyProperties) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 10);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  Entity there = Row("p", Rk(3), -3);
  there.Set("only_here", Value::String("x"));
  ASSERT_OK(to.Insert(there));
  CopyOptions options;
  options.mode = CopyMode::kMerge;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, VerifyCopy(from, to, options));
  EXPECT_TRUE(verified.clean()) << "different " << verified.different;
  // A property of the image with another value is still a difference.
  Entity changed = Row("p", Rk(5), -5);
  ASSERT_OK(to.InsertOrReplace(changed));
  ASSERT_OK_AND_ASSIGN(verified, VerifyCopy(from, to, options));
  EXPECT_EQ(verified.different, 1u);
  EXPECT_EQ(verified.first_different, (std::vector<CopyKey>{{"p", Rk(5)}}));
}

// ---------------------------------------------------------------------------------------------
// Re-keying.

// Orders keyed by date: PartitionKey = the date, RowKey = the order id.
Entity Order(const std::string& date, int order, double amount) {
  char id[16];
  std::snprintf(id, sizeof id, "o%04d", order);
  Entity e(date, id);
  e.Set("date", Value::String(date));
  e.Set("orderId", Value::String(id));
  e.Set("amount", Value::Double(amount));
  e.Set("qty", Value::Int32(order % 7));
  return e;
}

TEST_F(CopyTest, ReKeyingGivesTheKeysTheSchemeComputesAndKeepsTheOldOnes) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("ByDate", 4));
  const char* dates[] = {"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"};
  for (int i = 0; i < 200; ++i) ASSERT_OK(from.Insert(Order(dates[i % 5], i, i * 1.25)));
  const KeyStrategy scheme = KeyStrategy::HashSuffix("date", "orderId", 16);
  TableOptions with_scheme;
  with_scheme.partition_key_scheme = scheme;
  ASSERT_OK_AND_ASSIGN(Table keyed, Create(*to_, "Scheme", with_scheme));
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Sharded"));

  CopyOptions options;
  options.partition_key = scheme;
  options.keep_partition_key_as = "SourcePk";
  options.keep_row_key_as = "SourceRk";
  options.streams = 2;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_written, 200u);
  EXPECT_EQ(report.rekey_collisions, 0u);
  EXPECT_EQ(Count(to), 200u);

  ASSERT_OK_AND_ASSIGN(std::vector<Entity> source, All(from));
  ASSERT_EQ(source.size(), 200u);
  std::map<std::string, int> per_key;
  for (const Entity& e : source) {
    Entity unkeyed("", e.row_key());
    for (const auto& [name, value] : e) unkeyed.Set(name, value);
    unkeyed.set_row_key(e.row_key());
    ASSERT_OK_AND_ASSIGN(Entity computed, keyed.ComputeKeys(unkeyed, OpType::kInsert));
    ASSERT_NE(computed.partition_key(), e.partition_key());
    ASSERT_OK_AND_ASSIGN(Entity copied, to.Get(computed.partition_key(), e.row_key()));
    ++per_key[copied.partition_key()];
    EXPECT_EQ(copied.property_count(), e.property_count() + 2) << copied.DebugString();
    for (const auto& [name, value] : e) {
      const Value* v = copied.Get(name);
      ASSERT_NE(v, nullptr) << name;
      EXPECT_EQ(*v, value) << name;
    }
    ASSERT_NE(copied.Get("SourcePk"), nullptr);
    EXPECT_EQ(*copied.Get("SourcePk"), Value::String(e.partition_key()));
    ASSERT_NE(copied.Get("SourceRk"), nullptr);
    EXPECT_EQ(*copied.Get("SourceRk"), Value::String(e.row_key()));
  }
  EXPECT_GT(per_key.size(), 5u);  // the dates are spread over their suffixes
  ExpectClean(from, to, options);

  // A missing entity is listed by its destination keys, its source keys beside them.
  ASSERT_OK_AND_ASSIGN(std::vector<Entity> copied, All(to));
  const Entity& gone = copied[17];
  ASSERT_OK(to.Delete(gone.partition_key(), gone.row_key(), IfMatch::Any()));
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, VerifyCopy(from, to, options));
  EXPECT_EQ(verified.missing, 1u);
  EXPECT_EQ(verified.extra, 0u);
  EXPECT_EQ(verified.different, 0u);
  EXPECT_EQ(verified.first_missing, (std::vector<CopyKey>{{gone.partition_key(), gone.row_key()}}));
  EXPECT_EQ(verified.first_missing_source,
            (std::vector<CopyKey>{{gone.Get("SourcePk")->as_string(), gone.row_key()}}));
}

// Both keys re-keyed, one from the other's old value, and a select that leaves out the
// properties the keys are computed from.
TEST_F(CopyTest, ReKeyingBothKeysWithASelectReadsTheSchemesFields) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("ByDate", 2));
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(from.Insert(Order(i % 2 == 0 ? "2024-02-01" : "2024-02-02", i, i * 0.5)));
  }
  ASSERT_OK_AND_ASSIGN(Table to, Destination("ByOrder"));
  CopyOptions options;
  options.partition_key = KeyStrategy::Concat({"orderId"});
  options.row_key = KeyStrategy::Concat({"PartitionKey", "qty"}, "_");
  options.select = {"amount"};
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_written, 50u);
  ASSERT_OK_AND_ASSIGN(std::vector<Entity> source, All(from));
  for (const Entity& e : source) {
    const std::string rk = e.partition_key() + "_" + std::to_string(e.Get("qty")->as_int32());
    ASSERT_OK_AND_ASSIGN(Entity copied, to.Get(e.row_key(), rk));
    EXPECT_EQ(copied.property_count(), 1u) << copied.DebugString();
    ASSERT_NE(copied.Get("amount"), nullptr);
    EXPECT_EQ(*copied.Get("amount"), *e.Get("amount"));
  }
  ExpectClean(from, to, options);
}

TEST_F(CopyTest, ReKeyCollisionInInsertModeNamesBothSourceEntities) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  for (const auto& [pk, rk, k] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"a", "1", "same"}, {"b", "1", "same"}, {"c", "2", "other"}}) {
    Entity e(pk, rk);
    e.Set("k", Value::String(k));
    ASSERT_OK(from.Insert(e));
  }
  // The two rows in one group of the destination's writer, and in groups of their own.
  for (size_t group_rows : {size_t{16384}, size_t{1}}) {
    SCOPED_TRACE("max_group_rows " + std::to_string(group_rows));
    ASSERT_OK_AND_ASSIGN(Table to, Destination("Keyed" + std::to_string(group_rows)));
    CopyOptions options;
    options.partition_key = KeyStrategy::Concat({"k"});
    options.max_group_rows = group_rows;
    ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
    EXPECT_THAT(report.error, StatusIs(Status::Code::kAlreadyExists,
                                       AllOf(HasSubstr(Named("a", "1")), HasSubstr(Named("b", "1")),
                                             HasSubstr(Named("same", "1")))));
    EXPECT_EQ(report.rekey_collisions, 1u);
    EXPECT_EQ(report.rows_failed, 1u);
    ASSERT_OK_AND_ASSIGN(Entity first, to.Get("same", "1"));
    EXPECT_EQ(first.Get("k")->as_string(), "same");
  }
}

TEST_F(CopyTest, KeepTimestampAsKeepsTheSourceTimestamp) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items", 2));
  Fill(from, 20, "p");
  Fill(from, 20, "q");
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  CopyOptions options;
  options.keep_timestamp_as = "SourceTime";
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  ASSERT_OK_AND_ASSIGN(std::vector<Entity> source, All(from));
  ASSERT_EQ(source.size(), 40u);
  for (const Entity& e : source) {
    ASSERT_OK_AND_ASSIGN(Entity copied, to.Get(e.partition_key(), e.row_key()));
    ASSERT_NE(copied.Get("SourceTime"), nullptr);
    ASSERT_EQ(copied.Get("SourceTime")->type(), Type::kDateTime);
    EXPECT_NE(e.timestamp().ticks, 0);
    EXPECT_EQ(copied.Get("SourceTime")->as_datetime(), e.timestamp()) << e.DebugString();
    EXPECT_EQ(copied.property_count(), e.property_count() + 1);
  }
  ExpectClean(from, to, options);
  // An entity that already has the property is an error naming it.
  ASSERT_OK_AND_ASSIGN(Table clash, Source("Clash"));
  Entity e = Row("p", "r", 1);
  e.Set("SourceTime", Value::Int32(1));
  ASSERT_OK(clash.Insert(e));
  ASSERT_OK_AND_ASSIGN(Table to_clash, Destination("Clash"));
  ASSERT_OK_AND_ASSIGN(report, CopyTable(clash, to_clash, options));
  EXPECT_THAT(report.error, StatusIs(Status::Code::kInvalidArgument,
                                     AllOf(HasSubstr(Named("p", "r")), HasSubstr("SourceTime"))));
}

// ---------------------------------------------------------------------------------------------
// Options refused before anything is written.

TEST_F(CopyTest, BadOptionsAreRefusedNamingTheOption) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 5);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  struct Case {
    std::string what;
    std::function<void(CopyOptions&)> set;
    std::string named;
  };
  const std::vector<Case> cases = {
      {"random suffix",
       [](CopyOptions& o) { o.partition_key = KeyStrategy::RandomSuffix("date", 4); },
       "random-suffix"},
      {"random suffix row key",
       [](CopyOptions& o) { o.row_key = KeyStrategy::RandomSuffix("x", 2); }, "row-key scheme"},
      {"invalid scheme",
       [](CopyOptions& o) { o.partition_key = KeyStrategy::HashSuffix("d", "s", 0); },
       "partition-key scheme"},
      {"keep keys without re-key",
       [](CopyOptions& o) {
         o.keep_partition_key_as = "OldPk";
         o.keep_row_key_as = "OldRk";
       },
       "keep-keys-as"},
      {"one name only",
       [](CopyOptions& o) {
         o.partition_key = KeyStrategy::Concat({"n"});
         o.keep_partition_key_as = "OldPk";
       },
       "keep-keys-as"},
      {"one name only, the other",
       [](CopyOptions& o) {
         o.partition_key = KeyStrategy::Concat({"n"});
         o.keep_row_key_as = "OldRk";
       },
       "keep-keys-as"},
      {"a name twice",
       [](CopyOptions& o) {
         o.partition_key = KeyStrategy::Concat({"n"});
         o.keep_partition_key_as = "Old";
         o.keep_row_key_as = "Old";
       },
       "'Old'"},
      {"bad keep-timestamp name", [](CopyOptions& o) { o.keep_timestamp_as = "9lives"; },
       "keep-timestamp-as"},
      {"select with a bad name",
       [](CopyOptions& o) {
         o.select = {"n", "not a name"};
       },
       "select"},
      {"select with an empty name", [](CopyOptions& o) { o.select = {""}; }, "select"},
      {"a bad filter", [](CopyOptions& o) { o.filter = "n eq"; }, "filter"},
      {"streams 0", [](CopyOptions& o) { o.streams = 0; }, "streams"},
      {"streams 65", [](CopyOptions& o) { o.streams = 65; }, "streams"},
      {"max_group_rows 0", [](CopyOptions& o) { o.max_group_rows = 0; }, "max_group_rows"},
      {"resume without checkpoint", [](CopyOptions& o) { o.resume = true; }, "resume"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    CopyOptions options;
    options.checkpoint = checkpoint_;
    c.set(options);
    if (c.what == "resume without checkpoint") options.checkpoint.clear();
    EXPECT_THAT(CopyTable(from, to, options),
                StatusIs(Status::Code::kInvalidArgument, HasSubstr(c.named)));
    EXPECT_THAT(VerifyCopy(from, to, options), StatusIs(Status::Code::kInvalidArgument));
    EXPECT_EQ(Count(to), 0u);
    EXPECT_FALSE(CheckpointExists());
  }
  // The bounds themselves are accepted.
  CopyOptions most;
  most.streams = CopyOptions::kMaxStreams;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, most));
  EXPECT_OK(report.error);
  EXPECT_EQ(report.streams, 1u);  // no more streams than units
  EXPECT_EQ(Count(to), 5u);
}

TEST_F(CopyTest, CopyOntoItselfIsRefused) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 3);
  ASSERT_OK_AND_ASSIGN(Table same, from_->OpenTable("Items"));
  CopyOptions options;
  options.mode = CopyMode::kUpsert;
  EXPECT_THAT(CopyTable(from, same, options),
              StatusIs(Status::Code::kInvalidArgument, HasSubstr("'Items'")));
}

TEST_F(CopyTest, DroppedSourceIsNotFound) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  Fill(from, 3);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  ASSERT_OK(from_->DropTable("Items"));
  CopyOptions options;
  options.checkpoint = checkpoint_;
  EXPECT_THAT(CopyTable(from, to, options), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(VerifyCopy(from, to, options), StatusIs(Status::Code::kNotFound));
  EXPECT_FALSE(CheckpointExists());
  EXPECT_EQ(Count(to), 0u);
}

// ---------------------------------------------------------------------------------------------
// Checkpoints.

// A copy stopped by a destination row planted at ("p", Rk(stop_at)), with its checkpoint left.
class CopyCheckpointTest : public CopyTest {
 protected:
  void SetUp() override {
    CopyTest::SetUp();
    if (HasFatalFailure()) return;
    auto from = Source("Items");
    ASSERT_OK(from);
    from_table_.emplace(*from);
    Fill(*from_table_, 60);
    auto to = Destination("Items");
    ASSERT_OK(to);
    to_table_.emplace(*to);
  }
  CopyOptions Stopped(int stop_at) {
    EXPECT_OK(to_table_->Insert(Row("p", Rk(stop_at), -1)));
    CopyOptions options;
    options.filter = "n ge 0";
    options.max_group_rows = 10;
    options.checkpoint = checkpoint_;
    auto report = CopyTable(*from_table_, *to_table_, options);
    EXPECT_OK(report);
    if (report.ok()) EXPECT_THAT(report->error, StatusIs(Status::Code::kAlreadyExists));
    EXPECT_TRUE(CheckpointExists());
    options.resume = true;
    return options;
  }

  std::optional<Table> from_table_;
  std::optional<Table> to_table_;
};

TEST_F(CopyCheckpointTest, ResumeWithoutACheckpointFileIsNotFound) {
  CopyOptions options;
  options.checkpoint = checkpoint_;
  options.resume = true;
  EXPECT_THAT(CopyTable(*from_table_, *to_table_, options),
              StatusIs(Status::Code::kNotFound, HasSubstr(checkpoint_)));
  EXPECT_EQ(Count(*to_table_), 0u);
  EXPECT_FALSE(CheckpointExists());
}

TEST_F(CopyCheckpointTest, AnExistingCheckpointWithoutResumeIsAlreadyExists) {
  CopyOptions options = Stopped(35);
  const std::string recorded = ReadText(checkpoint_);
  const size_t rows = Count(*to_table_);
  options.resume = false;
  EXPECT_THAT(CopyTable(*from_table_, *to_table_, options),
              StatusIs(Status::Code::kAlreadyExists, HasSubstr(checkpoint_)));
  EXPECT_EQ(ReadText(checkpoint_), recorded);
  EXPECT_EQ(Count(*to_table_), rows);
}

TEST_F(CopyCheckpointTest, ACheckpointOfAnotherCopyIsRefusedNamingWhatDiffers) {
  CopyOptions options = Stopped(35);
  const std::string recorded = ReadText(checkpoint_);
  const size_t rows = Count(*to_table_);
  ASSERT_OK_AND_ASSIGN(Table other_source, Source("Other"));
  Fill(other_source, 60);
  ASSERT_OK_AND_ASSIGN(Table other_destination, Destination("Other"));

  {
    SCOPED_TRACE("another filter");
    CopyOptions other = options;
    other.filter = "n ge 1";
    EXPECT_THAT(
        CopyTable(*from_table_, *to_table_, other),
        StatusIs(Status::Code::kInvalidArgument,
                 AllOf(HasSubstr("another copy"), HasSubstr("options"), HasSubstr("n ge 1"))));
  }
  {
    SCOPED_TRACE("another mode");
    CopyOptions other = options;
    other.mode = CopyMode::kUpsert;
    EXPECT_THAT(CopyTable(*from_table_, *to_table_, other),
                StatusIs(Status::Code::kInvalidArgument,
                         AllOf(HasSubstr("another copy"), HasSubstr("upsert"))));
  }
  {
    SCOPED_TRACE("another select");
    CopyOptions other = options;
    other.select = {"n"};
    EXPECT_THAT(CopyTable(*from_table_, *to_table_, other),
                StatusIs(Status::Code::kInvalidArgument, HasSubstr("another copy")));
  }
  {
    SCOPED_TRACE("another source table");
    EXPECT_THAT(CopyTable(other_source, *to_table_, options),
                StatusIs(Status::Code::kInvalidArgument,
                         AllOf(HasSubstr("source table"), HasSubstr("Other"))));
  }
  {
    SCOPED_TRACE("another destination table");
    EXPECT_THAT(CopyTable(*from_table_, other_destination, options),
                StatusIs(Status::Code::kInvalidArgument,
                         AllOf(HasSubstr("destination table"), HasSubstr("Other"))));
  }
  {
    SCOPED_TRACE("other stores");
    CopyOptions other = options;
    other.identity = "from elsewhere";
    EXPECT_THAT(CopyTable(*from_table_, *to_table_, other),
                StatusIs(Status::Code::kInvalidArgument,
                         AllOf(HasSubstr("stores"), HasSubstr("from elsewhere"))));
  }
  {
    SCOPED_TRACE("not a checkpoint");
    const std::string garbage = dir_.Sub("garbage");
    WriteText(garbage, "{\"format\": \"something else\"}");
    CopyOptions other = options;
    other.checkpoint = garbage;
    EXPECT_THAT(CopyTable(*from_table_, *to_table_, other),
                StatusIs(Status::Code::kInvalidArgument, HasSubstr("not a copy checkpoint")));
  }
  // Nothing was written or changed; the right copy still resumes.
  EXPECT_EQ(ReadText(checkpoint_), recorded);
  EXPECT_EQ(Count(*to_table_), rows);
  EXPECT_EQ(Count(other_destination), 0u);
  ASSERT_OK(to_table_->Delete("p", Rk(35), IfMatch::Any()));
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(*from_table_, *to_table_, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_written, 30u);
  EXPECT_FALSE(CheckpointExists());
  ExpectSameEntities(*from_table_, *to_table_);
}

// A checkpoint one group behind what the destination holds — a run that stopped after its
// writer's group was written, before the checkpoint was rewritten — resumes cleanly in insert
// mode: the rows of that group are found already there (resent), none sent twice.
TEST_F(CopyCheckpointTest, ResumeFindsTheGroupWrittenPastTheCheckpointAlreadyThere) {
  ASSERT_OK(to_table_->Insert(Row("p", Rk(45), -1)));
  CopyOptions options;
  options.max_group_rows = 10;
  options.checkpoint = checkpoint_;
  std::map<uint64_t, std::string> checkpoint_at;  // rows written -> the checkpoint then
  std::vector<uint64_t> progress;
  options.on_progress = [&](const CopyProgress& p) {
    progress.push_back(p.rows_written);
    checkpoint_at.emplace(p.rows_written, ReadText(checkpoint_));
  };
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(*from_table_, *to_table_, options));
  EXPECT_THAT(report.error, StatusIs(Status::Code::kAlreadyExists, HasSubstr(Named("p", Rk(45)))));
  EXPECT_EQ(report.rows_written, 40u);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), 10u);
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
  EXPECT_EQ(progress.back(), 40u);
  // Back to the checkpoint as it was before the last group was acknowledged.
  ASSERT_EQ(checkpoint_at.count(30), 1u);
  WriteText(checkpoint_, checkpoint_at[30]);
  ASSERT_OK(to_table_->Delete("p", Rk(45), IfMatch::Any()));

  options.resume = true;
  options.on_progress = nullptr;
  ASSERT_OK_AND_ASSIGN(report, CopyTable(*from_table_, *to_table_, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.resent, 10u);  // rows 30..39; at most max_group_rows + 1 (copy.h)
  EXPECT_LE(report.resent, options.max_group_rows + 1);
  EXPECT_EQ(report.rows_read, 30u);
  EXPECT_EQ(report.rows_written, 20u);
  EXPECT_FALSE(CheckpointExists());
  ExpectSameEntities(*from_table_, *to_table_);
  ExpectClean(*from_table_, *to_table_, CopyOptions{});
}

// The units a checkpoint records done are skipped when the copy resumes.
TEST_F(CopyTest, ResumeSkipsTheUnitsRecordedDone) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items", 4));
  std::optional<std::string> in_third;  // a PartitionKey of physical partition 2
  for (int k = 0; k < 40; ++k) {
    const std::string pk = "k" + std::to_string(k);
    Fill(from, 5, pk);
    if (!in_third && from.PhysicalPartitionOf(pk) == 2) in_third = pk;
  }
  ASSERT_TRUE(in_third.has_value());
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  ASSERT_OK(to.Insert(Row(*in_third, Rk(2), -1)));
  CopyOptions options;
  options.checkpoint = checkpoint_;
  options.streams = 1;  // the units in order
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  EXPECT_THAT(report.error,
              StatusIs(Status::Code::kAlreadyExists, HasSubstr(Named(*in_third, Rk(2)))));
  EXPECT_EQ(report.units, 4u);
  ASSERT_OK(to.Delete(*in_third, Rk(2), IfMatch::Any()));
  options.resume = true;
  options.streams = 4;
  ASSERT_OK_AND_ASSIGN(report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.units_skipped, 2u);
  EXPECT_EQ(report.resent, 0u);
  EXPECT_FALSE(CheckpointExists());
  ExpectSameEntities(from, to);
}

// Re-keying by `date` meets entities whose `date` is missing or cannot form a key: the copy
// stops naming the entity, and resumes from there once it is fixed.
TEST_F(CopyTest, AnEntityTheSchemeCannotKeyStopsTheCopyResumableOnceFixed) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items"));
  for (int i = 0; i < 30; ++i) {
    Entity e("p", Rk(i));
    e.Set("orderId", Value::String("o" + std::to_string(i)));
    if (i == 10) {
      // no date
    } else if (i == 20) {
      e.Set("date", Value::Binary("\x01\x02"));
    } else {
      e.Set("date", Value::String("2024-05-0" + std::to_string(i % 3 + 1)));
    }
    ASSERT_OK(from.Insert(e));
  }
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  CopyOptions options;
  options.partition_key = KeyStrategy::HashSuffix("date", "orderId", 4);
  options.checkpoint = checkpoint_;
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, options));
  EXPECT_THAT(report.error, StatusIs(Status::Code::kInvalidArgument,
                                     AllOf(HasSubstr(Named("p", Rk(10))), HasSubstr("date"))));
  EXPECT_EQ(report.rows_failed, 1u);
  EXPECT_EQ(report.rows_written, 10u);
  EXPECT_EQ(Count(to), 10u);
  ASSERT_TRUE(CheckpointExists());

  auto fix = [&](int i) {
    Entity e("p", Rk(i));
    e.Set("orderId", Value::String("o" + std::to_string(i)));
    e.Set("date", Value::String("2024-05-09"));
    ASSERT_OK(from.Replace(e, IfMatch::Any()));
  };
  fix(10);
  options.resume = true;
  ASSERT_OK_AND_ASSIGN(report, CopyTable(from, to, options));
  EXPECT_THAT(report.error, StatusIs(Status::Code::kInvalidArgument,
                                     AllOf(HasSubstr(Named("p", Rk(20))), HasSubstr("date"))));
  EXPECT_EQ(report.rows_written, 10u);
  EXPECT_EQ(Count(to), 20u);
  ASSERT_TRUE(CheckpointExists());

  fix(20);
  ASSERT_OK_AND_ASSIGN(report, CopyTable(from, to, options));
  ASSERT_OK(report.error);
  EXPECT_EQ(report.rows_written, 10u);
  EXPECT_EQ(report.resent, 0u);
  EXPECT_FALSE(CheckpointExists());
  EXPECT_EQ(Count(to), 30u);
  options.resume = false;
  options.checkpoint.clear();
  ExpectClean(from, to, options);
}

// ---------------------------------------------------------------------------------------------
// VerifyCopy.

TEST_F(CopyTest, VerifyCountsMissingExtraAndDifferentAndListsTheFirstKeys) {
  ASSERT_OK_AND_ASSIGN(Table from, Source("Items", 4));
  Fill(from, 20);
  ASSERT_OK_AND_ASSIGN(Table to, Destination("Items"));
  ASSERT_OK_AND_ASSIGN(CopyReport report, CopyTable(from, to, CopyOptions{}));
  ASSERT_OK(report.error);
  ExpectClean(from, to, CopyOptions{});

  ASSERT_OK(to.Delete("p", Rk(3), IfMatch::Any()));
  ASSERT_OK(to.Insert(Row("p", "extra", 99)));
  Entity changed = Row("p", Rk(7), 7);
  changed.Set("text", Value::String("changed"));
  ASSERT_OK(to.Replace(changed, IfMatch::Any()));
  // A property's type counts too: Int64 7 is not Int32 7.
  Entity retyped = Row("p", Rk(9), 9);
  retyped.Set("n", Value::Int64(9));
  ASSERT_OK(to.Replace(retyped, IfMatch::Any()));

  ASSERT_OK_AND_ASSIGN(VerifyReport v, VerifyCopy(from, to, CopyOptions{}));
  EXPECT_FALSE(v.clean());
  EXPECT_EQ(v.source_rows, 20u);
  EXPECT_EQ(v.destination_rows, 20u);
  EXPECT_EQ(v.missing, 1u);
  EXPECT_EQ(v.extra, 1u);
  EXPECT_EQ(v.different, 2u);
  EXPECT_EQ(v.first_missing, (std::vector<CopyKey>{{"p", Rk(3)}}));
  EXPECT_EQ(v.first_missing_source, (std::vector<CopyKey>{{"p", Rk(3)}}));
  EXPECT_EQ(v.first_extra, (std::vector<CopyKey>{{"p", "extra"}}));
  EXPECT_EQ(v.first_different, (std::vector<CopyKey>{{"p", Rk(7)}, {"p", Rk(9)}}));

  // max_listed bounds the lists, not the counts.
  ASSERT_OK(to.Delete("p", Rk(11), IfMatch::Any()));
  ASSERT_OK(to.Delete("p", Rk(12), IfMatch::Any()));
  ASSERT_OK_AND_ASSIGN(v, VerifyCopy(from, to, CopyOptions{}, /*max_listed=*/2));
  EXPECT_EQ(v.missing, 3u);
  EXPECT_EQ(v.first_missing, (std::vector<CopyKey>{{"p", Rk(3)}, {"p", Rk(11)}}));
  EXPECT_EQ(v.first_missing_source, v.first_missing);
  EXPECT_EQ(v.first_different.size(), 2u);
  ASSERT_OK_AND_ASSIGN(v, VerifyCopy(from, to, CopyOptions{}, /*max_listed=*/0));
  EXPECT_EQ(v.missing, 3u);
  EXPECT_EQ(v.extra, 1u);
  EXPECT_EQ(v.different, 2u);
  EXPECT_TRUE(v.first_missing.empty());
  EXPECT_TRUE(v.first_missing_source.empty());
  EXPECT_TRUE(v.first_extra.empty());
  EXPECT_TRUE(v.first_different.empty());
}

}  // namespace
}  // namespace partkv
