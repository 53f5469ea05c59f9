// Per-session bounds on what kernels may produce from a few bytes of input.
//
//   * Decoded images: an image header can declare 100000 x 100000 pixels, so
//     the image kernels (DecodeJpeg, DecodePng, DecodeBmp, DecodeGif,
//     DecodeImage) refuse a decoded size past the bound before allocating
//     anything for it (--max_decoded_image_mb).
//   * String values: a string is many small allocations, none of which the
//     system refuses, so a graph that grows one (a StringJoin of a value with
//     itself in a while loop, a RegexReplace whose rewrite is longer than
//     what it matches) would take all memory. Every kernel's string outputs
//     are checked as it returns (InvokeKernel, ops/kernel_contract.h), so a
//     value that doubles each iteration stops within twice the bound
//     (--max_op_string_mb).
//
// docs/cli.md, "Limits". The bounds travel in the session's ResourceManager
// under a reserved name, which every kernel of the session (function bodies
// included) already reaches; a kernel run without one (ops::RunSingleOp,
// tests) gets the defaults.
//
// Thread-safety: SetOutputLimits before the session runs; reads from any
// thread.
#pragma once

#include <cstdint>
#include <string>

#include "ops/op_kernel.h"
#include "ops/resource_manager.h"

namespace tfhost::ops {

// 1 GiB: a 16384 x 16384 RGBA image fits, as does anything a camera makes.
inline constexpr int64_t kDefaultMaxDecodedImageBytes = int64_t{1} << 30;
// 1 GiB: four times the longest string a request may send
// (--max_request_string_bytes), so its base64 or any join of a few fits.
inline constexpr int64_t kDefaultMaxOpStringBytes = int64_t{1} << 30;

struct OutputLimits {
  // Bytes of one decoded image (all GIF frames together): height x width x
  // channels x bytes per sample. At least 1.
  int64_t max_image_bytes = kDefaultMaxDecodedImageBytes;
  // Bytes of one string value a kernel outputs. At least 1.
  int64_t max_string_bytes = kDefaultMaxOpStringBytes;
};

// Stores `limits` in `resources` (replacing earlier ones). InvalidArgument
// for a bound below 1, naming its flag.
Status SetOutputLimits(ResourceManager& resources, const OutputLimits& limits);

// The limits of the session running `ctx` (the defaults without one).
OutputLimits GetOutputLimits(const KernelContext& ctx);

// The refusal of a decoded image of `what` (e.g. "PNG image of
// 100000x100000x3") needing `bytes` past `limit`: the sizes, the limit and
// --max_decoded_image_mb. Callers prefix the node (KernelContext::Error).
std::string DecodedImageTooLargeText(const std::string& what, uint64_t bytes, int64_t limit);

// InvalidArgument naming the node, the output, the value's index and length,
// and --max_op_string_mb, when a string output of `ctx` holds a value longer
// than the session's bound. Non-string outputs cost nothing.
Status CheckStringOutputs(KernelContext& ctx);

}  // namespace tfhost::ops
