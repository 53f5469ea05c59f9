#include <gtest/gtest.h>

#include <limits>

#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

TEST(MatrixDiagTest, EyeAndRoundTripThroughDiagPartAndSetDiag) {
  // tf.eye(3) is MatrixDiagV3(ones(3), k=0, -1, -1, 0).
  auto eye = RunSingleOp("MatrixDiagV3", {Tensor::FromVector<float>({1, 1, 1}), Tensor::Scalar<int32_t>(0),
                                          Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(-1), Tensor::Scalar<float>(0)},
                         {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(eye.ok()) << eye.status().ToString();
  EXPECT_TRUE(TensorsEqual((*eye)[0], Tensor::FromVector<float>({1, 0, 0, 0, 1, 0, 0, 0, 1}, Shape({3, 3}))));
  Tensor m = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  auto part = RunSingleOp("MatrixDiagPartV3", {m, Tensor::FromVector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(-1)},
                          {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  // Superdiagonal 1 = [2, 6], main = [1, 5]; both full length 2.
  EXPECT_TRUE(TensorsEqual((*part)[0], Tensor::FromVector<int32_t>({2, 6, 1, 5}, Shape({2, 2}))));
  auto set = RunSingleOp("MatrixSetDiagV3", {m, Tensor::FromVector<int32_t>({0, 0, 9, 9}, Shape({2, 2})),
                                             Tensor::FromVector<int32_t>({0, 1})},
                         {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_TRUE(TensorsEqual((*set)[0], Tensor::FromVector<int32_t>({9, 0, 3, 4, 9, 0}, Shape({2, 3}))));
  // k outside the matrix, or a diagonal of the wrong shape, is an error.
  EXPECT_FALSE(RunSingleOp("MatrixDiagPartV3", {m, Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(0)},
                           {{"T", MakeAttr(DType::kInt32)}}).ok());
  EXPECT_FALSE(RunSingleOp("MatrixSetDiagV3", {m, Tensor::FromVector<int32_t>({1}), Tensor::Scalar<int32_t>(0)},
                           {{"T", MakeAttr(DType::kInt32)}}).ok());
}

TEST(MatrixDiagTest, NoMatricesOfAHugeSizeAreAnEmptyOutput) {
  // Found by fuzzing: a [0, 2^40] diagonal made per-matrix offsets of
  // 2^40 x 2^40 elements (signed overflow) though there was nothing to place.
  const int64_t huge = int64_t{1} << 40;
  auto out = RunSingleOp("MatrixDiag", {Tensor(DType::kFloat, Shape({0, huge}))}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0, huge, huge}));
}

// Found by graph_kernel_fuzz: reading or setting the diagonals of no
// matrices of 2^40 x 2^40 computed a matrix's 2^80 elements (signed
// overflow) though there was nothing to read or place.
TEST(MatrixDiagTest, NoMatricesOfAHugeSizeHaveAnEmptyPartAndSetNothing) {
  const int64_t huge = int64_t{1} << 40;
  const Tensor none(DType::kFloat, Shape({0, huge, huge}));
  auto part = RunSingleOp("MatrixDiagPart", {none}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ((*part)[0].shape(), Shape({0, huge}));
  auto set = RunSingleOp("MatrixSetDiag", {none, (*part)[0]}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ((*set)[0].shape(), none.shape());
}

// Found by graph_kernel_fuzz: with empty matrices, every one of the 2^32
// diagonals k can name was still visited, once per matrix: here 2^40 steps,
// a hang the test's timeout would catch.
TEST(MatrixDiagTest, AnEmptyMatrixAnswersAtOnceHoweverManyDiagonalsKNames) {
  const Tensor k = Tensor::FromVector<int32_t>({std::numeric_limits<int32_t>::min(),
                                                std::numeric_limits<int32_t>::max()});
  const int64_t diagonals = int64_t{1} << 32;
  const int64_t batch = 256;
  const Tensor empty(DType::kFloat, Shape({batch, 0, 0}));
  auto part = RunSingleOp("MatrixDiagPartV2", {empty, k, Tensor::Scalar<float>(0)}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ((*part)[0].shape(), Shape({batch, diagonals, 0}));
  auto set = RunSingleOp("MatrixSetDiagV2", {empty, (*part)[0], k}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ((*set)[0].shape(), Shape({batch, 0, 0}));
}

}  // namespace
}  // namespace tfhost::ops
