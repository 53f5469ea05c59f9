// Every model of the zoo (tests/zoo/README.md) through loaders::LoadModel and
// Model::RunSignature, each signature's outputs against TensorFlow's for the
// same inputs. One gtest case per model and signature, "Zoo.<model>/<sig>",
// registered from the manifest at start; the zoo folder comes from
// $TFHOST_ZOO_DIR (tests/zoo/with_zoo.sh sets it, generating the zoo first
// when the cache lacks it). A model that fails to load fails every one of its
// signatures' cases, with the load error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include "loaders/model_loader.h"
#include "zoo_manifest.h"

namespace tfhost::zoo {
namespace {

std::string g_zoo_dir;

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
  auto loaded = loaders::LoadModel(g_zoo_dir + "/" + m.path);
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
    Status st = CompareOutput(expected, it->second, expected_out.tolerance);
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

// Cases tfhost does not pass yet (known_failures.txt): each must still fail,
// and with the error its line quotes, so that a fix shows up as a test to
// update and a different failure is not hidden behind an old one.
struct KnownFailure {
  std::string error_part;
  std::string reason;
};
std::map<std::string, KnownFailure> g_known_failures;

Status ReadKnownFailures(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open " + path);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const size_t t1 = line.find('\t');
    const size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) {
      return InvalidArgument(path + ":" + std::to_string(line_no) +
                             ": expected 'model/signature<TAB>part of the error<TAB>reason'");
    }
    g_known_failures[line.substr(0, t1)] = {line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)};
  }
  return OkStatus();
}

void CheckCase(const ZooModel& m, const SignatureCase& sig) {
  const Status st = RunCase(m, sig);
  auto known = g_known_failures.find(m.name + "/" + sig.key);
  if (known == g_known_failures.end()) {
    EXPECT_TRUE(st.ok()) << st.ToString();
    return;
  }
  if (st.ok()) {
    ADD_FAILURE() << m.name << "/" << sig.key << " now matches TensorFlow: remove its line from "
                  << "tests/zoo/known_failures.txt";
    return;
  }
  EXPECT_NE(st.ToString().find(known->second.error_part), std::string::npos)
      << "known failure '" << known->second.error_part << "' (" << known->second.reason
      << ") now fails differently: " << st.ToString();
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
  if (tfhost::Status st = ReadKnownFailures(TFHOST_ZOO_KNOWN_FAILURES); !st.ok()) {
    std::cerr << "zoo_test: " << st.ToString() << "\n";
    return 1;
  }
  ::testing::RegisterTest("ZooManifest", "ListsAtLeastFortyModels", nullptr, nullptr, __FILE__, __LINE__,
                          []() -> ::testing::Test* {
                            struct T : ::testing::Test {
                              void TestBody() override {
                                EXPECT_GE(m.models.size(), kMinModels) << "models in " << g_zoo_dir;
                              }
                            };
                            return new T;
                          });
  for (const ZooModel& model : m.models) {
    for (const SignatureCase& sig : model.signatures) {
      const ZooModel* mp = &model;
      const SignatureCase* sp = &sig;
      ::testing::RegisterTest("Zoo", (model.name + "/" + sig.key).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [mp, sp]() -> ::testing::Test* {
                                struct T : ::testing::Test {
                                  const ZooModel* m;
                                  const SignatureCase* s;
                                  T(const ZooModel* m, const SignatureCase* s) : m(m), s(s) {}
                                  void TestBody() override { CheckCase(*m, *s); }
                                };
                                return new T(mp, sp);
                              });
    }
  }
  return RUN_ALL_TESTS();
}
