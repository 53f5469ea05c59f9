#include "host/launch/launch_plan.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "base/test_status.h"
#include "host/launch/rendezvous.h"

namespace tfhost::host::launch {
namespace {

PlanHooks FakeHooks(const std::string& hostname = "thishost") {
  PlanHooks h;
  h.free_ports = [](int n) -> StatusOr<std::vector<int>> {
    std::vector<int> p;
    for (int i = 0; i < n; ++i) p.push_back(41000 + i);
    return p;
  };
  h.hostname = [hostname] { return hostname; };
  NetInterface eth;
  eth.name = "eth0";
  eth.operstate = "up";
  eth.speed_mbps = 10000;
  eth.ipv4 = {"10.1.1.1"};
  h.network.interfaces = {eth};
  return h;
}

std::string EnvValue(const PlannedTask& t, const std::string& name) {
  for (const std::string& kv : t.env.entries) {
    if (kv.compare(0, name.size() + 1, name + "=") == 0) return kv.substr(name.size() + 1);
  }
  return "<unset>";
}

LaunchOptions Options(Engine e) {
  LaunchOptions o;
  o.engine = e;
  o.command = {"python3", "train.py"};
  // Most tests plan one Slurm instance at a time, with no peers to exchange
  // interfaces with; the exchange has its own tests below.
  o.slurm_exchange_timeout = 0;
  return o;
}

TEST(LaunchPlanTest, LocalRunsEveryTaskWithProbedPortsAndTuning) {
  LaunchOptions o = Options(Engine::kLocal);
  o.workers = 3;
  auto plan = PlanLaunch(o, {{"PATH", "/bin"}}, FakeHooks());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->tasks.size(), 3u);
  EXPECT_EQ(ClusterJson(plan->cluster), R"({"worker":["localhost:41000","localhost:41001","localhost:41002"]})");
  EXPECT_EQ(EnvValue(plan->tasks[2], "TF_CONFIG"),
            R"({"cluster":{"worker":["localhost:41000","localhost:41001","localhost:41002"]},"task":{"type":"worker","index":2}})");
  EXPECT_EQ(EnvValue(plan->tasks[0], "NCCL_SOCKET_IFNAME"), "eth0");
  EXPECT_EQ(EnvValue(plan->tasks[0], "TFHOST_TASK_INDEX"), "0");
  EXPECT_EQ(plan->tasks[1].argv, o.command);
  std::string text = FormatPlan(*plan);
  EXPECT_NE(text.find("[worker:1] localhost:41001"), std::string::npos) << text;
  EXPECT_NE(text.find("env TF_GPU_ALLOCATOR=cuda_malloc_async"), std::string::npos) << text;
}

TEST(LaunchPlanTest, LocalPortBaseAndPsStrategyAndGpuSlots) {
  LaunchOptions o = Options(Engine::kLocal);
  o.strategy = Strategy::kParameterServer;
  o.workers = 2;
  o.port_base = 5000;
  o.gpus_per_task = 2;
  auto plan = PlanLaunch(o, {}, FakeHooks());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(ClusterJson(plan->cluster),
            R"({"chief":["localhost:5000"],"worker":["localhost:5001","localhost:5002"],"ps":["localhost:5003"]})");
  ASSERT_EQ(plan->tasks.size(), 4u);
  EXPECT_TRUE(plan->tasks[0].completes_job);   // chief
  EXPECT_FALSE(plan->tasks[1].completes_job);  // worker
  EXPECT_FALSE(plan->tasks[3].completes_job);  // ps
  EXPECT_EQ(EnvValue(plan->tasks[0], "CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(EnvValue(plan->tasks[2], "CUDA_VISIBLE_DEVICES"), "4,5");
  EXPECT_EQ(EnvValue(plan->tasks[3], "CUDA_VISIBLE_DEVICES"), "");
}

TEST(LaunchPlanTest, MirroredSetsNoTfConfig) {
  LaunchOptions o = Options(Engine::kLocal);
  o.strategy = Strategy::kMirrored;
  auto plan = PlanLaunch(o, {}, FakeHooks());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->tasks.size(), 1u);
  EXPECT_EQ(EnvValue(plan->tasks[0], "TF_CONFIG"), "<unset>");
}

std::map<std::string, std::string> SlurmEnv(int procid, int nodeid) {
  return {{"SLURM_JOB_ID", "4242"},         {"SLURM_STEP_ID", "0"},
          {"SLURM_JOB_NODELIST", "gpu[07-08]"}, {"SLURM_NTASKS", "4"},
          {"SLURM_TASKS_PER_NODE", "2(x2)"},  {"SLURM_PROCID", std::to_string(procid)},
          {"SLURM_NODEID", std::to_string(nodeid)}, {"SLURM_LOCALID", std::to_string(procid % 2)}};
}

TEST(LaunchPlanTest, SlurmInstancesAgreeOnOneClusterWithoutTalking) {
  LaunchOptions o = Options(Engine::kSlurm);
  std::string cluster;
  for (int procid = 0; procid < 4; ++procid) {
    auto plan = PlanLaunch(o, SlurmEnv(procid, procid / 2), FakeHooks());
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_EQ(plan->tasks.size(), 1u);
    EXPECT_EQ(plan->tasks[0].id.index, procid);
    EXPECT_EQ(plan->tasks[0].host, procid < 2 ? "gpu07" : "gpu08");
    if (procid == 0) cluster = ClusterJson(plan->cluster);
    EXPECT_EQ(ClusterJson(plan->cluster), cluster);
  }
  auto p0 = PlanLaunch(o, SlurmEnv(0, 0), FakeHooks());
  int base = p0->cluster.tasks[0].port;
  EXPECT_EQ(p0->cluster.tasks[1].port, base + 1);
  EXPECT_EQ(p0->cluster.tasks[2].port, base);  // first slot on the second node
  EXPECT_EQ(p0->cluster.tasks[2].host, "gpu08");
}

TEST(LaunchPlanTest, SlurmSeveralTasksPerInstanceAndPortFlag) {
  LaunchOptions o = Options(Engine::kSlurm);
  o.workers = 8;
  o.port_base = 30000;
  auto plan = PlanLaunch(o, SlurmEnv(3, 1), FakeHooks());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->tasks.size(), 2u);
  EXPECT_EQ(plan->tasks[0].id.index, 6);
  EXPECT_EQ(plan->tasks[0].host, "gpu08");
  EXPECT_EQ(plan->tasks[0].port, 30002);
  EXPECT_EQ(plan->tasks[1].port, 30003);
  o.workers = 6;  // 6 tasks over 4 instances
  TFHOST_EXPECT_ERROR(
      PlanLaunch(o, SlurmEnv(3, 1), FakeHooks()), StatusCode::kInvalidArgument,
      "a cluster of 6 tasks cannot be split evenly over 4 launcher instances; choose --workers so that it can");
}

TEST(LaunchPlanTest, SlurmNodeAddrComesFromScontrol) {
  LaunchOptions o = Options(Engine::kSlurm);
  o.slurm_use_nodeaddr = true;
  PlanHooks h = FakeHooks();
  std::vector<std::string> asked;
  h.run_command = [&asked](const std::vector<std::string>& argv) -> StatusOr<std::string> {
    asked = argv;
    return std::string(
        "NodeName=gpu07 Arch=x86_64 CoresPerSocket=1 NodeAddr=10.0.0.7 NodeHostName=gpu07 Version=22.05.8\n"
        "NodeName=gpu08 Arch=x86_64 CoresPerSocket=1 NodeAddr=10.0.0.8 NodeHostName=gpu08 Version=22.05.8\n");
  };
  auto plan = PlanLaunch(o, SlurmEnv(2, 1), h);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(asked, std::vector<std::string>({"scontrol", "show", "node", "-o", "gpu07,gpu08"}));
  EXPECT_EQ(plan->cluster.tasks[1].host, "10.0.0.7");
  EXPECT_EQ(plan->tasks[0].host, "10.0.0.8");
  h.run_command = [](const std::vector<std::string>&) -> StatusOr<std::string> { return std::string("NodeName=gpu07 NodeAddr=x\n"); };
  TFHOST_EXPECT_ERROR(PlanLaunch(o, SlurmEnv(2, 1), h), StatusCode::kFailedPrecondition,
                      "scontrol did not report a NodeAddr for node 'gpu08'");
}

TEST(LaunchPlanTest, SlurmErrorsSayWhatIsMissingOrInconsistent) {
  LaunchOptions o = Options(Engine::kSlurm);
  auto none = PlanLaunch(o, {}, FakeHooks());
  TFHOST_ASSERT_ERROR(
      none, StatusCode::kFailedPrecondition,
      "the number of srun tasks is unknown: none of SLURM_STEP_NUM_TASKS, SLURM_NTASKS, SLURM_NPROCS is set");
  EXPECT_NE(none.status().message().find("srun"), std::string::npos);
  auto batch = SlurmEnv(0, 0);  // the batch script: SLURM_PROCID=0 but no step
  batch.erase("SLURM_STEP_ID");
  auto in_batch = PlanLaunch(o, batch, FakeHooks());
  TFHOST_ASSERT_ERROR(in_batch, StatusCode::kFailedPrecondition,
                      "not inside an srun job step (SLURM_STEP_ID is unset; this looks like the batch script itself): "
                      "start one launcher per task with `srun");
  EXPECT_NE(in_batch.status().message().find("srun tfhost launch"), std::string::npos) << in_batch.status().message();
  auto env = SlurmEnv(2, 0);  // cyclic distribution would put rank 2 on node 0
  auto cyc = PlanLaunch(o, env, FakeHooks());
  TFHOST_ASSERT_ERROR(cyc, StatusCode::kFailedPrecondition,
                      "SLURM_PROCID 2 runs on node 0, but block distribution puts it on node 1; launch needs srun's "
                      "default block distribution");
  EXPECT_NE(cyc.status().message().find("block"), std::string::npos);
  env = SlurmEnv(0, 0);
  env["SLURM_JOB_NODELIST"] = "gpu[07-";
  TFHOST_EXPECT_ERROR(PlanLaunch(o, env, FakeHooks()), StatusCode::kInvalidArgument,
                      "expanding hostlist 'gpu[07-': hostlist entry 'gpu[07-': '[' is never closed");
  env = SlurmEnv(0, 0);
  env["SLURM_PROCID"] = "x";
  TFHOST_EXPECT_ERROR(PlanLaunch(o, env, FakeHooks()), StatusCode::kInvalidArgument,
                      "SLURM_PROCID='x' is not a number");
}

TEST(LaunchPlanTest, MpiRanksMeetInTheRendezvousDirectory) {
  std::string dir = ::testing::TempDir() + "/rdv_" + std::to_string(::getpid());
  LaunchOptions o = Options(Engine::kMpi);
  o.rendezvous_dir = dir;
  o.rendezvous_timeout = 20;
  std::vector<StatusOr<LaunchPlan>> plans(3, StatusOr<LaunchPlan>(Internal("not run")));
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      std::map<std::string, std::string> env = {{"OMPI_COMM_WORLD_RANK", std::to_string(r)},
                                                {"OMPI_COMM_WORLD_SIZE", "3"},
                                                {"OMPI_MCA_ess_base_jobid", "777"}};
      PlanHooks h = FakeHooks("host" + std::to_string(r));
      h.free_ports = [r](int n) -> StatusOr<std::vector<int>> { return std::vector<int>{50000 + r}; };
      plans[r] = PlanLaunch(o, env, h);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(plans[r].ok()) << plans[r].status().ToString();
    EXPECT_EQ(ClusterJson(plans[r]->cluster), R"({"worker":["host0:50000","host1:50001","host2:50002"]})");
    ASSERT_EQ(plans[r]->tasks.size(), 1u);
    EXPECT_EQ(plans[r]->tasks[0].id.index, r);
  }
  CleanupRendezvous(plans[0]->rendezvous_dir, 3, 5);
  EXPECT_FALSE(std::filesystem::exists(plans[0]->rendezvous_dir));
  std::filesystem::remove_all(dir);
}

