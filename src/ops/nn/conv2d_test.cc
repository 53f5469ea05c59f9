#include <gtest/gtest.h>

#include <random>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor F(const std::vector<float>& v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }

void ExpectValues(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.dtype(), DType::kFloat);
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(expected.size())) << t.DebugString();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(t.data<float>()[i], expected[i], tol) << "element " << i;
  }
}

// 3x3 input 1..9 and the 2x2 filter [[1, 2], [3, 4]] (one channel in and out).
Tensor Input3x3() { return F({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3, 1})); }
Tensor Filter2x2() { return F({1, 2, 3, 4}, Shape({2, 2, 1, 1})); }

ir::AttrMap ConvAttrs(const std::string& padding, int64_t stride = 1, int64_t dilation = 1) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
          {"dilations", MakeAttr(std::vector<int64_t>{1, dilation, dilation, 1})},
          {"padding", MakeAttr(padding)}};
}

TEST(Conv2DTest, ValidPaddingMatchesHandComputedSums) {
  auto out = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, ConvAttrs("VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 2, 1}));
  ExpectValues((*out)[0], {37, 47, 67, 77});
}

TEST(Conv2DTest, SamePaddingPutsTheExtraPadAfter) {
  // pad_total = 1 -> 0 before, 1 after: the last row/column see zeros.
  auto out = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, ConvAttrs("SAME"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 3, 3, 1}));
  ExpectValues((*out)[0], {37, 47, 21, 67, 77, 33, 23, 26, 9});
}

TEST(Conv2DTest, ExplicitPaddingUsesGivenBeforeAndAfter) {
  auto attrs = ConvAttrs("EXPLICIT");
  attrs["explicit_paddings"] = MakeAttr(std::vector<int64_t>{0, 0, 1, 0, 1, 0, 0, 0});
  auto out = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 3, 3, 1}));
  // Top-left window covers only x(0,0) under f(1,1) = 4.
  ExpectValues((*out)[0], {4, 11, 18, 18, 37, 47, 36, 67, 77});
}

TEST(Conv2DTest, StrideTwoSame) {
  auto out = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, ConvAttrs("SAME", 2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 2, 1}));
  ExpectValues((*out)[0], {37, 21, 23, 9});
}

TEST(Conv2DTest, DilationTwoSpreadsTheKernel) {
  auto valid = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, ConvAttrs("VALID", 1, 2));
  ASSERT_TRUE(valid.ok()) << valid.status().ToString();
  ExpectValues((*valid)[0], {1 * 1 + 3 * 2 + 7 * 3 + 9 * 4});
  // SAME with effective kernel 3: one pad each side; the centre is the VALID value.
  auto same = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, ConvAttrs("SAME", 1, 2));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ((*same)[0].shape(), Shape({1, 3, 3, 1}));
  EXPECT_FLOAT_EQ((*same)[0].data<float>()[4], 64);
  EXPECT_FLOAT_EQ((*same)[0].data<float>()[0], 5 * 4);
}

// Naive reference: out[b,oy,ox,oc] = sum x[b,iy,ix,ic] * f[ky,kx,ic,oc], VALID, stride 1.
std::vector<float> NaiveValidConv(const std::vector<float>& x, int h, int w, int c,
                                  const std::vector<float>& f, int kh, int kw, int oc) {
  const int oh = h - kh + 1, ow = w - kw + 1;
  std::vector<float> out(oh * ow * oc, 0.f);
  for (int y = 0; y < oh; ++y)
    for (int xx = 0; xx < ow; ++xx)
      for (int o = 0; o < oc; ++o) {
        double s = 0;
        for (int ky = 0; ky < kh; ++ky)
          for (int kx = 0; kx < kw; ++kx)
            for (int i = 0; i < c; ++i)
              s += x[((y + ky) * w + xx + kx) * c + i] * f[((ky * kw + kx) * c + i) * oc + o];
        out[(y * ow + xx) * oc + o] = static_cast<float>(s);
      }
  return out;
}

