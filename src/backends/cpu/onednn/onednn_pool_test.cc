#include "backends/cpu/onednn/onednn_pool.h"

#include <gtest/gtest.h>

#include <limits>

#include "backends/cpu/onednn/onednn_test_util.h"
#include "base/buffer_pool.h"

namespace tfhost::backends::onednn {
namespace {

using ops::MakeAttr;
using testing::ExpectMatchesReference;
using testing::MakeFast;
using testing::RandomTensor;

ir::AttrMap PoolAttrs(bool nchw, const std::string& padding, int64_t kh, int64_t kw, int64_t sh, int64_t sw) {
  auto quad = [nchw](int64_t a, int64_t b) {
    return nchw ? std::vector<int64_t>{1, 1, a, b} : std::vector<int64_t>{1, a, b, 1};
  };
  return {{"T", MakeAttr(DType::kFloat)},
          {"ksize", MakeAttr(quad(kh, kw))},
          {"strides", MakeAttr(quad(sh, sw))},
          {"padding", MakeAttr(padding)},
          {"data_format", MakeAttr(nchw ? "NCHW" : "NHWC")}};
}

TEST(OneDnnPoolTest, MaxAndAvgPoolMatchReferenceOverLayoutsPaddingsWindowsStrides) {
  uint32_t seed = 1;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (bool nchw : {false, true}) {
      for (const char* padding : {"SAME", "VALID"}) {
        for (auto [kh, kw, sh, sw] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{2, 2, 2, 2}, {3, 3, 2, 2}, {3, 2, 1, 1}, {1, 1, 1, 1}, {5, 5, 3, 2}}) {
          for (int64_t batch : {1, 3}) {
            const Shape shape = nchw ? Shape({batch, 5, 11, 9}) : Shape({batch, 11, 9, 5});
            ExpectMatchesReference(op, PoolAttrs(nchw, padding, kh, kw, sh, sw), {RandomTensor(shape, seed++)}, 1e-5,
                                   std::string(op) + (nchw ? " NCHW " : " NHWC ") + padding + " k" + std::to_string(kh) +
                                       std::to_string(kw) + " s" + std::to_string(sh) + std::to_string(sw) + " n" +
                                       std::to_string(batch));
          }
        }
      }
    }
  }
}

TEST(OneDnnPoolTest, MaxPoolWithExplicitPaddingMatchesReference) {
  ir::AttrMap attrs = PoolAttrs(false, "EXPLICIT", 3, 3, 2, 2);
  attrs["explicit_paddings"] = MakeAttr(std::vector<int64_t>{0, 0, 1, 2, 2, 0, 0, 0});
  ExpectMatchesReference("MaxPool", attrs, {RandomTensor(Shape({2, 8, 7, 3}), 9)}, 0, "MaxPool EXPLICIT");
}

TEST(OneDnnPoolTest, AvgPoolSameLeavesPaddingOutOfTheCount) {
  // A 2x2 input of ones with a 3x3 SAME window: every output averages only
  // real cells, so it is exactly 1 (counting padding would give 4/9).
  Tensor x(DType::kFloat, Shape({1, 2, 2, 1}));
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 1.f;
  auto f = MakeFast("AvgPool", PoolAttrs(false, "SAME", 3, 3, 1, 1));
  ASSERT_TRUE(f.fast.kernel);
  auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, {x});
  ASSERT_TRUE(got.ok());
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ((*got)[0].data<float>()[i], 1.f);
  EXPECT_EQ(f.fallbacks->load(), 0);
}

TEST(OneDnnPoolTest, DeclinesOtherDtypesAndChannelWindows) {
  ir::AttrMap d = PoolAttrs(false, "SAME", 2, 2, 2, 2);
  d["T"] = MakeAttr(DType::kDouble);
  EXPECT_FALSE(MakeFast("MaxPool", d).fast.kernel);
  ir::AttrMap channel = PoolAttrs(false, "SAME", 2, 2, 2, 2);
  channel["ksize"] = MakeAttr(std::vector<int64_t>{1, 2, 2, 2});
  EXPECT_FALSE(MakeFast("AvgPool", channel).fast.kernel);
}

// Pool outputs are allocated without a zero fill: a stale NaN block reused
// from the buffer pool must be overwritten everywhere.
TEST(OneDnnPoolTest, OutputsOverwriteEveryElementOfAReusedPoolBlock) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    const ir::AttrMap attrs = PoolAttrs(/*nchw=*/false, "SAME", 3, 3, 2, 2);
    const std::vector<Tensor> in = {RandomTensor(Shape({2, 9, 7, 5}), 7)};
    auto want = ops::RunSingleOp(op, in, attrs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto f = MakeFast(op, attrs);
    ASSERT_TRUE(f.fast.kernel);
    auto pool = BufferPool::Create();
    BufferPool::ScopedCurrent current(pool.get());
    {
      Tensor stale = Tensor::Uninitialized(DType::kFloat, (*want)[0].shape());
      for (int64_t i = 0; i < stale.NumElements(); ++i) stale.data<float>()[i] = std::numeric_limits<float>::quiet_NaN();
    }
    const int64_t reuses = pool->stats().reuses;
    auto got = ops::RunKernelOnNode(f.node, f.fast.kernel, in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_GT(pool->stats().reuses, reuses) << op << ": the output did not take the stale block";
    testing::ExpectClose((*got)[0], (*want)[0], 1e-5, op);
    EXPECT_EQ(f.fallbacks->load(), 0) << op;
  }
}

}  // namespace
}  // namespace tfhost::backends::onednn