TEST(LaunchPlanTest, MpiRanksOnHostsWithDifferentInterfacesAgreeOnOneTheyAllHave) {
  std::string dir = ::testing::TempDir() + "/rdv_if_" + std::to_string(::getpid());
  LaunchOptions o = Options(Engine::kMpi);
  o.rendezvous_dir = dir;
  o.rendezvous_timeout = 20;
  auto nic = [](const std::string& name, int64_t speed) {
    NetInterface n;
    n.name = name;
    n.operstate = "up";
    n.speed_mbps = speed;
    n.ipv4 = {"10.0.0.1"};
    return n;
  };
  // Alone, host0 and host2 would pick eth0 (fastest there) and host1 eth1:
  // only ib0 exists on all three.
  std::vector<std::vector<NetInterface>> nics = {{nic("eth0", 100000), nic("ib0", 56000)},
                                                 {nic("eth1", 100000), nic("ib0", 56000)},
                                                 {nic("eth0", 100000), nic("ib0", 56000)}};
  std::vector<StatusOr<LaunchPlan>> plans(3, StatusOr<LaunchPlan>(Internal("not run")));
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      std::map<std::string, std::string> env = {{"OMPI_COMM_WORLD_RANK", std::to_string(r)},
                                                {"OMPI_COMM_WORLD_SIZE", "3"},
                                                {"OMPI_MCA_ess_base_jobid", "778"}};
      PlanHooks h = FakeHooks("host" + std::to_string(r));
      h.network.interfaces = nics[r];
      h.free_ports = [r](int n) -> StatusOr<std::vector<int>> { return std::vector<int>{50000 + r}; };
      plans[r] = PlanLaunch(o, env, h);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(plans[r].ok()) << plans[r].status().ToString();
    ASSERT_EQ(plans[r]->tasks.size(), 1u);
    EXPECT_EQ(EnvValue(plans[r]->tasks[0], "NCCL_SOCKET_IFNAME"), "ib0") << "rank " << r;
  }
  CleanupRendezvous(plans[0]->rendezvous_dir, 3, 5);
  std::filesystem::remove_all(dir);
}

