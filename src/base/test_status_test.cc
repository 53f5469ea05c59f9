#include "base/test_status.h"

#include <gtest/gtest-spi.h>

namespace tfhost {
namespace {

StatusOr<int> Fails() { return NotFound("signature 'serve' is not in model 'm'"); }

TEST(TestStatusTest, PassesOnMatchingCodeAndSubstring) {
  TFHOST_EXPECT_ERROR(InvalidArgument("node 'x': bad attr"), StatusCode::kInvalidArgument, "node 'x'");
  TFHOST_EXPECT_ERROR(Fails(), StatusCode::kNotFound, "signature 'serve'");
  TFHOST_ASSERT_ERROR(Fails(), StatusCode::kNotFound, std::string("model 'm'"));
}

TEST(TestStatusTest, FailsOnSuccessWrongCodeWrongSubstringOrEmptySubstring) {
  EXPECT_NONFATAL_FAILURE(TFHOST_EXPECT_ERROR(OkStatus(), StatusCode::kNotFound, "x"),
                          "succeeded; expected NOT_FOUND");
  EXPECT_NONFATAL_FAILURE(TFHOST_EXPECT_ERROR(StatusOr<int>(3), StatusCode::kNotFound, "x"), "succeeded");
  EXPECT_NONFATAL_FAILURE(TFHOST_EXPECT_ERROR(Fails(), StatusCode::kInvalidArgument, "signature 'serve'"),
                          "failed with NOT_FOUND: \"signature 'serve' is not in model 'm'\"");
  EXPECT_NONFATAL_FAILURE(TFHOST_EXPECT_ERROR(Fails(), StatusCode::kNotFound, "signature 'predict'"),
                          "with a message containing \"signature 'predict'\"");
  EXPECT_NONFATAL_FAILURE(TFHOST_EXPECT_ERROR(Fails(), StatusCode::kNotFound, ""), "non-empty substring");
  EXPECT_FATAL_FAILURE(TFHOST_ASSERT_ERROR(OkStatus(), StatusCode::kInternal, "x"), "succeeded");
}

}  // namespace
}  // namespace tfhost
