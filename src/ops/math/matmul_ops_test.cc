#include "ops/math/math_test_util.h"

#include "base/test_status.h"

namespace tfhost::ops::math {
namespace {

using math_test::F32;
using math_test::I32;
using math_test::RunOp;
using math_test::RunOpError;
using math_test::Values;

// a = [[1, 2, 3], [4, 5, 6]], b = [[7, 8], [9, 10], [11, 12]]: a·b = [[58, 64], [139, 154]].
TEST(MatMulTest, PlainProduct) {
  Tensor c = RunOp("MatMul", {F32({1, 2, 3, 4, 5, 6}, {2, 3}), F32({7, 8, 9, 10, 11, 12}, {3, 2})});
  EXPECT_EQ(c.shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(c), (std::vector<float>{58, 64, 139, 154}));
}

TEST(MatMulTest, TransposeFlagsGiveTheSameProduct) {
  Tensor at = F32({1, 4, 2, 5, 3, 6}, {3, 2});         // aᵀ
  Tensor bt = F32({7, 9, 11, 8, 10, 12}, {2, 3});      // bᵀ
  ir::AttrMap attrs{{"transpose_a", MakeAttr(true)}, {"transpose_b", MakeAttr(true)}};
  EXPECT_EQ(Values<float>(RunOp("MatMul", {at, bt}, attrs)), (std::vector<float>{58, 64, 139, 154}));
}

TEST(MatMulTest, InnerDimensionMismatchNamesShapes) {
  Status st = RunOpError("MatMul", {F32({1, 2, 3, 4, 5, 6}, {2, 3}), F32({1, 2, 3, 4}, {2, 2})});
  EXPECT_NE(st.message().find("[2,3]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[2,2]"), std::string::npos) << st.message();
}

TEST(MatMulTest, IntegerAndEmptyProducts) {
  EXPECT_EQ(Values<int32_t>(RunOp("MatMul", {I32({1, 2}, {1, 2}), I32({3, 4}, {2, 1})})),
            (std::vector<int32_t>{11}));
  Tensor z = RunOp("MatMul", {F32({}, {2, 0}), F32({}, {0, 3})});
  EXPECT_EQ(z.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(z), std::vector<float>(6, 0));
}

TEST(MatMulTest, ThreadPoolGivesIdenticalResult) {
  const int64_t m = 37, k = 19, n = 23;
  std::vector<float> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 13) - 6;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 11) * 0.5f;
  ThreadPool pool(3);
  Tensor serial = RunOp("MatMul", {F32(a, {m, k}), F32(b, {k, n})});
  Tensor parallel = RunOp("MatMul", {F32(a, {m, k}), F32(b, {k, n})}, {}, &pool);
  EXPECT_TRUE(TensorsEqual(serial, parallel));
  // Spot-check one entry against a direct sum.
  double expect = 0;
  for (int64_t q = 0; q < k; ++q) expect += a[5 * k + q] * b[q * n + 7];
  EXPECT_FLOAT_EQ(Values<float>(serial)[5 * n + 7], static_cast<float>(expect));
}

TEST(BatchMatMulTest, V2BroadcastsBatchDims) {
  // x: [2,1,2] two row vectors; y: [2,1] one matrix shared by both batches.
  Tensor x = F32({1, 2, 3, 4}, {2, 1, 2});
  Tensor y = F32({10, 100}, {2, 1});
  Tensor z = RunOp("BatchMatMulV2", {x, y});
  EXPECT_EQ(z.shape(), Shape({2, 1, 1}));
  EXPECT_EQ(Values<float>(z), (std::vector<float>{210, 430}));
}

TEST(BatchMatMulTest, V2BroadcastsBothSides) {
  Tensor x = F32({1, 2}, {2, 1, 1, 1});  // batch [2,1]
  Tensor y = F32({1, 10, 100}, {3, 1, 1});  // batch [3]
  Tensor z = RunOp("BatchMatMulV2", {x, y});
  EXPECT_EQ(z.shape(), Shape({2, 3, 1, 1}));
  EXPECT_EQ(Values<float>(z), (std::vector<float>{1, 10, 100, 2, 20, 200}));
}

