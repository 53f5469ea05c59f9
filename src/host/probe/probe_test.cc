// The probe on recordings: a DGX-A100-like 8-GPU NVLink server, a PCIe-only
// 4-GPU workstation with a RoCE NIC and a CPU-only host (snapshots under
// src/host/testdata, sources in its README), and this machine for real.
#include "host/probe/probe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "base/test_status.h"
#include "host/probe/mini_xml.h"

namespace tfhost::host {
namespace {

std::string TestData(const std::string& name) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return std::string(src ? src : ".") + "/src/host/testdata/" + name;
}

HostFacts Probe(const std::string& snapshot) {
  ProbeOptions o;
  o.root = TestData(snapshot);
  o.library_dirs = {"/usr/local/cuda-11.8/lib64", "/usr/lib/x86_64-linux-gnu"};
  return ProbeHost(o);
}

TEST(ProbeDgxTest, EightA100sBehindNvSwitchesWithTwelveLinksEach) {
  HostFacts f = Probe("dgx_a100");
  ASSERT_TRUE(f.nvidia.nvml_loaded) << f.nvidia.nvml_error;
  EXPECT_EQ(f.nvidia.driver_version, "535.104.05");
  EXPECT_EQ(f.nvidia.cuda_driver_version, 12020);
  ASSERT_EQ(f.nvidia.gpus.size(), 8u);
  const GpuFacts& g0 = f.nvidia.gpus[0];
  EXPECT_EQ(g0.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g0.memory_total_bytes, 81920ull << 20);
  EXPECT_EQ(g0.cc_major, 8);
  EXPECT_EQ(g0.cc_minor, 0);
  EXPECT_EQ(g0.pcie_gen_max, 4);
  EXPECT_EQ(g0.pcie_width_max, 16);
  EXPECT_EQ(g0.mig_mode, "Disabled");
  EXPECT_EQ(g0.numa_node, 3);
  EXPECT_EQ(g0.ActiveNvLinks(), 12);
  EXPECT_EQ(f.nvidia.gpus[7].pci_bus_id, "00000000:BD:00.0");
  EXPECT_EQ(f.nvidia.TotalMemoryBytes(), 8 * (81920ull << 20));
  // The recorded matrix is kept: GPUs, then the compute NICs.
  ASSERT_EQ(f.topology.labels.size(), 16u);
  EXPECT_EQ(f.topology.labels[8], "mlx5_0");
  EXPECT_EQ(f.topology.cells[0][1], "NV12");
  EXPECT_EQ(f.topology.cells[0][8], "PXB");
  EXPECT_EQ(f.topology.cells[0][10], "SYS");
  EXPECT_EQ(f.topology.cpu_affinity[2], "16-31,144-159");
}

TEST(ProbeDgxTest, CpuNumaMemoryAndInfiniBand) {
  HostFacts f = Probe("dgx_a100");
  EXPECT_EQ(f.cpu.model_name, "AMD EPYC 7742 64-Core Processor");
  EXPECT_EQ(f.cpu.sockets, 2);
  EXPECT_EQ(f.cpu.physical_cores, 128);
  EXPECT_EQ(f.cpu.logical_cpus, 256);
  EXPECT_TRUE(f.cpu.HasIsa("avx2"));
  EXPECT_FALSE(f.cpu.HasIsa("avx512f"));
  EXPECT_EQ(f.cpu.governors, std::vector<std::string>{"performance"});
  ASSERT_EQ(f.numa.size(), 8u);
  EXPECT_EQ(f.numa[3].cpus.front(), 48);
  EXPECT_EQ(f.numa[3].cpus.size(), 32u);
  EXPECT_EQ(f.memory.total_bytes, 1056462812ull * 1024);
  EXPECT_EQ(f.memory.swap_total_bytes, 0u);
  EXPECT_EQ(f.memory.thp_enabled, "madvise");
  ASSERT_EQ(f.rdma.size(), 8u);
  const RdmaDevice& ib = f.rdma[0];
  EXPECT_EQ(ib.name, "mlx5_0");
  EXPECT_EQ(ib.pci_address, "0000:0c:00.0");
  EXPECT_EQ(ib.numa_node, 3);
  ASSERT_EQ(ib.ports.size(), 1u);
  EXPECT_EQ(ib.ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(ib.ports[0].state, "ACTIVE");
  EXPECT_DOUBLE_EQ(ib.ports[0].rate_gbps, 200);
  ASSERT_EQ(ib.ports[0].gids.size(), 1u);  // the all-zero slot is dropped
  EXPECT_EQ(ib.ports[0].gids[0].type, "IB/RoCE v1");
  EXPECT_EQ(ib.net_devices, std::vector<std::string>{"ibp12s0"});
  EXPECT_EQ(f.limits.memlock_soft, kUnlimited);
  EXPECT_EQ(f.limits.nofile_soft, 1048576u);
  EXPECT_EQ(f.env.dmi_product_name, "DGXA100");
  EXPECT_EQ(f.env.hostname, "dgx-a100-01");
  const NetInterface* ib0 = f.FindInterface("ibp12s0");
  ASSERT_NE(ib0, nullptr);
  EXPECT_EQ(ib0->type, "infiniband");
  const NetInterface* eth = f.FindInterface("enp225s0f0");
  ASSERT_NE(eth, nullptr);
  EXPECT_EQ(eth->ipv4, std::vector<std::string>{"10.10.0.21"});
}

TEST(ProbePcieBoxTest, FourGpusWithoutNvLinkGetAComputedPcieMatrix) {
  HostFacts f = Probe("pcie_4gpu");
  ASSERT_EQ(f.nvidia.gpus.size(), 4u);
  EXPECT_EQ(f.nvidia.gpus[0].name, "NVIDIA RTX A6000");
  EXPECT_EQ(f.nvidia.gpus[0].cc_major, 8);
  EXPECT_EQ(f.nvidia.gpus[0].cc_minor, 6);
  EXPECT_EQ(f.nvidia.gpus[0].pcie_gen_current, 1);
  EXPECT_EQ(f.nvidia.cuda_driver_version, 11040);
  for (const GpuFacts& g : f.nvidia.gpus) EXPECT_EQ(g.ActiveNvLinks(), 0);
  // NUMA from sysfs since no topology recording exists.
  EXPECT_EQ(f.nvidia.gpus[3].numa_node, 1);
  const TopologyMatrix& t = f.topology;
  ASSERT_EQ(t.labels, (std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "mlx5_0"}));
  EXPECT_EQ(t.cells[0][0], "X");
  EXPECT_EQ(t.cells[0][1], "PIX");   // one PCIe switch
  EXPECT_EQ(t.cells[0][2], "NODE");  // other host bridge, same socket
  EXPECT_EQ(t.cells[0][3], "SYS");   // other socket
  EXPECT_EQ(t.cells[3][4], "SYS");
  EXPECT_EQ(t.cells[4][2], "NODE");
  EXPECT_EQ(t.cpu_affinity[0], "0-15,32-47");
  EXPECT_EQ(t.numa_affinity[3], "1");
}

TEST(ProbePcieBoxTest, RoceGidTypesNetdevsAndAddresses) {
  HostFacts f = Probe("pcie_4gpu");
  ASSERT_EQ(f.rdma.size(), 1u);
  const RdmaPort& p = f.rdma[0].ports[0];
  EXPECT_EQ(p.link_layer, "Ethernet");
  ASSERT_EQ(p.gids.size(), 4u);
  EXPECT_EQ(p.gids[1].type, "RoCE v2");
  EXPECT_EQ(p.gids[3].type, "RoCE v2");
  EXPECT_EQ(p.gids[3].net_device, "ens1f0np0");
  const NetInterface* roce = f.FindInterface("ens1f0np0");
  ASSERT_NE(roce, nullptr);
  EXPECT_EQ(roce->speed_mbps, 100000);
  EXPECT_EQ(roce->mtu, 9000);
  EXPECT_EQ(roce->driver, "mlx5_core");
  EXPECT_EQ(roce->pci_address, "0000:31:00.0");
  EXPECT_FALSE(roce->is_virtual);
  EXPECT_EQ(roce->ipv4, std::vector<std::string>{"10.0.0.11"});
  const NetInterface* docker = f.FindInterface("docker0");
  ASSERT_NE(docker, nullptr);
  EXPECT_TRUE(docker->is_virtual);
  EXPECT_EQ(docker->ipv4, std::vector<std::string>{"172.17.0.1"});
  const NetInterface* lo = f.FindInterface("lo");
  ASSERT_NE(lo, nullptr);
  EXPECT_TRUE(lo->is_loopback);
  EXPECT_EQ(lo->ipv4, std::vector<std::string>{"127.0.0.1"});
}

TEST(ProbePcieBoxTest, DisksMountsLibrariesLimitsAndSettings) {
  HostFacts f = Probe("pcie_4gpu");
  ASSERT_EQ(f.disks.size(), 2u);
  EXPECT_EQ(f.disks[0].name, "nvme0n1");
  EXPECT_EQ(f.disks[0].kind, "nvme");
  EXPECT_EQ(f.disks[1].kind, "hdd");
  EXPECT_EQ(f.disks[1].size_bytes, 31251759104ull * 512);
  ASSERT_EQ(f.mounts.size(), 3u);
  EXPECT_TRUE(f.mounts[2].network);
  EXPECT_EQ(f.mounts[1].free_bytes, 9000000000000ull);
  const LibraryFacts* cudart = f.FindLibrary("cudart");
  ASSERT_NE(cudart, nullptr);
  EXPECT_EQ(cudart->version, "11.8.89");  // the most specific name wins over libcudart.so.11.0
  ASSERT_NE(f.FindLibrary("cudnn"), nullptr);
  EXPECT_EQ(f.FindLibrary("cudnn")->version, "8.6.0");
  EXPECT_EQ(f.FindLibrary("nccl")->version, "2.15.5");
  EXPECT_EQ(f.FindLibrary("cublas")->version, "11.11.3.6");
  EXPECT_EQ(f.limits.memlock_soft, 65536u);
  EXPECT_EQ(f.limits.nofile_soft, 1024u);
  EXPECT_EQ(f.memory.thp_enabled, "always");
  EXPECT_EQ(f.memory.thp_defrag, "always");
  EXPECT_EQ(f.memory.swap_total_bytes, 8388604ull * 1024);
  EXPECT_EQ(f.cpu.governors, std::vector<std::string>{"powersave"});
  EXPECT_TRUE(f.cpu.HasIsa("avx512f"));
  EXPECT_TRUE(f.cpu.HasIsa("avx512_vnni"));
}

TEST(ProbePcieBoxTest, PathsResolveToTheirMountAndNetworkFlag) {
  std::unique_ptr<FsReader> fs = NewRootedFsReader(TestData("pcie_4gpu"));
  StatusOr<MountFacts> nfs = MountForPath(*fs, "/mnt/ds/train");
  ASSERT_TRUE(nfs.ok()) << nfs.status().ToString();
  EXPECT_EQ(nfs->mount_point, "/mnt/ds");
  EXPECT_EQ(nfs->fs_type, "nfs4");
  EXPECT_TRUE(nfs->network);
  StatusOr<MountFacts> local = MountForPath(*fs, "/data/tfrecords");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->fs_type, "xfs");
  EXPECT_FALSE(local->network);
  TFHOST_EXPECT_ERROR(MountForPath(*fs, "/no/such/dir"), StatusCode::kNotFound,
                      "path /no/such/dir does not exist (cannot resolve " + TestData("pcie_4gpu") +
                          "/no/such/dir: No such file or directory)");
}

