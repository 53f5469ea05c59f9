// Every model of the zoo (tests/zoo/README.md) through loaders::LoadModel and
// Model::RunSignature, each signature's outputs against TensorFlow's for the
// same inputs. One gtest case per model and signature, "Zoo.<model>/<sig>",
// registered from the manifest at start; the zoo folder comes from
// $TFHOST_ZOO_DIR (tests/zoo/with_zoo.sh sets it, generating the zoo first
// when the cache lacks it). A model that fails to load fails every one of its
// signatures' cases, with the load error.
//
// TFHOST_ZOO_DEVICE=gpu (or gpu:N, as --device spells it) runs every model
// on that GPU and the host backends, fp32-strict (no TF32: the tolerances
// are float32's), for the device check (scripts/gpu_check.sh).
// TFHOST_ZOO_KNOWN_FAILURES overrides the known-failures file's path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include "backends/builtin/device_registry.h"
#include "loaders/model_loader.h"
#include "zoo_cases.h"
#include "zoo_manifest.h"

namespace tfhost::zoo {
namespace {

std::string g_zoo_dir;
loaders::LoadOptions g_load_options;

// Models load once for all their signatures.
struct LoadedModel {
  Status status;
  std::unique_ptr<runtime::Model> model;
};

LoadedModel& Load(const ZooModel& m) {
  static std::map<std::string, LoadedModel> cache;
  auto it = cache.find(m.name);
  if (it != cache.end()) return it->second;
  LoadedModel& slot = cache[m.name];
  auto loaded = loaders::LoadModel(g_zoo_dir + "/" + m.path, g_load_options);
  if (loaded.ok()) {
    slot.model = std::move(*loaded);
  } else {
    slot.status = loaded.status();
  }
  return slot;
}

// Runs one signature and compares every output; the first problem is the
// error (a load failure, a run failure, or the outputs that differ).
Status RunCase(const ZooModel& m, const SignatureCase& sig) {
  LoadedModel& loaded = Load(m);
  if (!loaded.status.ok()) return loaded.status.WithContext("loading " + m.name + " (" + m.what + ")");
  std::map<std::string, Tensor> inputs;
  for (const auto& [key, file] : sig.inputs) {
    TFHOST_ASSIGN_OR_RETURN(Tensor t, ReadTensorProtoFile(g_zoo_dir + "/" + file));
    inputs.emplace(key, std::move(t));
  }
  auto outputs = loaded.model->RunSignature(sig.key, inputs);
  if (!outputs.ok()) return outputs.status().WithContext(m.name + " signature '" + sig.key + "'");
  std::string mismatches;
  for (const auto& [key, expected_out] : sig.outputs) {
    TFHOST_ASSIGN_OR_RETURN(Tensor expected, ReadTensorProtoFile(g_zoo_dir + "/" + expected_out.file));
    auto it = outputs->find(key);
    if (it == outputs->end()) {
      mismatches += "\n  output '" + key + "': missing from tfhost's outputs";
      continue;
    }
    Status st = CompareOutput(expected, it->second, expected_out);
    if (!st.ok()) {
      mismatches += "\n  output '" + key + "': " + st.message() +
                    (expected_out.why.empty() ? "" : " (tolerance: " + expected_out.why + ")");
    }
  }
  if (outputs->size() != sig.outputs.size()) mismatches += "\n  tfhost returned outputs TensorFlow's signature lacks";
  if (!mismatches.empty()) {
    return InvalidArgument(m.name + " signature '" + sig.key + "' differs from TensorFlow:" + mismatches);
  }
  return OkStatus();
}

std::map<std::string, KnownFailure> g_known_failures;

void CheckCase(const ZooModel& m, const SignatureCase& sig) {
  ExpectCaseResult(RunCase(m, sig), m, sig, g_known_failures, "TensorFlow", "tests/zoo/known_failures.txt");
}

// The zoo's promise is breadth: a generator that silently lost models would
// otherwise pass with fewer cases.
constexpr size_t kMinModels = 40;

}  // namespace
}  // namespace tfhost::zoo

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace tfhost::zoo;
  const char* dir = std::getenv("TFHOST_ZOO_DIR");
  if (dir == nullptr || *dir == '\0') {
    std::cerr << "zoo_test: TFHOST_ZOO_DIR is not set; run it through tests/zoo/with_zoo.sh, "
                 "which generates the zoo with TensorFlow first\n";
    return 1;
  }
  g_zoo_dir = dir;
  auto manifest = ReadManifest(g_zoo_dir);
  if (!manifest.ok()) {
    std::cerr << "zoo_test: " << manifest.status().ToString() << "\n";
    return 1;
  }
  static Manifest m = std::move(*manifest);
  if (const char* device = std::getenv("TFHOST_ZOO_DEVICE"); device != nullptr && *device != '\0') {
    auto choice = tfhost::backends::ParseDevice(device);
    auto chosen = choice.ok() ? tfhost::backends::ForDevice(*choice)
                              : tfhost::StatusOr<tfhost::backends::DeviceRegistry>(choice.status());
    if (!chosen.ok()) {
      std::cerr << "zoo_test: TFHOST_ZOO_DEVICE=" << device << ": " << chosen.status().ToString() << "\n";
      return 1;
    }
    g_load_options.session.backends = chosen->registry;
    g_load_options.precision = "fp32-strict";
  }
  const char* known_path = std::getenv("TFHOST_ZOO_KNOWN_FAILURES");
  auto known = ReadKnownFailures(known_path != nullptr && *known_path != '\0' ? known_path : TFHOST_ZOO_KNOWN_FAILURES);
  if (!known.ok()) {
    std::cerr << "zoo_test: " << known.status().ToString() << "\n";
    return 1;
  }
  g_known_failures = std::move(*known);
  ::testing::RegisterTest("ZooManifest", "ListsAtLeastFortyModels", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> ::testing::Test* {
                            struct T : ::testing::Test {
                              void TestBody() override {
                                EXPECT_GE(m.models.size(), kMinModels) << "models in " << g_zoo_dir;
                              }
                            };
                            return new T;
                          });
  RegisterSignatureCases("Zoo", m, CheckCase);
  return RUN_ALL_TESTS();
}
