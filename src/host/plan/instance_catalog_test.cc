#include "host/plan/instance_catalog.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/test_status.h"

namespace tfhost::host::plan {
namespace {

std::string SourceDir() {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  return src ? src : ".";
}

// One valid GPU entry; tests replace one field to break it.
std::string Entry(const std::string& bandwidth = "3350", const std::string& peaks = R"({"fp32": 67, "int8": 1979})",
                  const std::string& price = R"("price": {"on_demand_usd_per_hour": 98.32, "source": "a page", "date": "2026-06-24"})") {
  return R"({"name": "gpu-box", "provider": "aws", "instance_type": "p5.48xlarge", "vcpus": 192, "ram_gib": 2048,
    "accelerator": {"model": "H100", "count": 8, "memory_gib": 74.5, "memory_bandwidth_gbps": )" +
         bandwidth + R"(, "host_link_gbps": 64, "interconnect": "NVLink", "peak_tflops": )" + peaks +
         R"(, "source": "datasheet", "source_date": "2026-12-06"},
    )" + price + R"(, "spot_note": "varies"})";
}

std::string Catalog(const std::string& entry) { return R"({"instances": [)" + entry + "]}"; }

TEST(InstanceCatalogTest, ShippedCatalogParsesAndCoversTheGpusPeopleRent) {
  auto catalog = LoadInstanceCatalog(SourceDir() + "/src/host/data/instance_catalog.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  std::set<std::string> models;
  int cpu_types = 0;
  for (const InstanceType& t : catalog->instances) {
    models.insert(t.compute.model);
    if (!t.compute.accelerator) ++cpu_types;
    EXPECT_FALSE(t.compute.source.empty()) << t.name;
    EXPECT_TRUE(t.compute.peak_flops.count("fp32")) << t.name;
    // A price either has its source and date, or the entry says why it has none.
    if (t.on_demand) {
      EXPECT_FALSE(t.on_demand->source.empty()) << t.name;
      EXPECT_EQ(t.on_demand->date.size(), 10u) << t.name;
    } else {
      EXPECT_FALSE(t.price_note.empty()) << t.name;
    }
    if (!t.spot) EXPECT_FALSE(t.spot_note.empty()) << t.name;
  }
  for (const char* gpu : {"NVIDIA T4 16 GB", "NVIDIA L4 24 GB", "NVIDIA A10G 24 GB", "NVIDIA A100 SXM4 40 GB",
                          "NVIDIA A100 SXM4 80 GB", "NVIDIA H100 SXM5 80 GB", "NVIDIA H200 SXM 141 GB"}) {
    EXPECT_TRUE(models.count(gpu)) << gpu;
  }
  EXPECT_GE(cpu_types, 1);
}

TEST(InstanceCatalogTest, ShippedCatalogHoldsTheH100DatasheetFiguresDense) {
  auto catalog = LoadInstanceCatalog(SourceDir() + "/src/host/data/instance_catalog.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  const InstanceType* p5 = nullptr;
  for (const InstanceType& t : catalog->instances) {
    if (t.instance_type == "p5.48xlarge") p5 = &t;
  }
  ASSERT_NE(p5, nullptr);
  EXPECT_EQ(p5->compute.count, 8);
  EXPECT_DOUBLE_EQ(p5->compute.peak_flops.at("fp32"), 67e12);
  EXPECT_DOUBLE_EQ(p5->compute.peak_flops.at("int8"), 1979e12);  // 3,958 sparse on the datasheet
  EXPECT_DOUBLE_EQ(p5->compute.memory_bandwidth_bps, 3350e9);
}

TEST(InstanceCatalogTest, ValidEntryParsesWithUnitsConverted) {
  auto c = ParseInstanceCatalog(Catalog(Entry()), "mine.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->instances.size(), 1u);
  const InstanceType& t = c->instances[0];
  EXPECT_EQ(t.name, "gpu-box");
  EXPECT_TRUE(t.compute.accelerator);
  EXPECT_DOUBLE_EQ(t.ram_bytes, 2048.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(t.compute.peak_flops.at("int8"), 1979e12);
  ASSERT_TRUE(t.on_demand.has_value());
  EXPECT_DOUBLE_EQ(t.on_demand->usd_per_hour, 98.32);
  EXPECT_FALSE(t.spot.has_value());
  EXPECT_EQ(t.spot_note, "varies");
}

TEST(InstanceCatalogTest, MalformedFieldFailsNamingFileEntryFieldAndExpectation) {
  auto c = ParseInstanceCatalog(Catalog(Entry("\"fast\"")), "mine.json");
  TFHOST_ASSERT_ERROR(c, StatusCode::kInvalidArgument,
                      "mine.json: entry 1 (gpu-box): field 'accelerator.memory_bandwidth_gbps': expected a number > 0");
  EXPECT_EQ(c.status().message(),
            "mine.json: entry 1 (gpu-box): field 'accelerator.memory_bandwidth_gbps': expected a number > 0");
}

TEST(InstanceCatalogTest, UnknownPrecisionIsRejectedListingTheKnownOnes) {
  auto c = ParseInstanceCatalog(Catalog(Entry("3350", R"({"fp4": 9000})")), "mine.json");
  TFHOST_ASSERT_ERROR(c, StatusCode::kInvalidArgument,
                      "mine.json: entry 1 (gpu-box): field 'accelerator.peak_tflops.fp4': unknown precision; expected "
                      "one of fp32, tf32, fp16, bf16, fp8, int8");
  EXPECT_EQ(c.status().message(),
            "mine.json: entry 1 (gpu-box): field 'accelerator.peak_tflops.fp4': unknown precision; expected one of "
            "fp32, tf32, fp16, bf16, fp8, int8");
}

TEST(InstanceCatalogTest, MissingPriceNeedsANoteSayingWhy) {
  auto c = ParseInstanceCatalog(Catalog(Entry("3350", R"({"fp32": 67})", R"("region": "us-east-1")")), "mine.json");
  TFHOST_ASSERT_ERROR(
      c, StatusCode::kInvalidArgument,
      "mine.json: entry 1 (gpu-box): field 'price': missing; give 'price' or a 'price_note' saying why there is none");
  EXPECT_EQ(c.status().message(),
            "mine.json: entry 1 (gpu-box): field 'price': missing; give 'price' or a 'price_note' saying why there is none");
  auto noted = ParseInstanceCatalog(
      Catalog(Entry("3350", R"({"fp32": 67})", R"("price_note": "not published")")), "mine.json");
  ASSERT_TRUE(noted.ok()) << noted.status().message();
  EXPECT_FALSE(noted->instances[0].on_demand.has_value());
  EXPECT_EQ(noted->instances[0].price_note, "not published");
}

TEST(InstanceCatalogTest, PriceDateMustBeIsoDate) {
  auto c = ParseInstanceCatalog(
      Catalog(Entry("3350", R"({"fp32": 67})",
                    R"("price": {"on_demand_usd_per_hour": 1, "source": "x", "date": "June 2026"})")),
      "mine.json");
  TFHOST_ASSERT_ERROR(c, StatusCode::kInvalidArgument,
                      "mine.json: entry 1 (gpu-box): field 'price.date': expected a date YYYY-MM-DD, got 'June 2026'");
  EXPECT_EQ(c.status().message(),
            "mine.json: entry 1 (gpu-box): field 'price.date': expected a date YYYY-MM-DD, got 'June 2026'");
}

TEST(InstanceCatalogTest, DuplicateNamesAreRejected) {
  auto c = ParseInstanceCatalog(R"({"instances": [)" + Entry() + "," + Entry() + "]}", "mine.json");
  TFHOST_ASSERT_ERROR(c, StatusCode::kInvalidArgument,
                      "mine.json: entry 2 (gpu-box): field 'name': duplicate; expected names unique in the catalog");
  EXPECT_EQ(c.status().message(),
            "mine.json: entry 2 (gpu-box): field 'name': duplicate; expected names unique in the catalog");
}

TEST(InstanceCatalogTest, EntryWithBothOrNeitherComputeKindIsRejected) {
  auto c = ParseInstanceCatalog(
      R"({"instances": [{"name": "x", "provider": "p", "instance_type": "t", "vcpus": 2, "ram_gib": 4,
          "price_note": "n", "spot_note": "n"}]})",
      "mine.json");
  TFHOST_ASSERT_ERROR(
      c, StatusCode::kInvalidArgument,
      "mine.json: entry 1 (x): field 'accelerator/cpu': expected exactly one of 'accelerator' and 'cpu'");
  EXPECT_EQ(c.status().message(),
            "mine.json: entry 1 (x): field 'accelerator/cpu': expected exactly one of 'accelerator' and 'cpu'");
}

