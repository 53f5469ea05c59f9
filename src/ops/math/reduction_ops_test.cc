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

// x = [[1, 2, 3], [4, 5, 6]]
Tensor X() { return F32({1, 2, 3, 4, 5, 6}, {2, 3}); }

TEST(ReductionOpsTest, SumOverRowsAndColumns) {
  EXPECT_EQ(Values<float>(RunOp("Sum", {X(), I32({0}, {1})})), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(Values<float>(RunOp("Sum", {X(), Tensor::Scalar<int32_t>(1)})), (std::vector<float>{6, 15}));
  Tensor all = RunOp("Sum", {X(), I32({0, 1}, {2})});
  EXPECT_EQ(all.shape(), Shape());
  EXPECT_EQ(Values<float>(all), (std::vector<float>{21}));
}

TEST(ReductionOpsTest, NegativeAxisCountsFromTheEnd) {
  EXPECT_EQ(Values<float>(RunOp("Mean", {X(), I32({-1}, {1})})), (std::vector<float>{2, 5}));
  EXPECT_EQ(Values<float>(RunOp("Max", {X(), Tensor::Scalar<int64_t>(-2)}, {{"Tidx", MakeAttr(DType::kInt64)}})),
            (std::vector<float>{4, 5, 6}));
}

TEST(ReductionOpsTest, KeepDimsKeepsReducedAxesAsOne) {
  Tensor y = RunOp("Min", {X(), I32({1}, {1})}, {{"keep_dims", MakeAttr(true)}});
  EXPECT_EQ(y.shape(), Shape({2, 1}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 4}));
}

TEST(ReductionOpsTest, ProdOverMiddleAxisOf3D) {
  Tensor x = F32({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  Tensor y = RunOp("Prod", {x, I32({1}, {1})});
  EXPECT_EQ(y.shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 8, 35, 48}));
}

TEST(ReductionOpsTest, EmptyAxesReturnInputUnchanged) {
  Tensor y = RunOp("Sum", {X(), I32({}, {0})});
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(y), Values<float>(X()));
}

TEST(ReductionOpsTest, DuplicateAxesAreAnError) {
  Status st = RunOpError("Sum", {X(), I32({1, -1}, {2})});
  EXPECT_NE(st.message().find("duplicate"), std::string::npos) << st.message();
}

TEST(ReductionOpsTest, OutOfRangeAxisIsAnError) {
  Status st = RunOpError("Sum", {X(), I32({2}, {1})});
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.message();
}

TEST(ReductionOpsTest, EmptyReductionsGiveIdentities) {
  Tensor x = F32({}, {0, 2});
  EXPECT_EQ(Values<float>(RunOp("Sum", {x, I32({0}, {1})})), (std::vector<float>{0, 0}));
  EXPECT_EQ(Values<float>(RunOp("Prod", {x, I32({0}, {1})})), (std::vector<float>{1, 1}));
  auto mx = Values<float>(RunOp("Max", {x, I32({0}, {1})}));
  EXPECT_TRUE(std::isinf(mx[0]) && mx[0] < 0);
  EXPECT_TRUE(std::isnan(Values<float>(RunOp("Mean", {x, I32({0}, {1})}))[0]));
  Tensor none = RunOp("Sum", {x, I32({1}, {1})});
  EXPECT_EQ(none.shape(), Shape({0}));
}

TEST(ReductionOpsTest, IntegerMeanTruncates) {
  EXPECT_EQ(Values<int32_t>(RunOp("Mean", {I32({1, 2, -1, -2}, {2, 2}), I32({1}, {1})})),
            (std::vector<int32_t>{1, -1}));
}

TEST(ReductionOpsTest, MaxPropagatesNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(Values<float>(RunOp("Max", {F32({1, nan, 3}, {3}), I32({0}, {1})}))[0]));
}

TEST(ReductionOpsTest, SumAccumulatesFloatsInDouble) {
  // 1e8 + 1 + 1 + ... (100 ones) - 1e8 is 100 in double, 0 with float32 accumulation.
  std::vector<float> v = {1e8f};
  for (int i = 0; i < 100; ++i) v.push_back(1.0f);
  v.push_back(-1e8f);
  EXPECT_EQ(Values<float>(RunOp("Sum", {F32(v, {static_cast<int64_t>(v.size())}), I32({0}, {1})})),
            (std::vector<float>{100}));
}

TEST(ReductionOpsTest, AnyAndAll) {
  Tensor b = Tensor::FromVector<bool>({true, false, true, true}, Shape({2, 2}));
  EXPECT_EQ(Values<bool>(RunOp("Any", {b, I32({1}, {1})})), (std::vector<bool>{true, true}));
  EXPECT_EQ(Values<bool>(RunOp("All", {b, I32({1}, {1})})), (std::vector<bool>{false, true}));
}

