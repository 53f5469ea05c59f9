// The CUDA backend's resize math (cuda/resize_functors.h) composed on the
// host as resize_kernels.cu composes it, one output element at a time, and
// compared with the reference kernels of ResizeBilinear and
// ResizeNearestNeighbor over up- and downscales under every coordinate
// mapping TensorFlow has.
#include "backends/cuda/resize_functors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

struct Mapping {
  bool align_corners, half_pixel_centers;
  const char* name;
};
constexpr Mapping kMappings[] = {{false, false, "legacy"}, {true, false, "align_corners"},
                                 {false, true, "half_pixel_centers"}};

ResizeGeometry GeometryOf(const Shape& in, int64_t out_h, int64_t out_w, const Mapping& m) {
  ResizeGeometry g;
  g.batch = in.dim(0);
  g.in_h = in.dim(1);
  g.in_w = in.dim(2);
  g.channels = in.dim(3);
  g.out_h = out_h;
  g.out_w = out_w;
  g.align_corners = m.align_corners;
  g.half_pixel_centers = m.half_pixel_centers;
  g.scale_h = ResizeScaleOf(g.in_h, out_h, m.align_corners);
  g.scale_w = ResizeScaleOf(g.in_w, out_w, m.align_corners);
  return g;
}

// The image [b, y, x, c] of distinct values.
std::vector<float> Image(const Shape& s) {
  std::vector<float> v(s.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 1009) * 0.125f - 40.0f;
  return v;
}

StatusOr<std::vector<Tensor>> Reference(const char* op, const std::vector<float>& image, const Shape& shape,
                                        int64_t out_h, int64_t out_w, const Mapping& m) {
  return ops::RunSingleOp(op,
                          {Tensor::FromVector(image, shape),
                           Tensor::FromVector<int32_t>({static_cast<int32_t>(out_h), static_cast<int32_t>(out_w)})},
                          {{"T", ops::MakeAttr(DType::kFloat)},
                           {"align_corners", ops::MakeAttr(m.align_corners)},
                           {"half_pixel_centers", ops::MakeAttr(m.half_pixel_centers)}});
}

// Up, down, to one pixel, and from one pixel.
const std::vector<std::pair<int64_t, int64_t>> kSizes = {{13, 20}, {4, 5}, {1, 1}, {7, 3}};

TEST(ResizeFunctorsTest, BilinearMatchesTheReferenceKernelUnderEveryMapping) {
  const Shape shapes[] = {Shape({2, 6, 9, 3}), Shape({1, 1, 1, 2})};
  for (const Shape& shape : shapes) {
    const std::vector<float> x = Image(shape);
    for (const Mapping& m : kMappings) {
      for (const auto& [out_h, out_w] : kSizes) {
        SCOPED_TRACE(shape.ToString() + " -> " + std::to_string(out_h) + "x" + std::to_string(out_w) + " " + m.name);
        auto ref = Reference("ResizeBilinear", x, shape, out_h, out_w, m);
        ASSERT_TRUE(ref.ok()) << ref.status().ToString();
        const ResizeGeometry g = GeometryOf(shape, out_h, out_w, m);
        const Tensor& want = (*ref)[0];
        ASSERT_EQ(want.NumElements(), g.batch * out_h * out_w * g.channels);
        int64_t i = 0;
        for (int64_t b = 0; b < g.batch; ++b) {
          for (int64_t oy = 0; oy < out_h; ++oy) {
            const BilinearTap v = BilinearTapOf(oy, g.scale_h, g.in_h, g.half_pixel_centers);
            for (int64_t ox = 0; ox < out_w; ++ox) {
              const BilinearTap h = BilinearTapOf(ox, g.scale_w, g.in_w, g.half_pixel_centers);
              for (int64_t c = 0; c < g.channels; ++c, ++i) {
                auto at = [&](int64_t iy, int64_t ix) { return x[((b * g.in_h + iy) * g.in_w + ix) * g.channels + c]; };
                const float got = BilinearOf(at(v.lo, h.lo), at(v.lo, h.hi), at(v.hi, h.lo), at(v.hi, h.hi), v.t, h.t);
                // The same float operations, but a compiler may fuse a lerp's
                // multiply and add in one and not in the other.
                const float w = want.data<float>()[i];
                EXPECT_NEAR(got, w, 1e-6f * std::max(1.0f, std::fabs(w))) << "at " << i;
              }
            }
          }
        }
      }
    }
  }
}

TEST(ResizeFunctorsTest, NearestPicksTheReferenceKernelsPixelUnderEveryMapping) {
  const Shape shape({2, 5, 8, 2});
  const std::vector<float> x = Image(shape);
  for (const Mapping& m : kMappings) {
    for (const auto& [out_h, out_w] : kSizes) {
      SCOPED_TRACE(std::to_string(out_h) + "x" + std::to_string(out_w) + " " + m.name);
      auto ref = Reference("ResizeNearestNeighbor", x, shape, out_h, out_w, m);
      ASSERT_TRUE(ref.ok()) << ref.status().ToString();
      const ResizeGeometry g = GeometryOf(shape, out_h, out_w, m);
      int64_t i = 0;
      for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t oy = 0; oy < out_h; ++oy) {
          const int64_t iy = NearestIndexOf(oy, g.scale_h, g.in_h, g.align_corners, g.half_pixel_centers);
          for (int64_t ox = 0; ox < out_w; ++ox) {
            const int64_t ix = NearestIndexOf(ox, g.scale_w, g.in_w, g.align_corners, g.half_pixel_centers);
            ASSERT_GE(iy, 0);
            ASSERT_LT(iy, g.in_h);
            ASSERT_GE(ix, 0);
            ASSERT_LT(ix, g.in_w);
            for (int64_t c = 0; c < g.channels; ++c, ++i) {
              EXPECT_EQ(x[((b * g.in_h + iy) * g.in_w + ix) * g.channels + c], (*ref)[0].data<float>()[i])
                  << "at " << i;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tfhost::backends::cuda
