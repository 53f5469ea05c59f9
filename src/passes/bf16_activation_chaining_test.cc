#include <gtest/gtest.h>

#include "ir/precision_attrs.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::GraphBuilder;

Tensor Values(Shape shape) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0.125f * static_cast<float>(i % 11) - 0.5f;
  return t;
}

ir::AttrMap ConvAttrs(ir::AttrMap extra = {}) {
  extra["strides"] = ops::MakeAttr(std::vector<int64_t>{1, 1, 1, 1});
  extra["padding"] = ops::MakeAttr(std::string("SAME"));
  return extra;
}

// The node called `name`, or null (a failure naming what the graph holds).
const ir::Node* Named(const ir::Graph& g, const std::string& name) {
  const int i = g.FindNode(name);
  if (i >= 0) return &g.node(i);
  std::string names;
  for (const auto& n : g.nodes()) names += " " + n.name + "(" + n.op + ")";
  ADD_FAILURE() << "no node '" << name << "'; the graph has:" << names;
  return nullptr;
}

bool StoresBf16(const ir::Graph& g, const std::string& name) {
  const ir::Node* found = Named(g, name);
  if (found == nullptr) return false;
  const ir::Node& n = *found;
  const tensorflow::AttrValue* v = n.FindAttr(ir::kOutputDtypeAttr);
  const bool attr = v != nullptr && v->type() == tensorflow::DT_BFLOAT16;
  EXPECT_EQ(attr, n.output_dtypes[0] == DType::kBFloat16) << name << ": attr and output dtype disagree";
  return attr;
}

bool ReadsBf16(const ir::Graph& g, const std::string& name) {
  const ir::Node* n = Named(g, name);
  if (n == nullptr) return false;
  const tensorflow::AttrValue* v = n->FindAttr(ir::kBf16InputAttr);
  return v != nullptr && v->b();
}

// The inverted-residual block of a MobileNetV2: 1x1 expand -> 3x3 depthwise
// -> 1x1 project, 128+ channels so the precision pass marks all three, then
// a residual add of the block's input.
GraphBuilder Block() {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 128})
      .Const("w_expand", Values(Shape({1, 1, 128, 256})))
      .Add("expand", "Conv2D", {"x", "w_expand"}, ConvAttrs())
      .Add("expand_relu", "Relu6", {"expand"})
      .Const("w_dw", Values(Shape({3, 3, 256, 1})))
      .Add("dw", "DepthwiseConv2dNative", {"expand_relu", "w_dw"}, ConvAttrs())
      .Const("w_project", Values(Shape({1, 1, 256, 128})))
      .Add("project", "Conv2D", {"dw", "w_project"}, ConvAttrs())
      .Add("out", "AddV2", {"project", "x"});
  return b;
}

// The loader's order: the default passes (fusing the Relu6 into the
// expand convolution), the precision pass, then this one.
ir::Graph Optimized(ir::Graph g, const std::vector<std::string>& roots) {
  const PassContext ctx = PassContext::FromRoots(g, roots);
  EXPECT_TRUE(PassManager::Default().Run(&g, ctx).ok());
  const PassContext after = PassContext::FromRoots(g, roots);
  EXPECT_TRUE(MakePrecisionPass(Precision::kBf16)->Run(&g, after).ok());
  EXPECT_TRUE(MakeBf16ActivationChaining()->Run(&g, after).ok());
  return g;
}

TEST(Bf16ActivationChainingTest, ConvolutionsReadOnlyByBf16ConvolutionsStoreBf16) {
  ir::Graph g = Optimized(Block().Build(), {"out"});
  // The default passes fused the Relu6 into the expand convolution, under
  // the Relu6's name.
  ASSERT_EQ(Named(g, "expand_relu")->op, "_FusedConv2D");
  // expand's only reader is dw, dw's only reader is project: both edges bf16.
  EXPECT_TRUE(StoresBf16(g, "expand_relu"));
  EXPECT_TRUE(ReadsBf16(g, "dw"));
  EXPECT_TRUE(StoresBf16(g, "dw"));
  EXPECT_TRUE(ReadsBf16(g, "project"));
  EXPECT_FALSE(ReadsBf16(g, "expand_relu"));  // reads the float32 placeholder
  // project's output goes to the residual add (not a convolution): float32.
  const int out = g.FindNode("out");
  ASSERT_GE(out, 0);
  const int project = g.node(out).inputs[0].node;
  EXPECT_FALSE(StoresBf16(g, g.node(project).name));
}

