// Fast kernels on real models: nsfw_mobilenet_v2 and blazeface (TF.js
// fixtures) loaded with KernelChoice::kFast and kReference give the same
// outputs within 1e-4 of each output's largest magnitude (the tolerance the
// TF.js reference test allows tfhost against TensorFlow.js itself), and the
// fast session really runs its convolutions on fast kernels: oneDNN's, and
// tfhost's own SIMD ones where they are faster (1x1 and 3x3 depthwise).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/test_fixtures.h"
#include "loaders/model_loader.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first frame's inputs of the fixture's reference.json, by signature key.
std::map<std::string, Tensor> ReferenceInputs(const fs::path& dir, const runtime::Signature& sig) {
  rapidjson::Document ref;
  ref.Parse(ReadFile(dir / "reference" / "reference.json").c_str());
  std::map<std::string, Tensor> inputs;
  if (ref.HasParseError()) {
    ADD_FAILURE() << "reference.json does not parse";
    return inputs;
  }
  for (const auto& in : ref["frames"][0]["inputs"].GetArray()) {
    const std::string tensor = in["graphTensor"].GetString();
    std::vector<int64_t> dims;
    for (const auto& d : in["shape"].GetArray()) dims.push_back(d.GetInt64());
    Tensor t(DType::kFloat, Shape(dims));
    const std::string bytes = ReadFile(dir / "reference" / in["file"].GetString());
    EXPECT_EQ(bytes.size(), t.ByteSize()) << tensor;
    std::memcpy(t.raw_data(), bytes.data(), std::min(bytes.size(), t.ByteSize()));
    for (const auto& spec : sig.inputs) {
      if (spec.tensor_name == tensor) inputs[spec.key] = t;
    }
  }
  return inputs;
}

std::unique_ptr<runtime::Model> Load(const fs::path& dir, backends::KernelChoice kernels, int threads) {
  loaders::LoadOptions options;
  options.session.kernels = kernels;
  options.session.intra_op_threads = threads;
  auto model = loaders::LoadModel(dir.string(), options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(*model) : nullptr;
}

// Node count per backend ("" = reference), the ops oneDNN runs and the
// convolutions left to the reference kernels.
std::map<std::string, int> BackendCounts(runtime::Model& model, std::set<std::string>* onednn_ops,
                                         int* reference_convolutions = nullptr) {
  std::map<std::string, int> counts;
  const runtime::GraphRunner& runner = model.session().runner();
  for (int i = 0; i < static_cast<int>(runner.graph().nodes().size()); ++i) {
    const std::string& op = runner.graph().nodes()[i].op;
    ++counts[runner.KernelBackend(i)];
    if (runner.KernelBackend(i) == "onednn") onednn_ops->insert(op);
    if (reference_convolutions != nullptr && runner.KernelBackend(i).empty() && op.find("Conv") != std::string::npos) {
      ++*reference_convolutions;
    }
  }
  return counts;
}

class FastKernelsModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FastKernelsModelTest, FastAndReferenceKernelsAgreeAndConvolutionsRunOnFastKernels) {
#if !TFHOST_WITH_ONEDNN
  GTEST_SKIP() << "built without the onednn backend (TFHOST_BACKEND_ONEDNN=OFF): the convolutions it checks run there";
#endif
  const fs::path dir = fs::path(testing::FixturePath("models/tfjs")) / GetParam();
  TFHOST_REQUIRE_FIXTURE((dir / "reference" / "reference.json").string());
  auto reference = Load(dir, backends::KernelChoice::kReference, 1);
  ASSERT_NE(reference, nullptr);
  const runtime::Signature& sig = reference->signatures().at("serving_default");
  const std::map<std::string, Tensor> inputs = ReferenceInputs(dir, sig);
  ASSERT_EQ(inputs.size(), sig.inputs.size());
  auto want = reference->RunSignature("serving_default", inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  std::set<std::string> reference_onednn_ops;
  int all_reference_convolutions = 0;
  EXPECT_EQ(BackendCounts(*reference, &reference_onednn_ops, &all_reference_convolutions).count("onednn"), 0u);
  EXPECT_GT(all_reference_convolutions, 10);

  // Single-threaded (the bench setting) and on a 2-worker intra-op pool.
  for (int threads : {1, 2}) {
    SCOPED_TRACE("intra_op_threads " + std::to_string(threads));
    auto fast = Load(dir, backends::KernelChoice::kFast, threads);
    ASSERT_NE(fast, nullptr);
    std::set<std::string> onednn_ops;
    int reference_convolutions = 0;
    const auto counts = BackendCounts(*fast, &onednn_ops, &reference_convolutions);
    ASSERT_TRUE(counts.count("onednn")) << "no node runs on oneDNN";
    // Every convolution runs on a fast kernel: oneDNN's or, on AVX-512 CPUs,
    // the SIMD ones (which hand the shapes they do not take to oneDNN's).
    EXPECT_EQ(reference_convolutions, 0);
    // Twice: the second run uses the cached primitives and reordered weights.
    for (int run = 0; run < 2; ++run) {
      auto got = fast->RunSignature("serving_default", inputs);
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
        }
        EXPECT_LE(max_diff, 1e-4 * max_ref) << GetParam() << " output " << key << " run " << run
                                            << ": max |fast - reference| " << max_diff << ", max |reference| "
                                            << max_ref;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FastKernelsModelTest, ::testing::Values("nsfw_mobilenet_v2", "blazeface"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tfhost
