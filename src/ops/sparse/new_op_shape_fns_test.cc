// Shape functions of the ops added with the sparse, image and audio families
// (and the new ops of older families) are registered and compute what the
// kernels produce.
#include <gtest/gtest.h>

#include "ir/tensor_proto.h"
#include "ops/op_registry.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"

namespace tfhost::ops {
namespace {

using ir::PartialShape;

TEST(NewOpShapeFnsTest, EveryNewOpHasAShapeFunctionAndAKernel) {
  for (const char* op :
       {"StringToHashBucketFast", "StringToHashBucketStrong", "StringToHashBucket", "DecodeCSV", "SparseToDense",
        "SparseFillEmptyRows", "SparseReshape", "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
        "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments",
        "SparseTensorDenseMatMul", "Bucketize", "LowerBound", "UpperBound", "UniqueWithCounts", "NonMaxSuppression",
        "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
        "CombinedNonMaxSuppression", "CropAndResize", "DecodeWav", "AudioSpectrogram", "Mfcc", "Einsum"}) {
    EXPECT_NE(ShapeFnRegistry::Global().Find(op), nullptr) << op;
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << op;
  }
}

TEST(NewOpShapeFnsTest, AudioShapesFollowWindowStrideAndCoefficients) {
  tensorflow::AttrValue window, stride;
  window.set_i(400);
  stride.set_i(160);
  auto spec = testing::InferShape("AudioSpectrogram", {PartialShape::Known({16000, 1})}, {}, 1,
                    {{"window_size", window}, {"stride", stride}});
  // FFT 512 -> 257 bins; 1 + (16000 - 400) / 160 = 98 frames.
  EXPECT_EQ(spec[0], PartialShape::Known({1, 98, 257}));
  tensorflow::AttrValue coeffs;
  coeffs.set_i(13);
  auto mfcc = testing::InferShape("Mfcc", {PartialShape::Known({1, 98, 257}), PartialShape::Scalar()}, {}, 1,
                    {{"dct_coefficient_count", coeffs}});
  EXPECT_EQ(mfcc[0], PartialShape::Known({1, 98, 13}));
}

TEST(NewOpShapeFnsTest, SparseAndDetectionShapesUseConstantInputs) {
  Tensor shape = Tensor::FromVector<int64_t>({3, 4});
  auto dense = testing::InferShape("SparseToDense", {PartialShape::Known({-1, 2}), PartialShape::Known({2}), PartialShape::Known({-1}),
                                       PartialShape::Scalar()},
                     {nullptr, &shape}, 1);
  EXPECT_EQ(dense[0], PartialShape::Known({3, 4}));
  Tensor crop = Tensor::FromVector<int32_t>({7, 5});
  auto crops = testing::InferShape("CropAndResize", {PartialShape::Known({2, 32, 32, 3}), PartialShape::Known({6, 4}),
                                       PartialShape::Known({6}), PartialShape::Known({2})},
                     {nullptr, nullptr, nullptr, &crop}, 1);
  EXPECT_EQ(crops[0], PartialShape::Known({6, 7, 5, 3}));
  tensorflow::AttrValue eq;
  eq.set_s("bqhd,bkhd->bhqk");
  auto scores = testing::InferShape("Einsum", {PartialShape::Known({2, 5, 4, 8}), PartialShape::Known({2, 7, 4, 8})}, {}, 1,
                      {{"equation", eq}});
  EXPECT_EQ(scores[0], PartialShape::Known({2, 4, 5, 7}));
}

}  // namespace
}  // namespace tfhost::ops
