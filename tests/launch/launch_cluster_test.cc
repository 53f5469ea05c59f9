// `tfhost launch` on real engines, run through the built binary as a user
// would: the local engine, mpirun (OpenMPI), ssh (through a stand-in that
// runs the remote command here) and the files --emit writes. Each job runs
// check_cluster.py per task, which proves the wiring without TensorFlow: one
// consistent cluster, a unique task index, every peer reachable at the
// address TF_CONFIG gives it. Lifecycle tests check exit status, timing and
// that no process is left behind (a /proc scan for a per-test marker).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kScriptDir = LAUNCH_TEST_DIR;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool HaveProgram(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// A port that was free a moment ago; BASE and BASE+1 are used on two loopback
// addresses, so a clash is as unlikely as with any probed port.
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  socklen_t len = sizeof(a);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port < 65000 ? port : 40000;
}

struct Proc {
  pid_t pid = -1;
  int code = -1;        // exit status, 128+N for signal N, -1 while running / timed out
  std::string output;   // stdout and stderr together
  double seconds = 0;
};

class LaunchClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("launch_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "check");
    marker_ = "tfhost-launch-test-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override {
    // Belt and braces: nothing a test started may survive it.
    for (pid_t p : StrayProcesses()) ::kill(p, SIGKILL);
    fs::remove_all(dir_);
  }

  // Starts argv with CHECK_DIR set; output goes to dir_/output.
  Proc Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env = {}) {
    Proc p;
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
    env_strings.push_back("CHECK_DIR=" + (dir_ / "check").string());
    for (const auto& [k, v] : extra_env) env_strings.push_back(k + "=" + v);
    std::vector<char*> args, envp;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const std::string& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    std::string out_path = (dir_ / "output").string();
    start_ = Clock::now();
    p.pid = ::fork();
    if (p.pid == 0) {
      int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::setpgid(0, 0);
      ::execvpe(args[0], args.data(), envp.data());
      ::_exit(127);
    }
    return p;
  }

  // Waits for `p` at most `timeout` seconds (then kills it and fails).
  void Wait(Proc& p, double timeout) {
    auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(timeout * 1000));
    int status = 0;
    while (true) {
      pid_t r = ::waitpid(p.pid, &status, WNOHANG);
      if (r == p.pid) break;
      if (Clock::now() > deadline) {
        ::kill(-p.pid, SIGKILL);
        ::waitpid(p.pid, &status, 0);
        ADD_FAILURE() << "timed out after " << timeout << " s";
        p.code = -1;
        p.output = ReadFile(dir_ / "output");
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    p.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    p.output = ReadFile(dir_ / "output");
  }

  Proc Run(const std::vector<std::string>& argv, double timeout = 90,
           const std::map<std::string, std::string>& extra_env = {}) {
    Proc p = Start(argv, extra_env);
    Wait(p, timeout);
    return p;
  }

  std::vector<std::string> Launch(const std::vector<std::string>& flags, const std::vector<std::string>& check_args = {}) {
    std::vector<std::string> argv = {TFHOST_BINARY, "launch"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--", "python3", kScriptDir + "/check_cluster.py", "--marker", marker_});
    argv.insert(argv.end(), check_args.begin(), check_args.end());
    return argv;
  }

  // Processes whose command line carries this test's marker.
  std::vector<pid_t> StrayProcesses() {
    std::vector<pid_t> out;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmd = ReadFile(it->path() / "cmdline");
      std::string stat = ReadFile(it->path() / "stat");
      if (stat.find(") Z ") != std::string::npos) continue;  // zombies hold no resources
      if (cmd.find(marker_) != std::string::npos) out.push_back(std::stoi(name));
    }
    return out;
  }
  void ExpectNoStrays() {
    std::vector<pid_t> strays;
    for (int i = 0; i < 40; ++i) {  // up to 2 s for the kernel to finish reaping
      strays = StrayProcesses();
      if (strays.empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << strays.size() << " task process(es) outlived the job, e.g. pid " << strays[0];
  }

  // Every CHECK_DIR/<type>-<index>.json: one cluster, unique tasks.
  void ExpectConsistentCluster(const std::map<std::string, int>& expected_counts) {
    std::string cluster;
    std::set<std::string> tasks;
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir_ / "check")) {
      if (entry.path().extension() != ".json") continue;
      ++files;
      rapidjson::Document d;
      std::string text = ReadFile(entry.path());
      d.Parse(text.c_str());
      ASSERT_FALSE(d.HasParseError()) << entry.path();
      std::string type = d["task"]["type"].GetString();
      int index = d["task"]["index"].GetInt();
      EXPECT_TRUE(tasks.insert(type + ":" + std::to_string(index)).second) << "duplicate task " << type << index;
      // The cluster object as the task saw it, canonicalised by its members.
      std::string c;
      for (auto m = d["cluster"].MemberBegin(); m != d["cluster"].MemberEnd(); ++m) {
        c += std::string(m->name.GetString()) + "=";
        for (const auto& a : m->value.GetArray()) c += std::string(a.GetString()) + ",";
        c += ";";
      }
      if (cluster.empty()) cluster = c;
      EXPECT_EQ(c, cluster) << "task " << type << ":" << index << " saw a different cluster";
    }
    int expected_total = 0;
    for (const auto& [type, n] : expected_counts) {
      expected_total += n;
      for (int i = 0; i < n; ++i) EXPECT_TRUE(tasks.count(type + ":" + std::to_string(i))) << type << ":" << i << " missing";
    }
    EXPECT_EQ(files, expected_total);
  }

  fs::path dir_;
  std::string marker_;
  Clock::time_point start_;
};

