// RecoveryWatch (engine/local/recovery.h): what Store::AwaitWritable reports, driven by the
// listener calls RocksDB makes. The full-disk recovery of a real store is in tests/errors
// (FullDisk).

#include "engine/local/recovery.h"

#include <chrono>
#include <thread>

#include "gtest/gtest.h"
#include "partkv/store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;
using std::chrono::milliseconds;

TEST(RecoveryWatch, WritableUntilABackgroundErrorAndAfterItsRecovery) {
  RecoveryWatch watch;
  EXPECT_OK(watch.AwaitWritable(milliseconds(0)));

  rocksdb::Status error = rocksdb::Status::NoSpace("While appending to file: 000012.log");
  watch.OnBackgroundError(rocksdb::BackgroundErrorReason::kWriteCallback, &error);
  EXPECT_TRUE(error.IsNoSpace()) << "the listener must not change the error it is told of";
  Status stopped = watch.AwaitWritable(milliseconds(0));
  EXPECT_THAT(stopped, StatusIs(Status::Code::kIOError));
  EXPECT_NE(stopped.message().find("000012.log"), std::string::npos) << stopped.ToString();

  // A recovery attempt that ends in another error leaves the store stopped.
  rocksdb::BackgroundErrorRecoveryInfo failed;
  failed.old_bg_error = error;
  failed.new_bg_error = rocksdb::Status::IOError("flush failed again");
  watch.OnErrorRecoveryEnd(failed);
  stopped = watch.AwaitWritable(milliseconds(0));
  EXPECT_NE(stopped.message().find("flush failed again"), std::string::npos) << stopped.ToString();

  // A waiter is woken by the recovery that succeeds, from another thread (as RocksDB's own).
  rocksdb::BackgroundErrorRecoveryInfo recovered;
  recovered.old_bg_error = failed.new_bg_error;
  std::thread recovery([&] { watch.OnErrorRecoveryEnd(recovered); });
  EXPECT_OK(watch.AwaitWritable(std::chrono::minutes(5)));
  recovery.join();
}

TEST(RecoveryWatch, AnOkErrorReportIsNotAStop) {
  RecoveryWatch watch;
  rocksdb::Status none;
  watch.OnBackgroundError(rocksdb::BackgroundErrorReason::kCompaction, &none);
  EXPECT_OK(watch.AwaitWritable(milliseconds(0)));
}

using AwaitWritableTest = testing::StoreFixture;

TEST_F(AwaitWritableTest, AHealthyStoreIsWritableAtOnce) {
  EXPECT_OK(store_->AwaitWritable(milliseconds(0)));
}

}  // namespace
}  // namespace partkv::engine
