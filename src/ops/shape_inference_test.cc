#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"

#include <gtest/gtest.h>

#include "ir/tensor_proto.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using testing::GraphBuilder;
using testing::Out;


using ir::PartialShape;

tensorflow::AttrValue IntList(std::vector<int64_t> v) {
  tensorflow::AttrValue a;
  for (int64_t x : v) a.mutable_list()->add_i(x);
  return a;
}
tensorflow::AttrValue Str(const std::string& s) {
  tensorflow::AttrValue a;
  a.set_s(s);
  return a;
}
tensorflow::AttrValue Bool(bool b) {
  tensorflow::AttrValue a;
  a.set_b(b);
  return a;
}

ir::AttrMap ConvAttrs(const std::string& padding, int64_t stride) {
  return {{"strides", IntList({1, stride, stride, 1})}, {"padding", Str(padding)}};
}

TEST(ShapeInferenceTest, ConvSameAndValidStrideTwoKeepUnknownBatch) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 224, 224, 3});
  int w = b.Const("w", Tensor(DType::kFloat, Shape({3, 3, 3, 32})));
  int same = b.Add("same", "Conv2D", {Out(x), Out(w)}, ConvAttrs("SAME", 2));
  int valid = b.Add("valid", "Conv2D", {Out(x), Out(w)}, ConvAttrs("VALID", 2));
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(same), "[?,112,112,32]");
  EXPECT_EQ(b.Shape(valid), "[?,111,111,32]");  // (224 - 3 + 2) / 2
}

TEST(ShapeInferenceTest, FusedBatchMatMulKeepsTheBroadcastProductShape) {
  GraphBuilder b;
  int q = b.Placeholder("q", {-1, 4, 16, 8});
  int k = b.Placeholder("k", {1, 4, 16, 8});
  int mask = b.Placeholder("mask", {-1, 1, 1, 16});
  tensorflow::AttrValue ops;
  ops.mutable_list()->add_s("Add");
  tensorflow::AttrValue num_args;
  num_args.set_i(1);
  int scores = b.Add("scores", "_TfhostFusedBatchMatMul", {Out(q), Out(k), Out(mask)},
                     {{"adj_y", Bool(true)}, {"fused_ops", ops}, {"num_args", num_args}});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(scores), "[?,4,16,16]");
}

TEST(ShapeInferenceTest, DepthwiseAndPoolFollowTheWindowArithmetic) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 7, 7, 16});
  int w = b.Const("w", Tensor(DType::kFloat, Shape({3, 3, 16, 2})));
  int dw = b.Add("dw", "DepthwiseConv2dNative", {Out(x), Out(w)}, ConvAttrs("SAME", 1));
  ir::AttrMap pool = {{"ksize", IntList({1, 7, 7, 1})}, {"strides", IntList({1, 1, 1, 1})}, {"padding", Str("VALID")}};
  int avg = b.Add("avg", "AvgPool", {Out(dw)}, pool);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(dw), "[?,7,7,32]");
  EXPECT_EQ(b.Shape(avg), "[?,1,1,32]");
}

TEST(ShapeInferenceTest, BroadcastingKeepsKnownDimsAgainstUnknownOnes) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 1, 5});
  int y = b.Placeholder("y", {4, -1});
  int z = b.Add("z", "AddV2", {Out(x), Out(y)});
  int unknown = b.PlaceholderUnknownRank("u");
  int w = b.Add("w", "Mul", {Out(x), Out(unknown)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  // dim 1: 1 vs 4 -> 4; dim 2: 5 vs ? -> 5 (the unknown must be 1 or 5).
  EXPECT_EQ(b.Shape(z), "[?,4,5]");
  EXPECT_EQ(b.Shape(w), "<unknown>");
}

TEST(ShapeInferenceTest, FusedElementwiseChainBroadcastsAllItsInputs) {
  // What elementwise_fusion leaves behind: its output keeps a static shape,
  // so consumers (and the memory plan) still know their shapes.
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 8, 8, 16});
  int bias = b.Placeholder("bias", {16});
  int f = b.Add("f", "_TfhostFusedElementwise", {Out(x), Out(bias)});
  int r = b.Add("r", "Relu", {Out(f)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(f), "[?,8,8,16]");
  EXPECT_EQ(b.Shape(r), "[?,8,8,16]");
}

TEST(ShapeInferenceTest, ReshapeWildcardWithUnknownBatch) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 7, 7, 32});
  int shape = b.Const("shape", Tensor::FromVector<int32_t>({-1, 1568}));
  int r = b.Add("r", "Reshape", {Out(x), Out(shape)});
  int fixed = b.Placeholder("fixed", {2, 3});
  int shape2 = b.Const("shape2", Tensor::FromVector<int64_t>({3, -1}));
  int r2 = b.Add("r2", "Reshape", {Out(fixed), Out(shape2)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(r), "[?,1568]");
  EXPECT_EQ(b.Shape(r2), "[3,2]");
}

