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

TEST(UnaryOpsTest, RoundIsHalfToEven) {
  Tensor y = RunOp("Round", {F32({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, 2.6f}, {7})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 2, 2, -0.0f, -2, 2, 3}));
  Tensor d = RunOp("Round", {Tensor::FromVector<double>({3.5, 4.5})});
  EXPECT_EQ(Values<double>(d), (std::vector<double>{4, 4}));
}

TEST(UnaryOpsTest, RoundOfIntegersIsIdentity) {
  EXPECT_EQ(Values<int32_t>(RunOp("Round", {I32({-3, 7}, {2})})), (std::vector<int32_t>{-3, 7}));
}

TEST(UnaryOpsTest, SigmoidSaturatesWithoutNaN) {
  Tensor y = RunOp("Sigmoid", {F32({-1000, 0, 1000}, {3})});
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 0.5f, 1}));
}

TEST(UnaryOpsTest, NegAbsSignOnIntegers) {
  EXPECT_EQ(Values<int32_t>(RunOp("Neg", {I32({1, -2, 0}, {3})})), (std::vector<int32_t>{-1, 2, 0}));
  EXPECT_EQ(Values<int32_t>(RunOp("Abs", {I32({1, -2, 0}, {3})})), (std::vector<int32_t>{1, 2, 0}));
  EXPECT_EQ(Values<int32_t>(RunOp("Sign", {I32({5, -2, 0}, {3})})), (std::vector<int32_t>{1, -1, 0}));
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>(RunOp("Neg", {I32({min}, {1})})), (std::vector<int32_t>{min}));
}

TEST(UnaryOpsTest, SignKeepsNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto v = Values<float>(RunOp("Sign", {F32({nan, -0.5f, 3}, {3})}));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], -1);
  EXPECT_EQ(v[2], 1);
}

TEST(UnaryOpsTest, FloatFunctionsMatchTheLibm) {
  Tensor x = F32({0.25f, 1.0f, 4.0f}, {3});
  auto check = [&](const char* op, float (*f)(float)) {
    auto v = Values<float>(RunOp(op, {x}));
    ASSERT_EQ(v.size(), 3u) << op;
    for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(v[i], f(Values<float>(x)[i])) << op;
  };
  check("Sqrt", [](float a) { return std::sqrt(a); });
  check("Rsqrt", [](float a) { return 1 / std::sqrt(a); });
  check("Exp", [](float a) { return std::exp(a); });
  check("Expm1", [](float a) { return std::expm1(a); });
  check("Log", [](float a) { return std::log(a); });
  check("Log1p", [](float a) { return std::log1p(a); });
  check("Reciprocal", [](float a) { return 1 / a; });
  check("Inv", [](float a) { return 1 / a; });
  check("Square", [](float a) { return a * a; });
  check("Sin", [](float a) { return std::sin(a); });
  check("Cos", [](float a) { return std::cos(a); });
  check("Tan", [](float a) { return std::tan(a); });
  check("Tanh", [](float a) { return std::tanh(a); });
  check("Erf", [](float a) { return std::erf(a); });
  check("Floor", [](float a) { return std::floor(a); });
  check("Ceil", [](float a) { return std::ceil(a); });
}

TEST(UnaryOpsTest, EmptyInputGivesEmptyOutput) {
  Tensor y = RunOp("Exp", {F32({}, {0, 4})});
  EXPECT_EQ(y.shape(), Shape({0, 4}));
}

TEST(UnaryOpsTest, HalfExpRoundsBackToHalf) {
  Tensor x(DType::kHalf, Shape({1}));
  x.data<uint16_t>()[0] = FloatToHalf(1.0f);
  Tensor y = RunOp("Exp", {x});
  ASSERT_EQ(y.dtype(), DType::kHalf);
  EXPECT_EQ(y.data<uint16_t>()[0], FloatToHalf(std::exp(1.0f)));
}

TEST(UnaryOpsTest, IntegerSqrtIsAnErrorNamingOpAndDType) {
  Status st = RunOpError("Sqrt", {I32({4}, {1})});
  TFHOST_EXPECT_ERROR(st, StatusCode::kInvalidArgument,
                      "node 'test_Sqrt' (Sqrt): attr 'T' is DT_INT32, which is not one of its allowed types");
}

}  // namespace
}  // namespace tfhost::ops::math
