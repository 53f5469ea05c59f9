// QuantizeV2 / Dequantize against values derived by hand from the formulas
// TensorFlow documents for each mode (tf.raw_ops.QuantizeV2 / Dequantize).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using testing::InferShape;

Tensor Floats(std::vector<float> v) { return Tensor::FromVector(v); }
Tensor F(float v) { return Tensor::Scalar<float>(v); }

template <typename S>
Tensor Quantized(DType dtype, std::vector<S> values, Shape shape) {
  Tensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) static_cast<S*>(t.raw_data())[i] = values[i];
  return t;
}

template <typename S>
std::vector<int64_t> Values(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(static_cast<const S*>(t.raw_data())[i]);
  return out;
}

StatusOr<std::vector<Tensor>> Quantize(Tensor in, Tensor lo, Tensor hi, DType t, const std::string& mode,
                                       ir::AttrMap extra = {}) {
  extra["T"] = MakeAttr(t);
  extra["mode"] = MakeAttr(mode);
  return RunSingleOp("QuantizeV2", {std::move(in), std::move(lo), std::move(hi)}, extra);
}

// MIN_COMBINED, quint8, [0, 6]: q = trunc((x - 0) * 255/6 + 0.5).
// 3 -> 128 (127.5 + 0.5), 6 -> 255, -1 clamps to 0, 1 -> trunc(43.0) = 43.
TEST(QuantizeOpsTest, MinCombinedUnsignedAddsHalfAndTruncates) {
  auto out = Quantize(Floats({3, 6, -1, 1}), F(0), F(6), DType::kQUInt8, "MIN_COMBINED");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype(), DType::kQUInt8);
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<int64_t>{128, 255, 0, 43}));
  EXPECT_EQ((*out)[1].data<float>()[0], 0.0f);
  EXPECT_EQ((*out)[2].data<float>()[0], 6.0f);
}

// MIN_COMBINED, qint8, [-1, 1]: q = round((x + 1) * 127.5 - 128), halves away
// from zero: 0 -> round(-0.5) = -1, 1 -> 127, -1 -> -128, 0.5 -> round(63.25) = 63.
TEST(QuantizeOpsTest, MinCombinedSignedShiftsByHalfTheRange) {
  auto out = Quantize(Floats({0, 1, -1, 0.5f}), F(-1), F(1), DType::kQInt8, "MIN_COMBINED");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int64_t>{-1, 127, -128, 63}));
}

// SCALED, qint8, [-10, 9]: scale = min(-128/-10, 127/9) = 12.8, so the range
// becomes [-10, 127/12.8 = 9.921875]; 1 -> 12.8 -> 13, 9.95 clamps -> 127.
// narrow_range: scale = min(-127/-10, 14.11) = 12.7, range [-10, 10]; -10 -> -127.
TEST(QuantizeOpsTest, ScaledUsesTheTighterSideAndNarrowRangeDropsTheLowest) {
  auto out = Quantize(Floats({1, 9.95f, -10}), F(-10), F(9), DType::kQInt8, "SCALED");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int64_t>{13, 127, -128}));
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[0], -10.0f);
  EXPECT_FLOAT_EQ((*out)[2].data<float>()[0], 9.921875f);
  auto narrow = Quantize(Floats({-10, 10}), F(-10), F(9), DType::kQInt8, "SCALED", {{"narrow_range", MakeAttr(true)}});
  ASSERT_TRUE(narrow.ok()) << narrow.status().ToString();
  EXPECT_EQ(Values<int8_t>((*narrow)[0]), (std::vector<int64_t>{-127, 127}));
  EXPECT_FLOAT_EQ((*narrow)[2].data<float>()[0], 10.0f);
}

// SCALED with [-128, 127] on qint8 has scale 1, so halves show the rounding.
TEST(QuantizeOpsTest, ScaledRoundsHalfAwayOrToEven) {
  auto away = Quantize(Floats({2.5f, -2.5f, 3.5f, 0.5f}), F(-128), F(127), DType::kQInt8, "SCALED");
  auto even = Quantize(Floats({2.5f, -2.5f, 3.5f, 0.5f}), F(-128), F(127), DType::kQInt8, "SCALED",
                       {{"round_mode", MakeAttr("HALF_TO_EVEN")}});
  ASSERT_TRUE(away.ok() && even.ok());
  EXPECT_EQ(Values<int8_t>((*away)[0]), (std::vector<int64_t>{3, -3, 4, 1}));
  EXPECT_EQ(Values<int8_t>((*even)[0]), (std::vector<int64_t>{2, -2, 4, 0}));
}

