#include "cli/gpu_memory_flags.h"

#include <gtest/gtest.h>

#include <sstream>

#include "base/test_status.h"

namespace tfhost::cli {
namespace {

TEST(GpuMemoryFlagsTest, DefaultsGiveThePluginNoOptions) {
  auto options = ParseGpuMemoryFlags(GpuMemoryFlags{});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->empty());
}

TEST(GpuMemoryFlagsTest, FlagsBecomeThePluginsMemoryOptions) {
  auto options = ParseGpuMemoryFlags(GpuMemoryFlags{"0.5", "false"});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ToString(), "allow_growth=false, memory_fraction=0.5");
  // 0 is TF Serving's "let the runtime choose": no option, the plugin's default.
  options = ParseGpuMemoryFlags(GpuMemoryFlags{"0", "true"});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->empty());
  options = ParseGpuMemoryFlags(GpuMemoryFlags{"1", "true"});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ToString(), "memory_fraction=1");
}

TEST(GpuMemoryFlagsTest, BadValuesNameTheFlagAndTheRange) {
  for (const char* bad : {"1.01", "-0.5", "nan", "inf", "most", "", "0.3.", "1e400"}) {
    TFHOST_EXPECT_ERROR(ParseGpuMemoryFlags(GpuMemoryFlags{bad, "true"}), StatusCode::kInvalidArgument,
                        "--per_process_gpu_memory_fraction must be a number in [0, 1], got '" + std::string(bad) +
                            "'");
  }
  for (const char* bad : {"yes", "1", "", "TRUE"}) {
    TFHOST_EXPECT_ERROR(ParseGpuMemoryFlags(GpuMemoryFlags{"0", bad}), StatusCode::kInvalidArgument,
                        "--gpu_allow_growth must be true or false, got '" + std::string(bad) + "'");
  }
}

// On the CPU the flags are checked and do nothing else: no plugin is loaded.
TEST(GpuMemoryFlagsTest, OnTheCpuTheFlagsAreCheckedAndHaveNoEffect) {
  std::ostringstream err;
  auto cpu = ApplyDeviceFlags("cpu", GpuMemoryFlags{"0.5", "false"}, "run", err);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  EXPECT_EQ(*cpu, &backends::BackendRegistry::Global());
  EXPECT_EQ(err.str(), "");
  TFHOST_EXPECT_ERROR(ApplyDeviceFlags("cpu", GpuMemoryFlags{"2", "true"}, "run", err),
                      StatusCode::kInvalidArgument,
                      "--per_process_gpu_memory_fraction must be a number in [0, 1], got '2'");
}

}  // namespace
}  // namespace tfhost::cli
