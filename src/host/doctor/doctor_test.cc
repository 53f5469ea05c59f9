// Every doctor rule, both ways: a healthy 8-GPU NVLink/InfiniBand server
// (hand-built facts) produces no finding; each case changes one fact or one
// environment variable and checks that exactly the intended rule fires - or,
// for the "ok" cases, that a nearby-but-valid value does not fire it. The
// recorded machines in src/host/testdata are checked end to end as well.
#include "host/doctor/doctor.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <set>

#include "base/test_status.h"
#include "host/doctor/tf_config.h"
#include "host/probe/probe.h"

namespace tfhost::host {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

DoctorInput Healthy() {
  DoctorInput in;
  HostFacts& f = in.facts;
  f.cpu.model_name = "Intel(R) Xeon(R) Platinum 8480+";
  f.cpu.sockets = 2;
  f.cpu.physical_cores = 112;
  f.cpu.logical_cpus = 224;
  f.cpu.governors = {"performance"};
  f.memory.total_bytes = 2048 * kGiB;
  f.memory.thp_enabled = "madvise";
  f.memory.thp_defrag = "madvise";
  f.memory.swappiness = 60;
  f.nvidia.nvml_loaded = true;
  f.nvidia.driver_version = "535.104.05";
  f.nvidia.cuda_driver_version = 12020;
  for (int i = 0; i < 8; ++i) {
    GpuFacts g;
    g.index = i;
    g.name = "NVIDIA H100 80GB HBM3";
    g.memory_total_bytes = 80 * kGiB;
    for (int l = 0; l < 18; ++l) g.nvlinks.push_back({l, true, 4, "", -1});  // NVSwitch
    f.nvidia.gpus.push_back(g);
  }
  RdmaDevice ib;
  ib.name = "mlx5_0";
  RdmaPort port;
  port.port = 1;
  port.state = "ACTIVE";
  port.link_layer = "InfiniBand";
  ib.ports.push_back(port);
  f.rdma.push_back(ib);
  NetInterface eth;
  eth.name = "ens1f0np0";
  eth.operstate = "up";
  eth.ipv4 = {"10.0.0.11"};
  NetInterface docker;
  docker.name = "docker0";
  docker.operstate = "up";
  docker.is_virtual = true;
  NetInterface lo;
  lo.name = "lo";
  lo.operstate = "unknown";
  lo.is_loopback = true;
  lo.ipv4 = {"127.0.0.1"};
  f.net = {eth, docker, lo};
  f.env.hostname = "gpu-node-1";
  f.limits = {kUnlimited, kUnlimited, 1048576, 1048576, true};
  f.libraries = {{"cudart", "12.2.140", "/usr/local/cuda/lib64/libcudart.so.12.2.140", "file name"},
                 {"cudnn", "8.9.7", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "file name"}};
  in.tensorflow_version = "2.15.0";
  return in;
}

// A RoCE host: GID 0/2 RoCE v1, 1/3 RoCE v2.
void MakeRoce(DoctorInput& in) {
  RdmaPort& p = in.facts.rdma[0].ports[0];
  p.link_layer = "Ethernet";
  p.gids = {{0, "fe80::1", "IB/RoCE v1", "ens1f0np0"},
            {1, "fe80::1", "RoCE v2", "ens1f0np0"},
            {2, "::ffff:10.0.0.11", "IB/RoCE v1", "ens1f0np0"},
            {3, "::ffff:10.0.0.11", "RoCE v2", "ens1f0np0"}};
}

const char kTwoHostConfig[] =
    R"({"cluster": {"worker": ["gpu-node-1:2222", "gpu-node-2:2222"]}, "task": {"type": "worker", "index": 0}})";

struct Case {
  const char* name;
  std::function<void(DoctorInput&)> change;
  const char* rule;
  bool fires;
  Severity severity = Severity::kWarning;
};

std::vector<Finding> Only(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& f : all) if (f.id == id) out.push_back(f);
  return out;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // host RAM >= 1.5x GPU memory
      {"RamBelowOneAndAHalfTimesGpuMemory", [](DoctorInput& in) { in.facts.memory.total_bytes = 900 * kGiB; },
       "host_ram_vs_gpu_memory", true, Severity::kWarning},
      {"RamBelowGpuMemoryIsAnError", [](DoctorInput& in) { in.facts.memory.total_bytes = 512 * kGiB; },
       "host_ram_vs_gpu_memory", true, Severity::kError},
      {"ContainerMemoryLimitCountsAsHostRam", [](DoctorInput& in) { in.facts.env.cgroup_memory_limit = 600 * kGiB; },
       "host_ram_vs_gpu_memory", true, Severity::kError},
      {"RamExactlyOneAndAHalfTimesIsFine", [](DoctorInput& in) { in.facts.memory.total_bytes = 960 * kGiB; },
       "host_ram_vs_gpu_memory", false},
      // CPU cores per GPU
      {"TwoCoresPerGpuForTraining", [](DoctorInput& in) { in.facts.cpu.physical_cores = 16; }, "cpu_cores_per_gpu",
       true},
      {"TwoCoresPerGpuIsEnoughForServing",
       [](DoctorInput& in) {
         in.facts.cpu.physical_cores = 16;
         in.purpose = Purpose::kServe;
       },
       "cpu_cores_per_gpu", false},
      {"ContainerCpuLimitCountsAsCores", [](DoctorInput& in) { in.facts.env.cgroup_cpu_limit = 8; },
       "cpu_cores_per_gpu", true},
      // NVLink for multi-GPU training
      {"PcieOnlyGpusForTraining",
       [](DoctorInput& in) {
         for (GpuFacts& g : in.facts.nvidia.gpus) g.nvlinks.clear();
       },
       "multi_gpu_without_nvlink", true},
      {"PcieOnlyGpusForServingIsFine",
       [](DoctorInput& in) {
         for (GpuFacts& g : in.facts.nvidia.gpus) g.nvlinks.clear();
         in.purpose = Purpose::kServe;
       },
       "multi_gpu_without_nvlink", false},
      {"TopologyMatrixWithAPcieOnlyPair",
       [](DoctorInput& in) {
         in.facts.nvidia.gpus.resize(2);
         in.facts.topology.labels = {"GPU0", "GPU1"};
         in.facts.topology.cells = {{"X", "SYS"}, {"SYS", "X"}};
       },
       "multi_gpu_without_nvlink", true},
      {"PeerToPeerNvLinkBridgeIsFine",
       [](DoctorInput& in) {
         in.facts.nvidia.gpus.resize(2);
         for (GpuFacts& g : in.facts.nvidia.gpus) g.nvlinks = {{0, true, 3, "", 1 - g.index}};
       },
       "multi_gpu_without_nvlink", false},
      // RDMA for multi-node
      {"TwoHostClusterWithoutRdma",
       [](DoctorInput& in) {
         in.facts.rdma.clear();
         in.env["TF_CONFIG"] = kTwoHostConfig;
       },
       "multi_node_without_rdma", true},
      {"TwoHostClusterWithDownRdmaPort",
       [](DoctorInput& in) {
         in.facts.rdma[0].ports[0].state = "DOWN";
         in.env["TF_CONFIG"] = kTwoHostConfig;
       },
       "multi_node_without_rdma", true},
      {"TwoHostClusterWithActiveInfiniBand", [](DoctorInput& in) { in.env["TF_CONFIG"] = kTwoHostConfig; },
       "multi_node_without_rdma", false},
      {"SingleHostClusterNeedsNoRdma",
       [](DoctorInput& in) {
         in.facts.rdma.clear();
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["localhost:2222", "localhost:2223"]},
                                  "task": {"type": "worker", "index": 1}})";
       },
       "multi_node_without_rdma", false},
      // driver vs CUDA runtime
      {"RuntimeNewerMinorUsesMinorVersionCompatibility",
       [](DoctorInput& in) { in.facts.libraries[0].version = "12.4.127"; }, "driver_too_old_for_cuda", true,
       Severity::kWarning},
      {"RuntimeNewerMajorCannotRun",
       [](DoctorInput& in) {
         in.facts.nvidia.driver_version = "470.82.01";
         in.facts.nvidia.cuda_driver_version = 11040;
       },
       "driver_too_old_for_cuda", true, Severity::kError},
      {"RuntimeOlderThanDriverIsFine", [](DoctorInput& in) { in.facts.libraries[0].version = "11.8.89"; },
       "driver_too_old_for_cuda", false},
      // TensorFlow tested builds
      {"CudaMajorDiffersFromTensorFlowsBuild", [](DoctorInput& in) { in.tensorflow_version = "2.13.1"; },
       "tf_cuda_mismatch", true, Severity::kError},
      {"CudaOlderMinorThanTensorFlowsBuild", [](DoctorInput& in) { in.tensorflow_version = "2.17.0"; },
       "tf_cuda_mismatch", true, Severity::kWarning},
      {"CudaMatchesTensorFlowsBuild", [](DoctorInput& in) { in.tensorflow_version = "2.15.1"; }, "tf_cuda_mismatch",
       false},
      {"CudnnMajorDiffersFromTensorFlowsBuild", [](DoctorInput& in) { in.tensorflow_version = "2.18.0"; },
       "tf_cudnn_mismatch", true, Severity::kError},
      {"CudnnOlderMinorThanTensorFlowsBuild", [](DoctorInput& in) { in.facts.libraries[1].version = "8.6.0"; },
       "tf_cudnn_mismatch", true, Severity::kError},
      {"CudnnNewerMinorIsFine",
       [](DoctorInput& in) {
         in.tensorflow_version = "2.14.0";
         in.facts.libraries[0].version = "11.8.89";
       },
       "tf_cudnn_mismatch", false},
      // TF_CONFIG
      {"TfConfigNotJson", [](DoctorInput& in) { in.env["TF_CONFIG"] = "{cluster: {worker: [a:1]}}"; },
       "tf_config_invalid_json", true, Severity::kError},
      {"TfConfigWrongTypes", [](DoctorInput& in) { in.env["TF_CONFIG"] = R"({"cluster": {"worker": "a:1"}})"; },
       "tf_config_invalid_json", true, Severity::kError},
      {"TfConfigValidJson", [](DoctorInput& in) { in.env["TF_CONFIG"] = kTwoHostConfig; }, "tf_config_invalid_json",
       false},
      {"TfConfigTaskIndexOutOfRange",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["gpu-node-1:2222"]}, "task": {"type": "worker", "index": 1}})";
       },
       "tf_config_inconsistent", true, Severity::kError},
      {"TfConfigTaskTypeNotInCluster",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["gpu-node-1:2222"]}, "task": {"type": "chief", "index": 0}})";
       },
       "tf_config_inconsistent", true, Severity::kError},
      {"TfConfigDuplicateAddress",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"chief": ["gpu-node-1:2222"], "worker": ["gpu-node-1:2222"]},
                                  "task": {"type": "chief", "index": 0}})";
       },
       "tf_config_inconsistent", true, Severity::kError},
      {"TfConfigEvaluatorNeedNotBeInCluster",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["gpu-node-2:2222"]}, "task": {"type": "evaluator", "index": 0}})";
       },
       "tf_config_inconsistent", false},
      {"TfConfigTwoChiefs",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"chief": ["gpu-node-1:2222", "gpu-node-2:2222"]},
                                  "task": {"type": "chief", "index": 0}})";
       },
       "tf_config_multiple_chiefs", true, Severity::kError},
      {"TfConfigOneChief",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"chief": ["gpu-node-1:2222"], "worker": ["gpu-node-2:2222"]},
                                  "task": {"type": "chief", "index": 0}})";
       },
       "tf_config_multiple_chiefs", false},
      {"PsWithMultiWorkerMirrored",
       [](DoctorInput& in) {
         in.strategy = "multi_worker_mirrored";
         in.env["TF_CONFIG"] = R"({"cluster": {"chief": ["gpu-node-1:2222"], "worker": ["gpu-node-2:2222"],
                                  "ps": ["gpu-node-3:2222"]}, "task": {"type": "chief", "index": 0}})";
       },
       "tf_config_ps_with_collective", true, Severity::kError},
      {"PsWithoutChiefFitsNoStrategy",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["gpu-node-1:2222"], "ps": ["gpu-node-3:2222"]},
                                  "task": {"type": "worker", "index": 0}})";
       },
       "tf_config_ps_with_collective", true, Severity::kWarning},
      {"PsWithParameterServerStrategy",
       [](DoctorInput& in) {
         in.strategy = "parameter_server";
         in.env["TF_CONFIG"] = R"({"cluster": {"chief": ["gpu-node-1:2222"], "worker": ["gpu-node-2:2222"],
                                  "ps": ["gpu-node-3:2222"]}, "task": {"type": "chief", "index": 0}})";
       },
       "tf_config_ps_with_collective", false},
      {"TaskAddressIsAnotherHost",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["gpu-node-1:2222", "gpu-node-2:2222"]},
                                  "task": {"type": "worker", "index": 1}})";
       },
       "tf_config_host_not_in_cluster", true, Severity::kError},
      {"TaskAddressIsThisHostsIp",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["10.0.0.11:2222", "10.0.0.12:2222"]},
                                  "task": {"type": "worker", "index": 0}})";
       },
       "tf_config_host_not_in_cluster", false},
      {"TaskAddressIsThisHostsFqdn",
       [](DoctorInput& in) {
         in.env["TF_CONFIG"] = R"({"cluster": {"worker": ["gpu-node-1.cluster.local:2222"]},
                                  "task": {"type": "worker", "index": 0}})";
       },
       "tf_config_host_not_in_cluster", false},
      // TF_XLA_FLAGS
      {"XlaFlagsUnknownFlag", [](DoctorInput& in) { in.env["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=2 --tf_xla_enable_foo"; },
       "tf_xla_flags_unknown", true, Severity::kError},
      {"XlaCompilerFlagInTfXlaFlags",
       [](DoctorInput& in) { in.env["TF_XLA_FLAGS"] = "--xla_gpu_enable_triton_gemm=false"; }, "tf_xla_flags_unknown",
       true, Severity::kError},
      {"XlaAutoJitBadValue", [](DoctorInput& in) { in.env["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=3"; },
       "tf_xla_flags_unknown", true, Severity::kError},
      {"XlaFlagsKnown",
       [](DoctorInput& in) {
         in.env["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=single-gpu(0) --tf_xla_cpu_global_jit --tf_xla_min_cluster_size=4";
       },
       "tf_xla_flags_unknown", false},
      // TF_CPP_MIN_LOG_LEVEL
      {"LogLevelThreeHidesErrors", [](DoctorInput& in) { in.env["TF_CPP_MIN_LOG_LEVEL"] = "3"; },
       "tf_cpp_min_log_level_hides_errors", true},
      {"LogLevelTwoKeepsErrors", [](DoctorInput& in) { in.env["TF_CPP_MIN_LOG_LEVEL"] = "2"; },
       "tf_cpp_min_log_level_hides_errors", false},
      // TF_FORCE_GPU_ALLOW_GROWTH / TF_GPU_ALLOCATOR
      {"AllowGrowthOneIsIgnored", [](DoctorInput& in) { in.env["TF_FORCE_GPU_ALLOW_GROWTH"] = "1"; },
       "tf_force_gpu_allow_growth_invalid", true, Severity::kError},
      {"AllowGrowthTrue", [](DoctorInput& in) { in.env["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"; },
       "tf_force_gpu_allow_growth_invalid", false},
      {"AllocatorUnknownValue", [](DoctorInput& in) { in.env["TF_GPU_ALLOCATOR"] = "cuda_async"; },
       "tf_gpu_allocator_invalid", true, Severity::kError},
      {"AllocatorDebugValue", [](DoctorInput& in) { in.env["TF_GPU_ALLOCATOR"] = "memory_guard"; },
       "tf_gpu_allocator_invalid", true, Severity::kWarning},
      {"AllocatorAsyncOnOldDriver",
       [](DoctorInput& in) {
         in.env["TF_GPU_ALLOCATOR"] = "cuda_malloc_async";
         in.facts.nvidia.cuda_driver_version = 11000;
       },
       "tf_gpu_allocator_invalid", true, Severity::kError},
      {"AllocatorAsync", [](DoctorInput& in) { in.env["TF_GPU_ALLOCATOR"] = "cuda_malloc_async"; },
       "tf_gpu_allocator_invalid", false},
      // NCCL_SOCKET_IFNAME
      {"SocketIfnameNoSuchInterface", [](DoctorInput& in) { in.env["NCCL_SOCKET_IFNAME"] = "eth"; },
       "nccl_socket_ifname_no_match", true, Severity::kError},
      {"SocketIfnameExactNeedsWholeName", [](DoctorInput& in) { in.env["NCCL_SOCKET_IFNAME"] = "=ens1f0"; },
       "nccl_socket_ifname_no_match", true, Severity::kError},
      {"SocketIfnameExcludesEverything", [](DoctorInput& in) { in.env["NCCL_SOCKET_IFNAME"] = "^ens,docker"; },
       "nccl_socket_ifname_no_match", true, Severity::kError},
      {"SocketIfnameOnlyDownInterface",
       [](DoctorInput& in) {
         in.facts.net[0].operstate = "down";
         in.env["NCCL_SOCKET_IFNAME"] = "ens";
       },
       "nccl_socket_ifname_no_match", true, Severity::kError},
      {"SocketIfnamePrefix", [](DoctorInput& in) { in.env["NCCL_SOCKET_IFNAME"] = "ens"; },
       "nccl_socket_ifname_no_match", false},
      {"SocketIfnameExact", [](DoctorInput& in) { in.env["NCCL_SOCKET_IFNAME"] = "=ens1f0np0"; },
       "nccl_socket_ifname_no_match", false},
      {"SocketIfnameExclusion", [](DoctorInput& in) { in.env["NCCL_SOCKET_IFNAME"] = "^docker,lo"; },
       "nccl_socket_ifname_no_match", false},
      // NCCL_IB_GID_INDEX
      {"GidIndexPointsAtRoceV1",
       [](DoctorInput& in) {
         MakeRoce(in);
         in.env["NCCL_IB_GID_INDEX"] = "2";
       },
       "nccl_ib_gid_index_not_roce_v2", true, Severity::kWarning},
      {"GidIndexMissing",
       [](DoctorInput& in) {
         MakeRoce(in);
         in.env["NCCL_IB_GID_INDEX"] = "7";
       },
       "nccl_ib_gid_index_not_roce_v2", true, Severity::kError},
      {"GidIndexNotANumber",
       [](DoctorInput& in) {
         MakeRoce(in);
         in.env["NCCL_IB_GID_INDEX"] = "v2";
       },
       "nccl_ib_gid_index_not_roce_v2", true, Severity::kError},
      {"GidIndexPointsAtRoceV2",
       [](DoctorInput& in) {
         MakeRoce(in);
         in.env["NCCL_IB_GID_INDEX"] = "3";
       },
       "nccl_ib_gid_index_not_roce_v2", false},
      // NCCL_ALGO / NCCL_PROTO
      {"AlgoUnknown", [](DoctorInput& in) { in.env["NCCL_ALGO"] = "Ring,Butterfly"; }, "nccl_algo_unknown", true,
       Severity::kError},
      {"AlgoKnownWithExclusionAndPerCollectiveSyntax",
       [](DoctorInput& in) { in.env["NCCL_ALGO"] = "allreduce:^nvls,tree;broadcast:ring"; }, "nccl_algo_unknown", false},
      {"ProtoUnknown", [](DoctorInput& in) { in.env["NCCL_PROTO"] = "LL256"; }, "nccl_proto_unknown", true,
       Severity::kError},
      {"ProtoKnown", [](DoctorInput& in) { in.env["NCCL_PROTO"] = "^LL128"; }, "nccl_proto_unknown", false},
      // dataset location
      {"DataOnNfs",
       [](DoctorInput& in) {
         in.data_path = "/mnt/ds/train";
         in.facts.paths = {{"/mnt/ds/train", {"/mnt/ds", "server:/export", "nfs4", true, 0, 0}, ""}};
       },
       "data_on_network_filesystem", true},
      {"DataOnLocalNvme",
       [](DoctorInput& in) {
         in.data_path = "/raid/train";
         in.facts.paths = {{"/raid/train", {"/raid", "/dev/md0", "ext4", false, 0, 0}, ""}};
       },
       "data_on_network_filesystem", false},
      {"DataPathMissing",
       [](DoctorInput& in) {
         in.data_path = "/nope";
         in.facts.paths = {{"/nope", {}, "path /nope does not exist"}};
       },
       "data_path_missing", true, Severity::kError},
      {"DataPathPresent",
       [](DoctorInput& in) {
         in.data_path = "/raid/train";
         in.facts.paths = {{"/raid/train", {"/raid", "/dev/md0", "ext4", false, 0, 0}, ""}};
       },
       "data_path_missing", false},
      // OS settings
      {"SwapWithDefaultSwappiness", [](DoctorInput& in) { in.facts.memory.swap_total_bytes = 8 * kGiB; },
       "swap_enabled", true},
      {"SwapWithSwappinessOne",
       [](DoctorInput& in) {
         in.facts.memory.swap_total_bytes = 8 * kGiB;
         in.facts.memory.swappiness = 1;
       },
       "swap_enabled", false},
      {"PowersaveGovernor", [](DoctorInput& in) { in.facts.cpu.governors = {"performance", "powersave"}; },
       "cpu_governor_not_performance", true},
      {"NoCpufreqIsFine", [](DoctorInput& in) { in.facts.cpu.governors.clear(); }, "cpu_governor_not_performance",
       false},
      {"ThpDefragAlways",
       [](DoctorInput& in) {
         in.facts.memory.thp_enabled = "always";
         in.facts.memory.thp_defrag = "always";
       },
       "thp_defrag_always", true},
      {"ThpAlwaysWithMadviseDefrag", [](DoctorInput& in) { in.facts.memory.thp_enabled = "always"; },
       "thp_defrag_always", false},
      {"MemlockLimitedWithRdma", [](DoctorInput& in) { in.facts.limits.memlock_soft = 8 << 20; },
       "memlock_limited_with_rdma", true, Severity::kError},
      {"MemlockLimitedWithoutRdma",
       [](DoctorInput& in) {
         in.facts.limits.memlock_soft = 8 << 20;
         in.facts.rdma.clear();
       },
       "memlock_limited_with_rdma", false},
      {"NofileAtDefault1024", [](DoctorInput& in) { in.facts.limits.nofile_soft = 1024; }, "nofile_limit_low", true},
      {"NofileAt65536", [](DoctorInput& in) { in.facts.limits.nofile_soft = 65536; }, "nofile_limit_low", false},
  };
  return cases;
}

class DoctorRuleTest : public ::testing::TestWithParam<size_t> {};

TEST_P(DoctorRuleTest, FiresOnlyWhenItShould) {
  const Case& c = Cases()[GetParam()];
  DoctorInput in = Healthy();
  c.change(in);
  std::vector<Finding> all = RunDoctor(in);
  std::vector<Finding> hits = Only(all, c.rule);
  if (!c.fires) {
    EXPECT_TRUE(hits.empty()) << c.rule << " fired: " << (hits.empty() ? "" : hits[0].evidence);
    return;
  }
  ASSERT_EQ(hits.size(), 1u) << FormatFindingsText(all);
  EXPECT_EQ(hits[0].severity, c.severity) << hits[0].evidence;
  EXPECT_FALSE(hits[0].evidence.empty());
  EXPECT_FALSE(hits[0].why.empty());
  EXPECT_FALSE(hits[0].fix.empty());
  // The case changes one thing: no unrelated rule fires (dependent pairs aside).
  for (const Finding& f : all) {
    if (f.id == c.rule) continue;
    static const std::set<std::pair<std::string, std::string>> kAllowed = {
        {"host_ram_vs_gpu_memory", "cpu_cores_per_gpu"},
        {"driver_too_old_for_cuda", "tf_gpu_allocator_invalid"},
        {"driver_too_old_for_cuda", "tf_cuda_mismatch"},
        {"tf_cudnn_mismatch", "tf_cuda_mismatch"}};
    EXPECT_TRUE(kAllowed.count({c.rule, f.id}) || kAllowed.count({f.id, c.rule}))
        << c.name << " also fired " << f.id << ": " << f.evidence;
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, DoctorRuleTest, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return Cases()[info.param].name; });

Finding OnlyFinding(const DoctorInput& in, const std::string& id) {
  std::vector<Finding> hits = Only(RunDoctor(in), id);
  EXPECT_EQ(hits.size(), 1u) << id;
  return hits.empty() ? Finding{} : hits[0];
}

TEST(DoctorTest, NofileFixBelowALowHardLimitSaysToRaiseTheHardLimitFirst) {
  DoctorInput in = Healthy();
  in.facts.limits.nofile_soft = 1024;
  in.facts.limits.nofile_hard = 20000;
  Finding f = OnlyFinding(in, "nofile_limit_low");
  EXPECT_EQ(f.evidence, "ulimit -n (nofile) is 1024 (hard 20000)");
  EXPECT_EQ(f.fix,
            "The hard limit (20000) is below 65536, so ulimit -n cannot get there. First raise the hard limit, as "
            "root: '* hard nofile 1048576' in /etc/security/limits.conf (takes effect at the next login), "
            "LimitNOFILE=1048576 for a systemd service, or --ulimit nofile=1048576:1048576 for docker run; then raise "
            "the soft limit up to it: ulimit -n 1048576. Until then, ulimit -n 20000 raises the soft limit to the "
            "current hard limit.");
  EXPECT_EQ(f.fix.find("ulimit -n 1048576 in the shell"), std::string::npos);
  in.facts.limits.nofile_soft = 20000;  // already at the hard limit: nothing to do without root
  EXPECT_EQ(OnlyFinding(in, "nofile_limit_low").fix.find("Until then"), std::string::npos);
}

TEST(DoctorTest, NofileFixFollowsTheMeasuredHardLimit) {
  DoctorInput in = Healthy();
  in.facts.limits.nofile_soft = 1024;  // hard 1048576
  EXPECT_EQ(OnlyFinding(in, "nofile_limit_low").fix,
            "ulimit -n 1048576 in the shell or job script that starts TensorFlow (the hard limit, 1048576, allows "
            "it); persist it with '* soft nofile 1048576' in /etc/security/limits.conf, LimitNOFILE=1048576 for a "
            "systemd service, --ulimit nofile=1048576 for docker run.");
  in.facts.limits.nofile_hard = 262144;
  EXPECT_EQ(OnlyFinding(in, "nofile_limit_low").fix,
            "ulimit -n 262144 in the shell or job script that starts TensorFlow: that is the hard limit, the most this "
            "user can set; persist it with '* soft nofile 262144' in /etc/security/limits.conf, LimitNOFILE=262144 "
            "for a systemd service. To go higher, root must raise the hard limit first ('* hard nofile 1048576').");
}

TEST(DoctorTest, MemlockFixSaysWhetherUlimitCanLiftItOrRootMust) {
  DoctorInput in = Healthy();
  in.facts.limits.memlock_soft = 8 << 20;  // hard unlimited
  Finding f = OnlyFinding(in, "memlock_limited_with_rdma");
  EXPECT_EQ(f.evidence, "ulimit -l (memlock) is 8388608 bytes (hard unlimited) with 1 RDMA device(s) present");
  EXPECT_EQ(f.fix.rfind("ulimit -l unlimited in the shell or job script", 0), 0u) << f.fix;
  in.facts.limits.memlock_hard = 8 << 20;
  EXPECT_EQ(OnlyFinding(in, "memlock_limited_with_rdma").fix,
            "The hard limit (8388608 bytes) keeps ulimit -l from lifting it: root must raise both limits to unlimited "
            "first: '* - memlock unlimited' in /etc/security/limits.conf, LimitMEMLOCK=infinity for systemd services, "
            "--ulimit memlock=-1 for docker run.");
}

TEST(DoctorTest, HealthyServerHasNoFindingsAndExitsZero) {
  std::vector<Finding> f = RunDoctor(Healthy());
  EXPECT_TRUE(f.empty()) << FormatFindingsText(f);
  EXPECT_EQ(DoctorExitStatus(f), 0);
  EXPECT_NE(FormatFindingsText(f).find("No problems found"), std::string::npos);
}

TEST(DoctorTest, EveryRuleHasATriggeringAndANonTriggeringCase) {
  std::set<std::string> fires, quiet;
  for (const Case& c : Cases()) (c.fires ? fires : quiet).insert(c.rule);
  for (const std::string& id : DoctorRuleIds()) {
    EXPECT_TRUE(fires.count(id)) << id << " has no case that triggers it";
    EXPECT_TRUE(quiet.count(id)) << id << " has no case that does not trigger it";
  }
  for (const Case& c : Cases()) {
    EXPECT_NE(std::find(DoctorRuleIds().begin(), DoctorRuleIds().end(), c.rule), DoctorRuleIds().end()) << c.rule;
  }
}

TEST(DoctorTest, ExitStatusIsTheWorstSeverity) {
  EXPECT_EQ(DoctorExitStatus({}), 0);
  EXPECT_EQ(DoctorExitStatus({{"a", Severity::kInfo, "", "", "", ""}}), 0);
  EXPECT_EQ(DoctorExitStatus({{"a", Severity::kInfo, "", "", "", ""}, {"b", Severity::kWarning, "", "", "", ""}}), 1);
  EXPECT_EQ(DoctorExitStatus({{"a", Severity::kError, "", "", "", ""}, {"b", Severity::kWarning, "", "", "", ""}}), 2);
}

TEST(DoctorTest, JsonListsFindingsWithSeverityAndStatus) {
  DoctorInput in = Healthy();
  in.env["TF_CPP_MIN_LOG_LEVEL"] = "3";
  std::string json = FormatFindingsJson(RunDoctor(in));
  EXPECT_NE(json.find("\"status\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"id\": \"tf_cpp_min_log_level_hides_errors\""), std::string::npos);
  EXPECT_NE(json.find("\"severity\": \"warning\""), std::string::npos);
}

std::string TestData(const std::string& name) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src ? src : ".") + "/src/host/testdata/" + name;
}

