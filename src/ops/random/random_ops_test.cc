#include "ops/random/random_ops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/random/philox_random.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops::random {
namespace {

Tensor ShapeOf(std::vector<int32_t> dims) { return Tensor::FromVector(dims); }

ir::AttrMap Attrs(DType dtype, int64_t seed, int64_t seed2) {
  return {{"dtype", MakeAttr(dtype)}, {"seed", MakeAttr(seed)}, {"seed2", MakeAttr(seed2)}};
}

Tensor RunRandom(const std::string& op, const Tensor& shape, DType dtype, int64_t seed, int64_t seed2,
           ResourceManager* rm) {
  auto out = RunSingleOp(op, {shape}, Attrs(dtype, seed, seed2), rm);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

Tensor RunInt(const Tensor& shape, const Tensor& lo, const Tensor& hi, int64_t seed, int64_t seed2,
              ResourceManager* rm, Status* status = nullptr) {
  auto out = RunSingleOp("RandomUniformInt", {shape, lo, hi},
                         {{"seed", MakeAttr(seed)}, {"seed2", MakeAttr(seed2)}, {"Tout", MakeAttr(lo.dtype())}}, rm);
  if (status != nullptr) *status = out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

void MeanAndVariance(const std::vector<double>& v, double* mean, double* var) {
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  *mean = sum / v.size();
  for (double x : v) sq += (x - *mean) * (x - *mean);
  *var = sq / v.size();
}

TEST(RandomOpsTest, AllAreRegisteredAsStateful) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt"}) {
    const OpRegistration* reg = OpRegistry::Global().Find(op);
    ASSERT_NE(reg, nullptr) << op;
    EXPECT_TRUE(reg->def.is_stateful()) << op;
  }
}

TEST(RandomOpsTest, FixedSeedsRepeatInFreshSessionsAndAdvanceWithinOne) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    for (DType dtype : {DType::kFloat, DType::kDouble, DType::kHalf, DType::kBFloat16}) {
      ResourceManager a, b;
      Tensor a1 = RunRandom(op, ShapeOf({3, 7}), dtype, 87654321, 42, &a);
      Tensor b1 = RunRandom(op, ShapeOf({3, 7}), dtype, 87654321, 42, &b);
      Tensor a2 = RunRandom(op, ShapeOf({3, 7}), dtype, 87654321, 42, &a);
      Tensor b2 = RunRandom(op, ShapeOf({3, 7}), dtype, 87654321, 42, &b);
      ASSERT_TRUE(a1.valid() && a2.valid() && b1.valid() && b2.valid());
      EXPECT_EQ(a1.dtype(), dtype);
      EXPECT_EQ(a1.shape(), Shape({3, 7}));
      EXPECT_TRUE(TensorsEqual(a1, b1)) << op << " " << DTypeShortName(dtype);
      EXPECT_TRUE(TensorsEqual(a2, b2)) << op << " " << DTypeShortName(dtype);
      EXPECT_FALSE(TensorsEqual(a1, a2)) << op << " " << DTypeShortName(dtype);
      // Another seed2 gives another sequence.
      ResourceManager c;
      EXPECT_FALSE(TensorsEqual(a1, RunRandom(op, ShapeOf({3, 7}), dtype, 87654321, 43, &c)));
    }
  }
}

TEST(RandomOpsTest, ZeroSeedsDrawNondeterministicSequences) {
  ResourceManager a, b;
  Tensor x = RunRandom("RandomUniform", ShapeOf({16}), DType::kFloat, 0, 0, &a);
  Tensor y = RunRandom("RandomUniform", ShapeOf({16}), DType::kFloat, 0, 0, &b);
  EXPECT_FALSE(TensorsEqual(x, y));
}

// The layout TensorFlow uses: float uniforms take the four words of block g
// for elements 4g..4g+3, and a run reserves 256 blocks per element.
TEST(RandomOpsTest, UniformFloatReadsPhiloxBlocksInOrderAndReserves256PerElement) {
  ResourceManager rm;
  Tensor first = RunRandom("RandomUniform", ShapeOf({5}), DType::kFloat, 0x0000000100000002ll, 3, &rm);
  Tensor second = RunRandom("RandomUniform", ShapeOf({1}), DType::kFloat, 0x0000000100000002ll, 3, &rm);
  const PhiloxRandom::Key key{2, 1};
  const auto b0 = PhiloxRandom::Compute({0, 0, 3, 0}, key);
  const auto b1 = PhiloxRandom::Compute({1, 0, 3, 0}, key);
  const float expected[5] = {Uint32ToFloat(b0[0]), Uint32ToFloat(b0[1]), Uint32ToFloat(b0[2]),
                             Uint32ToFloat(b0[3]), Uint32ToFloat(b1[0])};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(first.data<float>()[i], expected[i]) << i;
  const auto next = PhiloxRandom::Compute({5 * 256, 0, 3, 0}, key);
  EXPECT_EQ(second.data<float>()[0], Uint32ToFloat(next[0]));
}

