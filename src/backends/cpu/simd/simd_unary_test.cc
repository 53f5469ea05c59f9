#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

ir::AttrMap FloatT() { return {{"T", ops::MakeAttr(DType::kFloat)}}; }

const char* const kCheapOps[] = {"Relu", "Relu6", "LeakyRelu", "Neg", "Abs", "Square", "Sqrt", "Rsqrt"};
const char* const kTranscendentalOps[] = {"Elu", "Sigmoid", "Tanh", "Exp", "Softplus"};

TEST(SimdUnaryTest, CheapOpsMatchReferenceOnEverySizeWithSpecialValues) {
  for (const char* op : kCheapOps) {
    for (int64_t n : testing::SweepSizes()) {
      ExpectSimdMatchesReference(op, {RandomFloats(Shape({n}), -10, 10, true, n)}, FloatT());
    }
  }
}

TEST(SimdUnaryTest, TranscendentalOpsMatchReferenceOnEverySizeWithSpecialValues) {
  for (const char* op : kTranscendentalOps) {
    for (int64_t n : testing::SweepSizes()) {
      ExpectSimdMatchesReference(op, {RandomFloats(Shape({n}), -100, 100, true, n)}, FloatT());
    }
  }
}

// A dense sweep over the range where the approximations do their work; the
// worst error is recorded so regressions in the polynomials show up.
TEST(SimdUnaryTest, TranscendentalMaxErrorOverDenseSweepIsWithinTolerance) {
  const int64_t n = 200001;
  Tensor x(DType::kFloat, Shape({n}));
  for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = -110.0f + 220.0f * static_cast<float>(i) / (n - 1);
  for (const char* op : kTranscendentalOps) {
    auto want = ops::RunSingleOp(op, {x}, FloatT());
    ASSERT_TRUE(want.ok());
    auto node = ops::MakeSingleOpNode(op, FloatT());
    ASSERT_TRUE(node.ok());
    for (IsaLevel level : SupportedIsaLevels()) {
      ScopedIsaLevel scoped(level);
      auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node), {x});
      ASSERT_TRUE(got.ok());
      const double worst = testing::WorstErrorRatio((*got)[0], (*want)[0]);
      RecordProperty(std::string(op) + "_" + IsaLevelName(level) + "_worst_error_over_tolerance",
                     std::to_string(worst));
      EXPECT_LE(worst, 0.1) << op << " " << IsaLevelName(level) << ": worst error is " << worst
                            << " of the tolerance";
      EXPECT_TRUE(testing::Close((*got)[0], (*want)[0]));
    }
  }
}

ir::AttrMap GeluAttrs(const std::string& kind) {
  return {{"T", ops::MakeAttr(DType::kFloat)},
          {"N", ops::MakeAttr(1)},
          {"ops", ops::MakeAttr(std::vector<std::string>{kind})},
          {"operands", ops::MakeAttr(std::vector<int64_t>{0, -1})}};
}

TEST(SimdUnaryTest, GeluNodesMatchReferenceOnEverySizeWithSpecialValues) {
  for (const char* kind : {"GeluExact", "GeluApproximate"}) {
    for (int64_t n : testing::SweepSizes()) {
      ExpectSimdMatchesReference("_TfhostFusedElementwise", {RandomFloats(Shape({n}), -12, 12, true, n)},
                                 GeluAttrs(kind));
    }
    // A dense sweep where erf/tanh do their work.
    const int64_t n = 100001;
    Tensor x(DType::kFloat, Shape({n}));
    for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = -20.0f + 40.0f * static_cast<float>(i) / (n - 1);
    ExpectSimdMatchesReference("_TfhostFusedElementwise", {x}, GeluAttrs(kind));
  }
}

// An LSTM cell's gate arithmetic: sigmoid(i) * tanh(g) + sigmoid(f) * c.
ir::AttrMap GateProgram() {
  return {{"T", ops::MakeAttr(DType::kFloat)},
          {"N", ops::MakeAttr(4)},
          {"ops", ops::MakeAttr(std::vector<std::string>{"Sigmoid", "Tanh", "Mul", "Sigmoid", "Mul", "AddV2"})},
          {"operands", ops::MakeAttr(std::vector<int64_t>{0, -1, 1, -1, 4, 5, 2, -1, 7, 3, 6, 8})}};
}

