#include <gtest/gtest.h>

#include <memory>

#include "backends/cpu/simd/simd_gemv.h"
#include "backends/cpu/simd/simd_test_util.h"
#include "ops/nn/lstm_loop.h"
#include "ops/tensor_array/tensor_list.h"

namespace tfhost::backends::simd {
namespace {

using ops::tensor_array::TensorList;
using testing::Close;
using testing::RandomFloats;

Tensor List(std::vector<Tensor> items, int64_t n) {
  auto list = std::make_shared<TensorList>();
  list->element_dtype = DType::kFloat;
  list->element_shape = ir::PartialShape::Unknown();
  list->items = std::move(items);
  list->items.resize(n);
  return ops::tensor_array::ListTensor(std::move(list));
}

const TensorList& ListOf(const Tensor& t) { return static_cast<const TensorList&>(*t.variants()[0]); }

ir::AttrMap Attrs(int64_t steps) {
  ir::AttrMap attrs;
  attrs["T"] = ops::MakeAttr(std::vector<DType>{DType::kInt32, DType::kInt32, DType::kInt32, DType::kVariant,
                                                DType::kFloat, DType::kFloat, DType::kVariant, DType::kFloat,
                                                DType::kFloat});
  for (int k = 0; k < 9; ++k) attrs[ops::nn::kLstmLoopRoleAttrs[k]] = ops::MakeAttr(static_cast<int64_t>(k));
  attrs["steps"] = ops::MakeAttr(steps);
  return attrs;
}

std::vector<Tensor> Inputs(int64_t rows, int64_t units, int64_t k, int64_t steps, uint32_t seed) {
  std::vector<Tensor> projected;
  for (int64_t t = 0; t < steps; ++t) {
    projected.push_back(RandomFloats(Shape({rows, 4 * units}), -2, 2, false, seed + static_cast<uint32_t>(t)));
  }
  return {Tensor::Scalar<int32_t>(0),
          Tensor::Scalar<int32_t>(static_cast<int32_t>(steps)),
          Tensor::Scalar<int32_t>(0),
          List({}, steps),
          RandomFloats(Shape({rows, k}), -1, 1, false, seed + 100),
          RandomFloats(Shape({rows, units}), -1, 1, false, seed + 101),
          List(projected, steps),
          RandomFloats(Shape({k, 4 * units}), -0.3f, 0.3f, false, seed + 102),
          RandomFloats(Shape({4 * units}), -0.5f, 0.5f, false, seed + 103)};
}

void ExpectSameLoop(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (int i : {0, 1, 2}) EXPECT_EQ(got[i].data<int32_t>()[0], want[i].data<int32_t>()[0]) << i;
  EXPECT_TRUE(Close(got[4], want[4]));
  EXPECT_TRUE(Close(got[5], want[5]));
  const TensorList& g = ListOf(got[3]);
  const TensorList& w = ListOf(want[3]);
  ASSERT_EQ(g.items.size(), w.items.size());
  for (size_t t = 0; t < w.items.size(); ++t) EXPECT_TRUE(Close(g.items[t], w.items[t])) << "element " << t;
}

TEST(SimdLstmLoopTest, MatchesTheReferenceLoopOverRowsUnitsAndPanelTails) {
  if (!gemv::PanelKernelsAvailable()) GTEST_SKIP() << "this CPU has no AVX-512: the simd backend declines the loop";
  ThreadPool pool(2);
  // Rows cover the one-row kernel, every tile height (2-8) and splits into
  // several tiles (13: 7 + 6, 17: 6 + 6 + 5, 32: 4 x 8);
  // 4 * units covers whole panels (32), a partial one and several.
  for (int64_t rows : {1, 2, 3, 4, 5, 6, 7, 8, 13, 17, 32}) {
    for (int64_t units : {1, 5, 8, 20, 33, 64}) {
      SCOPED_TRACE("rows " + std::to_string(rows) + " units " + std::to_string(units));
      const std::vector<Tensor> inputs = Inputs(rows, units, units, 4, static_cast<uint32_t>(rows * 1000 + units));
      auto want = ops::RunSingleOp(ops::nn::kLstmLoopOp, inputs, Attrs(4));
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      auto node = ops::MakeSingleOpNode(ops::nn::kLstmLoopOp, Attrs(4));
      ASSERT_TRUE(node.ok());
      ops::KernelFn kernel = testing::MakeSimdKernel(*node);
      ASSERT_TRUE(kernel);
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        auto got = ops::RunKernelOnNode(*node, kernel, inputs, nullptr, p);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ExpectSameLoop(*got, *want);
      }
    }
  }
}

TEST(SimdLstmLoopTest, StepsSplitByGroupsOfUnitsOverATeamMatchTheReferenceLoop) {
  if (!gemv::PanelKernelsAvailable()) GTEST_SKIP() << "this CPU has no AVX-512: the simd backend declines the loop";
  // Units in groups of 32 and enough work for a team: each member takes
  // whole groups (their gates' panels and cells). 96 units over 3 members
  // is one group each, 128 over 3 uneven, 256 at batch 1 over 2; reversed
  // panel order every other step.
  ThreadPool two(2), one(1);
  for (auto [rows, units] : std::vector<std::pair<int64_t, int64_t>>{{32, 96}, {5, 128}, {1, 256}, {9, 64}}) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " units " + std::to_string(units));
    const std::vector<Tensor> inputs = Inputs(rows, units, units, 5, static_cast<uint32_t>(rows * 7 + units));
    auto want = ops::RunSingleOp(ops::nn::kLstmLoopOp, inputs, Attrs(5));
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto node = ops::MakeSingleOpNode(ops::nn::kLstmLoopOp, Attrs(5));
    ASSERT_TRUE(node.ok());
    ops::KernelFn kernel = testing::MakeSimdKernel(*node);
    ASSERT_TRUE(kernel);
    for (ThreadPool* p : {&one, &two}) {
      auto got = ops::RunKernelOnNode(*node, kernel, inputs, nullptr, p);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSameLoop(*got, *want);
    }
  }
}

TEST(SimdLstmLoopTest, ALayerOfNoUnitsGivesTheReferencesEmptyStates) {
  if (!gemv::PanelKernelsAvailable()) GTEST_SKIP() << "this CPU has no AVX-512: the simd backend declines the loop";
  const std::vector<Tensor> inputs = Inputs(2, 0, 0, 3, 7);
  auto want = ops::RunSingleOp(ops::nn::kLstmLoopOp, inputs, Attrs(3));
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto node = ops::MakeSingleOpNode(ops::nn::kLstmLoopOp, Attrs(3));
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node), inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSameLoop(*got, *want);
}

TEST(SimdLstmLoopTest, BadInputsGiveTheReferenceError) {
  if (!gemv::PanelKernelsAvailable()) GTEST_SKIP() << "this CPU has no AVX-512: the simd backend declines the loop";
  std::vector<Tensor> inputs = Inputs(1, 4, 4, 3, 9);
  inputs[4] = RandomFloats(Shape({1, 6}), -1, 1, false, 3);  // h of the wrong width
  auto node = ops::MakeSingleOpNode(ops::nn::kLstmLoopOp, Attrs(3));
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node), inputs);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("step 0: h [1,6] cannot multiply the recurrent kernel [4,16]"),
            std::string::npos)
      << got.status().ToString();
}

}  // namespace
}  // namespace tfhost::backends::simd
