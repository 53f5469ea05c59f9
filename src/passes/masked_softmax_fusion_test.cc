#include <gtest/gtest.h>

#include "ops/math/masked_softmax.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

// Keras's Softmax layer with a mask on attention scores [2, 3, 4, 4]:
// SelectV2(mask, scores, fill), Softmax, then (`reader`) a Neg reading it.
GraphBuilder MaskedSoftmax(const Tensor& fill, bool reader = true) {
  GraphBuilder b;
  b.Placeholder("scores", DType::kFloat, {2, 3, 4, 4})
      .Placeholder("mask", DType::kBool, {2, 1, 4, 4})
      .Const("fill", fill)
      .Add("masked", "SelectV2", {"mask", "scores", "fill"})
      .Add("probs", "Softmax", {"masked"});
  if (reader) b.Add("out", "Neg", {"probs"});
  return b;
}

std::map<std::string, Tensor> Feeds() {
  Tensor mask(DType::kBool, Shape({2, 1, 4, 4}));
  for (int64_t i = 0; i < mask.NumElements(); ++i) mask.data<bool>()[i] = i % 3 != 1;
  return {{"scores", Ramp(Shape({2, 3, 4, 4}), 0.37f, -5.f)}, {"mask", mask}};
}

ir::Graph Fused(ir::Graph g, const std::vector<std::string>& roots) {
  return testing::RunPassAndPrune(std::move(g), *MakeMaskedSoftmaxFusion(), roots);
}

TEST(MaskedSoftmaxFusionTest, SelectThenSoftmaxBecomesOneNodeWithTheSameValues) {
  const ir::Graph before = MaskedSoftmax(Tensor::Scalar<float>(-1e9f)).Build();
  const ir::Graph after = Fused(before, {"out"});
  EXPECT_EQ(CountOp(after, "SelectV2"), 0);
  EXPECT_EQ(CountOp(after, "Softmax"), 0);
  const ir::Node& probs = after.node(after.FindNode("probs"));
  EXPECT_EQ(probs.op, ops::math::kMaskedSoftmaxOp);
  EXPECT_EQ(after.node(probs.inputs[0].node).name, "scores");
  EXPECT_EQ(after.node(probs.inputs[1].node).name, "mask");
  EXPECT_EQ(after.node(probs.inputs[2].node).name, "fill");
  testing::ExpectSameTensors(Evaluate(before, Feeds(), {"out"}), Evaluate(after, Feeds(), {"out"}));
}

TEST(MaskedSoftmaxFusionTest, KerasZeroingOfTheMaskedProbabilitiesGoesIntoTheNode) {
  GraphBuilder b = MaskedSoftmax(Tensor::Scalar<float>(-1e9f), /*reader=*/false);
  b.Const("zero", Tensor::Scalar<float>(0.0f))
      .Add("zeroed", "SelectV2", {"mask", "probs", "zero"})
      .Add("out2", "Neg", {"zeroed"});
  const ir::Graph before = b.Build();
  const ir::Graph after = Fused(before, {"out2"});
  EXPECT_EQ(CountOp(after, "SelectV2"), 0);
  EXPECT_EQ(CountOp(after, ops::math::kMaskedSoftmaxOp), 1);
  const ir::Node& zeroed = after.node(after.FindNode("zeroed"));
  EXPECT_EQ(zeroed.op, ops::math::kMaskedSoftmaxOp);
  EXPECT_TRUE(*ir::GetAttr<bool>(zeroed, "zero_masked"));
  testing::ExpectSameTensors(Evaluate(before, Feeds(), {"out2"}), Evaluate(after, Feeds(), {"out2"}));
  // A -0.0 fill is not Keras's zero (SelectV2 would write -0.0): the
  // zeroing stays a SelectV2.
  GraphBuilder minus = MaskedSoftmax(Tensor::Scalar<float>(-1e9f), /*reader=*/false);
  minus.Const("zero", Tensor::Scalar<float>(-0.0f)).Add("zeroed", "SelectV2", {"mask", "probs", "zero"});
  const ir::Graph kept = Fused(minus.Build(), {"zeroed"});
  EXPECT_EQ(CountOp(kept, "SelectV2"), 1);
  EXPECT_EQ(CountOp(kept, ops::math::kMaskedSoftmaxOp), 1);
}

TEST(MaskedSoftmaxFusionTest, SelectsReadElsewhereOrWithATensorFillAreLeftAlone) {
  // The masked scores fetched by name.
  EXPECT_EQ(CountOp(Fused(MaskedSoftmax(Tensor::Scalar<float>(-1e9f)).Build(), {"out", "masked"}),
                    ops::math::kMaskedSoftmaxOp),
            0);
  // A fill of one value per key position is not a scalar fill.
  EXPECT_EQ(CountOp(Fused(MaskedSoftmax(Ramp(Shape({4}), 1.f, -8.f)).Build(), {"out"}), ops::math::kMaskedSoftmaxOp),
            0);
  // Only the reference kernel would run it.
  ir::Graph g = MaskedSoftmax(Tensor::Scalar<float>(-1e9f)).Build();
  PassContext ctx = PassContext::FromRoots(g, {"out"});
  ctx.has_fast_kernel = [](const ir::Node&) { return false; };
  ASSERT_TRUE(MakeMaskedSoftmaxFusion()->Run(&g, ctx).ok());
  EXPECT_EQ(CountOp(g, ops::math::kMaskedSoftmaxOp), 0);
}

}  // namespace
}  // namespace tfhost::passes
