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

ir::AttrMap MirrorAttrs(const char* mode) {
  return {{"T", MakeAttr(DType::kFloat)}, {"mode", MakeAttr(mode)}};
}

TEST(PadTest, ZeroPadsBeforeAndAfter) {
  auto out = RunOp("Pad", {F32({1, 2, 3, 4}, {2, 2}), I32({1, 0, 0, 2}, {2, 2})},
                 {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({3, 4}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
}

TEST(PadTest, NegativeOrMisshapedPaddingsAreErrors) {
  EXPECT_FALSE(RunError("Pad", {Iota({2}), I32({-1, 0}, {1, 2})}, {{"T", MakeAttr(DType::kFloat)}})
                   .ok());
  EXPECT_FALSE(RunError("Pad", {Iota({2}), I32({1, 0}, {2})}, {{"T", MakeAttr(DType::kFloat)}})
                   .ok());
}

TEST(PadV2Test, FillsWithConstantIncludingStrings) {
  auto out = RunOp("PadV2", {F32({1}, {1}), I64({2, 1}, {1, 2}), Tensor::Scalar<float>(-1)},
                 {{"T", MakeAttr(DType::kFloat)}, {"Tpaddings", MakeAttr(DType::kInt64)}});
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{-1, -1, 1, -1}));
  auto s = RunOp("PadV2", {Str({"x"}, {1}), I32({1, 1}, {1, 2}), Tensor::StringScalar("_")},
               {{"T", MakeAttr(DType::kString)}});
  EXPECT_EQ(test_util::Strings(s[0]), (std::vector<std::string>{"_", "x", "_"}));
}

// docs/formats.md §6.3: [1,2,3] padded after by 2: REFLECT -> [1,2,3,2,1], SYMMETRIC -> [1,2,3,3,2].
TEST(MirrorPadTest, ReflectAndSymmetricMatchFormatsExample) {
  Tensor x = F32({1, 2, 3}, {3});
  Tensor pads = I32({0, 2}, {1, 2});
  EXPECT_EQ(Floats(RunOp("MirrorPad", {x, pads}, MirrorAttrs("REFLECT"))[0]),
            (std::vector<float>{1, 2, 3, 2, 1}));
  EXPECT_EQ(Floats(RunOp("MirrorPad", {x, pads}, MirrorAttrs("SYMMETRIC"))[0]),
            (std::vector<float>{1, 2, 3, 3, 2}));
}

TEST(MirrorPadTest, PadsBothSidesOfTwoDims) {
  // [[1,2,3],[4,5,6]] with paddings [[1,1],[2,2]] REFLECT (TensorFlow's doc example).
  auto out = RunOp("MirrorPad", {F32({1, 2, 3, 4, 5, 6}, {2, 3}), I32({1, 1, 2, 2}, {2, 2})},
                 MirrorAttrs("REFLECT"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({4, 7}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{6, 5, 4, 5, 6, 5, 4,  //
                                                3, 2, 1, 2, 3, 2, 1,  //
                                                6, 5, 4, 5, 6, 5, 4,  //
                                                3, 2, 1, 2, 3, 2, 1}));
}

TEST(MirrorPadTest, TooMuchPaddingIsAnError) {
  Tensor x = F32({1, 2, 3}, {3});
  TFHOST_EXPECT_ERROR(RunError("MirrorPad", {x, I32({0, 3}, {1, 2})}, MirrorAttrs("REFLECT")), StatusCode::kInvalidArgument,
                      "paddings [0, 3] for dim 0 of input shape [3] must be at most 2 in REFLECT mode");
  EXPECT_TRUE(RunError("MirrorPad", {x, I32({0, 3}, {1, 2})}, MirrorAttrs("SYMMETRIC")).ok());
  TFHOST_EXPECT_ERROR(RunError("MirrorPad", {x, I32({0, 4}, {1, 2})}, MirrorAttrs("SYMMETRIC")), StatusCode::kInvalidArgument,
                      "paddings [0, 4] for dim 0 of input shape [3] must be at most 3 in SYMMETRIC mode");
}

}  // namespace
}  // namespace tfhost::ops::array
