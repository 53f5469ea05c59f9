// The CUDA backend's fused element-wise programs (cuda/fused_program.h),
// evaluated on the host element by element as the GPU kernel does, against
// the reference _TfhostFusedElementwise kernel: random programs over every
// op the program language has, with broadcast, scalar and same-shape inputs.
#include "backends/cuda/fused_program.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

const std::vector<std::string>& Unary() {
  static const std::vector<std::string> ops = {
      "Neg",  "Abs",     "Square", "Sqrt",    "Rsqrt",    "Exp",      "Log",       "Reciprocal",
      "Inv",  "Floor",   "Ceil",   "Erf",     "Sigmoid",  "Tanh",     "Relu",      "Relu6",
      "Elu",  "Selu",    "Softplus", "Softsign", "LeakyRelu", "GeluExact", "GeluApproximate"};
  return ops;
}
const std::vector<std::string>& Binary() {
  static const std::vector<std::string> ops = {"Add",     "AddV2",   "Sub", "Mul", "Div", "RealDiv",
                                               "Maximum", "Minimum", "SquaredDifference", "Pow"};
  return ops;
}

bool Close(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= 1e-5f * std::max(1.0f, std::fabs(want));
}

TEST(FusedProgramTest, RandomProgramsMatchTheReferenceKernelElementByElement) {
  std::mt19937 rng(7);
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4}, {4}, {1}, {3, 1}, {2, 3, 4}, {1, 3, 4}};
  for (int trial = 0; trial < 200; ++trial) {
    const int num_inputs = 1 + static_cast<int>(rng() % 4);
    std::vector<Tensor> inputs;
    std::vector<Shape> in_shapes;
    for (int k = 0; k < num_inputs; ++k) {
      // Input 0 has the full shape, so every program's output is [2, 3, 4].
      const Shape s(k == 0 ? shapes[0] : shapes[rng() % shapes.size()]);
      Tensor t(DType::kFloat, s);
      std::uniform_real_distribution<float> value(-3.0f, 3.0f);
      for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = value(rng);
      inputs.push_back(t);
      in_shapes.push_back(s);
    }
    const int n = 1 + static_cast<int>(rng() % 6);
    std::vector<std::string> ops;
    std::vector<int64_t> operands;
    std::vector<float> alphas;
    for (int j = 0; j < n; ++j) {
      const bool binary = rng() % 2 == 0;
      ops.push_back(binary ? Binary()[rng() % Binary().size()] : Unary()[rng() % Unary().size()]);
      operands.push_back(static_cast<int64_t>(rng() % (num_inputs + j)));
      operands.push_back(binary ? static_cast<int64_t>(rng() % (num_inputs + j)) : -1);
      alphas.push_back(0.1f * static_cast<float>(rng() % 5));
    }
    ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)},
                         {"N", ops::MakeAttr(num_inputs)},
                         {"ops", ops::MakeAttr(ops)},
                         {"operands", ops::MakeAttr(operands)},
                         {"alphas", ops::MakeAttr(alphas)}};
    std::string program_text;
    for (int j = 0; j < n; ++j) {
      program_text += ops[j] + "(" + std::to_string(operands[2 * j]) +
                      (operands[2 * j + 1] >= 0 ? ", " + std::to_string(operands[2 * j + 1]) : "") + ") ";
    }
    auto ref = ops::RunSingleOp("_TfhostFusedElementwise", inputs, attrs);
    ASSERT_TRUE(ref.ok()) << program_text << ": " << ref.status().ToString();
    auto node = ops::MakeSingleOpNode("_TfhostFusedElementwise", attrs);
    ASSERT_TRUE(node.ok());
    auto program = ParseFusedProgram(*node, num_inputs);
    ASSERT_TRUE(program.ok()) << program_text << ": " << program.status().ToString();
    Shape out;
    const Status shaped = SetFusedShapes(&*program, in_shapes, &out);
    ASSERT_TRUE(shaped.ok()) << program_text << ": " << shaped.ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << program_text;
    FusedInputs data;
    for (int k = 0; k < num_inputs; ++k) data.data[k] = inputs[k].data<float>();
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      const float got = EvalFused(*program, data, i);
      const float want = (*ref)[0].data<float>()[i];
      ASSERT_TRUE(Close(got, want)) << "trial " << trial << ", " << program_text << "at " << i << ": " << got
                                    << ", reference " << want;
    }
  }
}

TEST(FusedProgramTest, WhatTheGpuCannotRunIsRefusedSayingWhy) {
  ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kFloat)},
                       {"N", ops::MakeAttr(1)},
                       {"ops", ops::MakeAttr(std::vector<std::string>{"Atan2"})},
                       {"operands", ops::MakeAttr(std::vector<int64_t>{0, 0})}};
  auto node = ops::MakeSingleOpNode("_TfhostFusedElementwise", attrs);
  if (!node.ok()) GTEST_SKIP() << "the registry refuses the op name before the GPU sees it";
  TFHOST_EXPECT_ERROR(ParseFusedProgram(*node, 1), StatusCode::kUnimplemented, "no GPU kernel for fused op Atan2");
  TFHOST_EXPECT_ERROR(ParseFusedProgram(*node, 9), StatusCode::kUnimplemented, "takes 1 to 8 inputs, not 9");
  FusedProgram p;
  Shape out;
  TFHOST_EXPECT_ERROR(SetFusedShapes(&p, {Shape({2, 3}), Shape({4})}, &out), StatusCode::kInvalidArgument,
                      "inputs do not broadcast together: [2,3] and [4]");
}

}  // namespace
}  // namespace tfhost::backends::cuda
