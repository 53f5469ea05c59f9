// The bound on string values kernels output (--max_op_string_mb): checked on
// every kernel's string outputs as it returns, whichever op made them; a
// value at the bound passes and one byte more fails the node.
#include "ops/output_limits.h"

#include <gtest/gtest.h>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

StatusOr<std::vector<Tensor>> RunWithStringLimit(const std::string& op, std::vector<Tensor> inputs, ir::AttrMap attrs,
                                                 int64_t limit_bytes) {
  ResourceManager resources;
  TFHOST_RETURN_IF_ERROR(SetOutputLimits(resources, {kDefaultMaxDecodedImageBytes, limit_bytes}));
  return RunSingleOp(op, std::move(inputs), std::move(attrs), &resources);
}

Tensor Strings(std::vector<std::string> v) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}

TEST(OutputLimitsTest, AJoinAtTheBoundPassesAndOneByteOverFailsNamingNodeElementAndFlag) {
  const Tensor x = Strings({"ab", "abcd"});
  const ir::AttrMap attrs = {{"N", MakeAttr(int64_t{2})}};
  // Element 1 joins to 8 bytes.
  auto at = RunWithStringLimit("StringJoin", {x, x}, attrs, 8);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ((*at)[0].strings()[1], "abcdabcd");
  TFHOST_EXPECT_ERROR(RunWithStringLimit("StringJoin", {x, x}, attrs, 7), StatusCode::kInvalidArgument,
                      "node 'test_StringJoin' (StringJoin): output 0 holds a string value (element 1) of 8 bytes, "
                      "past the limit of 7 bytes one value may have (--max_op_string_mb)");
}

TEST(OutputLimitsTest, AReplacementLongerThanItsMatchIsBoundedLikeAnyOtherOutput) {
  // Every one of 4 bytes becomes 1,000: 4,000 bytes from a 4-byte input.
  const ir::AttrMap attrs = {{"pattern", MakeAttr(std::string("."))},
                             {"rewrite", MakeAttr(std::string(1000, 'x'))}};
  auto ok = RunWithStringLimit("StaticRegexReplace", {Tensor::StringScalar("abcd")}, attrs, 4000);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].strings()[0].size(), 4000u);
  TFHOST_EXPECT_ERROR(RunWithStringLimit("StaticRegexReplace", {Tensor::StringScalar("abcd")}, attrs, 3999),
                      StatusCode::kInvalidArgument,
                      "(StaticRegexReplace): output 0 holds a string value (element 0) of 4000 bytes, past the "
                      "limit of 3999 bytes");
}

TEST(OutputLimitsTest, AForwardedValueCountsTooAndTheFlagShowsItsMegabytes) {
  // Identity makes nothing new, but what leaves a kernel is bounded: a
  // bound set below an input's length stops the first node that passes it.
  const Tensor big = Tensor::StringScalar(std::string((1 << 20) + 1, 'z'));
  TFHOST_EXPECT_ERROR(RunWithStringLimit("Identity", {big}, {{"T", MakeAttr(DType::kString)}}, 1 << 20),
                      StatusCode::kInvalidArgument,
                      "node 'test_Identity' (Identity): output 0 holds a string value (element 0) of 1048577 bytes, "
                      "past the limit of 1048576 bytes one value may have (--max_op_string_mb=1)");
  // Without a session's limits, the default (1 GiB) applies.
  EXPECT_TRUE(RunSingleOp("Identity", {big}, {{"T", MakeAttr(DType::kString)}}).ok());
  EXPECT_EQ(OutputLimits{}.max_string_bytes, int64_t{1} << 30);
}

TEST(OutputLimitsTest, NonStringOutputsAreNotCountedAndABoundBelowOneIsRefused) {
  auto f = RunWithStringLimit("Identity", {Tensor::FromVector<float>({1, 2, 3})}, {{"T", MakeAttr(DType::kFloat)}}, 1);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ResourceManager resources;
  TFHOST_EXPECT_ERROR(SetOutputLimits(resources, {kDefaultMaxDecodedImageBytes, 0}), StatusCode::kInvalidArgument,
                      "the string value limit must be at least 1 byte, got 0 (--max_op_string_mb)");
  TFHOST_EXPECT_ERROR(SetOutputLimits(resources, {0, 1}), StatusCode::kInvalidArgument,
                      "the decoded image limit must be at least 1 byte, got 0 (--max_decoded_image_mb)");
}

}  // namespace
}  // namespace tfhost::ops
