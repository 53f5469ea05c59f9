#include "backends/cpu/onednn/onednn_matmul.h"

#include <gtest/gtest.h>

#include <thread>

#include "backends/cpu/onednn/onednn_test_util.h"
#include "base/test_status.h"

namespace tfhost::backends::onednn {
namespace {

using ops::MakeAttr;
using testing::ExpectClose;
using testing::ExpectMatchesReference;
using testing::MakeFast;
using testing::RandomTensor;

// The reference accumulates in double; oneDNN in float over k <= 300 terms.
constexpr double kTol = 1e-5;

ir::AttrMap MatMulAttrs(bool ta, bool tb) {
  return {{"T", MakeAttr(DType::kFloat)}, {"transpose_a", MakeAttr(ta)}, {"transpose_b", MakeAttr(tb)}};
}

TEST(OneDnnMatMulTest, MatMulMatchesReferenceForEveryTransposeAndOddSizes) {
  uint32_t seed = 1;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {3, 5, 7}, {17, 33, 9}, {64, 300, 65}}) {
        Tensor a = RandomTensor(ta ? Shape({k, m}) : Shape({m, k}), seed++);
        Tensor b = RandomTensor(tb ? Shape({n, k}) : Shape({k, n}), seed++);
        ExpectMatchesReference("MatMul", MatMulAttrs(ta, tb), {a, b}, kTol,
                               "MatMul ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) + " m" +
                                   std::to_string(m) + " k" + std::to_string(k) + " n" + std::to_string(n));
      }
    }
  }
}

TEST(OneDnnMatMulTest, LargeMatMulsMatchReferenceWhateverPathTheSecondOperandTakes) {
  // At least 256 rows, 512 columns and 2^18 elements of b: on oneDNN's
  // gemm-based MatMul (AVX2; ctest runs this binary again as
  // onednn_matmul_test_avx2) b is copied off its cache-line alignment first.
  // Repeated calls reuse the thread's copy buffer with new values; a
  // transposed b takes the unmodified path.
  uint32_t seed = 100;
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{256, 512, 512}, {261, 515, 530}}) {
    for (int call = 0; call < 2; ++call) {
      const std::string label = "m" + std::to_string(m) + " k" + std::to_string(k) + " n" + std::to_string(n) +
                                " call " + std::to_string(call);
      Tensor a = RandomTensor(Shape({m, k}), seed++);
      ExpectMatchesReference("MatMul", MatMulAttrs(false, false), {a, RandomTensor(Shape({k, n}), seed++)}, 1e-4,
                             label);
      ExpectMatchesReference("MatMul", MatMulAttrs(false, true), {a, RandomTensor(Shape({n, k}), seed++)}, 1e-4,
                             label + " transpose_b");
    }
  }
}

TEST(OneDnnMatMulTest, FusedMatMulMatchesReferenceForEveryFusedEpilogue) {
  uint32_t seed = 50;
  std::vector<std::vector<std::string>> lists = {{"BiasAdd"}};
  for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh", "_MklSwish"}) lists.push_back({"BiasAdd", act});
  for (const auto& fused_ops : lists) {
    for (bool tb : {false, true}) {
      ir::AttrMap attrs = MatMulAttrs(false, tb);
      attrs["fused_ops"] = MakeAttr(fused_ops);
      attrs["num_args"] = MakeAttr(int64_t{1});
      attrs["leakyrelu_alpha"] = MakeAttr(0.1f);
      Tensor a = RandomTensor(Shape({5, 24}), seed++);
      Tensor b = RandomTensor(tb ? Shape({13, 24}) : Shape({24, 13}), seed++, -2, 2);
      Tensor bias = RandomTensor(Shape({13}), seed++);
      ExpectMatchesReference("_FusedMatMul", attrs, {a, b, bias}, kTol,
                             "_FusedMatMul " + fused_ops.back() + " tb=" + std::to_string(tb));
    }
  }
}

