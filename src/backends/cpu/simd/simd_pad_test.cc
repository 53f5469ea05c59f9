#include <gtest/gtest.h>

#include "backends/cpu/simd/simd_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::simd {
namespace {

using testing::ExpectSimdMatchesReference;

Tensor Iota(DType dtype, const Shape& shape, int start) {
  Tensor t(dtype, shape);
  TFHOST_SWITCH_REAL_TYPES(dtype, {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<T>((start + i) % 127);
  }, {});
  return t;
}

Tensor Paddings(std::vector<int32_t> v) {
  const int64_t rank = static_cast<int64_t>(v.size()) / 2;
  return *Tensor::FromVector<int32_t>(v).Reshaped(Shape({rank, 2}));
}

ir::AttrMap PadAttrs(DType t, const char* mode = nullptr) {
  ir::AttrMap a = {{"T", ops::MakeAttr(t)}, {"Tpaddings", ops::MakeAttr(DType::kInt32)}};
  if (mode != nullptr) a["mode"] = ops::MakeAttr(mode);
  return a;
}

struct PadCase {
  Shape shape;
  std::vector<int32_t> pads;
};

// NHWC images padded in H and W (the channels fold into a block), padding in
// the last dim, in the first dim only, in every dim, none, and empty inputs.
std::vector<PadCase> Cases() {
  return {
      {Shape({1, 5, 7, 3}), {0, 0, 1, 1, 2, 2, 0, 0}},
      {Shape({2, 4, 4, 16}), {0, 0, 3, 0, 0, 2, 0, 0}},
      {Shape({3, 17}), {0, 0, 2, 5}},
      {Shape({3, 17}), {1, 2, 0, 0}},
      {Shape({2, 3, 4}), {1, 1, 2, 2, 3, 3}},
      {Shape({2, 3}), {0, 0, 0, 0}},
      {Shape({9}), {4, 1}},
      {Shape({1, 64, 64, 8}), {0, 0, 2, 2, 2, 2, 0, 0}},  // large enough for the pool
      {Shape({0, 3}), {1, 1, 0, 2}},
  };
}

TEST(SimdPadTest, PadAndPadV2MatchReferenceForEveryLayoutAndElementSize) {
  for (DType dtype : {DType::kFloat, DType::kInt32, DType::kUInt8, DType::kDouble, DType::kHalf}) {
    for (const PadCase& c : Cases()) {
      SCOPED_TRACE(DTypeName(dtype) + " " + c.shape.ToString());
      const Tensor x = Iota(dtype, c.shape, 1);
      ExpectSimdMatchesReference("Pad", {x, Paddings(c.pads)}, PadAttrs(dtype), 0, 0);
      Tensor constant(dtype, Shape({}));
      TFHOST_SWITCH_REAL_TYPES(dtype, { constant.data<T>()[0] = static_cast<T>(-3); }, {});
      ExpectSimdMatchesReference("PadV2", {x, Paddings(c.pads), constant}, PadAttrs(dtype), 0, 0);
    }
  }
}

TEST(SimdPadTest, MirrorPadReflectAndSymmetricMatchReference) {
  const std::vector<PadCase> cases = {
      {Shape({1, 5, 7, 3}), {0, 0, 2, 1, 3, 3, 0, 0}},
      {Shape({4, 6}), {3, 2, 5, 1}},
      {Shape({2, 3, 4}), {1, 1, 2, 2, 3, 3}},
      {Shape({8}), {3, 4}},
      {Shape({1, 40, 40, 16}), {0, 0, 4, 4, 4, 4, 0, 0}},
  };
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    for (DType dtype : {DType::kFloat, DType::kInt64}) {
      for (const PadCase& c : cases) {
        std::vector<int32_t> pads = c.pads;
        // SYMMETRIC may mirror one more than REFLECT.
        if (std::string(mode) == "SYMMETRIC") {
          for (size_t i = 0; i < pads.size(); ++i) {
            if (pads[i] > 0 && pads[i] < c.shape.dim(static_cast<int>(i / 2))) ++pads[i];
          }
        }
        SCOPED_TRACE(std::string(mode) + " " + DTypeName(dtype) + " " + c.shape.ToString());
        ExpectSimdMatchesReference("MirrorPad", {Iota(dtype, c.shape, 2), Paddings(pads)}, PadAttrs(dtype, mode), 0,
                                   0);
      }
    }
  }
}

TEST(SimdPadTest, InvalidPaddingsGiveTheReferenceErrors) {
  auto node = ops::MakeSingleOpNode("MirrorPad", PadAttrs(DType::kFloat, "REFLECT"));
  ASSERT_TRUE(node.ok());
  ops::KernelFn kernel = testing::MakeSimdKernel(*node);
  const Tensor x = Iota(DType::kFloat, Shape({3, 4}), 0);
  for (const std::vector<int32_t>& pads : {std::vector<int32_t>{3, 0, 0, 0},    // REFLECT mirrors at most 2
                                           std::vector<int32_t>{-1, 0, 0, 0},   // negative
                                           std::vector<int32_t>{1, 1}}) {       // wrong shape
    auto got = ops::RunKernelOnNode(*node, kernel, {x, Paddings(pads)});
    auto want = ops::RunSingleOp("MirrorPad", {x, Paddings(pads)}, PadAttrs(DType::kFloat, "REFLECT"));
    TFHOST_ASSERT_ERROR(got, StatusCode::kInvalidArgument, "paddings");
    TFHOST_ASSERT_ERROR(want, StatusCode::kInvalidArgument, "paddings");
    EXPECT_EQ(got.status().ToString(), want.status().ToString());
  }
  // PadV2 with a constant that is not a scalar.
  auto v2 = ops::MakeSingleOpNode("PadV2", PadAttrs(DType::kFloat));
  ASSERT_TRUE(v2.ok());
  auto got = ops::RunKernelOnNode(*v2, testing::MakeSimdKernel(*v2),
                                  {x, Paddings({1, 1, 1, 1}), Tensor::FromVector<float>({1.f, 2.f})});
  TFHOST_EXPECT_ERROR(got, StatusCode::kInvalidArgument, "constant_values must be a float32 scalar, got float32[2]");
}

}  // namespace
}  // namespace tfhost::backends::simd
