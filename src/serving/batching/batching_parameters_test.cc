#include "serving/batching/batching_parameters.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "base/test_fixtures.h"
#include "base/test_status.h"

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
  TFHOST_ASSERT_ERROR(
      config, StatusCode::kInvalidArgument,
      "dec.txt: BatchingParameters.allowed_batch_sizes entries must be strictly increasing; got [4, 2, 8]");
  EXPECT_NE(config.status().message().find("dec.txt"), std::string::npos);
  EXPECT_NE(config.status().message().find("allowed_batch_sizes"), std::string::npos);
  EXPECT_NE(config.status().message().find("increasing"), std::string::npos);
}

TEST(BatchingParametersTest, LastAllowedSizeMustEqualMaxBatchSize) {
  auto config = ParseBatchingParameters("max_batch_size { value: 8 }\nallowed_batch_sizes: 2\nallowed_batch_sizes: 4\n",
                                        "last.txt");
  TFHOST_ASSERT_ERROR(config, StatusCode::kInvalidArgument,
                      "last.txt: BatchingParameters.allowed_batch_sizes must end with max_batch_size (8); got [2, 4]");
  EXPECT_NE(config.status().message().find("must end with max_batch_size (8)"), std::string::npos)
      << config.status().message();
}

TEST(BatchingParametersTest, WithSplittingLastAllowedSizeMustEqualMaxExecutionBatchSize) {
  auto config = ParseBatchingParameters(
      "max_batch_size { value: 64 }\nenable_large_batch_splitting { value: true }\n"
      "max_execution_batch_size { value: 16 }\nallowed_batch_sizes: 8\nallowed_batch_sizes: 64\n",
      "exec.txt");
  TFHOST_ASSERT_ERROR(config, StatusCode::kInvalidArgument,
                      "exec.txt: BatchingParameters.allowed_batch_sizes must end with max_execution_batch_size (16, "
                      "since enable_large_batch_splitting is on); got");
  EXPECT_NE(config.status().message().find("max_execution_batch_size (16"), std::string::npos)
      << config.status().message();
}

TEST(BatchingParametersTest, RejectsNonPositiveAndNegativeValues) {
  for (const char* text : {"max_batch_size { value: 0 }", "batch_timeout_micros { value: -1 }",
                           "max_enqueued_batches { value: -5 }", "num_batch_threads { value: 0 }",
                           "num_batch_threads { value: 100000000 }", "allowed_batch_sizes: 0",
                           "max_execution_batch_size { value: -3 }"}) {
    auto config = ParseBatchingParameters(text, "bad.txt");
    TFHOST_EXPECT_ERROR(config, StatusCode::kInvalidArgument, "bad.txt: BatchingParameters.") << text;
    if (!config.ok()) {
      EXPECT_NE(config.status().message().find("bad.txt: BatchingParameters."), std::string::npos);
    }
  }
}

TEST(BatchingParametersTest, UnknownFieldAndSyntaxErrorsNameLineAndColumn) {
  auto unknown = ParseBatchingParameters("max_batch_size { value: 8 }\nmax_batch_sise { value: 8 }\n", "typo.txt");
  TFHOST_ASSERT_ERROR(unknown, StatusCode::kInvalidArgument,
                      "typo.txt: not a valid BatchingParameters text proto: line 2, column 16: Message type "
                      "\"tensorflow.serving.BatchingParameters\" has no field");
  EXPECT_NE(unknown.status().message().find("typo.txt"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("line 2"), std::string::npos) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("max_batch_sise"), std::string::npos);

  // Plain integers where TF Serving's wrappers are expected.
  auto unwrapped = ParseBatchingParameters("max_batch_size: 8\n", "plain.txt");
  TFHOST_EXPECT_ERROR(unwrapped, StatusCode::kInvalidArgument,
                      "plain.txt: not a valid BatchingParameters text proto: line 1, column 17: Expected \"{\", found "
                      "\"8\". (fields: max_batch_size,");
  auto garbage = ParseBatchingParameters("max_batch_size { value: eight }", "garbage.txt");
  TFHOST_EXPECT_ERROR(garbage, StatusCode::kInvalidArgument,
                      "garbage.txt: not a valid BatchingParameters text proto: line 1, column 25: Expected integer, "
                      "got: eight (fields: max_batch_size,");
}