TEST(OneDnnMatMulTest, FusedMatMulRunsGeluAsOneDnnPostOp) {
  uint32_t seed = 80;
  for (const char* gelu : {"GeluExact", "GeluApproximate"}) {
    for (bool tb : {false, true}) {
      ir::AttrMap attrs = MatMulAttrs(false, tb);
      attrs["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", gelu});
      attrs["num_args"] = MakeAttr(int64_t{1});
      Tensor a = RandomTensor(Shape({7, 32}), seed++);
      Tensor b = RandomTensor(tb ? Shape({19, 32}) : Shape({32, 19}), seed++, -2, 2);
      Tensor bias = RandomTensor(Shape({19}), seed++);
      ExpectMatchesReference("_FusedMatMul", attrs, {a, b, bias}, kTol,
                             std::string("_FusedMatMul ") + gelu + " tb=" + std::to_string(tb));
    }
  }
  // GELU after another activation is not one post-op: declined.
  ir::AttrMap two = MatMulAttrs(false, false);
  two["fused_ops"] = MakeAttr(std::vector<std::string>{"BiasAdd", "Relu", "GeluExact"});
  two["num_args"] = MakeAttr(int64_t{1});
  EXPECT_FALSE(MakeFast("_FusedMatMul", two).fast.kernel);
}

TEST(OneDnnMatMulTest, FusedBatchMatMulMatchesReferenceForRanksThreeAndFour) {
  uint32_t seed = 90;
  struct Case {
    Shape x, y;  // as stored
    bool adj_x, adj_y;
    std::vector<std::string> fused_ops;
  };
  const std::vector<Case> cases = {
      {Shape({2, 5, 16}), Shape({16, 12}), false, false, {"BiasAdd", "GeluExact"}},   // dense on [B, T, D]
      {Shape({2, 5, 16}), Shape({12, 16}), false, true, {"BiasAdd", "GeluApproximate"}},
      {Shape({1, 2, 6, 8}), Shape({1, 2, 6, 8}), false, true, {"BiasAdd"}},          // attention scores
      {Shape({2, 2, 8, 6}), Shape({2, 1, 8, 3}), true, false, {"BiasAdd", "Relu"}},  // broadcast batch
      {Shape({3, 4, 5}), Shape({3, 5, 6}), false, false, {"BiasAdd", "Sigmoid"}},
  };
  for (const Case& c : cases) {
    ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                         {"adj_x", MakeAttr(c.adj_x)},
                         {"adj_y", MakeAttr(c.adj_y)},
                         {"fused_ops", MakeAttr(c.fused_ops)},
                         {"num_args", MakeAttr(int64_t{1})}};
    const int64_t n = c.adj_y ? c.y.dim(c.y.rank() - 2) : c.y.dim(c.y.rank() - 1);
    const std::string label = "_TfhostFusedBatchMatMul " + c.x.ToString() + " x " + c.y.ToString() + " " +
                              c.fused_ops.back();
    ExpectMatchesReference("_TfhostFusedBatchMatMul", attrs,
                           {RandomTensor(c.x, seed++), RandomTensor(c.y, seed++), RandomTensor(Shape({n}), seed++)},
                           kTol, label);
    // The reference equals BatchMatMulV2 then the epilogue's ops.
    if (c.fused_ops.size() == 1) {
      Tensor x = RandomTensor(c.x, seed++), y = RandomTensor(c.y, seed++);
      Tensor zero(DType::kFloat, Shape({n}));
      auto fused = ops::RunSingleOp("_TfhostFusedBatchMatMul", {x, y, zero}, attrs);
      auto plain = ops::RunSingleOp("BatchMatMulV2", {x, y},
                                    {{"T", MakeAttr(DType::kFloat)}, {"adj_x", MakeAttr(c.adj_x)},
                                     {"adj_y", MakeAttr(c.adj_y)}});
      ASSERT_TRUE(fused.ok() && plain.ok()) << label;
      ExpectClose((*fused)[0], (*plain)[0], kTol, label + " vs BatchMatMulV2");
    }
  }
}

