// Status: the message and detail storage behind the free-when-OK handle.

#include "partkv/status.h"

#include <string>

namespace partkv {

Status::Status(Code code, std::string_view msg)
    : state_(std::make_unique<State>(
          State{code, -1, std::chrono::milliseconds(0), std::string(msg)})) {}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  return *this;
}

Status Status::Throttled(std::string_view msg, std::chrono::milliseconds retry_after) {
  Status s(Code::kThrottled, msg);
  s.state_->retry_after = retry_after;
  return s;
}

std::string_view Status::message() const {
  return state_ ? std::string_view(state_->message) : std::string_view();
}

std::chrono::milliseconds Status::retry_after() const {
  return state_ ? state_->retry_after : std::chrono::milliseconds(0);
}

Status Status::WithFailedOp(int index) const {
  Status s(*this);
  if (!s.state_) return s;
  s.state_->failed_op = index;
  s.state_->message = "operation " + std::to_string(index) + ": " + s.state_->message;
  return s;
}

Status Status::WithContext(std::string_view context) const {
  Status s(*this);
  if (!s.state_) return s;
  s.state_->message = std::string(context) + ": " + s.state_->message;
  return s;
}

std::string_view Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kPreconditionFailed:
      return "PreconditionFailed";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kThrottled:
      return "Throttled";
    case Code::kCorruption:
      return "Corruption";
    case Code::kIOError:
      return "IOError";
    case Code::kBusy:
      return "Busy";
    case Code::kPermissionDenied:
      return "PermissionDenied";
    case Code::kTrimmed:
      return "Trimmed";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(CodeName(code()));
  out += ": ";
  out += state_->message;
  return out;
}

}  // namespace partkv
