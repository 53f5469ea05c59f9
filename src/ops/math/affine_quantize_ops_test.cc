// _TfhostAffineQuantize / _TfhostAffineDequantize against values worked out
// by hand from TFLite's reference arithmetic: q = round(x / scale) + zp,
// halves away from zero, saturated; x = scale * (q - zp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

StatusOr<Tensor> Quantize(std::vector<float> x, DType type, float scale, int64_t zero_point) {
  ir::AttrMap attrs;
  attrs["out_type"] = MakeAttr(type);
  attrs["scales"] = MakeAttr(std::vector<float>{scale});
  attrs["zero_points"] = MakeAttr(std::vector<int64_t>{zero_point});
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp("_TfhostAffineQuantize", {Tensor::FromVector(x)}, attrs));
  return out[0];
}

template <typename Q>
StatusOr<Tensor> Dequantize(std::vector<Q> q, float scale, int64_t zero_point) {
  ir::AttrMap attrs;
  attrs["scales"] = MakeAttr(std::vector<float>{scale});
  attrs["zero_points"] = MakeAttr(std::vector<int64_t>{zero_point});
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp("_TfhostAffineDequantize", {Tensor::FromVector(q)}, attrs));
  return out[0];
}

template <typename Q>
std::vector<int64_t> Values(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.data<Q>()[i]);
  return out;
}

// scale 0.5, zp -3: 0.25 / 0.5 = 0.5 rounds to 1 (away from zero), -0.25
// to -1; 1.0 -> 2; the zero point is added after rounding.
TEST(AffineQuantizeTest, HalvesRoundAwayFromZeroBeforeTheZeroPointIsAdded) {
  auto q = Quantize({0.25f, -0.25f, 1.0f, 0.0f, -0.74f}, DType::kInt8, 0.5f, -3);
  ASSERT_TRUE(q.status().ok()) << q.status().ToString();
  EXPECT_EQ(q->dtype(), DType::kInt8);
  EXPECT_EQ(Values<int8_t>(*q), (std::vector<int64_t>{-2, -4, -1, -3, -4}));
}

TEST(AffineQuantizeTest, ValuesPastTheTypeSaturateAndNaNBecomesTheZeroPoint) {
  const float inf = std::numeric_limits<float>::infinity();
  auto q = Quantize({1000.0f, -1000.0f, inf, -inf, std::nanf("")}, DType::kUInt8, 0.1f, 128);
  ASSERT_TRUE(q.status().ok()) << q.status().ToString();
  EXPECT_EQ(q->dtype(), DType::kUInt8);
  EXPECT_EQ(Values<uint8_t>(*q), (std::vector<int64_t>{255, 0, 255, 0, 128}));
  auto q16 = Quantize({1e9f, 3.0f}, DType::kInt16, 0.001f, 0);
  ASSERT_TRUE(q16.status().ok()) << q16.status().ToString();
  EXPECT_EQ(Values<int16_t>(*q16), (std::vector<int64_t>{32767, 3000}));
}

TEST(AffineQuantizeTest, DequantizeSubtractsTheZeroPointThenScales) {
  auto x = Dequantize<int8_t>({-128, 0, 5, 127}, 0.25f, 5);
  ASSERT_TRUE(x.status().ok()) << x.status().ToString();
  EXPECT_EQ(x->dtype(), DType::kFloat);
  EXPECT_EQ(x->ToDoubleVector(), (std::vector<double>{-33.25, -1.25, 0.0, 30.5}));
  auto bias = Dequantize<int32_t>({1 << 20, -7}, 0.5f, 0);
  ASSERT_TRUE(bias.status().ok()) << bias.status().ToString();
  EXPECT_EQ(bias->ToDoubleVector(), (std::vector<double>{524288.0, -3.5}));
}

// Found by graph_kernel_fuzz: an int32 value minus its zero point
// overflowed int32.
TEST(AffineQuantizeTest, AnInt32AtTheEdgeMinusItsZeroPointDoesNotOverflow) {
  auto x = Dequantize<int32_t>({std::numeric_limits<int32_t>::min()}, 1.0f, 2);
  ASSERT_TRUE(x.status().ok()) << x.status().ToString();
  EXPECT_EQ(x->ToDoubleVector()[0], -2147483650.0f);
}

