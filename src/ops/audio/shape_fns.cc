// Shape functions of the audio ops.
#include "ops/audio/audio_ops.h"

namespace tfhost::ops {
namespace {

using ir::PartialShape;

Status DecodeWavShape(ShapeContext& ctx) {
  const int64_t channels = ctx.AttrOr<int64_t>("desired_channels", -1).value_or(-1);
  const int64_t samples = ctx.AttrOr<int64_t>("desired_samples", -1).value_or(-1);
  ctx.set_output(0, PartialShape::Known({samples > 0 ? samples : -1, channels > 0 ? channels : -1}));
  ctx.set_output(1, PartialShape::Scalar());
  return OkStatus();
}

Status AudioSpectrogramShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto window = ctx.Attr<int64_t>("window_size");
  auto stride = ctx.Attr<int64_t>("stride");
  int64_t channels = in.rank() == 2 ? in.dim(1) : -1, frames = -1, bins = -1;
  if (window && *window >= 2 && *window <= (int64_t{1} << 24)) {
    bins = audio::NextPowerOfTwo(*window) / 2 + 1;
    if (stride && *stride >= 1 && in.rank() == 2 && in.dim(0) >= 0) {
      frames = in.dim(0) < *window ? 0 : 1 + (in.dim(0) - *window) / *stride;
    }
  }
  ctx.set_output(0, PartialShape::Known({channels, frames, bins}));
  return OkStatus();
}

Status MfccShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  const int64_t coefficients = ctx.AttrOr<int64_t>("dct_coefficient_count", 13).value_or(-1);
  ctx.set_output(0, PartialShape::Known({in.rank() == 3 ? in.dim(0) : -1, in.rank() == 3 ? in.dim(1) : -1,
                                         coefficients > 0 ? coefficients : -1}));
  return OkStatus();
}

// RFFT / IRFFT: the last dim becomes n / 2 + 1 or n for a constant fft_length.
Status RealFftShape(ShapeContext& ctx, bool inverse) {
  const PartialShape& in = ctx.input(0);
  if (!in.rank_known() || in.rank() < 1) return OkStatus();
  std::vector<int64_t> dims = in.dims;
  auto n = ctx.InputInts(1);
  dims.back() = -1;
  if (n && n->size() == 1 && (*n)[0] >= 0) dims.back() = inverse ? (*n)[0] : ((*n)[0] == 0 ? 0 : (*n)[0] / 2 + 1);
  ctx.set_output(0, PartialShape::Known(dims));
  return OkStatus();
}

// RFFT2D/3D, IRFFT2D/3D: the innermost d dims become fft_length (the last
// n / 2 + 1 for the forward transform) when fft_length is constant.
Status RealFftNdShape(ShapeContext& ctx, int d, bool inverse) {
  const PartialShape& in = ctx.input(0);
  if (!in.rank_known() || in.rank() < d) return OkStatus();
  std::vector<int64_t> dims = in.dims;
  auto n = ctx.InputInts(1);
  const bool known = n && static_cast<int>(n->size()) == d;
  for (int i = 0; i < d; ++i) {
    const int64_t len = known && (*n)[i] >= 0 ? (*n)[i] : -1;
    const bool last = i == d - 1;
    dims[in.rank() - d + i] = !last || inverse || len < 0 ? len : (len == 0 ? 0 : len / 2 + 1);
  }
  ctx.set_output(0, PartialShape::Known(dims));
  return OkStatus();
}

}  // namespace

void RegisterAudioShapeFns(ShapeFnRegistry& registry) {
  registry.Register("DecodeWav", DecodeWavShape);
  registry.Register("EncodeWav", [](ShapeContext& ctx) {
    if (ctx.input(0).rank_known() && ctx.input(0).rank() != 2) {
      return ctx.Error("audio must be [samples, channels], got " + ctx.input(0).ToString());
    }
    ctx.set_output(0, PartialShape::Scalar());
    return OkStatus();
  });
  registry.Register("AudioSpectrogram", AudioSpectrogramShape);
  registry.Register("Mfcc", MfccShape);
  registry.Register("RFFT", [](ShapeContext& ctx) { return RealFftShape(ctx, false); });
  registry.Register("IRFFT", [](ShapeContext& ctx) { return RealFftShape(ctx, true); });
  registry.Register({"FFT", "IFFT", "ComplexAbs", "Real", "Imag", "Angle"}, UnchangedShape);
  registry.Register({"FFT2D", "IFFT2D", "FFT3D", "IFFT3D"}, UnchangedShape);
  registry.Register("RFFT2D", [](ShapeContext& ctx) { return RealFftNdShape(ctx, 2, false); });
  registry.Register("IRFFT2D", [](ShapeContext& ctx) { return RealFftNdShape(ctx, 2, true); });
  registry.Register("RFFT3D", [](ShapeContext& ctx) { return RealFftNdShape(ctx, 3, false); });
  registry.Register("IRFFT3D", [](ShapeContext& ctx) { return RealFftNdShape(ctx, 3, true); });
  registry.Register("Complex", BroadcastingShape);
}

}  // namespace tfhost::ops
