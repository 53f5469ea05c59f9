#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap DilationAttrs(const char* padding, std::vector<int64_t> strides = {1, 1, 1, 1},
                          std::vector<int64_t> rates = {1, 1, 1, 1}) {
  return {{"T", MakeAttr(DType::kFloat)},
          {"strides", MakeAttr(strides)},
          {"rates", MakeAttr(rates)},
          {"padding", MakeAttr(padding)}};
}

Tensor Image3x3() { return Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape({1, 3, 3, 1})); }

TEST(Dilation2DTest, ValidTakesMaxOfInputPlusFilter) {
  // Filter [[0, -10], [-10, 0]]: out = max(x[y][x], x[y+1][x+1]) wherever
  // the off-diagonal taps lose, i.e. the lower-right neighbour.
  Tensor filter = Tensor::FromVector<float>({0, -10, -10, 0}, Shape({2, 2, 1}));
  auto out = RunSingleOp("Dilation2D", {Image3x3(), filter}, DilationAttrs("VALID"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({5, 6, 8, 9}, Shape({1, 2, 2, 1}))));
}

TEST(Dilation2DTest, SamePaddingSkipsTapsOutsideTheImage) {
  // 2x2 window, SAME: total pad 1, all after. The bottom-right output sees
  // only x[2][2] + filter[0][0] = 9 + 100.
  Tensor filter = Tensor::FromVector<float>({100, 0, 0, 0}, Shape({2, 2, 1}));
  auto out = RunSingleOp("Dilation2D", {Image3x3(), filter}, DilationAttrs("SAME"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0],
                           Tensor::FromVector<float>({101, 102, 103, 104, 105, 106, 107, 108, 109}, Shape({1, 3, 3, 1}))));
}

TEST(Dilation2DTest, RatesSpreadTheFilterTaps) {
  // Rate 2 turns a 2x2 filter into taps at (0,0),(0,2),(2,0),(2,2): one output.
  Tensor filter = Tensor::FromVector<float>({0, 0, 0, -100}, Shape({2, 2, 1}));
  auto out = RunSingleOp("Dilation2D", {Image3x3(), filter}, DilationAttrs("VALID", {1, 1, 1, 1}, {1, 2, 2, 1}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({7}, Shape({1, 1, 1, 1}))));
}

TEST(Dilation2DTest, Int32InputsComputeInTheirOwnType) {
  Tensor x = Tensor::FromVector<int32_t>({1, 2, 3, 4}, Shape({1, 2, 2, 1}));
  Tensor f = Tensor::FromVector<int32_t>({10}, Shape({1, 1, 1}));
  ir::AttrMap attrs = DilationAttrs("VALID", {1, 2, 2, 1});
  attrs["T"] = MakeAttr(DType::kInt32);
  auto out = RunSingleOp("Dilation2D", {x, f}, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({11}, Shape({1, 1, 1, 1}))));
}

TEST(Dilation2DTest, BadFilterDepthAndStridesAreErrors) {
  auto depth = RunSingleOp("Dilation2D", {Image3x3(), Tensor(DType::kFloat, Shape({2, 2, 3}))}, DilationAttrs("VALID"));
  TFHOST_ASSERT_ERROR(depth, StatusCode::kInvalidArgument, "filter depth 3 must equal the input depth 1");
  auto strides = RunSingleOp("Dilation2D", {Image3x3(), Tensor(DType::kFloat, Shape({2, 2, 1}))},
                             DilationAttrs("VALID", {2, 1, 1, 1}));
  TFHOST_ASSERT_ERROR(strides, StatusCode::kInvalidArgument,
                      "strides must be [1, h, w, 1] with positive h and w, got [[2, 1, 1, 1]]");
  auto rank = RunSingleOp("Dilation2D", {Tensor(DType::kFloat, Shape({3, 3, 1})), Tensor(DType::kFloat, Shape({2, 2, 1}))},
                          DilationAttrs("VALID"));
  TFHOST_EXPECT_ERROR(rank, StatusCode::kInvalidArgument, "input must be 4-D NHWC, got shape [3,3,1]");
}

}  // namespace
}  // namespace tfhost::ops
