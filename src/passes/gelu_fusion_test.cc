#include "passes/gelu_fusion.h"

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

Tensor F(float v) { return Tensor::Scalar<float>(v); }

void ExpectNear(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape().dims(), b[i].shape().dims());
    auto va = a[i].ToDoubleVector(), vb = b[i].ToDoubleVector();
    for (size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vb[k], tol * std::max(1.0, std::abs(va[k]))) << k;
  }
}

// Runs `passes` in order, prunes, and checks `roots` keep their values to
// float rounding.
ir::Graph RunAndCompare(const ir::Graph& before, const std::vector<std::unique_ptr<GraphPass>>& passes,
                        const std::vector<std::string>& roots, const std::map<std::string, Tensor>& feeds) {
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, roots);
  for (const auto& p : passes) {
    Status st = p->Run(&after, ctx);
    EXPECT_TRUE(st.ok()) << p->name() << ": " << st.ToString();
  }
  Status st = PruneDeadNodes(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  ExpectNear(Evaluate(before, feeds, roots), Evaluate(after, feeds, roots), 2e-6);
  return after;
}

std::vector<std::unique_ptr<GraphPass>> GeluOnly() {
  std::vector<std::unique_ptr<GraphPass>> p;
  p.push_back(MakeGeluFusion());
  return p;
}

std::vector<std::string> Ops(const ir::Node& node, const char* key) {
  auto v = ir::GetAttrOr<std::vector<std::string>>(node, key, {});
  return v.ok() ? *v : std::vector<std::string>{};
}

// tf.nn.gelu(approximate=False) / Keras: 0.5 * x * (1 + erf(x / sqrt(2))).
GraphBuilder& AddExactGelu(GraphBuilder& b, const std::string& x, const std::string& out) {
  return b.Const(out + "/sqrt2", F(1.4142135623730951f))
      .Const(out + "/one", F(1.f))
      .Const(out + "/half", F(0.5f))
      .Add(out + "/div", "RealDiv", {x, out + "/sqrt2"})
      .Add(out + "/erf", "Erf", {out + "/div"})
      .Add(out + "/add", "AddV2", {out + "/one", out + "/erf"})
      .Add(out + "/hx", "Mul", {out + "/half", x})
      .Add(out, "Mul", {out + "/hx", out + "/add"});
}

TEST(GeluFusionTest, KerasExactGeluBecomesOneGeluExactNode) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 16});
  AddExactGelu(b, "x", "gelu");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 16}), 4.f, 0.f)}};
  ir::Graph g = RunAndCompare(b.Build(), GeluOnly(), {"gelu"}, feeds);
  EXPECT_EQ(g.num_nodes(), 2);  // x, gelu
  const ir::Node& gelu = g.node(g.FindNode("gelu"));
  EXPECT_EQ(GeluNodeKind(gelu), "GeluExact");
  ASSERT_EQ(gelu.inputs.size(), 1u);
  EXPECT_EQ(g.node(gelu.inputs[0].node).name, "x");
}

TEST(GeluFusionTest, BertTanhGeluWithPowBecomesGeluApproximate) {
  // BERT: cdf = 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))); x * cdf.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {3, 8})
      .Const("three", F(3.f))
      .Const("c", F(0.044715f))
      .Const("k", F(0.7978845608028654f))
      .Const("one", F(1.f))
      .Const("half", F(0.5f))
      .Add("cube", "Pow", {"x", "three"})
      .Add("cc", "Mul", {"c", "cube"})
      .Add("inner", "AddV2", {"x", "cc"})
      .Add("scaled", "Mul", {"k", "inner"})
      .Add("t", "Tanh", {"scaled"})
      .Add("onet", "AddV2", {"one", "t"})
      .Add("cdf", "Mul", {"half", "onet"})
      .Add("gelu", "Mul", {"x", "cdf"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({3, 8}), 5.f, 0.3f)}};
  ir::Graph g = RunAndCompare(b.Build(), GeluOnly(), {"gelu"}, feeds);
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(GeluNodeKind(g.node(g.FindNode("gelu"))), "GeluApproximate");
}

TEST(GeluFusionTest, CubeAsProductsAndErfcFormAreRecognized) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {8})
      // Approximate, x^3 as (x * x) * x, constants on the other side.
      .Const("c", F(0.044715f))
      .Const("k", F(0.7978845608028654f))
      .Const("one", F(1.f))
      .Const("half", F(0.5f))
      .Add("xx", "Mul", {"x", "x"})
      .Add("xxx", "Mul", {"xx", "x"})
      .Add("cc", "Mul", {"xxx", "c"})
      .Add("inner", "AddV2", {"x", "cc"})
      .Add("scaled", "Mul", {"inner", "k"})
      .Add("t", "Tanh", {"scaled"})
      .Add("onet", "AddV2", {"t", "one"})
      .Add("xh", "Mul", {"x", "half"})
      .Add("approx", "Mul", {"xh", "onet"})
      // Exact as 0.5 * x * erfc(-x / sqrt(2)), on the approximate's output.
      .Const("msqrt2", F(-1.4142135623730951f))
      .Const("half2", F(0.5f))
      .Add("nd", "RealDiv", {"approx", "msqrt2"})
      .Add("ec", "Erfc", {"nd"})
      .Add("hx2", "Mul", {"approx", "half2"})
      .Add("exact", "Mul", {"hx2", "ec"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({8}), 3.f, 0.1f)}};
  ir::Graph g = RunAndCompare(b.Build(), GeluOnly(), {"exact"}, feeds);
  EXPECT_EQ(g.num_nodes(), 3);  // x, approx, exact
  EXPECT_EQ(GeluNodeKind(g.node(g.FindNode("approx"))), "GeluApproximate");
  EXPECT_EQ(GeluNodeKind(g.node(g.FindNode("exact"))), "GeluExact");
}

