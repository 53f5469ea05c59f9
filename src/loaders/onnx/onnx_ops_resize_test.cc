// Resize in the forms TensorFlow's image ops compute, on values worked out
// by hand from the ONNX coordinate transformations.
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

void SetString(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

// x [1, 1, 2, 2] -> Resize(x, "", scales or "", sizes or "") -> y.
StatusOr<Tensor> Resize(std::vector<float> x, const std::string& mode, const std::string& coords,
                        const std::string& nearest_mode, std::vector<float> scales, std::vector<int64_t> sizes) {
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  *g->add_input() = TensorInfo("x", ::onnx::TensorProto::FLOAT, {1, 1, 2, 2});
  ::onnx::ValueInfoProto y;
  y.set_name("y");
  y.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  *g->add_output() = y;
  ::onnx::NodeProto n = Node("Resize", {"x", "", scales.empty() ? "" : "scales", sizes.empty() ? "" : "sizes"}, {"y"});
  SetString(&n, "mode", mode);
  SetString(&n, "coordinate_transformation_mode", coords);
  if (!nearest_mode.empty()) SetString(&n, "nearest_mode", nearest_mode);
  *g->add_node() = n;
  if (!scales.empty()) *g->add_initializer() = FloatTensor("scales", {4}, scales);
  if (!sizes.empty()) *g->add_initializer() = Int64Tensor("sizes", sizes);
  tfhost::testing::TempDir dir("onnx_resize");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadOnnxModel(path, LoadOptions()));
  TFHOST_ASSIGN_OR_RETURN(auto out, model->RunSignature("serving_default",
                                                        {{"x", Tensor::FromVector<float>(x, {1, 1, 2, 2})}}));
  return out.at("y");
}

TEST(OnnxResizeTest, NearestAsymmetricFloorRepeatsEachPixel) {
  auto y = Resize({1, 2, 3, 4}, "nearest", "asymmetric", "floor", {1, 1, 2, 2}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({1, 1, 4, 4}));
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

// align_corners: the corners stay, the middle is their mean.
TEST(OnnxResizeTest, LinearAlignCornersKeepsTheCornersAndInterpolatesBetween) {
  auto y = Resize({0, 2, 4, 6}, "linear", "align_corners", "", {}, {1, 1, 3, 3});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
}

// half_pixel, 2 -> 4: output 0 maps to -0.25 (clamped to the first pixel),
// 1 to 0.25, 2 to 0.75, 3 to 1.25 (the last).
TEST(OnnxResizeTest, LinearHalfPixelInterpolatesAtPixelCenters) {
  auto y = Resize({0, 4, 0, 4}, "linear", "half_pixel", "", {1, 1, 1, 2}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{0, 1, 3, 4, 0, 1, 3, 4}));
}

// tf_crop_and_resize, nearest: the source column of output i is
// start * (L - 1) + i * (end - start) * (L - 1) / (R - 1); here L = 4,
// R = 3, so the whole row puts output 1 on column 1.5, which
// round_prefer_floor takes from column 1 and round_prefer_ceil from 2.
StatusOr<Tensor> NearestCrop(const std::string& nearest_mode, std::vector<float> roi, float extrapolation) {
  ::onnx::NodeProto n = Node("Resize", {"x", "roi", "", "sizes"}, {"y"});
  SetString(&n, "mode", "nearest");
  SetString(&n, "coordinate_transformation_mode", "tf_crop_and_resize");
  SetString(&n, "nearest_mode", nearest_mode);
  auto* e = n.add_attribute();
  e->set_name("extrapolation_value");
  e->set_type(::onnx::AttributeProto::FLOAT);
  e->set_f(extrapolation);
  return RunNode(n, {{"x", Tensor::FromVector<float>({10, 20, 30, 40}, Shape({1, 1, 1, 4}))},
                     {"roi", Tensor::FromVector<float>(roi, Shape({8}))},
                     {"sizes", Tensor::FromVector<int64_t>({1, 1, 1, 3}, Shape({4}))}});
}

TEST(OnnxResizeTest, NearestCropRoundsHalvesAsItsNearestModeSays) {
  const std::vector<float> whole = {0, 0, 0, 0, 1, 1, 1, 1};
  auto floor = NearestCrop("round_prefer_floor", whole, 0);
  ASSERT_TRUE(floor.ok()) << floor.status().ToString();
  EXPECT_EQ(floor->shape(), Shape({1, 1, 1, 3}));
  EXPECT_EQ(floor->ToDoubleVector(), (std::vector<double>{10, 20, 40}));
  auto ceil = NearestCrop("round_prefer_ceil", whole, 0);
  ASSERT_TRUE(ceil.ok()) << ceil.status().ToString();
  EXPECT_EQ(ceil->ToDoubleVector(), (std::vector<double>{10, 30, 40}));
}

TEST(OnnxResizeTest, NearestCropOutsideTheImageTakesTheExtrapolationValue) {
  // Columns -1.5, 0.75 and 3: the first lies outside [0, 3].
  auto y = NearestCrop("round_prefer_floor", {0, 0, 0, -0.5f, 1, 1, 1, 1}, 7);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{7, 20, 40}));
}

TEST(OnnxResizeTest, ModesTensorFlowLacksAreRefusedByName) {
  TFHOST_EXPECT_ERROR(Resize({1, 2, 3, 4}, "cubic", "half_pixel", "", {1, 1, 2, 2}, {}).status(),
                      StatusCode::kUnimplemented, "op Resize, opset 17): mode 'cubic' (linear and nearest are)");
  TFHOST_EXPECT_ERROR(Resize({1, 2, 3, 4}, "nearest", "half_pixel", "round_prefer_floor", {1, 1, 2, 2}, {}).status(),
                      StatusCode::kUnimplemented,
                      "coordinate_transformation_mode 'half_pixel' and nearest_mode 'round_prefer_floor'");
}

}  // namespace
}  // namespace tfhost::loaders
