// Many tables in one store (issue 15): thousands of tables with the default memory budget, a
// table of every physical-partition count, tables created and dropped while other tables take
// writes, a store of a thousand tables reopened, and what a dropped table leaves behind (nothing).
// Only the public API is used, so the properties hold whatever the physical layout.
//
// Every table is written with the same keys as its neighbours and a property naming the table,
// so an entity that lands in, or is read from, the wrong table shows up as a difference.
//
// PARTKV_MANY_TABLES=N caps every table count of this file at N (and the physical-partition
// counts at 1..N) for a quick run; unset, the counts are the issue's.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

// `full`, or PARTKV_MANY_TABLES when that is smaller.
int Scaled(int full) {
  const char* v = std::getenv("PARTKV_MANY_TABLES");
  int cap = v != nullptr ? std::atoi(v) : 0;
  return cap > 0 ? std::min(full, cap) : full;
}

// "Many00042": fixed-width numbers, so that names sort in numeric order.
std::string TableName(const std::string& prefix, int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%05d", i);
  return prefix + buf;
}

// Row (pk, rk) of `table`: the same keys in every table, a value naming the table.
Entity Row(const std::string& table, int pk, int rk) {
  Entity e("p" + std::to_string(pk), "r" + std::to_string(rk));
  e.Set("table", Value::String(table)).Set("n", Value::Int32(pk * 1000 + rk));
  return e;
}

// The entities' DebugStrings in (PartitionKey, RowKey) order: what Contents() of a table holding
// exactly them returns.
std::string Expected(std::vector<Entity> entities) {
  std::sort(entities.begin(), entities.end(), [](const Entity& a, const Entity& b) {
    return std::tie(a.partition_key(), a.row_key()) < std::tie(b.partition_key(), b.row_key());
  });
  std::string out;
  for (const Entity& e : entities) out += e.DebugString();
  return out;
}

// Every entity of the table by a table-wide query, paged `page_size` at a time, as
// concatenated DebugStrings; the failing Status as text when a page fails, and a note when the
// pages stop making progress (so that a query that never ends fails instead of hanging).
std::string Contents(const Table& table, uint32_t page_size = Query::kMaxPageSize) {
  constexpr int kMaxEmptyPagesInARow = 10000;
  Query q;
  q.page_size = page_size;
  std::string out;
  for (int empty = 0; empty < kMaxEmptyPagesInARow;) {
    auto page = table.QueryEntities(q);
    if (!page.ok()) return page.status().ToString();
    for (const Entity& e : page->entities) out += e.DebugString();
    if (!page->has_more()) return out;
    empty = page->entities.empty() ? empty + 1 : 0;
    q.continuation = page->continuation;
  }
  return out + " ... and then only empty pages";
}

// The stored entity's DebugString, "NOT_FOUND", or the failing Status as text.
std::string Get(const Table& table, const Entity& keys) {
  auto e = table.Get(keys.partition_key(), keys.row_key());
  if (e.status().IsNotFound()) return "NOT_FOUND";
  if (!e.ok()) return e.status().ToString();
  return e->DebugString();
}

// How many of `partitions` physical partitions the PartitionKeys of `entities` hash to, by the
// analyzer's routing, which is the table's.
int PartitionsTouched(const std::vector<Entity>& entities, uint32_t partitions) {
  AnalyzerOptions options;
  options.physical_partitions = partitions;
  auto analyzer = Analyzer::Create(KeyStrategy::Concat({"PartitionKey"}), options);
  if (!analyzer.ok()) return -1;
  for (const Entity& e : entities) analyzer->Add(e);
  AnalysisReport report = analyzer->Finish();
  return static_cast<int>(std::count_if(report.physical_counts.begin(),
                                        report.physical_counts.end(),
                                        [](uint64_t n) { return n > 0; }));
}

class ManyTablesTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  // Closes the store (every Table handle must be gone) and opens it again.
  void Reopen() {
    store_.reset();
    auto s = Store::Open(dir_.Sub("store"));
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
  }

  // A handle on `name`; a failed test when there is none.
  std::optional<Table> Open(const std::string& name) {
    auto t = store_->OpenTable(name);
    EXPECT_OK(t) << name;
    if (!t.ok()) return std::nullopt;
    return *t;
  }

  // The names ListTables returns, in its order.
  std::vector<std::string> Listed() {
    auto tables = store_->ListTables();
    EXPECT_OK(tables);
    std::vector<std::string> names;
    if (tables.ok()) {
      for (const TableInfo& t : *tables) names.push_back(t.name);
    }
    return names;
  }

  // Creates `name` and inserts `rows` (which must be rows of `name`).
  void CreateAndWrite(const std::string& name, const std::vector<Entity>& rows,
                      const TableOptions& options = {}) {
    Status created = store_->CreateTable(name, options);
    ASSERT_OK(created) << name;
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    for (const Entity& e : rows) {
      auto w = table->Insert(e);
      ASSERT_OK(w) << name << " " << e.DebugString();
    }
  }

  testing::TempDir dir_;
  std::optional<Store> store_;
};

// Three rows over two PartitionKeys: a few entities per table.
std::vector<Entity> SmallTableRows(const std::string& name) {
  return {Row(name, 0, 0), Row(name, 0, 1), Row(name, 1, 2)};
}

TEST_F(ManyTablesTest, ThousandsOfTablesEachKeepExactlyTheirOwnEntities) {
  const int tables = Scaled(2000);
  std::vector<std::string> names;
  for (int i = 0; i < tables; ++i) {
    names.push_back(TableName("Many", i));
    Status s = store_->CreateTable(names.back());
    ASSERT_OK(s) << "table " << i;
  }
  // Written only once every table exists, so a write that lands in another table (they all use
  // the same keys) overwrites or adds to that table's rows.
  for (const std::string& name : names) {
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    for (const Entity& e : SmallTableRows(name)) {
      auto w = table->Insert(e);
      ASSERT_OK(w) << name;
    }
  }
  for (const std::string& name : names) {
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    for (const Entity& e : SmallTableRows(name)) ASSERT_EQ(Get(*table, e), e.DebugString());
    ASSERT_EQ(Contents(*table), Expected(SmallTableRows(name))) << name;
  }
  EXPECT_EQ(Listed(), names);
}

TEST_F(ManyTablesTest, EveryPhysicalPartitionCountReturnsExactlyWhatWasWritten) {
  const uint32_t max_partitions = static_cast<uint32_t>(Scaled(1024));
  // Twelve PartitionKeys of two rows each: enough to land in several physical partitions of
  // every table but the one-partition one.
  auto rows_of = [](const std::string& name) {
    std::vector<Entity> rows;
    for (int pk = 0; pk < 12; ++pk) {
      for (int rk = 0; rk < 2; ++rk) rows.push_back(Row(name, pk, rk));
    }
    return rows;
  };
  for (uint32_t n = 1; n <= max_partitions; ++n) {
    std::string name = TableName("Parts", static_cast<int>(n));
    Status s = store_->CreateTable(name, {.physical_partitions = n});
    ASSERT_OK(s) << n << " partitions";
  }
  for (uint32_t n = 1; n <= max_partitions; ++n) {
    std::string name = TableName("Parts", static_cast<int>(n));
    std::vector<Entity> rows = rows_of(name);
    ASSERT_GE(PartitionsTouched(rows, n), static_cast<int>(std::min<uint32_t>(n, 3)))
        << "the test's keys do not spread over the partitions of a table of " << n;
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    // One batch per PartitionKey: both rows of a batch are routed together.
    for (size_t i = 0; i < rows.size(); i += 2) {
      Batch batch;
      batch.Insert(rows[i]).Insert(rows[i + 1]);
      auto w = table->Submit(batch);
      ASSERT_OK(w) << name;
    }
  }
  for (uint32_t n = 1; n <= max_partitions; ++n) {
    std::string name = TableName("Parts", static_cast<int>(n));
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    ASSERT_EQ(table->info().physical_partitions, n);
    ASSERT_EQ(Contents(*table), Expected(rows_of(name))) << n << " partitions";
    // Pages of 7 end inside partitions and between them, so continuations cross both; their scan
    // budget (70 entities) is below the partition count of the wider tables.
    ASSERT_EQ(Contents(*table, 7), Expected(rows_of(name))) << n << " partitions, pages of 7";
  }
}

