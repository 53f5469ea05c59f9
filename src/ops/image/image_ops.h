// Detection and vision post-processing ops: non-max suppression (V1..V5,
// soft-NMS, and the batched per-class CombinedNonMaxSuppression that
// TF Object Detection API exports end with) and CropAndResize (ROI crops in
// two-stage detectors), and image decoding for serving graphs that take
// encoded images.
//
// Boxes are [y1, x1, y2, x2] in any corner order; TensorFlow takes the min
// and max of each pair, and so do these kernels.
#pragma once

#include <string_view>
#include <vector>

#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace tfhost::ops::image {

// NonMaxSuppression (V1), V2/V3/V4/V5, CombinedNonMaxSuppression and
// _TfhostBatchedNonMaxSuppression, ONNX's form (nms_ops.cc).
void RegisterNmsOps(OpRegistry& registry);
// CropAndResize (crop_and_resize.cc).
void RegisterCropAndResizeOps(OpRegistry& registry);
// DecodeJpeg, ExtractJpegShape, DecodePng, DecodeBmp, DecodeImage
// (decode_image.cc).
void RegisterDecodeImageOps(OpRegistry& registry);

// ResizeBicubic, ResizeArea (resize_ops.cc).
void RegisterResizeOps(OpRegistry& registry);
// ExtractImagePatches (extract_image_patches.cc).
void RegisterExtractImagePatchesOps(OpRegistry& registry);
// NonMaxSuppressionWithOverlaps (nms_with_overlaps.cc).
void RegisterNmsWithOverlapsOps(OpRegistry& registry);
// DecodeGif (decode_gif.cc).
void RegisterDecodeGifOps(OpRegistry& registry);
// RGBToHSV, HSVToRGB, AdjustContrastv2 (color_ops.cc).
void RegisterColorOps(OpRegistry& registry);
// ScaleAndTranslate (scale_and_translate.cc).
void RegisterScaleAndTranslateOp(OpRegistry& registry);
// All frames of GIF file `contents` composited as TensorFlow's DecodeGif
// does: uint8 [num_frames, height, width, 3], the canvas being the largest
// frame. InvalidArgument (without node context) for corrupt or oversized
// files, and for a decoded size past `max_bytes` (the session's
// --max_decoded_image_mb, ops/output_limits.h). For DecodeImage's GIF path
// (expand_animations=false keeps frame 0).
StatusOr<Tensor> DecodeGifFrames(std::string_view contents, int64_t max_bytes);

// The elements of a real-number image as float32 values, each converted as
// static_cast<float> (half/bfloat16 widened exactly), the way TensorFlow's
// resize kernels read their input.
std::vector<float> ImageAsFloats(const Tensor& t);

// Intersection over union of two boxes [y1, x1, y2, x2]; 0 when either box
// has no area.
float BoxIou(const float* a, const float* b);

}  // namespace tfhost::ops::image

namespace tfhost::ops {
void RegisterImageOps(OpRegistry& registry);
void RegisterImageShapeFns(ShapeFnRegistry& registry);
}  // namespace tfhost::ops
