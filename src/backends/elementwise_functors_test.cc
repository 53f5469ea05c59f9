// The CUDA backend's element-wise functors (cuda/elementwise_functors.h),
// run on the host against each op's reference kernel on the same values:
// the math the GPU kernels compute is the math checked here.
#include "backends/cuda/elementwise_functors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/cuda/broadcast_shape.h"
#include "base/test_status.h"
#include "ops/nn/fused_activation.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

std::vector<float> Values() {
  const float inf = std::numeric_limits<float>::infinity();
  return {-100.f, -6.5f, -6.f, -1.f, -0.5f, -0.f, 0.f, 1e-8f, 0.5f, 1.f, 3.f, 5.99f, 6.f, 7.f, 88.f, 100.f,
          inf,    -inf,  std::numeric_limits<float>::quiet_NaN()};
}

// Relative tolerance of the transcendental functors against the reference
// (both float32, possibly different libm paths); exact for the rest.
bool Close(float got, float want, bool transcendental) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  const float tol = transcendental ? 2e-6f * std::max(1.0f, std::fabs(want)) : 0.0f;
  return std::fabs(got - want) <= tol;
}

TEST(ElementwiseFunctorsTest, EveryUnaryFunctorMatchesItsOpsReferenceKernel) {
  const std::vector<float> x = Values();
  for (const char* name :
       {"Relu", "Relu6", "Neg", "Abs", "Square", "Sigmoid", "Tanh", "Exp", "Elu", "Selu", "Softplus", "Softsign",
        "Sqrt", "Rsqrt", "Log", "Reciprocal", "Inv", "Floor", "Ceil", "Erf"}) {
    UnaryOp op;
    ASSERT_TRUE(UnaryOpOf(name, &op)) << name;
    auto ref = ops::RunSingleOp(name, {Tensor::FromVector(x)}, {{"T", ops::MakeAttr(DType::kFloat)}});
    ASSERT_TRUE(ref.ok()) << name << ": " << ref.status().ToString();
    const std::string n = name;
    const bool transcendental = n == "Sigmoid" || n == "Tanh" || n == "Exp" || n == "Elu" || n == "Selu" ||
                                n == "Softplus" || n == "Sqrt" || n == "Rsqrt" || n == "Log" || n == "Erf";
    for (size_t i = 0; i < x.size(); ++i) {
      const float want = (*ref)[0].data<float>()[i];
      EXPECT_TRUE(Close(ApplyUnary(op, x[i]), want, transcendental))
          << name << "(" << x[i] << ") = " << ApplyUnary(op, x[i]) << ", reference " << want;
    }
  }
  UnaryOp none;
  EXPECT_FALSE(UnaryOpOf("Softmax", &none));
}

// A fused product's epilogue (bias, then activation) against the reference
// kernels' fused activation (ops/nn/fused_activation.h), for every
// activation the GPU fuses, spelled as fused_ops spells it.
TEST(ElementwiseFunctorsTest, EveryFusedActivationMatchesTheReferenceEpilogue) {
  const std::vector<float> x = Values();
  const std::vector<float> bias = {0.5f, -1.25f, 0.0f};
  for (const char* name : {"Relu", "Relu6", "Elu", "Sigmoid", "Tanh", "GeluApproximate", "GeluExact", "_MklSwish",
                           "relu", "geluexact"}) {
    UnaryOp op;
    ASSERT_TRUE(FusedActivationOf(name, &op)) << name;
    auto act = ops::nn::ParseFusedActivation(name);
    ASSERT_TRUE(act.ok()) << name;
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] + bias[i % bias.size()];
    ops::nn::ApplyActivation<float>(*act, 0.2f, want.data(), static_cast<int64_t>(want.size()));
    const std::string n = name;
    const bool exact = n == "Relu" || n == "relu" || n == "Relu6";
    for (size_t i = 0; i < x.size(); ++i) {
      const float got = ApplyBiasActivation(op, x[i], bias.data(), static_cast<int64_t>(i), 3);
      EXPECT_TRUE(Close(got, want[i], !exact)) << name << "(" << x[i] << " + bias) = " << got << ", reference "
                                               << want[i];
    }
  }
  UnaryOp none;
  EXPECT_FALSE(FusedActivationOf("LeakyRelu", &none));
  EXPECT_FALSE(FusedActivationOf("Prelu", &none));
  EXPECT_EQ(ApplyBiasActivation(UnaryOp::kIdentity, 2.0f, nullptr, 0, 1), 2.0f);
}

TEST(ElementwiseFunctorsTest, EveryBinaryFunctorMatchesItsOpsReferenceKernelOnEveryPair) {
  const std::vector<float> v = Values();
  std::vector<float> a, b;
  for (float x : v) {
    for (float y : v) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (const char* name :
       {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "SquaredDifference", "Pow"}) {
    BinaryOp op;
    ASSERT_TRUE(BinaryOpOf(name, &op)) << name;
    auto ref = ops::RunSingleOp(name, {Tensor::FromVector(a), Tensor::FromVector(b)},
                                {{"T", ops::MakeAttr(DType::kFloat)}});
    ASSERT_TRUE(ref.ok()) << name << ": " << ref.status().ToString();
    for (size_t i = 0; i < a.size(); ++i) {
      const float want = (*ref)[0].data<float>()[i];
      EXPECT_TRUE(Close(ApplyBinary(op, a[i], b[i]), want, false))
          << name << "(" << a[i] << ", " << b[i] << ") = " << ApplyBinary(op, a[i], b[i]) << ", reference " << want;
    }
  }
}

// The kernels' indexing (BroadcastOffsets over MakeBinaryShape), evaluated
// on the host, gives the reference kernel's output for each pair of shapes.
TEST(ElementwiseFunctorsTest, BroadcastIndexingMatchesTheReferenceKernelOnEveryShapePair) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> pairs = {
      {{2, 3}, {2, 3}}, {{2, 3}, {}},        {{2, 3}, {3}},          {{2, 3}, {2, 1}}, {{4, 1, 3}, {1, 5, 1}},
      {{3}, {2, 3}},    {{}, {2, 2}},        {{2, 1, 4}, {3, 1}},    {{1}, {1, 1}},    {{0, 3}, {3}},
      {{3}, {1, 1}}};
  for (const auto& [ad, bd] : pairs) {
    const Shape as(ad), bs(bd);
    Tensor a(DType::kFloat, as), b(DType::kFloat, bs);
    for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = 1.5f * i - 2;
    for (int64_t i = 0; i < b.NumElements(); ++i) b.data<float>()[i] = 0.25f * i + 1;
    Shape out;
    auto shape = MakeBinaryShape(as, bs, &out);
    ASSERT_TRUE(shape.ok()) << as.ToString() << " " << bs.ToString() << ": " << shape.status().ToString();
    auto ref = ops::RunSingleOp("Sub", {a, b}, {{"T", ops::MakeAttr(DType::kFloat)}});
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    ASSERT_EQ((*ref)[0].shape(), out) << as.ToString() << " " << bs.ToString();
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      int64_t ia, ib;
      BroadcastOffsets(*shape, i, &ia, &ib);
      EXPECT_EQ(ApplyBinary(BinaryOp::kSub, a.data<float>()[ia], b.data<float>()[ib]), (*ref)[0].data<float>()[i])
          << as.ToString() << " - " << bs.ToString() << " at " << i;
    }
  }
  Shape out;
  auto bad = MakeBinaryShape(Shape({2, 3}), Shape({4}), &out);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_EQ(bad.status().message(), "Incompatible shapes: [2,3] vs. [4]");
}

}  // namespace
}  // namespace tfhost::backends::cuda
