#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;
using testing::RandomFloats;

ir::AttrMap FloatT() { return {{"T", ops::MakeAttr(DType::kFloat)}}; }

const char* const kOps[] = {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "SquaredDifference"};

// (x shape, y shape) pairs covering every supported pattern, both ways round,
// plus general broadcasts the kernel hands to the reference.
std::vector<std::pair<Shape, Shape>> ShapePairs(int64_t n) {
  return {
      {Shape({n}), Shape({n})},                // same shape
      {Shape({2, 3, n}), Shape({2, 3, n})},
      {Shape({n}), Shape({})},                  // scalar
      {Shape({}), Shape({n})},
      {Shape({3, n}), Shape({1})},
      {Shape({1}), Shape({3, n})},
      {Shape({5, n}), Shape({n})},              // trailing vector (bias)
      {Shape({n}), Shape({5, n})},
      {Shape({2, 3, n}), Shape({1, 1, n})},
      {Shape({2, 3, n}), Shape({3, n})},
      {Shape({n, 5}), Shape({n, 1})},           // leading dims, trailing 1s
      {Shape({n, 1}), Shape({n, 5})},
      {Shape({2, 3, n}), Shape({2, 1, 1})},
      {Shape({n, 1}), Shape({1, 4})},           // general broadcasts
      {Shape({1, 4}), Shape({n, 1})},
      {Shape({2, 1, n}), Shape({1, 3, 1})},
      {Shape({1, 3, 1}), Shape({2, 1, n})},
      {Shape({3}), Shape({1, 1, 3})},
      {Shape({2, 3, n, n}), Shape({2, 1, 1, n})},  // attention mask [B, 1, 1, T]
      {Shape({2, 1, 1, n}), Shape({2, 3, n, n})},
      {Shape({2, 3, 4, n}), Shape({2, 1, 4, 1})},  // broadcast in the middle and inner dims
      {Shape({3, 1, 5, 1, n}), Shape({1, 4, 1, 2, 1})},
  };
}

TEST(SimdBinaryTest, EveryOpMatchesReferenceOnEveryBroadcastPattern) {
  for (const char* op : kOps) {
    for (int64_t n : {0, 1, 3, 7, 8, 16, 17, 33, 100}) {
      for (const auto& [xs, ys] : ShapePairs(n)) {
        SCOPED_TRACE(std::string(op) + " " + xs.ToString() + " " + ys.ToString());
        ExpectSimdMatchesReference(op, {RandomFloats(xs, -10, 10, true, 1), RandomFloats(ys, -10, 10, true, 2)},
                                   FloatT());
      }
    }
  }
}

TEST(SimdBinaryTest, LargeInputsSplitOverThePoolMatchReference) {
  for (const char* op : {"AddV2", "Mul", "Maximum"}) {
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({70001}), -10, 10, true, 1),
                                    RandomFloats(Shape({70001}), -10, 10, true, 2)}, FloatT());
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({1000, 3}), -10, 10, false, 1),
                                    RandomFloats(Shape({3}), -10, 10, false, 2)}, FloatT());
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({999, 131}), -10, 10, false, 1),
                                    RandomFloats(Shape({999, 1}), -10, 10, false, 2)}, FloatT());
    ExpectSimdMatchesReference(op, {RandomFloats(Shape({4, 8, 64, 64}), -10, 10, false, 1),
                                    RandomFloats(Shape({4, 1, 1, 64}), -10, 10, false, 2)}, FloatT());
  }
}

