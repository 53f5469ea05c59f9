#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor F(const std::vector<float>& v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }

void ExpectValues(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(expected.size())) << t.DebugString();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(t.data<float>()[i], expected[i], tol) << "element " << i;
  }
}

ir::AttrMap Attrs(const std::string& padding, int64_t stride = 1) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
          {"padding", MakeAttr(padding)}};
}

TEST(DepthwiseConv2dNativeTest, MultiplierTwoOrdersOutputAsChannelTimesMultiplierPlusQ) {
  // 1x1 kernel: out[c * 2 + q] = x[c] * f[c][q].
  const Tensor x = F({1, 10}, Shape({1, 1, 1, 2}));
  const Tensor f = F({2, 3, 5, 7}, Shape({1, 1, 2, 2}));
  auto out = RunSingleOp("DepthwiseConv2dNative", {x, f}, Attrs("VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 1, 1, 4}));
  ExpectValues((*out)[0], {2, 3, 50, 70});
}

TEST(DepthwiseConv2dNativeTest, ChannelsStaySeparateUnderSamePadding) {
  // Channel 0 = 1..9, channel 1 = all ones; 2x2 filter [[1,2],[3,4]] for
  // channel 0 and all ones for channel 1.
  std::vector<float> x(18);
  for (int i = 0; i < 9; ++i) {
    x[2 * i] = i + 1;
    x[2 * i + 1] = 1;
  }
  const Tensor f = F({1, 1, 2, 1, 3, 1, 4, 1}, Shape({2, 2, 2, 1}));
  auto out = RunSingleOp("DepthwiseConv2dNative", {F(x, Shape({1, 3, 3, 2})), f}, Attrs("SAME"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<float> ch0 = {37, 47, 21, 67, 77, 33, 23, 26, 9};
  const std::vector<float> ch1 = {4, 4, 2, 4, 4, 2, 2, 2, 1};  // cells inside the input
  std::vector<float> expected;
  for (int i = 0; i < 9; ++i) {
    expected.push_back(ch0[i]);
    expected.push_back(ch1[i]);
  }
  ExpectValues((*out)[0], expected);
}

TEST(DepthwiseConv2dNativeTest, RejectsFilterChannelMismatch) {
  const Tensor x(DType::kFloat, Shape({1, 3, 3, 3}));
  const Tensor f(DType::kFloat, Shape({2, 2, 2, 1}));
  auto out = RunSingleOp("DepthwiseConv2dNative", {x, f}, Attrs("VALID"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "filter in_c 2 must equal the input's channels 3 (filter shape [2,2,2,1])");
}

TEST(FusedDepthwiseConv2dNativeTest, BiasAndReluMatchComposedOps) {
  const Tensor x = F({1, -2, 3, -4, 5, -6, 7, -8}, Shape({1, 2, 2, 2}));
  const Tensor f = F({1, 1, 1, 1, 1, 1, 1, 1}, Shape({2, 2, 2, 1}));
  const Tensor bias = F({0.5f, -0.5f}, Shape({2}));
  auto attrs = Attrs("SAME");
  attrs["num_args"] = MakeAttr(1);
  attrs["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "Relu"});
  auto fused = RunSingleOp("FusedDepthwiseConv2dNative", {x, f, bias}, attrs);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto conv = RunSingleOp("DepthwiseConv2dNative", {x, f}, Attrs("SAME"));
  ASSERT_TRUE(conv.ok());
  auto biased = RunSingleOp("BiasAdd", {(*conv)[0], bias}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(biased.ok());
  auto relu = RunSingleOp("Relu", {(*biased)[0]}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(relu.ok());
  EXPECT_TRUE(TensorsEqual((*fused)[0], (*relu)[0]))
      << (*fused)[0].DebugString() << " vs " << (*relu)[0].DebugString();
  // Channel 0 sums to 16 (+0.5); channel 1 is negative and clamps to 0.
  EXPECT_FLOAT_EQ((*fused)[0].data<float>()[0], 16.5f);
  EXPECT_FLOAT_EQ((*fused)[0].data<float>()[1], 0.f);
}

}  // namespace
}  // namespace tfhost::ops
