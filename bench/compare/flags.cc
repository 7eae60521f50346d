#include "bench/compare/flags.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "CLI/CLI.hpp"
#include "bench/compare/format.h"
#include "fmt/format.h"
#include "partkv/store.h"

namespace partkv::compare {
namespace {

template <typename T>
Status ParseWhole(const std::string& flag, const std::optional<std::string>& text, T min, T max,
                  T* out) {
  if (!text) return Status::OK();
  const std::string range = fmt::format("expected {}..{}", Grouped(min), Grouped(max));
  uint64_t v = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text->empty() || ec == std::errc::invalid_argument || ptr != end) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' is not a whole number ({})", flag, *text, range));
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    return Status::InvalidArgument(fmt::format("{}: {} is out of range ({})", flag, *text, range));
  }
  *out = static_cast<T>(v);
  return Status::OK();
}

Status ParseRate(const std::string& flag, const std::optional<std::string>& text, double max,
                 double* out) {
  if (!text) return Status::OK();
  const std::string range = fmt::format("expected a number of entities/s above 0, at most {}",
                                        Grouped(static_cast<uint64_t>(max)));
  double v = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text->empty() || ec == std::errc::invalid_argument || ptr != end) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' is not a number ({})", flag, *text, range));
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(v) || v <= 0 || v > max) {
    return Status::InvalidArgument(fmt::format("{}: {} is out of range ({})", flag, *text, range));
  }
  *out = v;
  return Status::OK();
}

}  // namespace

Status CheckWritableDirectory(const std::string& flag, const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return Status::InvalidArgument(flag + ": the directory name is empty");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return Status::InvalidArgument(
        fmt::format("{}: '{}' exists and is not a directory", flag, dir));
  }
  fs::create_directories(dir, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("{}: cannot create directory '{}': {}", flag, dir, ec.message()));
  }
  const std::string probe = dir + "/.partkv-bench-write-check";
  {
    std::ofstream f(probe);
    f << "ok\n";
    f.close();
    if (!f) {
      return Status::InvalidArgument(fmt::format("{}: cannot write files in '{}'", flag, dir));
    }
  }
  fs::remove(probe, ec);
  return Status::OK();
}

Result<BenchFlags> ParseFlags(int argc, const char* const* argv) {
  BenchFlags flags;
  CLI::App app{
      "partkv-bench: compares partition-key strategies on disk — the same workload written under "
      "each strategy into its own table, against raw RocksDB on the same bytes — and writes a "
      "terminal table, a CSV and an HTML report."};
  app.set_help_flag("-h,--help", "print this help and exit");
  std::optional<std::string> events, days, seed, partitions, replay_rate, target_in_flight;
  app.add_option("--events", events,
                 fmt::format("events in the workload ({}; default {})",
                             fmt::format("{}..{}", Grouped(BenchFlags::kMinEvents),
                                         Grouped(BenchFlags::kMaxEvents)),
                             Grouped(flags.events)))
      ->type_name("N");
  app.add_option(
         "--days", days,
         fmt::format("days the events span (1..{}; default {})", BenchFlags::kMaxDays, flags.days))
      ->type_name("D");
  app.add_option(
         "--seed", seed,
         fmt::format("seed of the workload and of the random suffixes (default {})", flags.seed))
      ->type_name("S");
  app.add_option("--partitions", partitions,
                 fmt::format("physical partitions per table (1..{}; default {})",
                             BenchFlags::kMaxPartitions, flags.partitions))
      ->type_name("P");
  app.add_option("--replay-rate", replay_rate,
                 fmt::format("average entities/s of the compressed timeline that batching and "
                             "the throttled replay use (default {:.0f})",
                             flags.replay_rate))
      ->type_name("R");
  app.add_option("--out", flags.out,
                 "directory for partkv-compare.csv and partkv-compare.html (created; default "
                 "./partkv-report; the last one given wins)")
      ->type_name("DIR")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--work-dir", flags.work_dir,
                 "directory for the stores while the run lasts (default: a fresh one under "
                 "$TMPDIR, removed at the end)")
      ->type_name("DIR");
  app.add_flag("--sweep", flags.sweep,
               "run the comparison at 1x, 3x and 10x the events and report how the per-entity "
               "write cost and the per-page read cost grow");
  app.add_option("--target", flags.target,
                 "also write every strategy's batches, at the replay's pace, and run its reads "
                 "against this Table endpoint (an Azure Storage connection string or a table "
                 "endpoint URL with a SAS; Azure Table Storage, Cosmos DB for Table, Azurite, "
                 "partkv serve), and report the 503/429 answers and retry waits it met beside "
                 "the predicted throttling")
      ->type_name("CONN");
  app.add_option("--target-in-flight", target_in_flight,
                 fmt::format("batches sent to the target at once (1..256; default {})",
                             flags.target_in_flight))
      ->type_name("N");
  app.add_flag("--keep-target-tables", flags.keep_target_tables,
               "leave the tables written on the target (default: deleted after each strategy)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    flags.help = true;
    flags.help_text = app.help();
    return flags;
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint64_t>("--events", events, BenchFlags::kMinEvents,
                                              BenchFlags::kMaxEvents, &flags.events));
  PARTKV_RETURN_IF_ERROR(
      ParseWhole<uint32_t>("--days", days, 1, BenchFlags::kMaxDays, &flags.days));
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint64_t>("--seed", seed, 0, UINT64_MAX, &flags.seed));
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint32_t>("--partitions", partitions, 1,
                                              BenchFlags::kMaxPartitions, &flags.partitions));
  PARTKV_RETURN_IF_ERROR(
      ParseRate("--replay-rate", replay_rate, BenchFlags::kMaxReplayRate, &flags.replay_rate));
  if (flags.sweep && flags.events > BenchFlags::kMaxEvents / 10) {
    return Status::InvalidArgument(fmt::format(
        "--events: {} with --sweep runs {} events, above the limit of {}", Grouped(flags.events),
        Grouped(flags.events * 10), Grouped(BenchFlags::kMaxEvents)));
  }
  PARTKV_RETURN_IF_ERROR(ParseWhole<uint32_t>("--target-in-flight", target_in_flight, 1, 256,
                                              &flags.target_in_flight));
  if (!flags.target.empty()) {
    if (!Store::IsRemoteLocation(flags.target)) {
      return Status::InvalidArgument(fmt::format(
          "--target: '{}' is not a connection string or a table endpoint URL with a SAS "
          "(the comparison's local store is its own; --target names a remote one)",
          Store::RedactLocation(flags.target)));
    }
    if (flags.sweep) {
      return Status::InvalidArgument("--target: not with --sweep (one run goes to the target)");
    }
  }
  PARTKV_RETURN_IF_ERROR(CheckWritableDirectory("--out", flags.out));
  if (!flags.work_dir.empty()) {
    PARTKV_RETURN_IF_ERROR(CheckWritableDirectory("--work-dir", flags.work_dir));
  }
  return flags;
}

}  // namespace partkv::compare