TEST(ProbeCpuOnlyTest, RecordedCpuOnlyHostSaysSoAndGoesOn) {
  HostFacts f = Probe("cpu_only");
  EXPECT_FALSE(f.nvidia.nvml_loaded);
  EXPECT_TRUE(f.nvidia.gpus.empty());
  EXPECT_TRUE(f.topology.empty());
  EXPECT_TRUE(f.rdma.empty());
  EXPECT_GT(f.cpu.logical_cpus, 0);
  EXPECT_FALSE(f.cpu.model_name.empty());
  EXPECT_GT(f.memory.total_bytes, 0u);
  EXPECT_NE(f.FindInterface("eth0"), nullptr);
  bool noted = false;
  for (const std::string& n : f.notes) noted |= n.find("CPU-only") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NE(FormatFactsText(f).find("GPUs\n  none:"), std::string::npos);
}

TEST(ProbeLiveTest, ThisMachineProbesWithoutFailing) {
  ProbeOptions o;  // root "/"
  HostFacts f = ProbeHost(o);
  EXPECT_GT(f.cpu.logical_cpus, 0);
  EXPECT_GT(f.memory.total_bytes, 0u);
  EXPECT_FALSE(f.numa.empty());
  if (!f.nvidia.nvml_loaded) {
    EXPECT_FALSE(f.nvidia.nvml_error.empty());  // says why
  }
  std::string json = FormatFactsJson(f);
  EXPECT_EQ(json.front(), '{');
  EXPECT_NE(json.find("\"nvidia\""), std::string::npos);
}

