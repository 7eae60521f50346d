// Table::Census (partkv/census.h): what a table stores, per physical partition and per logical
// partition, from one snapshot; and the figures it shares with the rest of the API — the routing
// of Table::PhysicalPartitionOf, the bytes of EncodeStoredEntity, Store::AwaitBackgroundWork.

#include "partkv/census.h"

#include <atomic>
#include <cstdint>
#include <latch>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "partkv/stored_entity.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

class CensusTest : public testing::StoreFixture {
 protected:
  void SetUp() override {
    table_options_.physical_partitions = 4;
    StoreFixture::SetUp();
  }

  TableCensus Census(const CensusOptions& options = {}) {
    auto census = table_->Census(options);
    EXPECT_OK(census);
    return census.ok() ? *census : TableCensus();
  }

  // "key:entities" of the largest logical partitions, in order: "hot:6 warm:3".
  static std::string Largest(const TableCensus& census) {
    std::string out;
    for (const LogicalPartitionCensus& l : census.largest) {
      if (!out.empty()) out += ' ';
      out += l.partition_key + ":" + std::to_string(l.entities);
    }
    return out;
  }

  // Inserts `rows` entities into PartitionKey `pk`, each with a String property of `size` bytes.
  void Fill(const std::string& pk, int rows, size_t size = 8) {
    Batch b;
    for (int i = 0; i < rows; ++i) {
      Entity e(pk, Rk(i));
      e.Set("s", Value::String(std::string(size, 'x')));
      b.Insert(std::move(e));
    }
    auto w = table_->Submit(b);
    ASSERT_OK(w);
  }
};

TEST_F(CensusTest, EmptyTableHasEveryPartitionAndNothingInIt) {
  TableCensus c = Census();
  EXPECT_EQ(c.table, "Items");
  ASSERT_EQ(c.partitions.size(), 4u);
  EXPECT_EQ(c.entities, 0u);
  EXPECT_EQ(c.bytes, 0u);
  EXPECT_EQ(c.logical_partitions, 0u);
  EXPECT_TRUE(c.largest.empty());
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(c.partitions[i].index, i);
}

TEST_F(CensusTest, HashRangesCoverTheHashSpaceInOrder) {
  TableCensus c = Census();
  ASSERT_EQ(c.partitions.size(), 4u);
  EXPECT_EQ(c.partitions.front().hash_lower, 0u);
  EXPECT_EQ(c.partitions.back().hash_upper, std::numeric_limits<uint64_t>::max());
  for (size_t i = 0; i + 1 < c.partitions.size(); ++i) {
    EXPECT_LT(c.partitions[i].hash_lower, c.partitions[i].hash_upper);
    EXPECT_EQ(c.partitions[i].hash_upper + 1, c.partitions[i + 1].hash_lower);
  }
}

TEST_F(CensusTest, CountsWhatEachPhysicalPartitionStoresAsTheTableRoutesIt) {
  // 40 PartitionKeys with 1..40 rows; what the census finds in each physical partition is what
  // PhysicalPartitionOf routes there, and its bytes are EncodeStoredEntity's of each row.
  std::vector<uint64_t> entities(4), bytes(4), logical(4);
  for (int k = 1; k <= 40; ++k) {
    const std::string pk = "pk" + std::to_string(k);
    const uint32_t p = table_->PhysicalPartitionOf(pk);
    ASSERT_LT(p, 4u);
    for (int i = 0; i < k; ++i) {
      Entity e(pk, Rk(i));
      e.Set("n", Value::Int32(i));
      auto w = table_->Insert(e);
      ASSERT_OK(w);
      StoredEntity stored = EncodeStoredEntity(e, w->timestamp, w->timestamp.ticks);
      bytes[p] += stored.key.size() + stored.value.size();
    }
    entities[p] += k;
    ++logical[p];
  }
  TableCensus c = Census();
  uint64_t total_entities = 0, total_bytes = 0, total_logical = 0;
  for (size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(c.partitions[p].entities, entities[p]) << "p" << p;
    EXPECT_EQ(c.partitions[p].bytes, bytes[p]) << "p" << p;
    EXPECT_EQ(c.partitions[p].logical_partitions, logical[p]) << "p" << p;
    total_entities += entities[p];
    total_bytes += bytes[p];
    total_logical += logical[p];
  }
  EXPECT_EQ(c.entities, total_entities);
  EXPECT_EQ(c.entities, 40u * 41 / 2);
  EXPECT_EQ(c.bytes, total_bytes);
  EXPECT_EQ(c.logical_partitions, 40u);
  // Every physical partition of 4 gets some of 40 keys (they are spread by hash).
  for (size_t p = 0; p < 4; ++p) EXPECT_GT(logical[p], 0u) << "p" << p;
  ASSERT_EQ(c.largest.size(), 10u);
  EXPECT_EQ(c.largest[0].partition_key, "pk40");
  EXPECT_EQ(c.largest[0].entities, 40u);
  EXPECT_EQ(c.largest[0].physical_partition, table_->PhysicalPartitionOf("pk40"));
  EXPECT_EQ(c.largest[9].partition_key, "pk31");
}