NetInterface Nic(const std::string& name, int64_t speed) {
  NetInterface n;
  n.name = name;
  n.operstate = "up";
  n.speed_mbps = speed;
  n.ipv4 = {"10.0.0.1"};
  return n;
}

// Slurm launchers of one step, each a thread with its own node's interfaces,
// node i reachable at 127.0.0.i (NodeAddr from a fake scontrol; all of
// 127/8 is loopback), the store's port (just above the task ports) free.
class SlurmExchangeTest : public ::testing::Test {
 protected:
  // Nodes gpu01..gpuNN with tasks_per_node launchers each.
  std::map<std::string, std::string> Env(int procid, int node, int nodes, const std::string& tasks_per_node, int ntasks) {
    return {{"SLURM_JOB_ID", "977"},
            {"SLURM_STEP_ID", "0"},
            {"SLURM_JOB_NODELIST", "gpu[01-0" + std::to_string(nodes) + "]"},
            {"SLURM_NTASKS", std::to_string(ntasks)},
            {"SLURM_TASKS_PER_NODE", tasks_per_node},
            {"SLURM_PROCID", std::to_string(procid)},
            {"SLURM_NODEID", std::to_string(node)}};
  }
  LaunchOptions Opts(int instances, double timeout) {
    LaunchOptions o = Options(Engine::kSlurm);
    o.slurm_use_nodeaddr = true;
    o.slurm_exchange_timeout = timeout;
    auto free = ProbeFreePorts(1);
    EXPECT_TRUE(free.ok());
    o.port_base = (*free)[0] - instances;  // store port = base + instances tasks
    return o;
  }
  PlanHooks Hooks(const std::vector<NetInterface>& nics) {
    PlanHooks h = FakeHooks();
    h.network.interfaces = nics;
    h.run_command = [](const std::vector<std::string>&) -> StatusOr<std::string> {
      return std::string("NodeName=gpu01 NodeAddr=127.0.0.1\nNodeName=gpu02 NodeAddr=127.0.0.2\n"
                         "NodeName=gpu03 NodeAddr=127.0.0.3\n");
    };
    return h;
  }
  // Runs launchers `procids` (node of each in `node_of`) concurrently.
  std::vector<StatusOr<LaunchPlan>> RunLaunchers(const LaunchOptions& o, const std::vector<int>& procids,
                                                 const std::vector<int>& node_of, int nodes, const std::string& tpn,
                                                 int ntasks, const std::vector<std::vector<NetInterface>>& nics) {
    std::vector<StatusOr<LaunchPlan>> plans(procids.size(), StatusOr<LaunchPlan>(Internal("not run")));
    std::vector<std::thread> threads;
    for (size_t i = 0; i < procids.size(); ++i) {
      threads.emplace_back([&, i] {
        int node = node_of[procids[i]];
        plans[i] = PlanLaunch(o, Env(procids[i], node, nodes, tpn, ntasks), Hooks(nics[node]));
      });
    }
    for (auto& t : threads) t.join();
    return plans;
  }
};

