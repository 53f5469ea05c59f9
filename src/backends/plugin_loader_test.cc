#include "backends/plugin_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "backends/reference_backend.h"

namespace tfhost::backends {
namespace {

// Points the loader at one folder for the duration of a test.
class PluginPath {
 public:
  explicit PluginPath(const std::string& dir) { ::setenv("TFHOST_PLUGIN_PATH", dir.c_str(), 1); }
  ~PluginPath() { ::unsetenv("TFHOST_PLUGIN_PATH"); }
};

TEST(PluginLoaderTest, SearchPathIsTheEnvironmentThenBesideTheExecutableThenLib) {
  PluginPath path("/opt/a:/opt/b");
  const std::vector<std::string> dirs = PluginSearchPath();
  ASSERT_GE(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/opt/a");
  EXPECT_EQ(dirs[1], "/opt/b");
  EXPECT_EQ(dirs[3].substr(dirs[3].size() - 4), "/lib");
}

TEST(PluginLoaderTest, APluginAddsItsBackendsToTheRegistry) {
  PluginPath path(TFHOST_TEST_PLUGIN_DIR);
  BackendRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_unique<ReferenceBackend>()).ok());
  const PluginReport report = LoadBackendPlugin("fake", registry);
  EXPECT_TRUE(report.loaded) << report.detail;
  EXPECT_EQ(report.backends, 1);
  EXPECT_EQ(report.detail, "added fake_device");
  EXPECT_EQ(report.path, std::string(TFHOST_TEST_PLUGIN_DIR) + "/libtfhost_fake.so");
  const Backend* device = registry.Find("fake_device");
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device->memory_space(), MemorySpace::Device(0));
  EXPECT_EQ(registry.backends().front(), device);  // priority 100, ahead of the reference
}

// The options reach the plugin's factory: the fake device's BfcAllocator
// may take memory_fraction of its pretend 4 GiB, and without allow_growth
// takes all of it at the first allocation.
TEST(PluginLoaderTest, OptionsReachThePluginsBackends) {
  PluginPath path(TFHOST_TEST_PLUGIN_DIR);
  BackendRegistry registry;
  BackendPluginOptions options;
  options.Set(kMemoryFractionOption, "0.01");
  options.Set(kAllowGrowthOption, "false");
  const PluginReport report = LoadBackendPlugin("fake", registry, options);
  ASSERT_EQ(report.backends, 1) << report.detail;
  const Backend* device = registry.Find("fake_device");
  ASSERT_NE(device, nullptr);
  const int64_t limit = static_cast<int64_t>(static_cast<double>(int64_t{4} << 30) * 0.01);
  std::optional<DeviceMemoryStats> before = device->device_memory();
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->allocator.bytes_limit, limit);
  EXPECT_EQ(before->bytes_reserved, 0);
  auto t = Tensor::Allocate(DType::kFloat, Shape({16}), device->allocator());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  std::optional<DeviceMemoryStats> after = device->device_memory();
  EXPECT_EQ(after->allocator.bytes_in_use, 256);  // 64 bytes, rounded up to the BFC's alignment
  EXPECT_EQ(after->bytes_reserved, limit / 256 * 256);
}

TEST(PluginLoaderTest, ABadOptionAddsNothingAndSaysWhy) {
  PluginPath path(TFHOST_TEST_PLUGIN_DIR);
  BackendRegistry registry;
  BackendPluginOptions options;
  options.Set(kMemoryFractionOption, "2");
  const PluginReport report = LoadBackendPlugin("fake", registry, options);
  EXPECT_TRUE(report.loaded);
  EXPECT_EQ(report.backends, 0);
  EXPECT_EQ(report.detail, "fake_device plugin: option memory_fraction must be a number in [0, 1], got '2'");
  EXPECT_TRUE(registry.backends().empty());
}

// The device plugins take the algorithm options too, and refuse a bad one
// with the same words as the CUDA plugin (below).
TEST(PluginLoaderTest, TheFakeDeviceTakesTheAlgorithmOptionsAndRefusesBadOnes) {
  PluginPath path(TFHOST_TEST_PLUGIN_DIR);
  BackendRegistry registry;
  BackendPluginOptions options;
  options.Set(kAlgorithmCacheOption, "");
  options.Set(kAlgorithmSearchOption, "exhaustive");
  const PluginReport good = LoadBackendPlugin("fake", registry, options);
  EXPECT_EQ(good.backends, 1) << good.detail;
  BackendRegistry other;
  options.Set(kAlgorithmSearchOption, "fastest");
  const PluginReport bad = LoadBackendPlugin("fake", other, options);
  EXPECT_EQ(bad.backends, 0);
  EXPECT_EQ(bad.detail, "fake_device plugin: option algorithm_search must be heuristic or exhaustive, got 'fastest'");
}