// MIN_FIRST, quint8, [0, 6]: range_scale 42.5, q = round(x * 42.5) clamped:
// 3 -> 128 (127.5 rounds away), 6 -> 255, -1 -> 0. qint8 [-1, 1]: scale
// 127.5, offset round(-127.5) + 128 = 0: 0.5 -> 64, 1 -> 128 -> 127.
TEST(QuantizeOpsTest, MinFirstRoundsTheScaledValueThenOffsets) {
  auto u = Quantize(Floats({3, 6, -1}), F(0), F(6), DType::kQUInt8, "MIN_FIRST");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(Values<uint8_t>((*u)[0]), (std::vector<int64_t>{128, 255, 0}));
  auto s = Quantize(Floats({0.5f, 1, -1, 0}), F(-1), F(1), DType::kQInt8, "MIN_FIRST");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Values<int8_t>((*s)[0]), (std::vector<int64_t>{64, 127, -128, 0}));
}

// Fuzzer finding: a NaN reached the int conversion of MIN_FIRST (UBSan).
// Every mode maps NaN to 0.
TEST(QuantizeOpsTest, NanQuantizesToZeroInEveryMode) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* mode : {"MIN_FIRST", "MIN_COMBINED", "SCALED"}) {
    auto out = Quantize(Floats({nan, 1}), F(-1), F(1), DType::kQInt8, mode);
    ASSERT_TRUE(out.ok()) << mode << ": " << out.status().ToString();
    EXPECT_EQ(Values<int8_t>((*out)[0])[0], 0) << mode;
  }
  // A range 1e-38 wide: MIN_FIRST's scale is 255 / 1e-38, past float, and
  // 0 x inf is NaN.
  auto narrow = Quantize(Floats({0}), F(0), F(1e-38f), DType::kQUInt8, "MIN_FIRST",
                         {{"ensure_minimum_range", MakeAttr(0.0f)}});
  ASSERT_TRUE(narrow.ok()) << narrow.status().ToString();
  EXPECT_EQ(Values<uint8_t>((*narrow)[0]), (std::vector<int64_t>{0}));
}

// A range of zero width is widened to ensure_minimum_range (0.01) times 1.
TEST(QuantizeOpsTest, EmptyRangeIsWidenedToTheMinimum) {
  auto out = Quantize(Floats({0, 5}), F(0), F(0), DType::kQUInt8, "MIN_COMBINED");
  ASSERT_TRUE(out.ok());
  EXPECT_FLOAT_EQ((*out)[2].data<float>()[0], 0.01f);
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<int64_t>{0, 255}));
}

