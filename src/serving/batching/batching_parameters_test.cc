#include "serving/batching/batching_parameters.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "base/test_fixtures.h"

namespace tfhost::serving::batching {
namespace {

using ::tfhost::testing::FixturePath;

TEST(BatchingParametersTest, ParsesTfServingFixtureBatchingConfig) {
  const std::string path = FixturePath("tfserving-configs/batching_config.txt");
  TFHOST_REQUIRE_FIXTURE(path);
  auto config = LoadBatchingParametersFile(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->max_batch_size, 128);
  EXPECT_EQ(config->batch_timeout_micros, 0);
  EXPECT_EQ(config->max_enqueued_batches, 1000000);
  EXPECT_EQ(config->num_batch_threads, 8);
  EXPECT_TRUE(config->allowed_batch_sizes.empty());
  EXPECT_EQ(config->ExecutionBatchSize(), 128);
}

TEST(BatchingParametersTest, ParsesFixtureWithEveryFieldAndComments) {
  const std::string path = FixturePath("tfserving-configs/derived/batching_parameters_full.txt");
  TFHOST_REQUIRE_FIXTURE(path);
  auto config = LoadBatchingParametersFile(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->max_batch_size, 1000);
  EXPECT_EQ(config->max_enqueued_batches, 10);
  EXPECT_EQ(config->num_batch_threads, 8);
  EXPECT_EQ(config->thread_pool_name, "model_server_batch_threads");
  EXPECT_FALSE(config->enable_large_batch_splitting);
  EXPECT_FALSE(config->pad_variable_length_inputs);
}

TEST(BatchingParametersTest, OmittedFieldsTakeTfServingDefaults) {
  auto config = ParseBatchingParameters("", "empty.txt");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->max_batch_size, 1000);
  EXPECT_EQ(config->batch_timeout_micros, 0);
  EXPECT_EQ(config->max_enqueued_batches, 10);
  EXPECT_GE(config->num_batch_threads, 1);
}

TEST(BatchingParametersTest, ReadsAllowedSizesSplittingAndPadding) {
  auto config = ParseBatchingParameters(
      "max_batch_size { value: 64 }\n"
      "enable_large_batch_splitting { value: true }\n"
      "max_execution_batch_size { value: 16 }\n"
      "allowed_batch_sizes: 4\nallowed_batch_sizes: 8\nallowed_batch_sizes: 16\n"
      "pad_variable_length_inputs: true\n",
      "split.txt");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->allowed_batch_sizes, (std::vector<int64_t>{4, 8, 16}));
  EXPECT_TRUE(config->enable_large_batch_splitting);
  EXPECT_TRUE(config->pad_variable_length_inputs);
  EXPECT_EQ(config->ExecutionBatchSize(), 16);
}

TEST(BatchingParametersTest, AllowedSizesMustIncrease) {
  auto config = ParseBatchingParameters(
      "max_batch_size { value: 8 }\nallowed_batch_sizes: 4\nallowed_batch_sizes: 2\nallowed_batch_sizes: 8\n",
      "dec.txt");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(config.status().message().find("dec.txt"), std::string::npos);
  EXPECT_NE(config.status().message().find("allowed_batch_sizes"), std::string::npos);
  EXPECT_NE(config.status().message().find("increasing"), std::string::npos);
}

TEST(BatchingParametersTest, LastAllowedSizeMustEqualMaxBatchSize) {
  auto config = ParseBatchingParameters("max_batch_size { value: 8 }\nallowed_batch_sizes: 2\nallowed_batch_sizes: 4\n",
                                        "last.txt");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("must end with max_batch_size (8)"), std::string::npos)
      << config.status().message();
}

TEST(BatchingParametersTest, WithSplittingLastAllowedSizeMustEqualMaxExecutionBatchSize) {
  auto config = ParseBatchingParameters(
      "max_batch_size { value: 64 }\nenable_large_batch_splitting { value: true }\n"
      "max_execution_batch_size { value: 16 }\nallowed_batch_sizes: 8\nallowed_batch_sizes: 64\n",
      "exec.txt");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("max_execution_batch_size (16"), std::string::npos)
      << config.status().message();
}

TEST(BatchingParametersTest, RejectsNonPositiveAndNegativeValues) {
  for (const char* text : {"max_batch_size { value: 0 }", "batch_timeout_micros { value: -1 }",
                           "max_enqueued_batches { value: -5 }", "num_batch_threads { value: 0 }",
                           "num_batch_threads { value: 100000000 }", "allowed_batch_sizes: 0",
                           "max_execution_batch_size { value: -3 }"}) {
    auto config = ParseBatchingParameters(text, "bad.txt");
    EXPECT_FALSE(config.ok()) << text;
    if (!config.ok()) {
      EXPECT_NE(config.status().message().find("bad.txt: BatchingParameters."), std::string::npos);
    }
  }
}

TEST(BatchingParametersTest, UnknownFieldAndSyntaxErrorsNameLineAndColumn) {
  auto unknown = ParseBatchingParameters("max_batch_size { value: 8 }\nmax_batch_sise { value: 8 }\n", "typo.txt");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("typo.txt"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("line 2"), std::string::npos) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("max_batch_sise"), std::string::npos);

  // Plain integers where TF Serving's wrappers are expected.
  auto unwrapped = ParseBatchingParameters("max_batch_size: 8\n", "plain.txt");
  EXPECT_FALSE(unwrapped.ok());
  auto garbage = ParseBatchingParameters("max_batch_size { value: eight }", "garbage.txt");
  EXPECT_FALSE(garbage.ok());
}

TEST(BatchingParametersTest, MissingFileIsNotFound) {
  auto config = LoadBatchingParametersFile("/nonexistent/batching.txt");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kNotFound);
  EXPECT_NE(config.status().message().find("/nonexistent/batching.txt"), std::string::npos);
}

TEST(BatchingParametersTest, AdaptiveModeNeedsTargetLatency) {
  BatchingConfig config = DefaultBatchingConfig();
  config.mode = BatchingMode::kAdaptive;
  EXPECT_FALSE(ValidateBatchingConfig(config, "flags").ok());
  config.target_latency_ms = 20;
  EXPECT_TRUE(ValidateBatchingConfig(config, "flags").ok());
  EXPECT_TRUE(ParseBatchingMode("adaptive").ok());
  EXPECT_FALSE(ParseBatchingMode("fast").ok());
}

TEST(BatchingParametersTest, RoundsUpToNextAllowedSize) {
  const std::vector<int64_t> allowed = {2, 4, 8};
  EXPECT_EQ(RoundUpToAllowedBatchSize(allowed, 1), 2);
  EXPECT_EQ(RoundUpToAllowedBatchSize(allowed, 3), 4);
  EXPECT_EQ(RoundUpToAllowedBatchSize(allowed, 8), 8);
  EXPECT_EQ(RoundUpToAllowedBatchSize({}, 5), 5);
}

}  // namespace
}  // namespace tfhost::serving::batching