// Table c (of 1 to 4 physical partitions) is created and written; then table c-1 is dropped,
// except every third table, which is kept: creates and drops interleave, a drop always has a
// live neighbour, and dropped tables come in several shapes. The first failure, or "".
std::string ChurnTables(Store& store, int churned, std::vector<std::string>* kept,
                        std::vector<std::string>* dropped) {
  std::string churn_failure;
  for (int c = 0; c < churned && churn_failure.empty(); ++c) {
    std::string name = TableName("Churn", c);
    Status s = store.CreateTable(name, {.physical_partitions = 1 + static_cast<uint32_t>(c % 4)});
    auto table = store.OpenTable(name);
    if (!s.ok() || !table.ok()) {
      churn_failure = "create " + name + ": " + s.ToString() + " / " + table.status().ToString();
      break;
    }
    for (const Entity& e : SmallTableRows(name)) {
      auto w = table->Insert(e);
      if (!w.ok()) churn_failure = "write " + name + ": " + w.status().ToString();
    }
    if (c % 3 == 0) {
      kept->push_back(name);
    } else {
      dropped->push_back(name);
    }
    if (c > 0 && (c - 1) % 3 != 0) {
      s = store.DropTable(TableName("Churn", c - 1));
      if (!s.ok()) churn_failure = "drop: " + s.ToString();
    }
  }
  if (churned > 0 && (churned - 1) % 3 != 0) {
    Status s = store.DropTable(TableName("Churn", churned - 1));
    if (!s.ok() && churn_failure.empty()) churn_failure = "drop the last: " + s.ToString();
  }
  return churn_failure;
}

TEST_F(ManyTablesTest, CreatingAndDroppingTablesLosesNoConcurrentlyAcknowledgedWrite) {
  constexpr int kWriters = 4;
  constexpr int kMinWritesPerWriter = 100;
  const int churned = Scaled(200);
  std::vector<std::string> writer_names;
  for (int w = 0; w < kWriters; ++w) {
    writer_names.push_back(TableName("Writer", w));
    ASSERT_OK(store_->CreateTable(writer_names.back()));
  }

  // Each writer counts down once it has a write acknowledged (or has given up), so the churn
  // below starts with every writer running; writers stop once the churn is over.
  std::latch writing(kWriters);
  std::atomic<bool> churn_over{false};
  std::vector<std::vector<Entity>> acknowledged(kWriters);
  std::vector<std::string> writer_errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      bool counted = false;
      auto count_down = [&] {
        if (!counted) writing.count_down();
        counted = true;
      };
      auto table = store_->OpenTable(writer_names[w]);
      if (!table.ok()) {
        writer_errors[w] = table.status().ToString();
        count_down();
        return;
      }
      for (int i = 0; i < kMinWritesPerWriter || !churn_over.load(); ++i) {
        Entity e = Row(writer_names[w], i % 7, i);
        auto r = table->Insert(e);
        if (!r.ok()) {
          writer_errors[w] = e.DebugString() + ": " + r.status().ToString();
          break;
        }
        acknowledged[w].push_back(std::move(e));
        count_down();
      }
      count_down();
    });
  }

  // Tables created, written and dropped while the writers run.
  writing.wait();
  std::vector<std::string> kept, dropped;
  const std::string churn_failure = ChurnTables(*store_, churned, &kept, &dropped);
  churn_over.store(true);
  for (auto& t : writers) t.join();
  ASSERT_EQ(churn_failure, "");
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(writer_errors[w], "") << writer_names[w];

  for (int w = 0; w < kWriters; ++w) {
    std::optional<Table> table = Open(writer_names[w]);
    ASSERT_TRUE(table.has_value());
    EXPECT_GE(acknowledged[w].size(), static_cast<size_t>(kMinWritesPerWriter));
    for (const Entity& e : acknowledged[w]) ASSERT_EQ(Get(*table, e), e.DebugString());
    EXPECT_EQ(Contents(*table), Expected(acknowledged[w])) << writer_names[w];
  }
  for (const std::string& name : kept) {
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    EXPECT_EQ(Contents(*table), Expected(SmallTableRows(name))) << name;
  }
  for (const std::string& name : dropped) {
    ASSERT_THAT(store_->OpenTable(name), StatusIs(Status::Code::kNotFound)) << name;
    ASSERT_OK(store_->CreateTable(name)) << name;
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    EXPECT_EQ(Contents(*table), "") << name << " re-created holds the dropped table's entities";
  }
  std::vector<std::string> want = writer_names;
  want.insert(want.end(), kept.begin(), kept.end());
  want.insert(want.end(), dropped.begin(), dropped.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Listed(), want);
}

