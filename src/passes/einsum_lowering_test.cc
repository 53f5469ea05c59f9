// einsum_lowering: two-operand einsums become matrix products with the
// Transposes and Reshapes around them, and give the Einsum kernel's values
// (to float rounding: it accumulates in double); the forms it leaves alone
// stay Einsum.
#include <gtest/gtest.h>

#include <cmath>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

struct Case {
  const char* equation;
  std::vector<int64_t> a, b;  // placeholder shapes (-1: unknown at load)
  Shape a_fed, b_fed;         // the shapes fed
  const char* product;        // the product op the lowering uses
};

ir::Graph EinsumGraph(const Case& c, DType dtype = DType::kFloat) {
  GraphBuilder b;
  b.Placeholder("a", dtype, c.a)
      .Placeholder("b", dtype, c.b)
      .Add("e", "Einsum", {"a", "b"},
           {{"equation", ops::MakeAttr(c.equation)}, {"N", ops::MakeAttr(int64_t{2})}, {"T", ops::MakeAttr(dtype)}})
      .Add("out", "Identity", {"e"}, {{"T", ops::MakeAttr(dtype)}});
  return b.Build();
}

ir::Graph Lowered(const ir::Graph& g) { return testing::RunPassAndPrune(g, *MakeEinsumLowering(), {"out"}); }

TEST(EinsumLoweringTest, KerasEinsumsBecomeMatrixProductsWithTheEinsumKernelsValues) {
  const std::vector<Case> cases = {
      // EinsumDense's projections: [B, T, D] x [D, N, H], and back.
      {"abc,cde->abde", {2, 3, 4}, {4, 2, 5}, Shape({2, 3, 4}), Shape({4, 2, 5}), "MatMul"},
      {"abc,cde->abde", {-1, -1, 4}, {4, 2, 5}, Shape({2, 3, 4}), Shape({4, 2, 5}), "MatMul"},
      {"abcd,cde->abe", {-1, 3, 2, 4}, {2, 4, 5}, Shape({2, 3, 2, 4}), Shape({2, 4, 5}), "MatMul"},
      // Attention's scores and its weighted values.
      {"BTNH,BSNH->BNTS", {-1, 3, 2, 4}, {-1, 5, 2, 4}, Shape({2, 3, 2, 4}), Shape({2, 5, 2, 4}), "BatchMatMulV2"},
      {"BNTS,BSNH->BTNH", {-1, 2, 3, 5}, {-1, 5, 2, 4}, Shape({2, 2, 3, 5}), Shape({2, 5, 2, 4}), "BatchMatMulV2"},
      // A plain product, one with the second operand transposed (its
      // adjoint, no Transpose), a dot product per row and an outer product.
      {"ij,jk->ik", {3, 4}, {4, 5}, Shape({3, 4}), Shape({4, 5}), "MatMul"},
      {"ij,kj->ik", {3, 4}, {5, 4}, Shape({3, 4}), Shape({5, 4}), "MatMul"},
      {"bc,bc->b", {-1, 4}, {-1, 4}, Shape({3, 4}), Shape({3, 4}), "BatchMatMulV2"},
      {"ba,bc->bac", {3, 2}, {3, 4}, Shape({3, 2}), Shape({3, 4}), "BatchMatMulV2"},
      // Labels out of order in every group.
      {"kbji,bkil->lbjk", {2, 3, 4, 5}, {3, 2, 5, 6}, Shape({2, 3, 4, 5}), Shape({3, 2, 5, 6}), "BatchMatMulV2"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    const ir::Graph before = EinsumGraph(c);
    const ir::Graph after = Lowered(before);
    EXPECT_EQ(CountOp(after, "Einsum"), 0);
    EXPECT_EQ(CountOp(after, c.product), 1);
    const std::map<std::string, Tensor> feeds = {{"a", Ramp(c.a_fed, 0.25f, -3.0f)}, {"b", Ramp(c.b_fed, 0.5f, -2.0f)}};
    const std::vector<Tensor> want = Evaluate(before, feeds, {"out"});
    const std::vector<Tensor> got = Evaluate(after, feeds, {"out"});
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].shape(), want[0].shape());
    for (int64_t i = 0; i < want[0].NumElements(); ++i) {
      const float w = want[0].data<float>()[i];
      EXPECT_NEAR(got[0].data<float>()[i], w, 1e-5f * std::max(1.0f, std::fabs(w))) << "at " << i;
    }
  }
}

TEST(EinsumLoweringTest, AnUnknownDimOnEachSideOfAReshapeIsGatheredAtRunTime) {
  // [B, T] both unknown: the output's Reshape target comes from Shape(a).
  const ir::Graph after = Lowered(EinsumGraph({"abc,cde->abde", {-1, -1, 4}, {4, 2, 5}, Shape(), Shape(), ""}));
  EXPECT_EQ(CountOp(after, "Shape"), 1);
  const ir::Node& e = after.node(after.FindNode("e"));
  EXPECT_EQ(e.op, "Reshape");
  // Known up to one dim: a Const target with -1, no Shape.
  const ir::Graph known = Lowered(EinsumGraph({"abc,cde->abde", {-1, 3, 4}, {4, 2, 5}, Shape(), Shape(), ""}));
  EXPECT_EQ(CountOp(known, "Shape"), 0);
}

TEST(EinsumLoweringTest, HalfAndBfloat16EinsumsBecomeProductsOfTheirType) {
  for (DType dtype : {DType::kBFloat16, DType::kHalf, DType::kDouble}) {
    SCOPED_TRACE(DTypeShortName(dtype));
    const ir::Graph after = Lowered(EinsumGraph({"BTNH,BSNH->BNTS", {2, 3, 2, 4}, {2, 5, 2, 4}, Shape(), Shape(), ""},
                                                dtype));
    EXPECT_EQ(CountOp(after, "Einsum"), 0);
    for (const ir::Node& n : after.nodes()) {
      if (n.op == "BatchMatMulV2") EXPECT_EQ(*ir::GetAttr<DType>(n, "T"), dtype);
    }
  }
}

TEST(EinsumLoweringTest, FormsThatAreNotOneProductStayEinsum) {
  const std::vector<Case> cases = {
      {"ii,ij->j", {3, 3}, {3, 4}, Shape(), Shape(), ""},          // a diagonal
      {"...ij,jk->...ik", {2, 3, 4}, {4, 5}, Shape(), Shape(), ""},  // an ellipsis
      {"ab,bc->c", {2, 3}, {3, 4}, Shape(), Shape(), ""},           // a summed within one operand
      {"ij,jk->ik", {3, 4}, {5, 6}, Shape(), Shape(), ""},          // inner dims that disagree
      {"ij,jk", {3, 4}, {4, 5}, Shape(), Shape(), ""},              // no explicit output
      {"ij,jk->ik", {65536, 65536}, {65536, 2}, Shape(), Shape(), ""}};  // 2^32 elements: int32 Reshape targets
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    EXPECT_EQ(CountOp(Lowered(EinsumGraph(c)), "Einsum"), 1);
  }
  // Integers: the reference kernel's exact int64 sums.
  EXPECT_EQ(CountOp(Lowered(EinsumGraph({"ij,jk->ik", {3, 4}, {4, 5}, Shape(), Shape(), ""}, DType::kInt32)),
                    "Einsum"),
            1);
}

}  // namespace
}  // namespace tfhost::passes