TEST(GeluFusionTest, ProductThatIsNotGeluIsLeftAlone) {
  // 0.6 instead of 0.5: the same structure computes something else.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {4})
      .Const("sqrt2", F(1.4142135623730951f))
      .Const("one", F(1.f))
      .Const("c", F(0.6f))
      .Add("div", "RealDiv", {"x", "sqrt2"})
      .Add("erf", "Erf", {"div"})
      .Add("add", "AddV2", {"one", "erf"})
      .Add("hx", "Mul", {"c", "x"})
      .Add("out", "Mul", {"hx", "add"});
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({4}), 2.f, 0.f)}};
  ir::Graph g = RunAndCompare(b.Build(), GeluOnly(), {"out"}, feeds);
  EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 0);
  EXPECT_EQ(CountOp(g, "Erf"), 1);
}

TEST(GeluFusionTest, FetchedIntermediateBlocksTheRewrite) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {4});
  AddExactGelu(b, "x", "gelu");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({4}), 2.f, 0.f)}};
  ir::Graph g = RunAndCompare(b.Build(), GeluOnly(), {"gelu", "gelu/erf"}, feeds);
  EXPECT_EQ(CountOp(g, kFusedElementwiseOp), 0);
}

// GELU fusion then the conv/matmul fusion on x, w, bias -> product ->
// BiasAdd -> exact GELU named "gelu": one `op` node with [BiasAdd, GeluExact]
// is left, computing the same values.
void ExpectBiasGeluFusedInto(const ir::Graph& before, const std::map<std::string, Tensor>& feeds,
                             const std::string& op) {
  std::vector<std::unique_ptr<GraphPass>> passes;
  passes.push_back(MakeGeluFusion());
  passes.push_back(MakeConvBiasActivationFusion());
  ir::Graph g = RunAndCompare(before, passes, {"gelu"}, feeds);
  EXPECT_EQ(g.num_nodes(), 4);  // x, w, bias, gelu
  const ir::Node& gelu = g.node(g.FindNode("gelu"));
  EXPECT_EQ(gelu.op, op);
  EXPECT_EQ(Ops(gelu, "fused_ops"), (std::vector<std::string>{"BiasAdd", "GeluExact"}));
}

TEST(GeluFusionTest, MatMulBiasAddGeluBecomesFusedMatMulWithGeluExact) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {3, 5})
      .Const("w", Ramp(Shape({5, 4}), 1.f, 0.4f))
      .Const("bias", Tensor::FromVector<float>({0.5f, -1.f, 0.25f, 0.f}))
      .Add("mm", "MatMul", {"x", "w"})
      .Add("biased", "BiasAdd", {"mm", "bias"});
  AddExactGelu(b, "biased", "gelu");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({3, 5}), 2.f, 0.f)}};
  ExpectBiasGeluFusedInto(b.Build(), feeds, "_FusedMatMul");
}

TEST(GeluFusionTest, Conv2DBiasAddGeluBecomesFusedConv2DWithGeluExact) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
      .Const("w", Ramp(Shape({1, 1, 2, 3}), 1.f, 0.f))
      .Const("bias", Tensor::FromVector<float>({0.5f, -1.f, 0.25f}))
      .Add("conv", "Conv2D", {"x", "w"},
           {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})}, {"padding", ops::MakeAttr("SAME")}})
      .Add("biased", "BiasAdd", {"conv", "bias"});
  AddExactGelu(b, "biased", "gelu");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 4, 4, 2}), 2.f, 0.f)}};
  ExpectBiasGeluFusedInto(b.Build(), feeds, "_FusedConv2D");
}

TEST(GeluFusionTest, ElementwiseFusionTakesGeluIntoItsProgram) {
  // Residual add then GELU, without a matmul before: one fused node.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 8}).Placeholder("r", DType::kFloat, {2, 8}).Add("sum", "AddV2", {"x", "r"});
  AddExactGelu(b, "sum", "gelu");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 8}), 2.f, 0.f)}, {"r", Ramp(Shape({2, 8}), 1.f, 1.f)}};
  std::vector<std::unique_ptr<GraphPass>> passes;
  passes.push_back(MakeGeluFusion());
  passes.push_back(MakeElementwiseFusion());
  ir::Graph g = RunAndCompare(b.Build(), passes, {"gelu"}, feeds);
  EXPECT_EQ(g.num_nodes(), 3);  // x, r, gelu
  const ir::Node& gelu = g.node(g.FindNode("gelu"));
  EXPECT_EQ(Ops(gelu, "ops"), (std::vector<std::string>{"AddV2", "GeluExact"}));
}

}  // namespace
}  // namespace tfhost::passes
