// The gtest side shared by the suites that run a manifest's models against a
// reference (zoo_test: TensorFlow; tests/tflite: LiteRT): one registered case
// per model and signature, and the known-failure rule applied to each case's
// result. Used from main(), before RUN_ALL_TESTS.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

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

}  // namespace tfhost::zoo
