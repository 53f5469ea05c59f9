#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap Attrs(const char* padding, std::vector<int64_t> strides = {1, 1, 1, 1, 1}) {
  return {{"T", MakeAttr(DType::kFloat)}, {"padding", MakeAttr(padding)}, {"strides", MakeAttr(strides)}};
}

TEST(Conv3DTest, OnesKernelSumsWindowsWithSamePadding) {
  // 1x2x2x2x1 input 1..8, 2x2x2 ones filter: VALID -> one output = 36;
  // SAME keeps 2x2x2: the corner (0,0,0) window sees everything (36), the
  // far corner only itself (8).
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(i + 1);
  Tensor x = Tensor::FromVector<float>(v, Shape({1, 2, 2, 2, 1}));
  Tensor ones = Tensor::FromVector<float>(std::vector<float>(8, 1.0f), Shape({2, 2, 2, 1, 1}));
  auto valid = RunSingleOp("Conv3D", {x, ones}, Attrs("VALID"));
  ASSERT_TRUE(valid.ok()) << valid.status().ToString();
  EXPECT_TRUE(TensorsEqual((*valid)[0], Tensor::FromVector<float>({36}, Shape({1, 1, 1, 1, 1}))));
  auto same = RunSingleOp("Conv3D", {x, ones}, Attrs("SAME"));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  ASSERT_EQ((*same)[0].shape(), Shape({1, 2, 2, 2, 1}));
  EXPECT_EQ((*same)[0].data<float>()[0], 36);
  EXPECT_EQ((*same)[0].data<float>()[7], 8);
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv3D", {x, ones}, Attrs("VALID", {1, 1, 1, 1})), StatusCode::kInvalidArgument,
                      "node 'test_Conv3D' (Conv3D): attr 'strides' has 4 values, fewer than its minimum 5");
  // Five entries pass the schema; the kernel still wants 1 for batch and channels.
  TFHOST_EXPECT_ERROR(RunSingleOp("Conv3D", {x, ones}, Attrs("VALID", {2, 1, 1, 1, 1})), StatusCode::kInvalidArgument,
                      "strides must have 5 entries with 1 for batch and channels, got [2, 1, 1, 1, 1]");
}

TEST(Pool3DTest, MaxAndAverageExcludePadding) {
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(i + 1);
  Tensor x = Tensor::FromVector<float>(v, Shape({1, 2, 2, 2, 1}));
  ir::AttrMap attrs = Attrs("SAME", {1, 2, 2, 2, 1});
  attrs["ksize"] = MakeAttr(std::vector<int64_t>{1, 3, 3, 3, 1});
  auto mx = RunSingleOp("MaxPool3D", {x}, attrs);
  ASSERT_TRUE(mx.ok()) << mx.status().ToString();
  EXPECT_TRUE(TensorsEqual((*mx)[0], Tensor::FromVector<float>({8}, Shape({1, 1, 1, 1, 1}))));
  auto avg = RunSingleOp("AvgPool3D", {x}, attrs);
  ASSERT_TRUE(avg.ok()) << avg.status().ToString();
  EXPECT_TRUE(TensorsEqual((*avg)[0], Tensor::FromVector<float>({4.5f}, Shape({1, 1, 1, 1, 1}))));  // 36 / 8 real cells
}

}  // namespace
}  // namespace tfhost::ops
