#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

const ir::AttrMap kInt32 = {{"T", ops::MakeAttr(DType::kInt32)}};

ir::AttrMap Gather() {
  return {{"Tparams", ops::MakeAttr(DType::kInt32)}, {"Tindices", ops::MakeAttr(DType::kInt32)},
          {"Taxis", ops::MakeAttr(DType::kInt32)}};
}

// tf.tensordot(v, w, 1) on v = x * s (x [B, 4, 6], s [1, 6]: a broadcast
// the symbolic shapes follow) and w [6, 5], as TensorFlow writes it.
GraphBuilder Tensordot() {
  GraphBuilder b;
  b.Placeholder("in", DType::kFloat, {-1, 4, 6})
      .Const("s", Ramp(Shape({1, 6}), 0.5f, 0.25f))
      .Add("x", "Mul", {"in", "s"})
      .Const("w", Ramp(Shape({6, 5}), 0.1f, -0.3f))
      .Const("free", Tensor::FromVector<int32_t>({0, 1}))
      .Const("axes", Tensor::FromVector<int32_t>({2}))
      .Const("zero", Tensor::Scalar<int32_t>(0))
      .Const("reduce0", Tensor::FromVector<int32_t>({0}))
      .Const("perm", Tensor::FromVector<int32_t>({0, 1, 2}))
      .Const("n", Tensor::FromVector<int32_t>({5}))
      .Add("shape", "Shape", {"x"}, {{"out_type", ops::MakeAttr(DType::kInt32)}})
      .Add("free_dims", "GatherV2", {"shape", "free", "zero"}, Gather())
      .Add("axes_dims", "GatherV2", {"shape", "axes", "zero"}, Gather())
      .Add("rows", "Prod", {"free_dims", "reduce0"}, kInt32)
      .Add("depth", "Prod", {"axes_dims", "reduce0"}, kInt32)
      .Add("flat_shape", "Pack", {"rows", "depth"}, {{"T", ops::MakeAttr(DType::kInt32)}, {"N", ops::MakeAttr(2)}})
      .Add("transposed", "Transpose", {"x", "perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("flat", "Reshape", {"transposed", "flat_shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Add("product", "MatMul", {"flat", "w"})
      .Add("out_shape", "ConcatV2", {"free_dims", "n", "zero"},
           {{"T", ops::MakeAttr(DType::kInt32)}, {"N", ops::MakeAttr(2)}, {"Tidx", ops::MakeAttr(DType::kInt32)}})
      .Add("out", "Reshape", {"product", "out_shape"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Add("y", "Relu", {"out"});
  return b;
}

std::vector<int64_t> ShapeInput(const ir::Graph& g, const std::string& reshape) {
  const ir::Node& n = g.node(g.FindNode(reshape));
  auto value = ir::GetAttr<Tensor>(g.node(n.inputs[1].node), "value");
  EXPECT_TRUE(value.ok()) << reshape << "'s shape is not a Const";
  if (!value.ok()) return {};
  return *value->ToInt64Vector();
}

TEST(ReshapeShapeFoldingTest, TensordotShapesBecomeConstantsWithMinusOneForTheBatch) {
  const ir::Graph before = Tensordot().Build();
  const ir::Graph after = testing::RunPassAndPrune(before, *MakeReshapeShapeFolding(), {"y"});
  EXPECT_EQ(ShapeInput(after, "flat"), (std::vector<int64_t>{-1, 6}));
  EXPECT_EQ(ShapeInput(after, "out"), (std::vector<int64_t>{-1, 4, 5}));
  for (const char* op : {"Shape", "GatherV2", "Prod", "Pack", "ConcatV2"}) EXPECT_EQ(CountOp(after, op), 0) << op;
  for (int64_t batch : {3, 1, 0}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::map<std::string, Tensor> feeds{{"in", Ramp(Shape({batch, 4, 6}), 0.25f, -2.f)}};
    testing::ExpectSameTensors(Evaluate(before, feeds, {"y"}), Evaluate(after, feeds, {"y"}));
  }
}

TEST(ReshapeShapeFoldingTest, AShapeOfAnotherTensorsUnknownDimIsLeftAlone) {
  // x [B, 6] reshaped to [rows of z, 6]: z's batch need not be x's, so -1
  // could resolve to another value than the one TensorFlow would check.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {-1, 6})
      .Placeholder("z", DType::kFloat, {-1, 2})
      .Const("first", Tensor::FromVector<int32_t>({0}))
      .Const("zero", Tensor::Scalar<int32_t>(0))
      .Const("six", Tensor::FromVector<int32_t>({6}))
      .Add("shape", "Shape", {"z"}, {{"out_type", ops::MakeAttr(DType::kInt32)}})
      .Add("rows", "GatherV2", {"shape", "first", "zero"}, Gather())
      .Add("target", "ConcatV2", {"rows", "six", "zero"},
           {{"T", ops::MakeAttr(DType::kInt32)}, {"N", ops::MakeAttr(2)}, {"Tidx", ops::MakeAttr(DType::kInt32)}})
      .Add("out", "Reshape", {"x", "target"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}});
  const ir::Graph after = testing::RunPassAndPrune(b.Build(), *MakeReshapeShapeFolding(), {"out"});
  EXPECT_EQ(after.node(after.node(after.FindNode("out")).inputs[1].node).op, "ConcatV2");
}

TEST(ReshapeShapeFoldingTest, AFullyKnownComputedShapeBecomesThatConstant) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 3})
      .Const("reduce0", Tensor::FromVector<int32_t>({0}))
      .Add("shape", "Shape", {"x"}, {{"out_type", ops::MakeAttr(DType::kInt32)}})
      .Add("count", "Prod", {"shape", "reduce0"}, kInt32)
      .Add("target", "Pack", {"count"}, {{"T", ops::MakeAttr(DType::kInt32)}, {"N", ops::MakeAttr(1)}})
      .Add("out", "Reshape", {"x", "target"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}});
  const ir::Graph before = b.Build();
  const ir::Graph after = testing::RunPassAndPrune(before, *MakeReshapeShapeFolding(), {"out"});
  EXPECT_EQ(ShapeInput(after, "out"), (std::vector<int64_t>{6}));
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({2, 3}), 1.f, 0.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

}  // namespace
}  // namespace tfhost::passes