TEST(BatchMatMulTest, AdjointTransposesLastTwoDims) {
  Tensor x = F32({1, 2, 3, 4}, {1, 2, 2});  // [[1,2],[3,4]]
  Tensor y = F32({1, 0, 0, 1}, {1, 2, 2});
  Tensor z = RunOp("BatchMatMul", {x, y}, {{"adj_x", MakeAttr(true)}});
  EXPECT_EQ(Values<float>(z), (std::vector<float>{1, 3, 2, 4}));
}

TEST(BatchMatMulTest, V1RequiresEqualBatchDims) {
  Status st = RunOpError("BatchMatMul", {F32({1, 2}, {2, 1, 1}), F32({1}, {1, 1, 1})});
  EXPECT_NE(st.message().find("batch"), std::string::npos) << st.message();
}

TEST(BatchMatMulTest, V3CastsOperandsToTout) {
  Tensor x = Tensor::FromVector<int8_t>({1, 2}, Shape({1, 1, 2}));
  Tensor y = F32({0.5f, 0.25f}, {1, 2, 1});
  Tensor z = RunOp("BatchMatMulV3", {x, y},
                 {{"Ta", MakeAttr(DType::kInt8)}, {"Tb", MakeAttr(DType::kFloat)}, {"Tout", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(z.dtype(), DType::kFloat);
  EXPECT_EQ(Values<float>(z), (std::vector<float>{1.0f}));
}

TEST(BatchMatMulTest, HalfOperandsGiveHalfResult) {
  Tensor x(DType::kHalf, Shape({1, 1, 2})), y(DType::kHalf, Shape({1, 2, 1}));
  for (int i = 0; i < 2; ++i) {
    x.data<uint16_t>()[i] = FloatToHalf(1.5f);
    y.data<uint16_t>()[i] = FloatToHalf(2.0f);
  }
  Tensor z = RunOp("BatchMatMulV2", {x, y});
  ASSERT_EQ(z.dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat(z.data<uint16_t>()[0]), 6.0f);
}


// Found by graph_kernel_fuzz: [2^40, 0] x [0, 2^40] is a [2^40, 2^40]
// product, whose element count overflowed int64 before anything was
// allocated.
TEST(MatMulTest, AProductTooLargeToCountIsResourceExhaustedNamingTheNode) {
  const int64_t big = int64_t{1} << 40;
  TFHOST_EXPECT_ERROR(RunOpError("MatMul", {Tensor(DType::kFloat, Shape({big, 0})), Tensor(DType::kFloat, Shape({0, big}))}),
                      StatusCode::kResourceExhausted, "(MatMul): out of memory");
}


// Found by graph_kernel_fuzz: 2^40 batches of empty matrices made the plan
// reserve two offsets per batch (16 TiB) before anything checked the output.
TEST(BatchMatMulTest, ABatchOfEmptyMatricesIsAnEmptyOutputWithoutAPlan) {
  const int64_t big = int64_t{1} << 40;
  Tensor x(DType::kFloat, Shape({big, 0, 3})), y(DType::kFloat, Shape({1, 3, 2}));
  Tensor z = RunOp("BatchMatMulV2", {x, y});
  EXPECT_EQ(z.shape(), Shape({big, 0, 2}));
  TFHOST_EXPECT_ERROR(RunOpError("BatchMatMulV2", {Tensor(DType::kFloat, Shape({int64_t{1} << 32, 1, 0})),
                                                   Tensor(DType::kFloat, Shape({1, 0, 1}))}),
                      StatusCode::kResourceExhausted, "4294967296 batches of matrices; the limit is 2^31");
}

}  // namespace
}  // namespace tfhost::ops::math
