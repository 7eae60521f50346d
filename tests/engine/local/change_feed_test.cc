// The change feed's codecs (engine/local/change_feed.h, docs/format.md "Change feeds"): an entry
// in its two versions (1: the application's changes; 2: with the origin of another writer's), the
// version index value with its op and origin, what a damaged one decodes to, and the origin
// FeedEntries gives each entry of a write (an expiry always the application's, a superseded
// version the one it was recorded with).

#include "engine/local/change_feed.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "partkv/changes.h"
#include "rocksdb/write_batch.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;
using ::testing::HasSubstr;

std::string Bytes(std::initializer_list<uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

// A replace of ("pk", "r") at ticks 0x0102030405060708, ETag version 300, holding the value "V":
// the op, time, etag, keys and value, laid out as both versions lay them out after their header.
const std::string kReplaceBody = Bytes({0x02, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0xAC,
                                        0x02, 0x02, 'p', 'k', 0x01, 'r', 'V'});
constexpr int64_t kTicks = 0x0102030405060708;

TEST(ChangeFeedCodecTest, AnApplicationEntryIsVersionOneAndDecodesAsTheApplications) {
  std::string entry;
  AppendFeedEntry(WriteOrigin::kApplication, ChangeOp::kReplace, kTicks, 300, "pk", "r", "V", "",
                  &entry);
  EXPECT_EQ(entry, Bytes({0x01}) + kReplaceBody);  // byte for byte what format 4 always wrote
  FeedEntryView view;
  view.origin = WriteOrigin::kSync;  // left from an earlier entry: the decoder sets it
  ASSERT_OK(DecodeFeedEntry(entry, &view));
  EXPECT_EQ(view.origin, WriteOrigin::kApplication);
  EXPECT_EQ(view.op, ChangeOp::kReplace);
  EXPECT_EQ(view.time_ticks, kTicks);
  EXPECT_EQ(view.etag_version, 300u);
  EXPECT_EQ(view.partition_key, "pk");
  EXPECT_EQ(view.row_key, "r");
  EXPECT_EQ(view.value, "V");
}

TEST(ChangeFeedCodecTest, ASyncEntryIsVersionTwoAndRoundTripsItsOrigin) {
  std::string entry;
  AppendFeedEntry(WriteOrigin::kSync, ChangeOp::kReplace, kTicks, 300, "pk", "r", "V", "", &entry);
  EXPECT_EQ(entry, Bytes({0x02, 0x01}) + kReplaceBody);
  FeedEntryView view;
  ASSERT_OK(DecodeFeedEntry(entry, &view));
  EXPECT_EQ(view.origin, WriteOrigin::kSync);
  EXPECT_EQ(view.op, ChangeOp::kReplace);
  EXPECT_EQ(view.time_ticks, kTicks);
  EXPECT_EQ(view.etag_version, 300u);
  EXPECT_EQ(view.partition_key, "pk");
  EXPECT_EQ(view.row_key, "r");
  EXPECT_EQ(view.value, "V");

  // Every op, by reference and holding a value given in two parts; the origin reaches Change.
  for (ChangeOp op : {ChangeOp::kInsert, ChangeOp::kReplace, ChangeOp::kMerge, ChangeOp::kDelete,
                      ChangeOp::kExpire}) {
    const bool removal = op == ChangeOp::kDelete || op == ChangeOp::kExpire;
    for (bool with_value : {false, true}) {
      if (removal && with_value) continue;
      entry.clear();
      AppendFeedEntry(WriteOrigin::kSync, op, 17, 1ull << 40, "a partition", "",
                      with_value ? "head" : "", with_value ? "body" : "", &entry);
      ASSERT_OK(DecodeFeedEntry(entry, &view));
      EXPECT_EQ(view.origin, WriteOrigin::kSync);
      EXPECT_EQ(view.op, op);
      EXPECT_EQ(view.time_ticks, 17);
      EXPECT_EQ(view.etag_version, 1ull << 40);
      EXPECT_EQ(view.partition_key, "a partition");
      EXPECT_EQ(view.row_key, "");
      EXPECT_EQ(view.value, with_value ? "headbody" : "");
      EXPECT_EQ(view.by_reference(), !removal && !with_value);
      if (!with_value) {
        Change change;
        ASSERT_OK(ChangeOfEntry(9, view, &change));
        EXPECT_EQ(change.origin, WriteOrigin::kSync);
        EXPECT_EQ(change.op, op);
        EXPECT_EQ(change.seq, 9u);
      }
    }
  }
}

TEST(ChangeFeedCodecTest, AnUnknownOriginOrVersionIsCorruption) {
  std::string entry;
  AppendFeedEntry(WriteOrigin::kSync, ChangeOp::kReplace, kTicks, 300, "pk", "r", "V", "", &entry);
  FeedEntryView view;
  for (uint8_t origin : {uint8_t{2}, uint8_t{0x10}, uint8_t{0xFF}}) {
    std::string bad = entry;
    bad[1] = static_cast<char>(origin);
    EXPECT_THAT(DecodeFeedEntry(bad, &view),
                StatusIs(Status::Code::kCorruption, HasSubstr("unknown origin")))
        << "origin " << int{origin};
  }
  for (uint8_t version : {uint8_t{0}, uint8_t{3}, uint8_t{0xFF}}) {
    std::string bad = entry;
    bad[0] = static_cast<char>(version);
    EXPECT_THAT(DecodeFeedEntry(bad, &view),
                StatusIs(Status::Code::kCorruption, HasSubstr("unknown version")))
        << "version " << int{version};
  }
}

TEST(ChangeFeedCodecTest, EveryTruncationOfAnEntryIsCorruption) {
  // Entries without a value end with their RowKey: every strict prefix lacks a field.
  for (WriteOrigin origin : {WriteOrigin::kSync, WriteOrigin::kApplication}) {
    for (ChangeOp op : {ChangeOp::kInsert, ChangeOp::kDelete}) {
      std::string entry;
      AppendFeedEntry(origin, op, kTicks, 1ull << 40, "pk", "rk", "", "", &entry);
      FeedEntryView view;
      ASSERT_OK(DecodeFeedEntry(entry, &view));
      for (size_t n = 0; n < entry.size(); ++n) {
        EXPECT_THAT(DecodeFeedEntry(std::string_view(entry).substr(0, n), &view),
                    StatusIs(Status::Code::kCorruption))
            << WriteOriginName(origin) << " " << ChangeOpName(op) << ", " << n << " of "
            << entry.size() << " bytes";
      }
    }
  }
}

TEST(ChangeFeedCodecTest, VersionIndexValueHoldsTheOpAndTheOrigin) {
  for (uint64_t seq : {uint64_t{1}, uint64_t{300}, uint64_t{1} << 40}) {
    for (ChangeOp op : {ChangeOp::kInsert, ChangeOp::kReplace, ChangeOp::kMerge}) {
      for (WriteOrigin origin : {WriteOrigin::kApplication, WriteOrigin::kSync}) {
        std::string value;
        AppendFeedVersion(FeedVersion{seq, op, origin}, &value);
        // The op in the low 4 bits, the origin in the high 4: the application's byte is the op
        // alone, as format 4 wrote it before origins.
        ASSERT_FALSE(value.empty());
        EXPECT_EQ(static_cast<uint8_t>(value.back()),
                  static_cast<uint8_t>(op) | (static_cast<uint8_t>(origin) << 4));
        FeedVersion decoded;
        ASSERT_TRUE(DecodeFeedVersion(value, &decoded)) << seq << " " << ChangeOpName(op);
        EXPECT_EQ(decoded.seq, seq);
        EXPECT_EQ(decoded.op, op);
        EXPECT_EQ(decoded.origin, origin);
      }
    }
  }
  FeedVersion v;
  ASSERT_TRUE(DecodeFeedVersion(Bytes({0x05, 0x13}), &v));
  EXPECT_EQ(v.seq, 5u);
  EXPECT_EQ(v.op, ChangeOp::kMerge);
  EXPECT_EQ(v.origin, WriteOrigin::kSync);
  ASSERT_TRUE(DecodeFeedVersion(Bytes({0x05, 0x01}), &v));
  EXPECT_EQ(v.op, ChangeOp::kInsert);
  EXPECT_EQ(v.origin, WriteOrigin::kApplication);
}

TEST(ChangeFeedCodecTest, VersionIndexValueWithAnUnknownOriginOrOpIsRejected) {
  FeedVersion v;
  for (const std::string& bad : {
           Bytes({0x05, 0x21}),        // origin 2
           Bytes({0x05, 0xF1}),        // origin 15
           Bytes({0x05, 0x10}),        // op 0
           Bytes({0x05, 0x14}),        // op 4 (a delete refers to no version)
           Bytes({0x05}),              // no op byte
           Bytes({0x05, 0x11, 0x00}),  // a byte after it
           Bytes({0x80}),              // a truncated seq
       }) {
    EXPECT_FALSE(DecodeFeedVersion(bad, &v)) << bad.size() << " bytes";
  }
}

// The Puts of a WriteBatch, in order.
class Puts : public rocksdb::WriteBatch::Handler {
 public:
  rocksdb::Status PutCF(uint32_t, const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    puts.emplace_back(key.ToString(), value.ToString());
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  std::vector<std::pair<std::string, std::string>> puts;
};

TEST(ChangeFeedCodecTest, FeedEntriesRecordTheirWritesOriginButAnExpiryAsTheApplications) {
  constexpr uint32_t kTable = 7;
  ChangeFeed feed(kTable, /*cf=*/nullptr, ChangeFeedOptions{true}, /*configured=*/true,
                  /*trim=*/kFirstFeedSeq, /*next=*/10);
  // A sync's write: an application's version (seq 3) and a sync's (seq 4) superseded, an expiry,
  // a delete and an insert by reference.
  FeedEntries entries(WriteOrigin::kSync);
  ASSERT_OK(entries.Supersede(feed, FeedVersion{3, ChangeOp::kInsert, WriteOrigin::kApplication},
                              100, "p", "a", "old a"));
  ASSERT_OK(entries.Supersede(feed, FeedVersion{4, ChangeOp::kMerge, WriteOrigin::kSync}, 101, "p",
                              "b", "old b"));
  entries.Add(ChangeOp::kExpire, 10, 100, "p", "a");
  entries.Add(ChangeOp::kDelete, 10, 101, "p", "b");
  entries.AddByReference(ChangeOp::kInsert, 11, 102, "p", "c");
  rocksdb::WriteBatch wb;
  auto reservation = entries.Stage(feed, &wb);
  ASSERT_OK(reservation);
  Puts puts;
  ASSERT_TRUE(wb.Iterate(&puts).ok());

  struct Expected {
    std::string key;
    WriteOrigin origin;
    ChangeOp op;
  };
  const uint64_t first = reservation->first();
  const std::vector<Expected> expected = {
      {FeedKey(kTable, 3), WriteOrigin::kApplication, ChangeOp::kInsert},  // kept its origin
      {FeedKey(kTable, 4), WriteOrigin::kSync, ChangeOp::kMerge},
      {FeedKey(kTable, first), WriteOrigin::kApplication, ChangeOp::kExpire},
      {FeedKey(kTable, first + 1), WriteOrigin::kSync, ChangeOp::kDelete},
      {FeedKey(kTable, first + 2), WriteOrigin::kSync, ChangeOp::kInsert},
  };
  std::vector<std::string> index_values;
  size_t at = 0;
  for (const auto& [key, value] : puts.puts) {
    if (key == FeedVersionKey(kTable, 102)) {
      index_values.push_back(value);
      continue;
    }
    ASSERT_LT(at, expected.size());
    EXPECT_EQ(key, expected[at].key) << at;
    FeedEntryView view;
    ASSERT_OK(DecodeFeedEntry(value, &view));
    EXPECT_EQ(view.origin, expected[at].origin) << at;
    EXPECT_EQ(view.op, expected[at].op) << at;
    // The application's entries are version 1, the sync's version 2.
    EXPECT_EQ(static_cast<uint8_t>(value[0]), view.origin == WriteOrigin::kSync ? 2 : 1) << at;
    ++at;
  }
  EXPECT_EQ(at, expected.size());
  // The insert's version index entry holds its origin, for the write that supersedes it.
  ASSERT_EQ(index_values.size(), 1u);
  FeedVersion v;
  ASSERT_TRUE(DecodeFeedVersion(index_values[0], &v));
  EXPECT_EQ(v.seq, first + 2);
  EXPECT_EQ(v.op, ChangeOp::kInsert);
  EXPECT_EQ(v.origin, WriteOrigin::kSync);
}

}  // namespace
}  // namespace partkv::engine
