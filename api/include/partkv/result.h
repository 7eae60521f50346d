// partkv::Result<T> — a value of type T, or the non-OK Status that explains why there is none.
//
// Modelled on absl::StatusOr: construct from a T for success or from a non-OK Status for failure;
// test with `ok()`, read the error with `status()`, the value with `value()` / `*` / `->`.
// Reading the value of a failed Result is a programming error (it aborts the process with the
// status in the message) — check `ok()` first.
//
// PARTKV_RETURN_IF_ERROR(expr) and PARTKV_ASSIGN_OR_RETURN(lhs, expr) propagate failures in
// functions that themselves return Status or Result<U>.
//
// Thread-safety: a Result is a value; the usual rules for T apply.

#ifndef PARTKV_RESULT_H_
#define PARTKV_RESULT_H_

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

#include "partkv/status.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

template <typename T>
class [[nodiscard]] Result {
 public:
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "Result<Status> is not allowed");

  // Success.
  Result(const T& value) : v_(value) {}        // NOLINT(runtime/explicit)
  Result(T&& value) : v_(std::move(value)) {}  // NOLINT(runtime/explicit)
  // Failure. REQUIRES: !status.ok() (an OK status becomes an internal error).
  Result(const Status& status) : v_(status) { CheckNotOk(); }        // NOLINT(runtime/explicit)
  Result(Status&& status) : v_(std::move(status)) { CheckNotOk(); }  // NOLINT(runtime/explicit)

  bool ok() const { return v_.index() == 1; }

  // The failure, or OK when this holds a value.
  Status status() const { return ok() ? Status::OK() : std::get<0>(v_); }

  // REQUIRES: ok().
  T& value() & { return Checked(), std::get<1>(v_); }
  const T& value() const& { return Checked(), std::get<1>(v_); }
  T&& value() && { return Checked(), std::get<1>(std::move(v_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The value, or `fallback` when this is a failure.
  T value_or(T fallback) const& { return ok() ? std::get<1>(v_) : std::move(fallback); }

 private:
  void CheckNotOk() {
    if (std::get<0>(v_).ok()) {
      v_ = Status::InvalidArgument("internal error: Result constructed from an OK Status");
    }
  }
  void Checked() const {
    if (!ok()) {
      std::fprintf(stderr, "partkv: value() of a failed Result: %s\n",
                   std::get<0>(v_).ToString().c_str());
      std::abort();
    }
  }

  std::variant<Status, T> v_;
};

}  // namespace partkv
#pragma GCC visibility pop

#define PARTKV_CONCAT_INNER_(a, b) a##b
#define PARTKV_CONCAT_(a, b) PARTKV_CONCAT_INNER_(a, b)

// Evaluates `expr` (a Status); returns it from the enclosing function when it is not OK.
#define PARTKV_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::partkv::Status partkv_status_ = (expr);        \
    if (!partkv_status_.ok()) return partkv_status_; \
  } while (false)

// Evaluates `expr` (a Result<T>); on failure returns its status, else moves the value to `lhs`
// (which may be a declaration such as `auto x`).
#define PARTKV_ASSIGN_OR_RETURN(lhs, expr) \
  PARTKV_ASSIGN_OR_RETURN_IMPL_(PARTKV_CONCAT_(partkv_result_, __LINE__), lhs, expr)
#define PARTKV_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#endif  // PARTKV_RESULT_H_
