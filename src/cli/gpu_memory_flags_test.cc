#include "cli/gpu_memory_flags.h"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/test_status.h"

namespace tfhost::cli {
namespace {

GpuMemoryFlags Memory(const std::string& fraction, const std::string& growth) {
  GpuMemoryFlags gpu;
  gpu.memory_fraction = fraction;
  gpu.allow_growth = growth;
  return gpu;
}

TEST(GpuMemoryFlagsTest, DefaultsGiveThePluginNoOptions) {
  auto options = ParseGpuMemoryFlags(GpuMemoryFlags{});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->empty());
}

TEST(GpuMemoryFlagsTest, FlagsBecomeThePluginsMemoryOptions) {
  auto options = ParseGpuMemoryFlags(Memory("0.5", "false"));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ToString(), "allow_growth=false, memory_fraction=0.5");
  // 0 is TF Serving's "let the runtime choose": no option, the plugin's default.
  options = ParseGpuMemoryFlags(Memory("0", "true"));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->empty());
  options = ParseGpuMemoryFlags(Memory("1", "true"));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ToString(), "memory_fraction=1");
}

TEST(GpuMemoryFlagsTest, BadValuesNameTheFlagAndTheRange) {
  for (const char* bad : {"1.01", "-0.5", "nan", "inf", "most", "", "0.3.", "1e400"}) {
    TFHOST_EXPECT_ERROR(ParseGpuMemoryFlags(Memory(bad, "true")), StatusCode::kInvalidArgument,
                        "--per_process_gpu_memory_fraction must be a number in [0, 1], got '" + std::string(bad) +
                            "'");
  }
  for (const char* bad : {"yes", "1", "", "TRUE"}) {
    TFHOST_EXPECT_ERROR(ParseGpuMemoryFlags(Memory("0", bad)), StatusCode::kInvalidArgument,
                        "--gpu_allow_growth must be true or false, got '" + std::string(bad) + "'");
  }
}

TEST(GpuMemoryFlagsTest, AlgorithmFlagsBecomeTheAlgorithmOptions) {
  const GpuMemoryFlags gpu{"0", "true", "/srv/tfhost/algos.tsv", "exhaustive"};
  auto options = ParseGpuMemoryFlags(gpu);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ToString(), "algorithm_cache=/srv/tfhost/algos.tsv, algorithm_search=exhaustive");
  // "" is an option of its own (persistence off), not the plugin's default.
  const GpuMemoryFlags off{"0", "true", "", "heuristic"};
  options = ParseGpuMemoryFlags(off);
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ToString(), "algorithm_cache=");
}

TEST(GpuMemoryFlagsTest, AnEmptyAlgorithmCacheIsTellableFromAnAbsentOne) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--gpu_algorithm_cache="}, std::vector<std::string>{"--gpu_algorithm_cache", ""}}) {
    FlagParser flags("test", "test");
    GpuMemoryFlags gpu;
    AddGpuMemoryFlags(flags, &gpu);
    ASSERT_TRUE(flags.Parse(args).ok());
    EXPECT_EQ(gpu.algorithm_cache, std::optional<std::string>(""));
  }
  FlagParser flags("test", "test");
  GpuMemoryFlags gpu;
  AddGpuMemoryFlags(flags, &gpu);
  ASSERT_TRUE(flags.Parse({}).ok());
  EXPECT_FALSE(gpu.algorithm_cache.has_value());
}

TEST(GpuMemoryFlagsTest, ABadAlgorithmSearchNamesTheFlagAndTheValues) {
  for (const char* bad : {"", "fast", "EXHAUSTIVE", "heuristic,exhaustive"}) {
    GpuMemoryFlags gpu;
    gpu.algorithm_search = bad;
    TFHOST_EXPECT_ERROR(ParseGpuMemoryFlags(gpu), StatusCode::kInvalidArgument,
                        "--gpu_algorithm_search must be heuristic or exhaustive, got '" + std::string(bad) + "'");
  }
}

// On the CPU the flags are checked and do nothing else: no plugin is loaded.
TEST(GpuMemoryFlagsTest, OnTheCpuTheFlagsAreCheckedAndHaveNoEffect) {
  std::ostringstream err;
  auto cpu = ApplyDeviceFlags("cpu", Memory("0.5", "false"), "run", err);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  EXPECT_EQ(*cpu, &backends::BackendRegistry::Global());
  EXPECT_EQ(err.str(), "");
  TFHOST_EXPECT_ERROR(ApplyDeviceFlags("cpu", Memory("2", "true"), "run", err),
                      StatusCode::kInvalidArgument,
                      "--per_process_gpu_memory_fraction must be a number in [0, 1], got '2'");
}

}  // namespace
}  // namespace tfhost::cli
