// The CUDA backend's GEMM plans (cuda/gemm_plan.h), evaluated on the host by
// a column-major GEMM that follows cuBLASLt's documented semantics (layouts
// of rows, cols and ld; ops applied to the stored matrices; strided batches),
// and compared with the MatMul and BatchMatMulV2 reference kernels: the
// layout the GPU is asked for is the product TensorFlow defines.
#include "backends/cuda/gemm_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

// D = op(A) op(B) as cuBLASLt computes it, one product at a time, after
// checking each layout the way the library does (the stored matrix is
// rows x cols with ld >= rows, and its op gives the product's dims).
void ColumnMajorGemm(const GemmPlan& p, const float* a, const float* b, float* d) {
  ASSERT_EQ(p.a.transpose ? p.a.cols : p.a.rows, p.m);
  ASSERT_EQ(p.a.transpose ? p.a.rows : p.a.cols, p.k);
  ASSERT_EQ(p.b.transpose ? p.b.cols : p.b.rows, p.k);
  ASSERT_EQ(p.b.transpose ? p.b.rows : p.b.cols, p.n);
  ASSERT_GE(p.a.ld, p.a.rows);
  ASSERT_GE(p.b.ld, p.b.rows);
  ASSERT_GE(p.d_ld, p.m);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0;
      for (int64_t q = 0; q < p.k; ++q) {
        const float av = p.a.transpose ? a[q + i * p.a.ld] : a[i + q * p.a.ld];
        const float bv = p.b.transpose ? b[j + q * p.b.ld] : b[q + j * p.b.ld];
        sum += static_cast<double>(av) * bv;
      }
      d[i + j * p.d_ld] = static_cast<float>(sum);
    }
  }
}

// The whole plan: one strided-batched call, or its list of calls.
std::vector<float> RunPlan(const GemmPlan& p, const Tensor& x, const Tensor& y) {
  std::vector<float> out(static_cast<size_t>(p.out_shape.num_elements()), -1.0f);
  const float* xd = x.data<float>();
  const float* yd = y.data<float>();
  if (p.calls.empty()) {
    for (int64_t i = 0; i < p.batch; ++i) {
      ColumnMajorGemm(p, yd + i * p.a.batch_stride, xd + i * p.b.batch_stride, out.data() + i * p.d_batch_stride);
    }
  } else {
    EXPECT_EQ(p.batch, 1);
    for (const GemmPlan::Call& c : p.calls) {
      ColumnMajorGemm(p, yd + c.y_offset, xd + c.x_offset, out.data() + c.out_offset);
    }
  }
  return out;
}

Tensor Filled(const std::vector<int64_t>& dims, float scale) {
  Tensor t(DType::kFloat, Shape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = scale * static_cast<float>((i * 7) % 13) - 3;
  return t;
}

struct Case {
  std::vector<int64_t> x, y;
  bool adj_x, adj_y;
  const char* form;  // what the plan should choose: "strided", "folded", "calls"
};

TEST(GemmPlanTest, EveryPlanComputesWhatTheReferenceKernelsCompute) {
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, false, false, "strided"},       {{4, 3}, {4, 5}, true, false, "strided"},
      {{3, 4}, {5, 4}, false, true, "strided"},        {{4, 3}, {5, 4}, true, true, "strided"},
      {{1, 4}, {4, 1}, false, false, "strided"},       {{2, 3, 4}, {2, 4, 5}, false, false, "strided"},
      {{2, 4, 3}, {2, 5, 4}, true, true, "strided"},   {{2, 3, 4}, {4, 5}, false, false, "folded"},
      {{2, 3, 3, 4}, {1, 1, 5, 4}, false, true, "folded"}, {{2, 4, 3}, {4, 5}, true, false, "calls"},
      {{3, 4}, {2, 4, 5}, false, false, "calls"},      {{2, 1, 3, 4}, {1, 3, 4, 2}, false, false, "calls"},
      {{1, 3, 4}, {3, 4, 2}, false, false, "calls"},   {{2, 2, 3, 4}, {2, 2, 5, 4}, false, true, "strided"},
  };
  for (const Case& c : cases) {
    const Tensor x = Filled(c.x, 0.5f), y = Filled(c.y, 0.25f);
    // The reference forms: MatMul for 2-D, BatchMatMulV2 otherwise.
    const bool two_d = c.x.size() == 2 && c.y.size() == 2;
    auto ref = two_d ? ops::RunSingleOp("MatMul", {x, y},
                                        {{"T", ops::MakeAttr(DType::kFloat)},
                                         {"transpose_a", ops::MakeAttr(c.adj_x)},
                                         {"transpose_b", ops::MakeAttr(c.adj_y)}})
                     : ops::RunSingleOp("BatchMatMulV2", {x, y},
                                        {{"T", ops::MakeAttr(DType::kFloat)},
                                         {"adj_x", ops::MakeAttr(c.adj_x)},
                                         {"adj_y", ops::MakeAttr(c.adj_y)}});
    const std::string what = x.shape().ToString() + (c.adj_x ? "^T" : "") + " x " + y.shape().ToString() +
                             (c.adj_y ? "^T" : "");
    ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
    auto plan = MakeGemmPlan(x.shape(), y.shape(), c.adj_x, c.adj_y);
    ASSERT_TRUE(plan.ok()) << what << ": " << plan.status().ToString();
    ASSERT_EQ(plan->out_shape, (*ref)[0].shape()) << what;
    const int64_t rows = c.adj_x ? c.x.back() : c.x[c.x.size() - 2];  // M
    const std::string form = !plan->calls.empty() ? "calls" : (plan->n > rows ? "folded" : "strided");
    EXPECT_EQ(form, c.form) << what;
    const std::vector<float> got = RunPlan(*plan, x, y);
    for (int64_t i = 0; i < (*ref)[0].NumElements(); ++i) {
      EXPECT_FLOAT_EQ(got[i], (*ref)[0].data<float>()[i]) << what << " at " << i;
    }
  }
}

TEST(GemmPlanTest, MismatchedInnerOrBatchDimsAreRefusedQuotingBothShapes) {
  TFHOST_EXPECT_ERROR(MakeGemmPlan(Shape({3, 4}), Shape({5, 6}), false, false), StatusCode::kInvalidArgument,
                      "incompatible inner dims: [3,4] and [5,6]");
  TFHOST_EXPECT_ERROR(MakeGemmPlan(Shape({3, 4}), Shape({5, 4}), true, false), StatusCode::kInvalidArgument,
                      "[3,4] (adjoint) and [5,4]");
  TFHOST_EXPECT_ERROR(MakeGemmPlan(Shape({2, 3, 4}), Shape({3, 4, 5}), false, false),
                      StatusCode::kInvalidArgument, "compatible batch dimensions: [2,3,4] vs. [3,4,5]");
  TFHOST_EXPECT_ERROR(MakeGemmPlan(Shape({4}), Shape({4, 5}), false, false), StatusCode::kInvalidArgument,
                      "at least 2-D, got [4] and [4,5]");
}

TEST(GemmPlanTest, AnEmptyBatchPlansNoProduct) {
  auto plan = MakeGemmPlan(Shape({0, 3, 4}), Shape({4, 5}), false, false);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->out_shape, Shape({0, 3, 5}));
  EXPECT_EQ(plan->out_shape.num_elements(), 0);
}

}  // namespace
}  // namespace tfhost::backends::cuda
