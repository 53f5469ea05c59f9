// The TFLite test models (tests/tflite/generate.py: Keras and tf.function
// models, and the zoo's models, converted by TensorFlow's TFLiteConverter)
// through loaders::LoadModel, each signature's outputs against LiteRT's for
// the same inputs, within 1e-5 x max|reference|. One gtest case per model
// and signature, "Tflite.<model>/<signature>"; the folder comes from
// $TFHOST_TFLITE_DIR (tests/tflite/with_tflite.sh sets it). Cases listed in
// known_failures.txt must fail, with the error their line quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "loaders/model_loader.h"
#include "zoo_cases.h"
#include "zoo_manifest.h"

namespace tfhost::zoo {
namespace {

std::string g_dir;

// The largest |tfhost - LiteRT| over max|LiteRT|, for the log: how close
// the kernels come, not only that they pass.
double RelativeError(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != DType::kFloat || actual.dtype() != DType::kFloat ||
      expected.NumElements() != actual.NumElements()) {
    return 0;
  }
  double scale = 0, worst = 0;
  for (int64_t i = 0; i < expected.NumElements(); ++i) {
    scale = std::max(scale, std::abs(static_cast<double>(expected.data<float>()[i])));
    worst = std::max(worst, std::abs(static_cast<double>(expected.data<float>()[i]) - actual.data<float>()[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

// Loads and runs one signature; the first problem is the error (a load or
// run failure, or the outputs that differ from LiteRT's).
Status RunCase(const ZooModel& m, const SignatureCase& sig) {
  TFHOST_ASSIGN_OR_RETURN(auto model, loaders::LoadModel(g_dir + "/" + m.path));
  if (model->info().format != "TFLite") return Internal(m.path + " loaded as " + model->info().format);
  std::map<std::string, Tensor> inputs;
  for (const auto& [key, file] : sig.inputs) {
    TFHOST_ASSIGN_OR_RETURN(Tensor t, ReadTensorProtoFile(g_dir + "/" + file));
    inputs.emplace(key, std::move(t));
  }
  TFHOST_ASSIGN_OR_RETURN(auto outputs, model->RunSignature(sig.key, inputs));
  std::string mismatches;
  if (outputs.size() != sig.outputs.size()) mismatches += "\n  tfhost returned outputs LiteRT's signature lacks";
  for (const auto& [key, expected_out] : sig.outputs) {
    TFHOST_ASSIGN_OR_RETURN(Tensor expected, ReadTensorProtoFile(g_dir + "/" + expected_out.file));
    auto it = outputs.find(key);
    if (it == outputs.end()) {
      mismatches += "\n  output '" + key + "': missing from tfhost's outputs";
      continue;
    }
    Status st = CompareOutput(expected, it->second, expected_out.tolerance);
    if (!st.ok()) mismatches += "\n  output '" + key + "': " + st.message();
    std::cout << "tflite: " << m.name << "/" << sig.key << " output '" << key
              << "': max |tfhost - LiteRT| / max|LiteRT| = " << RelativeError(expected, it->second) << "\n";
  }
  if (!mismatches.empty()) {
    return InvalidArgument(m.name + " signature '" + sig.key + "' differs from LiteRT:" + mismatches);
  }
  return OkStatus();
}

std::map<std::string, KnownFailure> g_known_failures;

void CheckCase(const ZooModel& m, const SignatureCase& sig) {
  ExpectCaseResult(RunCase(m, sig), m, sig, g_known_failures, "LiteRT", "tests/tflite/known_failures.txt");
}

// A generator that silently lost models would otherwise pass with fewer:
// its own 7 plus the zoo's float32 CNNs, transformers and Keras models.
constexpr size_t kMinModels = 20;

}  // namespace
}  // namespace tfhost::zoo

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace tfhost::zoo;
  const char* dir = std::getenv("TFHOST_TFLITE_DIR");
  if (dir == nullptr || *dir == '\0') {
    std::cerr << "tflite_zoo_test: TFHOST_TFLITE_DIR is not set; run it through tests/tflite/with_tflite.sh\n";
    return 1;
  }
  g_dir = dir;
  auto manifest = ReadManifest(g_dir);
  if (!manifest.ok()) {
    std::cerr << "tflite_zoo_test: " << manifest.status().ToString() << "\n";
    return 1;
  }
  static Manifest m = std::move(*manifest);
  auto known = ReadKnownFailures(TFHOST_TFLITE_KNOWN_FAILURES);
  if (!known.ok()) {
    std::cerr << "tflite_zoo_test: " << known.status().ToString() << "\n";
    return 1;
  }
  g_known_failures = std::move(*known);
  ::testing::RegisterTest("TfliteManifest", "ListsEveryGeneratedModel", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> ::testing::Test* {
                            struct T : ::testing::Test {
                              void TestBody() override { EXPECT_GE(m.models.size(), kMinModels) << g_dir; }
                            };
                            return new T;
                          });
  RegisterSignatureCases("Tflite", m, CheckCase);
  return RUN_ALL_TESTS();
}
