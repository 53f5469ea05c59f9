#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

TEST(CommonSubexpressionEliminationTest, MergesIdenticalNodesAndChainsOfThem) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 2})
      .Add("e1", "Exp", {"x"})
      .Add("e2", "Exp", {"x"})
      .Add("n1", "Neg", {"e1"})
      .Add("n2", "Neg", {"e2"})  // same as n1 once e2 is e1
      .Add("out", "AddV2", {"n1", "n2"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"out"});
  ASSERT_TRUE(MakeCommonSubexpressionElimination()->Run(&after, ctx).ok());
  EXPECT_EQ(CountOp(after, "Exp"), 1);
  EXPECT_EQ(CountOp(after, "Neg"), 1);
  const ir::Node& out = after.node(after.FindNode("out"));
  EXPECT_EQ(out.inputs[0].node, out.inputs[1].node);
  std::map<std::string, Tensor> feeds{{"x", Tensor::FromVector<float>({1, -2, 0.5f, 3}, Shape({2, 2}))}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

TEST(CommonSubexpressionEliminationTest, MergesEqualConstsWhateverTheirSpelling) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {3})
      .Const("c1", Tensor::FromVector<float>({1, 2, 3}))
      .Const("c2", Tensor::FromVector<float>({1, 2, 3}))
      .Const("c3", Tensor::FromVector<float>({1, 2, 4}))
      .Add("a", "Mul", {"x", "c1"})
      .Add("b", "Mul", {"x", "c2"})
      .Add("c", "Mul", {"x", "c3"})
      .Add("out", "AddN", {"a", "b", "c"}, {{"N", ops::MakeAttr(3)}});
  ir::Graph before = b.Build();
  // c2 written as float_val instead of tensor_content.
  tensorflow::AttrValue spelled;
  spelled.mutable_tensor()->set_dtype(tensorflow::DT_FLOAT);
  spelled.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(3);
  for (float v : {1.f, 2.f, 3.f}) spelled.mutable_tensor()->add_float_val(v);
  before.mutable_node(before.FindNode("c2")).attrs["value"] = spelled;
  ir::Graph after = before;
  ASSERT_TRUE(MakeCommonSubexpressionElimination()->Run(&after, PassContext::FromRoots(after, {"out"})).ok());
  EXPECT_EQ(CountOp(after, "Const"), 2);  // c1 (= c2) and c3
  EXPECT_EQ(after.FindNode("c2"), -1);
  EXPECT_EQ(CountOp(after, "Mul"), 2);  // b merged into a once c2 is c1; c differs
  std::map<std::string, Tensor> feeds{{"x", Tensor::FromVector<float>({1, 2, 3})}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

// What the graph runner leaves of a large constant in a session's graph:
// dtype and shape only. Two such stubs are different weights.
TEST(CommonSubexpressionEliminationTest, NeverMergesValueStubs) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {3})
      .Const("w1", Tensor::FromVector<float>({1, 2, 3}))
      .Const("w2", Tensor::FromVector<float>({4, 5, 6}))
      .Add("a", "Mul", {"x", "w1"})
      .Add("b", "Mul", {"x", "w2"})
      .Add("out", "AddV2", {"a", "b"});
  ir::Graph g = b.Build();
  for (const char* name : {"w1", "w2"}) {
    tensorflow::AttrValue stub;
    stub.mutable_tensor()->set_dtype(tensorflow::DT_FLOAT);
    stub.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(3);
    g.mutable_node(g.FindNode(name)).attrs["value"] = stub;
  }
  ASSERT_TRUE(MakeCommonSubexpressionElimination()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(CountOp(g, "Const"), 2);
  EXPECT_EQ(CountOp(g, "Mul"), 2);
}

TEST(CommonSubexpressionEliminationTest, KeepsNodesThatDifferInAttrsControlInputsOrKeptNames) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {4})
      .Placeholder("y", DType::kFloat, {4})
      .Add("gate", "Neg", {"y"})
      .Add("l1", "LeakyRelu", {"x"}, {{"alpha", ops::MakeAttr(0.1f)}})
      .Add("l2", "LeakyRelu", {"x"}, {{"alpha", ops::MakeAttr(0.3f)}})
      .Add("s1", "Sigmoid", {"x"})
      .Add("s2", "Sigmoid", {"x", "^gate"})
      .Add("t1", "Tanh", {"x"})
      .Add("t2", "Tanh", {"x"})  // fetched by name
      .Add("out", "AddN", {"l1", "l2", "s1", "s2", "t1"}, {{"N", ops::MakeAttr(5)}});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  ASSERT_TRUE(MakeCommonSubexpressionElimination()->Run(&after, PassContext::FromRoots(after, {"out", "t2"})).ok());
  EXPECT_EQ(CountOp(after, "LeakyRelu"), 2);
  EXPECT_EQ(CountOp(after, "Sigmoid"), 2);
  EXPECT_EQ(CountOp(after, "Tanh"), 2);
  EXPECT_EQ(after.num_nodes(), before.num_nodes());
}

TEST(CommonSubexpressionEliminationTest, NeverMergesStatefulOpsAndMovesControlEdges) {
  GraphBuilder b;
  b.Const("shape", Tensor::FromVector<int32_t>({2}))
      .Add("r1", "RandomUniform", {"shape"}, {{"dtype", ops::MakeAttr(DType::kFloat)}, {"T", ops::MakeAttr(DType::kInt32)}})
      .Add("r2", "RandomUniform", {"shape"}, {{"dtype", ops::MakeAttr(DType::kFloat)}, {"T", ops::MakeAttr(DType::kInt32)}})
      .Placeholder("x", DType::kFloat, {2})
      .Add("a", "Neg", {"x"})
      .Add("b", "Neg", {"x"})
      .Add("out", "AddV2", {"r1", "r2", "^b"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeCommonSubexpressionElimination()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(CountOp(g, "RandomUniform"), 2);
  EXPECT_EQ(CountOp(g, "Neg"), 1);
  const ir::Node& out = g.node(g.FindNode("out"));
  ASSERT_EQ(out.control_inputs.size(), 1u);
  EXPECT_EQ(g.node(out.control_inputs[0]).name, "a");
}

}  // namespace
}  // namespace tfhost::passes
