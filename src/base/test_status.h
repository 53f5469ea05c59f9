// Test helper for error paths: asserts that a Status or StatusOr<T> failed
// with an exact code AND that its message names the culprit (the file, field,
// node, key, input index or flag at fault).
//
//   TFHOST_EXPECT_ERROR(LoadGraph(path), StatusCode::kInvalidArgument, "node 'x'");
//   TFHOST_ASSERT_ERROR(r, StatusCode::kNotFound, "signature 'serve'");  // fatal
//
// On failure it prints the actual code and the whole message, so a broken
// expectation shows what the call really returned. The substring must be
// non-empty: an empty one would match every message and prove nothing.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "base/status.h"

namespace tfhost::testing {

inline const Status& StatusOf(const Status& status) { return status; }
template <typename T>
const Status& StatusOf(const StatusOr<T>& status_or) {
  return status_or.status();
}

// gtest predicate-formatter behind TFHOST_EXPECT_ERROR / TFHOST_ASSERT_ERROR.
template <typename S>
::testing::AssertionResult IsErrorWith(const char* expr_text, const char* /*code_text*/,
                                       const char* /*substring_text*/, const S& value,
                                       StatusCode code, std::string_view substring) {
  const Status& status = StatusOf(value);
  if (substring.empty()) {
    return ::testing::AssertionFailure()
           << "TFHOST_EXPECT_ERROR(" << expr_text
           << ", ...) needs a non-empty substring naming the culprit";
  }
  if (status.ok()) {
    return ::testing::AssertionFailure()
           << expr_text << " succeeded; expected " << StatusCodeName(code)
           << " with a message containing \"" << substring << "\"";
  }
  const bool code_matches = status.code() == code;
  const bool message_matches = status.message().find(substring) != std::string::npos;
  if (code_matches && message_matches) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expr_text << " failed with " << StatusCodeName(status.code()) << ": \""
         << status.message() << "\"; expected " << StatusCodeName(code)
         << " with a message containing \"" << substring << "\"";
}

}  // namespace tfhost::testing

// Non-fatal: the test goes on after a mismatch.
#define TFHOST_EXPECT_ERROR(status_expr, expected_code, substring) \
  EXPECT_PRED_FORMAT3(::tfhost::testing::IsErrorWith, status_expr, expected_code, substring)

// Fatal: returns from the test on a mismatch, for when later lines rely on the
// failure (the same check as TFHOST_EXPECT_ERROR).
#define TFHOST_ASSERT_ERROR(status_expr, expected_code, substring) \
  ASSERT_PRED_FORMAT3(::tfhost::testing::IsErrorWith, status_expr, expected_code, substring)
