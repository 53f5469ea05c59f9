#include <cmath>

#include "ops/math/math_test_util.h"

namespace tfhost::ops::math {
namespace {

using math_test::F32;
using math_test::RunOp;
using math_test::RunOpError;
using math_test::Values;

TEST(SoftmaxTest, RowsSumToOneAlongLastAxis) {
  Tensor y = RunOp("Softmax", {F32({1, 2, 3, 1, 1, 1}, {2, 3})});
  auto v = Values<float>(y);
  EXPECT_NEAR(v[0] + v[1] + v[2], 1.0f, 1e-6);
  EXPECT_NEAR(v[2], std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-6);
  EXPECT_NEAR(v[3], 1.0f / 3, 1e-6);
}

TEST(SoftmaxTest, HugeLogitsStayFinite) {
  Tensor y = RunOp("Softmax", {F32({1000, 1000, -1000, 1e30f}, {2, 2})});
  auto v = Values<float>(y);
  EXPECT_FLOAT_EQ(v[0], 0.5f);
  EXPECT_FLOAT_EQ(v[1], 0.5f);
  EXPECT_FLOAT_EQ(v[2], 0.0f);
  EXPECT_FLOAT_EQ(v[3], 1.0f);
}

TEST(SoftmaxTest, LogSoftmaxOfHugeLogitsIsFinite) {
  auto v = Values<float>(RunOp("LogSoftmax", {F32({1000, 1000}, {2})}));
  EXPECT_NEAR(v[0], -std::log(2.0), 1e-6);
  EXPECT_NEAR(v[1], -std::log(2.0), 1e-6);
}

TEST(SoftmaxTest, ScalarIsAnError) {
  Status st = RunOpError("Softmax", {Tensor::Scalar<float>(1)});
  EXPECT_NE(st.message().find("rank"), std::string::npos) << st.message();
}

TEST(SoftmaxTest, EmptyRowsAreFine) {
  EXPECT_EQ(RunOp("Softmax", {F32({}, {3, 0})}).shape(), Shape({3, 0}));
}

TEST(SoftmaxTest, ThreadPoolGivesIdenticalResult) {
  std::vector<float> x(64 * 33);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) * 0.3f;
  ThreadPool pool(2);
  EXPECT_TRUE(TensorsEqual(RunOp("Softmax", {F32(x, {64, 33})}), RunOp("Softmax", {F32(x, {64, 33})}, {}, &pool)));
}

}  // namespace
}  // namespace tfhost::ops::math
