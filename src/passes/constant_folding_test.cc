#include <gtest/gtest.h>

#include "ir/attrs.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

TEST(ConstantFoldingTest, FoldsConstSubgraphKeepingNameAndOutputs) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3})
      .Const("a", Tensor::FromVector<float>({1, 2, 3}))
      .Const("b", Tensor::FromVector<float>({4, 5, 6}))
      .Add("ab", "Mul", {"a", "b"})
      .Add("ab2", "Sqrt", {"ab"})
      .Add("out", "AddV2", {"x", "ab2"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"out"});
  ASSERT_TRUE(MakeConstantFolding()->Run(&after, ctx).ok());
  ASSERT_TRUE(PruneDeadNodes(&after, ctx).ok());
  EXPECT_EQ(CountOp(after, "Mul"), 0);
  EXPECT_EQ(CountOp(after, "Sqrt"), 0);
  ASSERT_GE(after.FindNode("ab2"), 0);
  EXPECT_EQ(after.node(after.FindNode("ab2")).op, "Const");
  EXPECT_EQ(after.FindNode("ab"), -1);  // dead once folded
  std::map<std::string, Tensor> feeds{{"x", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({2, 3}))}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

TEST(ConstantFoldingTest, FoldsShapeSizeRankFromStaticShapes) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3})
      .Placeholder("y", DType::kFloat, {-1, 3})
      .Add("shape", "Shape", {"x"})
      .Add("size", "Size", {"x"})
      .Add("rank", "Rank", {"y"})
      .Add("yshape", "Shape", {"y"})
      .Add("r", "Reshape", {"x", "shape"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  ASSERT_TRUE(MakeConstantFolding()->Run(&after, PassContext::FromRoots(after, {"r", "size", "rank", "yshape"})).ok());
  EXPECT_EQ(after.node(after.FindNode("shape")).op, "Const");
  EXPECT_EQ(after.node(after.FindNode("size")).op, "Const");
  EXPECT_EQ(after.node(after.FindNode("rank")).op, "Const");
  EXPECT_EQ(after.node(after.FindNode("yshape")).op, "Shape");  // dim 0 unknown
  // The folded Shape still runs after its input (frame/deadness).
  const ir::Node& shape = after.node(after.FindNode("shape"));
  ASSERT_EQ(shape.control_inputs.size(), 1u);
  EXPECT_EQ(after.node(shape.control_inputs[0]).name, "x");
  std::map<std::string, Tensor> feeds{{"x", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({2, 3}))},
                                      {"y", Tensor(DType::kFloat, Shape({4, 3}))}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"r", "size", "rank", "yshape"}),
                             Evaluate(after, feeds, {"r", "size", "rank", "yshape"}));
}

TEST(ConstantFoldingTest, RefusesOutputsOverTheSizeCap) {
  GraphBuilder b;
  b.Const("dims", Tensor::FromVector<int32_t>({1024, 1024}))
      .Const("v", Tensor::Scalar<float>(1.f))
      .Add("big", "Fill", {"dims", "v"})
      .Const("small_dims", Tensor::FromVector<int32_t>({2}))
      .Add("small", "Fill", {"small_dims", "v"});
  ir::Graph g = b.Build();
  PassContext ctx = PassContext::FromRoots(g, {"big", "small"});
  ctx.max_folded_bytes = 1 << 20;  // 4 MiB Fill is over
  ASSERT_TRUE(MakeConstantFolding()->Run(&g, ctx).ok());
  EXPECT_EQ(g.node(g.FindNode("big")).op, "Fill");
  EXPECT_EQ(g.node(g.FindNode("small")).op, "Const");
}

TEST(ConstantFoldingTest, KeepsControlInputsOfFoldedConsts) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1})
      .Add("pivot", "Neg", {"x"})
      .Const("c", Tensor::FromVector<float>({2}), {"^pivot"})
      .Add("n", "Neg", {"c"})
      .Add("out", "AddV2", {"x", "n"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeConstantFolding()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  const ir::Node& n = g.node(g.FindNode("n"));
  EXPECT_EQ(n.op, "Const");
  ASSERT_EQ(n.control_inputs.size(), 1u);
  EXPECT_EQ(g.node(n.control_inputs[0]).name, "pivot");
}

TEST(ConstantFoldingTest, NeverEvaluatesStatefulOps) {
  GraphBuilder b;
  b.Const("shape", Tensor::FromVector<int32_t>({2}))
      .Add("r", "RandomUniform", {"shape"}, {{"dtype", ops::MakeAttr(DType::kFloat)}, {"T", ops::MakeAttr(DType::kInt32)}});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeConstantFolding()->Run(&g, PassContext::FromRoots(g, {"r"})).ok());
  EXPECT_EQ(g.node(g.FindNode("r")).op, "RandomUniform");
}

}  // namespace
}  // namespace tfhost::passes
