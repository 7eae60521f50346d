// partkv changes TABLE: a table's change feed (Table::ReadChanges, partkv/changes.h) as JSON Lines,
// one change a line, or with --json one JSON document a page; the next continuation token goes
// to stderr as `next: TOKEN`. With --follow the command waits for new changes after catching up
// (Table::AwaitChanges, one second at a time) and prints them as they come, until SIGINT or
// SIGTERM, or until its stdout closes.

#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "nlohmann/json.hpp"
#include "partkv/changes.h"
#include "partkv/json.h"
#include "partkv/table.h"
#include "tools/cli/cli.h"

namespace partkv::cli {
namespace {

struct ChangesArgs {
  std::string table;
  std::optional<std::string> from;
  bool from_start = false;
  bool from_now = false;
  std::string mode = "latest";
  uint32_t page_size = 1000;
  bool follow = false;
  bool json = false;
};

// How long one wait of --follow lasts: the latest a signal or a closed stdout is noticed.
constexpr std::chrono::milliseconds kFollowWait{1000};

std::atomic<bool> stop_requested{false};

extern "C" void OnStopSignal(int) { stop_requested.store(true); }

// SIGINT and SIGTERM end --follow between two waits, as a clean exit (the next token printed).
void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A closed stdout is seen by poll or by a failed write, not by dying of SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
}

// Whether stdout is a pipe or socket whose reader has gone.
bool StdoutClosed() {
  pollfd p{STDOUT_FILENO, 0, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

std::string Json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One change as one JSON object; the entity in the form `get` and `export` print. "origin" is
// there only for a change a sync wrote (an application's change is printed as before origins).
std::string ChangeJson(const Change& change) {
  std::string out =
      "{\"seq\":" + std::to_string(change.seq) + ",\"op\":\"" + ChangeOpName(change.op) + "\"";
  if (change.origin != WriteOrigin::kApplication) {
    out += ",\"origin\":\"";
    out += WriteOriginName(change.origin);
    out += '"';
  }
  out +=
      ",\"time\":\"" + change.time.ToString() + "\",\"etag\":" + Json(change.etag) + ",\"entity\":";
  out += EntityToJson(change.entity);
  out += '}';
  return out;
}

void PrintPage(const ChangesPage& page, bool json) {
  if (!json) {
    for (const Change& change : page.changes) PrintLine(ChangeJson(change));
    return;
  }
  std::string out = "{\"changes\":[";
  for (size_t i = 0; i < page.changes.size(); ++i) {
    if (i > 0) out += ',';
    out += ChangeJson(page.changes[i]);
  }
  out += "],\"continuation\":" + Json(page.continuation) +
         ",\"caught_up\":" + (page.caught_up ? "true" : "false") + "}";
  PrintLine(out);
}

Result<ChangesQuery> BuildChangesQuery(const ChangesArgs& args) {
  ChangesQuery query;
  if (args.mode == "latest") {
    query.mode = ChangeFeedMode::kLatest;
  } else if (args.mode == "all") {
    query.mode = ChangeFeedMode::kAll;
  } else {
    return Status::InvalidArgument("--mode: '" + args.mode + "' is not a mode: use latest or all");
  }
  if (args.page_size < 1 || args.page_size > 1000) {
    return Status::InvalidArgument("--page-size: " + std::to_string(args.page_size) +
                                   " is out of range: give 1..1000");
  }
  query.page_size = args.page_size;
  if (args.from) {
    if (args.from->empty()) {
      return Status::InvalidArgument(
          "--from: the token is empty: give a token `partkv changes` printed after \"next:\", "
          "or use --from-start or --from-now");
    }
    query.continuation = *args.from;
  }
  query.start = args.from_now ? ChangeFeedStart::kNow : ChangeFeedStart::kBeginning;
  return query;
}

// Reads and prints pages until one is caught up; query->continuation ends at the next position.
// False in *stopped when stdout closed on the way.
Status ReadUntilCaughtUp(const Table& table, const ChangesArgs& args, ChangesQuery* query,
                         bool* stopped) {
  while (true) {
    PARTKV_ASSIGN_OR_RETURN(ChangesPage page, table.ReadChanges(*query));
    PrintPage(page, args.json);
    const bool progressed = page.continuation != query->continuation || !page.changes.empty();
    query->continuation = std::move(page.continuation);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      if (args.follow) {
        *stopped = true;
        return Status::OK();
      }
      return FinishOutput();
    }
    if (page.caught_up) return Status::OK();
    if (!progressed) {
      return Status::IOError("reading the change feed of table '" + args.table +
                             "' made no progress: a page neither caught up nor moved on");
    }
  }
}

Status RunChanges(const Context& ctx, const ChangesArgs& args) {
  PARTKV_ASSIGN_OR_RETURN(ChangesQuery query, BuildChangesQuery(args));
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  if (!store.capabilities().change_feed) {
    return Status::InvalidArgument(
        "changes needs a local store: a " + store.capabilities().backend +
        " store keeps no change feed; --store names a " + store.capabilities().backend + " one");
  }
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.table));
  if (args.follow) InstallStopHandlers();
  bool stopped = false;
  Status status = ReadUntilCaughtUp(table, args, &query, &stopped);
  while (status.ok() && args.follow && !stopped) {
    if (stop_requested.load() || StdoutClosed()) break;
    Result<bool> more = table.AwaitChanges(query.continuation, kFollowWait);
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (*more) status = ReadUntilCaughtUp(table, args, &query, &stopped);
  }
  if (stopped || StdoutClosed()) {
    // Whatever is still buffered has nowhere to go; the token below still tells where to resume.
    __fpurge(stdout);
    std::clearerr(stdout);
  }
  if (!status.ok()) return status;
  std::fflush(stdout);
  std::fprintf(stderr, "next: %s\n", query.continuation.c_str());
  return Status::OK();
}

}  // namespace

void AddChangesCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ChangesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "changes",
      "Read a table's change feed as JSON Lines, one change a line (or --json, one page a "
      "line); the next continuation token goes to stderr as `next: TOKEN`");
  cmd->add_option("TABLE", args->table, "table name")->required();
  CLI::Option* from =
      cmd->add_option("--from", args->from, "start at a token printed after \"next:\" earlier")
          ->type_name("TOKEN");
  CLI::Option* from_start = cmd->add_flag(
      "--from-start", args->from_start, "start at the oldest change retention kept (the default)");
  CLI::Option* from_now =
      cmd->add_flag("--from-now", args->from_now, "start after every change made so far");
  from->excludes(from_start)->excludes(from_now);
  from_start->excludes(from_now);
  cmd->add_option("--mode", args->mode,
                  "latest: the newest version of each entity changed (deletes left out; the "
                  "default); all: every change in order, deletes and expiries included")
      ->type_name("latest|all");
  cmd->add_option("--page-size", args->page_size, "changes per read, 1..1000 (default 1000)")
      ->type_name("N");
  cmd->add_flag("--follow", args->follow,
                "after catching up, wait for new changes and print them as they come, until "
                "SIGINT/SIGTERM or stdout closes");
  cmd->add_flag("--json", args->json,
                "print one JSON object a page: {\"changes\":[...],\"continuation\":...,"
                "\"caught_up\":...}");
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return RunChanges(ctx, *args); }; });
}

}  // namespace partkv::cli
