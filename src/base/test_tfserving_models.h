// TF Serving's own test models (saved_model_half_plus_two_cpu, ...) for the
// serving tests: the copies in the shared fixtures (test_fixtures.h) when
// present, else the equivalents TensorFlow writes into the generated zoo
// (tests/zoo/tfserving_models.py: <zoo>/tfserving/<the same folders>), so the
// tests run without the third-party fixtures. TFHOST_REQUIRE_TFSERVING_MODEL(path) skips,
// saying where it looked, only when neither exists.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/test_fixtures.h"

namespace tfhost::testing {

// The generated zoo of the current generator and Python lock: $TFHOST_ZOO_DIR
// (tests/zoo/with_zoo.sh sets it), else the folder tests/zoo/zoo_dir.sh names
// under TFHOST_SOURCE_DIR when its generation has completed; "" when there is
// none. Computed once per process (the script hashes the generator, ~50 ms).
inline std::string ZooDir() {
  static const std::string dir = [] {
    if (const char* env = std::getenv("TFHOST_ZOO_DIR"); env && *env) return std::string(env);
    std::string source = std::getenv("TFHOST_SOURCE_DIR") ? std::getenv("TFHOST_SOURCE_DIR") : ".";
    std::string script = source + "/tests/zoo/zoo_dir.sh";
    if (!std::filesystem::exists(script)) return std::string();
    FILE* pipe = ::popen(("bash '" + script + "' 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return std::string();
    std::string out;
    std::array<char, 512> buf;
    while (size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
    if (::pclose(pipe) != 0) return std::string();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return std::filesystem::exists(out + "/.complete") ? out : std::string();
  }();
  return dir;
}

// A TF Serving test model, `relative` to models/tfserving (a model folder,
// "saved_model_half_plus_two_cpu", or one of its versions,
// "saved_model_half_plus_two_cpu/00000123"): the shared fixture copy when it
// exists, else the zoo's equivalent when that exists, else the fixture path
// (which TFHOST_REQUIRE_TFSERVING_MODEL then reports as missing).
inline std::string TfServingModelPath(const std::string& relative) {
  std::string fixture = FixturePath("models/tfserving/" + relative);
  if (std::filesystem::exists(fixture)) return fixture;
  std::string zoo = ZooDir();
  if (!zoo.empty() && std::filesystem::exists(zoo + "/tfserving/" + relative)) return zoo + "/tfserving/" + relative;
  return fixture;
}

// Why `path`, what TfServingModelPath() returned, does not exist; "" when it does.
inline std::string TfServingModelMissing(const std::string& path) {
  if (std::filesystem::exists(path)) return "";
  std::string zoo = ZooDir();
  return "TF Serving test model not found: " + path + " (TFHOST_FIXTURES), and " +
         (zoo.empty() ? std::string("no generated zoo to fall back on (TFHOST_ZOO_DIR is unset and "
                                    "tests/zoo/zoo_dir.sh names no complete one; make it with "
                                    "tests/zoo/zoo_dir.sh --ensure)")
                      : "the zoo's " + zoo + "/tfserving has no equivalent (tests/zoo/tfserving_models.py)");
}

}  // namespace tfhost::testing

// `path_expr`: what TfServingModelPath() returned.
#define TFHOST_REQUIRE_TFSERVING_MODEL(path_expr)                                         \
  do {                                                                                    \
    if (std::string why = ::tfhost::testing::TfServingModelMissing(path_expr);            \
        !why.empty()) {                                                                   \
      GTEST_SKIP() << why;                                                                \
    }                                                                                     \
  } while (0)
