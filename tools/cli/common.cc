// Shared plumbing of the partkv command groups (cli.h).

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <tuple>

#include "partkv/keys.h"
#include "tools/cli/cli.h"

namespace partkv::cli {
namespace {

// A read() that retries when a signal interrupts it. Returns the byte count, 0 at the end, -1 on
// an error (errno set).
ssize_t ReadSome(int fd, char* data, size_t size) {
  while (true) {
    ssize_t n = ::read(fd, data, size);
    if (n >= 0 || errno != EINTR) return n;
  }
}

Status ErrnoStatus(std::string_view what, const std::string& name) {
  return Status::IOError(std::string(what) + " " + name + ": " + std::strerror(errno));
}

}  // namespace

Result<Store> OpenStore(const Context& ctx, bool create_if_missing) {
  if (Store::IsRemoteLocation(ctx.store_dir)) {
    // The library's messages about a location never show its secrets; nothing is sent yet.
    return Store::Open(ctx.store_dir);
  }
  std::error_code ec;
  if (!create_if_missing && !std::filesystem::exists(ctx.store_dir, ec)) {
    return Status::NotFound("no store at '" + ctx.store_dir +
                            "': create one with `partkv table create NAME`, or name another "
                            "with --store DIR or $" +
                            kStoreEnvVar);
  }
  StoreOptions options;
  options.create_if_missing = create_if_missing;
  return Store::Open(ctx.store_dir, options);
}

void AddSchemeOptions(CLI::App* cmd, SchemeArgs* args, bool short_names) {
  if (short_names) {
    args->partition_key_option = "--pk";
    args->row_key_option = "--rk";
  }
  cmd->add_option(short_names ? "--pk,--pk-scheme" : "--pk-scheme", args->partition_key,
                  "the table's PartitionKey scheme (docs/keys.md; a property name alone is "
                  "concat(NAME)): required on a remote store, which keeps none; on a local one "
                  "it must be the table's")
      ->type_name("STRATEGY");
  cmd->add_option(short_names ? "--rk,--rk-scheme" : "--rk-scheme", args->row_key,
                  "the table's RowKey scheme, likewise")
      ->type_name("STRATEGY");
}

Result<Table> OpenTable(const Store& store, const std::string& name, const SchemeArgs& args) {
  OpenTableOptions options;
  for (auto [text, option, scheme] :
       {std::tuple{&args.partition_key, &args.partition_key_option, &options.partition_key_scheme},
        std::tuple{&args.row_key, &args.row_key_option, &options.row_key_scheme}}) {
    if (!*text) continue;
    Result<KeyStrategy> parsed = KeyStrategy::Parse(**text);
    if (!parsed.ok()) return parsed.status().WithContext(*option);
    *scheme = std::move(*parsed);
  }
  return store.OpenTable(name, options);
}

Result<std::string> ArgumentOrStdin(const std::optional<std::string>& argument,
                                    std::string_view what) {
  if (argument) return *argument;
  if (IsTerminal(STDIN_FILENO)) {
    std::fprintf(stderr, "partkv: reading %.*s from stdin (end it with Ctrl-D)\n",
                 static_cast<int>(what.size()), what.data());
  }
  std::string text;
  char chunk[65536];
  while (true) {
    ssize_t n = ReadSome(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0) return ErrnoStatus("reading", "stdin");
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
    if (text.size() > kMaxDocumentBytes) {
      return Status::InvalidArgument(std::string(what) + " on stdin is longer than " +
                                     std::to_string(kMaxDocumentBytes >> 20) + " MiB");
    }
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("no " + std::string(what) +
                                   ": pass it as an argument or on stdin");
  }
  return text;
}

Result<LineReader> LineReader::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    struct stat st {};
    uint64_t size = 0;
    if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
      off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
      if (at >= 0 && at <= st.st_size) size = static_cast<uint64_t>(st.st_size - at);
    }
    return LineReader(STDIN_FILENO, false, "stdin", size);
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound("no file '" + path + "'");
    return ErrnoStatus("opening", "'" + path + "'");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Status s = ErrnoStatus("reading", "'" + path + "'");
    ::close(fd);
    return s;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("'" + path + "' is a directory, not a file");
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return LineReader(fd, true, "'" + path + "'",
                    S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0);
}

LineReader::LineReader(LineReader&& other) noexcept
    : fd_(other.fd_),
      owned_(other.owned_),
      name_(std::move(other.name_)),
      size_(other.size_),
      buffer_(std::move(other.buffer_)),
      begin_(other.begin_),
      eof_(other.eof_),
      line_number_(other.line_number_),
      consumed_(other.consumed_) {
  other.owned_ = false;
}

