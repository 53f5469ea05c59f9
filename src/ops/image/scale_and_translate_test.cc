#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Row() { return Tensor::FromVector<float>({10, 20, 40, 80}, Shape({1, 1, 4, 1})); }

StatusOr<Tensor> Resize(const Tensor& images, int32_t h, int32_t w, std::vector<float> scale, std::vector<float> translation,
                        const std::string& kernel, bool antialias) {
  ir::AttrMap attrs = {{"T", MakeAttr(images.dtype())},
                       {"kernel_type", MakeAttr(kernel)},
                       {"antialias", MakeAttr(antialias)}};
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp("ScaleAndTranslate",
                                                {images, Tensor::FromVector<int32_t>({h, w}),
                                                 Tensor::FromVector<float>(scale), Tensor::FromVector<float>(translation)},
                                                attrs));
  return out[0];
}

void ExpectValues(const StatusOr<Tensor>& got, const std::vector<float>& want) {
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got->data<float>()[i], want[i]) << "element " << i;
}

TEST(ScaleAndTranslateTest, TriangleDownscaleWithAndWithoutAntialias) {
  // 4 -> 2 columns (scale 0.5). Antialias stretches the tent to radius 2:
  // output 0 samples 1.0 and covers pixels 0..2 at distances 0.5, 0.5, 1.5,
  // weights 0.75, 0.75, 0.25 (sum 1.75): (7.5 + 15 + 10) / 1.75 = 130/7;
  // output 1 samples 3.0, pixels 1..3 weigh 0.25, 0.75, 0.75: 95/1.75.
  // Without antialias the tent keeps radius 1: pixels 0, 1 halve -> 15, 60.
  ExpectValues(Resize(Row(), 1, 2, {1, 0.5f}, {0, 0}, "triangle", true), {130.0f / 7, 95.0f / 1.75f});
  ExpectValues(Resize(Row(), 1, 2, {1, 0.5f}, {0, 0}, "triangle", false), {15, 60});
}

TEST(ScaleAndTranslateTest, SamplesOutsideTheImageAreZero) {
  // Translation 2.5 at scale 1: output x samples x - 2; x = 0, 1 fall
  // outside (0), x = 2 samples 0 (pixel 0 alone), x = 3 samples 1 (pixels
  // 0 and 1 halved).
  ExpectValues(Resize(Row(), 1, 4, {1, 1}, {0, 2.5f}, "triangle", true), {0, 0, 10, 15});
}

TEST(ScaleAndTranslateTest, EveryKernelMatchesTensorFlow) {
  // TensorFlow 2.21's outputs for the row above: 4 -> 2 with antialias, and
  // 4 -> 7 (scale 1.75, antialias irrelevant when upsampling).
  struct Case {
    const char* kernel;
    std::vector<float> down, up;
  };
  const Case cases[] = {
      {"box", {15, 60}, {10, 10, 20, 30, 40, 80, 80}},
      {"keyscubic", {15.578512191772461f, 57.06611633300781f},
       {9.2067289352417f, 12.256918907165527f, 18.932924270629883f, 28.125f, 42.425025939941406f, 68.68148803710938f,
        83.17308044433594f}},
      {"lanczos1", {16.3157901763916f, 57.894737243652344f},
       {10, 12.358491897583008f, 19.94117546081543f, 30, 40.23529052734375f, 70.56605529785156f, 79.99999237060547f}},
      {"lanczos3", {14.018555641174316f, 57.828346252441406f},
       {9.541010856628418f, 11.911153793334961f, 19.085750579833984f, 25.714282989501953f, 43.21385955810547f,
        69.64579010009766f, 83.89936828613281f}},
      {"LANCZOS5", {13.276582717895508f, 58.19859313964844f},
       {8.142264366149902f, 13.948182106018066f, 19.586101531982422f, 23.846641540527344f, 43.25647735595703f,
        68.5169448852539f, 84.98848724365234f}},
      {"gaussian", {20.142621994018555f, 52.88383102416992f},
       {10.543132781982422f, 13.609073638916016f, 20.18185806274414f, 30, 44.03314971923828f, 65.563720703125f,
        77.82747650146484f}},
      {"mitchellcubic", {17.714975357055664f, 54.951690673828125f},
       {9.783310890197754f, 12.87985610961914f, 19.49483871459961f, 28.958337783813477f, 43.45550537109375f,
        67.04206848144531f, 80.86676025390625f}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kernel);
    ExpectValues(Resize(Row(), 1, 2, {1, 0.5f}, {0, 0}, c.kernel, true), c.down);
    ExpectValues(Resize(Row(), 1, 7, {1, 1.75f}, {0, 0}, c.kernel, false), c.up);
  }
}