TEST_F(SlurmExchangeTest, NodesWithDifferentInterfacesAgreeOnTheFastestOneTheyAllHave) {
  // Alone, gpu01 and gpu03 would pick eth0 and gpu02 eth1: only ib0 is on all three.
  std::vector<std::vector<NetInterface>> nics = {{Nic("eth0", 100000), Nic("ib0", 56000)},
                                                 {Nic("eth1", 100000), Nic("ib0", 56000), Nic("ib1", 25000)},
                                                 {Nic("eth0", 100000), Nic("ib0", 40000), Nic("ib1", 100000)}};
  LaunchOptions o = Opts(4, 20);
  auto plans = RunLaunchers(o, {0, 1, 2, 3}, {0, 0, 1, 2}, 3, "2,1(x2)", 4, nics);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(plans[i].ok()) << i << ": " << plans[i].status().ToString();
    ASSERT_EQ(plans[i]->tasks.size(), 1u);
    // ib1 is faster on gpu03 but missing on gpu01: ib0, whose slowest host has 40000.
    EXPECT_EQ(EnvValue(plans[i]->tasks[0], "NCCL_SOCKET_IFNAME"), "ib0") << "launcher " << i;
    EXPECT_TRUE(plans[i]->tasks[0].env.warnings.empty());
  }
  EXPECT_NE(FormatPlan(*plans[2]).find("exchanged their NCCL interface candidates"), std::string::npos);
}