TEST_F(LaunchClusterTest, LocalEngineFourWorkersAgreeOnOneClusterAndReachEveryPeer) {
  Proc p = Run(Launch({"--engine", "local", "--workers", "4"}));
  ASSERT_EQ(p.code, 0) << p.output;
  ExpectConsistentCluster({{"worker", 4}});
  for (int i = 0; i < 4; ++i) {
    EXPECT_NE(p.output.find("[worker:" + std::to_string(i) + "] OK worker:" + std::to_string(i) + " reached 3 peers"),
              std::string::npos)
        << p.output;
  }
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, LocalEngineParameterServerJobEndsWhenTheChiefFinishes) {
  // ps and workers linger as TensorFlow's servers do; the chief's exit ends the job.
  Proc p = Run(Launch({"--strategy", "ps", "--workers", "2", "--ps", "2", "--evaluator", "--grace", "2"},
                      {"--linger", "ps,worker,evaluator", "--chief-waits"}));
  ASSERT_EQ(p.code, 0) << p.output;
  ExpectConsistentCluster({{"chief", 1}, {"worker", 2}, {"ps", 2}, {"evaluator", 1}});
  EXPECT_NE(p.output.find("stopping the rest"), std::string::npos) << p.output;
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, FailingTaskStopsTheJobWithinSecondsWithItsStatusAndLeavesNothing) {
  Proc p = Run(Launch({"--workers", "4", "--grace", "3"}, {"--fail-task", "worker:2", "--code", "3"}), 30);
  EXPECT_EQ(p.code, 3) << p.output;
  EXPECT_LT(p.seconds, 8) << p.output;
  EXPECT_NE(p.output.find("worker:2 exited with status 3"), std::string::npos) << p.output;
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(fs::exists(dir_ / "check" / ("pid-worker-" + std::to_string(i)))) << "worker " << i << " never ran";
  }
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, SignalsToLaunchReachEveryTask) {
  for (int sig : {SIGTERM, SIGINT}) {
    fs::remove_all(dir_ / "check");
    fs::create_directories(dir_ / "check");
    Proc p = Start(Launch({"--workers", "3"}, {"--linger", "all"}));
    // Wait until every task has passed its checks, then signal launch only.
    auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline) {
      int n = 0;
      for (const auto& e : fs::directory_iterator(dir_ / "check")) n += e.path().extension() == ".json";
      if (n == 3) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(p.pid, sig);
    auto sent = Clock::now();
    Wait(p, 20);
    EXPECT_EQ(p.code, 128 + sig) << p.output;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 5);
    int got = 0;
    for (const auto& e : fs::directory_iterator(dir_ / "check")) got += e.path().filename().string().rfind("signal-", 0) == 0;
    EXPECT_EQ(got, 3) << "every task must see the signal\n" << p.output;
    EXPECT_NE(p.output.find(sig == SIGTERM ? "got SIGTERM" : "got SIGINT"), std::string::npos) << p.output;
    ExpectNoStrays();
  }
}

