#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using testing::InferShape;

using C = std::complex<float>;

Tensor Complex64(std::vector<C> v, Shape shape) {
  Tensor t(DType::kComplex64, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    t.data<float>()[2 * i] = v[i].real();
    t.data<float>()[2 * i + 1] = v[i].imag();
  }
  return t;
}
C At(const Tensor& t, int64_t i) { return {t.data<float>()[2 * i], t.data<float>()[2 * i + 1]}; }
Tensor Lengths(std::vector<int32_t> v) { return Tensor::FromVector(v); }

Tensor RunOk(const std::string& op, std::vector<Tensor> in) {
  auto out = RunSingleOp(op, std::move(in));
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

// Real input as complex, for comparing RFFT2D with FFT2D.
Tensor AsComplex(const Tensor& real) {
  Tensor t(DType::kComplex64, real.shape());
  for (int64_t i = 0; i < real.NumElements(); ++i) t.data<float>()[2 * i] = real.data<float>()[i];
  return t;
}

std::vector<float> Ramp(int n, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7) % 11) - 2.5f;
  return v;
}

// [[1, 2], [3, 4]]: X[0,0] = 10, X[0,1] = (1-2)+(3-4) = -2, X[1,0] = (1+2)-(3+4) = -4,
// X[1,1] = (1-2)-(3-4) = 0.
TEST(FftNdOpsTest, Fft2dOfATwoByTwoMatchesHandComputedSums) {
  Tensor y = RunOk("FFT2D", {Complex64({1, 2, 3, 4}, Shape({2, 2}))});
  ASSERT_TRUE(y.valid());
  EXPECT_EQ(At(y, 0), C(10, 0));
  EXPECT_EQ(At(y, 1), C(-2, 0));
  EXPECT_EQ(At(y, 2), C(-4, 0));
  EXPECT_EQ(At(y, 3), C(0, 0));
}

TEST(FftNdOpsTest, InverseUndoesForwardForOddSizesAndBatches) {
  std::vector<C> v;
  for (int i = 0; i < 2 * 3 * 5; ++i) v.push_back(C(0.1f * i - 1, 0.05f * ((i * 3) % 7)));
  Tensor x = Complex64(v, Shape({2, 3, 5}));
  for (const char* pair : {"2D", "3D"}) {
    Tensor back = RunOk(std::string("IFFT") + pair, {RunOk(std::string("FFT") + pair, {x})});
    ASSERT_TRUE(back.valid());
    ASSERT_EQ(back.shape(), x.shape());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      EXPECT_NEAR(At(back, i).real(), v[i].real(), 1e-5) << pair << " " << i;
      EXPECT_NEAR(At(back, i).imag(), v[i].imag(), 1e-5) << pair << " " << i;
    }
  }
}

TEST(FftNdOpsTest, Rfft2dKeepsTheFirstHalfOfTheFullSpectrum) {
  Tensor x = Tensor::FromVector(Ramp(3 * 6, 0.5f), Shape({3, 6}));
  Tensor half = RunOk("RFFT2D", {x, Lengths({3, 6})});
  Tensor full = RunOk("FFT2D", {AsComplex(x)});
  ASSERT_TRUE(half.valid() && full.valid());
  ASSERT_EQ(half.shape(), Shape({3, 4}));
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(std::abs(At(half, r * 4 + k) - At(full, r * 6 + k)), 0.0, 1e-4) << r << "," << k;
    }
  }
}

TEST(FftNdOpsTest, Rfft2dCropsAndPadsEachAxisToFftLength) {
  // [2, 6] -> lengths [3, 4]: rows padded to 3, columns cropped to 4.
  std::vector<float> v = Ramp(12, 1.0f);
  Tensor x = Tensor::FromVector(v, Shape({2, 6}));
  std::vector<float> resized(12, 0.0f);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 4; ++c) resized[r * 4 + c] = v[r * 6 + c];
  }
  Tensor half = RunOk("RFFT2D", {x, Lengths({3, 4})});
  Tensor want = RunOk("RFFT2D", {Tensor::FromVector(resized, Shape({3, 4})), Lengths({3, 4})});
  ASSERT_TRUE(half.valid() && want.valid());
  ASSERT_EQ(half.shape(), Shape({3, 3}));
  for (int64_t i = 0; i < 9; ++i) EXPECT_NEAR(std::abs(At(half, i) - At(want, i)), 0.0, 1e-5) << i;
}