TEST_F(SlurmExchangeTest, NodesSharingNoInterfaceNameLeaveItUnset) {
  std::vector<std::vector<NetInterface>> nics = {{Nic("eth0", 100000)}, {Nic("enp1s0", 100000)}};
  LaunchOptions o = Opts(2, 20);
  auto plans = RunLaunchers(o, {0, 1}, {0, 1}, 2, "1(x2)", 2, nics);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(plans[i].ok()) << plans[i].status().ToString();
    EXPECT_EQ(EnvValue(plans[i]->tasks[0], "NCCL_SOCKET_IFNAME"), "<unset>") << "launcher " << i;
  }
}

TEST_F(SlurmExchangeTest, WithoutLauncherZeroEachNodeFallsBackToItsOwnPickWithAWarning) {
  std::vector<std::vector<NetInterface>> nics = {{Nic("eth0", 100000)}, {Nic("eth1", 100000), Nic("eth0", 1000)}};
  LaunchOptions o = Opts(2, 0.5);
  auto start = std::chrono::steady_clock::now();
  auto plans = RunLaunchers(o, {1}, {0, 1}, 2, "1(x2)", 2, nics);  // launcher 0 never starts
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(plans[0].ok()) << plans[0].status().ToString();
  EXPECT_EQ(EnvValue(plans[0]->tasks[0], "NCCL_SOCKET_IFNAME"), "eth1");
  ASSERT_EQ(plans[0]->tasks[0].env.warnings.size(), 1u);
  EXPECT_NE(plans[0]->tasks[0].env.warnings[0].find("not agreed with the other nodes"), std::string::npos)
      << plans[0]->tasks[0].env.warnings[0];
  EXPECT_LT(waited, 10.0);
}