TEST_F(LaunchClusterTest, MaxRestartsRerunsTheWholeJob) {
  Proc p = Run(Launch({"--workers", "2", "--max-restarts", "1", "--grace", "2"},
                      {"--fail-task", "worker:1", "--code", "4", "--fail-restart", "0"}));
  ASSERT_EQ(p.code, 0) << p.output;
  EXPECT_NE(p.output.find("restarting the job (1 of 1)"), std::string::npos) << p.output;
  ExpectConsistentCluster({{"worker", 2}});
  EXPECT_NE(ReadFile(dir_ / "check" / "worker-0.json").find("\"restart\": \"1\""), std::string::npos);
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, DryRunPrintsEveryTasksCommandAndEnvironment) {
  // --tune-gpu: GPU variables are asked for; this machine may have no GPU.
  Proc p = Run({TFHOST_BINARY, "launch", "--dry-run", "--workers", "2", "--port", "23456", "--xla", "--tune-gpu",
                "--env", "NCCL_DEBUG=INFO", "--", "python3", "train.py"},
               30, {{"TF_GPU_THREAD_MODE", "gpu_shared"}});
  ASSERT_EQ(p.code, 0) << p.output;
  for (const char* needle : {"[worker:0] localhost:23456", "[worker:1] localhost:23457", "command: python3 train.py",
                             R"(env TF_CONFIG={"cluster":{"worker":["localhost:23456","localhost:23457"]},"task":{"type":"worker","index":1}})",
                             "env TF_XLA_FLAGS=--tf_xla_auto_jit=2", "env NCCL_DEBUG=INFO",
                             "env TF_GPU_ALLOCATOR=cuda_malloc_async",
                             "env TF_GPU_THREAD_MODE kept from your environment"}) {
    EXPECT_NE(p.output.find(needle), std::string::npos) << needle << "\n" << p.output;
  }
  EXPECT_TRUE(fs::is_empty(dir_ / "check")) << "dry run must not start tasks";
}

TEST_F(LaunchClusterTest, SshEngineStartsEachTaskOnItsHostWithItsEnvironment) {
  // Two "hosts" with their own loopback addresses; the ssh stand-in runs the
  // remote command here, so each task really listens on its host's address.
  int base = FreePort();
  Proc p = Run(Launch({"--engine", "ssh", "--hosts", "127.0.0.[1-2]", "--workers", "4", "--port", std::to_string(base),
                       "--ssh", "python3 " + kScriptDir + "/fake_ssh.py"}));
  if (p.code != 0 && p.output.find("Cannot assign requested address") != std::string::npos) {
    GTEST_SKIP() << "this kernel does not route 127.0.0.2";
  }
  ASSERT_EQ(p.code, 0) << p.output;
  ExpectConsistentCluster({{"worker", 4}});
  std::string w3 = ReadFile(dir_ / "check" / "worker-3.json");
  EXPECT_NE(w3.find("127.0.0.2:" + std::to_string(base + 1)), std::string::npos) << w3;
  ExpectNoStrays();
}

std::vector<std::string> Mpirun(int np) {
  std::vector<std::string> a = {"mpirun", "-np", std::to_string(np), "--oversubscribe"};
  if (::geteuid() == 0) a.push_back("--allow-run-as-root");
  return a;
}