TEST(AffineQuantizeTest, EveryInt8ValueSurvivesDequantizeThenQuantize) {
  std::vector<int8_t> all;
  for (int v = -128; v <= 127; ++v) all.push_back(static_cast<int8_t>(v));
  for (float scale : {0.0039215689f, 0.1f, 3.7e-5f, 12.5f}) {
    auto x = Dequantize<int8_t>(all, scale, -17);
    ASSERT_TRUE(x.status().ok()) << x.status().ToString();
    std::vector<float> xs(x->data<float>(), x->data<float>() + x->NumElements());
    auto back = Quantize(xs, DType::kInt8, scale, -17);
    ASSERT_TRUE(back.status().ok()) << back.status().ToString();
    for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(back->data<int8_t>()[i], all[i]) << "scale " << scale;
  }
}

TEST(AffineQuantizeTest, AZeroPointOutsideTheTypeIsRefusedNamingIt) {
  TFHOST_EXPECT_ERROR(Quantize({1.0f}, DType::kInt8, 0.5f, 128).status(), StatusCode::kInvalidArgument,
                "attr zero_points holds 128, outside the range of the quantized type [-128, 127]");
  TFHOST_EXPECT_ERROR(Dequantize<uint8_t>({1}, 0.5f, -1).status(), StatusCode::kInvalidArgument,
                "attr zero_points holds -1, outside the range of the quantized type [0, 255]");
}

TEST(AffineQuantizeTest, AScaleThatIsNotPositiveAndFiniteIsRefused) {
  TFHOST_EXPECT_ERROR(Quantize({1.0f}, DType::kInt8, 0.0f, 0).status(), StatusCode::kInvalidArgument,
                "attr scales must hold positive finite numbers, got 0");
  TFHOST_EXPECT_ERROR(Dequantize<int8_t>({1}, -2.0f, 0).status(), StatusCode::kInvalidArgument,
                "attr scales must hold positive finite numbers, got -2");
}

// Per channel along axis 1 of [2, 2, 2]: channel 0 (scale 1, zp 0) holds
// elements 0-1 and 4-5, channel 1 (scale 0.5, zp 10) elements 2-3 and 6-7.
TEST(AffineQuantizeTest, PerChannelPairsFollowTheAxis) {
  ir::AttrMap attrs;
  attrs["out_type"] = MakeAttr(DType::kUInt8);
  attrs["scales"] = MakeAttr(std::vector<float>{1.0f, 0.5f});
  attrs["zero_points"] = MakeAttr(std::vector<int64_t>{0, 10});
  attrs["axis"] = MakeAttr(int64_t{1});
  const Tensor x = Tensor::FromVector<float>({1, 2, 1, 2, 3, 4, 3, 4}, Shape({2, 2, 2}));
  auto q = RunSingleOp("_TfhostAffineQuantize", {x}, attrs);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(Values<uint8_t>((*q)[0]), (std::vector<int64_t>{1, 2, 12, 14, 3, 4, 16, 18}));
  attrs.erase("out_type");
  auto back = RunSingleOp("_TfhostAffineDequantize", {(*q)[0]}, attrs);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[0].ToDoubleVector(), x.ToDoubleVector());
  attrs["axis"] = MakeAttr(int64_t{2});
  attrs["scales"] = MakeAttr(std::vector<float>{1.0f, 0.5f, 2.0f});
  attrs["zero_points"] = MakeAttr(std::vector<int64_t>{0, 0, 0});
  TFHOST_EXPECT_ERROR(RunSingleOp("_TfhostAffineDequantize", {(*q)[0]}, attrs).status(),
                      StatusCode::kInvalidArgument,
                      "attr axis 2 with 3 scales does not match the input shape [2,2,2]");
}

}  // namespace
}  // namespace tfhost::ops
