#include "cli/openmp_wait_policy.h"

#include <stdlib.h>
#include <unistd.h>

namespace tfhost::cli {

namespace {
constexpr char kMarker[] = "TFHOST_OPENMP_POLICY_SET";
}  // namespace

void UsePassiveOpenMpWaitPolicy(char** argv) {
  if (getenv(kMarker) != nullptr) {
    // Second start: libgomp has read the policy; hide it from our children.
    unsetenv(kMarker);
    unsetenv("OMP_WAIT_POLICY");
    return;
  }
  if (getenv("OMP_WAIT_POLICY") != nullptr) return;  // the user's choice
  setenv("OMP_WAIT_POLICY", "passive", 1);
  setenv(kMarker, "1", 1);
  execv("/proc/self/exe", argv);
  // Could not re-execute (no /proc): carry on with the default policy.
  unsetenv(kMarker);
  unsetenv("OMP_WAIT_POLICY");
}

}  // namespace tfhost::cli