// axis = 0 of [2, 3]: row 0 uses [-1, 1] (scale 127), row 1 [-128, 127] (scale 1).
TEST(QuantizeOpsTest, PerChannelRangesFollowTheAxis) {
  Tensor in = Tensor::FromVector(std::vector<float>{0.5f, -1, 1, 2.4f, -7, 200}, Shape({2, 3}));
  auto out = Quantize(in, Floats({-1, -128}), Floats({1, 127}), DType::kQInt8, "SCALED", {{"axis", MakeAttr(0)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int64_t>{64, -127, 127, 2, -7, 127}));
  EXPECT_EQ((*out)[1].shape(), Shape({2}));
  auto back = RunSingleOp("Dequantize", {(*out)[0], (*out)[1], (*out)[2]},
                          {{"T", MakeAttr(DType::kQInt8)}, {"mode", MakeAttr("SCALED")}, {"axis", MakeAttr(0)}});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_NEAR(back->at(0).data<float>()[0], 64.0f / 127, 1e-6);
  EXPECT_EQ(back->at(0).data<float>()[4], -7.0f);
}

StatusOr<std::vector<Tensor>> Dequantize(Tensor in, float lo, float hi, const std::string& mode,
                                         ir::AttrMap extra = {}) {
  extra["T"] = MakeAttr(in.dtype());
  extra["mode"] = MakeAttr(mode);
  return RunSingleOp("Dequantize", {std::move(in), F(lo), F(hi)}, extra);
}

// MIN_COMBINED: x = (q + half_range) * (max - min) / range(T) + min.
// quint8 [0, 6]: 128 -> 128 * 6/255; qint8 [-1, 1]: 0 -> 128 * 2/255 - 1.
// SCALED qint8 [-10, 9]: scale max(10/128, 9/127) = 0.078125; 127 -> 9.921875.
// MIN_FIRST quint8 [0, 6]: 128 -> 128 * 6/255.
TEST(QuantizeOpsTest, DequantizeFollowsEachModesFormula) {
  auto a = Dequantize(Quantized<uint8_t>(DType::kQUInt8, {128, 0, 255}, Shape({3})), 0, 6, "MIN_COMBINED");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_NEAR(a->at(0).data<float>()[0], 128 * 6.0 / 255, 1e-6);
  EXPECT_EQ(a->at(0).data<float>()[1], 0.0f);
  EXPECT_NEAR(a->at(0).data<float>()[2], 6.0, 1e-6);
  auto b = Dequantize(Quantized<int8_t>(DType::kQInt8, {0, -128, 127}, Shape({3})), -1, 1, "MIN_COMBINED");
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(b->at(0).data<float>()[0], 128 * 2.0 / 255 - 1, 1e-6);
  EXPECT_NEAR(b->at(0).data<float>()[1], -1.0, 1e-6);
  EXPECT_NEAR(b->at(0).data<float>()[2], 1.0, 1e-6);
  auto c = Dequantize(Quantized<int8_t>(DType::kQInt8, {127, -128, 13}, Shape({3})), -10, 9, "SCALED");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->at(0).data<float>()[0], 9.921875f);
  EXPECT_EQ(c->at(0).data<float>()[1], -10.0f);
  EXPECT_EQ(c->at(0).data<float>()[2], 1.015625f);
  auto d = Dequantize(Quantized<uint8_t>(DType::kQUInt8, {128}, Shape({1})), 0, 6, "MIN_FIRST");
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->at(0).data<float>()[0], 128 * 6.0 / 255, 1e-6);
  // bfloat16 output (MIN_COMBINED only): qint8 [-10, 9.921875], 127 -> 9.921875 rounded to 8 bits.
  auto bf = Dequantize(Quantized<int8_t>(DType::kQInt8, {127}, Shape({1})), -10, 9.921875f, "MIN_COMBINED",
                       {{"dtype", MakeAttr(DType::kBFloat16)}});
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();
  EXPECT_EQ(bf->at(0).dtype(), DType::kBFloat16);
  EXPECT_EQ(BFloat16ToFloat(bf->at(0).data<uint16_t>()[0]), 9.9375f);
  auto bf_scaled = Dequantize(Quantized<int8_t>(DType::kQInt8, {127}, Shape({1})), -10, 9, "SCALED",
                              {{"dtype", MakeAttr(DType::kBFloat16)}});
  TFHOST_ASSERT_ERROR(bf_scaled, StatusCode::kInvalidArgument,
                      "When output type is bfloat16, Mode string must be 'MIN_COMBINED'");
}

TEST(QuantizeOpsTest, Qint32ScaledRoundTripsWithinOneStep) {
  std::vector<float> x = {-3.25f, 0.0f, 1.0f, 2.999f};
  auto q = Quantize(Floats(x), F(-4), F(3), DType::kQInt32, "SCALED");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  auto back = RunSingleOp("Dequantize", {(*q)[0], (*q)[1], (*q)[2]},
                          {{"T", MakeAttr(DType::kQInt32)}, {"mode", MakeAttr("SCALED")}});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back->at(0).data<float>()[i], x[i], 4.0 / 2147483648.0 * 2);
}

