// The FLOP counts `tfhost bench` divides by latency: 2 x multiply-adds of the
// contraction ops, from static shapes with the fed shapes substituted.
#include "runtime/flop_count.h"

#include <gtest/gtest.h>

#include "ir/op_def_util.h"
#include "ir/tensor_proto.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"
#include "ops/shape_inference.h"
#include "base/test_status.h"

namespace tfhost::runtime {
namespace {

using ops::MakeAttr;

class Builder {
 public:
  Builder& Add(const std::string& name, const std::string& op, std::vector<std::string> inputs = {},
               ir::AttrMap attrs = {}) {
    auto* nd = def_.add_node();
    nd->set_name(name);
    nd->set_op(op);
    for (const auto& in : inputs) nd->add_input(in);
    if (op != "Const" && op != "Placeholder" && attrs.count("T") == 0) attrs["T"] = MakeAttr(DType::kFloat);
    for (auto& [k, v] : attrs) (*nd->mutable_attr())[k] = v;
    return *this;
  }
  // dims with -1 for unknown.
  Builder& Placeholder(const std::string& name, std::vector<int64_t> dims) {
    tensorflow::AttrValue s;
    *s.mutable_shape() = ir::PartialShape::Known(dims).ToProto();
    return Add(name, "Placeholder", {}, {{"dtype", MakeAttr(DType::kFloat)}, {"shape", s}});
  }
  Builder& Zeros(const std::string& name, std::vector<int64_t> dims) {
    Tensor t(DType::kFloat, Shape(dims));
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0.f;
    return Add(name, "Const", {}, {{"dtype", MakeAttr(DType::kFloat)}, {"value", MakeAttr(t)}});
  }
  ir::Graph Build() const {
    auto g = ir::Graph::FromGraphDef(def_);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    ir::Graph graph = std::move(*g);
    const auto& registry = ops::OpRegistry::Global();
    for (int i = 0; i < graph.num_nodes(); ++i) {
      if (const auto* r = registry.Find(graph.node(i).op)) ir::FillDefaultAttrs(r->def, &graph.mutable_node(i));
    }
    Status st = ir::InferTypes(graph, registry.Lookup());
    EXPECT_TRUE(st.ok()) << st.ToString();
    st = ops::InferShapes(graph);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return graph;
  }

 private:
  tensorflow::GraphDef def_;
};

TEST(FlopCountTest, MatMulIsTwiceMTimesNTimesK) {
  ir::Graph g = Builder().Placeholder("a", {512, 256}).Placeholder("b", {256, 128}).Add("mm", "MatMul", {"a", "b"}).Build();
  FlopCount c = CountFlops(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 512 * 128 * 256);
  EXPECT_EQ(c.counted_nodes, 1);
  EXPECT_TRUE(c.unknown.empty());
  EXPECT_DOUBLE_EQ(c.flops_by_op["MatMul"], c.flops);
}

TEST(FlopCountTest, TransposedMatMulTakesTheInnerDimFromTheOtherAxis) {
  ir::Graph g = Builder()
                    .Placeholder("a", {256, 512})
                    .Placeholder("b", {128, 256})
                    .Add("mm", "MatMul", {"a", "b"}, {{"transpose_a", MakeAttr(true)}, {"transpose_b", MakeAttr(true)}})
                    .Build();
  EXPECT_DOUBLE_EQ(CountFlops(g).flops, 2.0 * 512 * 128 * 256);
}

TEST(FlopCountTest, Conv2DCountsTheFilterWindowPerOutputElement) {
  // 1x8x8x3 input, 3x3x3x16 filter, SAME, stride 2: output 1x4x4x16.
  ir::Graph g = Builder()
                    .Placeholder("x", {1, 8, 8, 3})
                    .Zeros("w", {3, 3, 3, 16})
                    .Add("conv", "Conv2D", {"x", "w"},
                         {{"strides", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})}, {"padding", MakeAttr("SAME")}})
                    .Add("relu", "Relu", {"conv"})
                    .Build();
  FlopCount c = CountFlops(g);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * (4 * 4 * 16) * (3 * 3 * 3));
  // Element-wise ops count nothing.
  EXPECT_EQ(c.flops_by_op.count("Relu"), 0u);
}

