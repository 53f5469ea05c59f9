// The CUDA backend's normalization math (cuda/norm_functors.h) composed on
// the host as norm_kernels.cu and softmax_kernels.cu compose it, the row
// kernels' operands read through the indexing they use
// (cuda/row_operands.h, MakeRowOperands), and compared with the ops'
// reference kernels: layer norms with broadcast residuals, masked softmaxes
// with broadcast masks and fills, and inference batch norm.
#include "backends/cuda/norm_functors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/cuda/broadcast_shape.h"
#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

// Values that vary with i (deterministic), some far from the row's mean.
std::vector<float> Ramp(int64_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>((i * 37) % 23 - 11);
  return v;
}

// norm_kernels.cu's arithmetic, in float, on the host: x (operand 0) or
// x + b (operand 1) through `s`.
std::vector<float> LayerNormOnHost(const RowOperands& s, const float* x, const float* b, const float* gamma,
                                   const float* beta, float epsilon, int64_t rows, int64_t cols) {
  std::vector<float> y(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + RowStart(s, 0, r);
    const float* br = b != nullptr ? b + RowStart(s, 1, r) : nullptr;
    auto value = [&](int64_t j) {
      return br != nullptr ? xr[j * RowStep(s, 0)] + br[j * RowStep(s, 1)] : xr[j * RowStep(s, 0)];
    };
    float sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += value(j);
    const float mean = sum / static_cast<float>(cols);
    float squares = 0;
    for (int64_t j = 0; j < cols; ++j) squares += (value(j) - mean) * (value(j) - mean);
    const float inv_std = LayerNormInvStd(squares / static_cast<float>(cols), epsilon);
    for (int64_t j = 0; j < cols; ++j) y[r * cols + j] = LayerNormOut(value(j), mean, inv_std, gamma[j], beta[j]);
  }
  return y;
}

// Within `tolerance` of each wanted value, relative to the larger of it and
// `scale`: the size of the terms a result is the difference of (a
// normalization's x * m before the shift cancels most of it), which bounds
// the float rounding of any order of operations.
void ExpectClose(const std::vector<float>& got, const Tensor& want, float tolerance, const std::string& what,
                 float scale = 1.0f) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.NumElements()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const float w = want.data<float>()[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": " << got[i];
      continue;
    }
    EXPECT_NEAR(got[i], w, tolerance * std::max(scale, std::fabs(w))) << what << " at " << i;
  }
}

TEST(NormFunctorsTest, LayerNormMatchesTheReferenceKernel) {
  const int64_t rows = 6, cols = 48;
  // Rows of small spread about a large mean: the two-pass variance keeps them.
  const std::vector<float> x = Ramp(rows * cols, 0.25f, 1000.0f);
  const std::vector<float> gamma = Ramp(cols, 0.1f, 1.0f), beta = Ramp(cols, 0.05f, -0.5f);
  const float epsilon = 1e-3f;
  Shape out;
  auto s = MakeRowOperands({Shape({2, 3, cols})}, &out);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(out, Shape({2, 3, cols}));
  auto ref = ops::RunSingleOp("_TfhostLayerNorm",
                              {Tensor::FromVector(x, out), Tensor::FromVector(gamma), Tensor::FromVector(beta)},
                              {{"T", ops::MakeAttr(DType::kFloat)}, {"epsilon", ops::MakeAttr(epsilon)}});
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  // x * m is about 1000 * gamma / sigma (sigma about 1.6): up to about 1300.
  ExpectClose(LayerNormOnHost(*s, x.data(), nullptr, gamma.data(), beta.data(), epsilon, rows, cols), (*ref)[0],
              1e-6f, "_TfhostLayerNorm", 1300.0f);
}

