// Registration entry points of the SIMD kernel families (one per file), called
// by RegisterSimdKernels in register.cc.
#pragma once

#include "backends/kernel_table.h"

namespace tfhost::backends::simd {

inline constexpr const char* kBackendName = "simd";

void RegisterBinaryKernels(KernelTable& table);     // simd_binary.cc
void RegisterUnaryKernels(KernelTable& table);      // simd_unary.cc
void RegisterReduceKernels(KernelTable& table);     // simd_reduce.cc
void RegisterSoftmaxKernels(KernelTable& table);    // simd_softmax.cc
void RegisterLayerNormKernels(KernelTable& table);  // simd_layer_norm.cc
void RegisterTransposeKernels(KernelTable& table);  // simd_transpose.cc
void RegisterConcatKernels(KernelTable& table);     // simd_concat.cc
void RegisterPadKernels(KernelTable& table);        // simd_pad.cc
void RegisterSelectKernels(KernelTable& table);     // simd_select.cc
void RegisterRequantizeKernels(KernelTable& table); // simd_requantize.cc
void RegisterLstmCellKernels(KernelTable& table);   // simd_lstm_cell.cc
void RegisterLstmLoopKernels(KernelTable& table);   // simd_lstm_loop.cc
// Above oneDNN's MatMul too: products of at most kGemvMaxRows rows by
// weights of at least kGemvMinWeightElements (simd_gemv.cc says why one
// row); it hands the rest to oneDNN.
void RegisterGemvKernels(KernelTable& table);       // simd_gemv.cc
inline constexpr int64_t kGemvMaxRows = 1;
inline constexpr int64_t kGemvMinWeightElements = 16 * 1024;  // 64 KiB of float32

// The simd backend's priority is above oneDNN's (register.cc), whose
// convolutions take the calls these do not handle.
void RegisterDepthwiseConvKernels(KernelTable& table);  // simd_depthwise_conv.cc
// After it: the strided, 5x5 and wide depthwise layers it hands on.
void RegisterDepthwisePixelKernels(KernelTable& table);  // simd_depthwise_pixels.cc
// That kernel for `node`, or null where it does not apply (for its tests),
// and its rule for the calls it runs itself (k x k filter, stride, input
// bytes); it hands the others to its fallback.
ops::KernelFn MakeDepthwisePixelKernel(const ir::Node& node, const ops::KernelFn& fallback);
bool DepthwisePixelsTake(int64_t k, int64_t stride, size_t input_bytes);
void RegisterPointwiseConvKernels(KernelTable& table);  // simd_pointwise_conv.cc

// _TfhostExpandDepthwise (simd_expand_depthwise.cc): a 1x1 expansion and its
// 3x3 depthwise convolution with the expanded rows kept in cache; the kernel
// for `node` (for its tests).
void RegisterExpandDepthwiseKernels(KernelTable& table);
ops::KernelFn MakeExpandDepthwiseKernel(const ir::Node& node, const ops::KernelFn& fallback);

// A network's first 3x3 convolution, on 1-4 input channels (simd_conv_stem.cc):
// its rule for the channels it takes, and the kernel for `node` (for its tests).
void RegisterStemConvKernels(KernelTable& table);
bool StemConvTakes(int64_t in_c, int64_t out_c);
ops::KernelFn MakeStemConvKernel(const ir::Node& node, const ops::KernelFn& fallback);

// The 1x1 convolution kernel's rule for the shapes it runs itself (the rest
// go to its fallback, oneDNN's kernel), from bench/pointwise_conv's timings.
bool PointwiseConvTakes(int64_t in_c);
// That kernel for `node`, or null where it does not apply; without the shape
// rule it runs every shape itself (bench/pointwise_conv times it so).
ops::KernelFn MakePointwiseConvKernel(const ir::Node& node, const ops::KernelFn& fallback, bool apply_shape_rule);

}  // namespace tfhost::backends::simd