TEST_F(SlurmExchangeTest, UserChosenInterfaceSkipsTheExchange) {
  std::vector<std::vector<NetInterface>> nics = {{Nic("eth0", 100000)}, {Nic("eth1", 100000)}};
  LaunchOptions o = Opts(2, 30);
  auto env = Env(1, 1, 2, "1(x2)", 2);
  env["NCCL_SOCKET_IFNAME"] = "bond0";
  auto start = std::chrono::steady_clock::now();
  auto plan = PlanLaunch(o, env, Hooks(nics[1]));  // alone: an exchange would wait 30 s
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(EnvValue(plan->tasks[0], "NCCL_SOCKET_IFNAME"), "bond0");
  EXPECT_TRUE(plan->tasks[0].env.warnings.empty());
  EXPECT_LT(waited, 5.0);
}

TEST(LaunchPlanTest, VirtualMachineGpusWithoutNvlinkGetTheP2pHintUnlessTheUserSetOne) {
  PlanHooks h = FakeHooks();
  h.gpu_peers.gpus = {"GPU0", "GPU1"};
  h.gpu_peers.links = {{"X", "PHB"}, {"PHB", "X"}};
  h.gpu_peers.virtualization = "kvm";
  LaunchOptions o = Options(Engine::kLocal);
  o.workers = 2;
  auto plan = PlanLaunch(o, {}, h);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(EnvValue(plan->tasks[0], "NCCL_P2P_LEVEL"), "NVL");
  auto mine = PlanLaunch(o, {{"NCCL_P2P_LEVEL", "SYS"}}, h);
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(EnvValue(mine->tasks[0], "NCCL_P2P_LEVEL"), "SYS");
  o.tuning.tune = false;
  auto untuned = PlanLaunch(o, {}, h);
  ASSERT_TRUE(untuned.ok());
  EXPECT_EQ(EnvValue(untuned->tasks[0], "NCCL_P2P_LEVEL"), "<unset>");
}

