// The filter the CUDA backend hands cuDNN (cuda/conv_plan.h MakeKrscGather,
// run on the device by the layout kernels' strided gather): TensorFlow's
// HWIO filter, and a depthwise [kh, kw, C, M] one, rewritten as KRSC
// [out, kh, kw, in / groups], checked element by element against a plain
// loop over the layouts' definitions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cuda/conv_plan.h"

namespace tfhost::backends::cuda {
namespace {

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

std::vector<float> Gathered(WindowOp op, const Shape& filter, const std::vector<float>& src) {
  auto g = MakeKrscGather(op, filter);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  std::vector<float> out(src.size(), -1.0f);
  EXPECT_EQ(g->count, static_cast<int64_t>(src.size()));
  for (int64_t i = 0; i < g->count; ++i) out[i] = src[GatherSource(*g, i)];
  return out;
}

TEST(CudnnFilterLayoutTest, HwioBecomesKrsc) {
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{3, 3, 4, 5}, {1, 1, 8, 16}, {5, 2, 1, 3}, {2, 3, 3, 1}, {1, 1, 1, 1}}) {
    const int64_t kh = dims[0], kw = dims[1], ci = dims[2], co = dims[3];
    const std::vector<float> hwio = Iota(kh * kw * ci * co);
    const std::vector<float> got = Gathered(WindowOp::kConv2D, Shape(dims), hwio);
    for (int64_t k = 0; k < co; ++k)
      for (int64_t r = 0; r < kh; ++r)
        for (int64_t s = 0; s < kw; ++s)
          for (int64_t c = 0; c < ci; ++c)
            ASSERT_EQ(got[((k * kh + r) * kw + s) * ci + c], hwio[((r * kw + s) * ci + c) * co + k])
                << Shape(dims).ToString() << " at k " << k << " r " << r << " s " << s << " c " << c;
  }
}

TEST(CudnnFilterLayoutTest, DepthwiseBecomesGroupedKrscInTensorFlowsChannelOrder) {
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{3, 3, 4, 1}, {3, 3, 4, 2}, {5, 1, 3, 3}, {1, 1, 6, 2}}) {
    const int64_t kh = dims[0], kw = dims[1], ch = dims[2], m = dims[3];
    const std::vector<float> filter = Iota(kh * kw * ch * m);
    const std::vector<float> got = Gathered(WindowOp::kDepthwise, Shape(dims), filter);
    // Output channel c * M + q of group c reads input channel c with filter[., ., c, q].
    for (int64_t c = 0; c < ch; ++c)
      for (int64_t q = 0; q < m; ++q)
        for (int64_t r = 0; r < kh; ++r)
          for (int64_t s = 0; s < kw; ++s)
            ASSERT_EQ(got[((c * m + q) * kh + r) * kw + s], filter[((r * kw + s) * ch + c) * m + q])
                << Shape(dims).ToString() << " at c " << c << " q " << q << " r " << r << " s " << s;
  }
}

TEST(CudnnFilterLayoutTest, TheGatheredFilterHasThePlansShape) {
  auto window = ops::nn::MakeWindow2D({1, 1, 1, 1}, "SAME", {}, "NHWC", {1, 1, 1, 1}, false);
  ASSERT_TRUE(window.ok());
  auto conv = MakeConvPlan(WindowOp::kConv2D, *window, Shape({1, 5, 5, 6}), Shape({3, 2, 3, 4}));
  ASSERT_TRUE(conv.ok()) << conv.status().ToString();
  EXPECT_EQ(conv->filter, Shape({4, 3, 2, 3}));
  EXPECT_EQ(conv->groups, 2);
  auto depthwise = MakeConvPlan(WindowOp::kDepthwise, *window, Shape({1, 5, 5, 6}), Shape({3, 2, 6, 2}));
  ASSERT_TRUE(depthwise.ok()) << depthwise.status().ToString();
  EXPECT_EQ(depthwise->filter, Shape({12, 3, 2, 1}));
  EXPECT_EQ(depthwise->groups, 6);
  EXPECT_EQ(depthwise->out_c, 12);
}

}  // namespace
}  // namespace tfhost::backends::cuda
