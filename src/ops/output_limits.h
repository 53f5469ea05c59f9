// Per-session bounds on what decoding kernels may produce from a few bytes
// of input: an image header can declare 100000 x 100000 pixels, so the image
// kernels (DecodeJpeg, DecodePng, DecodeBmp, DecodeGif, DecodeImage) refuse a
// decoded size past the bound before allocating anything for it
// (--max_decoded_image_mb; docs/cli.md, "Limits").
//
// The bounds travel in the session's ResourceManager under a reserved name,
// which every kernel of the session (function bodies included) already
// reaches; a kernel run without one (ops::RunSingleOp, tests) gets the
// defaults.
//
// Thread-safety: SetDecodeLimits before the session runs; reads from any
// thread.
#pragma once

#include <cstdint>
#include <string>

#include "ops/op_kernel.h"
#include "ops/resource_manager.h"

namespace tfhost::ops {

// 1 GiB: a 16384 x 16384 RGBA image fits, as does anything a camera makes.
inline constexpr int64_t kDefaultMaxDecodedImageBytes = int64_t{1} << 30;

struct DecodeLimits {
  // Bytes of one decoded image (all GIF frames together): height x width x
  // channels x bytes per sample. At least 1.
  int64_t max_image_bytes = kDefaultMaxDecodedImageBytes;
};

// Stores `limits` in `resources` (replacing earlier ones). InvalidArgument
// for a bound below 1.
Status SetDecodeLimits(ResourceManager& resources, const DecodeLimits& limits);

// The limits of the session running `ctx` (the defaults without one).
DecodeLimits GetDecodeLimits(const KernelContext& ctx);

// The refusal of a decoded image of `what` (e.g. "PNG image of
// 100000x100000x3") needing `bytes` past `limit`: the sizes, the limit and
// --max_decoded_image_mb. Callers prefix the node (KernelContext::Error).
std::string DecodedImageTooLargeText(const std::string& what, uint64_t bytes, int64_t limit);

}  // namespace tfhost::ops
