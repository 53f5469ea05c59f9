// Status and StatusOr: how every fallible function in tfhost reports failure.
// Errors are values; exceptions never cross a module boundary. A message says
// what went wrong, where (file, node, field) and what was expected.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tfhost {

// Codes follow TensorFlow's / gRPC's canonical codes so that servers can map
// them onto TF Serving's error responses unchanged.
enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>", for adding the
  // caller's view (file, node, signature) as an error travels up.
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status Unimplemented(std::string m) { return Status(StatusCode::kUnimplemented, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
inline Status DataLoss(std::string m) { return Status(StatusCode::kDataLoss, std::move(m)); }
inline Status OutOfRange(std::string m) { return Status(StatusCode::kOutOfRange, std::move(m)); }
inline Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }
inline Status ResourceExhausted(std::string m) { return Status(StatusCode::kResourceExhausted, std::move(m)); }
inline Status AlreadyExists(std::string m) { return Status(StatusCode::kAlreadyExists, std::move(m)); }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) { assert(!status.ok()); }  // NOLINT
  StatusOr(Status&& status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT
  StatusOr(const T& value) : value_(value) {}  // NOLINT
  StatusOr(T&& value) : value_(std::move(value)) {}  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, T>>>
  StatusOr(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tfhost

#define TFHOST_CONCAT_INNER(a, b) a##b
#define TFHOST_CONCAT(a, b) TFHOST_CONCAT_INNER(a, b)

#define TFHOST_RETURN_IF_ERROR(expr)            \
  do {                                          \
    ::tfhost::Status _tfhost_status = (expr);   \
    if (!_tfhost_status.ok()) return _tfhost_status; \
  } while (0)

#define TFHOST_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define TFHOST_ASSIGN_OR_RETURN(lhs, expr) \
  TFHOST_ASSIGN_OR_RETURN_IMPL(TFHOST_CONCAT(_tfhost_or_, __LINE__), lhs, expr)

// Internal invariants only; untrusted input must produce a Status instead.
#ifndef NDEBUG
#define TFHOST_DCHECK(cond) assert(cond)
#else
#define TFHOST_DCHECK(cond) ((void)0)
#endif
