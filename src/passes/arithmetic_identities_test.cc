#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

Tensor Scalar(float v) { return Tensor::FromVector<float>({v}, Shape({})); }

TEST(ArithmeticIdentitiesTest, SiluBetaOfOneLeavesTheSwishTheFusionMatches) {
  // tf.nn.silu(x) = x * sigmoid(1.0 * x)
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3})
      .Const("beta", Scalar(1.0f))
      .Add("scaled", "Mul", {"beta", "x"})
      .Add("sig", "Sigmoid", {"scaled"})
      .Add("out", "Mul", {"x", "sig"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  PassManager pm;
  pm.Add(MakeArithmeticIdentities());
  pm.Add(MakeIdentityElimination());
  ASSERT_TRUE(pm.Run(&after, PassContext::FromRoots(after, {"out"})).ok());
  EXPECT_EQ(after.FindNode("scaled"), -1);
  const int sig = after.FindNode("sig");
  ASSERT_GE(sig, 0);
  EXPECT_EQ(after.node(after.node(sig).inputs[0].node).name, "x");
  std::map<std::string, Tensor> feeds{{"x", Tensor::FromVector<float>({-3.f, -0.f, 0.5f, 1.f, 2.f, 40.f},
                                                                     Shape({2, 3}))}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

TEST(ArithmeticIdentitiesTest, DivideByOneAndSubtractZeroBecomeIdentitiesOnTheRightSideOnly) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {4})
      .Const("one", Scalar(1.0f))
      .Const("zero", Scalar(0.0f))
      .Add("div", "RealDiv", {"x", "one"})
      .Add("sub", "Sub", {"div", "zero"})
      .Add("inv", "RealDiv", {"one", "sub"})    // 1 / x: not an identity
      .Add("neg", "Sub", {"zero", "inv"});      // 0 - x: not an identity
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeArithmeticIdentities()->Run(&g, PassContext::FromRoots(g, {"neg"})).ok());
  EXPECT_EQ(g.node(g.FindNode("div")).op, "Identity");
  EXPECT_EQ(g.node(g.FindNode("sub")).op, "Identity");
  EXPECT_EQ(g.node(g.FindNode("inv")).op, "RealDiv");
  EXPECT_EQ(g.node(g.FindNode("neg")).op, "Sub");
  EXPECT_EQ(g.node(g.FindNode("sub")).inputs[0].node, g.FindNode("div"));
}

TEST(ArithmeticIdentitiesTest, ConstantThatWouldBroadcastOrIsNotTheIdentityIsLeftAlone) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {3})
      .Const("ones_2d", Tensor::FromVector<float>({1.f}, Shape({1, 1})))  // adds a dim
      .Const("two", Scalar(2.0f))
      .Const("ones3", Tensor::FromVector<float>({1.f, 1.f, 1.f}))                  // not one element
      .Add("grow", "Mul", {"x", "ones_2d"})
      .Add("twice", "Mul", {"x", "two"})
      .Add("many", "Mul", {"x", "ones3"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeArithmeticIdentities()->Run(&g, PassContext::FromRoots(g, {"grow", "twice", "many"})).ok());
  EXPECT_EQ(CountOp(g, "Identity"), 0);
}

TEST(ArithmeticIdentitiesTest, FloatPlusZeroIsKeptBecauseMinusZeroWouldTurnPositive) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1})
      .Const("zero", Scalar(0.0f))
      .Add("sum", "AddV2", {"x", "zero"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeArithmeticIdentities()->Run(&g, PassContext::FromRoots(g, {"sum"})).ok());
  EXPECT_EQ(g.node(g.FindNode("sum")).op, "AddV2");
}

TEST(ArithmeticIdentitiesTest, IntegerPlusZeroBecomesIdentityKeepingControlInputs) {
  GraphBuilder b;
  b.Placeholder("x", DType::kInt32, {2})
      .Placeholder("y", DType::kInt32, {2})
      .Const("zero", Tensor::FromVector<int32_t>({0}, Shape({})))
      .Add("sum", "AddV2", {"zero", "x", "^y"}, {{"T", ops::MakeAttr(DType::kInt32)}});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeArithmeticIdentities()->Run(&g, PassContext::FromRoots(g, {"sum"})).ok());
  const ir::Node& sum = g.node(g.FindNode("sum"));
  EXPECT_EQ(sum.op, "Identity");
  ASSERT_EQ(sum.inputs.size(), 1u);
  EXPECT_EQ(sum.inputs[0].node, g.FindNode("x"));
  EXPECT_EQ(sum.control_inputs, std::vector<int>{g.FindNode("y")});
  EXPECT_EQ(*ir::GetAttr<DType>(sum, "T"), DType::kInt32);
}

TEST(ArithmeticIdentitiesTest, TransposeByTheIdentityPermutationBecomesIdentity) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3, 4})
      .Const("same", Tensor::FromVector<int32_t>({0, 1, 2}))
      .Const("swap", Tensor::FromVector<int32_t>({0, 2, 1}))
      .Add("kept", "Transpose", {"x", "same"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("swapped", "Transpose", {"x", "swap"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeArithmeticIdentities()->Run(&g, PassContext::FromRoots(g, {"kept", "swapped"})).ok());
  const ir::Node& kept = g.node(g.FindNode("kept"));
  EXPECT_EQ(kept.op, "Identity");
  ASSERT_EQ(kept.inputs.size(), 1u);
  EXPECT_EQ(g.node(kept.inputs[0].node).name, "x");
  EXPECT_EQ(g.node(g.FindNode("swapped")).op, "Transpose");
}

}  // namespace
}  // namespace tfhost::passes
