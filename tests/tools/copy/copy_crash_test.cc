// `partkv copy --mode insert` killed with SIGKILL at random points and resumed with --resume
// (partkv/copy.h "Resuming"), local -> partkv serve and partkv serve -> local, until a run
// finishes. Then the destination holds exactly the source (--verify-only clean, the same number
// of rows: nothing lost, nothing doubled), the checkpoint is gone, and the finishing run's report
// adds up: every row it read it either wrote or found already there (rows_skipped), and it found
// no more already there than copy.h bounds — per unit, max_group_rows + 1 rows on a local
// destination, (2 * max_batches_in_flight + 1) * 100 on a remote one (CopyOptions' defaults,
// which the command uses).
//
// A kill lands, chosen at random, after the checkpoint file was replaced a random number of times
// (inotify sees each rename of Checkpoint::Save), after the destination store's write-ahead log
// was written a random number of times (a group or a batch written, its checkpoint not yet
// saved: the server's store, or the local destination's), or at a random delay from the child's
// start up to the length of an uninterrupted run — so before the first checkpoint, between a
// write and its checkpoint, and after the copy finished are all hit. A run killed before its first
// checkpoint leaves none: the destination is then empty (started afresh) or whole (the copy had
// finished and deleted it). The seed is printed; PARTKV_COPY_CRASH_SEED replays it,
// PARTKV_COPY_CRASH_CYCLES sets the cycles per direction (default 20; 8 in a sanitizer build).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/copy/copy_test_support.h"

namespace partkv {
namespace {

using testing::KilledRun;
using testing::KillPlan;

#ifndef PARTKV_COPY_CRASH_DEFAULT_CYCLES
#define PARTKV_COPY_CRASH_DEFAULT_CYCLES 20
#endif

constexpr int kRows = 4000;
constexpr int kPartitionKeys = 100;  // 40 rows each
// A local source's units. Each holds fewer rows than a resumed copy looks up on a remote
// destination ((2 * 4 + 1) * 100 = 900; SetUp checks it), so that a kill can land anywhere in a
// unit; interrupted runs in a row are covered by copy_faults_test.cc
// (ToServerTwoInterruptedRunsInARowThenResumeCleanly).
constexpr uint32_t kPhysicalPartitions = 16;
constexpr uint64_t kBatchRows = 100;  // Azure's entity-group limit

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

Entity Row(int i) {
  char pk[16], rk[16];
  std::snprintf(pk, sizeof pk, "p%03d", i % kPartitionKeys);
  std::snprintf(rk, sizeof rk, "r%05d", i);
  Entity e(pk, rk);
  e.Set("Text", Value::String("row " + std::to_string(i) + " of the crash copy, some padding"));
  e.Set("N", Value::Int32(i));
  e.Set("Half", Value::Double(i / 2.0));
  return e;
}

enum class Direction { kLocalToServe, kServeToLocal };

class CopyCrashTest : public ::testing::TestWithParam<Direction> {
 protected:
  void SetUp() override {
    source_dir_ = dir_.Sub("source");
    StoreOptions options;
    auto store = Store::Open(source_dir_, options);
    ASSERT_OK(store);
    TableOptions table_options;
    table_options.physical_partitions = kPhysicalPartitions;
    ASSERT_OK(store->CreateTable("Src", table_options));
    auto table = store->OpenTable("Src");
    ASSERT_OK(table);
    auto writer = BulkWriter::Create(*table);
    ASSERT_OK(writer);
    for (int i = 0; i < kRows; ++i) ASSERT_OK(writer->Add(Row(i)));
    ASSERT_OK(writer->Finish());
    std::vector<uint64_t> unit_rows(kPhysicalPartitions);
    for (int i = 0; i < kRows; ++i) ++unit_rows[table->PhysicalPartitionOf(Row(i).partition_key())];
    for (uint64_t rows : unit_rows) ASSERT_LE(rows, Window(true));
  }

  bool local_to_serve() const { return GetParam() == Direction::kLocalToServe; }

  // The most rows a resumed run may find already there, per unit (copy.h).
  static uint64_t Window(bool remote_destination) {
    const CopyOptions defaults;
    return remote_destination ? (2 * defaults.max_batches_in_flight + 1) * kBatchRows
                              : defaults.max_group_rows + 1;
  }
  uint64_t Window() const { return Window(local_to_serve()); }