TEST(PluginLoaderTest, MissingOrForeignLibrariesAreReportedNotFatal) {
  PluginPath path(TFHOST_TEST_PLUGIN_DIR);
  BackendRegistry registry;
  PluginReport missing = LoadBackendPlugin("nothing", registry);
  EXPECT_FALSE(missing.loaded);
  EXPECT_EQ(missing.path, "");
  EXPECT_EQ(missing.detail.rfind("no libtfhost_nothing.so in " + std::string(TFHOST_TEST_PLUGIN_DIR) + ", ", 0), 0u)
      << missing.detail;
  PluginReport bogus = LoadBackendPlugin("bogus", registry);
  EXPECT_FALSE(bogus.loaded);
  EXPECT_EQ(bogus.detail,
            "not a tfhost backend plugin (tfhost_backend_plugin_abi or tfhost_backend_plugin_register missing)");
  EXPECT_TRUE(registry.backends().empty());
}

// The real CUDA plugin, when this build has one: on a machine with a usable
// GPU it adds cuda:0 and up; anywhere else it loads and says why it added
// nothing, and the process goes on.
TEST(PluginLoaderTest, CudaPluginAddsAGpuBackendOrSaysWhyNone) {
  const std::string dir = TFHOST_CUDA_PLUGIN_DIR;
  if (dir.empty()) GTEST_SKIP() << "this build has no CUDA plugin (TFHOST_CUDA=OFF or no toolkit)";
  PluginPath path(dir);
  BackendRegistry registry;
  const PluginReport report = LoadBackendPlugin("cuda", registry);
  ASSERT_TRUE(report.loaded) << report.detail;
  if (report.backends == 0) {
    EXPECT_EQ(report.detail.rfind("no usable GPU: ", 0), 0u) << report.detail;
    EXPECT_NE(report.detail.find("CUDA runtime "), std::string::npos) << report.detail;
    EXPECT_TRUE(registry.backends().empty());
  } else {
    ASSERT_NE(registry.Find("cuda:0"), nullptr) << report.detail;
    EXPECT_EQ(registry.Find("cuda:0")->memory_space(), MemorySpace::Device(0));
  }
}

// The CUDA plugin reads its options before it touches a device, so on any
// machine it refuses a bad one naming it, and takes the algorithm keys
// (without a GPU it then says there is none).
TEST(PluginLoaderTest, CudaPluginChecksItsOptionsOnAnyMachine) {
  const std::string dir = TFHOST_CUDA_PLUGIN_DIR;
  if (dir.empty()) GTEST_SKIP() << "this build has no CUDA plugin (TFHOST_CUDA=OFF or no toolkit)";
  PluginPath path(dir);
  BackendRegistry registry;
  BackendPluginOptions bad;
  bad.Set(kAlgorithmSearchOption, "fastest");
  const PluginReport refused = LoadBackendPlugin("cuda", registry, bad);
  ASSERT_TRUE(refused.loaded) << refused.detail;
  EXPECT_EQ(refused.backends, 0);
  EXPECT_EQ(refused.detail, "cuda plugin: option algorithm_search must be heuristic or exhaustive, got 'fastest'");
  BackendPluginOptions unknown;
  unknown.Set("algorithm_cache_dir", "/tmp");
  EXPECT_EQ(LoadBackendPlugin("cuda", registry, unknown).detail,
            "cuda plugin: unknown option 'algorithm_cache_dir' (it takes memory_fraction, allow_growth, "
            "algorithm_cache, algorithm_search)");
  BackendPluginOptions good;
  good.Set(kAlgorithmCacheOption, "");  // nothing written, even where there is a GPU
  good.Set(kAlgorithmSearchOption, "exhaustive");
  const PluginReport taken = LoadBackendPlugin("cuda", registry, good);
  if (taken.backends == 0) {
    EXPECT_EQ(taken.detail.rfind("no usable GPU: ", 0), 0u) << taken.detail;
  }
}

}  // namespace
}  // namespace tfhost::backends