TEST(Bf16ActivationChainingTest, FetchableWritersStayFloat32) {
  // A caller asking for dw's output gets float32, as the model declares it.
  ir::Graph g = Optimized(Block().Build(), {"out", "dw"});
  EXPECT_TRUE(StoresBf16(g, "expand_relu"));
  EXPECT_FALSE(StoresBf16(g, "dw"));
  EXPECT_FALSE(ReadsBf16(g, "project"));
}

TEST(Bf16ActivationChainingTest, OutputWithAnyOtherReaderStaysFloat32) {
  // expand also feeds a Relu: that reader wants float32.
  GraphBuilder b = Block();
  b.Add("side", "Relu", {"expand"});
  ir::Graph g = Optimized(b.Build(), {"out", "side"});
  // The default passes cannot fuse the Relu6 (expand has two readers), so dw
  // reads the Relu6: expand keeps float32.
  EXPECT_FALSE(StoresBf16(g, "expand"));
  EXPECT_TRUE(StoresBf16(g, "dw"));
}

// expand (256 channels) -> dw -> project with 64 output channels, which the
// precision pass leaves float32.
GraphBuilder NarrowProjection(const std::string& dw_input) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 128})
      .Placeholder("wide", DType::kFloat, {1, 4, 4, 256})
      .Const("w_expand", Values(Shape({1, 1, 128, 256})))
      .Add("expand", "Conv2D", {"x", "w_expand"}, ConvAttrs())
      .Const("w_dw", Values(Shape({3, 3, 256, 1})))
      .Add("dw", "DepthwiseConv2dNative", {dw_input, "w_dw"}, ConvAttrs())
      .Const("w_project", Values(Shape({1, 1, 256, 64})))
      .Add("project", "Conv2D", {"dw", "w_project"}, ConvAttrs());
  return b;
}

TEST(Bf16ActivationChainingTest, NarrowFloat32ConvolutionReadsTheOutputOfABf16DepthwiseWidened) {
  ir::Graph g = Optimized(NarrowProjection("expand").Build(), {"project", "x"});
  EXPECT_TRUE(StoresBf16(g, "expand"));
  EXPECT_TRUE(ReadsBf16(g, "dw"));
  // dw computes in bf16 (its input is bf16), so its float32 reader takes
  // the rounded activations and keeps float32 weights: no precision mark.
  EXPECT_TRUE(StoresBf16(g, "dw"));
  EXPECT_TRUE(ReadsBf16(g, "project"));
  EXPECT_EQ(Named(g, "project")->FindAttr(ir::kPrecisionAttr), nullptr);
  EXPECT_FALSE(StoresBf16(g, "project"));  // fetched
}

TEST(Bf16ActivationChainingTest, DepthwiseWithFloat32InputKeepsFloat32ForFloat32Readers) {
  // dw reads a placeholder: it computes in float32, so storing bf16 for a
  // float32 reader would be a rounding with nothing saved.
  ir::Graph g = Optimized(NarrowProjection("wide").Build(), {"project", "expand"});
  EXPECT_FALSE(ReadsBf16(g, "dw"));
  EXPECT_FALSE(StoresBf16(g, "dw"));
  EXPECT_FALSE(ReadsBf16(g, "project"));
}

TEST(Bf16ActivationChainingTest, NonConvolutionReadersBreakTheChain) {
  GraphBuilder b = NarrowProjection("expand");
  b.Add("side", "Relu", {"dw"});
  ir::Graph g = Optimized(b.Build(), {"project", "side"});
  EXPECT_TRUE(StoresBf16(g, "expand"));
  EXPECT_FALSE(StoresBf16(g, "dw"));
  EXPECT_FALSE(ReadsBf16(g, "project"));
}

// A narrow float32 projection (64 channels, unmarked) with a residual sum,
// read by `reader`: a wide 1x1 expansion, or a depthwise convolution with
// channel multiplier 2 (128 channels: marked).
GraphBuilder NarrowSumReadBy(const std::string& reader) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 256})
      .Placeholder("skip", DType::kFloat, {1, 4, 4, 64})
      .Const("w_project", Values(Shape({1, 1, 256, 64})))
      .Const("bias", Values(Shape({64})))
      .Add("project", "Conv2D", {"x", "w_project"}, ConvAttrs())
      .Add("project_bias", "BiasAdd", {"project", "bias"})
      .Add("sum", "AddV2", {"project_bias", "skip"});
  if (reader == "expand") {
    b.Const("w_expand", Values(Shape({1, 1, 64, 256}))).Add("next", "Conv2D", {"sum", "w_expand"}, ConvAttrs());
  } else {
    b.Const("w_dw", Values(Shape({3, 3, 64, 2}))).Add("next", "DepthwiseConv2dNative", {"sum", "w_dw"}, ConvAttrs());
  }
  return b;
}