  testing::TempDir dir_;
  std::string source_dir_;
};

INSTANTIATE_TEST_SUITE_P(Directions, CopyCrashTest,
                         ::testing::Values(Direction::kLocalToServe, Direction::kServeToLocal),
                         [](const auto& info) {
                           return std::string(info.param == Direction::kLocalToServe
                                                  ? "LocalToServe"
                                                  : "ServeToLocal");
                         });

TEST_P(CopyCrashTest, KilledAtRandomPointsAndResumedCopiesEveryRowOnce) {
  const uint64_t seed = EnvOr("PARTKV_COPY_CRASH_SEED", std::random_device{}());
  const int cycles =
      static_cast<int>(EnvOr("PARTKV_COPY_CRASH_CYCLES", PARTKV_COPY_CRASH_DEFAULT_CYCLES));
  SCOPED_TRACE("PARTKV_COPY_CRASH_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };

  // local -> serve: a fresh `partkv serve`, a destination table per cycle. serve -> local: the
  // source store served, a destination store per cycle.
  testing::PartkvServeOptions serve_options;
  if (!local_to_serve()) serve_options.store_dir = source_dir_;
  auto serve = testing::PartkvServe::Start(PARTKV_CLI_PATH, serve_options);
  ASSERT_OK(serve);
  const std::string remote = (*serve)->connection_string();

  struct Totals {
    int kills = 0;  // runs that died of our SIGKILL
    int kills_without_checkpoint = 0;
    int finished_before_kill = 0;  // killed after the copy had deleted its checkpoint
    int finished_by_resume = 0;
    uint64_t rows_skipped = 0;
  } totals;
  std::chrono::microseconds full_run{0};
  int full_run_events = 0, full_run_writes = 0;

  // A cycle whose planned kills all missed (the run ended first) does not count: cycles go on
  // until `cycles` of them were killed at least once.
  int killed_cycles = 0;
  int cycle = 0;
  for (; killed_cycles < cycles && cycle <= 3 * cycles; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    const std::string ck_dir = dir_.Sub("ck" + std::to_string(cycle));
    std::filesystem::create_directories(ck_dir);
    const std::string checkpoint = ck_dir + "/copy.checkpoint";
    const std::string from = local_to_serve() ? source_dir_ : remote;
    const std::string to = local_to_serve() ? remote : dir_.Sub("dest" + std::to_string(cycle));
    // The destination's store directory, watched for its log writes: the server's, or the local
    // destination made here beforehand (empty; the copy creates the table).
    const std::string destination_store = local_to_serve() ? (*serve)->store_dir() : to;
    if (!local_to_serve()) {
      StoreOptions options;
      ASSERT_OK(Store::Open(to, options));
    }
    const std::string table = local_to_serve() ? "Dst" + std::to_string(cycle) : "Src";
    const std::string parallel = cycle % 2 == 0 ? "2" : "4";
    const std::vector<std::string> copy_args = {
        "copy",       "--from", from,           "--to",     to,
        "Src",        "--as",   table,          "--mode",   "insert",
        "--parallel", parallel, "--checkpoint", checkpoint, "--json"};

    // Cycle 0 is not killed: it measures an uninterrupted run (its length, the times it replaces
    // its checkpoint, the destination's log writes), which the others' kill points are drawn in.
    const int planned_kills = cycle == 0 ? 0 : static_cast<int>(uniform(1, 3));
    bool resume = false;
    bool finished = false;
    int kills = 0;
    for (int attempt = 0; attempt < planned_kills + 4 && !finished; ++attempt) {
      KillPlan plan;
      plan.store_dir = destination_store;
      if (kills < planned_kills) {
        switch (uniform(0, 2)) {
          case 0:  // just after a checkpoint was saved
            plan.events = static_cast<int>(uniform(1, std::max(1, full_run_events - 1)));
            break;
          case 1:  // just after the destination wrote a group or a batch: before its checkpoint
            plan.store_writes = static_cast<int>(uniform(1, std::max(1, full_run_writes - 1)));
            break;
          default:  // anywhere
            plan.delay = std::chrono::microseconds(uniform(0, full_run.count()));
            break;
        }
      }
      std::vector<std::string> args = copy_args;
      if (resume) args.push_back("--resume");
      uint64_t before = 0;
      if (resume) {
        auto counted = testing::CountRows(to, table);
        ASSERT_OK(counted);
        before = *counted;
      }
      const KilledRun run = testing::RunKillable(args, dir_.path(), checkpoint, plan);
      if (run.killed) {
        ++kills;
        ++totals.kills;
        if (std::filesystem::exists(checkpoint)) {
          resume = true;
          continue;
        }
        // No checkpoint: killed before the first one (nothing written: start afresh), or after
        // the copy had finished and deleted it.
        ++totals.kills_without_checkpoint;
        auto counted = testing::CountRows(to, table);
        ASSERT_OK(counted);
        if (*counted == static_cast<uint64_t>(kRows)) {
          ++totals.finished_before_kill;
          finished = true;
          break;
        }
        ASSERT_EQ(*counted, 0u)
            << "killed without a checkpoint, the destination holds part of the source";
        resume = false;
        continue;
      }
      // The run ended by itself: it must have finished.
      ASSERT_EQ(run.exit_code, 0) << (resume ? "resumed: " : "") << run.err << run.out;
      EXPECT_FALSE(std::filesystem::exists(checkpoint)) << "a finished copy keeps its checkpoint";
      auto report = testing::CopyJson(run.out);
      ASSERT_OK(report);
      const nlohmann::json& j = *report;
      ASSERT_TRUE(j.value("ok", false)) << j.dump();
      const uint64_t read = j.value("rows_read", 0u), written = j.value("rows_written", 0u),
                     skipped = j.value("rows_skipped", 0u);
      const uint64_t units = j.value("units", 0u), units_skipped = j.value("units_skipped", 0u);
      EXPECT_EQ(read, written + skipped)
          << "a row read was neither written nor found: " << j.dump();
      if (!resume) {
        EXPECT_EQ(written, static_cast<uint64_t>(kRows)) << j.dump();
        EXPECT_EQ(skipped, 0u) << j.dump();
        if (cycle == 0) {
          full_run = run.elapsed;
          full_run_events = run.checkpoint_events;
          full_run_writes = run.store_writes;
          std::printf(
              "[copy crash] uninterrupted run: %lld us, checkpoint replaced %d times, "
              "destination log written %d times, %llu units\n",
              static_cast<long long>(full_run.count()), full_run_events, full_run_writes,
              static_cast<unsigned long long>(units));
          ASSERT_GT(full_run_events, 1);
          ASSERT_GT(full_run_writes, 1);
        }
      } else {
        ++totals.finished_by_resume;
        totals.rows_skipped += skipped;
        EXPECT_LE(skipped, (units - units_skipped) * Window())
            << "more rows found already there than a resumed copy looks up: " << j.dump();
        // Every row the run wrote was missing before it; a local destination, written by the
        // killed process alone, had exactly the others.
        if (local_to_serve()) {
          EXPECT_LE(written, kRows - before) << j.dump();
        } else {
          EXPECT_EQ(written, kRows - before) << j.dump();
        }
      }
      finished = true;
    }
    ASSERT_TRUE(finished) << "no run finished the copy";

    // Nothing lost, nothing doubled, nothing different.
    auto counted = testing::CountRows(to, table);
    ASSERT_OK(counted);
    EXPECT_EQ(*counted, static_cast<uint64_t>(kRows));
    const std::vector<std::string> verify_args = {
        "copy", "--from", from,     "--to",          to,      "Src", "--as",
        table,  "--mode", "insert", "--verify-only", "--json"};
    const KilledRun verify = testing::RunKillable(verify_args, dir_.path(), checkpoint, {});
    ASSERT_EQ(verify.exit_code, 0) << verify.err << verify.out;
    auto report = testing::CopyJson(verify.out);
    ASSERT_OK(report);
    ASSERT_TRUE(report->contains("verify")) << report->dump();
    const nlohmann::json& v = (*report)["verify"];
    EXPECT_EQ(v.value("missing", 1u), 0u) << v.dump();
    EXPECT_EQ(v.value("extra", 1u), 0u) << v.dump();
    EXPECT_EQ(v.value("different", 1u), 0u) << v.dump();
    EXPECT_EQ(v.value("source_rows", 0u), static_cast<uint64_t>(kRows)) << v.dump();
    EXPECT_EQ(v.value("destination_rows", 0u), static_cast<uint64_t>(kRows)) << v.dump();
    if (::testing::Test::HasFatalFailure()) return;
    if (kills > 0) ++killed_cycles;
  }
  std::printf(
      "[copy crash] seed %llu, %d cycles killed of %d: %d kills (%d before a checkpoint, "
      "%d after the copy finished), %d copies finished by a resumed run, %llu rows found "
      "already there\n",
      static_cast<unsigned long long>(seed), killed_cycles, cycle - 1, totals.kills,
      totals.kills_without_checkpoint, totals.finished_before_kill, totals.finished_by_resume,
      static_cast<unsigned long long>(totals.rows_skipped));
  // The kills landed: every counted cycle was killed at least once, and a good share of the
  // cycles were finished by a resumed run (the others were killed before their first checkpoint,
  // and started afresh, or just after finishing: how many depends on the machine's load, as a
  // third of the kill points are times, so this asks for a quarter, not a majority).
  EXPECT_EQ(killed_cycles, cycles);
  EXPECT_GE(totals.finished_by_resume, cycles / 4);
}

}  // namespace
}  // namespace partkv