TEST(NormFunctorsTest, AddLayerNormMatchesTheReferenceKernelWithTheResidualBroadcast) {
  const int64_t cols = 32;
  const std::vector<float> gamma = Ramp(cols, 0.1f, 1.0f), beta = Ramp(cols, 0.05f, 0.5f);
  const float epsilon = 1e-6f;
  // Equal shapes (BERT's residual), a per-channel b, a per-row b, and a
  // broadcast a.
  const std::vector<std::pair<Shape, Shape>> cases = {{Shape({4, cols}), Shape({4, cols})},
                                                      {Shape({2, 2, cols}), Shape({cols})},
                                                      {Shape({4, cols}), Shape({4, 1})},
                                                      {Shape({1, cols}), Shape({3, 1, 1})}};
  for (const auto& [as, bs] : cases) {
    SCOPED_TRACE(as.ToString() + " + " + bs.ToString());
    const std::vector<float> a = Ramp(as.num_elements(), 0.5f, 2.0f), b = Ramp(bs.num_elements(), -0.75f, 1.0f);
    Shape out;
    auto s = MakeRowOperands({as, bs}, &out);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto ref = ops::RunSingleOp("_TfhostAddLayerNorm",
                                {Tensor::FromVector(a, as), Tensor::FromVector(b, bs), Tensor::FromVector(gamma),
                                 Tensor::FromVector(beta)},
                                {{"T", ops::MakeAttr(DType::kFloat)}, {"epsilon", ops::MakeAttr(epsilon)}});
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    ASSERT_EQ((*ref)[0].shape(), out);
    ExpectClose(LayerNormOnHost(*s, a.data(), b.data(), gamma.data(), beta.data(), epsilon,
                                out.num_elements() / cols, cols),
                (*ref)[0], 2e-5f, "_TfhostAddLayerNorm");
  }
}

// softmax_kernels.cu's masked rows on the host.
std::vector<float> MaskedSoftmaxOnHost(const RowOperands& s, const float* logits, const std::vector<bool>& mask,
                                       const float* fill, bool zero_masked, int64_t rows, int64_t cols) {
  std::vector<float> y(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t l0 = RowStart(s, 0, r), m0 = RowStart(s, 1, r), f0 = RowStart(s, 2, r);
    auto keep = [&](int64_t j) { return static_cast<bool>(mask[m0 + j * RowStep(s, 1)]); };
    auto v = [&](int64_t j) {
      return MaskedLogit(keep(j), logits[l0 + j * RowStep(s, 0)], fill[f0 + j * RowStep(s, 2)]);
    };
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < cols; ++j) m = SoftmaxMax(m, v(j));
    float sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += SoftmaxTerm(v(j), m);
    for (int64_t j = 0; j < cols; ++j) y[r * cols + j] = MaskedSoftmaxOut(keep(j), zero_masked, v(j), m, sum);
  }
  return y;
}

TEST(NormFunctorsTest, MaskedSoftmaxMatchesTheReferenceKernelWithBroadcastMasksAndFills) {
  const float lowest = std::numeric_limits<float>::lowest();
  struct Case {
    Shape logits, mask, fill;
    float fill_value;
  };
  // Attention's [batch, heads, queries, keys] scores with a padding mask of
  // [batch, 1, 1, keys] and a full [batch, 1, queries, keys] one, Keras's
  // -1e9 fill and the lowest float; a per-row fill; logits broadcast by the
  // mask.
  const std::vector<Case> cases = {{Shape({2, 3, 4, 5}), Shape({2, 1, 1, 5}), Shape({}), -1e9f},
                                   {Shape({2, 3, 4, 5}), Shape({2, 1, 4, 5}), Shape({}), lowest},
                                   {Shape({3, 6}), Shape({3, 6}), Shape({3, 1}), -2.0f},
                                   {Shape({1, 7}), Shape({4, 7}), Shape({1}), -1e4f}};
  for (const Case& c : cases) {
    for (bool zero_masked : {false, true}) {
      SCOPED_TRACE(c.logits.ToString() + " mask " + c.mask.ToString() + " fill " + c.fill.ToString() +
                   (zero_masked ? " zero_masked" : ""));
      const std::vector<float> logits = Ramp(c.logits.num_elements(), 0.3f, 0.0f);
      std::vector<bool> mask(c.mask.num_elements());
      // Every third position masked; in the last case also the mask's whole
      // first row (a fully masked row: the softmax of the fills).
      const size_t masked_prefix = c.mask == Shape({4, 7}) ? 7 : 0;
      for (size_t i = 0; i < mask.size(); ++i) mask[i] = i % 3 != 1 && i >= masked_prefix;
      std::vector<float> fill(c.fill.num_elements());
      for (size_t i = 0; i < fill.size(); ++i) fill[i] = c.fill_value * static_cast<float>(i + 1);
      Shape out;
      auto s = MakeRowOperands({c.logits, c.mask, c.fill}, &out);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      auto ref = ops::RunSingleOp("_TfhostMaskedSoftmax",
                                  {Tensor::FromVector(logits, c.logits), Tensor::FromVector(mask, c.mask),
                                   Tensor::FromVector(fill, c.fill)},
                                  {{"T", ops::MakeAttr(DType::kFloat)}, {"zero_masked", ops::MakeAttr(zero_masked)}});
      ASSERT_TRUE(ref.ok()) << ref.status().ToString();
      ASSERT_EQ((*ref)[0].shape(), out);
      const int64_t cols = out.dim(out.rank() - 1);
      ExpectClose(MaskedSoftmaxOnHost(*s, logits.data(), mask, fill.data(), zero_masked, out.num_elements() / cols,
                                      cols),
                  (*ref)[0], 4e-6f, "_TfhostMaskedSoftmax");
    }
  }
}

