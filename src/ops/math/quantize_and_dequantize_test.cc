#include <gtest/gtest.h>

#include <limits>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

struct Qdq {
  int64_t num_bits = 8;
  bool range_given = false;
  bool signed_input = true;
  bool narrow_range = false;
  std::string round_mode = "HALF_TO_EVEN";
  int64_t axis = -1;
  DType type = DType::kFloat;

  ir::AttrMap Attrs() const {
    return {{"T", MakeAttr(type)},
            {"num_bits", MakeAttr(num_bits)},
            {"range_given", MakeAttr(range_given)},
            {"signed_input", MakeAttr(signed_input)},
            {"narrow_range", MakeAttr(narrow_range)},
            {"round_mode", MakeAttr(round_mode)},
            {"axis", MakeAttr(axis)}};
  }
  StatusOr<Tensor> Run(const Tensor& x, const Tensor& lo, const Tensor& hi, const char* op = "QuantizeAndDequantizeV4") const {
    TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp(op, {x, lo, hi}, Attrs()));
    return out[0];
  }
};

const std::vector<float> kRamp = {-1, -0.5f, -0.26f, 0, 0.25f, 0.3f, 0.75f, 1, 2};

void ExpectFloats(const StatusOr<Tensor>& got, const std::vector<float>& want) {
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got->data<float>()[i], want[i]) << "element " << i;
}

TEST(QuantizeAndDequantizeTest, GivenRangeThreeBits) {
  // [-1, 1] in [-4, 3]: from_min = 4, from_max = 3, so scale 3 and step 1/3;
  // min widens to -4/3. -0.5 * 3 = -1.5 rounds to -2 (half to even) or -1
  // (half up); 2 clamps to 1.
  Qdq q;
  q.num_bits = 3;
  q.range_given = true;
  const float t = 1.0f / 3;
  ExpectFloats(q.Run(Tensor::FromVector(kRamp), Tensor::Scalar(-1.0f), Tensor::Scalar(1.0f)),
               {-1, -2 * t, -t, 0, t, t, 2 * t, 1, 1});
  q.round_mode = "HALF_UP";
  ExpectFloats(q.Run(Tensor::FromVector(kRamp), Tensor::Scalar(-1.0f), Tensor::Scalar(1.0f)),
               {-1, -t, -t, 0, t, t, 2 * t, 1, 1});
}

TEST(QuantizeAndDequantizeTest, RangeFromDataIsNotClamped) {
  // Data range [-1, 2], 8 bits signed: from_min = 128, from_max = 63.5, so
  // the step is 2/127 and -1 -> round(-63.5) = -64 -> -128/127 (outside the
  // data range: nothing clamps without range_given).
  Qdq q;
  ExpectFloats(q.Run(Tensor::FromVector(kRamp), Tensor::Scalar(0.0f), Tensor::Scalar(0.0f)),
               {-128.0f / 127, -64.0f / 127, -34.0f / 127, 0, 32.0f / 127, 38.0f / 127, 96.0f / 127, 128.0f / 127, 2});
  // Unsigned: qmin = 0 never sets the scale; step 2/255 from the max side.
  q.signed_input = false;
  auto u = q.Run(Tensor::FromVector(kRamp), Tensor::Scalar(0.0f), Tensor::Scalar(0.0f));
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_FLOAT_EQ(u->data<float>()[0], -128.0f * 2 / 255);
  EXPECT_FLOAT_EQ(u->data<float>()[8], 2);
}

TEST(QuantizeAndDequantizeTest, RoundingModesAreRintAndFloorOfXPlusHalf) {
  // Step 1 (range [-127, 127], narrow 8 bits): HALF_TO_EVEN is rint (so the
  // largest float below 0.5 gives 0), HALF_UP is floor(x + 0.5) (where that
  // sum rounds up to 1).
  Qdq q;
  q.range_given = true;
  q.narrow_range = true;
  const float below_half = 0.49999997f;
  Tensor x = Tensor::FromVector<float>({below_half, -below_half, 2.5f, 3.5f, -2.5f, 100.5f});
  ExpectFloats(q.Run(x, Tensor::Scalar(-127.0f), Tensor::Scalar(127.0f)), {0, -0.0f, 2, 4, -2, 100});
  q.round_mode = "HALF_UP";
  ExpectFloats(q.Run(x, Tensor::Scalar(-127.0f), Tensor::Scalar(127.0f)), {1, 0, 3, 4, -2, 101});
}

