#include <gtest/gtest.h>

#include "ops/nn/layer_norm.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

struct Form {
  bool swapped = false;          // every commutative op's operands the other way round
  std::vector<int64_t> params = {8};  // gamma's and beta's shape
  int32_t axis = -1;
  bool mean_read_elsewhere = false;
  bool residual_sum = false;  // x = AddV2(h, residual), BERT's post-norm layers
};

// keras.ops.layer_norm's nodes on x [2, 3, 8], as a Keras 3 SavedModel has
// them once frozen: y = x * m + (-mean * m + beta), m = rsqrt(var + eps) * gamma.
GraphBuilder LayerNorm(const Form& f) {
  auto pair = [&](const std::string& a, const std::string& b) {
    return f.swapped ? std::vector<std::string>{b, a} : std::vector<std::string>{a, b};
  };
  const ir::AttrMap keep = {{"keep_dims", ops::MakeAttr(true)}};
  Shape params(f.params);
  GraphBuilder b;
  if (f.residual_sum) {
    b.Placeholder("h", DType::kFloat, {2, 3, 8})
        .Placeholder("residual", DType::kFloat, {2, 3, 8})
        .Add("x", "AddV2", {"h", "residual"});
  } else {
    b.Placeholder("x", DType::kFloat, {2, 3, 8});
  }
  b.Const("axes", Tensor::FromVector<int32_t>({f.axis}))
      .Const("gamma", Ramp(params, 0.05f, 0.5f))
      .Const("beta", Ramp(params, -0.1f, 0.3f))
      .Const("eps", Tensor::Scalar<float>(1e-3f))
      .Add("mean", "Mean", {"x", "axes"}, keep)
      .Add("diff", "SquaredDifference", pair("x", "mean"))
      .Add("var", "Mean", {"diff", "axes"}, keep)
      .Add("plus_eps", "AddV2", pair("var", "eps"))
      .Add("rsqrt", "Rsqrt", {"plus_eps"})
      .Add("m", "Mul", pair("rsqrt", "gamma"))
      .Add("neg", "Neg", {"mean"})
      .Add("mean_m", "Mul", pair("neg", "m"))
      .Add("shift", "AddV2", pair("mean_m", "beta"))
      .Add("scaled", "Mul", pair("x", "m"))
      .Add("y", "AddV2", pair("scaled", "shift"))
      .Add("out", "Relu", {"y"});
  if (f.mean_read_elsewhere) b.Add("mean_too", "Relu", {"mean"});
  return b;
}

ir::Graph Fused(ir::Graph g, const std::vector<std::string>& roots) {
  return testing::RunPassAndPrune(std::move(g), *MakeLayerNormFusion(), roots);
}

std::map<std::string, Tensor> Feeds() { return {{"x", Ramp(Shape({2, 3, 8}), 0.37f, -3.f)}}; }

TEST(LayerNormFusionTest, KerasLayerNormBecomesOneNodeWithTheSameValues) {
  for (bool swapped : {false, true}) {
    for (const std::vector<int64_t>& params : {std::vector<int64_t>{8}, std::vector<int64_t>{1, 1, 8}}) {
      for (int32_t axis : {-1, 2}) {
        SCOPED_TRACE(std::string(swapped ? "swapped " : "") + Shape(params).ToString() + " axis " +
                     std::to_string(axis));
        Form form;
        form.swapped = swapped;
        form.params = params;
        form.axis = axis;
        const ir::Graph before = LayerNorm(form).Build();
        const ir::Graph after = Fused(before, {"out"});
        EXPECT_EQ(CountOp(after, ops::nn::kLayerNormOp), 1);
        for (const char* op : {"Mean", "SquaredDifference", "Rsqrt", "Mul", "AddV2", "Neg"}) {
          EXPECT_EQ(CountOp(after, op), 0) << op;
        }
        const ir::Node& y = after.node(after.FindNode("y"));
        EXPECT_EQ(y.op, ops::nn::kLayerNormOp);
        EXPECT_EQ(after.node(y.inputs[0].node).name, "x");
        EXPECT_EQ(after.node(y.inputs[1].node).name, "gamma");
        EXPECT_EQ(after.node(y.inputs[2].node).name, "beta");
        EXPECT_EQ(*ir::GetAttr<float>(y, "epsilon"), 1e-3f);
        // The fused reference kernel computes as the ops do: equal bit for bit.
        testing::ExpectSameTensors(Evaluate(before, Feeds(), {"out"}), Evaluate(after, Feeds(), {"out"}));
      }
    }
  }
}

