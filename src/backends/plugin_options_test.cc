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
                      "cuda plugin: unknown option 'memory_limit' (it takes memory_fraction, allow_growth)");
}

}  // namespace
}  // namespace tfhost::backends
