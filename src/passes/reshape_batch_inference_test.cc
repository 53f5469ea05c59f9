#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v, Shape({static_cast<int64_t>(v.size())})); }
Tensor Scalar32(int32_t v) { return Tensor::FromVector<int32_t>({v}, Shape({})); }

ir::AttrMap SliceAttrs() {
  return {{"T", ops::MakeAttr(DType::kInt32)},
          {"Index", ops::MakeAttr(DType::kInt32)},
          {"shrink_axis_mask", ops::MakeAttr(int64_t{1})}};
}

// Keras's Reshape layer on `source` of static shape [-1, 3, 4] (or `dims`):
// Reshape(x, Pack(StridedSlice(Shape(shape_of))[dim], c...)), dim 0 as Keras
// writes it.
GraphBuilder KerasReshape(std::vector<int32_t> target, const std::string& shape_of = "x",
                          std::vector<int64_t> dims = {-1, 3, 4}, int32_t dim = 0) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, dims)
      .Placeholder("other", DType::kFloat, dims)
      .Add("shape", "Shape", {shape_of}, {{"out_type", ops::MakeAttr(DType::kInt32)}})
      .Const("begin", I32({dim}))
      .Const("end", I32({dim + 1}))
      .Const("strides", I32({1}))
      .Add("batch", "StridedSlice", {"shape", "begin", "end", "strides"}, SliceAttrs());
  std::vector<std::string> packed = {"batch"};
  for (size_t i = 0; i < target.size(); ++i) {
    b.Const("c" + std::to_string(i), Scalar32(target[i]));
    packed.push_back("c" + std::to_string(i));
  }
  b.Add("target", "Pack", packed,
        {{"T", ops::MakeAttr(DType::kInt32)}, {"N", ops::MakeAttr(static_cast<int64_t>(packed.size()))}})
      .Add("reshaped", "Reshape", {"x", "target"}, {{"Tshape", ops::MakeAttr(DType::kInt32)}})
      .Add("out", "Relu", {"reshaped"});
  return b;
}

std::vector<int64_t> ShapeInput(const ir::Graph& g) {
  const ir::Node& reshape = g.node(g.FindNode("reshaped"));
  const ir::Node& shape = g.node(reshape.inputs[1].node);
  if (shape.op != "Const") return {};
  return *ir::GetAttr<Tensor>(shape, "value")->ToInt64Vector();
}

ir::Graph Optimized(ir::Graph g) {
  return testing::RunPassAndPrune(std::move(g), *MakeReshapeBatchInference(), {"out"});
}

TEST(ReshapeBatchInferenceTest, KerasReshapeOfItsOwnBatchSizeReadsAConstantShapeAndDropsShapeSliceAndPack) {
  const std::vector<std::pair<std::vector<int32_t>, std::vector<int64_t>>> cases = {
      {{1, 1, 12}, {-1, 1, 1, 12}}, {{2, 6}, {-1, 2, 6}}, {{12}, {-1, 12}}, {{-1, 2}, {-1, 6, 2}},
      {{3, -1, 1}, {-1, 3, 4, 1}}};
  for (const auto& [target, want] : cases) {
    SCOPED_TRACE(::testing::PrintToString(target));
    const ir::Graph before = KerasReshape(target).Build();
    const ir::Graph after = Optimized(before);
    EXPECT_EQ(ShapeInput(after), want);
    EXPECT_EQ(CountOp(after, "Shape") + CountOp(after, "StridedSlice") + CountOp(after, "Pack"), 0);
    for (int64_t batch : {0, 1, 5}) {
      std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({batch, 3, 4}), 0.5f, -3.f)},
                                          {"other", Ramp(Shape({2, 3, 4}), 1.f, 0.f)}};
      testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
    }
  }
}

TEST(ReshapeBatchInferenceTest, ShapesThatCouldDifferFromTheBatchSizeAreLeftAsTheyAre) {
  struct Case {
    const char* why;
    GraphBuilder graph;
  };
  std::vector<Case> cases = {
      {"the batch size of another tensor", KerasReshape({1, 12}, "other")},
      {"a product that does not match", KerasReshape({1, 6})},
      {"a -1 that does not divide", KerasReshape({5, -1})},
      {"two -1", KerasReshape({-1, -1})},
      {"a zero dim", KerasReshape({0, 12})},
      {"an unknown inner dim", KerasReshape({1, 12}, "x", {-1, -1, 4})},
      {"an empty item", KerasReshape({1, 0}, "x", {-1, 0, 4})},
      {"another dim's size", KerasReshape({1, 4}, "x", {-1, 3, 4}, /*dim=*/1)},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.why);
    const ir::Graph after = Optimized(c.graph.Build());
    EXPECT_TRUE(ShapeInput(after).empty()) << ::testing::PrintToString(ShapeInput(after));
    EXPECT_EQ(CountOp(after, "Pack"), 1);
  }
}

}  // namespace
}  // namespace tfhost::passes
