// `tfhost launch` on a real Slurm cluster that the test starts on this host:
// munged, slurmctld and two slurmd daemons emulating two nodes (distinct
// NodeName, port and NodeAddr 127.0.0.1 / 127.0.0.2), all in a temporary
// folder with free ports; the nodes are named tfhostn1 and tfhostn2. Then `srun -N2 -n4 tfhost launch ...` must give
// every task one consistent cluster with every peer reachable, a failing task
// must end the step with its status, and the script --emit sbatch writes must
// run under sbatch. Skips, saying why, where the daemons cannot be started
// (not root, Slurm or munge missing, 127.0.0.2 not routable).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
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

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  socklen_t len = sizeof(a);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

bool CanBind(const char* addr) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, addr, &a.sin_addr);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return ok;
}

struct Result {
  int code = -1;
  std::string output;
  double seconds = 0;
};

// Runs a shell command line with a time limit; stdout+stderr captured.
Result Shell(const std::string& cmd, double timeout, const fs::path& out_file) {
  Result r;
  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    ::_exit(127);
  }
  int status = 0;
  auto deadline = start + std::chrono::milliseconds(static_cast<long>(timeout * 1000));
  while (::waitpid(pid, &status, WNOHANG) != pid) {
    if (Clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.output = ReadFile(out_file) + "\n(timed out)";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = ReadFile(out_file);
  return r;
}

class SlurmClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_reason_ = StartCluster();
    if (!skip_reason_.empty()) StopCluster();
  }
  static void TearDownTestSuite() { StopCluster(); }

  static std::string StartCluster() {
    if (::geteuid() != 0) return "the emulated Slurm cluster runs its daemons as root; not root here";
    for (const char* p : {"munged", "slurmctld", "slurmd", "srun", "sbatch", "sinfo"}) {
      if (std::system(("command -v " + std::string(p) + " >/dev/null 2>&1").c_str()) != 0) {
        return std::string(p) + " is not installed (slurm-wlm, munge)";
      }
    }
    if (!CanBind("127.0.0.2")) return "127.0.0.2 is not routable here; the two emulated nodes need their own addresses";
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    std::string hostname = host;
    if (hostname.empty()) return "this host has no name for SlurmctldHost";
    // Short path: the munge socket path must fit in sockaddr_un.
    dir_ = fs::path("/tmp") / ("tfhost-slurm-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "state");
    fs::create_directories(dir_ / "spool");
    fs::create_directories(dir_ / "log");
    fs::create_directories(dir_ / "work");
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    {
      std::ifstream rnd("/dev/urandom", std::ios::binary);
      std::string key(1024, '\0');
      rnd.read(key.data(), key.size());
      std::ofstream(dir_ / "munge.key", std::ios::binary) << key;
      fs::permissions(dir_ / "munge.key", fs::perms::owner_read | fs::perms::owner_write);
    }
    std::string d = dir_.string();
    std::string munged = "munged --force --key-file=" + d + "/munge.key --socket=" + d + "/munge.sock --pid-file=" + d +
                         "/munged.pid --log-file=" + d + "/log/munged.log --seed-file=" + d + "/munged.seed";
    if (std::system(munged.c_str()) != 0) return "munged did not start: " + ReadFile(dir_ / "log/munged.log");
    int ctld = FreePort(), slurmd_a = FreePort(), slurmd_b = FreePort(), srun_lo = FreePort();
    (void)srun_lo;
    // A node may not claim more CPUs than the machine has, or it is drained.
    int cpus = std::max(1u, std::thread::hardware_concurrency());
    std::ofstream conf(dir_ / "slurm.conf");
    conf << "ClusterName=tfhosttest\n"
         << "SlurmctldHost=" << hostname << "(127.0.0.1)\n"
         << "SlurmctldPort=" << ctld << "\n"
         << "AuthType=auth/munge\nAuthInfo=socket=" << d << "/munge.sock\nCredType=cred/munge\n"
         << "SlurmUser=root\nSlurmdUser=root\n"
         << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool/%n\n"
         << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd-%n.pid\n"
         << "SlurmctldLogFile=" << d << "/log/slurmctld.log\nSlurmdLogFile=" << d << "/log/slurmd-%n.log\n"
         << "ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
         << "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
         << "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
         << "MpiDefault=none\nReturnToService=2\nInactiveLimit=0\nKillWait=3\nSlurmdTimeout=60\n"
         // Invented node names (they need not resolve: launch uses NodeAddr).
         << "NodeName=tfhostn1 NodeHostname=tfhostn1 NodeAddr=127.0.0.1 Port=" << slurmd_a << " CPUs=" << cpus << " State=UNKNOWN\n"
         << "NodeName=tfhostn2 NodeHostname=tfhostn2 NodeAddr=127.0.0.2 Port=" << slurmd_b << " CPUs=" << cpus << " State=UNKNOWN\n"
         << "PartitionName=test Nodes=tfhostn[1-2] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE\n";
    conf.close();
    ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
    if (std::system(("slurmctld -i -f " + d + "/slurm.conf").c_str()) != 0) {
      return "slurmctld did not start: " + ReadFile(dir_ / "log/slurmctld.log");
    }
    for (const std::string& node : {std::string("tfhostn1"), std::string("tfhostn2")}) {
      if (std::system(("slurmd -f " + d + "/slurm.conf -N " + node).c_str()) != 0) {
        return "slurmd " + node + " did not start: " + ReadFile(dir_ / ("log/slurmd-" + node + ".log"));
      }
    }
    auto deadline = Clock::now() + std::chrono::seconds(40);
    while (Clock::now() < deadline) {
      Result r = Shell("sinfo -h -N -o %T", 10, dir_ / "sinfo.out");
      int idle = 0;
      std::istringstream lines(r.output);
      for (std::string l; std::getline(lines, l);) idle += l.rfind("idle", 0) == 0;
      if (idle == 2) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    std::string log = ReadFile(dir_ / "log/slurmctld.log");
    return "the two emulated nodes never became idle; slurmctld log ends: " +
           log.substr(log.size() > 1500 ? log.size() - 1500 : 0) + "\nslurmd log: " +
           ReadFile(dir_ / "log/slurmd-tfhostn1.log").substr(0, 1500);
  }

  static void StopCluster() {
    if (dir_.empty()) return;
    std::vector<fs::path> pid_files = {dir_ / "slurmd-tfhostn1.pid", dir_ / "slurmd-tfhostn2.pid",
                                       dir_ / "slurmctld.pid", dir_ / "munged.pid"};
    for (const fs::path& f : pid_files) {
      std::string text = ReadFile(f);
      if (text.empty()) continue;
      pid_t pid = std::atoi(text.c_str());
      if (pid <= 1) continue;
      ::kill(pid, SIGTERM);
      for (int i = 0; i < 60 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ::kill(pid, SIGKILL);
    }
    fs::remove_all(dir_);
    dir_.clear();
  }

  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    check_ = dir_ / "work" / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(check_);
    fs::create_directories(check_);
  }

  std::string Env() const { return "CHECK_DIR=" + check_.string() + " TFHOST=" + std::string(TFHOST_BINARY) + " "; }
  std::string Check(const std::string& extra = "") const {
    return " -- python3 " + kScriptDir + "/check_cluster.py --timeout 60 " + extra;
  }

  static inline std::string skip_reason_;
  static inline fs::path dir_;
  fs::path check_;
};

TEST_F(SlurmClusterTest, SrunTwoNodesFourTasksShareOneClusterAndReachEveryPeer) {
  Result r = Shell(Env() + "srun -N2 -n4 --overcommit --kill-on-bad-exit=1 " + TFHOST_BINARY +
                       " launch --engine slurm --slurm-address nodeaddr" + Check(),
                   120, check_ / "output");
  ASSERT_EQ(r.code, 0) << r.output;
  std::string cluster;
  std::set<int> indices;
  for (int i = 0; i < 4; ++i) {
    std::string text = ReadFile(check_ / ("worker-" + std::to_string(i) + ".json"));
    rapidjson::Document d;
    d.Parse(text.c_str());
    ASSERT_FALSE(d.HasParseError()) << "worker " << i << " wrote no report\n" << r.output;
    indices.insert(d["task"]["index"].GetInt());
    std::string c;
    for (const auto& a : d["cluster"]["worker"].GetArray()) c += std::string(a.GetString()) + ",";
    if (cluster.empty()) cluster = c;
    EXPECT_EQ(c, cluster);
    EXPECT_EQ(d["reached"].Size(), 3u);
  }
  EXPECT_EQ(indices.size(), 4u);
  // Two tasks per emulated node, each node with its own address.
  EXPECT_NE(cluster.find("127.0.0.1:"), std::string::npos) << cluster;
  EXPECT_NE(cluster.find("127.0.0.2:"), std::string::npos) << cluster;
}

TEST_F(SlurmClusterTest, LaunchersOnBothNodesAgreeOnTheNcclInterfaceThroughLauncherZerosStore) {
  // --dry-run plans (the exchange included) and prints each launcher's plan;
  // --tune-gpu asks for the NCCL settings on nodes that may have no GPU.
  Result r = Shell(Env() + "env -u NCCL_SOCKET_IFNAME srun -N2 -n4 --overcommit --kill-on-bad-exit=1 " +
                       TFHOST_BINARY + " launch --engine slurm --slurm-address nodeaddr --tune-gpu --dry-run -- true",
                   120, check_ / "output");
  ASSERT_EQ(r.code, 0) << r.output;
  size_t agreed = 0;
  for (size_t at = 0; (at = r.output.find("exchanged their NCCL interface candidates", at)) != std::string::npos; ++at) {
    ++agreed;
  }
  EXPECT_EQ(agreed, 4u) << r.output;  // every launcher, on both nodes
  EXPECT_EQ(r.output.find("not agreed with the other nodes"), std::string::npos) << r.output;
}

TEST_F(SlurmClusterTest, FailingTaskEndsTheStepWithinSeconds) {
  Result r = Shell(Env() + "srun -N2 -n4 --overcommit --kill-on-bad-exit=1 " + TFHOST_BINARY +
                       " launch --engine slurm --slurm-address nodeaddr" + Check("--fail-task worker:3 --code 3"),
                   120, check_ / "output");
  // srun exits with the highest status of its tasks: the stopped launchers
  // report 143 (SIGTERM from Slurm), the failing one 3, and srun names it.
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_LT(r.seconds, 30) << r.output;
  EXPECT_NE(r.output.find("worker:3 exited with status 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("task 3: Exited with exit code 3"), std::string::npos) << r.output;
}

TEST_F(SlurmClusterTest, EmittedSbatchScriptRunsTheJob) {
  fs::path script = check_ / "job.sbatch";
  Result emit = Shell(std::string(TFHOST_BINARY) + " launch --emit sbatch --output " + script.string() +
                          " --name tfhosttest --nodes 2 --workers 4 --slurm-address nodeaddr" + Check(),
                      30, check_ / "emit.out");
  ASSERT_EQ(emit.code, 0) << emit.output;
  Result r = Shell(Env() + "sbatch --wait --chdir=" + check_.string() + " " + script.string(), 180, check_ / "output");
  std::string job_out;
  for (const auto& e : fs::directory_iterator(check_)) {
    if (e.path().filename().string().rfind("tfhosttest-", 0) == 0) job_out = ReadFile(e.path());
  }
  ASSERT_EQ(r.code, 0) << r.output << "\n" << job_out;
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(fs::exists(check_ / ("worker-" + std::to_string(i) + ".json"))) << i << "\n" << job_out;
  }
  EXPECT_NE(job_out.find("[worker:0] OK worker:0 reached 3 peers"), std::string::npos) << job_out;
}

}  // namespace