TEST(SimdBinaryTest, GeneralBroadcastsRunTheSimdKernelNotTheReference) {
  // The kernel must not hand these to the reference: count its fallbacks.
  auto node = ops::MakeSingleOpNode("Mul", FloatT());
  ASSERT_TRUE(node.ok());
  int fallbacks = 0;
  const ops::KernelFn reference = ops::OpRegistry::Global().Find("Mul")->kernel;
  NodeKernel fast = BackendRegistry::Global().MakeFastKernel(*node, [&](ops::KernelContext& ctx) {
    ++fallbacks;
    return reference(ctx);
  });
  ASSERT_TRUE(fast.kernel);
  for (const auto& [xs, ys] : std::vector<std::pair<Shape, Shape>>{{Shape({7, 1}), Shape({1, 9})},
                                                                    {Shape({2, 3, 5, 5}), Shape({2, 1, 1, 5})},
                                                                    {Shape({4, 1, 6}), Shape({1, 3, 1})}}) {
    auto got = ops::RunKernelOnNode(*node, fast.kernel, {RandomFloats(xs, -2, 2, false, 1), RandomFloats(ys, -2, 2, false, 2)});
    auto want = ops::RunSingleOp("Mul", {RandomFloats(xs, -2, 2, false, 1), RandomFloats(ys, -2, 2, false, 2)}, FloatT());
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_TRUE(testing::Close((*got)[0], (*want)[0])) << xs.ToString() << " " << ys.ToString();
  }
  EXPECT_EQ(fallbacks, 0);
}

TEST(SimdBinaryTest, SameTensorOnBothSidesIsNotOverwritten) {
  Tensor x = RandomFloats(Shape({50}), -10, 10, false);
  ExpectSimdMatchesReference("Sub", {x, x}, FloatT());
}

TEST(SimdBinaryTest, IncompatibleShapesGiveTheReferenceError) {
  auto node = ops::MakeSingleOpNode("Add", FloatT());
  ASSERT_TRUE(node.ok());
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  auto got = ops::RunKernelOnNode(*node, kernel, {RandomFloats(Shape({3}), 0, 1, false), RandomFloats(Shape({4}), 0, 1, false)});
  auto want = ops::RunSingleOp("Add", {RandomFloats(Shape({3}), 0, 1, false), RandomFloats(Shape({4}), 0, 1, false)}, FloatT());
  TFHOST_ASSERT_ERROR(got, StatusCode::kInvalidArgument, "incompatible shapes for broadcasting: [3] and [4]");
  TFHOST_ASSERT_ERROR(want, StatusCode::kInvalidArgument, "incompatible shapes for broadcasting: [3] and [4]");
  EXPECT_EQ(got.status().ToString(), want.status().ToString());
}

TEST(SimdBinaryTest, BiasAddNhwcMatchesReference) {
  for (int64_t c : {1, 3, 8, 17, 64, 100}) {
    for (const char* op : {"BiasAdd", "BiasAddV1"}) {
      ExpectSimdMatchesReference(op, {RandomFloats(Shape({2, 5, 7, c}), -10, 10, true, 1),
                                      RandomFloats(Shape({c}), -10, 10, true, 2)}, FloatT());
      ExpectSimdMatchesReference(op, {RandomFloats(Shape({0, c}), -10, 10, false, 1),
                                      RandomFloats(Shape({c}), -10, 10, false, 2)}, FloatT());
    }
  }
  // A bias of the wrong length gives the reference's error.
  auto node = ops::MakeSingleOpNode("BiasAdd", FloatT());
  ASSERT_TRUE(node.ok());
  auto got = ops::RunKernelOnNode(*node, testing::MakeSimdKernel(*node),
                                  {RandomFloats(Shape({2, 3}), 0, 1, false), RandomFloats(Shape({4}), 0, 1, false)});
  TFHOST_EXPECT_ERROR(got, StatusCode::kInvalidArgument,
                      "bias has 4 values but value has 3 channels in dim 1 of shape [2,3]");
}

TEST(SimdBinaryTest, NchwBiasAddAndNonFloatOpsAreDeclined) {
  ir::AttrMap nchw = FloatT();
  nchw["data_format"] = ops::MakeAttr("NCHW");
  auto node = ops::MakeSingleOpNode("BiasAdd", nchw);
  ASSERT_TRUE(node.ok());
  EXPECT_FALSE(BackendRegistry::Global().MakeFastKernel(*node, ops::OpRegistry::Global().Find("BiasAdd")->kernel).kernel);
  auto inode = ops::MakeSingleOpNode("Add", {{"T", ops::MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(inode.ok());
  EXPECT_FALSE(BackendRegistry::Global().MakeFastKernel(*inode, ops::OpRegistry::Global().Find("Add")->kernel).kernel);
}

}  // namespace
}  // namespace tfhost::backends::simd