TEST(OneDnnMatMulTest, FusedBatchMatMulAddsABroadcastAddendAsAPostOp) {
  // Attention scores [B, H, T, T] = q k^T plus a mask of several broadcast
  // shapes, then nothing, Relu or GELU; and the reference equals
  // BatchMatMulV2 + AddV2.
  uint32_t seed = 120;
  const Shape q({2, 3, 5, 8});
  for (const Shape& mask : {Shape({2, 1, 1, 5}), Shape({2, 3, 5, 5}), Shape({5}), Shape({1, 3, 5, 5}), Shape({5, 1})}) {
    for (const std::vector<std::string>& fused_ops : std::vector<std::vector<std::string>>{
             {"Add"}, {"Add", "Relu"}, {"Add", "GeluApproximate"}}) {
      ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                           {"adj_y", MakeAttr(true)},
                           {"fused_ops", MakeAttr(fused_ops)},
                           {"num_args", MakeAttr(int64_t{1})}};
      const Tensor x = RandomTensor(q, seed++), y = RandomTensor(q, seed++), m = RandomTensor(mask, seed++);
      const std::string label = "mask " + mask.ToString() + " " + fused_ops.back();
      ExpectMatchesReference("_TfhostFusedBatchMatMul", attrs, {x, y, m}, kTol, label);
      if (fused_ops.size() == 1) {
        auto fused = ops::RunSingleOp("_TfhostFusedBatchMatMul", {x, y, m}, attrs);
        auto prod = ops::RunSingleOp("BatchMatMulV2", {x, y}, {{"T", MakeAttr(DType::kFloat)}, {"adj_y", MakeAttr(true)}});
        ASSERT_TRUE(fused.ok() && prod.ok()) << label;
        auto sum = ops::RunSingleOp("AddV2", {(*prod)[0], m}, {{"T", MakeAttr(DType::kFloat)}});
        ASSERT_TRUE(sum.ok()) << label;
        ExpectClose((*fused)[0], (*sum)[0], kTol, label + " vs BatchMatMulV2 + AddV2");
      }
    }
  }
  // An addend that would enlarge the output is the reference's error.
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)},
                       {"fused_ops", MakeAttr(std::vector<std::string>{"Add"})},
                       {"num_args", MakeAttr(int64_t{1})}};
  EXPECT_FALSE(ops::RunSingleOp("_TfhostFusedBatchMatMul",
                                {RandomTensor(Shape({2, 3, 4}), 1), RandomTensor(Shape({2, 4, 5}), 2),
                                 RandomTensor(Shape({3, 2, 3, 5}), 3)},
                                attrs)
                   .ok());
}

TEST(OneDnnMatMulTest, BatchMatMulsMatchReferenceWithAdjointsAndBroadcastBatchDims) {
  uint32_t seed = 100;
  struct Case {
    std::string op;
    Shape x, y;  // before adjoint
  };
  const std::vector<Case> cases = {
      {"BatchMatMul", Shape({3, 4, 5}), Shape({3, 5, 6})},
      {"BatchMatMul", Shape({2, 3, 4, 5}), Shape({2, 3, 5, 2})},
      {"BatchMatMulV2", Shape({4, 5}), Shape({3, 5, 6})},           // rank broadcast
      {"BatchMatMulV2", Shape({2, 1, 4, 5}), Shape({3, 5, 6})},     // 2x1 vs 3
      {"BatchMatMulV2", Shape({1, 4, 5}), Shape({7, 5, 6})},        // size-1 batch
      {"BatchMatMulV2", Shape({7, 4, 5}), Shape({1, 5, 6})},
      {"BatchMatMulV3", Shape({2, 3, 4, 5}), Shape({1, 3, 5, 6})},
  };
  for (const Case& c : cases) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        auto adj = [](Shape s, bool a) {
          if (a) {
            auto& d = s.mutable_dims();
            std::swap(d[d.size() - 1], d[d.size() - 2]);
          }
          return s;
        };
        ir::AttrMap attrs = {{"adj_x", MakeAttr(adj_x)}, {"adj_y", MakeAttr(adj_y)}};
        if (c.op == "BatchMatMulV3") {
          attrs["Ta"] = attrs["Tb"] = attrs["Tout"] = MakeAttr(DType::kFloat);
        } else {
          attrs["T"] = MakeAttr(DType::kFloat);
        }
        ExpectMatchesReference(c.op, attrs, {RandomTensor(adj(c.x, adj_x), seed++), RandomTensor(adj(c.y, adj_y), seed++)},
                               kTol, c.op + " " + c.x.ToString() + " x " + c.y.ToString() + " adj " +
                                         std::to_string(adj_x) + std::to_string(adj_y));
      }
    }
  }
}

