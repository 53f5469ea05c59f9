// Graph passes on real models: every fixture SavedModel (TF Serving's test
// models) and TF.js graph model loads with and without the graph passes
// (LoadOptions::optimize_graph), the optimised graph has no more nodes, and
// every signature gives the same outputs on the same deterministic inputs
// (or fails in both). Unknown dims take 1 (batch) or 32, so models with
// coupled shapes may fail both ways; at least some runs must succeed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "base/test_fixtures.h"
#include "loaders/model_loader.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> FixtureModels() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const char* sub : {"models/tfjs", "models/tfserving"}) {
    for (const auto& entry : fs::directory_iterator(testing::FixturePath(sub), ec)) {
      if (entry.is_directory()) paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

StatusOr<Tensor> MakeInput(const runtime::TensorSpec& spec, std::mt19937* rng) {
  std::vector<int64_t> dims;
  if (spec.shape.unknown_rank) return InvalidArgument("unknown rank");
  for (int i = 0; i < spec.shape.rank(); ++i) {
    int64_t d = spec.shape.dim(i);
    dims.push_back(d >= 0 ? d : (i == 0 ? 1 : 32));
  }
  Tensor t(spec.dtype, Shape(dims));
  std::uniform_real_distribution<float> u(0.1f, 1.0f);
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    switch (spec.dtype) {
      case DType::kFloat: t.data<float>()[k] = u(*rng); break;
      case DType::kInt32: t.data<int32_t>()[k] = static_cast<int32_t>((*rng)() % 4); break;
      case DType::kInt64: t.data<int64_t>()[k] = static_cast<int64_t>((*rng)() % 4); break;
      case DType::kBool: t.data<bool>()[k] = ((*rng)() & 1) != 0; break;
      default: return InvalidArgument("unsupported input dtype");
    }
  }
  return t;
}

double MaxRelError(const Tensor& a, const Tensor& b) {
  auto va = a.ToDoubleVector(), vb = b.ToDoubleVector();
  double worst = 0;
  for (size_t i = 0; i < va.size() && i < vb.size(); ++i) {
    if (std::isnan(va[i]) && std::isnan(vb[i])) continue;
    worst = std::max(worst, std::abs(va[i] - vb[i]) / std::max(1.0, std::abs(va[i])));
  }
  return worst;
}

TEST(PassesEquivalenceTest, EveryFixtureModelGivesTheSameOutputsWithAndWithoutPasses) {
  TFHOST_REQUIRE_FIXTURE(testing::FixturePath("models"));
  int compared = 0;
  for (const std::string& path : FixtureModels()) {
    SCOPED_TRACE(path);
    loaders::LoadOptions plain_options;
    plain_options.optimize_graph = false;
    auto plain = loaders::LoadModel(path, plain_options);
    auto optimized = loaders::LoadModel(path);
    EXPECT_EQ(plain.ok(), optimized.ok()) << (plain.ok() ? optimized.status() : plain.status()).ToString();
    if (!plain.ok() || !optimized.ok()) continue;
    const int before = (*plain)->session().graph().num_nodes();
    const int after = (*optimized)->session().graph().num_nodes();
    EXPECT_LE(after, before);
    std::printf("%s: %d -> %d nodes\n", fs::path(path).filename().c_str(), before, after);
    for (const auto& [name, sig] : (*plain)->signatures()) {
      std::mt19937 rng(7);
      std::map<std::string, Tensor> inputs;
      bool usable = true;
      for (const auto& spec : sig.inputs) {
        auto t = MakeInput(spec, &rng);
        if (!t.ok()) usable = false;
        if (t.ok()) inputs[spec.key] = *t;
      }
      if (!usable) continue;
      auto a = (*plain)->RunSignature(name, inputs);
      auto b = (*optimized)->RunSignature(name, inputs);
      EXPECT_EQ(a.ok(), b.ok()) << name << ": " << (a.ok() ? b.status() : a.status()).ToString();
      if (!a.ok() || !b.ok()) continue;
      ASSERT_EQ(a->size(), b->size());
      for (const auto& [key, ta] : *a) {
        const Tensor& tb = b->at(key);
        EXPECT_EQ(ta.shape().dims(), tb.shape().dims()) << name << "/" << key;
        if (ta.dtype() == DType::kString || ta.dtype() != tb.dtype()) continue;
        EXPECT_LE(MaxRelError(ta, tb), 1e-5) << name << "/" << key;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0) << "no fixture signature could be run";
}

}  // namespace
}  // namespace tfhost
