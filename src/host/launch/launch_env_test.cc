#include "host/launch/launch_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/test_status.h"
#include "host/probe/nvml.h"

namespace tfhost::host::launch {
namespace {

namespace fs = std::filesystem;

NetInterface Iface(const std::string& name, int64_t speed, const std::string& state, bool has_ip,
                   bool loopback = false) {
  NetInterface n;
  n.name = name;
  n.speed_mbps = speed;
  n.operstate = state;
  n.is_loopback = loopback;
  if (has_ip) n.ipv4.push_back("10.0.0.1");
  return n;
}

RdmaPort RocePort(int port, const std::string& state) {
  RdmaPort p;
  p.port = port;
  p.state = state;
  p.link_layer = "Ethernet";
  p.gids = {{0, "fe80:0000:0000:0000:0a00:00ff:fe00:0001", "IB/RoCE v1", "ens1"},
            {1, "fe80:0000:0000:0000:0a00:00ff:fe00:0001", "RoCE v2", "ens1"},
            {2, "0000:0000:0000:0000:0000:ffff:0a00:0001", "IB/RoCE v1", "ens1"},
            {3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "ens1"}};
  return p;
}

TEST(ChooseNetworkTest, FastestUpInterfaceWithAddressWins) {
  NetworkFacts f;
  f.interfaces = {Iface("lo", -1, "unknown", true, true), Iface("eno1", 1000, "up", true),
                  Iface("ens1f0", 100000, "up", true), Iface("ens2f0", 200000, "down", true),
                  Iface("ens3", 400000, "up", false), Iface("docker0", 1000000, "up", true)};
  NetworkChoice c = ChooseNetwork(f);
  EXPECT_EQ(c.socket_ifname, "ens1f0");
  EXPECT_TRUE(c.ib_hca.empty());
  EXPECT_EQ(c.gid_index, -1);
}

TEST(ChooseNetworkTest, OnlyLoopbackMeansNoSocketInterface) {
  NetworkFacts f;
  f.interfaces = {Iface("lo", -1, "unknown", true, true)};
  EXPECT_EQ(ChooseNetwork(f).socket_ifname, "");
}

TEST(ChooseNetworkTest, RoceGetsActiveHcasAndTheIpv4MappedRoceV2Gid) {
  NetworkFacts f;
  f.interfaces = {Iface("ens1", 100000, "up", true)};
  RdmaDevice a{"mlx5_0", "", -1, {"ens1"}, {RocePort(1, "ACTIVE")}};
  RdmaDevice b{"mlx5_1", "", -1, {"ens2"}, {RocePort(1, "DOWN")}};
  RdmaDevice c{"mlx5_2", "", -1, {"ens3"}, {RocePort(1, "ACTIVE")}};
  f.rdma = {a, b, c};
  NetworkChoice choice = ChooseNetwork(f);
  EXPECT_EQ(choice.ib_hca, "=mlx5_0:1,mlx5_2:1");
  EXPECT_EQ(choice.gid_index, 3);
}

TEST(ChooseNetworkTest, InfinibandSetsHcaButNoGidIndex) {
  NetworkFacts f;
  RdmaPort p;
  p.port = 1;
  p.state = "ACTIVE";
  p.link_layer = "InfiniBand";
  f.rdma = {RdmaDevice{"mlx5_0", "", -1, {}, {p}}};
  NetworkChoice c = ChooseNetwork(f);
  EXPECT_EQ(c.ib_hca, "=mlx5_0:1");
  EXPECT_EQ(c.gid_index, -1);
}

TEST(RecommendedEnvTest, TuningAndSwitches) {
  NetworkChoice net;
  net.socket_ifname = "ens1";
  net.ib_hca = "=mlx5_0:1";
  net.gid_index = 3;
  TuningOptions o;
  o.xla = true;
  o.mixed_precision = true;
  std::map<std::string, std::string> m;
  for (const EnvVar& v : RecommendedEnv(net, o, /*gpus=*/true)) m[v.name] = v.value;
  EXPECT_EQ(m["NCCL_SOCKET_IFNAME"], "ens1");
  EXPECT_EQ(m["NCCL_IB_HCA"], "=mlx5_0:1");
  EXPECT_EQ(m["NCCL_IB_GID_INDEX"], "3");
  EXPECT_EQ(m["TF_GPU_ALLOCATOR"], "cuda_malloc_async");
  EXPECT_EQ(m["TF_FORCE_GPU_ALLOW_GROWTH"], "true");
  EXPECT_EQ(m["TF_GPU_THREAD_MODE"], "gpu_private");
  EXPECT_EQ(m["TF_XLA_FLAGS"], "--tf_xla_auto_jit=2");
  EXPECT_EQ(m["TF_ENABLE_AUTO_MIXED_PRECISION"], "1");
  o.tune = false;
  o.xla = o.mixed_precision = false;
  EXPECT_TRUE(RecommendedEnv(net, o, /*gpus=*/true).empty());
}

TEST(RecommendedEnvTest, WithoutGpusOnlyTheAskedForVariablesUnlessGpuTuningIsRequested) {
  NetworkChoice net;
  net.socket_ifname = "eth0";
  TuningOptions o;
  o.xla = true;
  auto names = [](const std::vector<EnvVar>& env) {
    std::string s;
    for (const EnvVar& v : env) s += v.name + " ";
    return s;
  };
  EXPECT_EQ(names(RecommendedEnv(net, o, /*gpus=*/false)), "TF_XLA_FLAGS ");
  o.gpu_requested = true;
  EXPECT_EQ(names(RecommendedEnv(net, o, /*gpus=*/false)),
            "NCCL_SOCKET_IFNAME TF_GPU_ALLOCATOR TF_FORCE_GPU_ALLOW_GROWTH TF_GPU_THREAD_MODE TF_XLA_FLAGS ");
}

std::string Value(const TaskEnvironment& e, const std::string& name) {
  for (const std::string& kv : e.entries) {
    if (kv.compare(0, name.size() + 1, name + "=") == 0) return kv.substr(name.size() + 1);
  }
  return "<unset>";
}

TEST(ComposeTaskEnvTest, UserEnvironmentBeatsTuningFlagsBeatInheritedIdentityBeatsAll) {
  std::map<std::string, std::string> inherited = {{"PATH", "/bin"},
                                                  {"TF_GPU_ALLOCATOR", "bfc"},
                                                  {"NCCL_DEBUG", "WARN"},
                                                  {"TF_CONFIG", "{\"stale\":1}"}};
  std::vector<EnvVar> tuning = {{"TF_GPU_ALLOCATOR", "cuda_malloc_async", ""}, {"TF_GPU_THREAD_MODE", "gpu_private", ""}};
  std::vector<EnvVar> flags = {{"NCCL_DEBUG", "INFO", "--env"}};
  std::vector<EnvVar> identity = {{"TF_CONFIG", "{\"cluster\":{}}", ""}};
  TaskEnvironment e = ComposeTaskEnv(inherited, tuning, flags, identity);
  EXPECT_EQ(Value(e, "TF_GPU_ALLOCATOR"), "bfc");            // user wins over tuning
  EXPECT_EQ(Value(e, "TF_GPU_THREAD_MODE"), "gpu_private");  // tuning fills gaps
  EXPECT_EQ(Value(e, "NCCL_DEBUG"), "INFO");                 // --env beats inherited
  EXPECT_EQ(Value(e, "TF_CONFIG"), "{\"cluster\":{}}");      // identity beats a stale TF_CONFIG
  EXPECT_EQ(Value(e, "PATH"), "/bin");
  ASSERT_EQ(e.kept.size(), 1u);
  EXPECT_EQ(e.kept[0], "TF_GPU_ALLOCATOR");
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_NE(e.warnings[0].find("TF_CONFIG"), std::string::npos);
}

TEST(ParseEnvAssignmentTest, NameValue) {
  auto v = ParseEnvAssignment("A_1=x=y");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->name, "A_1");
  EXPECT_EQ(v->value, "x=y");
  EXPECT_TRUE(ParseEnvAssignment("EMPTY=").ok());
  TFHOST_EXPECT_ERROR(ParseEnvAssignment("NOEQUALS"), StatusCode::kInvalidArgument,
                      "--env expects NAME=VALUE with NAME made of letters, digits and _, got 'NOEQUALS'");
  TFHOST_EXPECT_ERROR(ParseEnvAssignment("=x"), StatusCode::kInvalidArgument,
                      "--env expects NAME=VALUE with NAME made of letters, digits and _, got '=x'");
  TFHOST_EXPECT_ERROR(ParseEnvAssignment("1A=x"), StatusCode::kInvalidArgument,
                      "--env expects NAME=VALUE with NAME made of letters, digits and _, got '1A=x'");
  TFHOST_EXPECT_ERROR(ParseEnvAssignment("A B=x"), StatusCode::kInvalidArgument,
                      "--env expects NAME=VALUE with NAME made of letters, digits and _, got 'A B=x'");
}

// The probe's recordings of real machines (src/host/testdata/README.md).
std::string Recording(const std::string& name) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src != nullptr ? src : ".") + "/src/host/testdata/" + name;
}

