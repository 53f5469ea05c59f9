#include "backends/plugin_options.h"

#include <gtest/gtest.h>

#include "base/test_status.h"

namespace tfhost::backends {
namespace {

TEST(PluginOptionsTest, AbsentKeysGiveThePluginsDefaults) {
  auto read = ReadDeviceMemoryOptions(BackendPluginOptions{}, "cuda", 0.9, true);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->memory_fraction, 0.9);
  EXPECT_TRUE(read->allow_growth);
}

TEST(PluginOptionsTest, FractionAndGrowthAreReadAndZeroMeansTheDefault) {
  BackendPluginOptions options;
  options.Set(kMemoryFractionOption, "0.25");
  options.Set(kAllowGrowthOption, "false");
  EXPECT_EQ(options.ToString(), "allow_growth=false, memory_fraction=0.25");
  auto read = ReadDeviceMemoryOptions(options, "cuda", 0.9, true);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->memory_fraction, 0.25);
  EXPECT_FALSE(read->allow_growth);
  options.Set(kMemoryFractionOption, "0");
  read = ReadDeviceMemoryOptions(options, "cuda", 0.9, true);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->memory_fraction, 0.9);
}

TEST(PluginOptionsTest, BadValuesAndUnknownKeysAreRefusedNamingThem) {
  for (const char* bad : {"1.5", "-0.1", "nan", "inf", "half", "", "0.5x"}) {
    BackendPluginOptions options;
    options.Set(kMemoryFractionOption, bad);
    TFHOST_EXPECT_ERROR(ReadDeviceMemoryOptions(options, "cuda", 0.9, true), StatusCode::kInvalidArgument,
                        "cuda plugin: option memory_fraction must be a number in [0, 1], got '" + std::string(bad) +
                            "'");
  }
  BackendPluginOptions growth;
  growth.Set(kAllowGrowthOption, "yes");
  TFHOST_EXPECT_ERROR(ReadDeviceMemoryOptions(growth, "cuda", 0.9, true), StatusCode::kInvalidArgument,
                      "cuda plugin: option allow_growth must be true or false, got 'yes'");
  BackendPluginOptions unknown;
  unknown.Set("memory_limit", "5");
  TFHOST_EXPECT_ERROR(ReadDeviceMemoryOptions(unknown, "cuda", 0.9, true), StatusCode::kInvalidArgument,
                      "cuda plugin: unknown option 'memory_limit' (it takes memory_fraction, allow_growth, "
                      "algorithm_cache, algorithm_search)");
}

TEST(PluginOptionsTest, AlgorithmOptionsAreReadAndAbsentMeansThePluginsDefault) {
  auto read = ReadDeviceAlgorithmOptions(BackendPluginOptions{}, "cuda");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE(read->cache_path.has_value());
  EXPECT_FALSE(read->exhaustive_search);
  BackendPluginOptions options;
  options.Set(kAlgorithmCacheOption, "");  // persistence off, not the default path
  options.Set(kAlgorithmSearchOption, "exhaustive");
  EXPECT_TRUE(ReadDeviceMemoryOptions(options, "cuda", 0.9, true).ok());  // the keys are device plugins' keys
  read = ReadDeviceAlgorithmOptions(options, "cuda");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->cache_path, std::optional<std::string>(""));
  EXPECT_TRUE(read->exhaustive_search);
  options.Set(kAlgorithmCacheOption, "/var/cache/tfhost/algos.tsv");
  options.Set(kAlgorithmSearchOption, "heuristic");
  read = ReadDeviceAlgorithmOptions(options, "cuda");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->cache_path, std::optional<std::string>("/var/cache/tfhost/algos.tsv"));
  EXPECT_FALSE(read->exhaustive_search);
}

TEST(PluginOptionsTest, ABadAlgorithmSearchNamesTheOptionAndTheAllowedValues) {
  for (const char* bad : {"", "fast", "Exhaustive", "heuristic "}) {
    BackendPluginOptions options;
    options.Set(kAlgorithmSearchOption, bad);
    TFHOST_EXPECT_ERROR(ReadDeviceAlgorithmOptions(options, "cuda"), StatusCode::kInvalidArgument,
                        "cuda plugin: option algorithm_search must be heuristic or exhaustive, got '" +
                            std::string(bad) + "'");
  }
}

}  // namespace
}  // namespace tfhost::backends
