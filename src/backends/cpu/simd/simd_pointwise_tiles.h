// The register tiles of the SIMD 1x1 convolution
// (simd_pointwise_conv.cc): its packed filter, the arguments of one call,
// and RunUnits, which runs a range of its (pixel block, panel) units with
// AVX-512 tiles: float32 FMA tiles for float32 nodes, VDPBF16PS dot-product
// tiles for bf16 ones, on float32 or bf16 activations and outputs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/tensor.h"

#include "ops/nn/fused_activation.h"

namespace tfhost::backends::simd::pointwise {

inline constexpr int kLanes = 16;
inline constexpr int kMaxNv = 4;         // vectors of output channels per panel
inline constexpr int kMaxSums = 24;      // MR * NV: the sums a tile keeps in registers
inline constexpr int kMaxMr = 12;        // pixels per tile
inline constexpr int64_t kBlockInputBytes = 128 << 10;
inline constexpr int64_t kL2Bytes = 1 << 20;

constexpr int MaxMr(int nv) { return std::min(kMaxMr, kMaxSums / nv); }

// Panel p of `panels` covers output vectors [PanelBegin(p), PanelBegin(p + 1)):
// as even as 4-vector panels allow (9 vectors are panels of 3, 3 and 3, not
// 4, 4 and 1: a 1-vector tile spends a load on every multiply-add).
inline int64_t PanelBegin(int64_t vectors, int64_t panels, int64_t p) { return vectors * p / panels; }

// The filter as the tiles read it: panel by panel, each k-major with
// nv * 16 floats per input channel (panel p starts at in_c * 16 *
// PanelBegin(p)), zero past out_c; the bias beside it, padded the same way.
// bf16 nodes hold weight_pairs instead: the same order, a 32-bit lane per
// output channel and pair of input channels (k even in the low half, k + 1
// in the high half, zero past in_c), as VDPBF16PS multiplies them.
struct PackedFilter {
  std::vector<float> weights;
  std::vector<uint32_t> weight_pairs;
  std::vector<float> bias;  // vectors * 16 floats (zeros without bias)
};

// filter [1, 1, in_c, out_c] (and bias [out_c] or null) packed as above;
// `pairs`: bf16 weight_pairs (rounded to nearest even) instead of weights.
std::shared_ptr<const PackedFilter> PackFilter(const Tensor& filter, const Tensor* bias, int64_t in_c, int64_t out_c,
                                               bool pairs);

struct PointwiseArgs {
  const float* x = nullptr;          // pixels x in_c, or null when x_bf16 holds them
  const uint16_t* x_bf16 = nullptr;  // pixels x in_c in bf16, or null
  const float* residual = nullptr;   // pixels x out_c, or null
  float* y = nullptr;                // pixels x out_c (may be `residual` itself), or null when y_bf16 is
  uint16_t* y_bf16 = nullptr;        // pixels x out_c in bf16, or null
  const PackedFilter* filter = nullptr;
  int64_t pixels = 0, in_c = 0, out_c = 0;
  int64_t panels = 0;   // ceil(vectors / kMaxNv), see PanelBegin
  int64_t vectors = 0;  // ceil(out_c / 16)
  int64_t block_pixels = 0;
  ops::nn::Activation act = ops::nn::Activation::kNone;
  bool prefetch = false;  // inputs larger than L2: software prefetch
};

// Units [begin, end) of (pixel block, panel), panel-minor: the panel's
// tiles over the block's pixels. AVX-512 only (x86 builds); the float32
// FMA tiles for float32 filters, the VDPBF16PS ones (avx512_bf16) for
// weight_pairs.
void RunUnits(const PointwiseArgs& a, int64_t begin, int64_t end);

}  // namespace tfhost::backends::simd::pointwise