TEST(RandomOpsTest, UniformValuesLieInZeroToOne) {
  for (DType dtype : {DType::kFloat, DType::kDouble, DType::kHalf, DType::kBFloat16}) {
    ResourceManager rm;
    Tensor t = RunRandom("RandomUniform", ShapeOf({10000}), dtype, 1, 2, &rm);
    ASSERT_TRUE(t.valid());
    std::vector<double> v = t.ToDoubleVector();
    double mean, var;
    MeanAndVariance(v, &mean, &var);
    for (double x : v) {
      ASSERT_GE(x, 0.0) << DTypeShortName(dtype);
      ASSERT_LT(x, 1.0) << DTypeShortName(dtype);
    }
    EXPECT_NEAR(mean, 0.5, 0.02) << DTypeShortName(dtype);
    EXPECT_NEAR(var, 1.0 / 12, 0.01) << DTypeShortName(dtype);
  }
}

TEST(RandomOpsTest, StandardNormalHasMeanZeroAndVarianceOne) {
  for (DType dtype : {DType::kFloat, DType::kDouble, DType::kHalf}) {
    ResourceManager rm;
    Tensor t = RunRandom("RandomStandardNormal", ShapeOf({100000}), dtype, 12345, 0, &rm);
    ASSERT_TRUE(t.valid());
    double mean, var;
    MeanAndVariance(t.ToDoubleVector(), &mean, &var);
    EXPECT_NEAR(mean, 0.0, 0.015) << DTypeShortName(dtype);
    EXPECT_NEAR(var, 1.0, 0.02) << DTypeShortName(dtype);
  }
}

TEST(RandomOpsTest, TruncatedNormalStaysWithinTwoWithTruncatedVariance) {
  for (DType dtype : {DType::kFloat, DType::kDouble}) {
    ResourceManager rm;
    Tensor t = RunRandom("TruncatedNormal", ShapeOf({100000}), dtype, 777, 1, &rm);
    ASSERT_TRUE(t.valid());
    std::vector<double> v = t.ToDoubleVector();
    for (double x : v) {
      ASSERT_GT(x, -2.0);
      ASSERT_LT(x, 2.0);
    }
    double mean, var;
    MeanAndVariance(v, &mean, &var);
    EXPECT_NEAR(mean, 0.0, 0.015) << DTypeShortName(dtype);
    // Variance of a standard normal truncated to (-2, 2): 1 - 4 phi(2) / (2 Phi(2) - 1).
    EXPECT_NEAR(var, 0.7737, 0.015) << DTypeShortName(dtype);
  }
}

TEST(RandomOpsTest, ParallelFillMatchesInlineFill) {
  ThreadPool pool(3);
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    ResourceManager a, b;
    auto inline_out = RunSingleOp(op, {ShapeOf({50001})}, Attrs(DType::kFloat, 5, 6), &a);
    auto pooled = RunSingleOp(op, {ShapeOf({50001})}, Attrs(DType::kFloat, 5, 6), &b, &pool);
    ASSERT_TRUE(inline_out.ok() && pooled.ok()) << op;
    EXPECT_TRUE(TensorsEqual((*inline_out)[0], (*pooled)[0])) << op;
  }
}

TEST(RandomUniformIntTest, ValuesLieInMinvalToMaxval) {
  ResourceManager rm;
  Tensor t32 = RunInt(ShapeOf({1000}), Tensor::Scalar<int32_t>(-3), Tensor::Scalar<int32_t>(4), 9, 9, &rm);
  ASSERT_TRUE(t32.valid());
  ASSERT_EQ(t32.dtype(), DType::kInt32);
  bool seen[7] = {};
  for (int64_t i = 0; i < t32.NumElements(); ++i) {
    const int32_t x = t32.data<int32_t>()[i];
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    seen[x + 3] = true;
  }
  for (bool s : seen) EXPECT_TRUE(s);

  ResourceManager rm64;
  const int64_t lo = -(int64_t{1} << 40), hi = int64_t{1} << 40;
  Tensor t64 = RunInt(ShapeOf({1000}), Tensor::Scalar<int64_t>(lo), Tensor::Scalar<int64_t>(hi), 9, 9, &rm64);
  ASSERT_TRUE(t64.valid());
  ASSERT_EQ(t64.dtype(), DType::kInt64);
  for (int64_t i = 0; i < t64.NumElements(); ++i) {
    ASSERT_GE(t64.data<int64_t>()[i], lo);
    ASSERT_LT(t64.data<int64_t>()[i], hi);
  }
}