TEST(PcieRelationTest, ClassifiesLikeNvidiaSmiTopo) {
  const std::string sw = "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0";
  EXPECT_EQ(PcieRelation(sw + "/0000:18:00.0/0000:19:00.0", 0, sw + "/0000:18:01.0/0000:1a:00.0", 0), "PIX");
  EXPECT_EQ(PcieRelation(sw + "/0000:18:00.0/0000:19:00.0/0000:1b:00.0/0000:1c:00.0", 0,
                         sw + "/0000:18:01.0/0000:1a:00.0", 0), "PXB");
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0", 0,
                         "/sys/devices/pci0000:16/0000:16:03.0/0000:20:00.0", 0), "PHB");
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0", 0,
                         "/sys/devices/pci0000:50/0000:50:02.0/0000:51:00.0", 0), "NODE");
  EXPECT_EQ(PcieRelation("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0", 0,
                         "/sys/devices/pci0000:b0/0000:b0:02.0/0000:b1:00.0", 1), "SYS");
}

TEST(RecordingTest, MalformedRecordingsAreErrorsNotCrashes) {
  TFHOST_EXPECT_ERROR(NvmlFromRecording("", "", "x"), StatusCode::kInvalidArgument, "XML: no root element at byte 0");
  TFHOST_EXPECT_ERROR(NvmlFromRecording("<nvidia_smi_log><gpu>", "", "x"), StatusCode::kInvalidArgument,
                      "XML: missing </gpu> at byte 21");
  TFHOST_EXPECT_ERROR(NvmlFromRecording("<other/>", "", "x"), StatusCode::kInvalidArgument,
                      "x: root element is <other>, expected <nvidia_smi_log>");
  TFHOST_EXPECT_ERROR(ParseXml("<a><b></a>"), StatusCode::kInvalidArgument, "XML: </a> closes <b> at byte 9");
  TFHOST_EXPECT_ERROR(
      ParseXml(std::string(100, '<')), StatusCode::kInvalidArgument,
      "XML: unterminated start tag "
      "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<> at byte");
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  TFHOST_EXPECT_ERROR(ParseXml(deep), StatusCode::kInvalidArgument, "XML: elements nested deeper than 64 at byte 195");
  TFHOST_EXPECT_ERROR(ParseTopoMatrix("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV1\t0-1\n"),
                      StatusCode::kInvalidArgument, "topo -m: header names 2 devices but 1 rows follow");
  StatusOr<std::unique_ptr<Nvml>> ok =
      NvmlFromRecording("<nvidia_smi_log><driver_version>1 &amp; 2</driver_version></nvidia_smi_log>", "", "x");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->Query()->driver_version, "1 & 2");
}

