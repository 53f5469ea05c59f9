#include "loaders/savedmodel/demo_models.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "loaders/model_loader.h"
#include "tensorflow/core/example/example.pb.h"
#include "base/test_status.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;

class DemoModelsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("demo_models_test_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    auto written = WriteDemoModels(dir_->string());
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    ASSERT_EQ(written->size(), 3u);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::unique_ptr<runtime::Model> Load(const std::string& name) {
    // The TF Serving base path (DIR/<name>), so version discovery is covered too.
    auto model = LoadModel((*dir_ / name).string());
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    return model.ok() ? std::move(*model) : nullptr;
  }
  static std::vector<float> Variable(const std::string& model, const std::string& name) {
    auto spec = BuildDemoModel(model);
    const Tensor& t = spec->variables.at(name);
    return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
  }
  static inline fs::path* dir_ = nullptr;
};

std::vector<double> Softmax(std::vector<double> v) {
  double m = v[0];
  for (double x : v) m = std::max(m, x);
  double sum = 0;
  for (double& x : v) sum += (x = std::exp(x - m));
  for (double& x : v) x /= sum;
  return v;
}

TEST_F(DemoModelsTest, WritesVersionOneOfEveryModel) {
  for (const auto& name : DemoModelNames()) {
    EXPECT_TRUE(fs::is_regular_file(*dir_ / name / "1" / "saved_model.pb")) << name;
    EXPECT_TRUE(fs::is_regular_file(*dir_ / name / "1" / "variables" / "variables.index")) << name;
  }
  TFHOST_EXPECT_ERROR(BuildDemoModel("resnet"), StatusCode::kNotFound,
                      "no demo model 'resnet'; available: half_plus_two, mlp, cnn");
}

TEST_F(DemoModelsTest, HalfPlusTwoPredictsHalfXPlusTwo) {
  auto model = Load("half_plus_two");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->info().variable_count, 2);
  EXPECT_EQ(model->signatures().size(), 3u);
  auto out = model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2, 5}, Shape({3, 1}))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(out->at("y"), Tensor::FromVector<float>({2.5f, 3.0f, 4.5f}, Shape({3, 1}))))
      << out->at("y").DebugString();
}

TEST_F(DemoModelsTest, HalfPlusTwoRegressesAndClassifiesTfExamples) {
  auto model = Load("half_plus_two");
  ASSERT_NE(model, nullptr);
  Tensor examples(DType::kString, Shape({2}));
  for (int i = 0; i < 2; ++i) {
    tensorflow::Example ex;
    (*ex.mutable_features()->mutable_feature())["x"].mutable_float_list()->add_value(i == 0 ? 2.0f : 80.0f);
    ASSERT_TRUE(ex.SerializeToString(&examples.strings()[i]));
  }
  auto reg = model->RunSignature("regress_x_to_y", {{"inputs", examples}});
  ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  EXPECT_TRUE(TensorsEqual(reg->at("outputs"), Tensor::FromVector<float>({3.0f, 42.0f}, Shape({2, 1}))))
      << reg->at("outputs").DebugString();
  auto cls = model->RunSignature("classify_x_to_y", {{"inputs", examples}});
  ASSERT_TRUE(cls.ok()) << cls.status().ToString();
  EXPECT_TRUE(TensorsEqual(cls->at("scores"), Tensor::FromVector<float>({3.0f, 42.0f}, Shape({2, 1}))));
}

TEST_F(DemoModelsTest, MlpMatchesAHandComputedForwardPass) {
  auto model = Load("mlp");
  ASSERT_NE(model, nullptr);
  std::vector<float> x = {0.1f, -0.2f, 0.3f, 0.9f, 1.0f, 0.0f, -1.0f, 0.5f};
  auto out = model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>(x, Shape({2, 4}))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& probs = out->at("probabilities");
  ASSERT_EQ(probs.shape(), Shape({2, 3}));
  auto w1 = Variable("mlp", "dense/kernel"), b1 = Variable("mlp", "dense/bias");
  auto w2 = Variable("mlp", "dense_1/kernel"), b2 = Variable("mlp", "dense_1/bias");
  for (int r = 0; r < 2; ++r) {
    std::vector<double> h(8), logits(3);
    for (int j = 0; j < 8; ++j) {
      double s = b1[j];
      for (int i = 0; i < 4; ++i) s += x[r * 4 + i] * w1[i * 8 + j];
      h[j] = std::max(0.0, s);
    }
    for (int k = 0; k < 3; ++k) {
      double s = b2[k];
      for (int j = 0; j < 8; ++j) s += h[j] * w2[j * 3 + k];
      logits[k] = s;
    }
    auto expected = Softmax(logits);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(probs.data<float>()[r * 3 + k], expected[k], 1e-6) << r << "," << k;
  }
}

TEST_F(DemoModelsTest, CnnMatchesAHandComputedForwardPass) {
  auto model = Load("cnn");
  ASSERT_NE(model, nullptr);
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>((i * 7) % 11) / 10.0f - 0.3f;
  auto out = model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>(x, Shape({1, 8, 8, 1}))}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& probs = out->at("probabilities");
  ASSERT_EQ(probs.shape(), Shape({1, 3}));
  auto k = Variable("cnn", "conv2d/kernel"), bias = Variable("cnn", "conv2d/bias");
  auto w = Variable("cnn", "dense/kernel");
  // Conv 3x3 SAME (zero padding 1 on each side), HWIO kernel, + bias, ReLU.
  double conv[8][8][4];
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      for (int c = 0; c < 4; ++c) {
        double s = bias[c];
        for (int di = 0; di < 3; ++di) {
          for (int dj = 0; dj < 3; ++dj) {
            int yi = i + di - 1, xj = j + dj - 1;
            if (yi < 0 || yi >= 8 || xj < 0 || xj >= 8) continue;
            s += x[yi * 8 + xj] * k[(di * 3 + dj) * 4 + c];
          }
        }
        conv[i][j][c] = std::max(0.0, s);
      }
    }
  }
  // MaxPool 2x2 stride 2, flattened in NHWC order, times the [64,3] kernel.
  std::vector<double> logits(3, 0.0);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int c = 0; c < 4; ++c) {
        double m = std::max({conv[2 * i][2 * j][c], conv[2 * i][2 * j + 1][c], conv[2 * i + 1][2 * j][c],
                             conv[2 * i + 1][2 * j + 1][c]});
        int flat = (i * 4 + j) * 4 + c;
        for (int o = 0; o < 3; ++o) logits[o] += m * w[flat * 3 + o];
      }
    }
  }
  auto expected = Softmax(logits);
  for (int o = 0; o < 3; ++o) EXPECT_NEAR(probs.data<float>()[o], expected[o], 1e-5) << o;
}

TEST_F(DemoModelsTest, WeightsAreFixedFromRunToRun) {
  auto a = BuildDemoModel("mlp");
  auto b = BuildDemoModel("mlp");
  ASSERT_TRUE(a.ok() && b.ok());
  for (const auto& [name, value] : a->variables) EXPECT_TRUE(TensorsEqual(value, b->variables.at(name))) << name;
  // The formula, spelled out: 0.8 * sin(0.7 * i + 0.1) for dense/kernel.
  EXPECT_FLOAT_EQ(a->variables.at("dense/kernel").data<float>()[5], static_cast<float>(0.8 * std::sin(3.5 + 0.1)));
}

}  // namespace
}  // namespace tfhost::loaders
