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

Status RunCase(const ZooModel& m, const SignatureCase& sig) {
  return RunDerivedCase(g_dir, m, sig, "TFLite", "LiteRT", "tflite");
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
  const DerivedSuite& suite = SetUpDerivedSuite("tflite_zoo_test", "TFHOST_TFLITE_DIR", "tests/tflite/with_tflite.sh", TFHOST_TFLITE_KNOWN_FAILURES, "Tflite", kMinModels, CheckCase);
  g_dir = suite.dir;
  g_known_failures = suite.known_failures;
  return RUN_ALL_TESTS();
}