TEST(RecordingTest, NicLegendNamesReplaceNicLabels) {
  const std::string topo =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV4\tPIX\t0-31\t0\t\tN/A\n"
      "GPU1\tNV4\t X \tPIX\t0-31\t0\t\tN/A\n"
      "NIC0\tPIX\tPIX\t X \n\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
  StatusOr<TopologyMatrix> m = ParseTopoMatrix(topo);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->labels, (std::vector<std::string>{"GPU0", "GPU1", "mlx5_0"}));
  EXPECT_EQ(m->cells[1][0], "NV4");
  EXPECT_EQ(m->numa_affinity[0], "0");
}

TEST(HwlocTest, XmlExportGivesNumaNodesCpusAndMemory) {
  StatusOr<std::vector<NumaNode>> nodes = NumaFromHwloc(TestData("hwloc_2socket_synthetic.xml"));
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1].id, 1);
  EXPECT_EQ((*nodes)[1].cpus.size(), 32u);
  EXPECT_EQ((*nodes)[0].memory_bytes, 137438953472ull);
  TFHOST_EXPECT_ERROR(NumaFromHwloc(TestData("no_such.xml")), StatusCode::kInvalidArgument,
                      "hwloc cannot read XML topology " + TestData("no_such.xml"));
}

}  // namespace
}  // namespace tfhost::host

