// Where tests find the third-party fixtures: $TFHOST_FIXTURES, else
// <repo>/../shared/fixtures (TFHOST_SOURCE_DIR is set by ctest). Tests call
// TFHOST_REQUIRE_FIXTURE(path) to skip, saying why, when a fixture is absent.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tfhost::testing {

inline std::string FixturesDir() {
  if (const char* env = std::getenv("TFHOST_FIXTURES"); env && *env) return env;
  std::string source = std::getenv("TFHOST_SOURCE_DIR") ? std::getenv("TFHOST_SOURCE_DIR") : ".";
  return source + "/../shared/fixtures";
}

inline std::string FixturePath(const std::string& relative) {
  return FixturesDir() + "/" + relative;
}

}  // namespace tfhost::testing

#define TFHOST_REQUIRE_FIXTURE(path_expr)                                              \
  do {                                                                                 \
    if (!std::filesystem::exists(path_expr)) {                                         \
      GTEST_SKIP() << "fixture not found: " << (path_expr)                             \
                   << " (set TFHOST_FIXTURES to the shared fixtures folder)";          \
    }                                                                                  \
  } while (0)
