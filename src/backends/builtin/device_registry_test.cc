// --device's registries with the GPU plugin's options: the options given
// before the plugin loads reach its GPUs (here the stand-in plugin's fake
// GPU, cuda:0), and other options once it is loaded are refused. One test:
// the plugin loads once per process.
#include "backends/builtin/device_registry.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "base/test_status.h"

namespace tfhost::backends {
namespace {

TEST(DeviceRegistryTest, GpuPluginOptionsReachItsGpusAndAreFixedOnceItLoads) {
  ::setenv("TFHOST_PLUGIN_PATH", TFHOST_FAKE_CUDA_PLUGIN_DIR, 1);
  BackendPluginOptions options;
  options.Set(kMemoryFractionOption, "0.5");
  ASSERT_TRUE(SetGpuPluginOptions(options).ok());

  auto gpu = ForDevice(DeviceChoice{DeviceChoice::Kind::kGpu, 0});
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  EXPECT_EQ(gpu->device, "cuda:0");
  const Backend* cuda = gpu->registry->Find("cuda:0");
  ASSERT_NE(cuda, nullptr);
  std::optional<DeviceMemoryStats> memory = cuda->device_memory();
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ(memory->allocator.bytes_limit, int64_t{2} << 30);  // half the fake GPU's 4 GiB

  // The same options again change nothing; others cannot apply any more.
  EXPECT_TRUE(SetGpuPluginOptions(options).ok());
  TFHOST_EXPECT_ERROR(SetGpuPluginOptions(BackendPluginOptions{}), StatusCode::kFailedPrecondition,
                      "the CUDA plugin is already loaded with options memory_fraction=0.5; it cannot take none in "
                      "the same process");
  ::unsetenv("TFHOST_PLUGIN_PATH");
}

}  // namespace
}  // namespace tfhost::backends