TEST(BatchingParametersTest, AcceptsTfServingsNewerPriorityAndPaddingFields) {
  auto config = ParseBatchingParameters(R"pb(
    max_batch_size { value: 64 }
    allowed_batch_sizes: 16
    allowed_batch_sizes: 64
    low_priority_max_batch_size { value: 32 }
    low_priority_batch_timeout_micros { value: 5000 }
    low_priority_max_enqueued_batches { value: 7 }
    low_priority_allowed_batch_sizes: 8
    low_priority_allowed_batch_sizes: 32
    mixed_priority_batching_policy: PRIORITY_ISOLATION
    batch_padding_policy { value: "PAD_UP" }
  )pb",
                                        "new.config");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->max_batch_size, 64);
  EXPECT_EQ(config->allowed_batch_sizes, (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(config->low_priority_max_batch_size, 32);
  EXPECT_EQ(config->low_priority_batch_timeout_micros, 5000);
  EXPECT_EQ(config->low_priority_max_enqueued_batches, 7);
  EXPECT_EQ(config->low_priority_allowed_batch_sizes, (std::vector<int64_t>{8, 32}));
  EXPECT_EQ(config->mixed_priority_batching_policy, "PRIORITY_ISOLATION");
  EXPECT_EQ(config->batch_padding_policy, "PAD_UP");
  EXPECT_NE(config->DebugString().find("low_priority_max_batch_size=32"), std::string::npos);
}

TEST(BatchingParametersTest, NewerFieldsAreValidatedNamingTheField) {
  auto bad_sizes = ParseBatchingParameters(
      "low_priority_max_batch_size { value: 32 } low_priority_allowed_batch_sizes: 8 "
      "low_priority_allowed_batch_sizes: 16",
      "f");
  TFHOST_ASSERT_ERROR(bad_sizes, StatusCode::kInvalidArgument,
                      "f: BatchingParameters.low_priority_allowed_batch_sizes must end with "
                      "low_priority_max_batch_size (32); got [8, 16]");
  EXPECT_NE(bad_sizes.status().message().find("f: BatchingParameters.low_priority_allowed_batch_sizes must end with "
                                              "low_priority_max_batch_size (32); got [8, 16]"),
            std::string::npos)
      << bad_sizes.status().message();
  auto zero = ParseBatchingParameters("low_priority_max_batch_size { value: 0 }", "f");
  TFHOST_ASSERT_ERROR(zero, StatusCode::kInvalidArgument,
                      "f: BatchingParameters.low_priority_max_batch_size must be positive, got 0");
  EXPECT_NE(zero.status().message().find("low_priority_max_batch_size must be positive"), std::string::npos);
  auto bad_enum = ParseBatchingParameters("mixed_priority_batching_policy: SOMETIMES", "f");
  TFHOST_ASSERT_ERROR(bad_enum, StatusCode::kInvalidArgument,
                      "f: not a valid BatchingParameters text proto: line 1, column 42: Unknown enumeration value of "
                      "\"SOMETIMES\" for field");
  EXPECT_NE(bad_enum.status().message().find("line 1"), std::string::npos) << bad_enum.status().message();
}

TEST(BatchingParametersTest, PaddingPoliciesOtherThanPadUpAreRefusedWithTheReason) {
  auto down = ParseBatchingParameters(R"(batch_padding_policy { value: "BATCH_DOWN" })", "f");
  TFHOST_ASSERT_ERROR(down, StatusCode::kInvalidArgument,
                      "f: BatchingParameters.batch_padding_policy \"BATCH_DOWN\" is not supported by tfhost yet "
                      "(requests are placed into a batch when they arrive,");
  EXPECT_NE(down.status().message().find("BatchingParameters.batch_padding_policy \"BATCH_DOWN\" is not supported"),
            std::string::npos)
      << down.status().message();
  auto tpu = ParseBatchingParameters(R"(batch_padding_policy { value: "MINIMIZE_TPU_COST_PER_REQUEST" })", "f");
  TFHOST_ASSERT_ERROR(tpu, StatusCode::kInvalidArgument,
                      "f: BatchingParameters.batch_padding_policy \"MINIMIZE_TPU_COST_PER_REQUEST\" chooses between "
                      "padding and splitting from TPU cost");
  EXPECT_NE(tpu.status().message().find("TPU cost"), std::string::npos) << tpu.status().message();
  auto typo = ParseBatchingParameters(R"(batch_padding_policy { value: "PADUP" })", "f");
  TFHOST_ASSERT_ERROR(typo, StatusCode::kInvalidArgument,
                      "f: BatchingParameters.batch_padding_policy must be \"PAD_UP\", \"BATCH_DOWN\" or "
                      "\"MINIMIZE_TPU_COST_PER_REQUEST\" (only PAD_UP is supported),");
  EXPECT_NE(typo.status().message().find("got \"PADUP\""), std::string::npos) << typo.status().message();
}

TEST(BatchingParametersTest, MissingFileIsNotFound) {
  auto config = LoadBatchingParametersFile("/nonexistent/batching.txt");
  TFHOST_ASSERT_ERROR(config, StatusCode::kNotFound, "cannot open batching parameters file /nonexistent/batching.txt");
  EXPECT_NE(config.status().message().find("/nonexistent/batching.txt"), std::string::npos);
}

TEST(BatchingParametersTest, AdaptiveModeNeedsTargetLatency) {
  BatchingConfig config = DefaultBatchingConfig();
  config.mode = BatchingMode::kAdaptive;
  TFHOST_EXPECT_ERROR(ValidateBatchingConfig(config, "flags"), StatusCode::kInvalidArgument,
                      "flags: --batching_mode=adaptive needs --target_latency_ms > 0, got 0.000000");
  config.target_latency_ms = 20;
  EXPECT_TRUE(ValidateBatchingConfig(config, "flags").ok());
  EXPECT_TRUE(ParseBatchingMode("adaptive").ok());
  TFHOST_EXPECT_ERROR(ParseBatchingMode("fast"), StatusCode::kInvalidArgument,
                      "--batching_mode must be 'fixed' or 'adaptive', got 'fast'");
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
