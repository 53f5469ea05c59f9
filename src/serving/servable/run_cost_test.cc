#include "serving/servable/run_cost.h"

#include <gtest/gtest.h>

#include <map>

namespace tfhost::serving {
namespace {

using std::chrono::microseconds;

constexpr microseconds kLimit{200};

void RecordFast(SignatureRunCosts& costs, const std::string& signature, int runs, int64_t elements = 1) {
  for (int i = 0; i < runs; ++i) costs.Record(signature, elements, microseconds(10), kLimit);
}

TEST(SignatureRunCostsTest, UnmeasuredSignatureDoesNotRunInline) {
  SignatureRunCosts costs;
  EXPECT_FALSE(costs.MayRunInline("serving_default", 1));
}

TEST(SignatureRunCostsTest, StreakOfFastRunsAllowsInline) {
  SignatureRunCosts costs;
  RecordFast(costs, "s", SignatureRunCosts::kFastRunsNeeded - 1);
  EXPECT_FALSE(costs.MayRunInline("s", 1));
  RecordFast(costs, "s", 1);
  EXPECT_TRUE(costs.MayRunInline("s", 1));
}

TEST(SignatureRunCostsTest, OneSlowRunEndsTheStreak) {
  SignatureRunCosts costs;
  RecordFast(costs, "s", SignatureRunCosts::kFastRunsNeeded);
  ASSERT_TRUE(costs.MayRunInline("s", 1));
  costs.Record("s", 1, kLimit, kLimit);  // at the limit counts as slow
  EXPECT_FALSE(costs.MayRunInline("s", 1));
  RecordFast(costs, "s", SignatureRunCosts::kFastRunsNeeded - 1);
  EXPECT_FALSE(costs.MayRunInline("s", 1));
  RecordFast(costs, "s", 1);
  EXPECT_TRUE(costs.MayRunInline("s", 1));
}

TEST(SignatureRunCostsTest, InputsLargerThanTheStreaksAreNotTrusted) {
  SignatureRunCosts costs;
  RecordFast(costs, "s", SignatureRunCosts::kFastRunsNeeded - 1, /*elements=*/4);
  RecordFast(costs, "s", 1, /*elements=*/32);
  EXPECT_TRUE(costs.MayRunInline("s", 32));
  EXPECT_TRUE(costs.MayRunInline("s", 1));
  EXPECT_FALSE(costs.MayRunInline("s", 33));
}

TEST(SignatureRunCostsTest, SignaturesAreMeasuredApart) {
  SignatureRunCosts costs;
  RecordFast(costs, "fast", SignatureRunCosts::kFastRunsNeeded);
  costs.Record("slow", 1, microseconds(5000), kLimit);
  EXPECT_TRUE(costs.MayRunInline("fast", 1));
  EXPECT_FALSE(costs.MayRunInline("slow", 1));
}

TEST(SignatureRunCostsTest, CopyStartsUnmeasured) {
  SignatureRunCosts costs;
  RecordFast(costs, "s", SignatureRunCosts::kFastRunsNeeded);
  SignatureRunCosts copy(costs);
  EXPECT_FALSE(copy.MayRunInline("s", 1));
}

TEST(SignatureRunCostsTest, TotalElementsAddsEveryInput) {
  std::map<std::string, Tensor> inputs;
  inputs.emplace("a", Tensor::FromVector<float>({1, 2, 3}));
  inputs.emplace("b", Tensor::FromVector<float>({4, 5}));
  EXPECT_EQ(TotalElements(inputs), 5);
}

}  // namespace
}  // namespace tfhost::serving