std::vector<float> Random(size_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Conv2DTest, MultiChannelMatchesNaiveReferenceAndThreadPool) {
  const auto x = Random(5 * 6 * 3, 1), f = Random(3 * 2 * 3 * 4, 2);
  const auto expected = NaiveValidConv(x, 5, 6, 3, f, 3, 2, 4);
  auto out = RunSingleOp("Conv2D", {F(x, Shape({1, 5, 6, 3})), F(f, Shape({3, 2, 3, 4}))},
                         ConvAttrs("VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 3, 5, 4}));
  ExpectValues((*out)[0], expected);
  ThreadPool pool(2);
  auto pooled = RunSingleOp("Conv2D", {F(x, Shape({1, 5, 6, 3})), F(f, Shape({3, 2, 3, 4}))},
                            ConvAttrs("VALID"), nullptr, &pool);
  ASSERT_TRUE(pooled.ok());
  EXPECT_TRUE(TensorsEqual((*out)[0], (*pooled)[0]));
}

TEST(Conv2DTest, NchwEqualsNhwcTransposed) {
  // Two channels: channel 0 = 1..9, channel 1 = 10 * (1..9); filter sums both.
  std::vector<float> nchw(18), nhwc(18);
  for (int i = 0; i < 9; ++i) {
    nchw[i] = i + 1;
    nchw[9 + i] = 10.f * (i + 1);
    nhwc[2 * i] = i + 1;
    nhwc[2 * i + 1] = 10.f * (i + 1);
  }
  const Tensor f = F({1, 1, 1, 1, 1, 1, 1, 1}, Shape({2, 2, 2, 1}));
  auto a = RunSingleOp("Conv2D", {F(nhwc, Shape({1, 3, 3, 2})), f}, ConvAttrs("VALID"));
  ir::AttrMap attrs = ConvAttrs("VALID");
  attrs["data_format"] = MakeAttr("NCHW");
  auto b = RunSingleOp("Conv2D", {F(nchw, Shape({1, 2, 3, 3})), f}, attrs);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString() << b.status().ToString();
  EXPECT_EQ((*b)[0].shape(), Shape({1, 1, 2, 2}));
  ExpectValues((*a)[0], {11 * 12, 11 * 16, 11 * 24, 11 * 28});
  ExpectValues((*b)[0], {11 * 12, 11 * 16, 11 * 24, 11 * 28});
}

TEST(Conv2DTest, GroupedConvolutionUsesEachGroupsChannels) {
  // 2 input channels, filter in_c 1 -> 2 groups; out_c 2 (one per group).
  const Tensor x = F({1, 10, 2, 20}, Shape({1, 1, 2, 2}));
  const Tensor f = F({1, 1, 3, 3}, Shape({1, 2, 1, 2}));  // [kw=2][in 1][out 2]
  auto out = RunSingleOp("Conv2D", {x, f}, ConvAttrs("VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // group 0: 1*1 + 2*3 = 7; group 1: 10*1 + 20*3 = 70.
  ExpectValues((*out)[0], {7, 70});
}

TEST(Conv2DTest, HalfInputComputesInFloatAndReturnsHalf) {
  Tensor x(DType::kHalf, Shape({1, 3, 3, 1}));
  Tensor f(DType::kHalf, Shape({2, 2, 1, 1}));
  for (int i = 0; i < 9; ++i) x.data<uint16_t>()[i] = FloatToHalf(i + 1.f);
  for (int i = 0; i < 4; ++i) f.data<uint16_t>()[i] = FloatToHalf(i + 1.f);
  auto attrs = ConvAttrs("VALID");
  attrs["T"] = MakeAttr(DType::kHalf);
  auto out = RunSingleOp("Conv2D", {x, f}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat((*out)[0].data<uint16_t>()[3]), 77.f);
}

TEST(Conv2DTest, DoubleComputesInDouble) {
  const Tensor x = Tensor::FromVector<double>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3, 1}));
  const Tensor f = Tensor::FromVector<double>({1, 2, 3, 4}, Shape({2, 2, 1, 1}));
  auto attrs = ConvAttrs("VALID");
  attrs["T"] = MakeAttr(DType::kDouble);
  auto out = RunSingleOp("Conv2D", {x, f}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0],
                           Tensor::FromVector<double>({37, 47, 67, 77}, Shape({1, 2, 2, 1}))));
}

TEST(Conv2DTest, IntegerDtypeIsAClearError) {
  const Tensor x(DType::kInt32, Shape({1, 3, 3, 1}));
  const Tensor f(DType::kInt32, Shape({2, 2, 1, 1}));
  auto attrs = ConvAttrs("VALID");
  attrs["T"] = MakeAttr(DType::kInt32);
  auto out = RunSingleOp("Conv2D", {x, f}, attrs);
  TFHOST_ASSERT_ERROR(
      out, StatusCode::kUnimplemented,
      "node 'test_Conv2D' (Conv2D): dtype int32 is not supported (expected float32, float64, float16 or bfloat16)");
  EXPECT_NE(out.status().message().find("int32"), std::string::npos) << out.status().message();
}

