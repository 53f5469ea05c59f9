#include <gtest/gtest.h>

#include <cmath>

#include "ir/attrs.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;

Tensor Ramp(Shape shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.9f * i + shift) * scale;
  return t;
}

ir::Graph FuseAndCompare(const ir::Graph& before, const std::vector<std::string>& roots,
                         const std::map<std::string, Tensor>& feeds) {
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, roots);
  Status st = MakeElementwiseFusion()->Run(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = PruneDeadNodes(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  testing::ExpectSameTensors(Evaluate(before, feeds, roots), Evaluate(after, feeds, roots));
  return after;
}

TEST(ElementwiseFusionTest, FusesChainIntoOneNodeUnderTheLastName) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 8})
      .Placeholder("y", DType::kFloat, {2, 8})
      .Const("half", Tensor::Scalar<float>(0.5f))
      .Add("sum", "AddV2", {"x", "y"})
      .Add("relu", "Relu", {"sum"})
      .Add("out", "Mul", {"relu", "half"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 8}), 2.f, 0.f)}, {"y", Ramp(Shape({2, 8}), 1.f, 1.f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"out"}, feeds);
  EXPECT_EQ(g.num_nodes(), 4);  // x, y, half, out
  const ir::Node& out = g.node(g.FindNode("out"));
  EXPECT_EQ(out.op, kFusedElementwiseOp);
  EXPECT_EQ(ir::GetAttr<std::vector<std::string>>(out, "ops").value(),
            (std::vector<std::string>{"AddV2", "Relu", "Mul"}));
  EXPECT_EQ(ir::GetAttr<std::vector<int64_t>>(out, "operands").value(),
            (std::vector<int64_t>{0, 1, 3, -1, 4, 2}));
  ASSERT_EQ(out.inputs.size(), 3u);
}

TEST(ElementwiseFusionTest, FusesHardSwishWithSharedInputAndLeakyReluAlpha) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 3})
      .Const("three", Tensor::Scalar<float>(3.f))
      .Const("sixth", Tensor::Scalar<float>(1.f / 6.f))
      .Add("p3", "AddV2", {"x", "three"})
      .Add("r6", "Relu6", {"p3"})
      .Add("xr", "Mul", {"x", "r6"})
      .Add("hs", "Mul", {"xr", "sixth"})
      .Add("out", "LeakyRelu", {"hs"}, {{"alpha", ops::MakeAttr(0.25f)}});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 4, 4, 3}), 6.f, 0.f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"out"}, feeds);
  EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 1);
  EXPECT_EQ(CountOp(g, "Mul") + CountOp(g, "Relu6") + CountOp(g, "AddV2") + CountOp(g, "LeakyRelu"), 0);
  const ir::Node& out = g.node(g.FindNode("out"));
  EXPECT_FLOAT_EQ(ir::GetAttr<std::vector<float>>(out, "alphas").value().back(), 0.25f);
}

TEST(ElementwiseFusionTest, ClustersStopAtSharedKeptAndSmallerTensors) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {4, 3})
      .Placeholder("v", DType::kFloat, {3})
      .Add("ev", "Exp", {"v"})           // smaller shape: computed once, stays
      .Add("a", "Mul", {"x", "ev"})
      .Add("shared", "Tanh", {"a"})      // read by two clusters
      .Add("b1", "Neg", {"shared"})
      .Add("b2", "Abs", {"b1"})
      .Add("c1", "Square", {"shared"})
      .Add("kept", "Sqrt", {"c1"})       // fetched by name
      .Add("c2", "Floor", {"kept"})
      .Add("out", "AddN", {"b2", "c2"}, {{"N", ops::MakeAttr(2)}});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({4, 3}), 2.f, 0.f)}, {"v", Ramp(Shape({3}), 1.f, 1.f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"out", "kept"}, feeds);
  EXPECT_EQ(g.node(g.FindNode("ev")).op, "Exp");
  EXPECT_EQ(g.node(g.FindNode("shared")).op, kFusedElementwiseOp);  // Mul + Tanh
  EXPECT_EQ(g.node(g.FindNode("b2")).op, kFusedElementwiseOp);      // Neg + Abs
  EXPECT_EQ(g.node(g.FindNode("kept")).op, kFusedElementwiseOp);    // Square + Sqrt
  EXPECT_EQ(g.node(g.FindNode("c2")).op, "Floor");                  // alone: not worth a fused node
  EXPECT_EQ(g.FindNode("a"), -1);
  EXPECT_EQ(g.FindNode("c1"), -1);
}

// The pass's list of fusable ops and the kernel's must agree: each op,
// followed by Neg, fuses and computes what the two separate ops compute.
TEST(ElementwiseFusionTest, EveryFusableOpRunsInTheFusedKernel) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "SquaredDifference", "Pow"}) {
    SCOPED_TRACE(op);
    GraphBuilder b;
    // |x| keeps Pow real.
    b.Placeholder("x", DType::kFloat, {64})
        .Placeholder("y", DType::kFloat, {64})
        .Add("a", "Abs", {"x"})
        .Add("o", op, {"a", "y"})
        .Add("out", "Neg", {"o"});
    std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({64}), 2.f, 0.f)}, {"y", Ramp(Shape({64}), 3.f, 0.5f)}};
    ir::Graph g = FuseAndCompare(b.Build(), {"out"}, feeds);
    EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 1);
  }
  for (const char* op : {"Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Reciprocal", "Inv", "Floor", "Ceil",
                         "Erf", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign",
                         "LeakyRelu"}) {
    SCOPED_TRACE(op);
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {64}).Add("a", "Abs", {"x"}).Add("o", op, {"a"}).Add("out", "Neg", {"o"});
    std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({64}), 4.f, 0.f)}};
    ir::Graph g = FuseAndCompare(b.Build(), {"out"}, feeds);
    EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 1);
    EXPECT_EQ(g.num_nodes(), 2);
  }
}

// tf.nn.gelu(approximate=True) as TensorFlow writes it out:
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
TEST(ElementwiseFusionTest, FusesGeluTanhFormIntoOneNode) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 16})
      .Const("three", Tensor::Scalar<float>(3.f))
      .Const("c", Tensor::Scalar<float>(0.044715f))
      .Const("k", Tensor::Scalar<float>(0.7978845608f))
      .Const("one", Tensor::Scalar<float>(1.f))
      .Const("half", Tensor::Scalar<float>(0.5f))
      .Add("cube", "Pow", {"x", "three"})
      .Add("ccube", "Mul", {"c", "cube"})
      .Add("inner", "AddV2", {"x", "ccube"})
      .Add("scaled", "Mul", {"k", "inner"})
      .Add("t", "Tanh", {"scaled"})
      .Add("onep", "AddV2", {"one", "t"})
      .Add("hx", "Mul", {"half", "x"})
      .Add("gelu", "Mul", {"hx", "onep"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 16}), 3.f, 0.f)}};
  ir::Graph g = FuseAndCompare(b.Build(), {"gelu"}, feeds);
  EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 1);
  EXPECT_EQ(ir::GetAttr<std::vector<std::string>>(g.node(g.FindNode("gelu")), "ops").value().size(), 8u);
}

TEST(ElementwiseFusionTest, LeavesIntegerOpsAlone) {
  GraphBuilder b;
  b.Placeholder("x", DType::kInt32, {4})
      .Add("a", "Neg", {"x"}, {{"T", ops::MakeAttr(DType::kInt32)}})
      .Add("out", "Abs", {"a"}, {{"T", ops::MakeAttr(DType::kInt32)}});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakeElementwiseFusion()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 0);
}

}  // namespace
}  // namespace tfhost::passes
