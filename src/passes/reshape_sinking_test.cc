#include <gtest/gtest.h>

#include <cmath>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

// Keras Dense on [B, T, D]: MatMul on [B*T, D], Reshape to [B, T, N], BiasAdd,
// activation, then a reader.
GraphBuilder Dense3d(const std::string& activation) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {6, 4})
      .Const("w", Ramp(Shape({4, 5}), 0.1f, -0.8f))
      .Add("mm", "MatMul", {"x", "w"})
      .Const("shape", Tensor::FromVector<int32_t>({2, 3, 5}))
      .Add("reshaped", "Reshape", {"mm", "shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Const("b", Ramp(Shape({5}), 0.3f, -0.6f))
      .Add("biased", "BiasAdd", {"reshaped", "b"})
      .Add("act", activation, {"biased"})
      .Add("out", "Neg", {"act"});
  return b;
}

TEST(ReshapeSinkingTest, BiasAndActivationMoveAboveTheReshapeAndTheFusionTakesThem) {
  ir::Graph before = Dense3d("Relu").Build();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"out"});
  ASSERT_TRUE(MakeReshapeSinking()->Run(&after, ctx).ok());
  const ir::Node& reshaped = after.node(after.FindNode("reshaped"));
  EXPECT_EQ(after.node(reshaped.inputs[0].node).name, "act");
  EXPECT_EQ(after.node(after.node(after.FindNode("act")).inputs[0].node).name, "biased");
  EXPECT_EQ(after.node(after.node(after.FindNode("biased")).inputs[0].node).name, "mm");
  EXPECT_EQ(after.node(after.node(after.FindNode("out")).inputs[0].node).name, "reshaped");
  EXPECT_EQ(after.node(after.FindNode("biased")).output_shapes[0].ToString(), "[6,5]");
  EXPECT_EQ(reshaped.output_shapes[0].ToString(), "[2,3,5]");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({6, 4}), 0.25f, -1.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));

  ir::Graph fused = before;
  ASSERT_TRUE(PassManager::Default().Run(&fused, PassContext::FromRoots(fused, {"out"})).ok());
  EXPECT_EQ(CountOp(fused, "_FusedMatMul"), 1);
  EXPECT_EQ(CountOp(fused, "BiasAdd") + CountOp(fused, "Relu"), 0);
  // The fused kernel accumulates the product in its own order: float rounding.
  const Tensor want = Evaluate(before, feeds, {"out"})[0], got = Evaluate(fused, feeds, {"out"})[0];
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5 * (1 + std::fabs(want.data<float>()[i]))) << i;
  }
}

