#include "ops/math/math_test_util.h"

namespace tfhost::ops::math {
namespace {

using math_test::F32;
using math_test::I32;
using math_test::RunOp;
using math_test::RunOpError;
using math_test::Values;

Tensor Bools(std::vector<bool> v, Shape s) { return Tensor::FromVector<bool>(v, std::move(s)); }

TEST(SelectTest, ElementwiseCondition) {
  Tensor z = RunOp("Select", {Bools({true, false, true}, {3}), F32({1, 2, 3}, {3}), F32({-1, -2, -3}, {3})});
  EXPECT_EQ(Values<float>(z), (std::vector<float>{1, -2, 3}));
}

TEST(SelectTest, VectorConditionPicksRows) {
  Tensor z = RunOp("Select", {Bools({false, true}, {2}), F32({1, 2, 3, 4}, {2, 2}), F32({5, 6, 7, 8}, {2, 2})});
  EXPECT_EQ(Values<float>(z), (std::vector<float>{5, 6, 3, 4}));
}

TEST(SelectTest, ScalarConditionPicksWholeTensor) {
  Tensor z = RunOp("Select", {Bools({true}, {}), I32({1, 2}, {2}), I32({3, 4}, {2})});
  EXPECT_EQ(Values<int32_t>(z), (std::vector<int32_t>{1, 2}));
}

TEST(SelectTest, V1RejectsBroadcastingShapes) {
  Status st = RunOpError("Select", {Bools({true, false}, {2}), F32({1, 2, 3}, {3}), F32({1, 2, 3}, {3})});
  EXPECT_NE(st.message().find("[2]"), std::string::npos) << st.message();
}

TEST(SelectTest, V2BroadcastsAllThree) {
  Tensor z = RunOp("SelectV2", {Bools({true, false}, {2, 1}), F32({1, 2, 3}, {3}), Tensor::Scalar<float>(0)});
  EXPECT_EQ(z.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(z), (std::vector<float>{1, 2, 3, 0, 0, 0}));
}

TEST(SelectTest, V2SelectsStrings) {
  Tensor z = RunOp("SelectV2", {Bools({false, true}, {2}), Tensor::StringScalar("yes"), Tensor::StringScalar("no")});
  EXPECT_EQ(z.strings()[0], "no");
  EXPECT_EQ(z.strings()[1], "yes");
}

TEST(SelectTest, NonBoolConditionIsAnError) {
  Status st = RunOpError("SelectV2", {I32({1}, {1}), I32({1}, {1}), I32({1}, {1})});
  EXPECT_NE(st.message().find("bool"), std::string::npos) << st.message();
}

TEST(AddNTest, SumsAllInputs) {
  Tensor z = RunOp("AddN", {F32({1, 2}, {2}), F32({10, 20}, {2}), F32({100, 200}, {2})}, {{"N", MakeAttr(3)}});
  EXPECT_EQ(Values<float>(z), (std::vector<float>{111, 222}));
}

TEST(AddNTest, ShapeMismatchIsAnError) {
  Status st = RunOpError("AddN", {F32({1, 2}, {2}), F32({1}, {1})}, {{"N", MakeAttr(2)}});
  EXPECT_NE(st.message().find("[1]"), std::string::npos) << st.message();
}

TEST(ClipByValueTest, ScalarAndElementwiseBounds) {
  EXPECT_EQ(Values<float>(RunOp("ClipByValue", {F32({-5, 0, 5}, {3}), Tensor::Scalar<float>(-1), Tensor::Scalar<float>(1)})),
            (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(Values<int32_t>(RunOp("ClipByValue", {I32({-5, 0, 5}, {3}), I32({0, 1, 2}, {3}), I32({3, 3, 3}, {3})})),
            (std::vector<int32_t>{0, 1, 3}));
}

TEST(ClipByValueTest, BoundsLargerThanTAreAnError) {
  Status st = RunOpError("ClipByValue", {Tensor::Scalar<float>(1), F32({0, 0}, {2}), Tensor::Scalar<float>(1)});
  EXPECT_NE(st.message().find("[2]"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tfhost::ops::math
