// partkv sync TABLE --remote LOCATION: two-way sync of a local table with a table of another store
// (a remote location, or another local store's directory) through the library's SyncTable
// (partkv/sync.h; docs/sync.md).
//
// --store must be a local store: the push reads the local table's change feed and the sync keeps
// its state (checkpoints, the ETags each side last agreed on) in a table of the local store.
// Everything the command checks itself (the options, a remote --store, the conflicts file) is
// checked before anything is sent.
//
// Output: a progress line on a terminal, a one-line summary on stderr, and with --json one JSON
// document on stdout with every field of the SyncReport. With --conflicts-file, one JSON line per
// conflict is appended to the file as the sync resolves it. A sync that stopped prints its
// summary, then fails with the error that stopped it; conflicts alone are not a failure (they
// were resolved, and reported).

#include <strings.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "nlohmann/json.hpp"
#include "partkv/json.h"
#include "partkv/sync.h"
#include "tools/cli/cli.h"
#include "tools/common/progress.h"

namespace partkv::cli {
namespace {

struct SyncArgs {
  std::string table;
  std::string remote;
  std::optional<std::string> remote_table;
  bool push = false;
  bool pull = false;
  std::string conflicts = "report";
  int64_t overlap = 300;
  bool reconcile = false;
  std::optional<std::string> conflicts_file;
  std::string state_table = SyncOptions{}.state_table;
  bool json = false;
};

std::string Json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A location as the command shows it: a remote one without its secrets (an account key or a
// signature), a directory as given.
std::string Shown(const std::string& location) {
  return Store::IsRemoteLocation(location) ? Store::RedactLocation(location) : location;
}

// A directory's absolute path, the same with or without a trailing slash, whether or not it
// exists: to tell whether --remote names the store --store names.
std::string CanonicalDirectory(const std::string& location) {
  std::string trimmed = location;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::error_code ec;
  std::filesystem::path path = std::filesystem::weakly_canonical(trimmed, ec);
  if (ec) return trimmed;
  std::string text = path.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

const char* DirectionName(SyncDirection direction) {
  switch (direction) {
    case SyncDirection::kPush:
      return "push";
    case SyncDirection::kPull:
      return "pull";
    case SyncDirection::kBoth:
      break;
  }
  return "both";
}

// The options, checked as far as the command can before anything is opened (the library checks
// the rest, still before anything is sent).
Result<SyncOptions> Options(const SyncArgs& args) {
  SyncOptions options;
  if (args.push && args.pull) {
    return Status::InvalidArgument(
        "--push and --pull exclude each other: give one of them, or neither to push then pull");
  }
  options.direction = args.push   ? SyncDirection::kPush
                      : args.pull ? SyncDirection::kPull
                                  : SyncDirection::kBoth;
  std::optional<ConflictPolicy> policy = ParseConflictPolicy(args.conflicts);
  if (!policy) {
    return Status::InvalidArgument("--conflicts: '" + args.conflicts +
                                   "' is not a conflict policy: use remote-wins, local-wins, "
                                   "last-writer or report");
  }
  options.conflicts = *policy;
  if (args.overlap < 0) {
    return Status::InvalidArgument("--overlap: " + std::to_string(args.overlap) +
                                   " is negative: give 0 or more seconds");
  }
  options.overlap = std::chrono::seconds(args.overlap);
  options.reconcile = args.reconcile;
  options.state_table = args.state_table;
  return options;
}

// One conflict as one JSON object; each side's entity in the form `get` and `export` print, null
// when that side had deleted it.
std::string ConflictJson(const SyncConflict& conflict) {
  std::string out = "{\"PartitionKey\":" + Json(conflict.partition_key) +
                    ",\"RowKey\":" + Json(conflict.row_key) + ",\"winner\":\"" +
                    (conflict.local_won ? "local" : "remote") +
                    "\",\"set_aside\":" + (conflict.set_aside ? "true" : "false") + ",\"local\":";
  out += conflict.local ? EntityToJson(*conflict.local) : "null";
  out += ",\"remote\":";
  out += conflict.remote ? EntityToJson(*conflict.remote) : "null";
  out += '}';
  return out;
}

// The file --conflicts-file names, opened for appending; each conflict is one line, flushed at
// once, so that the lines of a sync that stops (or is killed) are kept.
class ConflictsFile {
 public:
  static Result<std::unique_ptr<ConflictsFile>> Open(const std::string& path) {
    // "e": close-on-exec.
    std::FILE* file = std::fopen(path.c_str(), "ae");
    if (file == nullptr) {
      return Status::IOError("--conflicts-file: cannot open '" + path +
                             "' to append to it: " + std::strerror(errno));
    }
    return std::unique_ptr<ConflictsFile>(new ConflictsFile(path, file));
  }
  ConflictsFile(const ConflictsFile&) = delete;
  ConflictsFile& operator=(const ConflictsFile&) = delete;
  ~ConflictsFile() {
    if (file_ != nullptr) std::fclose(file_);
  }

  void Append(const SyncConflict& conflict) {
    if (!error_.ok()) return;
    const std::string line = ConflictJson(conflict) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
      error_ = Failed();
    }
  }

  // Closes the file: the first error writing it, if any.
  Status Close() {
    if (std::fclose(file_) != 0 && error_.ok()) error_ = Failed();
    file_ = nullptr;
    return error_;
  }

 private:
  ConflictsFile(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  Status Failed() const {
    return Status::IOError("--conflicts-file: writing '" + path_ +
                           "' failed: " + std::strerror(errno));
  }

  std::string path_;
  std::FILE* file_;
  Status error_;
};

std::string Plural(uint64_t n, const char* one, const char* many) {
  return GroupDigits(n) + " " + (n == 1 ? one : many);
}

void PrintSummary(const SyncArgs& args, const std::string& remote_table, const SyncReport& r) {
  const double seconds = std::chrono::duration<double>(r.elapsed).count();
  std::string text =
      "partkv: sync: " + args.table + " with " + remote_table + " at " + Shown(args.remote) +
      ": pushed " + GroupDigits(r.pushed) + " and " +
      Plural(r.pushed_deletes, "delete", "deletes") + (r.seeded ? " (whole table)" : "") + ", " +
      GroupDigits(r.push_skipped) + " skipped, " + GroupDigits(r.adopted) + " adopted; pulled " +
      GroupDigits(r.pulled) + " and " + Plural(r.pulled_deletes, "delete", "deletes") + ", " +
      GroupDigits(r.pull_unchanged) + " unchanged";
  if (args.reconcile) text += ", " + Plural(r.remote_keys_listed, "key", "keys") + " listed";
  text += "; " + Plural(r.conflicts, "conflict", "conflicts");
  if (r.conflicts > 0) {
    text += " (" + GroupDigits(r.local_won) + " local won, " + GroupDigits(r.remote_won) +
            " remote won, " + GroupDigits(r.set_aside) + " set aside)";
  }
  char timing[64];
  std::snprintf(timing, sizeof timing, " in %.2f s", seconds);
  text += "; " + Plural(r.remote_requests, "remote request", "remote requests") + timing;
  if (!r.error.ok()) text += "; stopped";
  std::fprintf(stderr, "%s\n", text.c_str());
}

std::string ReportJson(const SyncArgs& args, const std::string& remote_table,
                       const SyncOptions& options, const SyncReport& r) {
  nlohmann::ordered_json j;
  j["table"] = args.table;
  j["remote"] = Shown(args.remote);
  j["remote_table"] = remote_table;
  j["direction"] = DirectionName(options.direction);
  j["conflict_policy"] = ConflictPolicyName(options.conflicts);
  j["ok"] = r.error.ok();
  j["pushed"] = r.pushed;
  j["pushed_deletes"] = r.pushed_deletes;
  j["push_skipped"] = r.push_skipped;
  j["adopted"] = r.adopted;
  j["pulled"] = r.pulled;
  j["pulled_deletes"] = r.pulled_deletes;
  j["pull_unchanged"] = r.pull_unchanged;
  j["remote_keys_listed"] = r.remote_keys_listed;
  j["conflicts"] = r.conflicts;
  j["local_won"] = r.local_won;
  j["remote_won"] = r.remote_won;
  j["set_aside"] = r.set_aside;
  j["remote_requests"] = r.remote_requests;
  j["seeded"] = r.seeded;
  j["seconds"] = std::chrono::duration<double>(r.elapsed).count();
  if (!r.error.ok()) {
    j["error"] = {{"code", std::string(Status::CodeName(r.error.code()))},
                  {"message", std::string(r.error.message())}};
  }
  // The conflicts listed, each as a line of --conflicts-file.
  std::string out = Json(j);
  out.pop_back();
  out += ",\"first_conflicts\":[";
  for (size_t i = 0; i < r.first_conflicts.size(); ++i) {
    if (i > 0) out += ',';
    out += ConflictJson(r.first_conflicts[i]);
  }
  out += "]}";
  return out;
}

// The other side: a remote store, or another local store's directory (which must exist: its
// table must, too).
Result<Store> OpenRemote(const std::string& location) {
  if (Store::IsRemoteLocation(location)) {
    // Nothing is sent yet; no message shows the location's secrets.
    Result<Store> store = Store::Open(location);
    if (!store.ok()) return store.status().WithContext("--remote");
    return store;
  }
  std::error_code ec;
  if (!std::filesystem::exists(location, ec)) {
    return Status::NotFound("--remote: no store at '" + location +
                            "': create it and its table with `partkv --store " + location +
                            " table create NAME`, or give a connection string or an endpoint "
                            "URL with a SAS");
  }
  // Opened by its absolute path: the library tells the pairs of a table apart by the other
  // store's path, which must not depend on how the command line spells the directory.
  Result<Store> store = Store::Open(CanonicalDirectory(location));
  if (!store.ok()) return store.status().WithContext("--remote '" + location + "'");
  return store;
}

Status RunSync(const Context& ctx, const SyncArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(SyncOptions options, Options(args));
  if (Store::IsRemoteLocation(ctx.store_dir)) {
    return Status::InvalidArgument(
        "sync needs a local store: it reads the local table's change feed and keeps the sync's "
        "state in the local store, and --store names a remote store (a connection string or an "
        "endpoint URL); give the remote side with --remote");
  }
  const std::string remote_table = args.remote_table.value_or(args.table);
  const bool same_store = !Store::IsRemoteLocation(args.remote) &&
                          CanonicalDirectory(ctx.store_dir) == CanonicalDirectory(args.remote);
  if (same_store && ::strcasecmp(args.table.c_str(), remote_table.c_str()) == 0) {
    const std::string message = "table '" + args.table +
                                "' cannot be synced with itself: --remote names the store "
                                "--store names; give another table with --remote-table";
    return Status::InvalidArgument(message);
  }
  PARTKV_ASSIGN_OR_RETURN(Store local, OpenStore(ctx));
  // One directory is one store, opened once (a store has one owner at a time): a sync between
  // two tables of one store is a sync between two handles on it.
  std::optional<Store> other;
  if (!same_store) {
    PARTKV_ASSIGN_OR_RETURN(Store opened, OpenRemote(args.remote));
    other.emplace(std::move(opened));
  }
  Store& remote = same_store ? local : *other;
  // The library's NotFound does not say which side lacks the table. Opening a table sends
  // nothing to a remote store (whose table is found missing by the sync's first request).
  if (Status opened = local.OpenTable(args.table).status(); opened.IsNotFound()) {
    return Reworded(opened, std::string(opened.message()) + " in the local store (--store)");
  }
  if (Status opened = remote.OpenTable(remote_table).status(); opened.IsNotFound()) {
    return Reworded(opened, std::string(opened.message()) + " in the store --remote names");
  }

  std::unique_ptr<ConflictsFile> conflicts_file;
  if (args.conflicts_file) {
    PARTKV_ASSIGN_OR_RETURN(conflicts_file, ConflictsFile::Open(*args.conflicts_file));
    options.on_conflict = [file = conflicts_file.get()](const SyncConflict& conflict) {
      file->Append(conflict);
    };
  }
  Progress progress;
  options.on_progress = [&](const SyncProgress& p) {
    if (!progress.Due()) return;
    progress.Show("syncing " + args.table + " (" + p.phase + "): " + GroupDigits(p.pushed) +
                  " pushed  " + GroupDigits(p.pulled) + " pulled  " +
                  Plural(p.conflicts, "conflict", "conflicts"));
  };

  Result<SyncReport> report = SyncTable(local, args.table, remote, remote_table, options);
  progress.Clear();
  Status written = conflicts_file ? conflicts_file->Close() : Status::OK();
  if (!report.ok()) return report.status();
  PrintSummary(args, remote_table, *report);
  if (args.json) PrintLine(ReportJson(args, remote_table, options, *report));
  if (!report->error.ok()) {
    return Reworded(report->error,
                    std::string(report->error.message()) +
                        "; the next sync of the table carries on from where this one stopped");
  }
  if (!written.ok()) {
    return Reworded(written, std::string(written.message()) + "; the sync itself finished");
  }
  return Status::OK();
}

}  // namespace

void AddSyncCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<SyncArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sync",
      "Sync a table of the local store with a table of another store (a connection string, an "
      "endpoint URL with a SAS, or another store's directory), both ways: push the local "
      "changes, then pull the remote ones (docs/sync.md)");
  cmd->add_option("TABLE", args->table, "the local table (it needs a change feed)")->required();
  cmd->add_option("--remote", args->remote,
                  "the other store: what --store takes (a directory must hold a store already)")
      ->required()
      ->type_name("LOCATION");
  cmd->add_option("--remote-table", args->remote_table,
                  "the table of the other store (default: TABLE)")
      ->type_name("NAME");
  cmd->add_flag("--push", args->push, "only push the local changes to the remote");
  cmd->add_flag("--pull", args->pull, "only pull the remote changes into the local table");
  cmd->add_option("--conflicts", args->conflicts,
                  "how an entity changed on both sides is resolved: remote-wins, local-wins, "
                  "last-writer, or report (the default: the remote version wins and the local one "
                  "is set aside in the table TABLEConflicts)")
      ->type_name("POLICY");
  cmd->add_option("--overlap", args->overlap,
                  "seconds a pull reads again before the newest remote Timestamp the last pull "
                  "saw (default 300)")
      ->type_name("SECONDS");
  cmd->add_flag("--reconcile", args->reconcile,
                "also list the remote table's keys, to find the entities deleted there");
  cmd->add_option("--conflicts-file", args->conflicts_file,
                  "append one JSON line per conflict to this file")
      ->type_name("PATH");
  cmd->add_option("--state-table", args->state_table,
                  "the local table that keeps the sync's state (default PartkvSync)")
      ->type_name("NAME");
  cmd->add_flag("--json", args->json, "print the sync's report as one JSON object on stdout");
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return RunSync(ctx, *args); }; });
}

}  // namespace partkv::cli