TEST(Conv2DTest, RejectsFilterOfWrongRank) {
  auto out = RunSingleOp("Conv2D", {Input3x3(), F({1, 2, 3, 4}, Shape({2, 2, 1}))},
                         ConvAttrs("VALID"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "filter must be 4-D [kh, kw, in_c, out_c], got shape [2,2,1]");
}

TEST(Conv2DTest, RejectsChannelMismatch) {
  const Tensor x(DType::kFloat, Shape({1, 3, 3, 3}));
  const Tensor f(DType::kFloat, Shape({2, 2, 2, 1}));
  auto out = RunSingleOp("Conv2D", {x, f}, ConvAttrs("VALID"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "input has 3 channels, which is not a multiple of the filter's in_c 2 (filter shape [2,2,2,1])");
}

TEST(Conv2DTest, RejectsAnInputWithoutChannels) {
  // Found by fuzzing: zero input channels made zero groups, then a division by zero.
  const Tensor x(DType::kFloat, Shape({1, 3, 3, 0}));
  const Tensor f(DType::kFloat, Shape({1, 1, 2, 4}));
  auto out = RunSingleOp("Conv2D", {x, f}, ConvAttrs("VALID"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "input has 0 channels; expected a positive multiple of the filter's in_c 2 (filter shape [1,1,2,4])");
}

TEST(Conv2DTest, RejectsBadPaddingString) {
  auto out = RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, ConvAttrs("FULL"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_Conv2D' (Conv2D): attr 'padding' is 'FULL', which is not one of its allowed values");
}

TEST(Conv2DTest, RejectsBadStridesAndExplicitPaddings) {
  auto attrs = ConvAttrs("VALID");
  attrs["strides"] = MakeAttr(std::vector<int64_t>{1, 1, 1});
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, attrs), StatusCode::kInvalidArgument,
                      "strides must have 4 entries, got [1, 1, 1]");
  attrs = ConvAttrs("VALID");
  attrs["strides"] = MakeAttr(std::vector<int64_t>{1, 0, 1, 1});
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, attrs), StatusCode::kInvalidArgument,
                      "strides and dilations must be in [1, 2^24], got strides [1, 0, 1, 1], dilations [1, 1, 1, 1]");
  attrs = ConvAttrs("EXPLICIT");
  attrs["explicit_paddings"] = MakeAttr(std::vector<int64_t>{0, 0, 1, 1});
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, attrs), StatusCode::kInvalidArgument,
                      "explicit_paddings must have 8 entries for EXPLICIT padding, got [0, 0, 1, 1]");
  attrs["explicit_paddings"] = MakeAttr(std::vector<int64_t>{0, 0, -1, 0, 0, 0, 0, 0});
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv2D", {Input3x3(), Filter2x2()}, attrs), StatusCode::kInvalidArgument,
                      "explicit_paddings must be in [0, 2^24], got [0, 0, -1, 0, 0, 0, 0, 0]");
}

TEST(Conv2DTest, RejectsKernelLargerThanValidInput) {
  const Tensor f(DType::kFloat, Shape({5, 5, 1, 1}));
  auto out = RunSingleOp("Conv2D", {Input3x3(), f}, ConvAttrs("VALID"));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "height: window of effective size 5 does not fit input size 3 (computed output size would be");
}

TEST(Conv2DTest, RejectsMissingInput) {
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv2D", {Input3x3()}, ConvAttrs("VALID")), StatusCode::kInvalidArgument,
                      "has 1 data inputs, but the schema of Conv2D expects 2 (input, filter)");
}

TEST(Conv2DBackpropInputTest, StrideTwoSpreadsEachGradientOverItsWindow) {
  // 2x2 ones filter, stride 2, VALID on a 4x4 input: the windows tile the
  // input, so each dy value lands on its own 2x2 block.
  const Tensor sizes = Tensor::FromVector<int32_t>({1, 4, 4, 1});
  const Tensor f = F({1, 1, 1, 1}, Shape({2, 2, 1, 1}));
  const Tensor dy = F({1, 2, 3, 4}, Shape({1, 2, 2, 1}));
  auto out = RunSingleOp("Conv2DBackpropInput", {sizes, f, dy}, ConvAttrs("VALID", 2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 4, 4, 1}));
  ExpectValues((*out)[0], {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(Conv2DBackpropInputTest, IsTheAdjointOfConv2D) {
  // <conv(x, f), dy> == <x, conv_backprop_input(dy, f)> for any x, dy.
  const auto xv = Random(1 * 5 * 5 * 2, 3), fv = Random(3 * 3 * 2 * 3, 4),
             dyv = Random(1 * 3 * 3 * 3, 5);
  const Tensor x = F(xv, Shape({1, 5, 5, 2})), f = F(fv, Shape({3, 3, 2, 3}));
  const Tensor dy = F(dyv, Shape({1, 3, 3, 3}));
  auto y = RunSingleOp("Conv2D", {x, f}, ConvAttrs("SAME", 2));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  ASSERT_EQ((*y)[0].shape(), dy.shape());
  auto dx = RunSingleOp("Conv2DBackpropInput",
                        {Tensor::FromVector<int32_t>({1, 5, 5, 2}), f, dy}, ConvAttrs("SAME", 2));
  ASSERT_TRUE(dx.ok()) << dx.status().ToString();
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < dy.NumElements(); ++i) lhs += (*y)[0].data<float>()[i] * dyv[i];
  for (int64_t i = 0; i < x.NumElements(); ++i) rhs += (*dx)[0].data<float>()[i] * xv[i];
  EXPECT_NEAR(lhs, rhs, 1e-4);
}

TEST(Conv2DBackpropInputTest, RejectsOutBackpropOfWrongSpatialSize) {
  const Tensor f(DType::kFloat, Shape({2, 2, 1, 1}));
  const Tensor dy(DType::kFloat, Shape({1, 3, 3, 1}));
  auto out = RunSingleOp("Conv2DBackpropInput",
                         {Tensor::FromVector<int32_t>({1, 4, 4, 1}), f, dy}, ConvAttrs("VALID", 2));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "out_backprop spatial size 3x3 does not match the forward conv output 2x2 for input_sizes [1,4,4,1]");
}

}  // namespace
}  // namespace tfhost::ops