TEST(SimdUnaryTest, LongerProgramsWithTranscendentalsMatchReferenceOnEverySize) {
  auto node = ops::MakeSingleOpNode("_TfhostFusedElementwise", GateProgram());
  ASSERT_TRUE(node.ok());
  ASSERT_TRUE(BackendRegistry::Global()
                  .MakeFastKernel(*node, ops::OpRegistry::Global().Find("_TfhostFusedElementwise")->kernel)
                  .kernel);
  for (int64_t n : testing::SweepSizes()) {
    std::vector<Tensor> inputs;
    for (int k = 0; k < 4; ++k) inputs.push_back(RandomFloats(Shape({n}), -8, 8, true, n + k));
    ExpectSimdMatchesReference("_TfhostFusedElementwise", inputs, GateProgram());
  }
  // A scalar and a per-channel operand broadcast as in the reference.
  ExpectSimdMatchesReference("_TfhostFusedElementwise",
                             {RandomFloats(Shape({3, 70}), -8, 8, true), RandomFloats(Shape({}), -8, 8, false),
                              RandomFloats(Shape({70}), -8, 8, false), RandomFloats(Shape({3, 70}), -8, 8, true)},
                             GateProgram());
}

TEST(SimdUnaryTest, LongerProgramsOfCheapOpsAreDeclined) {
  ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)},
                       {"N", ops::MakeAttr(1)},
                       {"ops", ops::MakeAttr(std::vector<std::string>{"Abs", "Relu"})},
                       {"operands", ops::MakeAttr(std::vector<int64_t>{0, -1, 1, -1})}};
  auto node = ops::MakeSingleOpNode("_TfhostFusedElementwise", attrs);
  ASSERT_TRUE(node.ok());
  EXPECT_FALSE(BackendRegistry::Global()
                   .MakeFastKernel(*node, ops::OpRegistry::Global().Find("_TfhostFusedElementwise")->kernel)
                   .kernel);
}

TEST(SimdUnaryTest, LeakyReluUsesTheNodesAlpha) {
  ir::AttrMap attrs = FloatT();
  attrs["alpha"] = ops::MakeAttr(0.01f);
  ExpectSimdMatchesReference("LeakyRelu", {RandomFloats(Shape({3, 37}), -5, 5, true)}, attrs);
}

TEST(SimdUnaryTest, MultiDimensionalShapesKeepTheirShape) {
  ExpectSimdMatchesReference("Relu6", {RandomFloats(Shape({2, 0, 5}), -10, 10, false)}, FloatT());
  ExpectSimdMatchesReference("Sigmoid", {RandomFloats(Shape({2, 3, 5, 7}), -10, 10, true)}, FloatT());
  ExpectSimdMatchesReference("Tanh", {RandomFloats(Shape({}), -10, 10, false)}, FloatT());
}

TEST(SimdUnaryTest, NonFloatNodesAreDeclined) {
  auto node = ops::MakeSingleOpNode("Relu", {{"T", ops::MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(node.ok());
  EXPECT_FALSE(BackendRegistry::Global().MakeFastKernel(*node, ops::OpRegistry::Global().Find("Relu")->kernel).kernel);
  auto dnode = ops::MakeSingleOpNode("Exp", {{"T", ops::MakeAttr(DType::kDouble)}});
  ASSERT_TRUE(dnode.ok());
  EXPECT_FALSE(BackendRegistry::Global().MakeFastKernel(*dnode, ops::OpRegistry::Global().Find("Exp")->kernel).kernel);
}

TEST(SimdUnaryTest, SoleOwnerInputBufferIsReusedForTheOutput) {
  auto node = ops::MakeSingleOpNode("Relu", FloatT());
  ASSERT_TRUE(node.ok());
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  Tensor x = RandomFloats(Shape({100}), -1, 1, false);
  const void* buffer = x.raw_data();
  std::vector<Tensor> inputs;
  inputs.push_back(std::move(x));
  auto got = ops::RunKernelOnNode(*node, kernel, std::move(inputs));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].raw_data(), buffer);
  // A shared input is left alone.
  Tensor shared = RandomFloats(Shape({100}), -1, 1, false);
  const Tensor copy = shared.Clone();
  auto got2 = ops::RunKernelOnNode(*node, kernel, {shared});
  ASSERT_TRUE(got2.ok());
  EXPECT_NE((*got2)[0].raw_data(), shared.raw_data());
  EXPECT_TRUE(TensorsEqual(shared, copy));
}

}  // namespace
}  // namespace tfhost::backends::simd