TEST(LaunchPlanTest, HostWithoutGpusGetsNoGpuTuningUnlessRequested) {
  PlanHooks h = FakeHooks();
  h.gpus = 0;
  for (Engine e : {Engine::kLocal, Engine::kSlurm}) {
    LaunchOptions o = Options(e);
    o.workers = 1;
    std::map<std::string, std::string> env = {{"SLURM_JOB_NODELIST", "gpu01"}, {"SLURM_STEP_ID", "0"},
                                              {"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}};
    auto plan = PlanLaunch(o, env, h);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    for (const char* name : {"NCCL_SOCKET_IFNAME", "TF_GPU_ALLOCATOR", "TF_GPU_THREAD_MODE", "TF_FORCE_GPU_ALLOW_GROWTH"}) {
      EXPECT_EQ(EnvValue(plan->tasks[0], name), "<unset>") << EngineName(e) << " " << name;
    }
    std::string text = FormatPlan(*plan);
    EXPECT_EQ(text.find("NCCL_SOCKET_IFNAME=eth0"), std::string::npos) << "no note may claim it is set:\n" << text;
    o.tuning.gpu_requested = true;
    auto asked = PlanLaunch(o, env, h);
    ASSERT_TRUE(asked.ok()) << asked.status().ToString();
    EXPECT_EQ(EnvValue(asked->tasks[0], "NCCL_SOCKET_IFNAME"), "eth0") << EngineName(e);
    EXPECT_EQ(EnvValue(asked->tasks[0], "TF_GPU_ALLOCATOR"), "cuda_malloc_async") << EngineName(e);
  }
}

TEST(LaunchPlanTest, SshSetsGpuTuningForRemoteHostsOnlyWhenRequested) {
  LaunchOptions o = Options(Engine::kSsh);
  o.hosts = {"n1"};
  PlanHooks h = FakeHooks();
  h.gpus = 8;  // this host's GPUs say nothing about n1's
  auto plan = PlanLaunch(o, {}, h);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->tasks[0].argv.back().find("TF_GPU_ALLOCATOR"), std::string::npos) << plan->tasks[0].argv.back();
  EXPECT_NE(FormatPlan(*plan).find("note: ssh: the remote hosts' GPUs are not known here, so no TF_GPU_* variables "
                                   "are set; --tune-gpu sets them\n"),
            std::string::npos);
  o.tuning.gpu_requested = true;
  auto asked = PlanLaunch(o, {}, h);
  ASSERT_TRUE(asked.ok());
  EXPECT_NE(asked->tasks[0].argv.back().find("TF_GPU_ALLOCATOR=cuda_malloc_async"), std::string::npos);
  EXPECT_EQ(asked->tasks[0].argv.back().find("NCCL_SOCKET_IFNAME"), std::string::npos);
}

TEST(LaunchPlanTest, MpiRendezvousTimesOutNamingMissingRanks) {
  std::string dir = ::testing::TempDir() + "/rdv_to_" + std::to_string(::getpid());
  LaunchOptions o = Options(Engine::kMpi);
  o.rendezvous_dir = dir;
  o.rendezvous_timeout = 0.3;
  auto plan = PlanLaunch(o, {{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}, FakeHooks());
  TFHOST_ASSERT_ERROR(plan, StatusCode::kDeadlineExceeded,
                      "instances 1 did not appear within 0 s (is the directory shared by every node? use --rendezvous "
                      "DIR on a shared filesystem)");
  EXPECT_NE(plan.status().message().find("instances 1"), std::string::npos) << plan.status().message();
  std::filesystem::remove_all(dir);
}

TEST(LaunchPlanTest, SshWrapsTheCommandAndQuotesTheEnvironment) {
  LaunchOptions o = Options(Engine::kSsh);
  o.hosts = {"n1", "n2"};
  o.workers = 4;
  o.command = {"python3", "train.py", "--note", "it's"};
  auto plan = PlanLaunch(o, {{"PATH", "/bin"}}, FakeHooks());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->tasks.size(), 4u);
  const PlannedTask& t = plan->tasks[3];
  EXPECT_EQ(t.host, "n2");
  EXPECT_EQ(t.port, 20001);
  ASSERT_GE(t.argv.size(), 3u);
  EXPECT_EQ(t.argv[0], "ssh");
  EXPECT_EQ(t.argv[t.argv.size() - 2], "n2");
  const std::string& remote = t.argv.back();
  EXPECT_EQ(remote.rfind("env ", 0), 0u) << remote;
  EXPECT_NE(remote.find(R"('TF_CONFIG={"cluster":{"worker":["n1:20000","n1:20001","n2:20000","n2:20001"]},"task":{"type":"worker","index":3}}')"),
            std::string::npos)
      << remote;
  EXPECT_NE(remote.find(R"(python3 train.py --note 'it'\''s')"), std::string::npos) << remote;
  EXPECT_EQ(remote.find("NCCL_SOCKET_IFNAME"), std::string::npos);  // not guessed for remote hosts
}

TEST(LaunchPlanTest, DetectEngineFromEnvironment) {
  EXPECT_EQ(DetectEngine({}), Engine::kLocal);
  EXPECT_EQ(DetectEngine({{"OMPI_COMM_WORLD_RANK", "0"}}), Engine::kMpi);
  EXPECT_EQ(DetectEngine({{"SLURM_PROCID", "0"}, {"SLURM_STEP_ID", "1"}}), Engine::kSlurm);
  EXPECT_EQ(DetectEngine({{"SLURM_PROCID", "0"}}), Engine::kLocal);  // batch script, not a step
}

TEST(LaunchPlanTest, ProbedFreePortsAreDistinct) {
  auto ports = ProbeFreePorts(8);
  ASSERT_TRUE(ports.ok());
  std::set<int> unique(ports->begin(), ports->end());
  EXPECT_EQ(unique.size(), 8u);
}

}  // namespace
}  // namespace tfhost::host::launch