TEST_F(ManyTablesTest, ThousandTablesAndTheirEntitiesSurviveReopen) {
  const int tables = Scaled(1000);
  std::vector<std::string> names;
  for (int i = 0; i < tables; ++i) {
    names.push_back(TableName("Kept", i));
    ASSERT_NO_FATAL_FAILURE(CreateAndWrite(names.back(), SmallTableRows(names.back())));
  }
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_EQ(Listed(), names);
  for (const std::string& name : names) {
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    ASSERT_EQ(Contents(*table), Expected(SmallTableRows(name))) << name;
  }

  // A table created after the reopen starts empty (it shares nothing with an existing table) and
  // takes writes; the old tables are untouched by it, and it survives the next reopen.
  const std::string fresh = "AfterReopen";
  ASSERT_OK(store_->CreateTable(fresh));
  {
    std::optional<Table> table = Open(fresh);
    ASSERT_TRUE(table.has_value());
    EXPECT_EQ(Contents(*table), "");
    for (const Entity& e : SmallTableRows(fresh)) ASSERT_OK(table->Insert(e));
  }
  ASSERT_NO_FATAL_FAILURE(Reopen());
  std::vector<std::string> want = names;
  want.push_back(fresh);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Listed(), want);
  for (const std::string& name : {names.front(), names.back(), fresh}) {
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    EXPECT_EQ(Contents(*table), Expected(SmallTableRows(name))) << name;
  }
}

TEST_F(ManyTablesTest, DroppedTableHandleFailsWithNotFoundEvenAfterItsNameIsReused) {
  const std::string name = "Gone";
  ASSERT_NO_FATAL_FAILURE(CreateAndWrite(name, SmallTableRows(name)));
  std::optional<Table> old = Open(name);
  ASSERT_TRUE(old.has_value());
  ASSERT_OK(store_->DropTable(name));

  Entity fresh = Row(name, 5, 5);
  EXPECT_THAT(old->Insert(fresh), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(old->InsertOrReplace(fresh), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(old->Submit(Batch().Insert(fresh)), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(old->Get("p0", "r0"), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(old->QueryEntities(Query{}), StatusIs(Status::Code::kNotFound));

  // The name now belongs to a new table; the old handle still reaches nothing.
  ASSERT_OK(store_->CreateTable(name));
  EXPECT_THAT(old->Insert(fresh), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(old->Get("p0", "r0"), StatusIs(Status::Code::kNotFound));
  std::optional<Table> reused = Open(name);
  ASSERT_TRUE(reused.has_value());
  EXPECT_EQ(Contents(*reused), "");
}

TEST_F(ManyTablesTest, RecreatedTableNameStartsEmpty) {
  const std::string name = "Reused", neighbour = "Neighbour";
  // Fifty PartitionKeys of four rows over sixteen partitions, flushed to files, so the dropped
  // entities sit in every physical partition and on disk, not only in memtables.
  std::vector<Entity> rows;
  for (int pk = 0; pk < 50; ++pk) {
    for (int rk = 0; rk < 4; ++rk) rows.push_back(Row(name, pk, rk));
  }
  ASSERT_NO_FATAL_FAILURE(CreateAndWrite(name, rows));
  ASSERT_NO_FATAL_FAILURE(CreateAndWrite(neighbour, SmallTableRows(neighbour)));
  ASSERT_OK(store_->Flush());
  ASSERT_OK(store_->DropTable(name));
  EXPECT_THAT(store_->OpenTable(name), StatusIs(Status::Code::kNotFound));

  // Re-created with another partition count: the keys route differently, and still find nothing.
  ASSERT_OK(store_->CreateTable(name, {.physical_partitions = 3}));
  {
    std::optional<Table> table = Open(name);
    ASSERT_TRUE(table.has_value());
    EXPECT_EQ(Contents(*table), "");
    for (const Entity& e : rows) ASSERT_EQ(Get(*table, e), "NOT_FOUND");
    // An Insert, not an upsert: an old row still there would make it AlreadyExists.
    auto w = table->Insert(Row(name, 0, 0));
    EXPECT_OK(w);
  }
  ASSERT_NO_FATAL_FAILURE(Reopen());
  std::optional<Table> table = Open(name);
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(Contents(*table), Expected({Row(name, 0, 0)}));
  std::optional<Table> other = Open(neighbour);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(Contents(*other), Expected(SmallTableRows(neighbour)));
}

}  // namespace
}  // namespace partkv