TEST(OneDnnMatMulTest, PackedWeightsFollowTheBufferTheyCameFrom) {
  // The second operand is kept in oneDNN's own layout per buffer: new
  // weights of the same shape must be packed again, the same ones not.
  for (bool tb : {false, true}) {
    auto f = MakeFast("MatMul", MatMulAttrs(false, tb));
    ASSERT_TRUE(f.fast.kernel);
    const Tensor a = RandomTensor(Shape({32, 96}), 40);
    const Tensor first = RandomTensor(tb ? Shape({256, 96}) : Shape({96, 256}), 41);
    const Tensor second = RandomTensor(tb ? Shape({256, 96}) : Shape({96, 256}), 42);
    for (const Tensor* b : {&first, &second, &first, &first}) {
      auto want = ops::RunSingleOp("MatMul", {a, *b}, MatMulAttrs(false, tb));
      auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, {a, *b});
      ASSERT_TRUE(want.ok() && got.ok());
      ExpectClose((*got)[0], (*want)[0], kTol, std::string("tb=") + (tb ? "1" : "0"));
    }
    EXPECT_EQ(f.fallbacks->load(), 0);
  }
}

TEST(OneDnnMatMulTest, ConcurrentCallsOnOneKernelAgree) {
  auto f = MakeFast("MatMul", MatMulAttrs(false, false));
  ASSERT_TRUE(f.fast.kernel);
  const Tensor b = RandomTensor(Shape({40, 30}), 1);
  std::vector<Tensor> as, wants;
  for (int s = 0; s < 3; ++s) {
    as.push_back(RandomTensor(Shape({1 + 7 * s, 40}), 2 + s));
    auto want = ops::RunSingleOp("MatMul", {as.back(), b}, MatMulAttrs(false, false));
    ASSERT_TRUE(want.ok());
    wants.push_back((*want)[0]);
  }
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ThreadPool pool(t % 2);
      for (int i = 0; i < 30; ++i) {
        const int s = (t + i) % 3;
        auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, {as[s], b}, nullptr, &pool);
        if (!got.ok()) {
          ++bad;
          continue;
        }
        for (int64_t k = 0; k < wants[s].NumElements(); ++k) {
          const float g = (*got)[0].data<float>()[k], w = wants[s].data<float>()[k];
          if (std::fabs(g - w) > 1e-5f + 1e-5f * std::fabs(w)) {
            ++bad;
            break;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(f.fallbacks->load(), 0);
}

TEST(OneDnnMatMulTest, DeclinesOtherDtypesAndEpiloguesAndFallsBackOnBadShapes) {
  ir::AttrMap int_attrs = MatMulAttrs(false, false);
  int_attrs["T"] = MakeAttr(DType::kInt32);
  EXPECT_FALSE(MakeFast("MatMul", int_attrs).fast.kernel);
  ir::AttrMap bn = MatMulAttrs(false, false);
  bn["fused_ops"] = MakeAttr(std::vector<std::string>{"FusedBatchNorm"});
  bn["num_args"] = MakeAttr(int64_t{4});
  EXPECT_FALSE(MakeFast("_FusedMatMul", bn).fast.kernel);
  ir::AttrMap v3 = {{"Ta", MakeAttr(DType::kInt32)}, {"Tb", MakeAttr(DType::kFloat)}, {"Tout", MakeAttr(DType::kFloat)}};
  EXPECT_FALSE(MakeFast("BatchMatMulV3", v3).fast.kernel);

  auto f = MakeFast("MatMul", MatMulAttrs(false, false));
  ASSERT_TRUE(f.fast.kernel);
  auto bad = ops::RunKernelOnNode(f.node, f.fast.kernel, {RandomTensor(Shape({2, 3}), 1), RandomTensor(Shape({4, 2}), 2)});
  TFHOST_EXPECT_ERROR(bad, StatusCode::kInvalidArgument, "inner dimensions do not match: a [2,3] times b [4,2]");
  auto empty = ops::RunKernelOnNode(f.node, f.fast.kernel, {Tensor(DType::kFloat, Shape({2, 0})), Tensor(DType::kFloat, Shape({0, 3}))});
  ASSERT_TRUE(empty.ok());
  ExpectClose((*empty)[0], Tensor(DType::kFloat, Shape({2, 3})), 0, "k = 0 gives zeros");
  EXPECT_EQ(f.fallbacks->load(), 2);

  auto v1 = MakeFast("BatchMatMul", {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(v1.fast.kernel);
  auto unequal = ops::RunKernelOnNode(v1.node, v1.fast.kernel, {RandomTensor(Shape({1, 2, 3}), 1), RandomTensor(Shape({2, 3, 2}), 2)});
  TFHOST_EXPECT_ERROR(unequal, StatusCode::kInvalidArgument,
                      "batch dimensions must be equal, got shapes [1,2,3] and [2,3,2]") << "BatchMatMul (V1) does not broadcast";
}

}  // namespace
}  // namespace tfhost::backends::onednn
