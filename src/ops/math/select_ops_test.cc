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

TEST(SelectTest, V2AttentionMaskBroadcastRowByRowMatchesElementByElement) {
  // A [1, 1, T, T] mask against [B, H, T, T] scores and a scalar fill, and
  // a per-row [B, 1, T, 1] condition: rows of 20 take the row-wise path.
  const int64_t b = 2, h = 3, t = 20;
  std::vector<bool> mask(t * t), rows(b * t);
  for (int64_t i = 0; i < t * t; ++i) mask[i] = (i * 7) % 5 != 0;
  for (int64_t i = 0; i < b * t; ++i) rows[i] = i % 3 == 0;
  std::vector<float> scores(b * h * t * t);
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = 0.5f * static_cast<float>(i);
  const Tensor x = F32(scores, {b, h, t, t});
  Tensor masked = RunOp("SelectV2", {Bools(mask, {1, 1, t, t}), x, Tensor::Scalar<float>(-1e9f)});
  Tensor by_row = RunOp("SelectV2", {Bools(rows, {b, 1, t, 1}), Tensor::Scalar<float>(1.f), x});
  ASSERT_EQ(masked.shape(), Shape({b, h, t, t}));
  ASSERT_EQ(by_row.shape(), Shape({b, h, t, t}));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const int64_t col = i % t, row = (i / t) % t, batch = i / (h * t * t);
    EXPECT_EQ(masked.data<float>()[i], mask[row * t + col] ? scores[i] : -1e9f) << i;
    EXPECT_EQ(by_row.data<float>()[i], rows[batch * t + row] ? 1.f : scores[i]) << i;
  }
}

TEST(SelectTest, V2RowsSplitOverThreadsGiveTheSameResult) {
  // 4 x 8 x 64 x 64 scores: enough elements for the intra-op pool to split.
  const int64_t b = 4, h = 8, t = 64;
  std::vector<bool> mask(t * t);
  for (int64_t i = 0; i < t * t; ++i) mask[i] = (i * 5) % 7 != 0;
  std::vector<float> scores(b * h * t * t);
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = static_cast<float>(i % 1000) - 500.f;
  const std::vector<Tensor> in = {Bools(mask, {1, 1, t, t}), F32(scores, {b, h, t, t}), Tensor::Scalar<float>(-1e9f)};
  ThreadPool pool(3);
  Tensor split = RunOp("SelectV2", in, {}, &pool);
  Tensor inline_run = RunOp("SelectV2", in);
  EXPECT_EQ(Values<float>(split), Values<float>(inline_run));
  EXPECT_EQ(split.data<float>()[t + 7], mask[t + 7] ? scores[t + 7] : -1e9f);
}

TEST(SelectTest, VectorConditionPicksLongRows) {
  std::vector<float> a(2 * 24), c(2 * 24);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i), c[i] = -static_cast<float>(i);
  Tensor z = RunOp("Select", {Bools({false, true}, {2}), F32(a, {2, 24}), F32(c, {2, 24})});
  for (int64_t i = 0; i < 48; ++i) EXPECT_EQ(z.data<float>()[i], i < 24 ? c[i] : a[i]) << i;
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