TEST(QuantizeOpsTest, BadInputsGiveClearErrors) {
  auto inverted = Quantize(Floats({1}), F(2), F(1), DType::kQUInt8, "MIN_COMBINED");
  TFHOST_ASSERT_ERROR(inverted, StatusCode::kInvalidArgument, "input_max_range must be larger than input_min_range.");
  auto even = Quantize(Floats({1}), F(0), F(1), DType::kQUInt8, "MIN_COMBINED", {{"round_mode", MakeAttr("HALF_TO_EVEN")}});
  TFHOST_ASSERT_ERROR(even, StatusCode::kInvalidArgument, "Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED'");
  auto mode = Quantize(Floats({1}), F(0), F(1), DType::kQUInt8, "MAX_LAST");
  TFHOST_EXPECT_ERROR(mode, StatusCode::kInvalidArgument,
                      "node 'test_QuantizeV2' (QuantizeV2): attr 'mode' is 'MAX_LAST', which is not one of its allowed values");
  auto type = Quantize(Floats({1}), F(0), F(1), DType::kInt8, "SCALED");
  TFHOST_EXPECT_ERROR(type, StatusCode::kInvalidArgument,
                      "node 'test_QuantizeV2' (QuantizeV2): attr 'T' is DT_INT8, which is not one of its allowed types");
  auto axis = Quantize(Floats({1, 2}), Floats({0, 0}), Floats({1, 1}), DType::kQInt8, "SCALED", {{"axis", MakeAttr(1)}});
  TFHOST_ASSERT_ERROR(axis, StatusCode::kInvalidArgument, "Axis must be less than input dimension(1), got 1");
  auto sizes = Quantize(Floats({1, 2}), Floats({0}), Floats({1}), DType::kQInt8, "SCALED", {{"axis", MakeAttr(0)}});
  TFHOST_ASSERT_ERROR(sizes, StatusCode::kInvalidArgument,
                      "If axis is specified, min_range must be a 1-D tensor of size 2 (input dimension 0), got shape [1]");
  auto scalar = Quantize(Floats({1, 2}), Floats({0, 0}), F(1), DType::kQInt8, "SCALED");
  TFHOST_ASSERT_ERROR(scalar, StatusCode::kInvalidArgument,
                      "If axis is not specified, min_range must contain a single float element, but it contains 2 elements");
  auto min_first = Quantize(Floats({1, 2}), Floats({0, 0}), Floats({1, 1}), DType::kQInt8, "MIN_FIRST",
                            {{"axis", MakeAttr(0)}});
  TFHOST_ASSERT_ERROR(min_first, StatusCode::kUnimplemented,
                      "MIN_FIRST mode is not implemented for Quantize with axis != -1.");
  auto wrong_t = RunSingleOp("Dequantize", {Quantized<int8_t>(DType::kQInt8, {1}, Shape({1})), F(0), F(1)},
                             {{"T", MakeAttr(DType::kQUInt8)}});
  TFHOST_ASSERT_ERROR(
      wrong_t, StatusCode::kInvalidArgument,
      "node 'test_Dequantize' (Dequantize): input 0 'input' (dtype from attr T) is qint8, expected quint8");
  EXPECT_NE(wrong_t.status().message().find("'test_Dequantize'"), std::string::npos) << wrong_t.status().message();
  EXPECT_NE(wrong_t.status().message().find("is qint8, expected quint8"), std::string::npos)
      << wrong_t.status().message();
}

using ir::PartialShape;

TEST(QuantizeOpsTest, ShapeFunctionsKeepValuesAndGiveScalarOrPerChannelRanges) {
  auto per_tensor = InferShape("QuantizeV2", {PartialShape::Known({4, 3}), PartialShape::Scalar(), PartialShape::Scalar()},
                               {}, 3);
  EXPECT_EQ(per_tensor[0], PartialShape::Known({4, 3}));
  EXPECT_EQ(per_tensor[1], PartialShape::Scalar());
  auto per_channel = InferShape("QuantizeV2", {PartialShape::Known({4, 3}), PartialShape::Known({3}), PartialShape::Known({3})},
                                {}, 3, {{"axis", MakeAttr(1)}});
  EXPECT_EQ(per_channel[2], PartialShape::Known({3}));
  auto deq = InferShape("Dequantize", {PartialShape::Known({5}), PartialShape::Scalar(), PartialShape::Scalar()}, {}, 1);
  EXPECT_EQ(deq[0], PartialShape::Known({5}));
}

}  // namespace
}  // namespace tfhost::ops
