// partkv::Status — the outcome of every operation that can fail.
//
// A Status is either OK or carries a code and a message that says what was wrong and which
// limit or argument was involved. The codes form a small closed set chosen by what the caller
// should do next (retry, give up, fix the input, re-read and try again). An OK Status holds no
// allocation, so returning one is free; callers test it with the predicates (`ok()`,
// `IsNotFound()`, ...).
//
// Two optional details travel with some codes:
//   - `retry_after()` for Throttled: how long the caller should wait before retrying.
//   - `failed_op()` for batch failures: the 0-based index of the operation that failed
//     (-1 when the failure is not tied to one operation).
//
// Thread-safety: a Status is a value; distinct objects may be used from distinct threads.
// No partkv function throws; errors are reported only through Status and Result<T>.

#ifndef PARTKV_STATUS_H_
#define PARTKV_STATUS_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

class [[nodiscard]] Status {
 public:
  // The codes are part of the API and of the CLI's exit statuses: never renumber them.
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound = 1,            // the table or entity does not exist
    kAlreadyExists = 2,       // the table or (PartitionKey, RowKey) exists already
    kPreconditionFailed = 3,  // an ETag condition did not hold; re-read and retry
    kInvalidArgument = 4,     // bad input: fix the request; retrying will not help
    kThrottled = 5,           // over a throughput budget: retry after retry_after()
    kCorruption = 6,          // stored bytes could not be decoded
    kIOError = 7,             // the file system or the storage engine failed
    kBusy = 8,                // a resource is held elsewhere (e.g. the store already open)
    kPermissionDenied = 9,    // a remote service refused the credential or the call it allows:
                              // fix the key or the SAS; retrying will not help
    kTrimmed = 10,            // a change feed position that retention removed: the message names
                              // the oldest position kept (Table::FeedState)
  };

  // Creates an OK status.
  Status() noexcept = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status AlreadyExists(std::string_view msg) { return Status(Code::kAlreadyExists, msg); }
  static Status PreconditionFailed(std::string_view msg) {
    return Status(Code::kPreconditionFailed, msg);
  }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status Throttled(std::string_view msg, std::chrono::milliseconds retry_after);
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  static Status Trimmed(std::string_view msg) { return Status(Code::kTrimmed, msg); }
  static Status PermissionDenied(std::string_view msg) {
    return Status(Code::kPermissionDenied, msg);
  }

  bool ok() const { return state_ == nullptr; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsAlreadyExists() const { return code() == Code::kAlreadyExists; }
  bool IsPreconditionFailed() const { return code() == Code::kPreconditionFailed; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsThrottled() const { return code() == Code::kThrottled; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsBusy() const { return code() == Code::kBusy; }
  bool IsPermissionDenied() const { return code() == Code::kPermissionDenied; }
  bool IsTrimmed() const { return code() == Code::kTrimmed; }

  Code code() const { return state_ ? state_->code : Code::kOk; }
  // The message without the code name; empty for OK. Valid while this Status lives.
  std::string_view message() const;
  // For Throttled: the wait the caller should honour before retrying; zero otherwise.
  std::chrono::milliseconds retry_after() const;
  // For a failed batch: the 0-based index of the failing operation; -1 otherwise.
  int failed_op() const { return state_ ? state_->failed_op : -1; }

  // Returns a copy of this status tagged with the index of a failed batch operation; the
  // message gains an "operation N: " prefix. REQUIRES: !ok().
  Status WithFailedOp(int index) const;
  // Returns a copy whose message is prefixed with `context` and ": ". OK stays OK.
  Status WithContext(std::string_view context) const;

  // "OK", or "<CodeName>: <message>".
  std::string ToString() const;
  // The code's name: "OK", "NotFound", "AlreadyExists", ...
  static std::string_view CodeName(Code code);

 private:
  struct State {
    Code code;
    int failed_op = -1;
    std::chrono::milliseconds retry_after{0};
    std::string message;
  };
  Status(Code code, std::string_view msg);

  std::unique_ptr<State> state_;  // null means OK
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_STATUS_H_