TEST(QuantizeAndDequantizeTest, PerChannelRanges) {
  // axis 1 of [[-1, 0.5], [0.3, 2], [0.1, -0.2]], 4 bits: column 0 has range
  // [-1, 0.3] (scale 8), column 1 [-0.2, 2] (scale 3.5).
  Tensor x = Tensor::FromVector<float>({-1, 0.5f, 0.3f, 2, 0.1f, -0.2f}, Shape({3, 2}));
  Qdq q;
  q.num_bits = 4;
  q.axis = 1;
  Tensor unused = Tensor::FromVector<float>({0, 0});
  ExpectFloats(q.Run(x, unused, unused), {-1, 2 / 3.5f, 0.25f, 2, 0.125f, -1 / 3.5f});
  // axis 0 with given ranges [-1, 1] per row: scale 7, min widens to -8/7;
  // 2 clamps to 1.
  q.axis = 0;
  q.range_given = true;
  const float s = 1.0f / 7;
  ExpectFloats(q.Run(x, Tensor::FromVector<float>({-1, -1, -1}), Tensor::FromVector<float>({1, 1, 1})),
               {-1, 4 * s, 2 * s, 1, 1 * s, -1 * s});
  // V3 takes num_bits as an input and always rounds half to even.
  auto v3 = RunSingleOp("QuantizeAndDequantizeV3",
                        {x, Tensor::FromVector<float>({-1, -1, -1}), Tensor::FromVector<float>({1, 1, 1}),
                         Tensor::Scalar<int32_t>(4)},
                        {{"T", MakeAttr(DType::kFloat)}, {"axis", MakeAttr(int64_t{0})}});
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  ExpectFloats((*v3)[0], {-1, 4 * s, 2 * s, 1, 1 * s, -1 * s});
}

TEST(QuantizeAndDequantizeTest, DoubleV2AndEmptyInput) {
  Qdq q;
  q.num_bits = 5;
  q.type = DType::kDouble;
  // Range [-0.3, 0.7]: from_min = 16/0.3, from_max = 15/0.7 -> step 0.7/15;
  // -0.3 / step = -6.43 -> -6.
  auto out = q.Run(Tensor::FromVector<double>({-0.3, 0.7}), Tensor::Scalar(0.0), Tensor::Scalar(0.0),
                   "QuantizeAndDequantizeV2");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_DOUBLE_EQ(out->data<double>()[0], -6 * (0.7 / 15));
  EXPECT_DOUBLE_EQ(out->data<double>()[1], 0.7);
  q.type = DType::kFloat;
  auto empty = q.Run(Tensor(DType::kFloat, Shape({0, 3})), Tensor::Scalar(0.0f), Tensor::Scalar(0.0f));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->shape(), Shape({0, 3}));
}

TEST(QuantizeAndDequantizeTest, BadAttrsAndShapesAreErrors) {
  Tensor x = Tensor::FromVector(kRamp);
  Tensor zero = Tensor::Scalar(0.0f), one = Tensor::Scalar(1.0f);
  auto expect_error = [&](const Qdq& q, const Tensor& lo, const Tensor& hi, const std::string& part) {
    auto out = q.Run(x, lo, hi);
    TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, part);
    EXPECT_NE(out.status().message().find("QuantizeAndDequantizeV4"), std::string::npos) << out.status().message();
  };
  Qdq q;
  q.num_bits = 0;
  expect_error(q, zero, one, "num_bits must be in [1, 61]");
  q.num_bits = 62;
  expect_error(q, zero, one, "num_bits");
  q.num_bits = 8;
  q.range_given = true;
  expect_error(q, one, zero, "must not exceed input_max");
  expect_error(q, Tensor::FromVector<float>({0}), one, "input_min must be a scalar");
  q.axis = -2;
  expect_error(q, zero, one, "axis must be -1");
  q.axis = 1;
  expect_error(q, zero, one, "axis 1 is not a dimension of the input; expected less than its rank 1");
  // Found by graph_kernel_fuzz: the message computed axis + 1, which
  // overflowed for the largest int64.
  q.axis = std::numeric_limits<int64_t>::max();
  expect_error(q, zero, one, "axis 9223372036854775807 is not a dimension of the input");
  q.axis = 0;
  expect_error(q, Tensor::FromVector<float>({0, 0}), Tensor::FromVector<float>({1, 1}), "vector of 9 values");
  Qdq half;
  half.type = DType::kHalf;
  auto h = half.Run(Tensor(DType::kHalf, Shape({2})), Tensor(DType::kHalf, Shape({})), Tensor(DType::kHalf, Shape({})));
  TFHOST_ASSERT_ERROR(h, StatusCode::kInvalidArgument,
                      "TensorFlow computes this op only for float32 and float64 input, got float16");
  auto v3 = RunSingleOp("QuantizeAndDequantizeV3", {x, zero, one, Tensor::FromVector<int32_t>({4})},
                        {{"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(v3, StatusCode::kInvalidArgument, "num_bits must be a scalar, got shape [1]");
}

}  // namespace
}  // namespace tfhost::ops
