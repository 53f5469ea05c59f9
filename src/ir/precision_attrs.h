// Node attrs of the precision passes (passes/precision.cc,
// passes/bf16_activation_chaining.cc), read by the kernels and the runtime
// that honour them. Internal attrs start with "_tfhost_"; TensorFlow never
// writes them.
#pragma once

namespace tfhost::ir {

// String "bf16": the node's convolution or matrix product may compute in bf16
// (float32 accumulation). A hint: kernels without native bf16 ignore it.
inline constexpr char kPrecisionAttr[] = "_tfhost_precision";
// Type DT_BFLOAT16 on a bf16 convolution whose output only bf16 convolutions
// read: output 0 is stored in bf16 (node.output_dtypes[0] says so too).
inline constexpr char kOutputDtypeAttr[] = "_tfhost_output_dtype";
// Bool on a convolution whose input 0 comes from such a node: it may arrive
// in bf16, and a kernel without a bf16 path reads it widened to float32.
inline constexpr char kBf16InputAttr[] = "_tfhost_bf16_input";
// Bool true (--precision fp32-strict): the node's float32 convolution or
// matrix product keeps full float32 operands. GPU kernels otherwise let the
// tensor cores round them to TF32, as TensorFlow does by default; float32
// on the CPU is always full precision.
inline constexpr char kStrictFp32Attr[] = "_tfhost_fp32_strict";

}  // namespace tfhost::ir
