// The plumbing the partkv command groups share: how a command is registered and run, how it opens
// the store, reads its input and writes its output.
//
// Every command group adds its subcommands to the CLI11 app with an Add...Commands function. A
// subcommand's callback only records what to do (Context::action); main() runs it once the whole
// command line has parsed, and turns the Status it returns into the one-line error and the exit
// status (exit_codes.h). Nothing here throws past main(): commands report every failure,
// including bad input of any kind, as a Status.
//
// Output discipline: data goes to stdout as JSON, one document or one
// JSON line per entity; progress goes to stderr and only when stderr is a terminal; errors are
// one line on stderr. stdout is flushed before anything is written to stderr, so that a reader
// of both sees them in the order they happened.

#ifndef PARTKV_TOOLS_CLI_CLI_H_
#define PARTKV_TOOLS_CLI_CLI_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "partkv/result.h"
#include "partkv/status.h"
#include "partkv/store.h"

namespace partkv::cli {

// The store when neither --store nor $PARTKV_STORE names one.
inline constexpr char kDefaultStoreDir[] = "./partkv-data";
inline constexpr char kStoreEnvVar[] = "PARTKV_STORE";

struct Context {
  std::string store_dir = kDefaultStoreDir;
  // Set by the callback of the subcommand that was given; run by main().
  std::function<Status()> action;
  // The exit status of an action that returned OK but has a verdict to give (copy --verify).
  std::optional<int> exit_code;
};

void AddTableCommands(CLI::App& app, Context& ctx);
void AddEntityCommands(CLI::App& app, Context& ctx);
void AddQueryCommands(CLI::App& app, Context& ctx);
void AddImportCommand(CLI::App& app, Context& ctx);
void AddStatsCommands(CLI::App& app, Context& ctx);
void AddCopyCommand(CLI::App& app, Context& ctx);

// Opens the store: a directory, or a remote store when --store / $PARTKV_STORE is a connection
// string or an endpoint URL (Store::IsRemoteLocation; docs/remote.md). Only `table create`
// creates a directory's store: for every other command a directory that does not exist is
// NotFound with a hint, rather than an empty store appearing as a side effect. A remote store is
// never created (its account exists or not), and no message shows its location: an account key
// or a signature may be in it.
Result<Store> OpenStore(const Context& ctx, bool create_if_missing = false);

// The key schemes a command opens its table with (Store::OpenTable with OpenTableOptions). A
// remote table has no catalog of schemes, so they come from the command line, in the text forms
// `table create --pk/--rk` takes (docs/keys.md); on a local store a scheme given must be the one
// the table was created with (InvalidArgument naming both otherwise).
struct SchemeArgs {
  std::optional<std::string> partition_key;
  std::optional<std::string> row_key;
  std::string partition_key_option = "--pk-scheme";  // the option's name, for messages
  std::string row_key_option = "--rk-scheme";
};
// Adds --pk-scheme S and --rk-scheme S to `cmd`; with `short_names` (commands whose --pk is not
// a PartitionKey condition) they are --pk S and --rk S, as `table create` names them, and the
// long names are their aliases.
void AddSchemeOptions(CLI::App* cmd, SchemeArgs* args, bool short_names);
// Table `name` of `store`, opened with the schemes of `args`.
Result<Table> OpenTable(const Store& store, const std::string& name, const SchemeArgs& args);

// The argument, or all of stdin when the argument is absent (at most kMaxDocumentBytes).
inline constexpr size_t kMaxDocumentBytes = 16u << 20;
Result<std::string> ArgumentOrStdin(const std::optional<std::string>& argument,
                                    std::string_view what);

// Reads a file (or stdin for "-" or an empty path) line by line with bounded memory. Lines may
// end in "\n" or "\r\n"; the last one needs no terminator. A line longer than kMaxLineBytes is
// InvalidArgument naming it: no entity's JSON comes near that.
class LineReader {
 public:
  static constexpr size_t kMaxLineBytes = 16u << 20;

  // "-" or "" reads stdin.
  static Result<LineReader> Open(const std::string& path);
  LineReader(LineReader&& other) noexcept;
  LineReader& operator=(LineReader&&) = delete;
  LineReader(const LineReader&) = delete;
  ~LineReader();

  // The next line without its terminator, valid until the next call; nullopt at the end.
  // *status receives an IOError or an over-long line (and the result is nullopt).
  std::optional<std::string_view> Next(Status* status);
  // For readers that split lines themselves: replaces *block with the next run of whole lines
  // (about 1 MiB, at least one line; the last line may lack its newline). False at the end or
  // on an error (then *status says which). Do not mix with Next().
  bool NextBlock(std::string* block, Status* status);
  uint64_t line_number() const { return line_number_; }  // of the line last returned
  uint64_t bytes_read() const { return consumed_; }
  // The input's size when it is a regular file; 0 when unknown (a pipe, a terminal).
  uint64_t size() const { return size_; }
  // "stdin" or the path, for messages.
  const std::string& name() const { return name_; }
  int fd() const { return fd_; }

 private:
  LineReader(int fd, bool owned, std::string name, uint64_t size)
      : fd_(fd), owned_(owned), name_(std::move(name)), size_(size) {}

  // Appends up to one chunk of input to buffer_, first dropping what was consumed. Sets eof_
  // at the end.
  Status Fill();

  int fd_;
  bool owned_;
  std::string name_;
  uint64_t size_;
  std::string buffer_;
  size_t begin_ = 0;  // unread data is buffer_[begin_, buffer_.size())
  bool eof_ = false;
  uint64_t line_number_ = 0;
  uint64_t consumed_ = 0;
};

// Whether a string holds nothing but spaces, tabs and carriage returns: such lines are skipped.
bool IsBlank(std::string_view line);

// Writes `text` and a newline to stdout (buffered; FinishOutput reports write errors).
void PrintLine(std::string_view text);
// Flushes stdout; IOError when anything written to it was lost (a full disk, a closed pipe).
Status FinishOutput();

// A status of the same code (and retry-after) with another message.
Status Reworded(const Status& status, const std::string& message);
// A batch failure's message without the library's "operation N: " prefix, for callers that name
// the input line instead.
std::string WithoutOperationPrefix(std::string_view message);

bool IsTerminal(int fd);
// The width of the terminal on `fd`, or `fallback` when it is not a terminal.
int TerminalColumns(int fd, int fallback);

// 1234567 -> "1,234,567".
std::string GroupDigits(uint64_t n);
// 1536 -> "1.5 KiB".
std::string HumanBytes(uint64_t bytes);

}  // namespace partkv::cli

#endif  // PARTKV_TOOLS_CLI_CLI_H_
