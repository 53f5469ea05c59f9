#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::F32;
using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Iota;
using test_util::RunOp;
using test_util::RunError;

const ir::AttrMap kFloat = {{"T", MakeAttr(DType::kFloat)}};

Tensor OneTo(int n, Shape s) {
  Tensor t = Iota(std::move(s));
  for (int i = 0; i < n; ++i) t.data<float>()[i] += 1;
  return t;
}

TEST(SpaceToBatchNDTest, MatchesTensorFlowDocExample) {
  // [1, 4, 4, 1] holding 1..16, block [2, 2].
  auto out = RunOp("SpaceToBatchND", {OneTo(16, {1, 4, 4, 1}), I32({2, 2}), I32({0, 0, 0, 0}, {2, 2})},
                 kFloat);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({4, 2, 2, 1}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 3, 9, 11, 2, 4, 10, 12,
                                                5, 7, 13, 15, 6, 8, 14, 16}));
}

TEST(SpaceToBatchNDTest, PaddingMustMakeDimsDivisible) {
  Status st = RunError("SpaceToBatchND", {Iota({1, 3, 3, 1}), I32({2, 2}), I32({0, 0, 0, 0}, {2, 2})},
                       kFloat);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "padded spatial dim 0 (3) of input shape [1,3,3,1] is not divisible by block size 2");
}

TEST(SpaceBatchNDTest, RoundTripWithPaddingAndCrops) {
  Tensor x = Iota({2, 3, 5, 2});
  Tensor pads = I64({1, 0, 0, 1}, {2, 2});
  ir::AttrMap s2b = {{"T", MakeAttr(DType::kFloat)}, {"Tpaddings", MakeAttr(DType::kInt64)}};
  auto packed = RunOp("SpaceToBatchND", {x, I32({2, 3}), pads}, s2b);
  ASSERT_EQ(packed.size(), 1u);
  EXPECT_EQ(packed[0].shape(), Shape({12, 2, 2, 2}));
  ir::AttrMap b2s = {{"T", MakeAttr(DType::kFloat)}, {"Tcrops", MakeAttr(DType::kInt64)}};
  auto back = RunOp("BatchToSpaceND", {packed[0], I32({2, 3}), pads}, b2s);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(TensorsEqual(back[0], x)) << back[0].DebugString(64);
}

TEST(BatchToSpaceNDTest, CropsLargerThanDimAreErrors) {
  EXPECT_FALSE(RunError("BatchToSpaceND", {Iota({4, 1, 1, 1}), I32({2, 2}), I32({2, 1, 0, 0}, {2, 2})},
                        kFloat)
                   .ok());
  EXPECT_FALSE(RunError("BatchToSpaceND", {Iota({3, 1, 1, 1}), I32({2, 2}), I32({0, 0, 0, 0}, {2, 2})},
                        kFloat)
                   .ok());
}

TEST(DepthToSpaceTest, MatchesTensorFlowDocExample) {
  auto out = RunOp("DepthToSpace", {OneTo(16, {1, 2, 2, 4})},
                 {{"T", MakeAttr(DType::kFloat)}, {"block_size", MakeAttr(2)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({1, 4, 4, 1}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8,
                                                9, 10, 13, 14, 11, 12, 15, 16}));
}

TEST(SpaceToDepthTest, InvertsDepthToSpaceInBothLayouts) {
  for (const char* format : {"NHWC", "NCHW"}) {
    ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                         {"block_size", MakeAttr(2)},
                         {"data_format", MakeAttr(format)}};
    Tensor x = Iota({2, 4, 6, 4});
    auto deep = RunOp("SpaceToDepth", {x}, attrs);
    ASSERT_EQ(deep.size(), 1u) << format;
    auto back = RunOp("DepthToSpace", {deep[0]}, attrs);
    ASSERT_EQ(back.size(), 1u) << format;
    EXPECT_TRUE(TensorsEqual(back[0], x)) << format;
  }
  // NHWC: out[0, 0, 0, (i*2+j)*C + c] = in[0, i, j, c].
  auto deep = RunOp("SpaceToDepth", {OneTo(4, {1, 2, 2, 1})},
                  {{"T", MakeAttr(DType::kFloat)}, {"block_size", MakeAttr(2)}});
  EXPECT_EQ(Floats(deep[0]), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(RunError("SpaceToDepth", {Iota({1, 3, 2, 1})},
                        {{"T", MakeAttr(DType::kFloat)}, {"block_size", MakeAttr(2)}})
                   .ok());
}

}  // namespace
}  // namespace tfhost::ops::array
