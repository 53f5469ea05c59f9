// --precision bf16 on a real model: nsfw_mobilenet_v2 (TF.js fixture) loaded
// with LoadOptions::precision "bf16" gives the float32 outputs within 2e-2 of
// each output's largest magnitude, its convolutions carry the bf16 mark, and
// on a CPU with native bf16 the outputs really differ from float32 (the bf16
// kernels ran). An unknown precision fails the load.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "base/test_fixtures.h"
#include "loaders/model_loader.h"
#include "base/test_status.h"

namespace tfhost {
namespace {

std::string ModelDir() { return testing::FixturePath("models/tfjs/nsfw_mobilenet_v2"); }

std::unique_ptr<runtime::Model> Load(const std::string& precision) {
  loaders::LoadOptions options;
  options.precision = precision;
  options.session.intra_op_threads = 1;
  auto model = loaders::LoadModel(ModelDir(), options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(*model) : nullptr;
}

// Seeded inputs in [0, 1) shaped from the signature (batch 2 for -1 dims).
std::map<std::string, Tensor> Inputs(const runtime::Signature& sig) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  std::map<std::string, Tensor> inputs;
  for (const auto& in : sig.inputs) {
    std::vector<int64_t> dims;
    for (int64_t d : in.shape.dims) dims.push_back(d < 0 ? 2 : d);
    Tensor t(DType::kFloat, Shape(dims));
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
    inputs[in.key] = t;
  }
  return inputs;
}

TEST(Bf16PrecisionModelTest, NsfwMobileNetV2Bf16OutputsMatchFp32WithinTwoPercent) {
  TFHOST_REQUIRE_FIXTURE(ModelDir() + "/model.json");
  auto fp32 = Load("fp32");
  auto bf16 = Load("bf16");
  ASSERT_NE(fp32, nullptr);
  ASSERT_NE(bf16, nullptr);

  // The convolutions of the bf16 session carry the mark; none of fp32's do.
  int marked = 0, marked_fp32 = 0;
  for (const auto& n : bf16->session().runner().graph().nodes()) marked += n.FindAttr("_tfhost_precision") != nullptr;
  for (const auto& n : fp32->session().runner().graph().nodes()) marked_fp32 += n.FindAttr("_tfhost_precision") != nullptr;
  EXPECT_GE(marked, 10);
  EXPECT_EQ(marked_fp32, 0);

  const runtime::Signature& sig = fp32->signatures().at("serving_default");
  const auto inputs = Inputs(sig);
  auto want = fp32->RunSignature("serving_default", inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  double worst = 0;
  bool any_difference = false;
  // Twice: the second run uses the cached primitives and bf16 weights.
  for (int run = 0; run < 2; ++run) {
    auto got = bf16->RunSignature("serving_default", inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (const auto& [key, w] : *want) {
      const Tensor& g = got->at(key);
      ASSERT_EQ(g.shape(), w.shape()) << key;
      ASSERT_EQ(g.dtype(), DType::kFloat) << key;
      double max_ref = 0, max_diff = 0;
      for (int64_t i = 0; i < w.NumElements(); ++i) {
        max_ref = std::max(max_ref, std::fabs(double(w.data<float>()[i])));
        const double diff = std::fabs(double(g.data<float>()[i]) - double(w.data<float>()[i]));
        max_diff = std::isnan(diff) ? INFINITY : std::max(max_diff, diff);
        any_difference = any_difference || diff != 0;
      }
      const double rel = max_ref > 0 ? max_diff / max_ref : max_diff;
      worst = std::max(worst, rel);
      EXPECT_LE(rel, 2e-2) << "output " << key << " run " << run << ": max |bf16 - fp32| " << max_diff
                           << ", max |fp32| " << max_ref;
    }
  }
  std::cout << "nsfw_mobilenet_v2 max relative error bf16 vs fp32: " << worst << "\n";
  if (__builtin_cpu_supports("avx512bf16")) {
    EXPECT_TRUE(any_difference) << "bf16 outputs are bit-identical to fp32: the bf16 kernels did not run";
  } else {
    std::cout << "CPU has no avx512_bf16: the bf16 session ran float32 kernels\n";
  }
}

TEST(Bf16PrecisionModelTest, UnknownPrecisionFailsTheLoadNamingTheAcceptedValues) {
  TFHOST_REQUIRE_FIXTURE(ModelDir() + "/model.json");
  loaders::LoadOptions options;
  options.precision = "fp16";
  auto model = loaders::LoadModel(ModelDir(), options);
  TFHOST_ASSERT_ERROR(model, StatusCode::kInvalidArgument, "LoadOptions::precision is 'fp16'; expected fp32, fp32-strict or bf16");
}

}  // namespace
}  // namespace tfhost