TEST(ScaleAndTranslateTest, BatchesChannelsAndIntegerInput) {
  // uint8 [2, 5, 6, 2] image of (i mod 7), lanczos3, both dimensions scaled
  // and shifted; the first 12 outputs as TensorFlow 2.21 computes them.
  Tensor img(DType::kUInt8, Shape({2, 5, 6, 2}));
  for (int64_t i = 0; i < img.NumElements(); ++i) img.data<uint8_t>()[i] = static_cast<uint8_t>(i % 7);
  auto out = Resize(img, 3, 4, {0.6f, 0.7f}, {0.1f, -0.2f}, "lanczos3", true);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->shape(), Shape({2, 3, 4, 2}));
  EXPECT_EQ(out->dtype(), DType::kFloat);
  const float want[] = {1.261968731880188f, 2.342336893081665f,  3.2328572273254395f, 3.646411418914795f,
                        4.783778667449951f, 1.512704849243164f,  1.9203815460205078f, 2.4670610427856445f,
                        3.3791983127593994f, 4.627365589141846f, 1.4690827131271362f, 2.650277614593506f};
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(out->data<float>()[i], want[i]) << i;
}

TEST(ScaleAndTranslateTest, ConstantImageStaysConstant) {
  // Weights are normalised to sum 1 wherever a sample lands in the image.
  Tensor img(DType::kFloat, Shape({1, 3, 5, 1}));
  for (int64_t i = 0; i < img.NumElements(); ++i) img.data<float>()[i] = 7;
  for (const char* k : {"lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic", "mitchellcubic"}) {
    for (bool antialias : {true, false}) {
      auto out = Resize(img, 7, 2, {7.0f / 3, 0.4f}, {0, 0}, k, antialias);
      ASSERT_TRUE(out.ok()) << k << ": " << out.status().ToString();
      for (int64_t i = 0; i < out->NumElements(); ++i) EXPECT_NEAR(out->data<float>()[i], 7.0f, 1e-5) << k << " " << i;
    }
  }
}

TEST(ScaleAndTranslateTest, BadArgumentsAreErrors) {
  auto kernel = Resize(Row(), 1, 2, {1, 0.5f}, {0, 0}, "cubic", true);
  TFHOST_ASSERT_ERROR(kernel, StatusCode::kInvalidArgument, "ScaleAndTranslate");
  EXPECT_NE(kernel.status().message().find("kernel_type"), std::string::npos);
  auto scale = Resize(Row(), 1, 2, {1, 0}, {0, 0}, "box", true);
  TFHOST_ASSERT_ERROR(scale, StatusCode::kInvalidArgument, "scale must be greater than zero, got [1.000000, 0.000000]");
  TFHOST_EXPECT_ERROR(Resize(Row(), 0, 2, {1, 1}, {0, 0}, "box", true), StatusCode::kInvalidArgument,
                      "size must be positive, got [0, 2]");
  TFHOST_EXPECT_ERROR(Resize(Tensor(DType::kFloat, Shape({1, 4, 1})), 1, 2, {1, 1}, {0, 0}, "box", true), StatusCode::kInvalidArgument,
                      "images must be 4-D [batch, height, width, channels], got shape [1,4,1]");
  TFHOST_EXPECT_ERROR(Resize(Tensor(DType::kFloat, Shape({1, 0, 4, 1})), 1, 2, {1, 1}, {0, 0}, "box", true), StatusCode::kInvalidArgument,
                      "images must have positive height and width, got shape [1,0,4,1]");
  TFHOST_EXPECT_ERROR(Resize(Tensor(DType::kFloat, Shape({1, 1, 4, 0})), 1, 2, {1, 1}, {0, 0}, "box", true), StatusCode::kInvalidArgument,
                      "images must have at least one channel, got shape [1,1,4,0]");
  auto pair = Resize(Row(), 1, 2, {1, 1, 1}, {0, 0}, "box", true);
  TFHOST_ASSERT_ERROR(pair, StatusCode::kInvalidArgument,
                      "scale must be a vector of 2 values [rows, columns], got shape [3]");
  TFHOST_EXPECT_ERROR(Resize(Row(), 1, 2, {1, 1}, {0}, "box", true), StatusCode::kInvalidArgument,
                      "translation must be a vector of 2 values [rows, columns], got shape [1]");
  // An empty batch is fine.
  auto empty = Resize(Tensor(DType::kFloat, Shape({0, 2, 2, 1})), 3, 3, {1.5f, 1.5f}, {0, 0}, "box", true);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->shape(), Shape({0, 3, 3, 1}));
}

TEST(ScaleAndTranslateTest, ShapeFunctionTakesSizeFromAConst) {
  Tensor size = Tensor::FromVector<int32_t>({9, 11});
  auto shapes = testing::InferShape("ScaleAndTranslate",
                                    {ir::PartialShape::Known({-1, 4, 5, 3}), ir::PartialShape::Known({2}),
                                     ir::PartialShape::Known({2}), ir::PartialShape::Known({2})},
                                    {nullptr, &size, nullptr, nullptr}, 1);
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].ToString(), "[?,9,11,3]");
}

}  // namespace
}  // namespace tfhost::ops
