// partkv copy --from LOCATION --to LOCATION TABLE... | --all-tables: copies tables between any
// two stores, local or remote, through the library's CopyTable and VerifyCopy (partkv/copy.h;
// docs/copy.md).
//
// Each table is one copy with its own checkpoint file (--checkpoint FILE for one table; FILE.TABLE
// for several; by default beside the local side, else in the working directory). The destination
// table is created when missing: with the source's physical partitions and key schemes (or the
// re-keying schemes) when both stores are local.
//
// Output: a progress line on a terminal (rows, rows/s, ETA when the source's size is known), a
// one-line summary per table on stderr, and with --json one JSON document on stdout.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/copy.h"
#include "tools/cli/cli.h"
#include "tools/cli/exit_codes.h"
#include "tools/common/progress.h"

namespace partkv::cli {
namespace {

struct CopyArgs {
  std::string from, to;
  std::vector<std::string> tables;
  bool all_tables = false;
  std::string as;
  std::string filter;
  std::vector<std::string> select;
  std::string mode = "insert";
  std::optional<std::string> partition_key, row_key;
  std::vector<std::string> keep_keys_as;
  std::string keep_timestamp_as;
  uint32_t parallel = 1;
  std::string checkpoint;
  bool resume = false;
  bool json = false;
  bool verify = false;
  bool verify_only = false;
  size_t show = 10;
};

// A location as a checkpoint records it: a directory's absolute path, a remote location
// without its secrets.
std::string Canonical(const std::string& location) {
  if (Store::IsRemoteLocation(location)) return Store::RedactLocation(location);
  // The same whether the directory exists yet or not, with or without a trailing slash.
  std::string trimmed = location;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::error_code ec;
  std::filesystem::path path = std::filesystem::weakly_canonical(trimmed, ec);
  if (ec) return trimmed;
  std::string text = path.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

Result<Store> OpenLocation(Context& ctx, const std::string& location, bool create) {
  Context at = ctx;
  at.store_dir = location;
  return OpenStore(at, create);
}

std::string DefaultCheckpoint(const CopyArgs& args, const std::string& to_table) {
  const std::string* local = !Store::IsRemoteLocation(args.to)     ? &args.to
                             : !Store::IsRemoteLocation(args.from) ? &args.from
                                                                   : nullptr;
  const std::string name = to_table + ".partkv-copy";
  if (local == nullptr) return name;
  std::filesystem::path dir = std::filesystem::absolute(*local).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  return (dir.parent_path() / (dir.filename().string() + "." + name)).string();
}

Result<CopyOptions> Options(const CopyArgs& args) {
  CopyOptions options;
  options.filter = args.filter;
  options.select = args.select;
  options.mode = args.mode == "upsert"  ? CopyMode::kUpsert
                 : args.mode == "merge" ? CopyMode::kMerge
                                        : CopyMode::kInsert;
  for (auto [text, option, scheme] :
       {std::tuple{&args.partition_key, "--partition-key", &options.partition_key},
        std::tuple{&args.row_key, "--row-key", &options.row_key}}) {
    if (!*text) continue;
    auto parsed = KeyStrategy::Parse(**text);
    if (!parsed.ok()) return parsed.status().WithContext(option);
    *scheme = *std::move(parsed);
  }
  if (!args.keep_keys_as.empty()) {
    if (args.keep_keys_as.size() != 2) {
      return Status::InvalidArgument("--keep-keys-as: give PKNAME,RKNAME");
    }
    options.keep_partition_key_as = args.keep_keys_as[0];
    options.keep_row_key_as = args.keep_keys_as[1];
  }
  options.keep_timestamp_as = args.keep_timestamp_as;
  options.streams = args.parallel;
  options.resume = args.resume;
  options.identity = "from " + Canonical(args.from) + " to " + Canonical(args.to);
  return options;
}

// The destination table, created when missing.
Result<Table> Destination(Store& to, const Store& from, const Table& source,
                          const std::string& name, const CopyOptions& options, bool create) {
  const bool remote = to.capabilities().backend == "remote";
  if (!create) {
    // --verify-only writes nothing: the table must be there.
    Result<Table> table = to.OpenTable(name);
    if (table.ok()) {
      Query probe;
      probe.page_size = 1;
      Page page;
      Status readable = table->QueryEntities(probe, &page);
      if (!readable.ok()) table = readable;
    }
    if (table.status().IsNotFound()) {
      return Status::NotFound("no table '" + name + "' in the destination store");
    }
    return table;
  }
  if (!remote) {
    auto table = to.OpenTable(name);
    if (table.ok() || !table.status().IsNotFound()) return table;
  }
  TableOptions table_options;
  if (!remote && from.capabilities().backend == "local") {
    const TableInfo info = source.info();
    table_options.physical_partitions = info.physical_partitions;
    table_options.partition_key_scheme = info.partition_key_strategy;
    table_options.row_key_scheme = info.row_key_strategy;
  }
  if (options.partition_key) table_options.partition_key_scheme = options.partition_key;
  if (options.row_key) table_options.row_key_scheme = options.row_key;
  Status created = to.CreateTable(name, table_options);
  if (!created.ok() && !created.IsAlreadyExists()) {
    return created.WithContext("creating destination table '" + name + "'");
  }
  return to.OpenTable(name);
}

nlohmann::json KeysJson(const std::vector<CopyKey>& keys) {
  nlohmann::json out = nlohmann::json::array();
  for (const CopyKey& k : keys) out.push_back({k.partition_key, k.row_key});
  return out;
}

std::string KeysText(const std::vector<CopyKey>& keys, uint64_t total) {
  std::string text;
  for (const CopyKey& k : keys) {
    if (!text.empty()) text += ", ";
    text += "(" + nlohmann::json(k.partition_key).dump() + ", " + nlohmann::json(k.row_key).dump() +
            ")";
  }
  if (total > keys.size()) text += ", ...";
  return text;
}

struct TableOutcome {
  std::optional<CopyReport> copied;
  std::optional<VerifyReport> verified;
  Status status;
};

void PrintSummary(const std::string& from_table, const std::string& to_table,
                  const TableOutcome& outcome) {
  if (outcome.copied) {
    const CopyReport& r = *outcome.copied;
    const double seconds = std::chrono::duration<double>(r.elapsed).count();
    std::string extra;
    if (r.resent > 0) extra += ", " + GroupDigits(r.resent) + " already there from the last run";
    if (r.units_skipped > 0) extra += ", " + std::to_string(r.units_skipped) + " units done before";
    if (r.throttled > 0) {
      extra += ", throttled " + GroupDigits(r.throttled) + " times (waited " +
               std::to_string(r.throttled_wait_micros / 1000) + " ms)";
    }
    std::fprintf(
        stderr,
        "partkv: copy: %s -> %s: %s rows read, %s written in %.2f s (%s rows/s; %u "
        "units on %u streams%s)%s\n",
        from_table.c_str(), to_table.c_str(), GroupDigits(r.rows_read).c_str(),
        GroupDigits(r.rows_written).c_str(), seconds,
        GroupDigits(seconds > 0 ? static_cast<uint64_t>(r.rows_written / seconds) : 0).c_str(),
        r.units, r.streams, extra.c_str(), r.error.ok() ? "" : "; stopped");
  }
  if (outcome.verified) {
    const VerifyReport& v = *outcome.verified;
    if (v.clean()) {
      std::fprintf(stderr, "partkv: verify: %s -> %s: %s source rows, all in the destination\n",
                   from_table.c_str(), to_table.c_str(), GroupDigits(v.source_rows).c_str());
    } else {
      std::fprintf(stderr,
                   "partkv: verify: %s -> %s: %s missing, %s extra, %s different (of %s source, "
                   "%s destination rows)\n",
                   from_table.c_str(), to_table.c_str(), GroupDigits(v.missing).c_str(),
                   GroupDigits(v.extra).c_str(), GroupDigits(v.different).c_str(),
                   GroupDigits(v.source_rows).c_str(), GroupDigits(v.destination_rows).c_str());
      if (v.missing > 0) {
        std::fprintf(stderr, "  missing: %s\n", KeysText(v.first_missing, v.missing).c_str());
      }
      if (v.extra > 0)
        std::fprintf(stderr, "  extra: %s\n", KeysText(v.first_extra, v.extra).c_str());
      if (v.different > 0) {
        std::fprintf(stderr, "  different: %s\n", KeysText(v.first_different, v.different).c_str());
      }
    }
  }
}

nlohmann::json OutcomeJson(const std::string& from_table, const std::string& to_table,
                           const TableOutcome& outcome) {
  nlohmann::json j;
  j["table"] = from_table;
  j["destination_table"] = to_table;
  if (outcome.copied) {
    const CopyReport& r = *outcome.copied;
    j["rows_read"] = r.rows_read;
    j["rows_written"] = r.rows_written;
    // Entities a resumed copy found in the destination as the interrupted run sent them.
    j["rows_skipped"] = r.resent;
    j["rows_failed"] = r.rows_failed;
    j["rekey_collisions"] = r.rekey_collisions;
    j["units"] = r.units;
    j["units_skipped"] = r.units_skipped;
    j["streams"] = r.streams;
    j["probes"] = r.probes;
    j["throttled"] = r.throttled;
    j["throttled_wait_seconds"] = static_cast<double>(r.throttled_wait_micros) / 1e6;
    j["retries"] = r.service_throttled;
    j["retry_wait_seconds"] = static_cast<double>(r.retry_wait_micros) / 1e6;
    j["seconds"] = std::chrono::duration<double>(r.elapsed).count();
  }
  if (outcome.verified) {
    const VerifyReport& v = *outcome.verified;
    j["verify"] = {{"source_rows", v.source_rows},
                   {"destination_rows", v.destination_rows},
                   {"missing", v.missing},
                   {"extra", v.extra},
                   {"different", v.different},
                   {"first_missing", KeysJson(v.first_missing)},
                   {"first_missing_source", KeysJson(v.first_missing_source)},
                   {"first_extra", KeysJson(v.first_extra)},
                   {"first_different", KeysJson(v.first_different)}};
  }
  j["ok"] = outcome.status.ok();
  if (!outcome.status.ok()) {
    j["error"] = {{"code", std::string(Status::CodeName(outcome.status.code()))},
                  {"message", std::string(outcome.status.message())}};
  }
  return j;
}

// Source table `name`, read once: a remote table is opened without a request, and a table the
// source lacks must be found before anything is created at the destination.
Result<Table> OpenSource(const Store& from, const std::string& name) {
  auto source = from.OpenTable(name);
  if (source.ok()) {
    Query probe;
    probe.page_size = 1;
    probe.select = {"PartitionKey"};
    Page page;
    Status readable = source->QueryEntities(probe, &page);
    if (!readable.ok()) source = readable;
  }
  if (source.status().IsNotFound()) {
    return Status::NotFound("no table '" + name + "' in the source store");
  }
  return source;
}

TableOutcome CopyOne(const CopyArgs& args, const Store& from, Store& to,
                     const std::string& from_table, const std::string& to_table,
                     const std::string& checkpoint, CopyOptions options) {
  TableOutcome outcome;
  auto source = OpenSource(from, from_table);
  if (!source.ok()) {
    outcome.status = source.status();
    return outcome;
  }
  auto destination = Destination(to, from, *source, to_table, options, !args.verify_only);
  if (!destination.ok()) {
    outcome.status = destination.status();
    return outcome;
  }
  options.checkpoint = checkpoint;
  if (!args.verify_only) {
    Progress progress;
    const auto start = std::chrono::steady_clock::now();
    options.on_progress = [&](const CopyProgress& p) {
      if (!progress.Due()) return;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double rate = seconds > 0 ? static_cast<double>(p.rows_written) / seconds : 0;
      std::string text = "copying " + from_table + ": " + GroupDigits(p.rows_written);
      if (p.source_rows_estimate) text += " / ~" + GroupDigits(*p.source_rows_estimate);
      text += " rows  " + GroupDigits(static_cast<uint64_t>(rate)) + " rows/s";
      if (p.source_rows_estimate && rate > 0 && *p.source_rows_estimate > p.rows_written) {
        text += "  ETA " +
                HumanDuration(static_cast<double>(*p.source_rows_estimate - p.rows_written) / rate);
      }
      text += "  units " + std::to_string(p.units_done) + "/" + std::to_string(p.units);
      progress.Show(text);
    };
    auto report = CopyTable(*source, *destination, options);
    progress.Clear();
    if (!report.ok()) {
      outcome.status = report.status();
      return outcome;
    }
    outcome.copied = *report;
    if (!report->error.ok()) {
      std::string where =
          checkpoint.empty() ? "" : "; resume with --resume (checkpoint " + checkpoint + ")";
      outcome.status = Reworded(report->error, std::string(report->error.message()) + where);
      return outcome;
    }
  }
  if (args.verify || args.verify_only) {
    options.on_progress = nullptr;
    auto verified = VerifyCopy(*source, *destination, options, args.show);
    if (!verified.ok()) {
      outcome.status = verified.status().WithContext("verify");
      return outcome;
    }
    outcome.verified = *verified;
  }
  return outcome;
}

Status RunCopy(Context& ctx, const CopyArgs& args) {
  if (args.all_tables == !args.tables.empty()) {
    return Status::InvalidArgument("name the tables to copy, or give --all-tables");
  }
  if (!args.as.empty() && args.tables.size() != 1) {
    return Status::InvalidArgument("--as names the destination of one table only");
  }
  if (args.resume && args.verify_only) {
    return Status::InvalidArgument("--resume continues a copy; --verify-only copies nothing");
  }
  PARTKV_ASSIGN_OR_RETURN(CopyOptions options, Options(args));
  {
    // Checked before any table is created (each table's checkpoint is named below).
    CopyOptions checked = options;
    checked.checkpoint = "checkpoint";
    PARTKV_RETURN_IF_ERROR(CheckCopyOptions(checked));
  }
  PARTKV_ASSIGN_OR_RETURN(Store from, OpenLocation(ctx, args.from, false));
  // One directory is one store, opened once (a store has one owner at a time): a copy within a
  // store, re-keying a table into another, is a copy between two handles on it.
  const bool same_store = !Store::IsRemoteLocation(args.from) &&
                          !Store::IsRemoteLocation(args.to) &&
                          Canonical(args.from) == Canonical(args.to);
  std::vector<std::string> tables = args.tables;
  if (args.all_tables) {
    PARTKV_ASSIGN_OR_RETURN(std::vector<TableInfo> infos, from.ListTables());
    for (const TableInfo& info : infos) tables.push_back(info.name);
  }
  for (const std::string& table : tables) PARTKV_RETURN_IF_ERROR(OpenSource(from, table).status());
  std::optional<Store> other;
  if (!same_store) {
    PARTKV_ASSIGN_OR_RETURN(Store opened, OpenLocation(ctx, args.to, !args.verify_only));
    other.emplace(std::move(opened));
  }
  Store& to = same_store ? from : *other;
  nlohmann::json report = nlohmann::json::array();
  Status first;
  bool differs = false;
  for (const std::string& table : tables) {
    const std::string to_table = args.as.empty() ? table : args.as;
    std::string checkpoint = args.checkpoint;
    if (checkpoint.empty()) {
      checkpoint = DefaultCheckpoint(args, to_table);
    } else if (tables.size() > 1) {
      checkpoint += "." + to_table;
    }
    TableOutcome outcome = CopyOne(args, from, to, table, to_table, checkpoint, options);
    PrintSummary(table, to_table, outcome);
    if (args.json) report.push_back(OutcomeJson(table, to_table, outcome));
    if (outcome.verified && !outcome.verified->clean()) differs = true;
    if (!outcome.status.ok()) {
      first = outcome.status;
      break;
    }
  }
  if (args.json) {
    // The totals over every table, then each table's report.
    nlohmann::json doc = nlohmann::json::object();
    for (const char* field : {"rows_read", "rows_written", "rows_skipped", "rows_failed",
                              "rekey_collisions", "throttled", "retries"}) {
      uint64_t sum = 0;
      for (const auto& t : report) sum += t.value(field, uint64_t{0});
      doc[field] = sum;
    }
    for (const char* field : {"seconds", "throttled_wait_seconds", "retry_wait_seconds"}) {
      double sum = 0;
      for (const auto& t : report) sum += t.value(field, 0.0);
      doc[field] = sum;
    }
    doc["ok"] = first.ok();
    doc["tables"] = report;
    PrintLine(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  if (!first.ok()) return first;
  if (differs) ctx.exit_code = kExitDiffers;
  return Status::OK();
}

}  // namespace

void AddCopyCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<CopyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "copy",
      "Copy tables between two stores (directories, connection strings, SAS URLs): back up, "
      "restore, migrate, re-key; resumable, verifiable");
  cmd->add_option("--from", args->from, "the source store: what --store takes")
      ->required()
      ->type_name("LOCATION");
  cmd->add_option("--to", args->to, "the destination store; a directory is created when missing")
      ->required()
      ->type_name("LOCATION");
  cmd->add_option("TABLE", args->tables, "the tables to copy");
  cmd->add_flag("--all-tables", args->all_tables, "copy every table of the source");
  cmd->add_option("--as", args->as, "the destination table's name (one table only)")
      ->type_name("NAME");
  cmd->add_option("--filter", args->filter, "copy the entities this OData $filter selects")
      ->type_name("ODATA");
  cmd->add_option("--select", args->select, "copy only these properties (the keys always)")
      ->delimiter(',')
      ->type_name("NAME,...");
  cmd->add_option("--mode", args->mode,
                  "insert (default: an entity the destination has stops the copy), upsert "
                  "(replace) or merge")
      ->check(CLI::IsMember({"insert", "upsert", "merge"}));
  cmd->add_option("--partition-key", args->partition_key,
                  "re-key: compute each destination PartitionKey with this scheme (docs/keys.md)")
      ->type_name("SCHEME");
  cmd->add_option("--row-key", args->row_key, "re-key: compute each destination RowKey likewise")
      ->type_name("SCHEME");
  cmd->add_option("--keep-keys-as", args->keep_keys_as,
                  "with re-keying: keep the source keys as these two String properties")
      ->delimiter(',')
      ->type_name("PKNAME,RKNAME");
  cmd->add_option("--keep-timestamp-as", args->keep_timestamp_as,
                  "keep the source Timestamp as this DateTime property")
      ->type_name("NAME");
  cmd->add_option("--parallel", args->parallel, "streams copying at once (1..64)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--checkpoint", args->checkpoint,
                  "the checkpoint file (default: beside the local store, else here)")
      ->type_name("FILE");
  cmd->add_flag("--resume", args->resume, "continue the copy its checkpoint records");
  cmd->add_flag("--json", args->json, "print a JSON report on stdout");
  cmd->add_flag("--verify", args->verify, "after copying, compare the two tables");
  cmd->add_flag("--verify-only", args->verify_only, "only compare the two tables");
  cmd->add_option("--show", args->show, "keys listed of each difference (default 10)");
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return RunCopy(ctx, *args); }; });
}

}  // namespace partkv::cli
