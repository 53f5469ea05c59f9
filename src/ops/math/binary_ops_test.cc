#include <cmath>
#include <limits>

#include "base/test_status.h"
#include "ops/math/math_test_util.h"

namespace tfhost::ops::math {
namespace {

using math_test::F32;
using math_test::I32;
using math_test::RunOp;
using math_test::RunOpError;
using math_test::Values;

TEST(BinaryOpsTest, AddBroadcastsRowOverMatrix) {
  Tensor z = RunOp("AddV2", {F32({1, 2, 3, 4, 5, 6}, {2, 3}), F32({10, 20, 30}, {3})});
  EXPECT_EQ(z.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(z), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST(BinaryOpsTest, SubBroadcastsColumnAgainstRow) {
  Tensor z = RunOp("Sub", {F32({10, 20}, {2, 1}), F32({1, 2, 3}, {1, 3})});
  EXPECT_EQ(z.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(z), (std::vector<float>{9, 8, 7, 19, 18, 17}));
}

TEST(BinaryOpsTest, MulByScalarOnEitherSide) {
  EXPECT_EQ(Values<float>(RunOp("Mul", {F32({1, 2, 3}, {3}), Tensor::Scalar<float>(2)})),
            (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(Values<int32_t>(RunOp("Mul", {Tensor::Scalar<int32_t>(-3), I32({1, 2}, {2})})),
            (std::vector<int32_t>{-3, -6}));
}

TEST(BinaryOpsTest, IncompatibleShapesErrorNamesBothShapes) {
  Status st = RunOpError("Add", {F32({1, 2, 3, 4, 5, 6}, {2, 3}), F32({1, 2}, {2})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("[2,3]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[2]"), std::string::npos) << st.message();
}

TEST(BinaryOpsTest, MismatchedDTypesAreAnError) {
  Status st = RunOpError("Add", {F32({1}, {1}), I32({1}, {1})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("'test_Add'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("input 1 'y' (dtype from attr T) is int32, expected float32"), std::string::npos)
      << st.message();
}

TEST(BinaryOpsTest, EmptyTensorsBroadcastToEmptyOutput) {
  Tensor z = RunOp("Add", {F32({}, {0, 3}), F32({1, 2, 3}, {3})});
  EXPECT_EQ(z.shape(), Shape({0, 3}));
}

TEST(BinaryOpsTest, AddConcatenatesStrings) {
  Tensor a = Tensor::FromVector<std::string>({"ab", "c"});
  Tensor z = RunOp("Add", {a, Tensor::StringScalar("!")});
  EXPECT_EQ(z.strings()[0], "ab!");
  EXPECT_EQ(z.strings()[1], "c!");
}

TEST(BinaryOpsTest, IntegerFloorModTakesTheDivisorsSign) {
  Tensor z = RunOp("FloorMod", {I32({7, -7, 7, -7}, {4}), I32({3, 3, -3, -3}, {4})});
  EXPECT_EQ(Values<int32_t>(z), (std::vector<int32_t>{1, 2, -2, -1}));
}

TEST(BinaryOpsTest, FloatFloorModTakesTheDivisorsSign) {
  Tensor z = RunOp("FloorMod", {F32({7, -7, 7, -7}, {4}), F32({3, 3, -3, -3}, {4})});
  EXPECT_EQ(Values<float>(z), (std::vector<float>{1, 2, -2, -1}));
}

TEST(BinaryOpsTest, IntegerFloorDivFloorsAndDivTruncates) {
  Tensor x = I32({7, -7, 7, -7}, {4}), y = I32({2, 2, -2, -2}, {4});
  EXPECT_EQ(Values<int32_t>(RunOp("FloorDiv", {x, y})), (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(Values<int32_t>(RunOp("Div", {x, y})), (std::vector<int32_t>{3, -3, -3, 3}));
  EXPECT_EQ(Values<int32_t>(RunOp("TruncateMod", {x, y})), (std::vector<int32_t>{1, -1, 1, -1}));
}

TEST(BinaryOpsTest, IntegerDivisionByZeroIsAnErrorNotACrash) {
  for (const char* op : {"Div", "RealDiv", "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod"}) {
    Status st = RunOpError(op, {I32({1, 2}, {2}), I32({1, 0}, {2})});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << op;
    EXPECT_NE(st.message().find("division by zero"), std::string::npos) << op << ": " << st.message();
  }
}

TEST(BinaryOpsTest, IntMinDividedByMinusOneWraps) {
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>(RunOp("FloorDiv", {I32({min}, {1}), I32({-1}, {1})})), (std::vector<int32_t>{min}));
  EXPECT_EQ(Values<int32_t>(RunOp("FloorMod", {I32({min}, {1}), I32({-1}, {1})})), (std::vector<int32_t>{0}));
}

TEST(BinaryOpsTest, FloatDivisionByZeroGivesInfinity) {
  Tensor z = RunOp("RealDiv", {F32({1, -1}, {2}), F32({0, 0}, {2})});
  EXPECT_TRUE(std::isinf(Values<float>(z)[0]) && Values<float>(z)[0] > 0);
  EXPECT_TRUE(std::isinf(Values<float>(z)[1]) && Values<float>(z)[1] < 0);
}

TEST(BinaryOpsTest, DivNoNanAndMulNoNanGiveZeroWhereYIsZero) {
  EXPECT_EQ(Values<float>(RunOp("DivNoNan", {F32({1, 6}, {2}), F32({0, 3}, {2})})), (std::vector<float>{0, 2}));
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Values<float>(RunOp("MulNoNan", {F32({inf, 6}, {2}), F32({0, 3}, {2})})), (std::vector<float>{0, 18}));
}

TEST(BinaryOpsTest, IntegerPowSquaresAndRejectsNegativeExponents) {
  EXPECT_EQ(Values<int32_t>(RunOp("Pow", {I32({2, -3, 5}, {3}), I32({10, 3, 0}, {3})})),
            (std::vector<int32_t>{1024, -27, 1}));
  Status st = RunOpError("Pow", {I32({2}, {1}), I32({-1}, {1})});
  EXPECT_NE(st.message().find("negative"), std::string::npos) << st.message();
}

TEST(BinaryOpsTest, MaximumAndMinimumPropagateNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor mx = RunOp("Maximum", {F32({nan, 1, 5}, {3}), F32({1, nan, 2}, {3})});
  EXPECT_TRUE(std::isnan(Values<float>(mx)[0]));
  EXPECT_TRUE(std::isnan(Values<float>(mx)[1]));
  EXPECT_EQ(Values<float>(mx)[2], 5);
  EXPECT_EQ(Values<float>(RunOp("Minimum", {F32({3, 1}, {2}), Tensor::Scalar<float>(2)})),
            (std::vector<float>{2, 1}));
}

TEST(BinaryOpsTest, SquaredDifferenceAndAtan2) {
  EXPECT_EQ(Values<float>(RunOp("SquaredDifference", {F32({1, 5}, {2}), F32({4, 5}, {2})})),
            (std::vector<float>{9, 0}));
  Tensor a = RunOp("Atan2", {F32({1}, {1}), F32({0}, {1})});  // y=1, x=0
  EXPECT_NEAR(Values<float>(a)[0], M_PI / 2, 1e-6);
}

TEST(BinaryOpsTest, SignedIntegerAddWrapsAround) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(Values<int32_t>(RunOp("AddV2", {I32({max}, {1}), I32({1}, {1})})),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  Tensor u = RunOp("Mul", {math_test::Make<uint16_t>({65535}, {1}), math_test::Make<uint16_t>({65535}, {1})});
  EXPECT_EQ(Values<uint16_t>(u), (std::vector<uint16_t>{1}));
}

TEST(BinaryOpsTest, HalfIsComputedInFloatAndRoundedBack) {
  Tensor a(DType::kHalf, Shape({2}));
  Tensor b(DType::kHalf, Shape({2}));
  a.data<uint16_t>()[0] = FloatToHalf(1.5f);
  a.data<uint16_t>()[1] = FloatToHalf(2048.0f);
  b.data<uint16_t>()[0] = FloatToHalf(0.25f);
  b.data<uint16_t>()[1] = FloatToHalf(1.0f);  // 2049 is not a half: ties to even 2048
  Tensor z = RunOp("AddV2", {a, b});
  ASSERT_EQ(z.dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat(z.data<uint16_t>()[0]), 1.75f);
  EXPECT_EQ(HalfToFloat(z.data<uint16_t>()[1]), 2048.0f);
}

TEST(BinaryOpsTest, BFloat16MultiplyKeepsDType) {
  Tensor a(DType::kBFloat16, Shape({1}));
  a.data<uint16_t>()[0] = FloatToBFloat16(3.0f);
  Tensor z = RunOp("Mul", {a, a});
  ASSERT_EQ(z.dtype(), DType::kBFloat16);
  EXPECT_EQ(BFloat16ToFloat(z.data<uint16_t>()[0]), 9.0f);
}

TEST(BinaryOpsTest, UnsupportedDTypeNamesOpAndDType) {
  Status st = RunOpError("Atan2", {I32({1}, {1}), I32({1}, {1})});
  TFHOST_EXPECT_ERROR(st, StatusCode::kInvalidArgument,
                      "node 'test_Atan2' (Atan2): attr 'T' is DT_INT32, which is not one of its allowed types");
}

TEST(BinaryOpsTest, LargeBroadcastMatchesOnThreadPool) {
  const int64_t rows = 300, cols = 257;
  std::vector<float> x(rows * cols), y(cols);
  for (int64_t i = 0; i < rows * cols; ++i) x[i] = static_cast<float>(i % 97);
  for (int64_t j = 0; j < cols; ++j) y[j] = static_cast<float>(j);
  ThreadPool pool(3);
  Tensor z = RunOp("Add", {F32(x, {rows, cols}), F32(y, {1, cols})}, {}, &pool);
  auto v = Values<float>(z);
  ASSERT_EQ(v.size(), static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i) ASSERT_EQ(v[i], x[i] + y[i % cols]) << i;
}

TEST(BitwiseOpsTest, AndOrXorAndClampedShifts) {
  ir::AttrMap i32 = {{"T", MakeAttr(DType::kInt32)}};
  Tensor a = Tensor::FromVector<int32_t>({12, -1, 5});
  Tensor b = Tensor::FromVector<int32_t>({10, 6, 3});
  auto run = [&](const char* op, const Tensor& x, const Tensor& y) {
    auto out = RunSingleOp(op, {x, y}, i32);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? (*out)[0] : Tensor();
  };
  EXPECT_TRUE(TensorsEqual(run("BitwiseAnd", a, b), Tensor::FromVector<int32_t>({8, 6, 1})));
  EXPECT_TRUE(TensorsEqual(run("BitwiseOr", a, b), Tensor::FromVector<int32_t>({14, -1, 7})));
  EXPECT_TRUE(TensorsEqual(run("BitwiseXor", a, b), Tensor::FromVector<int32_t>({6, -7, 6})));
  // Shift counts outside [0, 31] clamp; RightShift keeps the sign.
  Tensor s = Tensor::FromVector<int32_t>({1, 40, -3});
  EXPECT_TRUE(TensorsEqual(run("LeftShift", Tensor::FromVector<int32_t>({3, 1, 7}), s),
                           Tensor::FromVector<int32_t>({6, std::numeric_limits<int32_t>::min(), 7})));
  EXPECT_TRUE(TensorsEqual(run("RightShift", Tensor::FromVector<int32_t>({-8, -8, 9}), Tensor::FromVector<int32_t>({1, 99, 0})),
                           Tensor::FromVector<int32_t>({-4, -1, 9})));
  TFHOST_EXPECT_ERROR(RunSingleOp("BitwiseAnd", {Tensor::FromVector<float>({1}), Tensor::FromVector<float>({1})},
                                  {{"T", MakeAttr(DType::kFloat)}}),
                      StatusCode::kInvalidArgument, "attr 'T' is DT_FLOAT, which is not one of its allowed types");
}

TEST(BitwiseOpsTest, UnsignedShiftCountsPastTheWidthClampToo) {
  // Found by fuzzing: a uint64 count of 2^64 - 1 became a shift by -1.
  const uint64_t all = std::numeric_limits<uint64_t>::max();
  auto left = RunSingleOp("LeftShift", {Tensor::FromVector<uint64_t>({1, 1}), Tensor::FromVector<uint64_t>({all, 3})},
                          {{"T", MakeAttr(DType::kUInt64)}});
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_TRUE(TensorsEqual((*left)[0], Tensor::FromVector<uint64_t>({uint64_t{1} << 63, 8})));
  auto right = RunSingleOp("RightShift", {Tensor::FromVector<uint8_t>({255, 255}), Tensor::FromVector<uint8_t>({255, 1})},
                           {{"T", MakeAttr(DType::kUInt8)}});
  ASSERT_TRUE(right.ok()) << right.status().ToString();
  EXPECT_TRUE(TensorsEqual((*right)[0], Tensor::FromVector<uint8_t>({1, 127})));
}

}  // namespace
}  // namespace tfhost::ops::math
