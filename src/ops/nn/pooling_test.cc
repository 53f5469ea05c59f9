#include <gtest/gtest.h>

#include "ops/op_registry.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor F(const std::vector<float>& v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }

// 3x3 input 1..9, one channel.
Tensor Input3x3() { return F({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3, 1})); }

ir::AttrMap PoolAttrs(const std::string& padding, int64_t k, int64_t s) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"ksize", MakeAttr(std::vector<int64_t>{1, k, k, 1})},
          {"strides", MakeAttr(std::vector<int64_t>{1, s, s, 1})},
          {"padding", MakeAttr(padding)}};
}

TEST(MaxPoolTest, SameStrideTwoIgnoresPaddedCells) {
  const Tensor x = F({-1, -2, -3, -4, -5, -6, -7, -8, -9}, Shape({1, 3, 3, 1}));
  auto out = RunSingleOp("MaxPool", {x}, PoolAttrs("SAME", 2, 2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 2, 1}));
  // Padding would win with 0 if it took part; all inputs are negative.
  EXPECT_TRUE(TensorsEqual((*out)[0], F({-1, -3, -7, -9}, Shape({1, 2, 2, 1}))))
      << (*out)[0].DebugString();
}

TEST(MaxPoolTest, ValidAndExplicitPadding) {
  auto valid = RunSingleOp("MaxPool", {Input3x3()}, PoolAttrs("VALID", 2, 1));
  ASSERT_TRUE(valid.ok()) << valid.status().ToString();
  EXPECT_TRUE(TensorsEqual((*valid)[0], F({5, 6, 8, 9}, Shape({1, 2, 2, 1}))));
  auto attrs = PoolAttrs("EXPLICIT", 2, 2);
  attrs["explicit_paddings"] = MakeAttr(std::vector<int64_t>{0, 0, 1, 0, 1, 0, 0, 0});
  auto expl = RunSingleOp("MaxPool", {Input3x3()}, attrs);
  ASSERT_TRUE(expl.ok()) << expl.status().ToString();
  // Padded input is 4x4 with the data at [1..3]; windows start at 0 and 2.
  EXPECT_TRUE(TensorsEqual((*expl)[0], F({1, 3, 7, 9}, Shape({1, 2, 2, 1}))))
      << (*expl)[0].DebugString();
}

TEST(MaxPoolTest, Int32AndNchw) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 5, 3, 2}, Shape({1, 2, 2, 1}));
  auto attrs = PoolAttrs("VALID", 2, 1);
  attrs["T"] = MakeAttr(DType::kInt32);
  auto out = RunSingleOp("MaxPool", {x}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 5);
  // NCHW: two channels of 2x2; ksize/strides in NCHW order.
  const Tensor xc = F({1, 2, 3, 4, 40, 30, 20, 10}, Shape({1, 2, 2, 2}));
  ir::AttrMap nchw = {{"T", MakeAttr(DType::kFloat)},
                      {"ksize", MakeAttr(std::vector<int64_t>{1, 1, 2, 2})},
                      {"strides", MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                      {"padding", MakeAttr("VALID")},
                      {"data_format", MakeAttr("NCHW")}};
  auto outc = RunSingleOp("MaxPool", {xc}, nchw);
  ASSERT_TRUE(outc.ok()) << outc.status().ToString();
  EXPECT_TRUE(TensorsEqual((*outc)[0], F({4, 40}, Shape({1, 2, 1, 1}))));
}

TEST(MaxPoolV2Test, TakesKsizeAndStridesAsInputs) {
  auto out = RunSingleOp("MaxPoolV2",
                         {Input3x3(), Tensor::FromVector<int32_t>({1, 2, 2, 1}),
                          Tensor::FromVector<int32_t>({1, 1, 1, 1})},
                         {{"T", MakeAttr(DType::kFloat)}, {"padding", MakeAttr("VALID")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], F({5, 6, 8, 9}, Shape({1, 2, 2, 1}))));
}

TEST(AvgPoolTest, SameDividesByTheNumberOfRealCells) {
  auto out = RunSingleOp("AvgPool", {Input3x3()}, PoolAttrs("SAME", 2, 2));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Windows: {1,2,4,5} / 4, {3,6} / 2, {7,8} / 2, {9} / 1.
  EXPECT_TRUE(TensorsEqual((*out)[0], F({3, 4.5f, 7.5f, 9}, Shape({1, 2, 2, 1}))))
      << (*out)[0].DebugString();
}

TEST(AvgPoolTest, SameStrideOneThreeByThree) {
  auto out = RunSingleOp("AvgPool", {Input3x3()}, PoolAttrs("SAME", 3, 1));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Corner (0,0): {1,2,4,5} / 4 = 3; centre: 45 / 9 = 5; edge (0,1): {1..6} / 6 = 3.5.
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], 3.f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[1], 3.5f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[4], 5.f);
}

TEST(AvgPoolTest, InputArgIsNamedValue) {
  const OpRegistration* reg = OpRegistry::Global().Find("AvgPool");
  ASSERT_NE(reg, nullptr);
  ASSERT_EQ(reg->def.input_arg_size(), 1);
  EXPECT_EQ(reg->def.input_arg(0).name(), "value");
}

TEST(PoolTest, RejectsBadAttrs) {
  TFHOST_EXPECT_ERROR(RunSingleOp("AvgPool", {Input3x3()}, PoolAttrs("EXPLICIT", 2, 2)), StatusCode::kInvalidArgument,
                      "node 'test_AvgPool' (AvgPool): attr 'padding' is 'EXPLICIT', which is not one of its allowed values "
                      "('SAME', 'VALID')");
  TFHOST_EXPECT_ERROR(RunSingleOp("MaxPool", {Input3x3()}, PoolAttrs("SOMETIMES", 2, 2)), StatusCode::kInvalidArgument,
                      "node 'test_MaxPool' (MaxPool): attr 'padding' is 'SOMETIMES', which is not one of its allowed values");
  auto attrs = PoolAttrs("VALID", 2, 1);
  attrs["ksize"] = MakeAttr(std::vector<int64_t>{1, 2, 2});
  TFHOST_EXPECT_ERROR(RunSingleOp("MaxPool", {Input3x3()}, attrs), StatusCode::kInvalidArgument,
                      "node 'test_MaxPool' (MaxPool): attr 'ksize' has 3 values, fewer than its minimum 4");
  attrs["ksize"] = MakeAttr(std::vector<int64_t>{1, 2, 2, 2});
  TFHOST_EXPECT_ERROR(RunSingleOp("MaxPool", {Input3x3()}, attrs), StatusCode::kUnimplemented,
                      "pooling across the batch or channel dimension is not supported, ksize [1, 2, 2, 2]");
  const Tensor x3(DType::kFloat, Shape({3, 3, 1}));
  TFHOST_EXPECT_ERROR(RunSingleOp("MaxPool", {x3}, PoolAttrs("VALID", 2, 1)), StatusCode::kInvalidArgument,
                      "input must be 4-D, got shape [3,3,1]");
}

}  // namespace
}  // namespace tfhost::ops