TEST(InstanceCatalogTest, NotJsonFailsNamingTheFile) {
  auto c = ParseInstanceCatalog("{\"instances\": [", "mine.json");
  TFHOST_ASSERT_ERROR(c, StatusCode::kInvalidArgument, "mine.json: not valid JSON at offset 15: Invalid value.");
  EXPECT_EQ(c.status().message().rfind("mine.json: not valid JSON at offset", 0), 0u) << c.status().message();
}

TEST(InstanceCatalogTest, UnreadableFileIsNotFound) {
  auto c = LoadInstanceCatalog("/nonexistent/catalog.json");
  TFHOST_ASSERT_ERROR(c, StatusCode::kNotFound, "cannot read the instance catalog /nonexistent/catalog.json");
  EXPECT_EQ(c.status().message(), "cannot read the instance catalog /nonexistent/catalog.json");
}

TEST(InstanceCatalogTest, InstalledCopyIsPreferredOverBuildTreeAndSourceTree) {
  std::vector<std::string> paths = DefaultCatalogPaths("/opt/tfhost/bin", "/src/tfhost");
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0], "/opt/tfhost/share/tfhost/instance_catalog.json");
  EXPECT_EQ(paths[1], "/opt/tfhost/bin/share/tfhost/instance_catalog.json");
  EXPECT_EQ(paths[2], "/src/tfhost/src/host/data/instance_catalog.json");
}

TEST(InstanceCatalogTest, FindDefaultCatalogFallsBackToTheSourceTreeAndListsWhereItLooked) {
  auto found = FindDefaultCatalog("/nonexistent/bin", SourceDir());
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_TRUE(std::filesystem::exists(*found));
  auto missing = FindDefaultCatalog("/nonexistent/bin", "/nonexistent/src");
  TFHOST_ASSERT_ERROR(missing, StatusCode::kNotFound,
                      "no instance catalog found (looked in /nonexistent/share/tfhost/instance_catalog.json, "
                      "/nonexistent/bin/share/tfhost/instance_catalog.json,");
  EXPECT_NE(missing.status().message().find("/nonexistent/share/tfhost/instance_catalog.json"), std::string::npos);
  EXPECT_NE(missing.status().message().find("--catalog FILE"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::host::plan