namespace tfhost::host {
namespace {

TEST(PcieTreeTest, HwlocExportGivesSwitchPortsDevicesLinksAndNumaNodes) {
  auto tree = PcieTreeFromHwloc(TestData("hwloc_pcie_2socket_gpu.xml"));
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  ASSERT_EQ(tree->size(), 10u);
  const PcieNode& host0 = (*tree)[0];
  EXPECT_EQ(host0.kind, "host_bridge");
  EXPECT_EQ(host0.bus_id, "0000:[16-1b]");
  EXPECT_EQ(host0.numa_node, 0);
  EXPECT_EQ((*tree)[1].kind, "bridge");  // the switch's upstream port
  EXPECT_EQ((*tree)[1].depth, 1);
  const PcieNode& gpu0 = (*tree)[3];
  EXPECT_EQ(gpu0.kind, "device");
  EXPECT_EQ(gpu0.bus_id, "0000:18:00.0");
  EXPECT_EQ(gpu0.class_id, 0x0302);
  EXPECT_EQ(gpu0.vendor_device, "10de:20b0");
  EXPECT_EQ(gpu0.depth, 3);
  EXPECT_NEAR(gpu0.link_gbps, 31.5, 0.1);
  EXPECT_EQ(gpu0.os_devices, std::vector<std::string>{"card1"});
  const PcieNode& hca = (*tree)[7];
  EXPECT_EQ(hca.os_devices, std::vector<std::string>({"ib0", "mlx5_0"}));
  const PcieNode& nvme = (*tree)[9];
  EXPECT_EQ(nvme.class_id, 0x0108);
  EXPECT_EQ(nvme.depth, 1);
  EXPECT_EQ((*tree)[8].numa_node, 1);
  EXPECT_EQ(nvme.numa_node, 1);

  HostFacts f;
  f.pcie = *tree;
  std::string text = FormatFactsText(f);
  EXPECT_NE(text.find("host bridge 0000:[16-1b], NUMA node 0"), std::string::npos) << text;
  EXPECT_NE(text.find("      0000:18:00.0 3D controller (GPU) [10de:20b0], 31.5 GB/s (card1)"), std::string::npos) << text;
  EXPECT_NE(FormatFactsJson(f).find("\"vendor_device\": \"15b3:101b\""), std::string::npos);
}

TEST(PcieTreeTest, UnreadableExportIsAnErrorNamingTheFile) {
  auto tree = PcieTreeFromHwloc(TestData("no_such_export.xml"));
  TFHOST_ASSERT_ERROR(tree, StatusCode::kInvalidArgument,
                      "hwloc cannot read XML topology " + TestData("no_such_export.xml"));
  EXPECT_NE(tree.status().message().find("no_such_export.xml"), std::string::npos);
}

TEST(PcieTreeTest, ThisMachineProbesWithoutFailing) {
  // Live: a VM may show virtio devices or none; either way no crash and a reason.
  auto tree = PcieTreeFromHwloc("");
  if (!tree.ok()) {
    EXPECT_FALSE(tree.status().message().empty());
    return;
  }
  int previous_depth = -1;
  for (const PcieNode& n : *tree) {
    EXPECT_TRUE(n.kind == "host_bridge" || n.kind == "bridge" || n.kind == "device") << n.kind;
    EXPECT_FALSE(n.bus_id.empty());
    EXPECT_LE(n.depth, previous_depth + 1) << n.bus_id << ": a child appears right after its parent";
    previous_depth = n.depth;
  }
}

}  // namespace
}  // namespace tfhost::host