TEST(ReductionOpsTest, HalfSumRoundsBack) {
  Tensor x(DType::kHalf, Shape({3}));
  for (int i = 0; i < 3; ++i) x.data<uint16_t>()[i] = FloatToHalf(0.5f * (i + 1));
  Tensor y = RunOp("Sum", {x, I32({0}, {1})});
  ASSERT_EQ(y.dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat(y.data<uint16_t>()[0]), 3.0f);
}

TEST(ReductionOpsTest, BadAxisDTypeIsAnError) {
  Status st = RunOpError("Sum", {X(), F32({0}, {1})});
  TFHOST_EXPECT_ERROR(st, StatusCode::kInvalidArgument,
                      "node 'test_Sum' (Sum): attr 'Tidx' is DT_FLOAT, which is not one of its allowed types");
}

TEST(ArgMinMaxTest, ArgMaxTiesPickTheFirstIndex) {
  Tensor y = RunOp("ArgMax", {F32({3, 7, 7, 1, 5, 5}, {2, 3}), Tensor::Scalar<int32_t>(1)});
  ASSERT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, 1}));
}

TEST(ArgMinMaxTest, ArgMinOverFirstAxisWithInt32Output) {
  Tensor y = RunOp("ArgMin", {F32({3, 1, 2, 0, 1, 9}, {2, 3}), Tensor::Scalar<int32_t>(0)},
                 {{"output_type", MakeAttr(DType::kInt32)}});
  ASSERT_EQ(y.dtype(), DType::kInt32);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, 0, 0}));
}

TEST(ArgMinMaxTest, NegativeDimensionAndEmptyAxisError) {
  EXPECT_EQ(Values<int64_t>(RunOp("ArgMax", {I32({1, 9, 3}, {3}), Tensor::Scalar<int32_t>(-1)})),
            (std::vector<int64_t>{1}));
  Status st = RunOpError("ArgMax", {F32({}, {2, 0}), Tensor::Scalar<int32_t>(1)});
  EXPECT_NE(st.message().find("empty"), std::string::npos) << st.message();
}

// Found by graph_kernel_fuzz: with an empty dim after the axis, every one of
// the 2^40 rows before it was still visited (a hang the test's timeout
// would catch), though there was no output to write.
TEST(ArgMinMaxTest, NoOutputsAfterAHugeDimAnswerAtOnce) {
  const int64_t huge = int64_t{1} << 40;
  for (const char* op : {"ArgMax", "ArgMin"}) {
    Tensor y = RunOp(op, {Tensor(DType::kFloat, Shape({huge, 5, 0})), Tensor::Scalar<int32_t>(1)});
    EXPECT_EQ(y.shape(), Shape({huge, 0})) << op;
  }
}

TEST(CumsumTest, InclusiveExclusiveAndReverse) {
  Tensor x = F32({1, 2, 3, 4}, {4});
  Tensor axis = Tensor::Scalar<int32_t>(0);
  EXPECT_EQ(Values<float>(RunOp("Cumsum", {x, axis})), (std::vector<float>{1, 3, 6, 10}));
  EXPECT_EQ(Values<float>(RunOp("Cumsum", {x, axis}, {{"exclusive", MakeAttr(true)}})),
            (std::vector<float>{0, 1, 3, 6}));
  EXPECT_EQ(Values<float>(RunOp("Cumsum", {x, axis}, {{"reverse", MakeAttr(true)}})),
            (std::vector<float>{10, 9, 7, 4}));
  EXPECT_EQ(Values<float>(RunOp("Cumsum", {x, axis}, {{"reverse", MakeAttr(true)}, {"exclusive", MakeAttr(true)}})),
            (std::vector<float>{9, 7, 4, 0}));
}

TEST(CumsumTest, AnEmptyAxisBetweenHugeDimsAnswersAtOnce) {
  // Found by fuzzing: a [2^20, 0, 2^20] input visited all 2^40 outer x inner
  // positions of an empty axis (a hang).
  const Shape shape({int64_t{1} << 20, 0, int64_t{1} << 20});
  Tensor y = RunOp("Cumprod", {Tensor(DType::kInt64, shape), Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(y.shape(), shape);
  EXPECT_EQ(y.dtype(), DType::kInt64);
}

TEST(CumsumTest, AlongInnerAxisOfMatrix) {
  Tensor y = RunOp("Cumsum", {I32({1, 2, 3, 4, 5, 6}, {2, 3}), Tensor::Scalar<int32_t>(-1)});
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, 3, 6, 4, 9, 15}));
  Tensor p = RunOp("Cumprod", {I32({1, 2, 3, 4, 5, 6}, {2, 3}), Tensor::Scalar<int32_t>(0)});
  EXPECT_EQ(Values<int32_t>(p), (std::vector<int32_t>{1, 2, 3, 4, 10, 18}));
}

}  // namespace
}  // namespace tfhost::ops::math
