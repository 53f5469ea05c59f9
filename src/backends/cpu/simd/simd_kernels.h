// Registration entry points of the SIMD kernel families (one per file), called
// by RegisterSimdKernels in register.cc.
#pragma once

#include "backends/fast_kernel_registry.h"

namespace tfhost::backends::simd {

inline constexpr const char* kBackendName = "simd";

void RegisterBinaryKernels(FastKernelRegistry& registry);     // simd_binary.cc
void RegisterUnaryKernels(FastKernelRegistry& registry);      // simd_unary.cc
void RegisterReduceKernels(FastKernelRegistry& registry);     // simd_reduce.cc
void RegisterSoftmaxKernels(FastKernelRegistry& registry);    // simd_softmax.cc
void RegisterTransposeKernels(FastKernelRegistry& registry);  // simd_transpose.cc
void RegisterConcatKernels(FastKernelRegistry& registry);     // simd_concat.cc
void RegisterPadKernels(FastKernelRegistry& registry);        // simd_pad.cc

// Registered ahead of oneDNN's convolutions (fast_kernel_registry.cc), which
// take the calls they do not handle.
void RegisterDepthwiseConvKernels(FastKernelRegistry& registry);  // simd_depthwise_conv.cc
void RegisterPointwiseConvKernels(FastKernelRegistry& registry);  // simd_pointwise_conv.cc

// The 1x1 convolution kernel's rule for the shapes it runs itself (the rest
// go to its fallback, oneDNN's kernel), from bench/pointwise_conv's timings.
bool PointwiseConvTakes(int64_t in_c);
// That kernel for `node`, or null where it does not apply; without the shape
// rule it runs every shape itself (bench/pointwise_conv times it so).
ops::KernelFn MakePointwiseConvKernel(const ir::Node& node, const ops::KernelFn& fallback, bool apply_shape_rule);

}  // namespace tfhost::backends::simd