std::set<std::string> Ids(const std::vector<Finding>& f) {
  std::set<std::string> ids;
  for (const Finding& x : f) ids.insert(x.id);
  return ids;
}

TEST(DoctorRecordingTest, PcieWorkstationShowsItsKnownProblems) {
  ProbeOptions o;
  o.root = TestData("pcie_4gpu");
  o.library_dirs = {"/usr/local/cuda-11.8/lib64", "/usr/lib/x86_64-linux-gnu"};
  o.paths = {"/mnt/ds/train"};
  DoctorInput in;
  in.facts = ProbeHost(o);
  in.data_path = "/mnt/ds/train";
  in.tensorflow_version = "2.13.0";
  in.env["NCCL_IB_GID_INDEX"] = "0";
  std::vector<Finding> f = RunDoctor(in);
  std::set<std::string> ids = Ids(f);
  for (const char* want : {"host_ram_vs_gpu_memory", "multi_gpu_without_nvlink", "driver_too_old_for_cuda",
                           "data_on_network_filesystem", "swap_enabled", "cpu_governor_not_performance",
                           "thp_defrag_always", "memlock_limited_with_rdma", "nofile_limit_low",
                           "nccl_ib_gid_index_not_roce_v2"}) {
    EXPECT_TRUE(ids.count(want)) << want << "\n" << FormatFindingsText(f);
  }
  // CUDA 11.8 + cuDNN 8.6 is TensorFlow 2.13's tested build.
  EXPECT_FALSE(ids.count("tf_cuda_mismatch"));
  EXPECT_FALSE(ids.count("tf_cudnn_mismatch"));
  EXPECT_EQ(DoctorExitStatus(f), 2);
}

