#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor V(const std::vector<float>& v) { return Tensor::FromVector<float>(v); }

std::vector<float> RunUnary(const std::string& op, const std::vector<float>& x, ir::AttrMap attrs = {}) {
  attrs["T"] = MakeAttr(DType::kFloat);
  auto out = RunSingleOp(op, {V(x)}, attrs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  if (!out.ok()) return {};
  const Tensor& t = (*out)[0];
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST(ActivationOpsTest, ReluFamilyValues) {
  EXPECT_EQ(RunUnary("Relu", {-2, 0, 3}), (std::vector<float>{0, 0, 3}));
  EXPECT_EQ(RunUnary("Relu6", {-2, 3, 7}), (std::vector<float>{0, 3, 6}));
  EXPECT_EQ(RunUnary("LeakyRelu", {-2, 3}), (std::vector<float>{-0.4f, 3}));
  EXPECT_EQ(RunUnary("LeakyRelu", {-2, 3}, {{"alpha", MakeAttr(0.5f)}}), (std::vector<float>{-1, 3}));
}

TEST(ActivationOpsTest, SmoothActivationsValues) {
  auto elu = RunUnary("Elu", {-1, 2});
  EXPECT_NEAR(elu[0], std::exp(-1.0) - 1, 1e-6);
  EXPECT_EQ(elu[1], 2);
  auto selu = RunUnary("Selu", {-1, 2});
  EXPECT_NEAR(selu[0], 1.0507009873554805 * 1.6732632423543772 * (std::exp(-1.0) - 1), 1e-6);
  EXPECT_NEAR(selu[1], 1.0507009873554805 * 2, 1e-6);
  auto softplus = RunUnary("Softplus", {0, 100, -100});
  EXPECT_NEAR(softplus[0], std::log(2.0), 1e-6);
  EXPECT_NEAR(softplus[1], 100, 1e-4);  // no overflow
  EXPECT_NEAR(softplus[2], 0, 1e-6);
  EXPECT_EQ(RunUnary("Softsign", {-3, 1}), (std::vector<float>{-0.75f, 0.5f}));
}

TEST(ActivationOpsTest, ReluOnIntegersAndHalf) {
  auto out = RunSingleOp("Relu", {Tensor::FromVector<int32_t>({-5, 7})}, {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 0);
  EXPECT_EQ((*out)[0].data<int32_t>()[1], 7);
  Tensor h(DType::kBFloat16, Shape({2}));
  h.data<uint16_t>()[0] = FloatToBFloat16(-1.5f);
  h.data<uint16_t>()[1] = FloatToBFloat16(8.f);
  auto outh = RunSingleOp("Relu6", {h}, {{"T", MakeAttr(DType::kBFloat16)}});
  ASSERT_TRUE(outh.ok()) << outh.status().ToString();
  ASSERT_EQ((*outh)[0].dtype(), DType::kBFloat16);
  EXPECT_EQ(BFloat16ToFloat((*outh)[0].data<uint16_t>()[0]), 0.f);
  EXPECT_EQ(BFloat16ToFloat((*outh)[0].data<uint16_t>()[1]), 6.f);
}

TEST(ActivationOpsTest, EluRejectsIntegers) {
  auto out = RunSingleOp("Elu", {Tensor::FromVector<int32_t>({-5})}, {{"T", MakeAttr(DType::kInt32)}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_Elu' (Elu): attr 'T' is DT_INT32, which is not one of its allowed types");
}

TEST(PreluTest, AlphaBroadcastsOverChannels) {
  const Tensor x = Tensor::FromVector<float>({-1, -1, 2, -4}, Shape({2, 2}));
  auto out = RunSingleOp("Prelu", {x, V({0.1f, 0.5f})}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({-0.1f, -0.5f, 2, -2}, Shape({2, 2}))))
      << (*out)[0].DebugString();
  TFHOST_EXPECT_ERROR(RunSingleOp("Prelu", {x, V({1, 2, 3})}, {{"T", MakeAttr(DType::kFloat)}}), StatusCode::kInvalidArgument,
                      "alpha: shape [3] does not broadcast to [2,2]");
}

TEST(BiasAddTest, NhwcAddsOnLastDimAndNchwOnDimOne) {
  const Tensor x = Tensor::FromVector<float>({0, 0, 0, 0}, Shape({1, 2, 1, 2}));
  auto nhwc = RunSingleOp("BiasAdd", {x, V({1, 2})}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(nhwc.ok()) << nhwc.status().ToString();
  EXPECT_TRUE(TensorsEqual((*nhwc)[0], Tensor::FromVector<float>({1, 2, 1, 2}, Shape({1, 2, 1, 2}))));
  auto nchw = RunSingleOp("BiasAdd", {x, V({1, 2})},
                          {{"T", MakeAttr(DType::kFloat)}, {"data_format", MakeAttr("NCHW")}});
  ASSERT_TRUE(nchw.ok()) << nchw.status().ToString();
  EXPECT_TRUE(TensorsEqual((*nchw)[0], Tensor::FromVector<float>({1, 1, 2, 2}, Shape({1, 2, 1, 2}))));
  auto v1 = RunSingleOp("BiasAddV1", {x, V({1, 2})}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(v1.ok());
  EXPECT_TRUE(TensorsEqual((*v1)[0], (*nhwc)[0]));
}

// TensorFlow's integer BiasAdd wraps in two's complement; here the sum is
// taken unsigned, so it wraps without signed-overflow UB (UBSan found it).
TEST(BiasAddTest, IntegerSumsPastTheirTypeWrapAsInTensorFlow) {
  const Tensor x = Tensor::FromVector<int32_t>({2147483647, -2147483647 - 1, 5, 0}, Shape({2, 2}));
  const Tensor bias = Tensor::FromVector<int32_t>({4, -1});
  auto out = RunSingleOp("BiasAdd", {x, bias}, {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({-2147483645, 2147483647, 9, -1}, Shape({2, 2}))))
      << (*out)[0].DebugString();
}

TEST(BiasAddTest, RejectsBiasOfWrongLength) {
  const Tensor x(DType::kFloat, Shape({2, 3}));
  auto out = RunSingleOp("BiasAdd", {x, V({1, 2})}, {{"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "bias has 2 values but value has 3 channels in dim 1 of shape [2,3]");
}

TEST(LrnTest, NormalizesOverTheChannelWindow) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, Shape({1, 1, 1, 3}));
  auto out = RunSingleOp("LRN", {x}, {{"depth_radius", MakeAttr(1)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NEAR((*out)[0].data<float>()[0], 1 / std::sqrt(6.0), 1e-6);
  EXPECT_NEAR((*out)[0].data<float>()[1], 2 / std::sqrt(15.0), 1e-6);
  EXPECT_NEAR((*out)[0].data<float>()[2], 3 / std::sqrt(14.0), 1e-6);
}

// Fuzzer finding: depth_radius 2^63 - 1 overflowed c + radius (UBSan).
// TensorFlow refuses a radius past int max; one at int max covers every
// channel.
TEST(LrnTest, ARadiusPastIntMaxIsRefusedAndOneAtItSpansAllChannels) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, Shape({1, 1, 1, 3}));
  TFHOST_EXPECT_ERROR(RunSingleOp("LRN", {x}, {{"depth_radius", MakeAttr(std::numeric_limits<int64_t>::max())}}),
                      StatusCode::kInvalidArgument,
                      "node 'test_LRN' (LRN): depth_radius = 9223372036854775807 larger than int max");
  auto out = RunSingleOp("LRN", {x}, {{"depth_radius", MakeAttr(int64_t{std::numeric_limits<int32_t>::max()})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int c = 0; c < 3; ++c) EXPECT_NEAR((*out)[0].data<float>()[c], (c + 1) / std::sqrt(15.0), 1e-6) << c;
}

}  // namespace
}  // namespace tfhost::ops
