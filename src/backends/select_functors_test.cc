// The CUDA backend's SelectV2 indexing (cuda/row_operands.h,
// RowOperandOffset over MakeRowOperands) composed on the host as
// select_kernels.cu composes it, one output element at a time, and
// compared with the reference kernel: attention masks broadcast over heads
// and queries, a scalar fill, a per-row condition, three scalars.
#include <gtest/gtest.h>

#include <vector>

#include "backends/cuda/broadcast_shape.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

TEST(SelectFunctorsTest, EveryOutputReadsTheOperandsTheReferenceKernelReads) {
  struct Case {
    Shape condition, t, e;
  };
  const std::vector<Case> cases = {{Shape({2, 1, 1, 5}), Shape({2, 3, 4, 5}), Shape({})},
                                   {Shape({2, 1, 4, 5}), Shape({2, 3, 4, 5}), Shape({2, 3, 4, 5})},
                                   {Shape({3, 1}), Shape({3, 6}), Shape({6})},
                                   {Shape({4}), Shape({}), Shape({4})},
                                   {Shape({}), Shape({}), Shape({})}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.condition.ToString() + " " + c.t.ToString() + " " + c.e.ToString());
    std::vector<bool> condition(c.condition.num_elements());
    for (size_t i = 0; i < condition.size(); ++i) condition[i] = (i * 7) % 3 != 0;
    std::vector<float> t(c.t.num_elements()), e(c.e.num_elements());
    for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i) + 0.5f;
    for (size_t i = 0; i < e.size(); ++i) e[i] = -static_cast<float>(i) - 1000.0f;
    auto ref = ops::RunSingleOp("SelectV2",
                                {Tensor::FromVector(condition, c.condition), Tensor::FromVector(t, c.t),
                                 Tensor::FromVector(e, c.e)},
                                {{"T", ops::MakeAttr(DType::kFloat)}});
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    Shape out;
    auto s = MakeRowOperands({c.condition, c.t, c.e}, &out);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_EQ((*ref)[0].shape(), out);
    if (out.rank() == 0) {  // as select_ops.cc runs three scalars
      Shape one;
      s = MakeRowOperands({Shape({1}), Shape({1}), Shape({1})}, &one);
      ASSERT_TRUE(s.ok());
    }
    const int64_t cols = out.rank() == 0 ? 1 : out.dim(out.rank() - 1);
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      const float got = condition[RowOperandOffset(*s, 0, i, cols)] ? t[RowOperandOffset(*s, 1, i, cols)]
                                                                     : e[RowOperandOffset(*s, 2, i, cols)];
      EXPECT_EQ(got, (*ref)[0].data<float>()[i]) << "at " << i;
    }
  }
}

}  // namespace
}  // namespace tfhost::backends::cuda
