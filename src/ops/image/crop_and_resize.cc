// CropAndResize: for each box [y1, x1, y2, x2] (normalized; y2 < y1 flips the
// crop) of image box_ind[b], samples a crop_height x crop_width grid with
// corners on the box corners:
//   in_y = y1 * (H - 1) + y * (y2 - y1) * (H - 1) / (crop_height - 1)
//   (crop_height == 1 samples the box centre, 0.5 * (y1 + y2) * (H - 1)),
// and likewise in x. Points outside [0, H - 1] x [0, W - 1] take
// extrapolation_value. `bilinear` interpolates the four neighbours (top row
// first, then down); `nearest` rounds half away from zero. Output is float.
#include <cmath>

#include "ops/array/array_util.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status CropAndResize(KernelContext& ctx) {
  const Tensor& image = ctx.input(0);
  const Tensor& boxes_t = ctx.input(1);
  const Tensor& box_ind_t = ctx.input(2);
  const Tensor& crop_t = ctx.input(3);
  TFHOST_ASSIGN_OR_RETURN(std::string method, ctx.AttrOr<std::string>("method", "bilinear"));
  TFHOST_ASSIGN_OR_RETURN(float extrapolation, ctx.AttrOr<float>("extrapolation_value", 0.0f));
  if (method != "bilinear" && method != "nearest") {
    return ctx.Error("method must be 'bilinear' or 'nearest', got '" + method + "'");
  }
  if (image.rank() != 4) return ctx.Error("input image must be 4-D, got " + image.shape().ToString());
  const int64_t batch = image.dim(0), height = image.dim(1), width = image.dim(2), depth = image.dim(3);
  if (height <= 0 || width <= 0) return ctx.Error("image dimensions must be positive");
  if (boxes_t.rank() != 2 || boxes_t.dim(1) != 4) {
    return ctx.Error("boxes must be 2-D [num_boxes, 4], got " + boxes_t.shape().ToString());
  }
  const int64_t num_boxes = boxes_t.dim(0);
  if (box_ind_t.rank() != 1 || box_ind_t.dim(0) != num_boxes) {
    return ctx.Error("box_index has incompatible shape " + box_ind_t.shape().ToString());
  }
  if (crop_t.NumElements() != 2 || crop_t.rank() != 1) return ctx.Error("crop_size must be a vector of 2 elements");
  const int64_t crop_h = crop_t.data<int32_t>()[0], crop_w = crop_t.data<int32_t>()[1];
  if (crop_h <= 0 || crop_w <= 0) return ctx.Error("crop dimensions must be positive");
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, {num_boxes, crop_h, crop_w, depth}, "crops"));
  if (IsStringLike(image.dtype()) || image.dtype() == DType::kBool) return ctx.Error("image must be numeric");
  const std::vector<double> img = image.ToDoubleVector();
  const float* boxes = boxes_t.data<float>();
  const int32_t* box_ind = box_ind_t.data<int32_t>();
  Tensor out(DType::kFloat, out_shape);
  float* o = out.data<float>();
  auto at = [&](int64_t b, int64_t y, int64_t x, int64_t d) {
    return static_cast<float>(img[((b * height + y) * width + x) * depth + d]);
  };
  for (int64_t n = 0; n < num_boxes; ++n) {
    const int64_t b = box_ind[n];
    if (b < 0 || b >= batch) {
      return ctx.Error("box_index[" + Str(n) + "] = " + Str(b) + " is outside [0, " + Str(batch) + ")");
    }
    const float y1 = boxes[n * 4], x1 = boxes[n * 4 + 1], y2 = boxes[n * 4 + 2], x2 = boxes[n * 4 + 3];
    const float h_scale = crop_h > 1 ? (y2 - y1) * (height - 1) / (crop_h - 1) : 0;
    const float w_scale = crop_w > 1 ? (x2 - x1) * (width - 1) / (crop_w - 1) : 0;
    for (int64_t y = 0; y < crop_h; ++y) {
      const float in_y = crop_h > 1 ? y1 * (height - 1) + y * h_scale : 0.5f * (y1 + y2) * (height - 1);
      float* row = o + ((n * crop_h + y) * crop_w) * depth;
      if (!(in_y >= 0 && in_y <= height - 1)) {
        std::fill(row, row + crop_w * depth, extrapolation);
        continue;
      }
      for (int64_t x = 0; x < crop_w; ++x) {
        const float in_x = crop_w > 1 ? x1 * (width - 1) + x * w_scale : 0.5f * (x1 + x2) * (width - 1);
        float* px = row + x * depth;
        if (!(in_x >= 0 && in_x <= width - 1)) {
          std::fill(px, px + depth, extrapolation);
          continue;
        }
        if (method == "nearest") {
          const int64_t ny = static_cast<int64_t>(std::round(in_y)), nx = static_cast<int64_t>(std::round(in_x));
          for (int64_t d = 0; d < depth; ++d) px[d] = at(b, ny, nx, d);
          continue;
        }
        const int64_t top = static_cast<int64_t>(std::floor(in_y)), bottom = static_cast<int64_t>(std::ceil(in_y));
        const int64_t left = static_cast<int64_t>(std::floor(in_x)), right = static_cast<int64_t>(std::ceil(in_x));
        const float y_lerp = in_y - top, x_lerp = in_x - left;
        for (int64_t d = 0; d < depth; ++d) {
          const float tl = at(b, top, left, d), tr = at(b, top, right, d);
          const float bl = at(b, bottom, left, d), br = at(b, bottom, right, d);
          const float t = tl + (tr - tl) * x_lerp;
          const float bo = bl + (br - bl) * x_lerp;
          px[d] = t + (bo - t) * y_lerp;
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterCropAndResizeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("CropAndResize")
                        .Input("image: T")
                        .Input("boxes: float")
                        .Input("box_ind: int32")
                        .Input("crop_size: int32")
                        .Output("crops: float")
                        .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
                        .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
                        .Attr("extrapolation_value: float = 0"),
                    CropAndResize);
}

}  // namespace tfhost::ops::image