TEST(ShapeInferenceTest, ReshapeShapeBuiltFromShapeOfKnownTensorIsKnown) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2, 3, 4});
  int s = b.Add("s", "Shape", {Out(x)});
  int begin = b.Const("begin", Tensor::FromVector<int32_t>({0}));
  int end = b.Const("end", Tensor::FromVector<int32_t>({1}));
  int strides = b.Const("strides", Tensor::FromVector<int32_t>({1}));
  ir::AttrMap shrink = {{"shrink_axis_mask", tensorflow::AttrValue()}};
  shrink["shrink_axis_mask"].set_i(1);
  int batch = b.Add("batch", "StridedSlice", {Out(s), Out(begin), Out(end), Out(strides)}, shrink);
  int minus_one = b.Const("minus_one", Tensor::Scalar<int32_t>(-1));
  int packed = b.Add("packed", "Pack", {Out(batch), Out(minus_one)});
  int r = b.Add("r", "Reshape", {Out(x), Out(packed)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(s), "[3]");
  EXPECT_EQ(b.Shape(batch), "[]");
  EXPECT_EQ(b.Shape(packed), "[2]");
  EXPECT_EQ(b.Shape(r), "[2,12]");
}

TEST(ShapeInferenceTest, StridedSliceOverUnknownDimStaysUnknown) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 10, 3});
  int begin = b.Const("begin", Tensor::FromVector<int32_t>({0, 2}));
  int end = b.Const("end", Tensor::FromVector<int32_t>({3, 8}));
  int strides = b.Const("strides", Tensor::FromVector<int32_t>({1, 2}));
  int s = b.Add("s", "StridedSlice", {Out(x), Out(begin), Out(end), Out(strides)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  // dim 0 is unknown (the input may have fewer than 3 rows); dim 1 is 2,4,6.
  EXPECT_EQ(b.Shape(s), "[?,3,3]");
}

TEST(ShapeInferenceTest, MatMulReductionsAndSqueezeChain) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 1, 1, 1280});
  ir::AttrMap squeeze = {{"squeeze_dims", IntList({1, 2})}};
  int sq = b.Add("sq", "Squeeze", {Out(x)}, squeeze);
  int w = b.Const("w", Tensor(DType::kFloat, Shape({1280, 5})));
  int mm = b.Add("mm", "MatMul", {Out(sq), Out(w)});
  int axes = b.Const("axes", Tensor::FromVector<int32_t>({-1}));
  int mean = b.Add("mean", "Mean", {Out(mm), Out(axes)}, {{"keep_dims", Bool(true)}});
  int sum = b.Add("sum", "Sum", {Out(mm), Out(axes)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(sq), "[?,1280]");
  EXPECT_EQ(b.Shape(mm), "[?,5]");
  EXPECT_EQ(b.Shape(mean), "[?,1]");
  EXPECT_EQ(b.Shape(sum), "[?]");
}

TEST(ShapeInferenceTest, ConcatSplitAndPadCombineKnownDims) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 4});
  int y = b.Placeholder("y", {-1, 6});
  int axis = b.Const("axis", Tensor::Scalar<int32_t>(1));
  int cat = b.Add("cat", "ConcatV2", {Out(x), Out(y), Out(axis)});
  int split = b.Add("split", "Split", {Out(axis), Out(cat)}, {}, 2);
  int paddings = b.Const("paddings", Tensor::FromVector<int32_t>({1, 1, 0, 2}, Shape({2, 2})));
  int pad = b.Add("pad", "Pad", {Out(x), Out(paddings)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(cat), "[?,10]");
  EXPECT_EQ(b.Shape(split, 0), "[?,5]");
  EXPECT_EQ(b.Shape(split, 1), "[?,5]");
  EXPECT_EQ(b.Shape(pad), "[?,6]");
}

TEST(ShapeInferenceTest, ResourceVariableShapeReachesReadVariableOp) {
  GraphBuilder b;
  ir::AttrMap attrs;
  *attrs["shape"].mutable_shape() = PartialShape::Known({3, 4}).ToProto();
  int h = b.Add("h", "VarHandleOp", {}, attrs);
  int id = b.Add("id", "Identity", {Out(h)});
  int read = b.Add("read", "ReadVariableOp", {Out(id)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(h), "[]");
  EXPECT_EQ(b.Shape(read), "[3,4]");
}

TEST(ShapeInferenceTest, TableFindHasTheKeysShapeForScalarValues) {
  GraphBuilder b;
  int table = b.Add("table", "HashTableV2", {});
  int keys = b.Placeholder("keys", {-1, 3});
  int dflt = b.Const("default", Tensor::Scalar<int64_t>(-1));
  int find = b.Add("find", "LookupTableFindV2", {Out(table), Out(keys), Out(dflt)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(table), "[]");
  EXPECT_EQ(b.Shape(find), "[?,3]");
}

TEST(ShapeInferenceTest, MergeKeepsOnlyWhatBothBranchesAgreeOn) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2, 3});
  int y = b.Placeholder("y", {2, 5});
  int m = b.Add("m", "Merge", {Out(x), Out(y)}, {}, 2);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(m, 0), "[2,?]");
  EXPECT_EQ(b.Shape(m, 1), "[]");
}

