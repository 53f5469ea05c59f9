#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::GraphBuilder;

// Whether `name` carries _tfhost_precision = "bf16".
bool MarkedBf16(const ir::Graph& g, const std::string& name) {
  const ir::Node& n = g.node(g.FindNode(name));
  const tensorflow::AttrValue* v = n.FindAttr("_tfhost_precision");
  return v != nullptr && v->s() == "bf16";
}

Tensor Values(Shape shape) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0.25f * static_cast<float>(i % 9) - 1.f;
  return t;
}

ir::AttrMap ConvAttrs() {
  return {{"strides", ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1})}, {"padding", ops::MakeAttr(std::string("SAME"))}};
}

// Products with 128 output channels (wide enough for bf16) and an int32 one.
ir::Graph MixedGraph() {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
      .Const("w", Values(Shape({1, 1, 2, 128})))
      .Add("conv", "Conv2D", {"x", "w"}, ConvAttrs())
      .Const("dw", Values(Shape({1, 1, 128, 1})))
      .Add("depthwise", "DepthwiseConv2dNative", {"conv", "dw"}, ConvAttrs())
      .Add("relu", "Relu", {"depthwise"})
      .Placeholder("m", DType::kFloat, {3, 2})
      .Placeholder("n", DType::kFloat, {2, 128})
      .Add("mm", "MatMul", {"m", "n"})
      .Add("bmm", "BatchMatMulV2", {"m", "n"})
      .Placeholder("i", DType::kInt32, {2, 2})
      .Add("imm", "MatMul", {"i", "i"}, {{"T", ops::MakeAttr(DType::kInt32)}});
  return b.Build();
}

TEST(PrecisionPassTest, Bf16MarksOnlyWideFloatConvolutionsAndMatrixProducts) {
  ir::Graph g = MixedGraph();
  const int nodes_before = g.num_nodes();
  ASSERT_TRUE(MakePrecisionPass(Precision::kBf16)->Run(&g, PassContext::FromRoots(g, {})).ok());
  EXPECT_EQ(g.num_nodes(), nodes_before);
  EXPECT_TRUE(MarkedBf16(g, "conv"));
  EXPECT_TRUE(MarkedBf16(g, "depthwise"));
  EXPECT_TRUE(MarkedBf16(g, "mm"));
  EXPECT_TRUE(MarkedBf16(g, "bmm"));
  EXPECT_FALSE(MarkedBf16(g, "imm"));  // int32 MatMul
  for (const char* other : {"x", "w", "dw", "relu", "m", "n", "i"}) {
    EXPECT_EQ(g.node(g.FindNode(other)).FindAttr("_tfhost_precision"), nullptr) << other;
  }
}

TEST(PrecisionPassTest, NarrowProductsStayFloat32) {
  // Fewer than 128 output channels (the 4-channel head of a matting model,
  // a 64-unit dense layer, a transposed weight of 8 rows) or an unknown count.
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
      .Const("w4", Values(Shape({1, 1, 2, 4})))
      .Add("head", "Conv2D", {"x", "w4"}, ConvAttrs())
      .Placeholder("m", DType::kFloat, {3, 256})
      .Const("w64", Values(Shape({256, 64})))
      .Add("dense64", "MatMul", {"m", "w64"})
      .Const("w8t", Values(Shape({8, 256})))
      .Add("dense8", "MatMul", {"m", "w8t"}, {{"transpose_b", ops::MakeAttr(true)}})
      .Const("w256t", Values(Shape({256, 256})))
      .Add("dense256", "MatMul", {"m", "w256t"}, {{"transpose_b", ops::MakeAttr(true)}})
      .Placeholder("u", DType::kFloat, {-1, -1})
      .Add("unknown", "MatMul", {"m", "u"});
  ir::Graph g = b.Build();
  ASSERT_TRUE(MakePrecisionPass(Precision::kBf16)->Run(&g, PassContext::FromRoots(g, {})).ok());
  EXPECT_FALSE(MarkedBf16(g, "head"));
  EXPECT_FALSE(MarkedBf16(g, "dense64"));
  EXPECT_FALSE(MarkedBf16(g, "dense8"));
  EXPECT_FALSE(MarkedBf16(g, "unknown"));
  EXPECT_TRUE(MarkedBf16(g, "dense256"));
}

TEST(PrecisionPassTest, Fp32LeavesEveryNodeUnmarked) {
  ir::Graph g = MixedGraph();
  ASSERT_TRUE(MakePrecisionPass(Precision::kFp32)->Run(&g, PassContext::FromRoots(g, {})).ok());
  for (int i = 0; i < g.num_nodes(); ++i) EXPECT_EQ(g.node(i).FindAttr("_tfhost_precision"), nullptr);
}

TEST(PrecisionPassTest, Fp32StrictMarksEveryFloatProductNarrowOnesIncluded) {
  ir::Graph g = MixedGraph();
  ASSERT_TRUE(MakePrecisionPass(Precision::kFp32Strict)->Run(&g, PassContext::FromRoots(g, {})).ok());
  for (const char* product : {"conv", "depthwise", "mm", "bmm"}) {
    const tensorflow::AttrValue* v = g.node(g.FindNode(product)).FindAttr("_tfhost_fp32_strict");
    ASSERT_NE(v, nullptr) << product;
    EXPECT_TRUE(v->b()) << product;
    EXPECT_FALSE(MarkedBf16(g, product)) << product;
  }
  for (const char* other : {"imm", "x", "w", "relu", "m"}) {
    EXPECT_EQ(g.node(g.FindNode(other)).FindAttr("_tfhost_fp32_strict"), nullptr) << other;
  }
}

TEST(PrecisionPassTest, MarkedGraphStillRunsOnTheReferenceKernels) {
  ir::Graph before = MixedGraph();
  ir::Graph after = before;
  ASSERT_TRUE(MakePrecisionPass(Precision::kBf16)->Run(&after, PassContext::FromRoots(after, {})).ok());
  std::vector<float> xs(32);
  for (int i = 0; i < 32; ++i) xs[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  std::map<std::string, Tensor> feeds{
      {"x", *Tensor::FromVector<float>(xs).Reshaped(Shape({1, 4, 4, 2}))},
      {"m", *Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}).Reshaped(Shape({3, 2}))},
      {"n", Values(Shape({2, 128}))},
      {"i", *Tensor::FromVector<int32_t>({1, 2, 3, 4}).Reshaped(Shape({2, 2}))}};
  testing::ExpectSameTensors(testing::Evaluate(before, feeds, {"relu", "mm", "bmm", "imm"}),
                             testing::Evaluate(after, feeds, {"relu", "mm", "bmm", "imm"}));
}

}  // namespace
}  // namespace tfhost::passes
