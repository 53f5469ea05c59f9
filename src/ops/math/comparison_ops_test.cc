#include <cmath>
#include <limits>

#include "ops/math/math_test_util.h"

namespace tfhost::ops::math {
namespace {

using math_test::F32;
using math_test::I32;
using math_test::RunOp;
using math_test::RunOpError;
using math_test::Values;

TEST(ComparisonOpsTest, LessBroadcastsAndReturnsBool) {
  Tensor z = RunOp("Less", {I32({1, 5, 3, 4}, {2, 2}), I32({3}, {1})});
  ASSERT_EQ(z.dtype(), DType::kBool);
  EXPECT_EQ(Values<bool>(z), (std::vector<bool>{true, false, false, false}));
}

TEST(ComparisonOpsTest, AllOrderingsOnFloats) {
  Tensor x = F32({1, 2, 3}, {3}), y = Tensor::Scalar<float>(2);
  EXPECT_EQ(Values<bool>(RunOp("LessEqual", {x, y})), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(Values<bool>(RunOp("Greater", {x, y})), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(Values<bool>(RunOp("GreaterEqual", {x, y})), (std::vector<bool>{false, true, true}));
}

TEST(ComparisonOpsTest, NaNIsUnequalToItself) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Values<bool>(RunOp("Equal", {F32({nan, 1}, {2}), F32({nan, 1}, {2})})),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(Values<bool>(RunOp("NotEqual", {F32({nan, 1}, {2}), F32({nan, 1}, {2})})),
            (std::vector<bool>{true, false}));
}

TEST(ComparisonOpsTest, EqualComparesStrings) {
  Tensor a = Tensor::FromVector<std::string>({"x", "y"});
  EXPECT_EQ(Values<bool>(RunOp("Equal", {a, Tensor::StringScalar("y")})), (std::vector<bool>{false, true}));
}

TEST(ComparisonOpsTest, EqualWithIncompatibleShapesFailsByDefault) {
  Status st = RunOpError("Equal", {I32({1, 2}, {2}), I32({1, 2, 3}, {3})});
  EXPECT_NE(st.message().find("[2]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[3]"), std::string::npos) << st.message();
}

TEST(ComparisonOpsTest, IncompatibleShapesGiveScalarWhenErrorIsOff) {
  ir::AttrMap attrs{{"incompatible_shape_error", MakeAttr(false)}};
  Tensor eq = RunOp("Equal", {I32({1, 2}, {2}), I32({1, 2, 3}, {3})}, attrs);
  ASSERT_EQ(eq.shape(), Shape());
  EXPECT_FALSE(eq.data<bool>()[0]);
  Tensor ne = RunOp("NotEqual", {I32({1, 2}, {2}), I32({1, 2, 3}, {3})}, attrs);
  EXPECT_TRUE(ne.data<bool>()[0]);
}

TEST(ComparisonOpsTest, LogicalOps) {
  Tensor a = Tensor::FromVector<bool>({true, true, false, false});
  Tensor b = Tensor::FromVector<bool>({true, false, true, false});
  EXPECT_EQ(Values<bool>(RunOp("LogicalAnd", {a, b})), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(Values<bool>(RunOp("LogicalOr", {a, b})), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(Values<bool>(RunOp("LogicalNot", {a})), (std::vector<bool>{false, false, true, true}));
}

TEST(ComparisonOpsTest, LogicalAndRejectsNonBool) {
  Status st = RunOpError("LogicalAnd", {I32({1}, {1}), I32({1}, {1})});
  EXPECT_NE(st.message().find("int32"), std::string::npos) << st.message();
}

TEST(ComparisonOpsTest, FloatClassifiers) {
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = F32({1, inf, -inf, nan}, {4});
  EXPECT_EQ(Values<bool>(RunOp("IsNan", {x})), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Values<bool>(RunOp("IsInf", {x})), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(Values<bool>(RunOp("IsFinite", {x})), (std::vector<bool>{true, false, false, false}));
}

TEST(ComparisonOpsTest, HalfComparisonOutputsBool) {
  Tensor a(DType::kHalf, Shape({2}));
  a.data<uint16_t>()[0] = FloatToHalf(1.0f);
  a.data<uint16_t>()[1] = FloatToHalf(3.0f);
  Tensor b(DType::kHalf, Shape());
  b.data<uint16_t>()[0] = FloatToHalf(2.0f);
  Tensor z = RunOp("Greater", {a, b});
  ASSERT_EQ(z.dtype(), DType::kBool);
  EXPECT_EQ(Values<bool>(z), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace tfhost::ops::math
