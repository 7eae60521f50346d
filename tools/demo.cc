// partkv-demo: opens a store in a local directory, writes and reads entities, and prints what it
// did. Usage: partkv-demo [STORE_DIR]   (default: ./partkv-demo-data, recreated each run)

#include <cstdio>
#include <filesystem>
#include <string>

#include "partkv/partkv.h"

namespace {

int Fail(const char* what, const partkv::Status& s) {
  std::fprintf(stderr, "partkv-demo: error: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "partkv-demo-data";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  auto store = partkv::Store::Open(dir);
  if (!store.ok()) return Fail("open", store.status());
  std::printf("opened store %s\n", dir.c_str());

  if (auto s = store->CreateTable("Orders", {.physical_partitions = 16}); !s.ok()) {
    return Fail("create table", s);
  }
  auto orders = store->OpenTable("Orders");
  if (!orders.ok()) return Fail("open table", orders.status());
  std::printf("created table Orders with %u physical partitions\n",
              orders->info().physical_partitions);

  partkv::Entity order("customer-42", "order-0001");
  order.Set("Item", partkv::Value::String("keyboard"))
      .Set("Quantity", partkv::Value::Int32(2))
      .Set("Price", partkv::Value::Double(49.90))
      .Set("PlacedAt", partkv::Value::DateTime(*partkv::DateTime::Parse("2026-11-29T10:00:00Z")));
  auto inserted = orders->Insert(order);
  if (!inserted.ok()) return Fail("insert", inserted.status());
  std::printf("inserted %s etag=%s\n", order.DebugString().c_str(), inserted->etag.c_str());

  auto again = orders->Insert(order);
  std::printf("inserting it again: %s\n", again.status().ToString().c_str());

  partkv::Entity change("customer-42", "order-0001");
  change.Set("Quantity", partkv::Value::Int32(3));
  auto merged = orders->Merge(change, partkv::IfMatch::ETag(inserted->etag));
  if (!merged.ok()) return Fail("merge", merged.status());
  std::printf("merged Quantity=3 with If-Match %s -> etag=%s\n", inserted->etag.c_str(),
              merged->etag.c_str());
  auto stale = orders->Merge(change, partkv::IfMatch::ETag(inserted->etag));
  std::printf("merging with the stale ETag: %s\n", stale.status().ToString().c_str());

  partkv::Batch batch;
  for (int i = 2; i <= 5; ++i) {
    char rk[32];
    std::snprintf(rk, sizeof rk, "order-%04d", i);
    partkv::Entity e("customer-42", rk);
    e.Set("Item", partkv::Value::String("cable")).Set("Quantity", partkv::Value::Int32(i));
    batch.Insert(std::move(e));
  }
  auto committed = orders->Submit(batch, {.sync = true});
  if (!committed.ok()) return Fail("batch", committed.status());
  std::printf("committed a batch of %zu inserts atomically (synced)\n", committed->size());

  partkv::Batch bad;
  bad.Insert(partkv::Entity("customer-42", "order-0006"));
  bad.Insert(partkv::Entity("customer-42", "order-0002"));  // exists: fails the whole batch
  auto failed = orders->Submit(bad);
  std::printf("a batch whose operation 1 collides: %s (failed_op=%d)\n",
              failed.status().ToString().c_str(), failed.status().failed_op());
  auto absent = orders->Get("customer-42", "order-0006");
  std::printf("operation 0 of that batch was not applied: %s\n",
              absent.status().ToString().c_str());

  auto back = orders->Get("customer-42", "order-0001");
  if (!back.ok()) return Fail("get", back.status());
  std::printf("read back %s timestamp=%s etag=%s\n", back->DebugString().c_str(),
              back->timestamp().ToString().c_str(), back->etag().c_str());

  partkv::Entity bad_key("a/b", "r");
  std::printf("a key with '/': %s\n", orders->Insert(bad_key).status().ToString().c_str());
  return 0;
}
