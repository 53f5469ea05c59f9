// The CUDA plugin's options (cuda/cuda_plugin_options.h): which keys it
// takes, what it refuses and with which words, and where the algorithm
// cache goes by default. The plugin itself cannot make a backend without a
// GPU; its option parsing is the part that reads the same everywhere.
#include "backends/cuda/cuda_plugin_options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "base/test_status.h"

namespace tfhost::backends::cuda {
namespace {

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CudaPluginOptionsTest, NoOptionsGiveTheDefaults) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/someone");
  auto read = ParseCudaPluginOptions(BackendPluginOptions{});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->memory_fraction, 0.9);
  EXPECT_TRUE(read->allow_growth);
  EXPECT_EQ(read->algorithm_cache_path, "/var/cache/someone/tfhost/gpu_algorithms.tsv");
  EXPECT_FALSE(read->exhaustive_search);
}

TEST(CudaPluginOptionsTest, EveryKeyIsTaken) {
  BackendPluginOptions options;
  options.Set(kMemoryFractionOption, "0.5");
  options.Set(kAllowGrowthOption, "false");
  options.Set(kAlgorithmCacheOption, "/tmp/algos.tsv");
  options.Set(kAlgorithmSearchOption, "exhaustive");
  auto read = ParseCudaPluginOptions(options);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->memory_fraction, 0.5);
  EXPECT_FALSE(read->allow_growth);
  EXPECT_EQ(read->algorithm_cache_path, "/tmp/algos.tsv");
  EXPECT_TRUE(read->exhaustive_search);
  // An empty path turns persistence off rather than meaning the default.
  options.Set(kAlgorithmCacheOption, "");
  read = ParseCudaPluginOptions(options);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->algorithm_cache_path, "");
}

TEST(CudaPluginOptionsTest, BadValuesAndUnknownKeysAreRefusedNamingThePluginAndTheOption) {
  BackendPluginOptions search;
  search.Set(kAlgorithmSearchOption, "fastest");
  TFHOST_EXPECT_ERROR(ParseCudaPluginOptions(search), StatusCode::kInvalidArgument,
                      "cuda plugin: option algorithm_search must be heuristic or exhaustive, got 'fastest'");
  BackendPluginOptions unknown;
  unknown.Set("algorithm_cache_path", "/tmp/x");
  TFHOST_EXPECT_ERROR(ParseCudaPluginOptions(unknown), StatusCode::kInvalidArgument,
                      "cuda plugin: unknown option 'algorithm_cache_path' (it takes memory_fraction, allow_growth, "
                      "algorithm_cache, algorithm_search)");
  BackendPluginOptions fraction;
  fraction.Set(kMemoryFractionOption, "2");
  TFHOST_EXPECT_ERROR(ParseCudaPluginOptions(fraction), StatusCode::kInvalidArgument,
                      "cuda plugin: option memory_fraction must be a number in [0, 1], got '2'");
}

TEST(CudaPluginOptionsTest, TheDefaultCacheFollowsXdgThenHome) {
  EXPECT_EQ(DefaultAlgorithmCachePath("/xdg", "/home/u"), "/xdg/tfhost/gpu_algorithms.tsv");
  // The XDG spec: a relative or empty XDG_CACHE_HOME is ignored.
  EXPECT_EQ(DefaultAlgorithmCachePath("relative", "/home/u"), "/home/u/.cache/tfhost/gpu_algorithms.tsv");
  EXPECT_EQ(DefaultAlgorithmCachePath("", "/home/u"), "/home/u/.cache/tfhost/gpu_algorithms.tsv");
  EXPECT_EQ(DefaultAlgorithmCachePath(nullptr, "/home/u"), "/home/u/.cache/tfhost/gpu_algorithms.tsv");
  EXPECT_EQ(DefaultAlgorithmCachePath(nullptr, nullptr), "");  // nowhere to keep it: memory only
  EXPECT_EQ(DefaultAlgorithmCachePath(nullptr, ""), "");
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/tester");
  auto read = ParseCudaPluginOptions(BackendPluginOptions{});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->algorithm_cache_path, "/home/tester/.cache/tfhost/gpu_algorithms.tsv");
}

}  // namespace
}  // namespace tfhost::backends::cuda
