#include "cli/cli.h"

#include <iostream>

#include "ops/op_registry.h"

namespace tfhost::cli {

namespace {

constexpr char kVersion[] = "0.1.0";

int VersionCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  FlagParser flags("tfhost version", "Prints the tfhost version and what this build supports.");
  if (Status st = flags.Parse(args); !st.ok()) {
    err << "tfhost version: " << st.message() << "\n";
    return kExitUsage;
  }
  if (flags.help_requested()) {
    out << flags.Help();
    return kExitOk;
  }
  out << VersionString() << "\n";
  out << "  model formats: SavedModel (TF1, TF2), frozen GraphDef (.pb/.pbtxt), TensorFlow.js graph models\n";
  out << "  ops with kernels: " << ops::OpRegistry::Global().OpNames().size() << "\n";
  out << "  built: " << __DATE__ << ", C++" << (__cplusplus / 100) % 100 << "\n";
  return kExitOk;
}

std::string GeneralHelp() {
  std::string s = "Usage: tfhost <command> [flags]\n\n"
                  "Loads and runs TensorFlow models (SavedModel, frozen GraphDef, TensorFlow.js, TensorFlow Lite)\n"
                  "without TensorFlow.\n\nCommands:\n";
  for (const Command& c : Commands()) {
    std::string name = c.name;
    s += "  " + name + std::string(name.size() < 14 ? 14 - name.size() : 1, ' ') + c.summary + "\n";
  }
  s += "\nRun 'tfhost <command> --help' for a command's flags.\n"
       "Exit codes: 0 success, 1 the command failed, 2 bad command line.\n";
  return s;
}

int HelpCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    out << GeneralHelp();
    return kExitOk;
  }
  for (const Command& c : Commands()) {
    if (args[0] == c.name) return c.run({"--help"}, out, err);
  }
  err << "tfhost help: unknown command '" << args[0] << "'\n";
  return kExitUsage;
}

}  // namespace

std::string VersionString() { return std::string("tfhost ") + kVersion; }

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"inspect", "show a model's format, signatures, ops and variables", InspectCommand},
      {"run", "run a model on inputs from .npy files, files or JSON", RunCommand},
      {"bench", "measure latency and throughput over batch sizes and threads", BenchCommand},
      {"demo-models", "write small demo SavedModels (half_plus_two, mlp, cnn)", DemoModelsCommand},
      {"serve", "serve models with TensorFlow Serving's REST API and flags", ServeCommand},
      {"probe", "describe this host: CPU, memory, disks, network, RDMA, GPUs, CUDA libraries", ProbeCommand},
      {"doctor", "check this host and TF_*/NCCL_* settings against best practice", DoctorCommand},
      {"monitor", "live GPU/host dashboard, Prometheus exporter (DCGM names) and recorder", MonitorCommand},
      {"advise", "find the bottleneck (input, memory, launch, copies, throttling, storage) in a recording", AdviseCommand},
      {"launch", "run a distributed TensorFlow job (local, Slurm, MPI, ssh; sbatch/Kubernetes files)", LaunchCommand},
      {"data", "TFRecord/Example files: inspect, head, verify, convert (CSV, JSON Lines), bench", DataCommand},
      {"predict", "batch prediction over TFRecord/JSON Lines files, sharded and resumable", PredictCommand},
      {"plan", "which instance type, how many, at what cost: project a model on a catalog of machines", PlanCommand},
      {"version", "print the version", VersionCommand},
      {"help", "show help for tfhost or a command", HelpCommand},
  };
  return commands;
}

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << GeneralHelp();
    return kExitUsage;
  }
  const std::string& name = args[0];
  if (name == "--help" || name == "-h") {
    out << GeneralHelp();
    return kExitOk;
  }
  if (name == "--version") return VersionCommand({}, out, err);
  std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const Command& c : Commands()) {
    if (name == c.name) return c.run(rest, out, err);
  }
  std::string best;
  int best_distance = 1 << 30;
  for (const Command& c : Commands()) {
    int d = EditDistance(name, c.name);
    if (d < best_distance) {
      best_distance = d;
      best = c.name;
    }
  }
  err << "tfhost: unknown command '" << name << "'";
  if (best_distance <= 3) err << "; did you mean '" << best << "'?";
  err << "\nRun 'tfhost help' for the list of commands.\n";
  return kExitUsage;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int code = RunCli(args, std::cout, std::cerr);
  std::cout.flush();
  return code;
}

}  // namespace tfhost::cli
