// The CUDA backend's Softmax and LogSoftmax math (cuda/softmax_functors.h),
// composed on the host in the kernel's three steps and compared with the
// ops' reference kernels, rows of extreme values included.
#include "backends/cuda/softmax_functors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

std::vector<float> SoftmaxOnHost(bool log, const std::vector<float>& x, int64_t cols) {
  std::vector<float> y(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    const float* xr = x.data() + r * cols;
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < cols; ++i) m = SoftmaxMax(m, xr[i]);
    float s = 0;
    for (int64_t i = 0; i < cols; ++i) s += SoftmaxTerm(xr[i], m);
    for (int64_t i = 0; i < cols; ++i) y[r * cols + i] = SoftmaxOut(log, xr[i], m, s);
  }
  return y;
}

TEST(SoftmaxFunctorsTest, SoftmaxAndLogSoftmaxMatchTheReferenceKernelsRowByRow) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t cols = 6;
  const std::vector<float> x = {1, 2, 3, 4, 5, 6,                     // ordinary
                                -1000, 1000, 0, 1, 999, -5,           // huge logits stay finite
                                0, 0, 0, 0, 0, 0,                     // uniform
                                -inf, 0, 1, -inf, 2, -inf,            // masked positions
                                nan, 1, 2, 3, 4, 5,                   // NaN poisons its row only
                                1e-8f, -1e-8f, 88, 87.5f, -88, 3};
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const bool log = std::string(op) == "LogSoftmax";
    auto logits = Tensor::FromVector(x).Reshaped(Shape({6, cols}));
    ASSERT_TRUE(logits.ok());
    auto ref = ops::RunSingleOp(op, {*logits},
                                {{"T", ops::MakeAttr(DType::kFloat)}});
    ASSERT_TRUE(ref.ok()) << op << ": " << ref.status().ToString();
    const std::vector<float> got = SoftmaxOnHost(log, x, cols);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = (*ref)[0].data<float>()[i];
      if (std::isnan(want) || std::isinf(want)) {
        EXPECT_TRUE(std::isnan(want) ? std::isnan(got[i]) : got[i] == want) << op << " at " << i << ": " << got[i];
        continue;
      }
      EXPECT_NEAR(got[i], want, 4e-6f * std::max(1.0f, std::fabs(want))) << op << " at " << i;
    }
  }
}

}  // namespace
}  // namespace tfhost::backends::cuda
