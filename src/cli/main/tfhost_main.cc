// The `tfhost` binary: all logic lives in the tfhost_cli library (cli/cli.h)
// so that tests can run subcommands in-process.
#include "cli/cli.h"
#include "cli/openmp_wait_policy.h"

int main(int argc, char** argv) {
  tfhost::cli::UsePassiveOpenMpWaitPolicy(argv);
  return tfhost::cli::Main(argc, argv);
}