TEST(ReshapeSinkingTest, TensordotShapeOfGatheredBatchDimsAndAConstantLastDimIsEnough) {
  // Tensordot's output shape: concat(Gather(Shape(x), free), [N]); the batch
  // is unknown, so the Reshape's static shape is not, but its last dim is N.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {-1, 4})
      .Const("w", Ramp(Shape({4, 5}), 0.1f, -0.8f))
      .Add("mm", "MatMul", {"x", "w"})
      .Placeholder("batch_dims", DType::kInt32, {2})
      .Const("n", Tensor::FromVector<int32_t>({5}))
      .Const("axis", Tensor::FromVector<int32_t>({0}, Shape({})))
      .Add("shape", "ConcatV2", {"batch_dims", "n", "axis"},
           {{"T", ops::MakeAttr(DType::kInt32)}, {"N", ops::MakeAttr(2)}, {"Tidx", ops::MakeAttr(DType::kInt32)}})
      .Add("reshaped", "Reshape", {"mm", "shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Const("b", Ramp(Shape({5}), 0.3f, -0.6f))
      .Add("biased", "BiasAdd", {"reshaped", "b"})
      .Add("out", "Tanh", {"biased"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  ASSERT_TRUE(MakeReshapeSinking()->Run(&after, PassContext::FromRoots(after, {"out"})).ok());
  EXPECT_EQ(after.node(after.node(after.FindNode("biased")).inputs[0].node).name, "mm");
  EXPECT_EQ(after.node(after.node(after.FindNode("out")).inputs[0].node).name, "reshaped");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({6, 4}), 0.25f, -1.f)},
                                      {"batch_dims", Tensor::FromVector<int32_t>({2, 3})}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

TEST(ReshapeSinkingTest, EinsumDenseBiasInTheRowsDimsMovesAsAFlatBiasAndFuses) {
  // Keras's EinsumDense on attention's query: BatchMatMulV2 to [B, T, H*D],
  // Reshape to [B, T, H, D], AddV2 of an [H, D] bias.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3, 4})
      .Const("w", Ramp(Shape({4, 6}), 0.1f, -0.8f))
      .Add("mm", "BatchMatMulV2", {"x", "w"})
      .Const("shape", Tensor::FromVector<int32_t>({-1, 3, 2, 3}))
      .Add("heads", "Reshape", {"mm", "shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Const("b", Ramp(Shape({2, 3}), 0.3f, -0.6f))
      .Add("biased", "AddV2", {"heads", "b"})
      .Add("out", "Neg", {"biased"});
  ir::Graph before = b.Build();
  ir::Graph after = before;
  ASSERT_TRUE(MakeReshapeSinking()->Run(&after, PassContext::FromRoots(after, {"out"})).ok());
  const ir::Node& biased = after.node(after.FindNode("biased"));
  EXPECT_EQ(after.node(biased.inputs[0].node).name, "mm");
  EXPECT_EQ(after.node(biased.inputs[1].node).output_shapes[0].ToString(), "[6]");
  EXPECT_EQ(biased.output_shapes[0].ToString(), "[2,3,6]");
  EXPECT_EQ(after.node(after.node(after.FindNode("out")).inputs[0].node).name, "heads");
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 3, 4}), 0.25f, -1.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));

  ir::Graph fused = before;
  ASSERT_TRUE(PassManager::Default().Run(&fused, PassContext::FromRoots(fused, {"out"})).ok());
  EXPECT_EQ(CountOp(fused, "_TfhostFusedBatchMatMul"), 1);
  EXPECT_EQ(CountOp(fused, "AddV2"), 0);

  // A bias broadcast along a row's dims ([2, 1]: one value per head) is no
  // row bias of the product: it stays below the Reshape.
  GraphBuilder other;
  other.Placeholder("x", DType::kFloat, {2, 3, 4})
      .Const("w", Ramp(Shape({4, 6}), 0.1f, -0.8f))
      .Add("mm", "BatchMatMulV2", {"x", "w"})
      .Const("shape", Tensor::FromVector<int32_t>({2, 3, 2, 3}))
      .Add("heads", "Reshape", {"mm", "shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Const("b", Ramp(Shape({2, 1}), 0.3f, -0.6f))
      .Add("biased", "AddV2", {"heads", "b"});
  ir::Graph g = other.Build();
  ASSERT_TRUE(MakeReshapeSinking()->Run(&g, PassContext::FromRoots(g, {"biased"})).ok());
  EXPECT_EQ(g.node(g.node(g.FindNode("biased")).inputs[0].node).name, "heads");
}

TEST(ReshapeSinkingTest, KeptNamesReshapesThatChangeTheLastDimAndOtherProducersStay) {
  {
    ir::Graph g = Dense3d("Relu").Build();
    ASSERT_TRUE(MakeReshapeSinking()->Run(&g, PassContext::FromRoots(g, {"out", "biased"})).ok());
    EXPECT_EQ(g.node(g.node(g.FindNode("biased")).inputs[0].node).name, "reshaped");
  }
  {
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {6, 4})
        .Const("w", Ramp(Shape({4, 6}), 0.1f, -0.8f))
        .Add("mm", "MatMul", {"x", "w"})
        .Const("shape", Tensor::FromVector<int32_t>({4, 9}))  // rows of 6 split across rows of 9
        .Add("reshaped", "Reshape", {"mm", "shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
        .Add("act", "Relu", {"reshaped"});
    ir::Graph g = b.Build();
    ASSERT_TRUE(MakeReshapeSinking()->Run(&g, PassContext::FromRoots(g, {"act"})).ok());
    EXPECT_EQ(g.node(g.node(g.FindNode("act")).inputs[0].node).name, "reshaped");
  }
  {
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {6, 5})
        .Add("neg", "Neg", {"x"})
        .Const("shape", Tensor::FromVector<int32_t>({2, 3, 5}))
        .Add("reshaped", "Reshape", {"neg", "shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
        .Add("act", "Relu", {"reshaped"});
    ir::Graph g = b.Build();
    ASSERT_TRUE(MakeReshapeSinking()->Run(&g, PassContext::FromRoots(g, {"act"})).ok());
    EXPECT_EQ(g.node(g.node(g.FindNode("act")).inputs[0].node).name, "reshaped");
  }
}

}  // namespace
}  // namespace tfhost::passes
