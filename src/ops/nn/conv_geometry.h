// Window geometry shared by the 2-D convolutions and pools: parsing of the
// strides / padding / explicit_paddings / data_format / dilations attrs, and
// the output-size and padding arithmetic of docs/formats.md §6.0. Everything is
// expressed for NHWC; NCHW callers transpose around the NHWC kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

enum class Padding { kSame, kValid, kExplicit };
enum class DataFormat { kNhwc, kNchw };

// "SAME" / "VALID" / "EXPLICIT" (only when `allow_explicit`).
StatusOr<Padding> ParsePadding(const std::string& s, bool allow_explicit);
// "NHWC" / "NCHW"; anything else (NCHW_VECT_C, ...) is Unimplemented.
StatusOr<DataFormat> ParseDataFormat(const std::string& s);

// One spatial dimension of a window: output size and padding.
struct WindowDim {
  int64_t out = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// docs/formats.md §6.0 for input size `in`, kernel `k`, stride, dilation; the
// explicit pads are used only for Padding::kExplicit. Errors (without node
// context) on non-positive stride/dilation/kernel or a negative output size.
StatusOr<WindowDim> ComputeWindowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                     Padding padding, int64_t explicit_before,
                                     int64_t explicit_after);

// Window attrs of a 2-D op, reordered to NHWC meaning.
struct Window2D {
  DataFormat format = DataFormat::kNhwc;
  Padding padding = Padding::kValid;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  // Only for Padding::kExplicit.
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

// Builds a Window2D from raw attr values given in data_format order. Strides
// and dilations must have 4 entries with 1 in the batch and channel places;
// explicit_paddings must have 8 non-negative entries (zeros for batch and
// channel) when padding is EXPLICIT. `dilations` may be empty (pools).
StatusOr<Window2D> MakeWindow2D(const std::vector<int64_t>& strides, const std::string& padding,
                                const std::vector<int64_t>& explicit_paddings,
                                const std::string& data_format,
                                const std::vector<int64_t>& dilations, bool allow_explicit);

// Reads strides, padding, explicit_paddings, data_format and (when
// `has_dilations`) dilations from the node. Errors carry the node context.
StatusOr<Window2D> ParseWindowAttrs(const ir::Node& node, bool has_dilations, bool allow_explicit);
StatusOr<Window2D> ParseWindowAttrs(const KernelContext& ctx, bool has_dilations,
                                    bool allow_explicit);

// A rank-4 tensor in `format` as NHWC, and an NHWC result back in `format`
// (the same tensor, shared, when `format` is NHWC).
Tensor ToNhwc(const Tensor& t, DataFormat format);
Tensor FromNhwc(const Tensor& t, DataFormat format);

// Full geometry of a 2-D windowed op over an NHWC input.
struct ConvGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// Geometry for an NHWC input shape (rank 4) and a k_h x k_w window.
StatusOr<ConvGeometry> ComputeConvGeometry(const Window2D& w, const Shape& nhwc_input,
                                           int64_t k_h, int64_t k_w);

// Calls tap(in_px, ky, kx) for every tap (ky, kx) of the window of output
// pixel (oy, ox) in image `b` that falls inside the NHWC input `x`, ky-major;
// in_px points at that input pixel's channels. Taps in padding are skipped.
template <typename T, typename Tap>
inline void ForEachWindowTap(const ConvGeometry& g, const T* x, int64_t b, int64_t oy, int64_t ox,
                             Tap&& tap) {
  for (int64_t ky = 0; ky < g.k_h; ++ky) {
    const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
    if (iy < 0 || iy >= g.in_h) continue;
    for (int64_t kx = 0; kx < g.k_w; ++kx) {
      const int64_t ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
      if (ix < 0 || ix >= g.in_w) continue;
      tap(x + ((b * g.in_h + iy) * g.in_w + ix) * g.in_c, ky, kx);
    }
  }
}

// Kernel / stride / dilation / padding values above this are rejected as
// corrupt: they keep every product in int64 and bound padded sizes.
inline constexpr int64_t kMaxWindowValue = int64_t{1} << 24;

}  // namespace tfhost::ops::nn
