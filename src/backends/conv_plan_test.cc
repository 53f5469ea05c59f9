// The CUDA backend's cuDNN plans (cuda/conv_plan.h), evaluated on the host
// by loops that follow cuDNN's documented semantics (NHWC cross-correlation
// with a KRSC filter and groups, symmetric padding, pooling windows that
// exclude or include padding), on the padded copy the plan asks for, and
// compared with the Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput,
// MaxPool and AvgPool reference kernels: what the GPU is told computes what
// TensorFlow defines, asymmetric SAME and EXPLICIT padding included.
#include "backends/cuda/conv_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

using ops::MakeAttr;

Tensor Filled(const std::vector<int64_t>& dims, float scale, int salt) {
  Tensor t(DType::kFloat, Shape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = scale * static_cast<float>((i * 7 + salt) % 13) - 3 * scale;
  }
  return t;
}

// The plan's padded copy of NHWC `x`, `value` in the new cells.
std::vector<float> PrePad(const ConvPlan& p, const Tensor& x, float value) {
  const int64_t hp = p.h.padded_in(), wp = p.w.padded_in(), c_n = p.in_c;
  std::vector<float> out(static_cast<size_t>(p.batch * hp * wp * c_n), value);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t y = 0; y < p.h.in; ++y)
      for (int64_t x0 = 0; x0 < p.w.in; ++x0)
        for (int64_t c = 0; c < c_n; ++c)
          out[((n * hp + y + p.h.pre_before) * wp + x0 + p.w.pre_before) * c_n + c] =
              x.data<float>()[((n * p.h.in + y) * p.w.in + x0) * c_n + c];
  return out;
}

// The filter as the GPU gets it: KRSC through the plan's gather.
std::vector<float> Krsc(const ConvPlan& p, const Tensor& filter) {
  auto g = MakeKrscGather(p.op, filter.shape());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  std::vector<float> out(static_cast<size_t>(p.filter.num_elements()));
  EXPECT_EQ(g->count, static_cast<int64_t>(out.size()));
  for (int64_t i = 0; i < g->count; ++i) out[i] = filter.data<float>()[GatherSource(*g, i)];
  return out;
}

// Calls f(n, oy, ox, iy, ix, r, s) for every tap of cuDNN's window that lies
// inside the padded input (cuDNN's own symmetric padding reads as absent).
template <typename F>
void ForEachCudnnTap(const ConvPlan& p, F&& f) {
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t oy = 0; oy < p.h.out; ++oy)
      for (int64_t ox = 0; ox < p.w.out; ++ox)
        for (int64_t r = 0; r < p.h.k; ++r)
          for (int64_t s = 0; s < p.w.k; ++s) {
            const int64_t iy = oy * p.h.stride - p.h.pad + r * p.h.dilation;
            const int64_t ix = ox * p.w.stride - p.w.pad + s * p.w.dilation;
            if (iy < 0 || ix < 0 || iy >= p.h.padded_in() || ix >= p.w.padded_in()) continue;
            f(n, oy, ox, iy, ix, r, s);
          }
}

std::vector<float> CudnnConvForward(const ConvPlan& p, const std::vector<float>& x, const std::vector<float>& w) {
  const int64_t cg = p.in_c / p.groups, kg = p.out_c / p.groups, wp = p.w.padded_in(), hp = p.h.padded_in();
  std::vector<double> y(static_cast<size_t>(p.y.num_elements()), 0.0);
  ForEachCudnnTap(p, [&](int64_t n, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t r, int64_t s) {
    for (int64_t k = 0; k < p.out_c; ++k) {
      const int64_t g = k / kg;
      for (int64_t c = 0; c < cg; ++c) {
        y[((n * p.h.out + oy) * p.w.out + ox) * p.out_c + k] +=
            double(x[((n * hp + iy) * wp + ix) * p.in_c + g * cg + c]) * w[((k * p.h.k + r) * p.w.k + s) * cg + c];
      }
    }
  });
  return std::vector<float>(y.begin(), y.end());
}

// cudnnConvolutionBackwardData into the padded copy, then the crop.
std::vector<float> CudnnBackwardData(const ConvPlan& p, const Tensor& dy, const std::vector<float>& w) {
  const int64_t hp = p.h.padded_in(), wp = p.w.padded_in();
  std::vector<double> dxp(static_cast<size_t>(p.batch * hp * wp * p.in_c), 0.0);
  ForEachCudnnTap(p, [&](int64_t n, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t r, int64_t s) {
    for (int64_t k = 0; k < p.out_c; ++k)
      for (int64_t c = 0; c < p.in_c; ++c)
        dxp[((n * hp + iy) * wp + ix) * p.in_c + c] +=
            double(dy.data<float>()[((n * p.h.out + oy) * p.w.out + ox) * p.out_c + k]) *
            w[((k * p.h.k + r) * p.w.k + s) * p.in_c + c];
  });
  std::vector<float> dx;
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t y = 0; y < p.h.in; ++y)
      for (int64_t x0 = 0; x0 < p.w.in; ++x0)
        for (int64_t c = 0; c < p.in_c; ++c)
          dx.push_back(static_cast<float>(dxp[((n * hp + y + p.h.pre_before) * wp + x0 + p.w.pre_before) * p.in_c + c]));
  return dx;
}

