// Runs the built `tfhost` binary (path from TFHOST_BINARY) as a user would:
// exit codes and messages on stdout/stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "base/test_fixtures.h"

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr together
};

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Result Tfhost(const std::vector<std::string>& args) {
  std::string cmd = Quote(TFHOST_BINARY);
  for (const auto& a : args) cmd += " " + Quote(a);
  cmd += " 2>&1";
  Result r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CliBinaryTest, BinaryExistsAndPrintsVersion) {
  ASSERT_TRUE(fs::exists(TFHOST_BINARY)) << TFHOST_BINARY;
  Result r = Tfhost({"version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.output.rfind("tfhost ", 0), 0u) << r.output;
}

TEST(CliBinaryTest, UsageErrorsExitTwo) {
  Result r = Tfhost({"bench", "somewhere", "--thread", "2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("did you mean '--threads'"), std::string::npos) << r.output;
  EXPECT_EQ(Tfhost({"frobnicate"}).code, 2);
}

TEST(CliBinaryTest, InspectFixturePrintsSignatures) {
  std::string path = tfhost::testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(path);
  Result r = Tfhost({"inspect", path});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("signature_def['serving_default']"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Variables:"), std::string::npos) << r.output;
}

TEST(CliBinaryTest, RunWithBadInputsExitsOneWithMessage) {
  std::string path = tfhost::testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(path);
  Result unknown = Tfhost({"run", path, "--input", "nope=[[1.0]]"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.output.find("input 'nope'"), std::string::npos) << unknown.output;
  Result dtype = Tfhost({"run", path, "--input", "x=[[true]]"});
  EXPECT_EQ(dtype.code, 1);
  EXPECT_NE(dtype.output.find("must be a number for float32 input"), std::string::npos) << dtype.output;
  Result ok = Tfhost({"run", path, "--input", "x=[[2.0]]"});
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("y: float32[1,1] {3}"), std::string::npos) << ok.output;
}

}  // namespace

namespace tfhost {
namespace {

// tfhost runs its OpenMP threads (oneDNN) with the passive wait policy
// unless the user chose one, and does not pass that choice on to the
// processes it starts. The launched shell reads its parent's (tfhost's)
// start-up environment from /proc and its own.
TEST(CliBinaryTest, OpenMpThreadsWaitPassivelyWithoutLeakingThePolicyToChildren) {
  const std::string probe =
      "tr '\\0' '\\n' < /proc/$PPID/environ | grep '^OMP_WAIT_POLICY=' || echo parent=unset; "
      "echo child=${OMP_WAIT_POLICY:-unset}";
  Result r = Tfhost({"launch", "--engine", "local", "--workers", "1", "--", "sh", "-c", probe});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("OMP_WAIT_POLICY=passive"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("child=unset"), std::string::npos) << r.output;

  ::setenv("OMP_WAIT_POLICY", "active", 1);
  Result user = Tfhost({"launch", "--engine", "local", "--workers", "1", "--", "sh", "-c", probe});
  ::unsetenv("OMP_WAIT_POLICY");
  ASSERT_EQ(user.code, 0) << user.output;
  EXPECT_NE(user.output.find("OMP_WAIT_POLICY=active"), std::string::npos) << user.output;
  EXPECT_NE(user.output.find("child=active"), std::string::npos) << user.output;
}

}  // namespace
}  // namespace tfhost
