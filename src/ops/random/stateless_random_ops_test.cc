#include "ops/random/stateless_random_ops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/thread_pool.h"
#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"
#include "base/test_status.h"

namespace tfhost::ops::random {
namespace {

using testing::InferShape;

Tensor Shape32(std::vector<int32_t> dims) { return Tensor::FromVector(dims); }
Tensor Seed64(int64_t a, int64_t b) { return Tensor::FromVector(std::vector<int64_t>{a, b}); }
Tensor Seed32(int32_t a, int32_t b) { return Tensor::FromVector(std::vector<int32_t>{a, b}); }
Tensor U64(std::vector<uint64_t> v) { return Tensor::FromVector(v); }

StatusOr<std::vector<Tensor>> RunOp(const std::string& op, std::vector<Tensor> inputs, ir::AttrMap attrs = {}) {
  return RunSingleOp(op, std::move(inputs), std::move(attrs));
}

// Random123's published known-answer vectors for Philox4x32-10 (kat_vectors:
// counter, key -> output), reached through the V2 op, whose key/counter
// inputs feed the generator directly (uint64 words, low half first).
TEST(StatelessRandomOpsTest, FullIntV2ReproducesRandom123KnownAnswers) {
  struct Kat { uint64_t counter[2]; uint64_t key; uint32_t out[4]; };
  const Kat kats[] = {
      {{0, 0}, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{~0ull, ~0ull}, ~0ull, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x85a308d3243f6a88ull, 0x0370734413198a2eull}, 0x299f31d0a4093822ull,
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    auto out = RunOp("StatelessRandomUniformFullIntV2",
                   {Shape32({4}), U64({k.key}), U64({k.counter[0], k.counter[1]}), Tensor::Scalar<int32_t>(1)},
                   {{"dtype", MakeAttr(DType::kUInt32)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].dtype(), DType::kUInt32);
    for (int i = 0; i < 4; ++i) EXPECT_EQ((*out)[0].data<uint32_t>()[i], k.out[i]) << i;
  }
}

TEST(StatelessRandomOpsTest, GetKeyCounterScramblesTheSeedWithOnePhiloxBlock) {
  auto out = RunOp("StatelessRandomGetKeyCounterAlg", {Seed64(0x1122334455667788ll, 42)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const auto mix = PhiloxRandom::Compute({0x55667788, 0x11223344, 42, 0}, {0x3ec8f720, 0x02461e29});
  ASSERT_EQ((*out)[0].shape(), Shape({1}));
  ASSERT_EQ((*out)[1].shape(), Shape({2}));
  EXPECT_EQ((*out)[0].data<uint64_t>()[0], mix[0] | (uint64_t{mix[1]} << 32));
  EXPECT_EQ((*out)[1].data<uint64_t>()[0], 0u);
  EXPECT_EQ((*out)[1].data<uint64_t>()[1], mix[2] | (uint64_t{mix[3]} << 32));
  EXPECT_EQ((*out)[2].data<int32_t>()[0], kRngAlgPhilox);
  auto alg = RunOp("StatelessRandomGetAlg", {});
  ASSERT_TRUE(alg.ok());
  EXPECT_EQ((*alg)[0].data<int32_t>()[0], 1);
}

TEST(StatelessRandomOpsTest, Int32SeedsSignExtendLikeInt64Seeds) {
  auto a = RunOp("StatelessRandomGetKeyCounter", {Seed32(-1, -7)}, {{"Tseed", MakeAttr(DType::kInt32)}});
  auto b = RunOp("StatelessRandomGetKeyCounter", {Seed64(-1, -7)});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(TensorsEqual((*a)[0], (*b)[0]));
  EXPECT_TRUE(TensorsEqual((*a)[1], (*b)[1]));
}

// tf.random.experimental.stateless_fold_in's documentation (TF 2.x API docs)
// pins tf.random.stateless_normal(shape=[3], seed=[1105988140, 3]) (int32) to
// [0.03197195, 0.8979765, 0.13253039].
TEST(StatelessRandomOpsTest, NormalMatchesTensorFlowDocumentedValues) {
  auto out = RunOp("StatelessRandomNormal", {Shape32({3}), Seed32(1105988140, 3)}, {{"Tseed", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float want[3] = {0.03197195f, 0.8979765f, 0.13253039f};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR((*out)[0].data<float>()[i], want[i], 1e-6) << i;
}

// Large outputs are split over the intra-op pool; every group's place in the
// stream is fixed, so the split never changes a value.
TEST(StatelessRandomOpsTest, SplittingOverThreadsGivesTheSameNumbers) {
  ThreadPool pool(3);
  for (const char* op : {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"}) {
    auto inline_out = RunOp(op, {Shape32({50001}), Seed64(3, 9)}, {{"dtype", MakeAttr(DType::kFloat)}});
    auto pooled = RunSingleOp(op, {Shape32({50001}), Seed64(3, 9)}, {{"dtype", MakeAttr(DType::kFloat)}}, nullptr, &pool);
    ASSERT_TRUE(inline_out.ok() && pooled.ok()) << op;
    EXPECT_TRUE(TensorsEqual((*inline_out)[0], (*pooled)[0])) << op;
  }
}

TEST(StatelessRandomOpsTest, V1AndV2AgreeThroughGetKeyCounter) {
  auto kc = RunOp("StatelessRandomGetKeyCounter", {Seed64(7, 17)});
  ASSERT_TRUE(kc.ok());
  const Tensor key = (*kc)[0], counter = (*kc)[1];
  for (const char* op : {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"}) {
    for (DType dtype : {DType::kFloat, DType::kDouble, DType::kHalf, DType::kBFloat16}) {
      auto v1 = RunOp(op, {Shape32({3, 5}), Seed64(7, 17)}, {{"dtype", MakeAttr(dtype)}});
      auto v2 = RunOp(std::string(op) + "V2", {Shape32({3, 5}), key, counter, Tensor::Scalar<int32_t>(3)},
                    {{"dtype", MakeAttr(dtype)}});
      ASSERT_TRUE(v1.ok() && v2.ok()) << op << " " << v1.status().ToString() << v2.status().ToString();
      EXPECT_EQ((*v1)[0].dtype(), dtype);
      EXPECT_EQ((*v1)[0].shape(), Shape({3, 5}));
      EXPECT_TRUE(TensorsEqual((*v1)[0], (*v2)[0])) << op << " " << DTypeShortName(dtype);
    }
  }
  auto i1 = RunOp("StatelessRandomUniformInt", {Shape32({9}), Seed64(7, 17), Tensor::Scalar<int64_t>(-5),
                                              Tensor::Scalar<int64_t>(1000)},
                {{"dtype", MakeAttr(DType::kInt64)}, {"T", MakeAttr(DType::kInt32)}});
  auto i2 = RunOp("StatelessRandomUniformIntV2", {Shape32({9}), key, counter, Tensor::Scalar<int32_t>(1),
                                                Tensor::Scalar<int64_t>(-5), Tensor::Scalar<int64_t>(1000)},
                {{"dtype", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(i1.ok() && i2.ok()) << i1.status().ToString() << i2.status().ToString();
  EXPECT_TRUE(TensorsEqual((*i1)[0], (*i2)[0]));
}

// Float uniforms take the low 23 bits of each word of block g for elements
// 4g..4g+3; int64 values take two words (low first); uniform ints reduce
// modulo the range.
TEST(StatelessRandomOpsTest, ElementsFollowTheBlocksOfTheScrambledGenerator) {
  PhiloxRandom::Key key;
  PhiloxRandom::Block counter;
  SeedToKeyCounter(3, 4, &key, &counter);
  PhiloxRandom gen(counter, key);
  const auto b0 = gen();
  const auto b1 = gen();
  auto u = RunOp("StatelessRandomUniform", {Shape32({5}), Seed64(3, 4)});
  ASSERT_TRUE(u.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*u)[0].data<float>()[i], Uint32ToFloat(b0[i]));
  EXPECT_EQ((*u)[0].data<float>()[4], Uint32ToFloat(b1[0]));

  auto full = RunOp("StatelessRandomUniformFullInt", {Shape32({3}), Seed64(3, 4)});
  ASSERT_TRUE(full.ok());
  ASSERT_EQ((*full)[0].dtype(), DType::kUInt64);  // the default dtype
  EXPECT_EQ((*full)[0].data<uint64_t>()[0], b0[0] | (uint64_t{b0[1]} << 32));
  EXPECT_EQ((*full)[0].data<uint64_t>()[1], b0[2] | (uint64_t{b0[3]} << 32));
  EXPECT_EQ((*full)[0].data<uint64_t>()[2], b1[0] | (uint64_t{b1[1]} << 32));

  auto ints = RunOp("StatelessRandomUniformInt", {Shape32({4}), Seed64(3, 4), Tensor::Scalar<int32_t>(-10),
                                                Tensor::Scalar<int32_t>(7)},
                  {{"dtype", MakeAttr(DType::kInt32)}, {"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(ints.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*ints)[0].data<int32_t>()[i], -10 + static_cast<int32_t>(b0[i] % 17u));
}

TEST(StatelessRandomOpsTest, TruncatedNormalStaysWithinTwoAndIsDeterministic) {
  auto a = RunOp("StatelessTruncatedNormal", {Shape32({1000}), Seed64(1, 2)});
  auto b = RunOp("StatelessTruncatedNormal", {Shape32({1000}), Seed64(1, 2)});
  auto c = RunOp("StatelessTruncatedNormal", {Shape32({1000}), Seed64(1, 3)});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_TRUE(TensorsEqual((*a)[0], (*b)[0]));
  EXPECT_FALSE(TensorsEqual((*a)[0], (*c)[0]));
  double sum = 0;
  for (int i = 0; i < 1000; ++i) {
    const float x = (*a)[0].data<float>()[i];
    EXPECT_LT(std::fabs(x), 2.0f);
    sum += x;
  }
  EXPECT_LT(std::fabs(sum / 1000), 0.1);
}

TEST(StatelessRandomOpsTest, EmptyOutputSkipsTheRangeCheckButNonEmptyRejectsIt) {
  ir::AttrMap attrs = {{"dtype", MakeAttr(DType::kInt32)}, {"T", MakeAttr(DType::kInt32)}};
  auto empty = RunOp("StatelessRandomUniformInt",
                   {Shape32({0, 3}), Seed64(1, 2), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5)}, attrs);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape(), Shape({0, 3}));
  auto bad = RunOp("StatelessRandomUniformInt",
                 {Shape32({2}), Seed64(1, 2), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5)}, attrs);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "Need minval < maxval, got 5 >= 5");
}

TEST(StatelessRandomOpsTest, BadInputsGiveClearErrors) {
  auto seed_shape = RunOp("StatelessRandomUniform", {Shape32({2}), Tensor::FromVector(std::vector<int64_t>{1, 2, 3})});
  TFHOST_ASSERT_ERROR(seed_shape, StatusCode::kInvalidArgument, "seed must have shape [2], not [3]");

  auto seed_type = RunOp("StatelessRandomUniform", {Shape32({2}), Seed32(1, 2)});  // Tseed defaults to int64
  TFHOST_ASSERT_ERROR(seed_type, StatusCode::kInvalidArgument,
                      "node 'test_StatelessRandomUniform' (StatelessRandomUniform): input 1 'seed' (dtype from attr "
                      "Tseed) is int32, expected int64");
  EXPECT_NE(seed_type.status().message().find("'seed' (dtype from attr Tseed) is int32, expected int64"),
            std::string::npos)
      << seed_type.status().message();

  auto negative = RunOp("StatelessRandomNormal", {Shape32({2, -1}), Seed64(1, 2)});
  TFHOST_EXPECT_ERROR(negative, StatusCode::kInvalidArgument,
                      "output shape: dimension -1 is negative; expected a fully known shape");

  auto alg = RunOp("StatelessRandomUniformV2", {Shape32({2}), U64({1}), U64({0, 0}), Tensor::Scalar<int32_t>(2)});
  TFHOST_ASSERT_ERROR(alg, StatusCode::kInvalidArgument,
                      "Unsupported algorithm id: 2 (tfhost implements Philox, id 1, and auto-select, id 3)");

  auto key = RunOp("StatelessRandomUniformV2", {Shape32({2}), U64({1, 2}), U64({0, 0}), Tensor::Scalar<int32_t>(1)});
  TFHOST_ASSERT_ERROR(key, StatusCode::kInvalidArgument,
                      "key must have shape [1], not [2]. (Note that batched keys are not supported yet.)");

  auto counter = RunOp("StatelessRandomNormalV2", {Shape32({2}), U64({1}), U64({0}), Tensor::Scalar<int32_t>(1)});
  TFHOST_ASSERT_ERROR(counter, StatusCode::kInvalidArgument,
                      "counter must be a vector with length at least 2; got shape: [1]");

  auto alg_shape = RunOp("StatelessRandomNormalV2", {Shape32({2}), U64({1}), U64({0, 0}),
                                                   Tensor::FromVector(std::vector<int32_t>{1})});
  TFHOST_ASSERT_ERROR(alg_shape, StatusCode::kInvalidArgument, "input 3 (alg) must have shape [], not [1]");

  auto dtype = RunOp("StatelessRandomUniformFullInt", {Shape32({2}), Seed64(1, 2)}, {{"dtype", MakeAttr(DType::kFloat)}});
  TFHOST_EXPECT_ERROR(dtype, StatusCode::kInvalidArgument,
                      "node 'test_StatelessRandomUniformFullInt' (StatelessRandomUniformFullInt): attr 'dtype' is "
                      "DT_FLOAT, which is not one of its allowed types");

  auto minval = RunOp("StatelessRandomUniformInt",
                    {Shape32({2}), Seed64(1, 2), Tensor::FromVector(std::vector<int32_t>{0}), Tensor::Scalar<int32_t>(5)},
                    {{"dtype", MakeAttr(DType::kInt32)}, {"T", MakeAttr(DType::kInt32)}});
  TFHOST_ASSERT_ERROR(minval, StatusCode::kInvalidArgument, "minval must be 0-D, got shape [1]");
}

using ir::PartialShape;

TEST(StatelessRandomOpsTest, ShapeFunctionsReadTheShapeInputAndFixKeyCounterShapes) {
  Tensor dims = Shape32({2, 7});
  auto v1 = InferShape("StatelessRandomNormal", {PartialShape::Known({2}), PartialShape::Known({2})}, {&dims}, 1);
  ASSERT_EQ(v1.size(), 1u);
  EXPECT_EQ(v1[0], PartialShape::Known({2, 7}));
  auto v2 = InferShape("StatelessRandomUniformFullIntV2",
                       {PartialShape::Known({2}), PartialShape::Known({1}), PartialShape::Known({2}), PartialShape::Scalar()},
                       {&dims}, 1);
  EXPECT_EQ(v2[0], PartialShape::Known({2, 7}));
  auto kc = InferShape("StatelessRandomGetKeyCounterAlg", {PartialShape::Known({2})}, {}, 3);
  EXPECT_EQ(kc[0], PartialShape::Known({1}));
  EXPECT_EQ(kc[1], PartialShape::Known({2}));
  EXPECT_EQ(kc[2], PartialShape::Scalar());
  // A seed of the wrong length is a definite conflict.
  ir::Node node;
  node.name = "n";
  node.op = "StatelessRandomUniform";
  ShapeContext bad(node, {PartialShape::Known({2}), PartialShape::Known({3})}, {nullptr, nullptr}, 1);
  TFHOST_EXPECT_ERROR((*ShapeFnRegistry::Global().Find("StatelessRandomUniform"))(bad), StatusCode::kInvalidArgument,
                      "node 'n' (StatelessRandomUniform): seed must have shape [2], got [3]");
}

// TensorFlow's BoxMullerFloat writes `2.0f * M_PI * u`; M_PI is a double, so
// the angle is formed in double and rounded once. Forming it in float (with
// pi rounded to float) differs in the last bit for many u.
TEST(StatelessRandomOpsTest, BoxMullerFormsTheAngleInDoubleAsTensorFlowDoes) {
  int differing = 0;
  for (uint32_t x1 = 1; x1 < 4000; x1 += 37) {
    const float u = Uint32ToFloat(x1 * 2654435761u);
    const float tf_angle = static_cast<float>(2.0 * M_PI * static_cast<double>(u));
    const float float_angle = 2.0f * static_cast<float>(M_PI) * u;
    if (tf_angle == float_angle) continue;
    ++differing;
    float f0, f1;
    BoxMullerFloat(0x800000u, x1 * 2654435761u, &f0, &f1);  // u1 = 0 -> clamped to 1e-7
    const float radius = std::sqrt(-2.0f * std::log(1.0e-7f));
    EXPECT_EQ(f0, std::sin(tf_angle) * radius) << x1;
    EXPECT_EQ(f1, std::cos(tf_angle) * radius) << x1;
  }
  EXPECT_GT(differing, 0);  // the case the test is about occurs
}

}  // namespace
}  // namespace tfhost::ops::random
