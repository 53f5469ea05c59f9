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
using test_util::Str;
using test_util::Strings;

ir::AttrMap NT(int n, DType t) { return {{"N", MakeAttr(n)}, {"T", MakeAttr(t)}}; }

TEST(ConcatV2Test, NegativeAxisJoinsLastDim) {
  auto out = RunOp("ConcatV2", {Iota({2, 2}), F32({9, 8, 7, 6, 5, 4}, {2, 3}),
                              Tensor::Scalar<int32_t>(-1)},
                 NT(2, DType::kFloat));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({2, 5}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 1, 9, 8, 7, 2, 3, 6, 5, 4}));
}

TEST(ConcatV2Test, MismatchedShapesAndBadAxisAreErrors) {
  Status st = RunError("ConcatV2", {Iota({2, 2}), Iota({3, 3}), Tensor::Scalar<int32_t>(0)},
                       NT(2, DType::kFloat));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "value 1 has shape [3,3], which does not match value 0's shape [2,2] in every dimension but axis 0");
  EXPECT_FALSE(RunError("ConcatV2", {Iota({2}), Iota({2}), Tensor::Scalar<int32_t>(1)},
                        NT(2, DType::kFloat))
                   .ok());
}

TEST(ConcatTest, AxisComesFirstAndStringsAreCopied) {
  auto out = RunOp("Concat", {Tensor::Scalar<int32_t>(0), Str({"a", "b"}, {2}), Str({"c"}, {1})},
                 NT(2, DType::kString));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Strings(out[0]), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(PackTest, StacksStringsOnNewAxis) {
  auto out = RunOp("Pack", {Str({"a", "b"}, {2}), Str({"c", "d"}, {2})},
                 {{"N", MakeAttr(2)}, {"T", MakeAttr(DType::kString)}, {"axis", MakeAttr(1)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Strings(out[0]), (std::vector<std::string>{"a", "c", "b", "d"}));
}

TEST(PackTest, ScalarsBecomeVectorAndShapeMismatchFails) {
  auto out = RunOp("Pack", {Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(7)},
                 NT(2, DType::kInt64));
  EXPECT_EQ(test_util::Ints(out[0]), (std::vector<int64_t>{5, 7}));
  TFHOST_EXPECT_ERROR(RunError("Pack", {Iota({2}), Iota({3})}, NT(2, DType::kFloat)), StatusCode::kInvalidArgument,
                      "value 1 is float32[3], expected float32[2] like value 0");
}

TEST(UnpackTest, SplitsAlongAxis) {
  auto out = RunOp("Unpack", {Iota({2, 3})},
                 {{"num", MakeAttr(3)}, {"T", MakeAttr(DType::kFloat)}, {"axis", MakeAttr(-1)}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].shape(), Shape({2}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{2, 5}));
  EXPECT_FALSE(RunError("Unpack", {Iota({2, 3})},
                        {{"num", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}, {"axis", MakeAttr(1)}})
                   .ok());
}

TEST(SplitTest, SplitDimFirstEqualPieces) {
  auto out = RunOp("Split", {Tensor::Scalar<int32_t>(1), Iota({2, 4})},
                 {{"num_split", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{2, 3, 6, 7}));
  EXPECT_FALSE(RunError("Split", {Tensor::Scalar<int32_t>(1), Iota({2, 4})},
                        {{"num_split", MakeAttr(3)}, {"T", MakeAttr(DType::kFloat)}})
                   .ok());
}

TEST(SplitVTest, MinusOneTakesTheRest) {
  auto out = RunOp("SplitV", {Iota({7}), I64({2, -1, 1}), Tensor::Scalar<int32_t>(0)},
                 {{"num_split", MakeAttr(3)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{6}));
}

TEST(SplitVTest, SizesThatDoNotSumAreErrors) {
  ir::AttrMap attrs = {{"num_split", MakeAttr(2)},
                       {"T", MakeAttr(DType::kFloat)},
                       {"Tlen", MakeAttr(DType::kInt32)}};
  EXPECT_FALSE(
      RunError("SplitV", {Iota({7}), I32({2, 2}), Tensor::Scalar<int32_t>(0)}, attrs).ok());
  EXPECT_FALSE(
      RunError("SplitV", {Iota({7}), I32({-1, -1}), Tensor::Scalar<int32_t>(0)}, attrs).ok());
  EXPECT_FALSE(
      RunError("SplitV", {Iota({7}), I32({9, -1}), Tensor::Scalar<int32_t>(0)}, attrs).ok());
}

// Zero-size values whose outer dimensions multiply past any loop budget
// (fuzzer finding: Pack of two [2^38, 0] tensors along axis 1 ran for
// minutes copying nothing 2^38 times).
TEST(ConcatSplitTest, ZeroSizeValuesWithHugeOuterDimensionsFinishAtOnce) {
  const int64_t huge = int64_t{1} << 38;
  const Tensor empty(DType::kFloat, Shape({huge, 0}));
  auto packed = RunOp("Pack", {empty, empty}, {{"N", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}, {"axis", MakeAttr(1)}});
  ASSERT_EQ(packed.size(), 1u);
  EXPECT_EQ(packed[0].shape(), Shape({huge, 2, 0}));
  auto joined = RunOp("ConcatV2", {empty, empty, Tensor::Scalar<int32_t>(1)}, NT(2, DType::kFloat));
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].shape(), Shape({huge, 0}));
  const Tensor wide(DType::kFloat, Shape({huge, 2, 0}));
  auto unpacked = RunOp("Unpack", {wide}, {{"num", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}, {"axis", MakeAttr(1)}});
  ASSERT_EQ(unpacked.size(), 2u);
  EXPECT_EQ(unpacked[1].shape(), Shape({huge, 0}));
  auto split = RunOp("Split", {Tensor::Scalar<int32_t>(1), wide},
                     {{"num_split", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].shape(), Shape({huge, 1, 0}));
}

}  // namespace
}  // namespace tfhost::ops::array
