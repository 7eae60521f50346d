// partkv import TABLE [FILE|-] [--mode insert|upsert]: JSON Lines in, through the library's bulk
// writer (partkv/bulk_writer.h), in two passes with bounded memory (docs/cli.md "import").
//
// Pass 1 hands the input, in blocks of whole lines, to the writer, which parses and validates
// them on worker threads — JSON, the table's key scheme, the table's limits — and stages each
// valid row, encoded, in an unlinked temporary file, sorted by key on the way
// (BulkWriteOptions::validate_before_writing). A bad line stops the import with its line number
// and nothing written.
//
// Pass 2 (BulkWriter::Finish) first looks for the first row that exists already (insert mode),
// then writes the rows in one ascending pass over the table's keys, in atomic groups of many
// PartitionKeys, so a file whose PartitionKeys are interleaved imports as fast as a sorted one.
// When a row exists, the error names its line and how many rows were written: every row before
// the line of its batch (consecutive rows of one PartitionKey, as an Azure client would batch
// them), none from there on. A group refused by the table's throughput budget (throttling
// emulation) is retried after the retry-after the store gives, as the cloud SDKs do
// (partkv/profile.h).
//
// On a remote store the same writer sends the batches themselves, several at once (the bulk
// writer's remote path, partkv/bulk_writer.h): pass 1 is the same, pass 2 writes in file order,
// and a failure may leave, besides the rows before the failing batch, batches written that were
// in flight beside it; the error names them.

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "partkv/bulk_writer.h"
#include "partkv/profile.h"
#include "tools/cli/cli.h"
#include "tools/common/progress.h"

namespace partkv::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct ImportArgs {
  std::string table;
  std::string file;
  std::string mode = "insert";
  SchemeArgs schemes;
};

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

// Pass 1: every line of the input to the writer, validated.
Status ValidateAll(LineReader& reader, BulkWriter& writer, Progress& progress) {
  std::string block;
  Status read_status;
  while (reader.NextBlock(&block, &read_status)) {
    PARTKV_RETURN_IF_ERROR(writer.AddJsonLines(block));
    if (progress.Due()) {
      std::string text = "validating: " + GroupDigits(writer.report().rows_added) + " rows";
      if (reader.size() > 0) {
        text += "  " + std::to_string(reader.bytes_read() * 100 / reader.size()) + "%";
      }
      progress.Show(text);
    }
  }
  // A reading error comes after every line before it has been checked.
  PARTKV_RETURN_IF_ERROR(writer.Flush());
  if (read_status.IsInvalidArgument()) {
    return read_status.WithContext("line " + std::to_string(writer.report().lines_added + 1));
  }
  return read_status;
}

// "lines 12-40, 95-130": the rows of the ranges by their lines.
std::string LinesOf(const std::vector<BulkRowRange>& ranges) {
  std::string text =
      ranges.size() == 1 && ranges[0].first_line == ranges[0].last_line ? "line " : "lines ";
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(ranges[i].first_line);
    if (ranges[i].last_line != ranges[i].first_line) {
      text += "-" + std::to_string(ranges[i].last_line);
    }
  }
  return text;
}

// The message of a failure while writing: what failed, and exactly which rows are in the table.
Status WriteFailure(const Status& failure, const BulkWriteReport& report) {
  std::string message = std::string(failure.message()) + "; ";
  uint64_t also = 0;
  for (const BulkRowRange& r : report.also_written) also += r.end - r.begin;
  const std::string line = std::to_string(report.resume_line);
  if (report.rows_written == 0 && also == 0) {
    message += "nothing was written";
  } else if (also == 0) {
    message += GroupDigits(report.rows_written) + " rows were written (every row before line " +
               line + "), none from line " + line + " on";
  } else {
    // A remote store's later batches, in flight while the one that failed was.
    message += GroupDigits(report.rows_written + also) + " rows were written: " +
               (report.rows_written == 0 ? std::string("none before line ") + line
                                         : "every row before line " + line) +
               ", and from line " + line + " on only those of " + LinesOf(report.also_written) +
               " (later batches, in flight while the one that failed was)";
  }
  return Reworded(failure, message);
}