TEST(NormFunctorsTest, InferenceBatchNormMatchesTheReferenceKernel) {
  const int64_t channels = 5;
  const Shape shape({2, 3, 4, channels});
  const std::vector<float> x = Ramp(shape.num_elements(), 0.7f, 3.0f);
  // Variances from tiny (epsilon dominates) to large.
  const std::vector<float> scale = {1.5f, -0.5f, 2.0f, 0.0f, 1.0f}, offset = {0.1f, -2.0f, 0.0f, 5.0f, 1e3f};
  const std::vector<float> mean = {3.0f, -1.0f, 0.5f, 100.0f, 0.0f}, variance = {1e-6f, 4.0f, 0.25f, 9.0f, 1e4f};
  const float epsilon = 1e-3f;
  auto ref = ops::RunSingleOp("FusedBatchNormV3",
                              {Tensor::FromVector(x, shape), Tensor::FromVector(scale), Tensor::FromVector(offset),
                               Tensor::FromVector(mean), Tensor::FromVector(variance)},
                              {{"T", ops::MakeAttr(DType::kFloat)},
                               {"U", ops::MakeAttr(DType::kFloat)},
                               {"epsilon", ops::MakeAttr(epsilon)},
                               {"is_training", ops::MakeAttr(false)},
                               {"data_format", ops::MakeAttr("NHWC")}});
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  std::vector<float> got(x.size());
  float largest_term = 1.0f;  // |x * m|, which the shift cancels
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = i % channels;
    const float m = BatchNormMultiplier(scale[c], variance[c], epsilon);
    got[i] = BatchNormOut(x[i], m, offset[c], mean[c]);
    largest_term = std::max(largest_term, std::fabs(x[i] * m));
  }
  ExpectClose(got, (*ref)[0], 1e-6f, "FusedBatchNormV3", largest_term);
}

TEST(NormFunctorsTest, RowOperandsStepAlongTheRowOnlyWhereTheOperandHasTheLastDim) {
  Shape out;
  auto s = MakeRowOperands({Shape({2, 3, 4}), Shape({2, 1, 4}), Shape({3, 1})}, &out);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(out, Shape({2, 3, 4}));
  EXPECT_EQ(RowStep(*s, 0), 1);
  EXPECT_EQ(RowStep(*s, 1), 1);
  EXPECT_EQ(RowStep(*s, 2), 0);
  // Row 4 is [1, 1, :]: x at 16, the mask's [1, 0, :] at 4, the fill's [1, 0] at 1.
  EXPECT_EQ(RowStart(*s, 0, 4), 16);
  EXPECT_EQ(RowStart(*s, 1, 4), 4);
  EXPECT_EQ(RowStart(*s, 2, 4), 1);
}

TEST(NormFunctorsTest, RowOperandsRefuseShapesThatDoNotBroadcastOrHaveTooManyDims) {
  Shape out;
  TFHOST_EXPECT_ERROR(MakeRowOperands({Shape({2, 5}), Shape({2, 1}), Shape({3})}, &out).status(),
                      StatusCode::kInvalidArgument, "Incompatible shapes: [2,5] vs. [2,1] vs. [3]");
  TFHOST_EXPECT_ERROR(MakeRowOperands({Shape(std::vector<int64_t>(9, 1)), Shape({1})}, &out).status(),
                      StatusCode::kInvalidArgument,
                      "cannot broadcast [1,1,1,1,1,1,1,1,1] and [1] on the GPU: at most 8 dims");
  TFHOST_EXPECT_ERROR(MakeRowOperands({}, &out).status(), StatusCode::kInvalidArgument,
                      "a row kernel takes 1 to 3 operands, got 0");
}

}  // namespace
}  // namespace tfhost::backends::cuda