LineReader::~LineReader() {
  if (owned_) ::close(fd_);
}

constexpr size_t kReadChunk = 1u << 20;

Status LineReader::Fill() {
  buffer_.erase(0, begin_);
  begin_ = 0;
  size_t old = buffer_.size();
  buffer_.resize(old + kReadChunk);
  ssize_t n = ReadSome(fd_, buffer_.data() + old, kReadChunk);
  buffer_.resize(old + static_cast<size_t>(n > 0 ? n : 0));
  if (n < 0) return ErrnoStatus("reading", name_);
  if (n == 0) eof_ = true;
  return Status::OK();
}

std::optional<std::string_view> LineReader::Next(Status* status) {
  size_t scanned = 0;  // no newline in the first `scanned` unread bytes
  while (true) {
    size_t nl = buffer_.find('\n', begin_ + scanned);
    if (nl != std::string::npos || (eof_ && begin_ < buffer_.size())) {
      size_t end = nl != std::string::npos ? nl : buffer_.size();
      std::string_view line(buffer_.data() + begin_, end - begin_);
      consumed_ += end - begin_ + (nl != std::string::npos ? 1 : 0);
      begin_ = nl != std::string::npos ? nl + 1 : buffer_.size();
      ++line_number_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      return line;
    }
    if (eof_) return std::nullopt;
    scanned = buffer_.size() - begin_;
    if (scanned > kMaxLineBytes) {
      *status = Status::InvalidArgument("line " + std::to_string(line_number_ + 1) + " of " +
                                        name_ + " is longer than " +
                                        std::to_string(kMaxLineBytes >> 20) + " MiB");
      return std::nullopt;
    }
    if (Status s = Fill(); !s.ok()) {
      *status = std::move(s);
      return std::nullopt;
    }
  }
}

bool LineReader::NextBlock(std::string* block, Status* status) {
  while (!eof_ && buffer_.size() - begin_ < kReadChunk) {
    if (Status s = Fill(); !s.ok()) {
      *status = std::move(s);
      return false;
    }
  }
  size_t end = 0;
  while (true) {
    if (eof_) {
      if (begin_ == buffer_.size()) return false;
      end = buffer_.size();
      break;
    }
    size_t nl = buffer_.rfind('\n');
    if (nl != std::string::npos && nl >= begin_) {
      end = nl + 1;
      break;
    }
    if (buffer_.size() - begin_ > kMaxLineBytes) {
      *status = Status::InvalidArgument("a line of " + name_ + " is longer than " +
                                        std::to_string(kMaxLineBytes >> 20) + " MiB");
      return false;
    }
    if (Status s = Fill(); !s.ok()) {
      *status = std::move(s);
      return false;
    }
  }
  block->assign(buffer_.data() + begin_, end - begin_);
  consumed_ += end - begin_;
  begin_ = end;
  return true;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

void PrintLine(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
}

Status FinishOutput() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return Status::IOError(std::string("writing to stdout failed: ") + std::strerror(errno));
  }
  return Status::OK();
}

Status Reworded(const Status& s, const std::string& message) {
  switch (s.code()) {
    case Status::Code::kOk:
      return Status::OK();
    case Status::Code::kNotFound:
      return Status::NotFound(message);
    case Status::Code::kAlreadyExists:
      return Status::AlreadyExists(message);
    case Status::Code::kPreconditionFailed:
      return Status::PreconditionFailed(message);
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(message);
    case Status::Code::kThrottled:
      return Status::Throttled(message, s.retry_after());
    case Status::Code::kCorruption:
      return Status::Corruption(message);
    case Status::Code::kIOError:
      return Status::IOError(message);
    case Status::Code::kBusy:
      return Status::Busy(message);
    case Status::Code::kPermissionDenied:
      return Status::PermissionDenied(message);
    case Status::Code::kTrimmed:
      return Status::Trimmed(message);
  }
  return Status::IOError(message);
}

std::string WithoutOperationPrefix(std::string_view message) {
  if (message.starts_with("operation ")) {
    if (size_t colon = message.find(": "); colon != std::string_view::npos) {
      message.remove_prefix(colon + 2);
    }
  }
  return std::string(message);
}

bool IsTerminal(int fd) { return ::isatty(fd) == 1; }

int TerminalColumns(int fd, int fallback) {
  struct winsize ws {};
  if (IsTerminal(fd) && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return fallback;
}

std::string GroupDigits(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string HumanBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  }
  return buf;
}

}  // namespace partkv::cli