TEST_F(CensusTest, DeletedEntitiesAreNotCounted) {
  Fill("a", 5);
  ASSERT_OK(table_->Delete("a", Rk(0), IfMatch::Any()));
  ASSERT_OK(table_->Delete("a", Rk(4), IfMatch::Any()));
  TableCensus c = Census();
  EXPECT_EQ(c.entities, 3u);
  EXPECT_EQ(Largest(c), "a:3");
}

TEST_F(CensusTest, LargestRanksByEntitiesOrBytesWithTiesToTheSmallerKey) {
  Fill("hot", 6);
  Fill("warm", 3);
  Fill("big", 2, 4000);  // fewest entities, most bytes
  Fill("tie-b", 3);
  Fill("tie-a", 3);
  EXPECT_EQ(Largest(Census()), "hot:6 tie-a:3 tie-b:3 warm:3 big:2");
  EXPECT_EQ(Largest(Census({.top = 2})), "hot:6 tie-a:3");
  EXPECT_EQ(Largest(Census({.top = 0})), "");

  TableCensus by_bytes = Census({.top = 3, .rank_by = CensusOptions::RankBy::kBytes});
  ASSERT_EQ(by_bytes.largest.size(), 3u);
  EXPECT_EQ(by_bytes.largest[0].partition_key, "big");
  EXPECT_EQ(by_bytes.largest[1].partition_key, "hot");
  EXPECT_GT(by_bytes.largest[0].bytes, by_bytes.largest[1].bytes);
  // The totals do not depend on how many are listed.
  EXPECT_EQ(by_bytes.entities, 17u);
  EXPECT_EQ(by_bytes.logical_partitions, 5u);
}

TEST_F(CensusTest, PartitionKeysWithZeroBytesAreOneLogicalPartitionEach) {
  // "a\0b" and "a" share the bytes "a" but are different logical partitions; the escaped key
  // form keeps them apart. Azure's profile forbids U+0000 in keys; "none" allows it.
  TableOptions options;
  options.physical_partitions = 1;
  options.profile = "none";
  ASSERT_OK(store_->CreateTable("Raw", options));
  Table raw = *store_->OpenTable("Raw");
  for (auto [pk, rows] : {std::pair{std::string("a\0b", 3), 2}, std::pair{std::string("a"), 3}}) {
    for (int i = 0; i < rows; ++i) ASSERT_OK(raw.Insert(Entity(pk, Rk(i))));
  }
  auto c = raw.Census();
  ASSERT_OK(c);
  EXPECT_EQ(c->logical_partitions, 2u);
  ASSERT_EQ(c->largest.size(), 2u);
  EXPECT_EQ(c->largest[0].partition_key, "a");
  EXPECT_EQ(c->largest[1].partition_key, std::string("a\0b", 3));
}

