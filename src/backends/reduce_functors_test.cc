// The CUDA backend's reductions (cuda/reduce_functors.h): the indexing and
// the combining math, evaluated on the host one output element at a time as
// the generic kernel does, against the Sum, Mean, Max, Min and Prod reference
// kernels on random shapes, axes (negative ones too) and keep_dims.
#include "backends/cuda/reduce_functors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

bool Close(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= 2e-5f * std::max(1.0f, std::fabs(want));
}

TEST(ReduceFunctorsTest, RandomAxesMatchTheReferenceKernels) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(static_cast<int64_t>(rng() % 4));  // zeros included
    Tensor x(DType::kFloat, Shape(dims));
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = value(rng);
    if (x.NumElements() > 2 && trial % 10 == 0) x.data<float>()[1] = std::numeric_limits<float>::quiet_NaN();
    std::vector<int64_t> axes;
    for (int d = 0; d < rank; ++d) {
      if (rng() % 2) axes.push_back(rng() % 2 ? d : d - rank);
    }
    if (axes.empty()) axes.push_back(rank - 1);  // no axes is the identity, which the kernel returns without indexing
    const bool keep_dims = rng() % 2 == 0;
    for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod"}) {
      ReduceOp op = ReduceOp::kSum;
      ASSERT_TRUE(ReduceOpOf(name, &op));
      auto ref = ops::RunSingleOp(name, {x, Tensor::FromVector<int64_t>(axes)},
                                  {{"T", ops::MakeAttr(DType::kFloat)},
                                   {"Tidx", ops::MakeAttr(DType::kInt64)},
                                   {"keep_dims", ops::MakeAttr(keep_dims)}});
      std::string what = std::string(name) + " of " + x.shape().ToString() + " over [";
      for (int64_t a : axes) what += std::to_string(a) + " ";
      what += keep_dims ? "] keep_dims" : "]";
      ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
      Shape out;
      auto p = MakeReduceIndexing(x.shape(), axes, keep_dims, &out);
      ASSERT_TRUE(p.ok()) << what << ": " << p.status().ToString();
      ASSERT_EQ(out, (*ref)[0].shape()) << what;
      ASSERT_EQ(p->outputs, out.num_elements()) << what;
      for (int64_t o = 0; o < p->outputs; ++o) {
        const float got = ReduceOne(op, *p, x.data<float>(), o);
        const float want = (*ref)[0].data<float>()[o];
        ASSERT_TRUE(Close(got, want)) << what << " at " << o << ": " << got << ", reference " << want;
        if (p->rows) {  // the row kernel's contiguous range holds the same inputs
          ASSERT_EQ(ReduceBase(*p, o), o * p->count) << what;
        }
      }
    }
  }
}

TEST(ReduceFunctorsTest, ATrailingRunOfReducedDimsIsARowReduction) {
  Shape out;
  auto last = MakeReduceIndexing(Shape({4, 5, 6}), {-1}, false, &out);
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->rows);
  EXPECT_EQ(last->count, 6);
  auto two = MakeReduceIndexing(Shape({4, 5, 6}), {1, 2}, true, &out);
  ASSERT_TRUE(two.ok());
  EXPECT_TRUE(two->rows);
  EXPECT_EQ(out, Shape({4, 1, 1}));
  auto middle = MakeReduceIndexing(Shape({2, 7, 7, 3}), {1, 2}, false, &out);  // NHWC global pooling
  ASSERT_TRUE(middle.ok());
  EXPECT_FALSE(middle->rows);
  EXPECT_EQ(out, Shape({2, 3}));
}

TEST(ReduceFunctorsTest, BadAxesAreRefusedNamingThem) {
  Shape out;
  TFHOST_EXPECT_ERROR(MakeReduceIndexing(Shape({2, 3}), {2}, false, &out), StatusCode::kInvalidArgument,
                      "Invalid reduction dimension (2 for input with 2 dimension(s)");
  TFHOST_EXPECT_ERROR(MakeReduceIndexing(Shape({2, 3}), {1, -1}, false, &out), StatusCode::kInvalidArgument,
                      "Axes contains duplicate dimension: -1");
}

}  // namespace
}  // namespace tfhost::backends::cuda