TEST(LayerNormFusionTest, AResidualSumReadOnlyByTheNormGoesIntoIt) {
  Form form;
  form.residual_sum = true;
  const ir::Graph before = LayerNorm(form).Build();
  const ir::Graph after = Fused(before, {"out"});
  const ir::Node& y = after.node(after.FindNode("y"));
  EXPECT_EQ(y.op, ops::nn::kAddLayerNormOp);
  EXPECT_EQ(after.node(y.inputs[0].node).name, "h");
  EXPECT_EQ(after.node(y.inputs[1].node).name, "residual");
  EXPECT_EQ(CountOp(after, "AddV2"), 0);
  std::map<std::string, Tensor> feeds{{"h", Ramp(Shape({2, 3, 8}), 0.37f, -3.f)},
                                      {"residual", Ramp(Shape({2, 3, 8}), -0.21f, 2.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
  // A sum read elsewhere too stays, and the norm is a plain one.
  const ir::Graph shared = Fused(before, {"out", "x"});
  EXPECT_EQ(shared.node(shared.FindNode("y")).op, ops::nn::kLayerNormOp);
  EXPECT_EQ(shared.node(shared.FindNode("x")).op, "AddV2");
}

TEST(LayerNormFusionTest, OtherAxesSharedMeansAndPerPositionParametersAreLeftAlone) {
  Form other_axis;
  other_axis.axis = 1;
  Form shared;
  shared.mean_read_elsewhere = true;
  Form per_position;
  per_position.params = {3, 8};
  for (const Form& f : {other_axis, shared, per_position}) {
    GraphBuilder b = LayerNorm(f);
    std::vector<std::string> roots = {"out"};
    if (f.mean_read_elsewhere) roots.push_back("mean_too");
    const ir::Graph after = Fused(b.Build(), roots);
    EXPECT_EQ(CountOp(after, ops::nn::kLayerNormOp), 0);
    EXPECT_EQ(CountOp(after, "Mean"), 2);
  }
  // Means without keep_dims (of x [8, 8], so that they still broadcast,
  // along the other axis).
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {8, 8})
      .Const("axes", Tensor::FromVector<int32_t>({-1}))
      .Const("gamma", Ramp(Shape({8}), 0.05f, 0.5f))
      .Const("beta", Ramp(Shape({8}), -0.1f, 0.3f))
      .Const("eps", Tensor::Scalar<float>(1e-3f))
      .Add("mean", "Mean", {"x", "axes"})
      .Add("diff", "SquaredDifference", {"x", "mean"})
      .Add("var", "Mean", {"diff", "axes"})
      .Add("plus_eps", "AddV2", {"var", "eps"})
      .Add("rsqrt", "Rsqrt", {"plus_eps"})
      .Add("m", "Mul", {"rsqrt", "gamma"})
      .Add("neg", "Neg", {"mean"})
      .Add("mean_m", "Mul", {"neg", "m"})
      .Add("shift", "AddV2", {"mean_m", "beta"})
      .Add("scaled", "Mul", {"x", "m"})
      .Add("y", "AddV2", {"scaled", "shift"});
  EXPECT_EQ(CountOp(Fused(b.Build(), {"y"}), ops::nn::kLayerNormOp), 0);
  // The mean fetched by name must survive, so the pattern stays.
  const ir::Graph kept = Fused(LayerNorm(Form{}).Build(), {"out", "mean"});
  EXPECT_EQ(CountOp(kept, ops::nn::kLayerNormOp), 0);
}

TEST(LayerNormFusionTest, NotFusedWhereOnlyTheReferenceKernelWouldRunIt) {
  ir::Graph g = LayerNorm(Form{}).Build();
  PassContext ctx = PassContext::FromRoots(g, {"out"});
  ctx.has_fast_kernel = [](const ir::Node&) { return false; };
  ASSERT_TRUE(MakeLayerNormFusion()->Run(&g, ctx).ok());
  EXPECT_EQ(CountOp(g, ops::nn::kLayerNormOp), 0);
  EXPECT_EQ(CountOp(g, "Mean"), 2);
}

}  // namespace
}  // namespace tfhost::passes
