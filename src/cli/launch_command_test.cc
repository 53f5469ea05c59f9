// `tfhost launch` flag handling in-process: usage errors, --dry-run and
// --emit. Running real jobs is covered through the binary in tests/launch.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli.h"

namespace tfhost::cli {
namespace {

struct Out {
  int code;
  std::string out, err;
};

Out Launch(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = LaunchCommand(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(LaunchCommandTest, UsageErrorsExitTwoAndSayWhy) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--workers", "2"}, "no command"},
           {{"--strategy", "horovod", "--", "true"}, "unknown strategy 'horovod'"},
           {{"--engine", "kubernetes", "--", "true"}, "unknown engine"},
           {{"--env", "NOVALUE", "--", "true"}, "NAME=VALUE"},
           {{"--grace", "soon", "--", "true"}, "--grace expects seconds"},
           {{"--strategy", "multiworker", "--ps", "1", "--", "true"}, "no parameter servers"},
           {{"--strategy", "mirrored", "--workers", "2", "--", "true"}, "--workers must be 1"},
           {{"--engine", "ssh", "--", "true"}, "needs --hosts"},
           {{"--engine", "ssh", "--hosts", "n[1-", "--", "true"}, "never closed"},
           {{"--emit", "helm", "--", "true"}, "--emit must be"},
           {{"--emit", "k8s", "--", "true"}, "needs --image"},
           {{"--emit", "sbatch", "--nodes", "3", "--workers", "4", "--", "true"}, "cannot be split evenly"},
           {{"--emit", "sbatch", "--nodes", "0", "--", "true"}, "--nodes must be at least 1, got 0"},
           {{"--workerz", "2", "--", "true"}, "did you mean '--workers'"},
       }) {
    Out r = Launch(c.args);
    EXPECT_EQ(r.code, kExitUsage) << c.args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << " not in: " << r.err;
  }
}

TEST(LaunchCommandTest, SbatchLayoutErrorSaysWhatWasDerivedFromWhatAndTheNearestLayouts) {
  Out r = Launch({"--emit", "sbatch", "--nodes", "2", "--workers", "3", "--", "python3", "train.py"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.err,
            "tfhost launch: --workers 3 over --nodes 2: --tasks-per-node was not given, so 2 was derived as "
            "ceil(3 tasks / 2 nodes), and 3 TensorFlow tasks cannot be split evenly over 2 x 2 = 4 srun tasks (each "
            "srun task runs an equal share). Nearest layouts that fit: --workers 2 or 4, or --nodes 1 or 3\n"
            "Run 'tfhost launch --help' for usage.\n");
}

// --nodes and its siblings only size the job an sbatch script asks for; a
// run (any engine) or a Kubernetes manifest used to drop them without a word.
TEST(LaunchCommandTest, SbatchOnlyFlagsElsewhereAreUsageErrorsNamingTheFlagAndWhereItApplies) {
  Out local = Launch({"--engine", "local", "--nodes", "2", "--", "python3", "train.py"});
  EXPECT_EQ(local.code, kExitUsage);
  EXPECT_EQ(local.err,
            "tfhost launch: --nodes applies to --emit sbatch only (the Slurm job the script asks for); with --engine "
            "local it would be ignored: every task runs on this host (--gpus-per-task shares out its GPUs)\n"
            "Run 'tfhost launch --help' for usage.\n");
  // Given with its default value it is still given, and a dry run is no exception.
  Out several = Launch({"--dry-run", "--engine", "slurm", "--nodes", "1", "--tasks-per-node", "4", "--gpus-per-node",
                        "8", "--", "python3", "train.py"});
  EXPECT_EQ(several.code, kExitUsage);
  EXPECT_EQ(several.err,
            "tfhost launch: --nodes, --tasks-per-node and --gpus-per-node apply to --emit sbatch only (the Slurm job "
            "the script asks for); with --engine slurm they would be ignored: nodes, tasks and GPUs are those of the "
            "Slurm allocation it runs in (set them with sbatch, salloc or srun)\n"
            "Run 'tfhost launch --help' for usage.\n");
  Out mpi = Launch({"--engine", "mpi", "--time", "01:00:00", "--", "true"});
  EXPECT_EQ(mpi.code, kExitUsage);
  EXPECT_NE(mpi.err.find("--time applies to --emit sbatch only (the Slurm job the script asks for); with --engine mpi "
                         "it would be ignored: the ranks and their hosts are mpirun's (-np, --host, --hostfile)\n"),
            std::string::npos)
      << mpi.err;
  Out ssh = Launch({"--engine", "ssh", "--hosts", "a,b", "--gpus-per-node", "2", "--", "true"});
  EXPECT_EQ(ssh.code, kExitUsage);
  EXPECT_NE(ssh.err.find("--gpus-per-node applies to --emit sbatch only (the Slurm job the script asks for); with "
                         "--engine ssh it would be ignored: tasks go to the --hosts list, which sets the nodes\n"),
            std::string::npos)
      << ssh.err;
  Out k8s = Launch({"--emit", "k8s", "--image", "tf:latest", "--gpus-per-node", "4", "--partition", "gpu", "--",
                    "python3", "train.py"});
  EXPECT_EQ(k8s.code, kExitUsage);
  EXPECT_EQ(k8s.out, "");
  EXPECT_NE(k8s.err.find("--gpus-per-node and --partition apply to --emit sbatch only (the Slurm job the script asks "
                         "for); with --emit k8s they would be ignored: Kubernetes places the pods, one per task "
                         "(--gpus-per-task sets each pod's GPUs)\n"),
            std::string::npos)
      << k8s.err;
  // Where they apply they are written into the script.
  Out s = Launch({"--emit", "sbatch", "--nodes", "2", "--tasks-per-node", "1", "--gpus-per-node", "4", "--time",
                  "01:00:00", "--partition", "gpu", "--workers", "2", "--", "python3", "train.py"});
  ASSERT_EQ(s.code, kExitOk) << s.err;
  for (const char* line : {"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=1\n", "#SBATCH --gpus-per-node=4\n",
                           "#SBATCH --time=01:00:00\n", "#SBATCH --partition=gpu\n"}) {
    EXPECT_NE(s.out.find(line), std::string::npos) << line << " not in:\n" << s.out;
  }
}

// This machine has no GPU (and tests run without NVML), so the live probe
// finds none: a dry run must not present GPU tuning it would not apply.
TEST(LaunchCommandTest, DryRunOnAHostWithoutGpusSetsNoNcclOrTfGpuVariables) {
  Out r = Launch({"--dry-run", "--engine", "local", "--workers", "2", "--port", "4000", "--", "python3", "train.py"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* name : {"env NCCL_", "env TF_GPU_", "env TF_FORCE_GPU_ALLOW_GROWTH"}) {
    EXPECT_EQ(r.out.find(name), std::string::npos) << name << " in:\n" << r.out;
  }
  EXPECT_NE(r.out.find("note: no GPU found on this host, so no NCCL_*/TF_GPU_* variables are set; --tune-gpu sets "
                       "them anyway\n"),
            std::string::npos)
      << r.out;
}

TEST(LaunchCommandTest, TuneGpuOrEnvSetsGpuVariablesOnAHostWithoutGpus) {
  Out r = Launch({"--dry-run", "--engine", "local", "--workers", "2", "--port", "4000", "--tune-gpu", "--", "python3",
                  "train.py"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("  env TF_GPU_ALLOCATOR=cuda_malloc_async    # "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  env TF_GPU_THREAD_MODE=gpu_private    # "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: --tune-gpu: NCCL_*/TF_GPU_* variables set although no GPU was found on this host\n"),
            std::string::npos)
      << r.out;
  Out e = Launch({"--dry-run", "--engine", "local", "--workers", "1", "--port", "4000", "--env", "NCCL_DEBUG=INFO",
                  "--", "python3", "train.py"});
  ASSERT_EQ(e.code, kExitOk) << e.err;
  EXPECT_NE(e.out.find("  env NCCL_DEBUG=INFO    # --env\n"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("env TF_GPU_"), std::string::npos) << e.out;
  EXPECT_EQ(Launch({"--no-tune", "--tune-gpu", "--", "true"}).code, kExitUsage);
}

TEST(LaunchCommandTest, CommandAfterDoubleDashIsPassedUntouched) {
  Out r = Launch({"--dry-run", "--engine", "local", "--workers", "1", "--port", "4000", "--", "python3", "train.py",
                  "--workers", "7", "--", "x y"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("command: python3 train.py --workers 7 -- 'x y'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"({"worker":["localhost:4000"]})"), std::string::npos) << r.out;
}

TEST(LaunchCommandTest, MirroredDryRunHasNoTfConfig) {
  Out r = Launch({"--dry-run", "--engine", "local", "--strategy", "mirrored", "--", "python3", "train.py"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out.find("env TF_CONFIG="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("starting 1 of 1 tasks"), std::string::npos) << r.out;
}

TEST(LaunchCommandTest, EmitSbatchAndK8sWriteToStdout) {
  Out s = Launch({"--emit", "sbatch", "--nodes", "2", "--workers", "4", "--", "python3", "train.py"});
  ASSERT_EQ(s.code, kExitOk) << s.err;
  EXPECT_NE(s.out.find("#SBATCH --ntasks-per-node=2"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("launch --engine slurm --strategy multiworker --workers 4"), std::string::npos) << s.out;
  Out k = Launch({"--emit", "k8s", "--image", "tf:latest", "--strategy", "ps", "--workers", "2", "--xla", "--", "python3",
                  "train.py"});
  ASSERT_EQ(k.code, kExitOk) << k.err;
  EXPECT_NE(k.out.find("kind: \"TFJob\""), std::string::npos);
  EXPECT_NE(k.out.find("\"TF_XLA_FLAGS\""), std::string::npos);
  EXPECT_EQ(k.out.find("NCCL_SOCKET_IFNAME"), std::string::npos) << "this host's NICs say nothing about pods";
}

}  // namespace
}  // namespace tfhost::cli
