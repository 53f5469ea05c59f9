// The `tfhost` command line: a table of subcommands (inspect, run, bench,
// demo-models, version, help), each in its own file. Every subcommand takes
// its arguments (after the subcommand name) and two streams, and returns the
// process exit code: kExitOk, kExitFailure (the command ran and failed) or
// kExitUsage (bad command line). Tests call these directly.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/flags.h"

namespace tfhost::cli {

using CommandFn = int (*)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

struct Command {
  const char* name;
  const char* summary;
  CommandFn run;
};

int InspectCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int BenchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int DemoModelsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int ServeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int LaunchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// `tfhost bench allreduce ...` (BenchCommand hands "allreduce" to it).
int BenchAllreduceCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int ProbeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int DoctorCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int MonitorCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int AdviseCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int DataCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int PredictCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int PlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The subcommand table, in the order `tfhost help` lists it.
const std::vector<Command>& Commands();

// Dispatches `args` (without the program name) to a subcommand.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// main(): RunCli on argv with std::cout / std::cerr.
int Main(int argc, char** argv);

// "tfhost 0.1.0".
std::string VersionString();

}  // namespace tfhost::cli