TEST(FftNdOpsTest, IrfftUndoesRfftForEvenAndOddLastAxes) {
  for (int last : {6, 5}) {
    for (int d : {2, 3}) {
      const Shape shape = d == 2 ? Shape({3, last}) : Shape({2, 3, last});
      std::vector<int32_t> lengths = d == 2 ? std::vector<int32_t>{3, last} : std::vector<int32_t>{2, 3, last};
      std::vector<float> v = Ramp(static_cast<int>(shape.num_elements()), 0.25f);
      Tensor x = Tensor::FromVector(v, shape);
      const std::string sfx = std::to_string(d) + "D";
      Tensor back = RunOk("IRFFT" + sfx, {RunOk("RFFT" + sfx, {x, Lengths(lengths)}), Lengths(lengths)});
      ASSERT_TRUE(back.valid());
      ASSERT_EQ(back.shape(), shape);
      for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(back.data<float>()[i], v[i], 1e-5) << sfx << " " << last;
    }
  }
}

TEST(FftNdOpsTest, BadInputsGiveClearErrors) {
  auto rank = RunSingleOp("FFT2D", {Complex64({1, 2}, Shape({2}))});
  TFHOST_ASSERT_ERROR(rank, StatusCode::kInvalidArgument, "input must have rank at least 2, got shape [2]");
  Tensor x = Tensor::FromVector(std::vector<float>{1, 2, 3, 4}, Shape({2, 2}));
  auto count = RunSingleOp("RFFT2D", {x, Lengths({2})});
  TFHOST_ASSERT_ERROR(count, StatusCode::kInvalidArgument, "fft_length must be a vector of 2 elements, got shape [1]");
  auto negative = RunSingleOp("IRFFT2D", {Complex64({1, 2, 3, 4}, Shape({2, 2})), Lengths({2, -2})});
  TFHOST_ASSERT_ERROR(negative, StatusCode::kInvalidArgument, "fft_length entry -2 is out of range");
  auto huge = RunSingleOp("RFFT3D", {Tensor::FromVector(std::vector<float>{1}, Shape({1, 1, 1})),
                                     Lengths({1 << 20, 1 << 20, 2})});
  TFHOST_EXPECT_ERROR(huge, StatusCode::kInvalidArgument,
                      "output: shape [1048576,1048576,2] has more than 1099511627776 elements");
}

using ir::PartialShape;

TEST(FftNdOpsTest, ShapeFunctionsFollowFftLength) {
  Tensor lengths = Lengths({6, 10});
  auto rfft = InferShape("RFFT2D", {PartialShape::Known({2, 5, 9}), PartialShape::Known({2})}, {nullptr, &lengths}, 1);
  EXPECT_EQ(rfft[0], PartialShape::Known({2, 6, 6}));
  auto irfft = InferShape("IRFFT2D", {PartialShape::Known({2, 5, 9}), PartialShape::Known({2})}, {nullptr, &lengths}, 1);
  EXPECT_EQ(irfft[0], PartialShape::Known({2, 6, 10}));
  auto unknown = InferShape("RFFT3D", {PartialShape::Known({1, 2, 3}), PartialShape::Known({3})}, {}, 1);
  EXPECT_EQ(unknown[0], PartialShape::Known({-1, -1, -1}));
  auto fft = InferShape("IFFT3D", {PartialShape::Known({1, 2, 3})}, {}, 1);
  EXPECT_EQ(fft[0], PartialShape::Known({1, 2, 3}));
}

}  // namespace
}  // namespace tfhost::ops
