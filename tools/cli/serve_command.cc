// partkv serve: the Azure Table REST endpoint over the store (docs/serve.md). The server itself
// is tools/serve/; this file only turns the command line into ServeOptions.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tools/cli/cli.h"
#include "tools/serve/server.h"

namespace partkv::cli {
namespace {

// The command line of `partkv serve`: the server's options and what becomes them.
struct ServeArgs {
  serve::ServeOptions options;
  std::vector<std::string> accounts;  // NAME=BASE64KEY
  size_t memory_mb = 64;
  int64_t scan_time_ms = options.scan_time_budget.count();
  std::string compaction_priority = "low";
};

// --host, --port, --account.
void AddListenOptions(CLI::App* cmd, ServeArgs* args) {
  cmd->add_option("--host", args->options.host, "the address to listen on")->capture_default_str();
  cmd->add_option("--port", args->options.port, "the port (0 = any free port)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--account", args->accounts,
                  "an account as NAME=BASE64KEY (repeatable); default: the development account "
                  "devstoreaccount1 with its published key")
      ->type_name("NAME=KEY");
}

// --profile, --throttling, --sync, --memory-mb, --compaction-priority.
void AddStoreOptions(CLI::App* cmd, ServeArgs* args) {
  cmd->add_option("--profile", args->options.profile,
                  "cloud profile of tables created here: azure-table, cosmos, dynamodb, none")
      ->capture_default_str();
  cmd->add_flag("--throttling", args->options.throttling,
                "emulate the profile's per-partition throughput (503 ServerBusy when over)");
  cmd->add_flag("--sync", args->options.sync, "fsync every write before acknowledging it");
  cmd->add_option("--memory-mb", args->memory_mb, "the store's memory budget in MiB")
      ->capture_default_str()
      ->check(CLI::Range(8, 1 << 20));
  cmd->add_option("--compaction-priority", args->compaction_priority,
                  "the CPU priority of the store's compactions: low (nice 19: requests first, "
                  "compactions take the CPU they leave idle) or normal")
      ->capture_default_str()
      ->check(CLI::IsMember({"low", "normal"}));
}

// A query page's bounds (docs/serve.md "Limits and timeouts"): by time, as Azure's service
// bounds a page, and by bytes; never by rows examined. And --threads.
void AddPageOptions(CLI::App* cmd, ServeArgs* args) {
  cmd->add_option("--scan-time-ms", args->scan_time_ms,
                  "a query page ends after this many milliseconds with what it found and a "
                  "continuation, as Azure's service ends one after about 5 s")
      ->capture_default_str()
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{3600} * 1000));
  cmd->add_option("--page-bytes", args->options.page_bytes,
                  "a query page ends after the entity that brings its entities' bytes to N "
                  "(it holds at least one): the bound of one response's entities in memory")
      ->capture_default_str()
      ->type_name("N")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  cmd->add_option("--threads", args->options.threads,
                  "threads executing requests (a slow or idle connection holds none)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
}

// The HTTP layer's limits and timeouts (docs/serve.md "Limits and timeouts").
void AddHttpLimits(CLI::App* cmd, ServeArgs* args) {
  cmd->add_option("--max-connections", args->options.max_connections,
                  "open connections; one more is answered 503 ServerBusy and closed")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--backlog", args->options.backlog,
                  "the listen queue (the kernel caps it at net.core.somaxconn)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--max-header-bytes", args->options.max_header_bytes,
                  "request line and header fields, in bytes (431 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1024}, size_t{1} << 24));
  cmd->add_option("--max-header-fields", args->options.max_header_fields,
                  "header fields of one request (431 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(8, 100000));
  auto seconds = [&](const char* name, double& field, const char* what) {
    cmd->add_option(name, field, what)
        ->capture_default_str()
        ->type_name("SECONDS")
        ->check(CLI::Range(0.05, 86400.0));
  };
  seconds("--header-timeout", args->options.header_timeout_s,
          "from a request's first byte to the end of its header (408 after); also how long a "
          "new connection may stay silent");
  seconds("--body-timeout", args->options.body_timeout_s,
          "to receive a request's body once its header is in (408 after)");
  seconds("--idle-timeout", args->options.idle_timeout_s,
          "a kept-alive connection waiting for its next request (closed after)");
  seconds("--write-timeout", args->options.write_timeout_s,
          "to send one response (the connection is closed after)");
  seconds("--shutdown-grace", args->options.shutdown_grace_s,
          "after SIGINT/SIGTERM, for replies in progress to be sent");
}

// The parsed command line into the server's options, and the server run until it stops.
Status RunServeCommand(const Context& ctx, ServeArgs* args) {
  // The location is not shown: it may hold an account key or a signature.
  if (Store::IsRemoteLocation(ctx.store_dir)) {
    return Status::InvalidArgument(
        "serve needs a local store: it serves a store directory's tables as an endpoint, "
        "and --store names a remote store (a connection string or an endpoint URL)");
  }
  args->options.store_dir = ctx.store_dir;
  args->options.memory_budget_bytes = args->memory_mb << 20;
  args->options.low_priority_compactions = args->compaction_priority == "low";
  args->options.scan_time_budget = std::chrono::milliseconds(args->scan_time_ms);
  for (const std::string& a : args->accounts) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--account takes NAME=BASE64KEY, got '" + a + "'");
    }
    args->options.accounts.emplace_back(a.substr(0, eq), a.substr(eq + 1));
  }
  return serve::RunServe(args->options);
}

}  // namespace

void AddServeCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve the store as an Azure Table endpoint (REST, JSON) for the Azure SDKs, on loopback "
      "by default. Stops cleanly on SIGINT/SIGTERM.");
  cmd->add_option("--store", ctx.store_dir, "the store directory (created when missing)")
      ->type_name("DIR");
  AddListenOptions(cmd, args.get());
  AddStoreOptions(cmd, args.get());
  AddPageOptions(cmd, args.get());
  AddHttpLimits(cmd, args.get());
  cmd->add_flag("--verbose", args->options.verbose, "log every request on stderr");
  cmd->callback([&ctx, args] {
    ctx.action = [&ctx, args]() -> Status { return RunServeCommand(ctx, args.get()); };
  });
}

}  // namespace partkv::cli