TEST_F(LaunchClusterTest, MpiFourRanksAgreeOnOneClusterAndReachEveryPeer) {
  if (!HaveProgram("mpirun")) GTEST_SKIP() << "mpirun (OpenMPI) is not installed";
  std::vector<std::string> argv = Mpirun(4);
  std::vector<std::string> launch = Launch({"--engine", "mpi", "--rendezvous", (dir_ / "rdv").string()});
  argv.insert(argv.end(), launch.begin(), launch.end());
  Proc p = Run(argv, 120);
  ASSERT_EQ(p.code, 0) << p.output;
  ExpectConsistentCluster({{"worker", 4}});
  EXPECT_FALSE(fs::exists(dir_ / "rdv" / "default")) << "rank 0 removes the rendezvous directory";
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, MpiFailingRankEndsTheJobWithItsStatus) {
  if (!HaveProgram("mpirun")) GTEST_SKIP() << "mpirun (OpenMPI) is not installed";
  std::vector<std::string> argv = Mpirun(4);
  std::vector<std::string> launch =
      Launch({"--engine", "mpi", "--rendezvous", (dir_ / "rdv").string()}, {"--fail-task", "worker:1", "--code", "3"});
  argv.insert(argv.end(), launch.begin(), launch.end());
  Proc p = Run(argv, 60);
  EXPECT_EQ(p.code, 3) << p.output;
  EXPECT_LT(p.seconds, 20) << p.output;
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, BenchAllreduceUnderLaunchIsCorrectFor2And4ProcessesOnTcpAndGloo) {
  for (std::string backend : {"tcp", "gloo"}) {
    for (int n : {2, 4}) {
      Proc p = Run({TFHOST_BINARY, "launch", "--workers", std::to_string(n), "--", TFHOST_BINARY, "bench",
                    "allreduce", "--backend", backend, "--sizes", "8:1M", "--iters", "3", "--warmup", "1"},
                   120);
      ASSERT_EQ(p.code, 0) << p.output;
      std::string name = backend == "tcp" ? "tcp-ring" : backend;
      EXPECT_NE(p.output.find("[worker:0] # allreduce (sum, float32) over " + std::to_string(n) + " ranks, backend " +
                              name),
                std::string::npos)
          << p.output;
      EXPECT_NE(p.output.find("[worker:0]        1048576"), std::string::npos) << p.output;
      EXPECT_NE(p.output.find("[worker:0] # check: every reduced value is correct"), std::string::npos) << p.output;
    }
  }
  ExpectNoStrays();
}

// Where the NVIDIA driver exists (a GPU machine), one rank runs and checks;
// elsewhere every rank must fail with a message naming what is missing (the
// NCCL/CUDA libraries or the driver/GPU) and launch must exit 1, not crash or hang.
TEST_F(LaunchClusterTest, BenchAllreduceNcclChecksOnAGpuOrSaysWhatIsMissing) {
  bool driver = std::filesystem::exists("/proc/driver/nvidia/version");
  Proc p = Run({TFHOST_BINARY, "launch", "--workers", driver ? "1" : "2", "--", TFHOST_BINARY, "bench", "allreduce",
                "--backend", "nccl", "--sizes", "8:1M", "--iters", "3", "--warmup", "1"},
               120);
  if (driver) {
    ASSERT_EQ(p.code, 0) << p.output;
    EXPECT_NE(p.output.find("[worker:0] # check: every reduced value is correct"), std::string::npos) << p.output;
  } else {
    EXPECT_EQ(p.code, 1) << p.output;
    bool says_why = p.output.find("could not be loaded") != std::string::npos ||
                    p.output.find("no usable GPU") != std::string::npos ||
                    p.output.find("no CUDA GPU is visible") != std::string::npos;
    EXPECT_TRUE(says_why) << p.output;
    EXPECT_LT(p.seconds, 60) << p.output;
  }
  ExpectNoStrays();
}

TEST_F(LaunchClusterTest, BenchAllreduceOverMpiBackendIsCorrectFor2And4Ranks) {
  if (!HaveProgram("mpirun")) GTEST_SKIP() << "mpirun (OpenMPI) is not installed";
  for (int n : {2, 4}) {
    std::vector<std::string> argv = Mpirun(n);
    argv.insert(argv.end(), {TFHOST_BINARY, "bench", "allreduce", "--backend", "mpi", "--sizes", "8:1M", "--iters",
                             "3", "--warmup", "1"});
    Proc p = Run(argv, 120);
    ASSERT_EQ(p.code, 0) << p.output;
    EXPECT_NE(p.output.find("over " + std::to_string(n) + " ranks, backend mpi"), std::string::npos) << p.output;
    EXPECT_NE(p.output.find("# check: every reduced value is correct"), std::string::npos) << p.output;
  }
}

