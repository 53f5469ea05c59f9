// The gtest side shared by the suites that run a manifest's models against a
// reference (zoo_test: TensorFlow; tests/tflite: LiteRT; tests/onnx: ONNX
// Runtime): one registered case
// per model and signature, and the known-failure rule applied to each case's
// result. Used from main(), before RUN_ALL_TESTS.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "loaders/model_loader.h"
#include "zoo_manifest.h"

namespace tfhost::zoo {

// Registers "<suite>.<model>/<signature>" for every signature of `manifest`
// (which must outlive the tests), each calling `check`.
inline void RegisterSignatureCases(const char* suite, const Manifest& manifest,
                                   std::function<void(const ZooModel&, const SignatureCase&)> check) {
  for (const ZooModel& model : manifest.models) {
    for (const SignatureCase& sig : model.signatures) {
      ::testing::RegisterTest(suite, (model.name + "/" + sig.key).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [m = &model, s = &sig, check]() -> ::testing::Test* {
                                struct T : ::testing::Test {
                                  std::function<void()> body;
                                  void TestBody() override { body(); }
                                };
                                auto* t = new T;
                                t->body = [m, s, check] { check(*m, *s); };
                                return t;
                              });
    }
  }
}

// A case's outcome: `result` must be OK unless `known` lists the case, which
// must then still fail with its quoted error. `reference` ("TensorFlow",
// "LiteRT") and `known_failures_file` word the message when a listed case
// starts to pass.
inline void ExpectCaseResult(const Status& result, const ZooModel& m, const SignatureCase& sig,
                             const std::map<std::string, KnownFailure>& known, const std::string& reference,
                             const std::string& known_failures_file) {
  auto it = known.find(m.name + "/" + sig.key);
  if (it == known.end()) {
    EXPECT_TRUE(result.ok()) << result.ToString();
  } else if (result.ok()) {
    ADD_FAILURE() << m.name << "/" << sig.key << " now matches " << reference << ": remove its line from "
                  << known_failures_file;
  } else {
    EXPECT_NE(result.ToString().find(it->second.error_part), std::string::npos)
        << "known failure '" << it->second.error_part << "' (" << it->second.reason
        << ") now fails differently: " << result.ToString();
  }
}

// The largest |actual - expected| over max|expected| (float outputs), for
// the log: how close the kernels come, not only that they pass.
inline double RelativeError(const Tensor& expected, const Tensor& actual) {
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

// The largest difference between two integer tensors of one shape.
inline double MaxSteps(const Tensor& expected, const Tensor& actual) {
  if (expected.NumElements() != actual.NumElements()) return 0;
  const std::vector<double> a = expected.ToDoubleVector(), b = actual.ToDoubleVector();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// Loads model `m` from `dir` (it must load as `format`), runs signature
// `sig` on its saved inputs and compares each output with the reference
// runtime's (`reference`, "LiteRT"); logs each output's relative error
// under `tag`. The first problem is the error: a load or run failure, or
// every output that differs.
inline Status RunDerivedCase(const std::string& dir, const ZooModel& m, const SignatureCase& sig,
                             const std::string& format, const std::string& reference, const std::string& tag) {
  TFHOST_ASSIGN_OR_RETURN(auto model, loaders::LoadModel(dir + "/" + m.path));
  if (model->info().format != format) return Internal(m.path + " loaded as " + model->info().format);
  std::map<std::string, Tensor> inputs;
  for (const auto& [key, file] : sig.inputs) {
    TFHOST_ASSIGN_OR_RETURN(Tensor t, ReadTensorProtoFile(dir + "/" + file));
    inputs.emplace(key, std::move(t));
  }
  TFHOST_ASSIGN_OR_RETURN(auto outputs, model->RunSignature(sig.key, inputs));
  std::string mismatches;
  if (outputs.size() != sig.outputs.size()) mismatches += "\n  tfhost returned outputs " + reference + "'s lacks";
  for (const auto& [key, expected_out] : sig.outputs) {
    TFHOST_ASSIGN_OR_RETURN(Tensor expected, ReadTensorProtoFile(dir + "/" + expected_out.file));
    auto it = outputs.find(key);
    if (it == outputs.end()) {
      mismatches += "\n  output '" + key + "': missing from tfhost's outputs";
      continue;
    }
    Status st = CompareOutput(expected, it->second, expected_out);
    if (!st.ok()) mismatches += "\n  output '" + key + "': " + st.message();
    std::cout << tag << ": " << m.name << "/" << sig.key << " output '" << key << "': ";
    if (expected_out.max_steps > 0) {
      std::cout << "max |tfhost - " << reference << "| = " << MaxSteps(expected, it->second) << " steps\n";
    } else {
      std::cout << "max |tfhost - " << reference << "| / max|" << reference
                << "| = " << RelativeError(expected, it->second) << "\n";
    }
  }
  if (!mismatches.empty()) {
    return InvalidArgument(m.name + " signature '" + sig.key + "' differs from " + reference + ":" + mismatches);
  }
  return OkStatus();
}

// A suite of models derived from the zoo (TFLite, ONNX conversions): what
// its main() says about it.
struct DerivedSuiteSpec {
  std::string program;          // "tflite_zoo_test", for messages
  std::string env_var;          // the folder, set by `wrapper`
  std::string wrapper;          // "tests/tflite/with_tflite.sh"
  std::string known_failures;   // the known-failures file's path
  std::string known_failures_name;  // ... as the repository names it, for messages
  std::string suite;            // gtest suite prefix: "Tflite"
  size_t min_models = 0;        // a generator that silently lost models would pass with fewer
  std::string format;           // ModelInfo::format the models must load as: "TFLite"
  std::string reference;        // the runtime whose outputs they match: "LiteRT"
  std::string log_tag;          // "tflite"
};

// What the suite read: its folder, manifest and known failures.
struct DerivedSuite {
  std::string dir;
  Manifest manifest;
  std::map<std::string, KnownFailure> known_failures;
};

// Reads them, or prints why not (naming the program and its wrapper) and
// exits 1. Registers "<suite>Manifest.ListsEveryGeneratedModel" and, for
// every signature, "<suite>.<model>/<signature>": RunDerivedCase under the
// known-failure rule. The result lives until exit.
inline const DerivedSuite& SetUpDerivedSuite(const DerivedSuiteSpec& spec) {
  static DerivedSuite derived;
  static DerivedSuiteSpec kept;
  kept = spec;
  auto fail = [&](const std::string& why) {
    std::cerr << spec.program << ": " << why << "\n";
    std::exit(1);
  };
  const char* dir = std::getenv(spec.env_var.c_str());
  if (dir == nullptr || *dir == '\0') fail(spec.env_var + " is not set; run it through " + spec.wrapper);
  derived.dir = dir;
  auto manifest = ReadManifest(derived.dir);
  if (!manifest.ok()) fail(manifest.status().ToString());
  auto known = ReadKnownFailures(spec.known_failures);
  if (!known.ok()) fail(known.status().ToString());
  derived.manifest = std::move(*manifest);
  derived.known_failures = std::move(*known);
  ::testing::RegisterTest((spec.suite + "Manifest").c_str(), "ListsEveryGeneratedModel", nullptr, nullptr, __FILE__,
                          __LINE__, []() -> ::testing::Test* {
                            struct T : ::testing::Test {
                              void TestBody() override {
                                EXPECT_GE(derived.manifest.models.size(), kept.min_models) << derived.dir;
                              }
                            };
                            return new T;
                          });
  RegisterSignatureCases(spec.suite.c_str(), derived.manifest, [](const ZooModel& m, const SignatureCase& sig) {
    ExpectCaseResult(RunDerivedCase(derived.dir, m, sig, kept.format, kept.reference, kept.log_tag), m, sig,
                     derived.known_failures, kept.reference, kept.known_failures_name);
  });
  return derived;
}

}  // namespace tfhost::zoo