// cudnnPoolingForward in the mode the plan picks, then AvgPoolScale.
std::vector<float> CudnnPool(const ConvPlan& p, const std::vector<float>& x) {
  const bool max = p.op == WindowOp::kMaxPool;
  const int64_t wp = p.w.padded_in(), hp = p.h.padded_in(), c_n = p.in_c;
  const size_t pixels = static_cast<size_t>(p.batch * p.h.out * p.w.out);
  std::vector<double> acc(pixels * c_n, max ? -std::numeric_limits<double>::infinity() : 0.0);
  std::vector<int64_t> count(pixels, 0);
  ForEachCudnnTap(p, [&](int64_t n, int64_t oy, int64_t ox, int64_t iy, int64_t ix, int64_t, int64_t) {
    const int64_t px = (n * p.h.out + oy) * p.w.out + ox;
    ++count[px];
    for (int64_t c = 0; c < c_n; ++c) {
      const double v = x[((n * hp + iy) * wp + ix) * c_n + c];
      acc[px * c_n + c] = max ? std::max(acc[px * c_n + c], v) : acc[px * c_n + c] + v;
    }
  });
  const std::vector<float> scale = p.pre_padded() ? AvgPoolScale(p) : std::vector<float>();
  std::vector<float> y(acc.size());
  for (size_t px = 0; px < pixels; ++px) {
    const int64_t in_image = static_cast<int64_t>(px) % (p.h.out * p.w.out);
    for (int64_t c = 0; c < c_n; ++c) {
      double v = acc[px * c_n + c];
      if (!max) v = p.pre_padded() ? v / double(p.h.k * p.w.k) * scale[in_image] : v / double(count[px]);
      y[px * c_n + c] = static_cast<float>(v);
    }
  }
  return y;
}

struct Case {
  WindowOp op;
  std::vector<int64_t> x, filter;  // filter: HWIO, or [kh, kw] for the pools
  std::vector<int64_t> strides, dilations;
  std::string padding;
  std::vector<int64_t> explicit_paddings;
};

std::string Describe(const Case& c) {
  return "op " + std::to_string(static_cast<int>(c.op)) + " x " + Shape(c.x).ToString() + " filter " +
         Shape(c.filter).ToString() + " strides " + Shape(c.strides).ToString() + " dilations " +
         Shape(c.dilations).ToString() + " " + c.padding + " " + Shape(c.explicit_paddings).ToString();
}

