#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "ops/nn/lstm_cell.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

TEST(SimdLstmCellTest, MatchesReferenceOverUnitCountsAndBroadcastRows) {
  const ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)}};
  for (int64_t u : {1, 7, 8, 16, 17, 33, 256}) {
    for (auto [bx, by, bc] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 1, 1}, {3, 3, 3}, {1, 3, 1}, {3, 1, 3}}) {
      SCOPED_TRACE("units " + std::to_string(u));
      ExpectSimdMatchesReference(ops::nn::kLstmCellOp,
                                 {RandomFloats(Shape({bx, 4 * u}), -8, 8, false, 1),
                                  RandomFloats(Shape({by, 4 * u}), -8, 8, false, 2),
                                  RandomFloats(Shape({4 * u}), -1, 1, false, 3),
                                  RandomFloats(Shape({bc, u}), -4, 4, false, 4)},
                                 attrs);
    }
  }
}

TEST(SimdLstmCellTest, NanAndInfinityFollowTheReference) {
  const ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)}};
  ExpectSimdMatchesReference(ops::nn::kLstmCellOp,
                             {RandomFloats(Shape({2, 64}), -50, 50, true, 5), RandomFloats(Shape({2, 64}), -50, 50, true, 6),
                              RandomFloats(Shape({64}), -1, 1, false, 7), RandomFloats(Shape({2, 16}), -4, 4, true, 8)},
                             attrs);
}

TEST(SimdLstmCellTest, BadShapesGiveTheReferenceError) {
  auto node = ops::MakeSingleOpNode(ops::nn::kLstmCellOp, {{"T", ops::MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(node.ok());
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  auto bad = ops::RunKernelOnNode(*node, kernel,
                                  {RandomFloats(Shape({1, 8}), -1, 1, false), RandomFloats(Shape({1, 8}), -1, 1, false),
                                   RandomFloats(Shape({4}), -1, 1, false), RandomFloats(Shape({1, 2}), -1, 1, false)});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("gate widths disagree"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace tfhost::backends::simd