TEST_F(LaunchClusterTest, BenchAllreduceUnderMpirunIsCorrect) {
  if (!HaveProgram("mpirun")) GTEST_SKIP() << "mpirun (OpenMPI) is not installed";
  std::vector<std::string> argv = Mpirun(4);
  argv.insert(argv.end(), {TFHOST_BINARY, "launch", "--engine", "mpi", "--rendezvous", (dir_ / "rdv").string(), "--",
                           TFHOST_BINARY, "bench", "allreduce", "--sizes", "4K:256K", "--iters", "3"});
  Proc p = Run(argv, 120);
  ASSERT_EQ(p.code, 0) << p.output;
  EXPECT_NE(p.output.find("over 4 ranks"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("# check: every reduced value is correct"), std::string::npos) << p.output;
}

TEST_F(LaunchClusterTest, KubernetesManifestsHaveTheRequiredStructure) {
  if (std::system("python3 -c 'import yaml' 2>/dev/null") != 0) GTEST_SKIP() << "PyYAML is not installed";
  struct Case {
    std::string emit, kind;
    std::vector<std::string> shape;
    int workers, ps;
  };
  for (const Case& c : std::vector<Case>{{"k8s", "tfjob", {"--workers", "3"}, 3, 0},
                                         {"k8s", "tfjob", {"--strategy", "ps", "--workers", "2", "--ps", "2"}, 2, 2},
                                         {"k8s-indexed", "indexed", {"--workers", "3"}, 3, 0},
                                         {"k8s-indexed", "indexed", {"--strategy", "ps", "--workers", "2", "--ps", "1"}, 2, 1}}) {
    std::string file = (dir_ / (c.emit + ".yaml")).string();
    std::vector<std::string> argv = {TFHOST_BINARY, "launch", "--emit", c.emit, "--output", file, "--name", "mnist",
                                     "--image", "tensorflow/tensorflow:2.15.0-gpu", "--gpus-per-task", "1"};
    argv.insert(argv.end(), c.shape.begin(), c.shape.end());
    argv.insert(argv.end(), {"--", "python3", "/app/train.py", "--epochs", "3"});
    Proc emit = Run(argv, 30);
    ASSERT_EQ(emit.code, 0) << emit.output;
    Proc check = Run({"python3", kScriptDir + "/check_manifests.py", c.kind, file, std::to_string(c.workers),
                      std::to_string(c.ps), "1"},
                     60);
    EXPECT_EQ(check.code, 0) << c.emit << " " << c.ps << ": " << check.output << "\n" << ReadFile(file);
  }
}

TEST_F(LaunchClusterTest, SbatchScriptIsValidBashWithDirectivesAndOneSrunLine) {
  std::string file = (dir_ / "job.sbatch").string();
  Proc emit = Run({TFHOST_BINARY, "launch", "--emit", "sbatch", "--output", file, "--nodes", "2", "--workers", "4",
                   "--gpus-per-node", "2", "--gpus-per-task", "1", "--time", "01:00:00", "--", "python3", "train.py",
                   "--data", "/scratch/my data"},
                  30);
  ASSERT_EQ(emit.code, 0) << emit.output;
  std::string text = ReadFile(file);
  for (const char* needle : {"#!/bin/bash", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=2", "#SBATCH --gpus-per-node=2",
                             "#SBATCH --time=01:00:00", "srun --kill-on-bad-exit=1",
                             "launch --engine slurm --strategy multiworker --workers 4",
                             "--gpus-per-task 1", "-- python3 train.py --data '/scratch/my data'"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  Proc syntax = Run({"bash", "-n", file}, 10);
  EXPECT_EQ(syntax.code, 0) << syntax.output;
}

}  // namespace