// tf.random.uniform's documented example: with global seed 5 and op seed 10
// (seed=5, seed2=10), maxval 3 in int32 yields 2, then 0.
TEST(RandomUniformIntTest, MatchesTensorFlowsDocumentedSequence) {
  ResourceManager rm;
  Tensor shape(DType::kInt32, Shape({0}));
  Tensor first = RunInt(shape, Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(3), 5, 10, &rm);
  Tensor second = RunInt(shape, Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(3), 5, 10, &rm);
  ASSERT_TRUE(first.valid() && second.valid());
  EXPECT_EQ(first.data<int32_t>()[0], 2);
  EXPECT_EQ(second.data<int32_t>()[0], 0);
}

TEST(RandomUniformIntTest, MinvalNotBelowMaxvalIsAnError) {
  ResourceManager rm;
  Status st;
  RunInt(ShapeOf({4}), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5), 1, 1, &rm, &st);
  TFHOST_ASSERT_ERROR(
      st, StatusCode::kInvalidArgument,
      "node 'test_RandomUniformInt' (RandomUniformInt): need minval < maxval, got minval 5 >= maxval 5");
  EXPECT_NE(st.message().find("need minval < maxval"), std::string::npos) << st.message();
  RunInt(ShapeOf({4}), Tensor::Scalar<int64_t>(7), Tensor::Scalar<int64_t>(2), 1, 1, &rm, &st);
  TFHOST_EXPECT_ERROR(st, StatusCode::kInvalidArgument, "need minval < maxval, got minval 7 >= maxval 2");
  // Nothing to draw: TensorFlow returns the empty tensor without checking.
  Tensor empty = RunInt(ShapeOf({0, 3}), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5), 1, 1, &rm, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(empty.shape(), Shape({0, 3}));
}

TEST(RandomUniformIntTest, NonScalarBoundsAreAnError) {
  Status st;
  RunInt(ShapeOf({4}), Tensor::FromVector<int32_t>({0, 1}), Tensor::Scalar<int32_t>(5), 1, 1, nullptr, &st);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "minval must be a scalar, got shape [2]");
}

TEST(RandomOpsTest, BadShapeInputsAreErrorsNamingTheNode) {
  auto negative = RunSingleOp("RandomUniform", {ShapeOf({2, -1})}, Attrs(DType::kFloat, 1, 1));
  TFHOST_ASSERT_ERROR(negative, StatusCode::kInvalidArgument,
                      "node 'test_RandomUniform' (RandomUniform): output shape: dimension -1 is negative");

  auto matrix = RunSingleOp("RandomStandardNormal", {Tensor(DType::kInt32, Shape({2, 2}))},
                            Attrs(DType::kFloat, 1, 1));
  TFHOST_ASSERT_ERROR(matrix, StatusCode::kInvalidArgument, "shape must be 1-D, got shape [2,2]");

  auto huge = RunSingleOp("TruncatedNormal", {Tensor::FromVector<int64_t>({int64_t{1} << 31, 1 << 30})},
                          Attrs(DType::kFloat, 1, 1));
  TFHOST_EXPECT_ERROR(huge, StatusCode::kInvalidArgument,
                      "output shape: shape [2147483648,1073741824] has more than 4294967296 elements");

  auto float_shape = RunSingleOp("RandomUniform", {Tensor::FromVector<float>({2})}, Attrs(DType::kFloat, 1, 1));
  TFHOST_EXPECT_ERROR(float_shape, StatusCode::kInvalidArgument, "shape must be int32 or int64, got float32");

  auto int_dtype = RunSingleOp("RandomUniform", {ShapeOf({2})}, Attrs(DType::kInt32, 1, 1));
  TFHOST_EXPECT_ERROR(int_dtype, StatusCode::kInvalidArgument,
                      "node 'test_RandomUniform' (RandomUniform): attr 'dtype' is DT_INT32, which is not one of its "
                      "allowed types");
}

TEST(RandomOpsTest, EmptyShapeGivesEmptyOutput) {
  Tensor t = RunRandom("RandomUniform", ShapeOf({3, 0}), DType::kFloat, 1, 1, nullptr);
  ASSERT_TRUE(t.valid());
  EXPECT_EQ(t.shape(), Shape({3, 0}));
}

}  // namespace
}  // namespace tfhost::ops::random