TEST_F(CensusTest, OneSnapshotCoversEveryPartitionUnderConcurrentWrites) {
  // A writer inserts row i into `first` and then into `second`, whose physical partition the
  // census reads later; so at every moment `second` holds at most as many rows as `first`. A
  // census that read each partition at its own moment could see `second` ahead.
  std::string first, second;
  for (int k = 0; first.empty() || second.empty(); ++k) {
    const std::string pk = "k" + std::to_string(k);
    const uint32_t p = table_->PhysicalPartitionOf(pk);
    if (p == 0 && first.empty()) first = pk;
    if (p == 3 && second.empty()) second = pk;
  }
  // Rows in the partitions read between the two, so that reading them takes a while.
  for (int k = 0, filled = 0; filled < 100; ++k) {
    const std::string pk = "bulk" + std::to_string(k);
    const uint32_t p = table_->PhysicalPartitionOf(pk);
    if (p == 0 || p == 3) continue;
    Fill(pk, 100);
    ++filled;
  }
  std::atomic<bool> stop{false};
  std::latch started(1);
  std::thread writer([&] {
    started.count_down();
    for (int i = 0; !stop.load(); ++i) {
      for (const std::string* pk : {&first, &second}) {
        Entity e(*pk, Rk(i));
        e.Set("n", Value::Int32(i));
        ASSERT_OK(table_->Insert(e));
      }
    }
  });
  started.wait();
  for (int round = 0; round < 50; ++round) {
    TableCensus c = Census({.top = 1000});
    std::map<std::string, uint64_t> rows;
    for (const LogicalPartitionCensus& l : c.largest) rows[l.partition_key] = l.entities;
    ASSERT_LE(rows[second], rows[first]) << "round " << round;
    ASSERT_LE(rows[first], rows[second] + 1) << "round " << round;
  }
  stop = true;
  writer.join();
}

TEST_F(CensusTest, SstFiguresAppearOnceFlushedAndSettled) {
  for (int k = 0; k < 40; ++k) Fill("pk" + std::to_string(k), 50, 100);
  TableCensus before = Census();
  EXPECT_EQ(before.sst_bytes, 0u);
  EXPECT_TRUE(before.sst_files_per_level.empty());

  ASSERT_OK(store_->Flush());
  Status settled = store_->AwaitBackgroundWork(std::chrono::minutes(5));
  ASSERT_OK(settled);
  // Quiet now: waiting no time at all succeeds.
  EXPECT_OK(store_->AwaitBackgroundWork(std::chrono::milliseconds(0)));
  TableCensus after = Census();
  EXPECT_EQ(after.entities, before.entities);
  EXPECT_EQ(after.bytes, before.bytes);
  uint64_t sum = 0;
  for (const PartitionCensus& p : after.partitions) {
    EXPECT_GT(p.sst_bytes, 0u) << "p" << p.index;
    sum += p.sst_bytes;
  }
  EXPECT_EQ(after.sst_bytes, sum);
  // Compressed, the repetitive rows take less than their encoded bytes.
  EXPECT_LT(after.sst_bytes, after.bytes);
  uint64_t files = 0;
  for (uint64_t n : after.sst_files_per_level) files += n;
  EXPECT_GT(files, 0u);
  ASSERT_FALSE(after.sst_files_per_level.empty());
  EXPECT_GT(after.sst_files_per_level.back(), 0u);  // the deepest level listed holds files
}

TEST_F(CensusTest, DroppedTableIsNotFound) {
  Fill("a", 2);
  ASSERT_OK(store_->DropTable("Items"));
  auto c = table_->Census();
  EXPECT_THAT(c, StatusIs(Status::Code::kNotFound));
  EXPECT_NE(c.status().message().find("Items"), std::string_view::npos);
}

TEST_F(CensusTest, EncodeStoredEntityKeyIsTheEscapedKeyPair) {
  Entity e(std::string("p\0q", 3), "r");
  e.Set("n", Value::Int32(7));
  StoredEntity s = EncodeStoredEntity(e, DateTime{1}, 2);
  EXPECT_EQ(s.key, std::string("p\0\xffq\0r", 6));
  // version 1, timestamp 1 (fixed64), etag 2 (varint), 1 property "n" Int32 7.
  EXPECT_EQ(s.value.substr(0, 11), std::string("\x01\x01\0\0\0\0\0\0\0\x02\x01", 11));
  // The entity's own system properties do not enter the value.
  Entity stamped = e;
  stamped.set_timestamp(DateTime{99});
  stamped.set_etag("W/\"x\"");
  EXPECT_EQ(EncodeStoredEntity(stamped, DateTime{1}, 2).value, s.value);
}

}  // namespace
}  // namespace partkv
