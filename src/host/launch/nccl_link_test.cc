#include "host/launch/nccl_link.h"

#include <gtest/gtest.h>

namespace tfhost::host::launch {
namespace {

GpuFacts H100WithNvLinks(int links) {
  GpuFacts g;
  g.index = 0;
  g.name = "NVIDIA H100 80GB HBM3";
  g.pci_bus_id = "00000000:18:00.0";
  g.pcie_gen_max = 5;
  g.pcie_width_max = 16;
  for (int i = 0; i < links; ++i) {
    NvLinkFacts l;
    l.link = i;
    l.active = true;
    l.version = 4;
    g.nvlinks.push_back(l);
  }
  return g;
}

TEST(NcclLinkTest, NvLinkSpeedIsLinksTimesPerLinkRateOfItsGeneration) {
  NominalLink l = NominalGpuLink(H100WithNvLinks(18));
  EXPECT_EQ(l.description, "18 NVLink 4 links");
  EXPECT_DOUBLE_EQ(l.gbs, 450.0);  // 900 GB/s both directions
}

TEST(NcclLinkTest, WithoutNvLinkThePcieGenerationAndWidthCount) {
  NominalLink l = NominalGpuLink(H100WithNvLinks(0));
  EXPECT_EQ(l.description, "PCIe gen5 x16");
  EXPECT_NEAR(l.gbs, 63.0, 0.1);
  GpuFacts unknown;
  EXPECT_EQ(NominalGpuLink(unknown).gbs, 0);
}

TEST(NcclLinkTest, CudaAndNvmlSpellingsOfOneBusIdMatch) {
  EXPECT_TRUE(SamePciDevice("00000000:18:00.0", "0000:18:00.0"));
  EXPECT_TRUE(SamePciDevice("00000000:AF:00.0", "0000:af:00.0"));
  EXPECT_FALSE(SamePciDevice("00000000:18:00.0", "0000:19:00.0"));
  EXPECT_FALSE(SamePciDevice("", "0000:19:00.0"));
}

TEST(NcclLinkTest, LineSetsBusBandwidthBesideTheRankZeroGpusNominalSpeed) {
  NvidiaFacts facts;
  facts.nvml_loaded = true;
  facts.gpus = {H100WithNvLinks(18)};
  std::string line = GpuLinkLine(facts, "0000:18:00.0", 360.0);
  EXPECT_NE(line.find("18 NVLink 4 links = 450.00 GB/s nominal per direction"), std::string::npos) << line;
  EXPECT_NE(line.find("best bus bandwidth 360.00 GB/s (80%)"), std::string::npos) << line;
  EXPECT_NE(GpuLinkLine(facts, "0000:3b:00.0", 1.0).find("does not list"), std::string::npos);
  EXPECT_NE(GpuLinkLine(facts, "", 1.0).find("did not name"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::host::launch