TEST(ReadNetworkFactsTest, PcieBoxWithRoceGetsItsNicAndTheIpv4MappedRoceV2Gid) {
  std::string root = Recording("pcie_4gpu");
  if (!fs::exists(root)) GTEST_SKIP() << "recording not found: " << root;
  NetworkChoice c = ChooseNetwork(ReadNetworkFacts(root));
  EXPECT_EQ(c.socket_ifname, "ens1f0np0");  // 100 GbE; docker0 and the 1 GbE eno1 lose
  EXPECT_EQ(c.ib_hca, "=mlx5_0:1");
  EXPECT_EQ(c.gid_index, 3);  // RoCE v2 with ::ffff:10.0.0.11, not the link-local v2 GID 1
}

TEST(ReadNetworkFactsTest, DgxA100InfinibandListsEveryActiveHcaAndNoGidIndex) {
  std::string root = Recording("dgx_a100");
  if (!fs::exists(root)) GTEST_SKIP() << "recording not found: " << root;
  NetworkFacts f = ReadNetworkFacts(root);
  NetworkChoice c = ChooseNetwork(f);
  EXPECT_FALSE(c.socket_ifname.empty());
  EXPECT_NE(c.socket_ifname, "lo");
  int active = 0;
  for (const RdmaDevice& d : f.rdma) {
    for (const RdmaPort& p : d.ports) active += p.state == "ACTIVE";
  }
  ASSERT_GT(active, 0);
  EXPECT_EQ(std::count(c.ib_hca.begin(), c.ib_hca.end(), ',') + 1, active) << c.ib_hca;
  EXPECT_EQ(c.ib_hca.rfind("=mlx5_0:1", 0), 0u) << c.ib_hca;
  EXPECT_EQ(c.gid_index, -1);  // InfiniBand link layer: no RoCE GID to pick
}

