#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Iota;
using test_util::RunOp;
using test_util::RunError;

ir::AttrMap TIndex(DType t, const char* index_name, DType index) {
  return {{"T", MakeAttr(t)}, {index_name, MakeAttr(index)}};
}

TEST(SliceTest, SizeMinusOneRunsToTheEnd) {
  auto out = RunOp("Slice", {Iota({3, 4}), I32({1, 1}), I32({-1, 2})},
                 TIndex(DType::kFloat, "Index", DType::kInt32));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{5, 6, 9, 10}));
}

TEST(SliceTest, Int64IndicesAndOutOfRangeError) {
  auto out = RunOp("Slice", {Iota({4}), I64({3}), I64({1})},
                 TIndex(DType::kFloat, "Index", DType::kInt64));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{3}));
  Status st = RunError("Slice", {Iota({4}), I64({3}), I64({2})},
                       TIndex(DType::kFloat, "Index", DType::kInt64));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "size[0] = 2 is out of range; expected -1 or a value in [0, 1] for begin [3] and input shape [4]");
  EXPECT_FALSE(RunError("Slice", {Iota({4}), I64({-1}), I64({1})},
                        TIndex(DType::kFloat, "Index", DType::kInt64))
                   .ok());
}

TEST(ReverseV2Test, ReversesNamedAxes) {
  auto out = RunOp("ReverseV2", {Iota({2, 3}), I32({-1})}, {{"T", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  auto both = RunOp("ReverseV2", {Iota({2, 3}), I32({0, 1})}, {{"T", MakeAttr(DType::kFloat)}});
  EXPECT_EQ(Floats(both[0]), (std::vector<float>{5, 4, 3, 2, 1, 0}));
  EXPECT_FALSE(
      RunError("ReverseV2", {Iota({2, 3}), I32({1, -1})}, {{"T", MakeAttr(DType::kFloat)}}).ok());
}

TEST(TileTest, RepeatsEachDim) {
  auto out = RunOp("Tile", {Iota({2, 2}), I32({2, 3})}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({4, 6}));
  EXPECT_EQ(Floats(out[0]),
            (std::vector<float>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3,
                                0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3}));
  TFHOST_EXPECT_ERROR(RunError("Tile", {Iota({2, 2}), I32({2, -1})}, {{"T", MakeAttr(DType::kFloat)}}), StatusCode::kInvalidArgument,
                      "multiples [2, -1] must be non-negative");
}

TEST(TileTest, HugeMultiplesAreRejectedBeforeAllocating) {
  Status st = RunError("Tile", {Iota({4, 4}), I64({int64_t{1} << 30, int64_t{1} << 30})},
                       TIndex(DType::kFloat, "Tmultiples", DType::kInt64));
  TFHOST_EXPECT_ERROR(st, StatusCode::kInvalidArgument,
                      "tile output: shape [4294967296,4294967296] has more than 1099511627776 elements");
}

TEST(BroadcastToTest, ExpandsUnitAndMissingDims) {
  auto out = RunOp("BroadcastTo", {Iota({3, 1}), I32({2, 3, 2})}, {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}));
  Status st = RunError("BroadcastTo", {Iota({3}), I32({4})}, {{"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "cannot broadcast input shape [3] to shape [4]");
}

TEST(ReverseTest, TensorFlow1BoolDimsReverseTheMarkedAxes) {
  // [[0, 1, 2], [3, 4, 5]] with dims [false, true] -> [[2, 1, 0], [5, 4, 3]].
  Tensor x = Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5}, Shape({2, 3}));
  auto out = RunSingleOp("Reverse", {x, Tensor::FromVector<bool>({false, true})}, {{"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({2, 1, 0, 5, 4, 3}, Shape({2, 3}))));
  TFHOST_EXPECT_ERROR(RunSingleOp("Reverse", {x, Tensor::FromVector<bool>({true})}, {{"T", MakeAttr(DType::kInt32)}}), StatusCode::kInvalidArgument,
                      "dims must be a bool vector with one entry per dim of [2,3], got bool[1]");
}

}  // namespace
}  // namespace tfhost::ops::array
