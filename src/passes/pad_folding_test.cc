#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

Tensor Paddings(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v, Shape({4, 2})); }

ir::AttrMap ConvAttrs(int stride, const std::string& padding) {
  return {{"strides", ops::MakeAttr(std::vector<int64_t>{1, stride, stride, 1})}, {"padding", ops::MakeAttr(padding)}};
}

TEST(PadFoldingTest, ZeroPadBeforeAStridedValidConvolutionBecomesItsExplicitPadding) {
  // Keras: ZeroPadding2D(correct_pad) then a stride-2 "valid" convolution.
  for (const char* op : {"Conv2D", "DepthwiseConv2dNative"}) {
    SCOPED_TRACE(op);
    GraphBuilder b;
    b.Placeholder("x", DType::kFloat, {1, 6, 7, 3})
        .Const("pads", Paddings({0, 0, 0, 1, 1, 2, 0, 0}))
        .Add("pad", "Pad", {"x", "pads"}, {{"Tpaddings", ops::MakeAttr(DType::kInt32)}})
        .Const("w", Ramp(Shape({3, 3, 3, std::string(op) == "Conv2D" ? 4 : 1}), 0.1f, -0.5f))
        .Add("conv", op, {"pad", "w"}, ConvAttrs(2, "VALID"))
        .Add("out", "Relu", {"conv"});
    ir::Graph before = b.Build();
    ir::Graph after = before;
    PassContext ctx = PassContext::FromRoots(after, {"out"});
    ASSERT_TRUE(MakePadFolding()->Run(&after, ctx).ok());
    ASSERT_TRUE(PruneDeadNodes(&after, ctx).ok());
    EXPECT_EQ(CountOp(after, "Pad"), 0);
    const ir::Node& conv = after.node(after.FindNode("conv"));
    EXPECT_EQ(after.node(conv.inputs[0].node).name, "x");
    EXPECT_EQ(*ir::GetAttr<std::string>(conv, "padding"), "EXPLICIT");
    EXPECT_EQ(*ir::GetAttr<std::vector<int64_t>>(conv, "explicit_paddings"),
              (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 0, 0}));
    std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 6, 7, 3}), 0.3f, -2.f)}};
    testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
  }
}

TEST(PadFoldingTest, PadOfBatchOrChannelsNonZeroValueSameConvOrSharedPadIsLeftAlone) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {1, 4, 4, 2})
      .Const("w", Ramp(Shape({3, 3, 2, 2}), 0.1f, -0.5f))
      .Const("channel_pads", Paddings({0, 0, 1, 1, 1, 1, 0, 1}))
      .Add("pad_c", "Pad", {"x", "channel_pads"}, {{"Tpaddings", ops::MakeAttr(DType::kInt32)}})
      .Const("w3", Ramp(Shape({3, 3, 3, 2}), 0.1f, -0.5f))
      .Add("conv_c", "Conv2D", {"pad_c", "w3"}, ConvAttrs(1, "VALID"))
      .Const("hw_pads", Paddings({0, 0, 1, 1, 1, 1, 0, 0}))
      .Const("one", Tensor::FromVector<float>({1.f}, Shape({})))
      .Add("pad_v2", "PadV2", {"x", "hw_pads", "one"}, {{"Tpaddings", ops::MakeAttr(DType::kInt32)}})
      .Add("conv_v2", "Conv2D", {"pad_v2", "w"}, ConvAttrs(1, "VALID"))
      .Add("pad_same", "Pad", {"x", "hw_pads"}, {{"Tpaddings", ops::MakeAttr(DType::kInt32)}})
      .Add("conv_same", "Conv2D", {"pad_same", "w"}, ConvAttrs(1, "SAME"))
      .Add("pad_shared", "Pad", {"x", "hw_pads"}, {{"Tpaddings", ops::MakeAttr(DType::kInt32)}})
      .Add("conv_shared", "Conv2D", {"pad_shared", "w"}, ConvAttrs(1, "VALID"))
      .Add("also_reads_pad", "Relu", {"pad_shared"});
  ir::Graph g = b.Build();
  PassContext ctx = PassContext::FromRoots(g, {"conv_c", "conv_v2", "conv_same", "conv_shared", "also_reads_pad"});
  ASSERT_TRUE(MakePadFolding()->Run(&g, ctx).ok());
  for (const char* conv : {"conv_c", "conv_v2", "conv_same", "conv_shared"}) {
    const ir::Node& n = g.node(g.FindNode(conv));
    EXPECT_EQ(g.node(n.inputs[0].node).op.rfind("Pad", 0), 0u) << conv;
    EXPECT_NE(*ir::GetAttr<std::string>(n, "padding"), "EXPLICIT") << conv;
  }
}

TEST(PadFoldingTest, ExplicitPaddingAlreadyOnTheConvolutionAddsUp) {
  GraphBuilder b;
  ir::AttrMap attrs = ConvAttrs(1, "EXPLICIT");
  attrs["explicit_paddings"] = ops::MakeAttr(std::vector<int64_t>{0, 0, 1, 0, 0, 1, 0, 0});
  b.Placeholder("x", DType::kFloat, {1, 5, 5, 2})
      .Const("pads", Tensor::FromVector<int64_t>({0, 0, 2, 0, 0, 1, 0, 0}, Shape({4, 2})))
      .Add("pad", "Pad", {"x", "pads"}, {{"Tpaddings", ops::MakeAttr(DType::kInt64)}})
      .Const("w", Ramp(Shape({2, 2, 2, 3}), 0.2f, -0.7f))
      .Add("conv", "Conv2D", {"pad", "w"}, attrs);
  ir::Graph before = b.Build();
  ir::Graph after = before;
  ASSERT_TRUE(MakePadFolding()->Run(&after, PassContext::FromRoots(after, {"conv"})).ok());
  const ir::Node& conv = after.node(after.FindNode("conv"));
  EXPECT_EQ(*ir::GetAttr<std::vector<int64_t>>(conv, "explicit_paddings"),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 2, 0, 0}));
  std::map<std::string, Tensor> feeds{{"x", Ramp(Shape({1, 5, 5, 2}), 0.3f, -2.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"conv"}), Evaluate(after, feeds, {"conv"}));
}

}  // namespace
}  // namespace tfhost::passes
