// Runs the tfhost command line in-process for the CLI tests, with its exit
// code and both output streams captured (RunCli, cli/cli.h).
//
// Thread-safety: each call has its own streams; RunCli's own rules apply.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace tfhost::cli {

struct CliResult {
  int code;
  std::string out, err;
};

inline CliResult Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace tfhost::cli
