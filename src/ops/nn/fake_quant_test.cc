#include <gtest/gtest.h>

#include "ops/run_single_op.h"

namespace tfhost::ops {
namespace {

TEST(FakeQuantTest, NudgesRangeSoZeroIsExactAndRoundsToLevels) {
  // min -1, max 1, 8 bits, in float as TensorFlow computes it: scale =
  // 2/255 rounds up in float, so 1 / scale = 127.49999 and the zero point
  // rounds to 127: nudged range [-127, 128] * scale. 0 stays 0; 1 -> level
  // floor(254.5 + 0.5) = 255 -> 128 * scale; -2 clamps to -127 * scale; 0.5
  // -> floor(190.75 + 0.5) = 191 -> 64 * scale.
  const float scale = 2.0f / 255.0f;
  auto out = RunSingleOp("FakeQuantWithMinMaxVars",
                         {Tensor::FromVector<float>({0, 1, -2, 0.5f}), Tensor::Scalar<float>(-1), Tensor::Scalar<float>(1)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float want[] = {0, 128 * scale, -127 * scale, 64 * scale};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR((*out)[0].data<float>()[i], want[i], 1e-6) << i;
  // narrow_range: levels 1..255, scale 2/254, zero point 128: range exactly
  // [-1, 1]; 0.003 is 0.38 of a step -> 0.
  auto narrow = RunSingleOp("FakeQuantWithMinMaxArgs", {Tensor::FromVector<float>({-1, 1, 0.003f})},
                            {{"min", MakeAttr(-1.0f)}, {"max", MakeAttr(1.0f)}, {"narrow_range", MakeAttr(true)}});
  ASSERT_TRUE(narrow.ok()) << narrow.status().ToString();
  EXPECT_NEAR((*narrow)[0].data<float>()[0], -1, 1e-6);
  EXPECT_NEAR((*narrow)[0].data<float>()[1], 1, 1e-6);
  EXPECT_NEAR((*narrow)[0].data<float>()[2], 0, 1e-6);
  // Per channel: the last dim picks the range.
  auto pc = RunSingleOp("FakeQuantWithMinMaxVarsPerChannel",
                        {Tensor::FromVector<float>({5, 5}, Shape({1, 2})), Tensor::FromVector<float>({0, 0}),
                         Tensor::FromVector<float>({1, 10})});
  ASSERT_TRUE(pc.ok()) << pc.status().ToString();
  EXPECT_NEAR((*pc)[0].data<float>()[0], 1, 1e-6);
  EXPECT_NEAR((*pc)[0].data<float>()[1], 5.019608f, 1e-5);  // level 128 of 10/255
  EXPECT_FALSE(RunSingleOp("FakeQuantWithMinMaxArgs", {Tensor::FromVector<float>({1})},
                           {{"min", MakeAttr(1.0f)}, {"max", MakeAttr(1.0f)}}).ok());
}

}  // namespace
}  // namespace tfhost::ops
