// The TFLite test models (tests/tflite/generate.py: Keras and tf.function
// models, and the zoo's models, converted by TensorFlow's TFLiteConverter)
// through loaders::LoadModel, each signature's outputs against LiteRT's for
// the same inputs, within 1e-5 x max|reference|. One gtest case per model
// and signature, "Tflite.<model>/<signature>"; the folder comes from
// $TFHOST_TFLITE_DIR (tests/tflite/with_tflite.sh sets it). Cases listed in
// known_failures.txt must fail, with the error their line quotes.
#include <gtest/gtest.h>

#include "zoo_cases.h"
#include "zoo_manifest.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace tfhost::zoo;
  DerivedSuiteSpec spec;
  spec.program = "tflite_zoo_test";
  spec.env_var = "TFHOST_TFLITE_DIR";
  spec.wrapper = "tests/tflite/with_tflite.sh";
  spec.known_failures = TFHOST_TFLITE_KNOWN_FAILURES;
  spec.known_failures_name = "tests/tflite/known_failures.txt";
  spec.suite = "Tflite";
  spec.min_models = 20;  // its own 7 plus the zoo's float32 CNNs, transformers and Keras models
  spec.format = "TFLite";
  spec.reference = "LiteRT";
  spec.log_tag = "tflite";
  SetUpDerivedSuite(spec);
  return RUN_ALL_TESTS();
}