TEST(Bf16ActivationChainingTest, Float32WriterReadOnlyByBf16ConvolutionsStoresWhatTheyWouldRound) {
  ir::Graph g = Optimized(NarrowSumReadBy("expand").Build(), {"next"});
  // residual_add_fusion folded the sum into the projection, under its name.
  const ir::Node* sum = Named(g, "sum");
  ASSERT_NE(sum, nullptr);
  ASSERT_EQ(sum->op, "_FusedConv2D");
  EXPECT_EQ(sum->FindAttr(ir::kPrecisionAttr), nullptr);  // 64 channels: float32
  EXPECT_NE(Named(g, "next")->FindAttr(ir::kPrecisionAttr), nullptr);
  EXPECT_TRUE(StoresBf16(g, "sum"));
  EXPECT_TRUE(ReadsBf16(g, "next"));
}

TEST(Bf16ActivationChainingTest, Float32WriterKeepsFloat32ForADepthwiseReader) {
  // A bf16 depthwise reader computes in float32 from float32 activations:
  // bf16 ones would change its arithmetic, not just its input's bytes.
  ir::Graph g = Optimized(NarrowSumReadBy("depthwise").Build(), {"next"});
  EXPECT_NE(Named(g, "next")->FindAttr(ir::kPrecisionAttr), nullptr);
  EXPECT_FALSE(StoresBf16(g, "sum"));
  EXPECT_FALSE(ReadsBf16(g, "next"));
}

TEST(Bf16ActivationChainingTest, NchwAndResidualSumWritersStayFloat32) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 128, 4, 4})
      .Const("w1", Values(Shape({1, 1, 128, 128})))
      .Add("nchw1", "Conv2D", {"x", "w1"}, ConvAttrs({{"data_format", ops::MakeAttr(std::string("NCHW"))}}))
      .Add("nchw2", "Conv2D", {"nchw1", "w1"}, ConvAttrs({{"data_format", ops::MakeAttr(std::string("NCHW"))}}));
  ir::Graph g = Optimized(b.Build(), {"nchw2"});
  EXPECT_FALSE(StoresBf16(g, "nchw1"));

  // A fused residual Add accumulates into its float32 residual.
  GraphBuilder r;
  r.Placeholder("x", DType::kFloat, {1, 4, 4, 128})
      .Const("w", Values(Shape({1, 1, 128, 128})))
      .Const("bias", Values(Shape({128})))
      .Add("c1", "Conv2D", {"x", "w"}, ConvAttrs())
      .Add("c1b", "BiasAdd", {"c1", "bias"})
      .Add("sum", "AddV2", {"c1b", "x"})
      .Add("c2", "Conv2D", {"sum", "w"}, ConvAttrs());
  ir::Graph rg = Optimized(r.Build(), {"c2"});
  int residual_writers = 0;
  for (int i = 0; i < rg.num_nodes(); ++i) {
    const ir::Node& n = rg.node(i);
    auto fused = ir::GetAttrOr<std::vector<std::string>>(n, "fused_ops", {});
    if (fused.ok() && std::find(fused->begin(), fused->end(), "Add") != fused->end()) {
      ++residual_writers;
      EXPECT_FALSE(StoresBf16(rg, n.name)) << n.name << " has a fused residual Add";
    }
  }
  EXPECT_EQ(residual_writers, 1) << "residual_add_fusion did not fuse the Add into c1";
  EXPECT_FALSE(ReadsBf16(rg, "c2"));
}

TEST(Bf16ActivationChainingTest, LeavesUnmarkedGraphsAlone) {
  // Without the precision pass nothing is bf16, so nothing is chained.
  ir::Graph g = Block().Build();
  ASSERT_TRUE(MakeBf16ActivationChaining()->Run(&g, PassContext::FromRoots(g, {"out"})).ok());
  for (int i = 0; i < g.num_nodes(); ++i) {
    EXPECT_EQ(g.node(i).FindAttr(ir::kOutputDtypeAttr), nullptr) << g.node(i).name;
    EXPECT_EQ(g.node(i).FindAttr(ir::kBf16InputAttr), nullptr) << g.node(i).name;
  }
}

}  // namespace
}  // namespace tfhost::passes