TEST(FlopCountTest, DepthwiseCountsOnlyTheSpatialWindow) {
  ir::Graph g = Builder()
                    .Placeholder("x", {2, 6, 6, 4})
                    .Zeros("w", {3, 3, 4, 2})
                    .Add("dw", "DepthwiseConv2dNative", {"x", "w"},
                         {{"strides", MakeAttr(std::vector<int64_t>{1, 1, 1, 1})}, {"padding", MakeAttr("VALID")}})
                    .Build();
  // Output 2x4x4x8.
  EXPECT_DOUBLE_EQ(CountFlops(g).flops, 2.0 * (2 * 4 * 4 * 8) * 9);
}

TEST(FlopCountTest, BatchMatMulMultipliesEveryBatch) {
  ir::Graph g = Builder()
                    .Placeholder("x", {3, 4, 5})
                    .Placeholder("y", {3, 5, 6})
                    .Add("bmm", "BatchMatMulV2", {"x", "y"})
                    .Build();
  EXPECT_DOUBLE_EQ(CountFlops(g).flops, 2.0 * 3 * 4 * 6 * 5);
}

TEST(FlopCountTest, UnknownBatchIsReportedNotGuessedThenFeedsFillIt) {
  ir::Graph g = Builder().Placeholder("a", {-1, 64}).Zeros("w", {64, 10}).Add("mm", "MatMul", {"a", "w"}).Build();
  FlopCount unknown = CountFlops(g);
  EXPECT_DOUBLE_EQ(unknown.flops, 0);
  ASSERT_EQ(unknown.unknown.size(), 1u);
  EXPECT_EQ(unknown.unknown[0], "mm");

  Tensor a(DType::kFloat, Shape({32, 64}));
  auto fed = CountFlopsForFeeds(g, {{"a:0", &a}});
  ASSERT_TRUE(fed.ok()) << fed.status().ToString();
  EXPECT_DOUBLE_EQ(fed->flops, 2.0 * 32 * 10 * 64);
  EXPECT_TRUE(fed->unknown.empty());
  // The graph itself is left as it was.
  EXPECT_EQ(CountFlops(g).unknown.size(), 1u);
}

TEST(FlopCountTest, EinsumCountsEveryIndexCombination) {
  ir::Graph g = Builder()
                    .Placeholder("x", {2, 3, 4})
                    .Placeholder("y", {4, 5})
                    .Add("e", "Einsum", {"x", "y"}, {{"equation", MakeAttr("bij,jk->bik")}, {"N", MakeAttr(2)}})
                    .Build();
  EXPECT_DOUBLE_EQ(CountFlops(g).flops, 2.0 * 2 * 3 * 4 * 5);
}

TEST(FlopCountTest, FeedsInConflictWithTheGraphAreAnError) {
  ir::Graph g = Builder().Placeholder("a", {-1, 64}).Zeros("w", {64, 10}).Add("mm", "MatMul", {"a", "w"}).Build();
  Tensor a(DType::kFloat, Shape({4, 63}));
  TFHOST_EXPECT_ERROR(CountFlopsForFeeds(g, {{"a:0", &a}}), StatusCode::kInvalidArgument,
                      "shape inference: node 'mm' (MatMul): inner dimensions differ: 63 vs 64 (shapes [4,63] and [64,10])");
  TFHOST_EXPECT_ERROR(CountFlopsForFeeds(g, {{"nope:0", &a}}), StatusCode::kNotFound,
                      "no node named 'nope' for tensor 'nope:0'");
}

}  // namespace
}  // namespace tfhost::runtime
