// LayerNormalization as the ONNX loader maps it, on values computed here in
// double from ONNX's definition: over the last dim, over several dims (x
// viewed as rows of their product), with Scale and B broadcast to the
// normalized shape, without B; and the forms it refuses, named.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/test_status.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

std::vector<float> Values(int64_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>((i * 13) % 17 - 8);
  return v;
}

// ONNX's LayerNormalization of x (rows of `cols` values) with scale and bias
// given per normalized value (already broadcast), in double.
std::vector<double> Expected(const std::vector<float>& x, int64_t cols, const std::vector<float>& scale,
                             const std::vector<float>& bias, double epsilon) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += x[r * cols + j];
    mean /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) var += (x[r * cols + j] - mean) * (x[r * cols + j] - mean);
    var /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) {
      y[r * cols + j] = (x[r * cols + j] - mean) / std::sqrt(var + epsilon) * scale[j] + bias[j];
    }
  }
  return y;
}

void ExpectNear(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got.data<float>()[i], want[i], 2e-5 * std::max(1.0, std::fabs(want[i]))) << "at " << i;
  }
}

void SetFloat(::onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

TEST(OnnxLayerNormTest, OverTheLastDimMatchesTheDefinition) {
  const std::vector<float> x = Values(2 * 3 * 8, 0.5f, 3.0f), scale = Values(8, 0.25f, 1.0f), bias = Values(8, 0.1f, 0);
  ::onnx::NodeProto n = Node("LayerNormalization", {"x", "scale", "bias"}, {"y"});
  SetFloat(&n, "epsilon", 1e-3f);
  auto y = RunNode(n, {{"x", Tensor::FromVector(x, Shape({2, 3, 8}))},
                       {"scale", Tensor::FromVector(scale)},
                       {"bias", Tensor::FromVector(bias)}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({2, 3, 8}));
  ExpectNear(*y, Expected(x, 8, scale, bias, 1e-3));
}

TEST(OnnxLayerNormTest, OverSeveralDimsNormalizesTheirProductWithoutBias) {
  const std::vector<float> x = Values(2 * 3 * 4, 1.5f, -2.0f), scale = Values(3 * 4, 0.5f, 1.0f);
  ::onnx::NodeProto n = Node("LayerNormalization", {"x", "scale"}, {"y"});
  SetInt(&n, "axis", 1);
  auto y = RunNode(n, {{"x", Tensor::FromVector(x, Shape({2, 3, 4}))},
                       {"scale", Tensor::FromVector(scale, Shape({3, 4}))}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({2, 3, 4}));
  ExpectNear(*y, Expected(x, 12, scale, std::vector<float>(12, 0.0f), 1e-5));
}

TEST(OnnxLayerNormTest, ScaleAndBiasBroadcastToTheNormalizedShape) {
  const std::vector<float> x = Values(2 * 3 * 4, 0.75f, 1.0f), scale = Values(4, 0.5f, 2.0f), bias = {0.5f};
  ::onnx::NodeProto n = Node("LayerNormalization", {"x", "scale", "bias"}, {"y"});
  SetInt(&n, "axis", -2);
  auto y = RunNode(n, {{"x", Tensor::FromVector(x, Shape({2, 3, 4}))},
                       {"scale", Tensor::FromVector(scale)},
                       {"bias", Tensor::FromVector(bias, Shape({1, 1}))}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  std::vector<float> scale12, bias12(12, 0.5f);
  for (int r = 0; r < 3; ++r) scale12.insert(scale12.end(), scale.begin(), scale.end());
  ExpectNear(*y, Expected(x, 12, scale12, bias12, 1e-5));
}

TEST(OnnxLayerNormTest, TheTrainingOutputsAndOtherStashTypesAreRefusedNamingTheNode) {
  const std::vector<Feed> feeds = {{"x", Tensor::FromVector(Values(8, 1, 0), Shape({2, 4}))},
                                   {"scale", Tensor::FromVector(Values(4, 1, 1))}};
  ::onnx::NodeProto with_mean = Node("LayerNormalization", {"x", "scale"}, {"y", "mean"}, "ln");
  TFHOST_EXPECT_ERROR(RunNode(with_mean, feeds).status(), StatusCode::kUnimplemented,
                      "('ln', op LayerNormalization, opset 17): the Mean and InvStdDev outputs (training's)");
  ::onnx::NodeProto stash = Node("LayerNormalization", {"x", "scale"}, {"y"}, "ln");
  SetInt(&stash, "stash_type", 0);
  TFHOST_EXPECT_ERROR(RunNode(stash, feeds).status(), StatusCode::kUnimplemented,
                      "stash_type 0 (1, float32 statistics, is supported)");
}

}  // namespace
}  // namespace tfhost::loaders
