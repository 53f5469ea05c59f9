#include "ops/nn/expand_depthwise.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::ops::nn {
namespace {

Tensor Values(Shape shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.37f * i + shift) * scale;
  return t;
}

ir::AttrMap FusedAttrs(std::vector<std::string> expand_ops, std::vector<std::string> depthwise_ops, int stride,
                       const std::string& padding, std::vector<int64_t> explicit_paddings = {}) {
  ir::AttrMap a = {{"T", MakeAttr(DType::kFloat)},
                   {"expand_fused_ops", MakeAttr(expand_ops)},
                   {"depthwise_fused_ops", MakeAttr(depthwise_ops)},
                   {"strides", MakeAttr(std::vector<int64_t>{1, stride, stride, 1})},
                   {"padding", MakeAttr(padding)}};
  if (!explicit_paddings.empty()) a["explicit_paddings"] = MakeAttr(explicit_paddings);
  return a;
}

// The fused node against its two nodes run one after the other: equal bit
// for bit (the reference kernel is those two kernels).
void ExpectSameAsTheTwoNodes(const ir::AttrMap& attrs, int64_t h, int64_t w, int64_t c, int64_t e) {
  const Tensor x = Values(Shape({2, h, w, c}), 2.f, 0.f);
  const Tensor wf = Values(Shape({1, 1, c, e}), 1.f, 1.f);
  const Tensor bf = Values(Shape({e}), 1.f, 2.f);
  const Tensor wd = Values(Shape({3, 3, e, 1}), 1.f, 3.f);
  const Tensor bd = Values(Shape({e}), 1.f, 4.f);
  auto fused = RunSingleOp(kExpandDepthwiseOp, {x, wf, bf, wd, bd}, attrs);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto node = MakeSingleOpNode(kExpandDepthwiseOp, attrs);
  ASSERT_TRUE(node.ok());
  auto parts = SplitExpandDepthwise(*node);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  auto expanded = RunSingleOp("_FusedConv2D", {x, wf, bf}, parts->expand.attrs);
  ASSERT_TRUE(expanded.ok()) << expanded.status().ToString();
  auto want = RunSingleOp("FusedDepthwiseConv2dNative", {(*expanded)[0], wd, bd}, parts->depthwise.attrs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ((*fused)[0].shape(), (*want)[0].shape());
  for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
    ASSERT_EQ((*fused)[0].data<float>()[i], (*want)[0].data<float>()[i]) << "element " << i;
  }
}

TEST(ExpandDepthwiseTest, GivesTheExpansionAndDepthwiseNodesResultsForEveryStrideAndPadding) {
  for (int stride : {1, 2}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    ExpectSameAsTheTwoNodes(FusedAttrs({"BiasAdd", "Relu6"}, {"BiasAdd", "Relu6"}, stride, "SAME"), 7, 8, 3, 18);
    ExpectSameAsTheTwoNodes(FusedAttrs({"BiasAdd", "_MklSwish"}, {"BiasAdd", "_MklSwish"}, stride, "VALID"), 9, 6,
                            4, 20);
    ExpectSameAsTheTwoNodes(FusedAttrs({"BiasAdd"}, {"BiasAdd", "Relu"}, stride, "EXPLICIT", {0, 0, 0, 1, 1, 0, 0, 0}),
                            6, 7, 2, 16);
  }
}

TEST(ExpandDepthwiseTest, MalformedAttrsAndOperandsAreErrorsNamingTheNode) {
  // fused_ops that are not BiasAdd + one activation.
  auto no_bias = RunSingleOp(kExpandDepthwiseOp,
                             {Values(Shape({1, 4, 4, 2}), 1, 0), Values(Shape({1, 1, 2, 8}), 1, 0),
                              Values(Shape({8}), 1, 0), Values(Shape({3, 3, 8, 1}), 1, 0), Values(Shape({8}), 1, 0)},
                             FusedAttrs({"Relu6"}, {"BiasAdd"}, 1, "SAME"));
  TFHOST_ASSERT_ERROR(no_bias, StatusCode::kInvalidArgument,
                      "expand_fused_ops must be BiasAdd followed by at most one activation, got 1 ops starting with Relu6");
  // A depthwise filter of the wrong depth: the depthwise part's error, named.
  auto bad_filter = RunSingleOp(kExpandDepthwiseOp,
                                {Values(Shape({1, 4, 4, 2}), 1, 0), Values(Shape({1, 1, 2, 8}), 1, 0),
                                 Values(Shape({8}), 1, 0), Values(Shape({3, 3, 6, 1}), 1, 0), Values(Shape({8}), 1, 0)},
                                FusedAttrs({"BiasAdd"}, {"BiasAdd"}, 1, "SAME"));
  ASSERT_FALSE(bad_filter.ok());
  EXPECT_EQ(bad_filter.status().code(), StatusCode::kInvalidArgument) << bad_filter.status().ToString();
  EXPECT_NE(bad_filter.status().message().find("/depthwise"), std::string::npos) << bad_filter.status().ToString();
  EXPECT_NE(bad_filter.status().message().find("[3,3,6,1]"), std::string::npos) << bad_filter.status().ToString();
}

}  // namespace
}  // namespace tfhost::ops::nn
