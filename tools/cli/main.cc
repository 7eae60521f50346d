// partkv: the command-line tool of a partkv store (docs/cli.md).
//
//   partkv [--store DIR|LOCATION] COMMAND ...
//
// Parses the command line with CLI11, runs the chosen command, and turns its Status into one
// error line on stderr and an exit status (exit_codes.h). Help goes to stdout with status 0.

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "tools/cli/cli.h"
#include "tools/cli/exit_codes.h"

namespace partkv::cli {
void AddServeCommand(CLI::App& app, Context& ctx);    // serve_command.cc
void AddChangesCommand(CLI::App& app, Context& ctx);  // changes_command.cc
void AddSyncCommand(CLI::App& app, Context& ctx);     // sync_command.cc
}  // namespace partkv::cli

namespace {

using partkv::Status;

// CLI11's messages may span lines; an error is one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// The first word that is not an option or the value of --store, when it names no command: CLI11
// would report it as a missing subcommand.
std::string UnknownCommand(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--store") {
      ++i;
      continue;
    }
    if (arg.starts_with("-")) continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == arg) return "";
    }
    return std::string(arg);
  }
  return "";
}

// "partkv table create": the commands parsed so far, for the help hint of a usage error.
std::string CommandPath(CLI::App& app) {
  std::string path = "partkv";
  CLI::App* current = &app;
  while (true) {
    std::vector<CLI::App*> parsed = current->get_subcommands();
    if (parsed.empty()) return path;
    current = parsed.front();
    path += " " + current->get_name();
  }
}

int Fail(const Status& status) {
  std::fflush(stdout);
  std::string message = OneLine(std::string(status.message()));
  if (status.IsThrottled() && message.find("retry after") == std::string::npos) {
    message += " (retry after " + std::to_string(status.retry_after().count()) + " ms)";
  }
  std::string code(Status::CodeName(status.code()));
  std::fprintf(stderr, "partkv: error: %s: %s\n", code.c_str(), message.c_str());
  return partkv::cli::ExitCodeFor(status.code());
}

int Run(int argc, char** argv) {
  partkv::cli::Context ctx;
  CLI::App app{
      "partkv: an embedded, partitioned table store with Azure Table semantics.\n"
      "Entities are Azure Table JSON; data goes to stdout, errors to stderr.",
      "partkv"};
  app.add_option("--store", ctx.store_dir,
                 std::string("the store: a directory, or a remote store's connection string or "
                             "endpoint URL with a SAS (docs/remote.md); default: $") +
                     partkv::cli::kStoreEnvVar + ", else " + partkv::cli::kDefaultStoreDir)
      ->envname(partkv::cli::kStoreEnvVar)
      ->type_name("DIR|LOCATION");
  app.require_subcommand(1, 1);
  app.footer(
      "Exit status: 0 ok, 1 other failure, 2 invalid argument or usage, 3 not found,\n"
      "4 already exists, 5 precondition (ETag) failed, 6 throttled, 7 permission denied,\n"
      "8 copy --verify found differences, 9 changes: retention removed the position asked "
      "for.\n"
      "`partkv COMMAND --help` describes a command; docs/cli.md has examples of every one.");
  partkv::cli::AddTableCommands(app, ctx);
  partkv::cli::AddEntityCommands(app, ctx);
  partkv::cli::AddQueryCommands(app, ctx);
  partkv::cli::AddImportCommand(app, ctx);
  partkv::cli::AddStatsCommands(app, ctx);
  partkv::cli::AddCopyCommand(app, ctx);
  partkv::cli::AddChangesCommand(app, ctx);
  partkv::cli::AddSyncCommand(app, ctx);
  partkv::cli::AddServeCommand(app, ctx);

  if (std::string unknown = UnknownCommand(app, argc, argv); !unknown.empty()) {
    return Fail(Status::InvalidArgument("unknown command '" + unknown + "' (see `partkv --help`)"));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(
        Status::InvalidArgument(OneLine(e.what()) + " (see `" + CommandPath(app) + " --help`)"));
  }
  if (!ctx.action) return Fail(Status::InvalidArgument("no command given (see `partkv --help`)"));
  Status s = ctx.action();
  if (s.ok()) s = partkv::cli::FinishOutput();
  if (s.ok() && ctx.exit_code) return *ctx.exit_code;
  return s.ok() ? partkv::cli::kExitOk : Fail(s);
}

}  // namespace

int main(int argc, char** argv) {
  // Exports and --all queries write many lines: buffer them in large blocks.
  static char stdout_buffer[1 << 16];
  std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    // Only a bug (or memory exhaustion) gets here: still one line, never a stack trace.
    std::fflush(stdout);
    std::fprintf(stderr, "partkv: error: IOError: internal error: %s\n", OneLine(e.what()).c_str());
    return partkv::cli::kExitOther;
  }
}