TEST(ReadNetworkFactsTest, CpuOnlyHostHasNoRdma) {
  std::string root = Recording("cpu_only");
  if (!fs::exists(root)) GTEST_SKIP() << "recording not found: " << root;
  NetworkChoice c = ChooseNetwork(ReadNetworkFacts(root));
  EXPECT_TRUE(c.ib_hca.empty());
  EXPECT_EQ(c.gid_index, -1);
}

}  // namespace
}  // namespace tfhost::host::launch

namespace tfhost::host::launch {
namespace {

TEST(CommonInterfaceTest, PicksTheNameEveryHostHasWhoseSlowestHostIsFastest) {
  NetworkChoice choice;
  choice.socket_ifname = "eth0";  // this host's own pick
  UseInterfaceCommonToHosts({{"eth0:100000", "ib0:100000"}, {"ib0:200000", "eth1:100000"}, {"ib0:40000", "eth0:10000"}},
                            &choice);
  EXPECT_EQ(choice.socket_ifname, "ib0");
  ASSERT_FALSE(choice.notes.empty());
  EXPECT_NE(choice.notes.back().find("this host alone would use eth0"), std::string::npos) << choice.notes.back();
}

TEST(CommonInterfaceTest, HostsSharingNoNameLeaveTheVariableUnset) {
  NetworkChoice choice;
  choice.socket_ifname = "eth0";
  UseInterfaceCommonToHosts({{"eth0:10000"}, {"ens5:25000"}}, &choice);
  EXPECT_EQ(choice.socket_ifname, "");
  EXPECT_NE(choice.notes.back().find("share no interface name"), std::string::npos);
}

TEST(CommonInterfaceTest, OneHostKeepsItsOwnChoiceAndCandidatesFollowChooseNetworkRules) {
  NetworkChoice choice;
  choice.socket_ifname = "eth0";
  UseInterfaceCommonToHosts({{"ens5:25000"}}, &choice);
  EXPECT_EQ(choice.socket_ifname, "eth0");
  NetworkFacts facts;
  NetInterface up, down, lo, docker;
  up.name = "eth0", up.operstate = "up", up.ipv4 = {"10.0.0.1"}, up.speed_mbps = 25000;
  down = up, down.name = "eth1", down.operstate = "down";
  lo = up, lo.name = "lo", lo.is_loopback = true;
  docker = up, docker.name = "docker0";
  facts.interfaces = {up, down, lo, docker};
  EXPECT_EQ(SocketInterfaceCandidates(facts), std::vector<std::string>{"eth0:25000"});
}

}  // namespace
}  // namespace tfhost::host::launch

