// A write that RocksDB holds back for its flushes and compactions waits at most
// StoreOptions::write_stall_timeout, then fails with Busy and writes nothing; once the engine
// catches up, writes go through again. (The stall is made by pausing background work, so no flush
// can free a memtable: the condition a write-buffer-manager stall with nothing to flush created,
// which used to hang a store at its 13th table for ever.)

#include <string>

#include "api/front/front_access.h"
#include "engine/local/store_state.h"
#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "rocksdb/db.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

TEST(WriteStallTest, AStallBeyondTheBoundFailsWithBusyAndWritesNothing) {
  testing::TempDir dir;
  StoreOptions options;
  options.memory_budget_bytes = 4u << 20;  // 1 MiB memtables: three fill quickly
  options.write_stall_timeout = std::chrono::milliseconds(300);
  auto store = Store::Open(dir.Sub("s"), options);
  ASSERT_OK(store);
  ASSERT_OK(store->CreateTable("Stalled", {.physical_partitions = 1}));
  auto table = *store->OpenTable("Stalled");
  ASSERT_TRUE(FrontAccess::Of(*store).db()->PauseBackgroundWork().ok());

  const std::string payload(2000, 'x');
  Status failed;
  int written = 0;
  for (int i = 0; i < 20000 && failed.ok(); ++i) {
    Entity e("p", "r" + std::to_string(i));
    e.Set("payload", Value::String(payload));
    auto w = table.Insert(e);
    if (w.ok()) {
      ++written;
    } else {
      failed = w.status();
    }
  }
  ASSERT_THAT(failed, StatusIs(Status::Code::kBusy)) << "no stall after " << written << " writes";
  EXPECT_NE(failed.message().find("write_stall_timeout"), std::string_view::npos)
      << failed.ToString();
  // The refused write left nothing behind.
  EXPECT_THAT(table.Get("p", "r" + std::to_string(written)), StatusIs(Status::Code::kNotFound));

  ASSERT_TRUE(FrontAccess::Of(*store).db()->ContinueBackgroundWork().ok());
  Entity again("p", "r" + std::to_string(written));
  again.Set("payload", Value::String(payload));
  auto w = table.Insert(again);
  EXPECT_OK(w);
  EXPECT_OK(table.Get("p", "r0"));
}

}  // namespace
}  // namespace partkv
