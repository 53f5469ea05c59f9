// Static shapes of the nn ops added for model coverage (Dilation2D,
// MaxPoolWithArgmax, DepthwiseConv2dNativeBackpropInput,
// Conv3DBackpropInputV2), as a model loader infers them.
#include <gtest/gtest.h>

#include "ir/tensor_proto.h"
#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"

namespace tfhost::ops {
namespace {

using testing::GraphBuilder;
using testing::Out;


TEST(NnCoverageShapeTest, Dilation2DUsesRatesAsDilations) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 9, 8, 4});
  int f = b.Const("f", Tensor(DType::kFloat, Shape({3, 2, 4})));
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"strides", MakeAttr(std::vector<int64_t>{1, 2, 1, 1})},
                       {"rates", MakeAttr(std::vector<int64_t>{1, 2, 3, 1})},
                       {"padding", MakeAttr("VALID")}};
  int d = b.Add("d", "Dilation2D", {Out(x), Out(f)}, attrs);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  // Effective 5x4 window: (9 - 5) / 2 + 1 = 3 rows, 8 - 4 + 1 = 5 cols.
  EXPECT_EQ(b.Shape(d), "[?,3,5,4]");
}

TEST(NnCoverageShapeTest, MaxPoolWithArgmaxGivesBothOutputsThePooledShape) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2, 7, 7, 3});
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"ksize", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
                       {"strides", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
                       {"padding", MakeAttr("SAME")}};
  int p = b.Add("p", "MaxPoolWithArgmax", {Out(x)}, attrs, 2);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(p, 0), "[2,4,4,3]");
  EXPECT_EQ(b.Shape(p, 1), "[2,4,4,3]");
}

TEST(NnCoverageShapeTest, TransposedConvolutionsTakeTheirShapeFromInputSizes) {
  GraphBuilder b;
  int sizes4 = b.Const("sizes4", Tensor::FromVector<int32_t>({1, 8, 8, 3}));
  int f4 = b.Const("f4", Tensor(DType::kFloat, Shape({3, 3, 3, 2})));
  int dy4 = b.Placeholder("dy4", {1, 4, 4, 6});
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"strides", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
                       {"padding", MakeAttr("SAME")}};
  int dw = b.Add("dw", "DepthwiseConv2dNativeBackpropInput", {Out(sizes4), Out(f4), Out(dy4)}, attrs);
  int sizes5 = b.Const("sizes5", Tensor::FromVector<int64_t>({2, 4, 6, 6, 1}));
  int f5 = b.Const("f5", Tensor(DType::kFloat, Shape({2, 2, 2, 1, 4})));
  int dy5 = b.Placeholder("dy5", {2, 2, 3, 3, 4});
  attrs["strides"] = MakeAttr(std::vector<int64_t>{1, 2, 2, 2, 1});
  attrs["Tshape"] = MakeAttr(DType::kInt64);
  int c3 = b.Add("c3", "Conv3DBackpropInputV2", {Out(sizes5), Out(f5), Out(dy5)}, attrs);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(dw), "[1,8,8,3]");
  EXPECT_EQ(b.Shape(c3), "[2,4,6,6,1]");
}

}  // namespace
}  // namespace tfhost::ops