TEST(ShapeInferenceTest, OpWithoutShapeFunctionHasUnknownOutputs) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2});
  int odd = b.Add("odd", "SomeCustomOp", {Out(x)}, {}, 2);
  int relu = b.Add("relu", "Relu", {Out(odd, 1)});
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(odd, 0), "<unknown>");
  EXPECT_EQ(b.Shape(relu), "<unknown>");
}

TEST(ShapeInferenceTest, MatMulInnerDimConflictNamesTheNode) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 3});
  int w = b.Const("w", Tensor(DType::kFloat, Shape({4, 5})));
  b.Add("dense/MatMul", "MatMul", {Out(x), Out(w)});
  Status st = InferShapes(b.graph);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "shape inference: node 'dense/MatMul' (MatMul): inner dimensions differ: 3 vs 4 (shapes [?,3] and");
  EXPECT_NE(st.message().find("3 vs 4"), std::string::npos) << st.ToString();
}

TEST(ShapeInferenceTest, ReshapeElementCountConflictIsAnError) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2, 3});
  int shape = b.Const("shape", Tensor::FromVector<int32_t>({4, 2}));
  b.Add("bad_reshape", "Reshape", {Out(x), Out(shape)});
  Status st = InferShapes(b.graph);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "shape inference: node 'bad_reshape' (Reshape): cannot reshape a tensor of 6 elements (shape [2,3])");
}

TEST(ShapeInferenceTest, BroadcastConflictIsAnErrorButUnknownsAreNot) {
  GraphBuilder b;
  int x = b.Placeholder("x", {-1, 2});
  int y = b.Placeholder("y", {-1, 3});
  b.Add("bad_add", "AddV2", {Out(x), Out(y)});
  Status st = InferShapes(b.graph);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "shape inference: node 'bad_add' (AddV2): shapes [?,2] and [?,3] cannot be broadcast together");

  GraphBuilder ok;
  int a = ok.Placeholder("a", {-1, -1});
  int c = ok.Placeholder("c", {-1, 3});
  int sum = ok.Add("sum", "AddV2", {Out(a), Out(c)});
  ASSERT_TRUE(InferShapes(ok.graph).ok());
  EXPECT_EQ(ok.Shape(sum), "[?,3]");
}

TEST(ShapeInferenceTest, CycleLeavesShapesUnknownWithoutError) {
  GraphBuilder b;
  int x = b.Placeholder("x", {2, 2});
  int enter = b.Add("enter", "Identity", {Out(x)});
  int merge = b.Add("merge", "Merge", {Out(enter), Out(enter)}, {}, 2);
  int body = b.Add("body", "Relu", {Out(merge)});
  // Close the loop: merge's second input becomes body (a back edge).
  b.graph.mutable_node(merge).inputs[1] = Out(body);
  ASSERT_TRUE(InferShapes(b.graph).ok());
  EXPECT_EQ(b.Shape(enter), "[2,2]");
  EXPECT_EQ(b.Shape(merge), "<unknown>");
  EXPECT_EQ(b.Shape(body), "<unknown>");
}

TEST(PartialShapeTest, MergeAndBroadcastRules) {
  auto merged = ir::MergeShapes(PartialShape::Known({-1, 3}), PartialShape::Known({2, -1}));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->ToString(), "[2,3]");
  TFHOST_EXPECT_ERROR(ir::MergeShapes(PartialShape::Known({2}), PartialShape::Known({3})), StatusCode::kInvalidArgument,
                      "shapes [2] and [3] are incompatible");
  TFHOST_EXPECT_ERROR(ir::MergeShapes(PartialShape::Known({2}), PartialShape::Known({2, 1})), StatusCode::kInvalidArgument,
                      "shapes [2] and [2,1] are incompatible");
  EXPECT_TRUE(ir::MergeShapes(PartialShape::Unknown(), PartialShape::Known({2})).ok());
  auto bc = ir::BroadcastPartialShapes(PartialShape::Known({-1, 1}), PartialShape::Known({1}));
  ASSERT_TRUE(bc.ok());
  EXPECT_EQ(bc->ToString(), "[?,1]");
  EXPECT_EQ(ir::RelaxShapes(PartialShape::Known({2, 3}), PartialShape::Known({2})).ToString(), "<unknown>");
  EXPECT_EQ(PartialShape::Known({2, 3, 4}).NumElements(), 24);
  EXPECT_EQ(PartialShape::Known({2, -1}).NumElements(), -1);
}

}  // namespace
}  // namespace tfhost::ops