void ExpectClose(const std::vector<float>& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.NumElements()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const float w = want.data<float>()[i];
    EXPECT_NEAR(got[i], w, 1e-4f * std::max(1.0f, std::fabs(w))) << what << " at " << i;
  }
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // SAME, stride 2, even input: one more padding row and column below and right.
      {WindowOp::kConv2D, {2, 8, 8, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME", {}},
      {WindowOp::kConv2D, {1, 7, 6, 2}, {2, 2, 2, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {WindowOp::kConv2D, {1, 9, 9, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME", {}},
      {WindowOp::kConv2D, {1, 9, 8, 2}, {3, 2, 2, 2}, {1, 2, 3, 1}, {1, 1, 1, 1}, "VALID", {}},
      {WindowOp::kConv2D, {1, 6, 7, 2}, {3, 3, 2, 3}, {1, 2, 1, 1}, {1, 1, 1, 1}, "EXPLICIT",
       {0, 0, 2, 0, 0, 3, 0, 0}},
      {WindowOp::kConv2D, {1, 5, 5, 4}, {3, 3, 2, 6}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},  // 2 groups
      {WindowOp::kDepthwise, {2, 8, 8, 3}, {3, 3, 3, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME", {}},
      {WindowOp::kDepthwise, {1, 7, 7, 4}, {5, 5, 4, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {WindowOp::kDepthwise, {1, 6, 6, 2}, {1, 1, 2, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID", {}},
      {WindowOp::kBackpropInput, {2, 8, 8, 3}, {3, 3, 3, 4}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME", {}},
      {WindowOp::kBackpropInput, {1, 7, 6, 2}, {2, 3, 2, 3}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", {}},
      {WindowOp::kBackpropInput, {1, 6, 7, 2}, {3, 3, 2, 3}, {1, 1, 2, 1}, {1, 1, 1, 1}, "EXPLICIT",
       {0, 0, 1, 0, 0, 2, 0, 0}},
      {WindowOp::kMaxPool, {2, 8, 8, 3}, {3, 3}, {1, 2, 2, 1}, {}, "SAME", {}},
      {WindowOp::kMaxPool, {1, 7, 7, 2}, {2, 2}, {1, 2, 2, 1}, {}, "VALID", {}},
      {WindowOp::kMaxPool, {1, 6, 5, 2}, {3, 3}, {1, 1, 2, 1}, {}, "EXPLICIT", {0, 0, 0, 2, 1, 0, 0, 0}},
      {WindowOp::kAvgPool, {2, 8, 8, 3}, {3, 3}, {1, 2, 2, 1}, {}, "SAME", {}},
      {WindowOp::kAvgPool, {1, 7, 7, 2}, {3, 3}, {1, 1, 1, 1}, {}, "SAME", {}},
      {WindowOp::kAvgPool, {1, 6, 6, 2}, {2, 2}, {1, 1, 1, 1}, {}, "SAME", {}},
      {WindowOp::kAvgPool, {1, 7, 8, 2}, {2, 3}, {1, 2, 3, 1}, {}, "VALID", {}},
  };
  return cases;
}

TEST(ConvPlanTest, EveryPlanComputesWhatTheReferenceKernelsCompute) {
  for (const Case& c : Cases()) {
    const std::string what = Describe(c);
    const bool pool = c.op == WindowOp::kMaxPool || c.op == WindowOp::kAvgPool;
    auto window = ops::nn::MakeWindow2D(c.strides, c.padding, c.explicit_paddings, "NHWC", c.dilations, true);
    ASSERT_TRUE(window.ok()) << what << ": " << window.status().ToString();
    auto plan = pool ? MakePoolPlan(c.op, *window, Shape(c.x), c.filter[0], c.filter[1])
                     : MakeConvPlan(c.op, *window, Shape(c.x), Shape(c.filter));
    ASSERT_TRUE(plan.ok()) << what << ": " << plan.status().ToString();
    const ConvPlan& p = *plan;
    ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}, {"strides", MakeAttr(c.strides)},
                         {"padding", MakeAttr(c.padding)}};
    if (!c.explicit_paddings.empty()) attrs["explicit_paddings"] = MakeAttr(c.explicit_paddings);
    if (!pool) attrs["dilations"] = MakeAttr(c.dilations);
    const Tensor x = Filled(c.x, 0.5f, 1);
    if (pool) {
      attrs["ksize"] = MakeAttr(std::vector<int64_t>{1, c.filter[0], c.filter[1], 1});
      auto ref = ops::RunSingleOp(c.op == WindowOp::kMaxPool ? "MaxPool" : "AvgPool", {x}, attrs);
      ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
      ASSERT_EQ(p.y, (*ref)[0].shape()) << what;
      const float pad = c.op == WindowOp::kMaxPool ? -std::numeric_limits<float>::infinity() : 0.0f;
      ExpectClose(CudnnPool(p, PrePad(p, x, pad)), (*ref)[0], what);
      continue;
    }
    const Tensor filter = Filled(c.filter, 0.25f, 3);
    if (c.op == WindowOp::kBackpropInput) {
      const Tensor dy = Filled({p.y.dim(0), p.y.dim(1), p.y.dim(2), p.y.dim(3)}, 0.5f, 5);
      Tensor sizes(DType::kInt32, Shape({4}));
      for (int i = 0; i < 4; ++i) sizes.data<int32_t>()[i] = static_cast<int32_t>(c.x[i]);
      auto ref = ops::RunSingleOp("Conv2DBackpropInput", {sizes, filter, dy}, attrs);
      ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
      ExpectClose(CudnnBackwardData(p, dy, Krsc(p, filter)), (*ref)[0], what);
      continue;
    }
    auto ref = ops::RunSingleOp(c.op == WindowOp::kDepthwise ? "DepthwiseConv2dNative" : "Conv2D", {x, filter}, attrs);
    ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
    ASSERT_EQ(p.y, (*ref)[0].shape()) << what;
    ExpectClose(CudnnConvForward(p, PrePad(p, x, 0.0f), Krsc(p, filter)), (*ref)[0], what);
  }
}

TEST(ConvPlanTest, CudnnOutputSizeAndWindowOriginsAreConvGeometrys) {
  for (ops::nn::Padding padding : {ops::nn::Padding::kValid, ops::nn::Padding::kSame, ops::nn::Padding::kExplicit}) {
    for (int64_t in = 1; in <= 12; ++in)
      for (int64_t k = 1; k <= 5; ++k)
        for (int64_t stride = 1; stride <= 3; ++stride)
          for (int64_t dilation = 1; dilation <= 2; ++dilation)
            for (int64_t before = 0; before <= 3; ++before)
              for (int64_t after = 0; after <= 3; ++after) {
                const std::string what = "in " + std::to_string(in) + " k " + std::to_string(k) + " stride " +
                                         std::to_string(stride) + " dilation " + std::to_string(dilation) +
                                         " pads " + std::to_string(before) + "," + std::to_string(after) +
                                         " padding " + std::to_string(static_cast<int>(padding));
                auto tf = ops::nn::ComputeWindowDim(in, k, stride, dilation, padding, before, after);
                auto d = MakeCudnnDim(in, k, stride, dilation, padding, before, after);
                ASSERT_EQ(tf.ok(), d.ok()) << what;
                if (!tf.ok()) continue;
                ASSERT_EQ(d->out, tf->out) << what;
                if (d->out <= 0) continue;
                EXPECT_GE(d->pad, 0) << what;
                EXPECT_GE(d->pre_before, 0) << what;
                EXPECT_GE(d->pre_after, 0) << what;
                EXPECT_EQ(CudnnOutputSize(d->padded_in(), d->pad, k, stride, dilation), tf->out) << what;
                for (int64_t o = 0; o < d->out; ++o) EXPECT_EQ(d->origin(o), o * stride - tf->pad_before) << what;
              }
  }
}

TEST(ConvPlanTest, SameWithOddTotalPaddingPadsTheFarSideInACopy) {
  // 8 rows, 3x3 window, stride 2: TensorFlow pads 0 above and 1 below.
  auto d = MakeCudnnDim(8, 3, 2, 1, ops::nn::Padding::kSame, 0, 0);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->out, 4);
  EXPECT_EQ(d->pad, 0);
  EXPECT_EQ(d->pre_before, 0);
  EXPECT_EQ(d->pre_after, 1);
  // 7 rows: 1 above and 1 below, all of it cuDNN's.
  d = MakeCudnnDim(7, 3, 2, 1, ops::nn::Padding::kSame, 0, 0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->pad, 1);
  EXPECT_EQ(d->pre_before + d->pre_after, 0);
}

TEST(ConvPlanTest, FusedOpsTheGpuDoesNotFuseAreRefusedNamingThem) {
  auto node = [](std::vector<std::string> fused, int64_t num_args) {
    return ops::MakeSingleOpNode("_FusedConv2D", {{"T", MakeAttr(DType::kFloat)},
                                                  {"strides", MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                                                  {"padding", MakeAttr("SAME")},
                                                  {"num_args", MakeAttr(num_args)},
                                                  {"fused_ops", MakeAttr(fused)}});
  };
  auto ok = node({"BiasAdd", "Add", "Relu"}, 2);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto e = ParseConvEpilogue(*ok);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_TRUE(e->bias && e->residual && e->act == UnaryOp::kRelu);
  EXPECT_EQ(e->Name(), "bias_relu_add");
  auto swish = node({"BiasAdd", "_MklSwish"}, 1);
  ASSERT_TRUE(swish.ok());
  ASSERT_TRUE(ParseConvEpilogue(*swish).ok());
  EXPECT_EQ(ParseConvEpilogue(*swish)->Name(), "bias_identity");
  auto bn = node({"FusedBatchNorm", "Relu"}, 4);
  ASSERT_TRUE(bn.ok());
  TFHOST_EXPECT_ERROR(ParseConvEpilogue(*bn), StatusCode::kUnimplemented, "fused_ops [FusedBatchNorm, Relu]");
  auto leaky = node({"BiasAdd", "LeakyRelu"}, 1);
  ASSERT_TRUE(leaky.ok());
  TFHOST_EXPECT_ERROR(ParseConvEpilogue(*leaky), StatusCode::kUnimplemented, "fused_ops [BiasAdd, LeakyRelu]");
}

TEST(ConvPlanTest, MaxPoolWithExplicitPaddingAsWideAsTheWindowIsRefused) {
  auto node = ops::MakeSingleOpNode("MaxPool", {{"T", MakeAttr(DType::kFloat)},
                                                {"ksize", MakeAttr(std::vector<int64_t>{1, 2, 2, 1})},
                                                {"strides", MakeAttr(std::vector<int64_t>{1, 1, 1, 1})},
                                                {"padding", MakeAttr("EXPLICIT")},
                                                {"explicit_paddings", MakeAttr(std::vector<int64_t>{0, 0, 2, 0, 0, 0, 0, 0})}});
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  TFHOST_EXPECT_ERROR(ParsePoolWindow(*node), StatusCode::kUnimplemented, "as wide as the window");
}

}  // namespace
}  // namespace tfhost::backends::cuda