namespace tfhost::host::launch {
namespace {

TopologyMatrix MatrixOf(const std::vector<std::string>& gpus, const std::vector<std::vector<std::string>>& cells) {
  TopologyMatrix m;
  m.labels = gpus;
  m.labels.push_back("mlx5_0");  // NIC rows and columns are not GPU pairs
  m.cells = cells;
  for (auto& row : m.cells) row.push_back("PXB");
  m.cells.push_back(std::vector<std::string>(m.labels.size(), "PXB"));
  return m;
}

TEST(PeerToPeerHintsTest, RecordedDgxWithNvlinkEverywhereNeedsNothing) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : ".") + "/src/host/testdata/dgx_a100/nvidia-smi-topo.txt");
  std::stringstream text;
  text << in.rdbuf();
  auto topology = ParseTopoMatrix(text.str());
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  GpuPeerFacts facts = GpuPeersFromTopology(*topology, "");
  ASSERT_EQ(facts.gpus.size(), 8u);
  std::vector<std::string> notes;
  EXPECT_TRUE(PeerToPeerHints(facts, &notes).empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("all 8 GPUs are NVLink-connected"), std::string::npos) << notes[0];
}

TEST(PeerToPeerHintsTest, BareMetalPcieGpusGetNotesNamingPairsButNoSetting) {
  GpuPeerFacts facts = GpuPeersFromTopology(
      MatrixOf({"GPU0", "GPU1", "GPU2"}, {{"X", "PIX", "SYS"}, {"PIX", "X", "SYS"}, {"SYS", "SYS", "X"}}), "");
  std::vector<std::string> notes;
  EXPECT_TRUE(PeerToPeerHints(facts, &notes).empty());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("GPU0-GPU1 (PIX)"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("GPU0-GPU2, GPU1-GPU2"), std::string::npos) << notes[1];
}

TEST(PeerToPeerHintsTest, VirtualMachineWithPciePairsKeepsPeerToPeerOnNvlinkOnly) {
  GpuPeerFacts facts =
      GpuPeersFromTopology(MatrixOf({"GPU0", "GPU1"}, {{"X", "PHB"}, {"PHB", "X"}}), "kvm");
  std::vector<std::string> notes;
  std::vector<EnvVar> env = PeerToPeerHints(facts, &notes);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0].name, "NCCL_P2P_LEVEL");
  EXPECT_EQ(env[0].value, "NVL");
  EXPECT_NE(notes[0].find("kvm"), std::string::npos);
  // One GPU, or none: nothing to say.
  notes.clear();
  EXPECT_TRUE(PeerToPeerHints(GpuPeersFromTopology(MatrixOf({"GPU0"}, {{"X"}}), "kvm"), &notes).empty());
  EXPECT_TRUE(notes.empty());
}

}  // namespace
}  // namespace tfhost::host::launch