Status RunImport(const Context& ctx, const ImportArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, OpenTable(store, args.table, args.schemes));
  const bool remote = store.capabilities().backend == "remote";
  PARTKV_ASSIGN_OR_RETURN(LineReader reader, LineReader::Open(args.file));
  Progress progress;
  const std::string& name = table.name();

  uint64_t total_rows = 0;
  SteadyClock::time_point start = SteadyClock::now(), writing_start;
  BulkWriteOptions options;
  options.mode = args.mode == "upsert" ? OpType::kInsertOrReplace : OpType::kInsert;
  options.validate_before_writing = true;
  // A table with throttling emulation refuses a group over a partition's budget: wait the
  // retry-after and try again, as the cloud SDKs do, so the import runs at the cloud's pace.
  options.retry_throttled = RetryPolicy{};
  options.on_group_written = [&](const BulkWrittenGroup&, const BulkWriteReport& report) {
    if (!progress.Due()) return;
    double elapsed = Seconds(SteadyClock::now() - writing_start);
    double rate = elapsed > 0 ? static_cast<double>(report.rows_written) / elapsed : 0;
    std::string text =
        "writing: " + GroupDigits(report.rows_written) + " / " + GroupDigits(total_rows) + " rows";
    if (rate > 0) {
      text += "  " + GroupDigits(static_cast<uint64_t>(rate)) + " rows/s  ETA " +
              HumanDuration(static_cast<double>(total_rows - report.rows_written) / rate);
    }
    progress.Show(text);
  };
  PARTKV_ASSIGN_OR_RETURN(BulkWriter writer, BulkWriter::Create(table, options));

  Status valid = ValidateAll(reader, writer, progress);
  progress.Clear();
  if (!valid.ok()) {
    std::fprintf(stderr, "partkv: import: 0 rows written to %s: %s\n", name.c_str(),
                 valid.IsInvalidArgument() ? "a line is invalid, so nothing was written"
                                           : "the input could not be read or spilled");
    return Reworded(valid, std::string(valid.message()) + "; nothing was written");
  }
  writing_start = SteadyClock::now();
  double validated = Seconds(writing_start - start);
  total_rows = writer.report().rows_added;

  Status written = writer.Finish();
  progress.Clear();
  const BulkWriteReport& report = writer.report();
  uint64_t rows_written = report.rows_written;
  for (const BulkRowRange& r : report.also_written) rows_written += r.end - r.begin;
  double elapsed = Seconds(SteadyClock::now() - start);
  double rate = elapsed > 0 ? static_cast<double>(rows_written) / elapsed : 0;
  std::string throttled;
  if (report.throttled > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; throttled %llu times, waited %.2f s",
                  static_cast<unsigned long long>(report.throttled),
                  static_cast<double>(report.throttled_wait_micros) / 1e6);
    throttled = buf;
  }
  // Locally the batches are written in groups; a remote store takes each batch on its own.
  std::string groups = remote ? std::to_string(options.max_batches_in_flight) + " in flight"
                              : std::to_string(report.groups_written) +
                                    (report.groups_written == 1 ? " group" : " groups");
  std::fprintf(stderr,
               "partkv: import: %llu of %llu rows written to %s in %.2f s (%.0f rows/s; %llu "
               "batches; %s; validation %.2f s%s)\n",
               static_cast<unsigned long long>(rows_written),
               static_cast<unsigned long long>(total_rows), name.c_str(), elapsed, rate,
               static_cast<unsigned long long>(report.batches_written), groups.c_str(), validated,
               throttled.c_str());
  return written.ok() ? written : WriteFailure(written, report);
}

}  // namespace

void AddImportCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Write JSON Lines entities in large atomic groups; every line is validated before "
      "anything is written");
  cmd->add_option("TABLE", args->table, "table name")->required();
  cmd->add_option("FILE", args->file, "JSON Lines file; - or absent: stdin");
  cmd->add_option("--mode", args->mode,
                  "insert (default: a row that exists fails the import) or upsert (replace)")
      ->check(CLI::IsMember({"insert", "upsert"}));
  AddSchemeOptions(cmd, &args->schemes, /*short_names=*/true);
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return RunImport(ctx, *args); }; });
}

}  // namespace partkv::cli