namespace tfhost::host {
namespace {

// An NVIDIA DGX-2's GPUs and first four HCAs as `nvidia-smi --query-gpu`
// lists them in NVIDIA's GPUDirect Storage configuration guide, with the
// PCIe trees of that guide's `lspci -tv` (testdata/hwloc_dgx2_pcie.xml).
struct Dgx2 {
  NvidiaFacts gpus;
  std::vector<RdmaDevice> hcas;
  Dgx2() {
    const char* buses[] = {"34", "36", "39", "3B", "57", "59", "5C", "5E", "B7", "B9", "BC", "BE", "E0", "E2", "E5", "E7"};
    for (int i = 0; i < 16; ++i) {
      GpuFacts g;
      g.index = i;
      g.pci_bus_id = std::string("00000000:") + buses[i] + ":00.0";
      gpus.gpus.push_back(g);
    }
    const char* hca_buses[] = {"35", "3a", "58", "5d"};
    for (int i = 0; i < 4; ++i) {
      RdmaDevice d;
      d.name = "mlx5_" + std::to_string(i);
      d.pci_address = std::string("0000:") + hca_buses[i] + ":00.0";
      hcas.push_back(d);
    }
  }
};

// A snapshot root holding no sysfs at all, so only hwloc's tree can answer.
std::string EmptyRoot() {
  std::string dir = (std::filesystem::temp_directory_path() / ("tfhost_probe_empty_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(TopologyFromHwlocTest, Dgx2PcieTreeGivesTheMatrixNvidiaSmiTopoMpPrints) {
  auto tree = PcieTreeFromHwloc(TestData("hwloc_dgx2_pcie.xml"));
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  Dgx2 dgx;
  const std::string root = EmptyRoot();
  std::unique_ptr<FsReader> fs = NewRootedFsReader(root);
  TopologyMatrix m = ProbeTopology(*fs, nullptr, dgx.gpus, dgx.hcas, {}, *tree);
  std::filesystem::remove_all(root);
  ASSERT_EQ(m.labels.size(), 20u);
  EXPECT_EQ(m.pcie_source, "hwloc");
  // `nvidia-smi topo -mp` on that DGX-2, first eight columns (the guide's excerpt).
  const std::vector<std::string> expected = {
      "X PIX PXB PXB NODE NODE NODE NODE",    "PIX X PXB PXB NODE NODE NODE NODE",
      "PXB PXB X PIX NODE NODE NODE NODE",    "PXB PXB PIX X NODE NODE NODE NODE",
      "NODE NODE NODE NODE X PIX PXB PXB",    "NODE NODE NODE NODE PIX X PXB PXB",
      "NODE NODE NODE NODE PXB PXB X PIX",    "NODE NODE NODE NODE PXB PXB PIX X",
      "SYS SYS SYS SYS SYS SYS SYS SYS",      "SYS SYS SYS SYS SYS SYS SYS SYS",
      "SYS SYS SYS SYS SYS SYS SYS SYS",      "SYS SYS SYS SYS SYS SYS SYS SYS",
      "SYS SYS SYS SYS SYS SYS SYS SYS",      "SYS SYS SYS SYS SYS SYS SYS SYS",
      "SYS SYS SYS SYS SYS SYS SYS SYS",      "SYS SYS SYS SYS SYS SYS SYS SYS",
      "PIX PIX PXB PXB NODE NODE NODE NODE",  "PXB PXB PIX PIX NODE NODE NODE NODE",
      "NODE NODE NODE NODE PIX PIX PXB PXB",  "NODE NODE NODE NODE PXB PXB PIX PIX"};
  for (size_t i = 0; i < expected.size(); ++i) {
    std::string row;
    for (size_t j = 0; j < 8; ++j) {
      if (j > 0) row += ' ';
      row += m.cells[i][j];
    }
    EXPECT_EQ(row, expected[i]) << m.labels[i];
  }
  EXPECT_EQ(m.labels[16], "mlx5_0");
  EXPECT_EQ(m.numa_affinity[8], "1");  // from the host bridge's node in the tree
  EXPECT_TRUE(m.notes.empty());
}

TEST(TopologyFromHwlocTest, DevicesMissingFromTheTreeAreNotGuessed) {
  auto tree = PcieTreeFromHwloc(TestData("hwloc_dgx2_pcie.xml"));
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(PcieRelationInTree(*tree, "0000:34:00.0", 0, "0000:99:00.0", 0), "");
  EXPECT_EQ(PcieRelationInTree(*tree, "0000:34:00.0", 0, "0000:33:00.0", 0), "") << "a bridge is not a device";
  EXPECT_EQ(PcieRelationInTree(*tree, "0000:2e:00.0", 0, "0000:34:00.0", 0), "PXB");  // NVMe to GPU0
  EXPECT_EQ(PcieRelationInTree(*tree, "0000:2e:00.0", 0, "0000:2f:00.0", 0), "PIX");  // the NVMe pair
  EXPECT_EQ(PcieRelationInTree({}, "0000:34:00.0", 0, "0000:36:00.0", 0), "");
  // Two devices on one host bridge with no switch between: PHB.
  std::vector<PcieNode> flat = {{"host_bridge", "0000:[00-02]", 0, -1, "", 0, 0, {}},
                                {"device", "0000:01:00.0", 1, 0x302, "", 0, 0, {}},
                                {"device", "0000:02:00.0", 1, 0x207, "", 0, 0, {}}};
  EXPECT_EQ(PcieRelationInTree(flat, "0000:01:00.0", 0, "0000:02:00.0", 0), "PHB");
}

TEST(TopologyFromHwlocTest, WhereSysfsPathsDisagreeHwlocWinsAndTheNoteSaysSo) {
  // sysfs with GPU0 and GPU2 side by side under one root port (PIX by path),
  // while hwloc's tree puts them under different second-level switches (PXB).
  const std::string root = EmptyRoot() + "_sysfs";
  std::filesystem::remove_all(EmptyRoot());
  const std::string port = "/sys/devices/pci0000:2b/0000:2b:00.0";
  for (const char* bus : {"0000:34:00.0", "0000:39:00.0"}) {
    std::filesystem::create_directories(root + port + "/" + bus);
    std::filesystem::create_directories(root + "/sys/bus/pci/devices");
    std::error_code ec;
    std::filesystem::create_directory_symlink("../../../devices/pci0000:2b/0000:2b:00.0/" + std::string(bus),
                                              root + "/sys/bus/pci/devices/" + bus, ec);
  }
  auto tree = PcieTreeFromHwloc(TestData("hwloc_dgx2_pcie.xml"));
  ASSERT_TRUE(tree.ok());
  NvidiaFacts two;
  for (int i : {0, 2}) {
    GpuFacts g;
    g.index = static_cast<int>(two.gpus.size());
    g.pci_bus_id = i == 0 ? "00000000:34:00.0" : "00000000:39:00.0";
    two.gpus.push_back(g);
  }
  std::unique_ptr<FsReader> fs = NewRootedFsReader(root);
  TopologyMatrix with_tree = ProbeTopology(*fs, nullptr, two, {}, {}, *tree);
  EXPECT_EQ(with_tree.cells[0][1], "PXB");
  ASSERT_EQ(with_tree.notes.size(), 1u);
  EXPECT_EQ(with_tree.notes[0], "GPU0-GPU1: hwloc's PCIe tree gives PXB, sysfs paths give PIX; hwloc's is shown");
  TopologyMatrix sysfs_only = ProbeTopology(*fs, nullptr, two, {}, {});
  EXPECT_EQ(sysfs_only.cells[0][1], "PIX");
  EXPECT_EQ(sysfs_only.pcie_source, "sysfs");
  EXPECT_TRUE(sysfs_only.notes.empty());
  HostFacts f;
  f.topology = with_tree;
  EXPECT_NE(FormatFactsText(f).find("note: GPU0-GPU1: hwloc's PCIe tree gives PXB"), std::string::npos);
  EXPECT_NE(FormatFactsJson(f).find("\"pcie_source\": \"hwloc\""), std::string::npos);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace tfhost::host