TEST(DoctorRecordingTest, DgxWithLocalDataIsClean) {
  ProbeOptions o;
  o.root = TestData("dgx_a100");
  o.paths = {"/raid/cache"};
  DoctorInput in;
  in.facts = ProbeHost(o);
  in.data_path = "/raid/cache";
  in.env["TF_CONFIG"] =
      R"({"cluster": {"worker": ["dgx-a100-01:2222", "dgx-a100-02:2222"]}, "task": {"type": "worker", "index": 0}})";
  in.env["NCCL_SOCKET_IFNAME"] = "enp225s0f0";
  std::vector<Finding> f = RunDoctor(in);
  EXPECT_TRUE(f.empty()) << FormatFindingsText(f);
}

TEST(DoctorRecordingTest, CpuOnlyHostSkipsGpuRules) {
  ProbeOptions o;
  o.root = TestData("cpu_only");
  DoctorInput in;
  in.facts = ProbeHost(o);
  for (const Finding& f : RunDoctor(in)) {
    EXPECT_NE(f.id, "host_ram_vs_gpu_memory");
    EXPECT_NE(f.id, "cpu_cores_per_gpu");
    EXPECT_NE(f.id, "multi_gpu_without_nvlink");
    EXPECT_NE(f.id, "driver_too_old_for_cuda");
  }
}

TEST(TfConfigTest, AddressesParse) {
  EXPECT_EQ(AddressHost("host:2222"), "host");
  EXPECT_EQ(AddressHost("[fe80::1]:2222"), "fe80::1");
  EXPECT_EQ(AddressHost("fe80::1"), "");
  EXPECT_EQ(AddressPort("host:2222"), 2222);
  EXPECT_EQ(AddressPort("host:0"), -1);
  EXPECT_EQ(AddressPort("host:99999"), -1);
  EXPECT_EQ(AddressPort("host"), -1);
  TFHOST_EXPECT_ERROR(ParseTfConfig("[]"), StatusCode::kInvalidArgument, "TF_CONFIG must be a JSON object");
  TFHOST_EXPECT_ERROR(ParseTfConfig(R"({"task": {"type": "worker", "index": "0"}})"), StatusCode::kInvalidArgument,
                      "TF_CONFIG.task.index must be an integer");
}

}  // namespace
}  // namespace tfhost::host
