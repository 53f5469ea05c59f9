// The packed-panel matrix product behind the SIMD MatMul of one row
// (simd_gemv.cc) and the fused LSTM loop's recurrent product
// (simd_lstm_loop.cc): weights [K, N] packed once into panels of kPanel
// columns, each panel its K x kPanel floats in one run, zero-padded past
// column N, so the product reads every weight in address order.
//
// Thread-safety: PackPanels returns an immutable pack; the Run functions
// write only their panels' columns of y, so callers split panels over
// threads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/tensor.h"

namespace tfhost::backends::simd::gemv {

inline constexpr int64_t kPanel = 32;  // columns per panel: two AVX-512 vectors

struct PackedWeights {
  std::vector<float> panels;  // [panel][k][kPanel]
};

inline int64_t NumPanels(int64_t n_dim) { return (n_dim + kPanel - 1) / kPanel; }

// b is [K, N], or [N, K] when `transposed`.
std::shared_ptr<const PackedWeights> PackPanels(const Tensor& b, int64_t k_dim, int64_t n_dim, bool transposed);

// Whether this build and CPU run the panel kernels (AVX-512 on x86).
bool PanelKernelsAvailable();

// Panels [p0, p1) of y = a x b for `rows` rows of a ([rows, K], row-major)
// into y ([rows, N], row-major). Only when PanelKernelsAvailable().
void RunPanels(const float* a, int64_t rows, const PackedWeights& b, float* y, int64_t k_dim, int64_t n_dim,
               int64_t p0, int64_t p1);

}  // namespace tfhost::backends::simd::gemv
