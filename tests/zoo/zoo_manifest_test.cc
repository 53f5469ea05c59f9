// The rules a manifest output is held to: relative tolerance for floats,
// max_steps for integers (a quantized output), bit for bit otherwise, and a
// looser bound only with a 'why'.
#include "zoo_manifest.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/test_status.h"
#include "base/test_temp_dir.h"

namespace tfhost::zoo {
namespace {

TEST(ZooManifestTest, IntegersWithinMaxStepsMatchAndOnePastFailsNamingTheElement) {
  const Tensor want = Tensor::FromVector<int8_t>({-128, 0, 127});
  ExpectedOutput rule;
  rule.max_steps = 1;
  EXPECT_TRUE(CompareOutput(want, Tensor::FromVector<int8_t>({-127, 1, 126}), rule).ok());
  TFHOST_EXPECT_ERROR(CompareOutput(want, Tensor::FromVector<int8_t>({-128, 2, 127}), rule),
                      StatusCode::kInvalidArgument,
                      "1 of 3 elements differ by more than 1 steps; first at flat index 1: tf 0, tfhost 2");
  rule.max_steps = 0;
  TFHOST_EXPECT_ERROR(CompareOutput(want, Tensor::FromVector<int8_t>({-127, 0, 127}), rule),
                      StatusCode::kInvalidArgument, "values differ (exact match required for DT_INT8)");
}

TEST(ZooManifestTest, MaxStepsWithoutAWhyIsRefusedNamingTheOutput) {
  testing::TempDir dir("zoo_manifest");
  std::ofstream(dir.Sub("manifest.json")) << R"({"format": 1, "tensorflow": "2.21", "models": [
    {"name": "m", "family": "tflite", "what": "", "path": "m", "signatures": [
      {"key": "serving_default", "inputs": {}, "outputs": {"y": {"file": "y.pb", "max_steps": 1}}}]}]})";
  TFHOST_EXPECT_ERROR(ReadManifest(dir.path()), StatusCode::kInvalidArgument,
                      "output 'y': max_steps 1 allows integers to differ but 'why' does not say which op");
}

}  // namespace
}  // namespace tfhost::zoo
