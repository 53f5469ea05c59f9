#include "ops/math/masked_softmax.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"

namespace tfhost::ops::math {
namespace {

Tensor Wave(const Shape& shape, float scale) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.37f * i) * scale;
  return t;
}

Tensor Mask(const Shape& shape) {
  Tensor t(DType::kBool, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<bool>()[i] = (i * 7) % 5 != 0;
  return t;
}

const ir::AttrMap kFloat = {{"T", MakeAttr(DType::kFloat)}};

TEST(MaskedSoftmaxTest, GivesSelectThenSoftmaxBitForBitAndBroadcastsAsTheyDo) {
  struct Case {
    Shape logits, mask;
  };
  // Attention's masks ([B, 1, T, T], [B, 1, 1, T]), a scalar mask, and a
  // mask that enlarges the logits (the output is their broadcast).
  for (const Case& c : std::vector<Case>{{Shape({2, 3, 5, 7}), Shape({2, 1, 5, 7})},
                                         {Shape({2, 3, 5, 7}), Shape({2, 1, 1, 7})},
                                         {Shape({4, 9}), Shape({})},
                                         {Shape({1, 2, 4}), Shape({3, 1, 4})}}) {
    SCOPED_TRACE(c.logits.ToString() + " masked by " + c.mask.ToString());
    const Tensor logits = Wave(c.logits, 8.f), mask = Mask(c.mask), fill = Tensor::Scalar<float>(-1e9f);
    auto fused = RunSingleOp(kMaskedSoftmaxOp, {logits, mask, fill}, kFloat);
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    auto selected = RunSingleOp("SelectV2", {mask, logits, fill}, kFloat);
    ASSERT_TRUE(selected.ok()) << selected.status().ToString();
    auto want = RunSingleOp("Softmax", {(*selected)[0]}, kFloat);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ASSERT_EQ((*fused)[0].shape(), (*want)[0].shape());
    for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
      EXPECT_EQ((*fused)[0].data<float>()[i], (*want)[0].data<float>()[i]) << i;
    }
  }
}

TEST(MaskedSoftmaxTest, ZeroMaskedGivesTheSecondSelectsZerosBitForBit) {
  const Tensor logits = Wave(Shape({2, 3, 5, 7}), 8.f), mask = Mask(Shape({2, 1, 5, 7}));
  const Tensor fill = Tensor::Scalar<float>(-1e9f);
  ir::AttrMap attrs = kFloat;
  attrs["zero_masked"] = MakeAttr(true);
  auto fused = RunSingleOp(kMaskedSoftmaxOp, {logits, mask, fill}, attrs);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  auto plain = RunSingleOp(kMaskedSoftmaxOp, {logits, mask, fill}, kFloat);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  auto want = RunSingleOp("SelectV2", {mask, (*plain)[0], Tensor::Scalar<float>(0.0f)}, kFloat);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
    EXPECT_EQ((*fused)[0].data<float>()[i], (*want)[0].data<float>()[i]) << i;
  }
}

TEST(MaskedSoftmaxTest, MasksThatDoNotBroadcastAreErrorsNamingTheNode) {
  auto out = RunSingleOp(kMaskedSoftmaxOp, {Wave(Shape({2, 8}), 1), Mask(Shape({3, 8})), Tensor::Scalar<float>(0)},
                         kFloat);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find(std::string(kMaskedSoftmaxOp) + "/select"), std::string::npos)
      << out.status().ToString();
  EXPECT_NE(out.status().message().find("[3,8]"), std::string::npos) << out.status().ToString();
}

}  // namespace
}  // namespace tfhost::ops::math
