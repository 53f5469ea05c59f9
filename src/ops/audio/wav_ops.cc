// DecodeWav: 16-bit PCM WAV bytes -> audio [samples, channels] float in
// [-1, 1) (value / 32768) and the sample rate.
//
// desired_samples (> 0) truncates or zero-pads the samples; desired_channels
// (> 0) keeps the first channels of a wider file, or repeats the last channel
// of a narrower one (mono -> stereo duplicates). Chunks other than "fmt " and
// "data" are skipped. The file is untrusted: every size is checked against
// the bytes actually present.
#include <cstring>

#include "ops/array/array_util.h"
#include "ops/audio/audio_ops.h"

namespace tfhost::ops::audio {

namespace {

uint32_t Le32(const std::string& b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24);
}
uint16_t Le16(const std::string& b, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(b[at]) |
                               (static_cast<unsigned char>(b[at + 1]) << 8));
}

}  // namespace

StatusOr<WavData> ParseWav(const std::string& b) {
  if (b.size() < 12 || b.compare(0, 4, "RIFF") != 0 || b.compare(8, 4, "WAVE") != 0) {
    return InvalidArgument("WAV data does not start with a RIFF/WAVE header");
  }
  size_t at = 12;
  bool have_fmt = false;
  uint16_t channels = 0, bits = 0;
  uint32_t rate = 0;
  while (at + 8 <= b.size()) {
    const std::string id = b.substr(at, 4);
    const uint64_t size = Le32(b, at + 4);
    at += 8;
    if (size > b.size() - at) {
      return InvalidArgument("WAV chunk '" + id + "' at byte " + std::to_string(at - 8) + " claims " +
                             std::to_string(size) + " bytes but only " + std::to_string(b.size() - at) + " remain");
    }
    if (id == "fmt ") {
      if (size < 16) return InvalidArgument("WAV fmt chunk is " + std::to_string(size) + " bytes, expected >= 16");
      const uint16_t format = Le16(b, at);
      channels = Le16(b, at + 2);
      rate = Le32(b, at + 4);
      bits = Le16(b, at + 14);
      if (format != 1) {
        return InvalidArgument("WAV audio format is " + std::to_string(format) + ", only PCM (1) is supported");
      }
      if (bits != 16) {
        return InvalidArgument("WAV has " + std::to_string(bits) + " bits per sample, only 16 is supported");
      }
      if (channels == 0) return InvalidArgument("WAV has zero channels");
      have_fmt = true;
    } else if (id == "data") {
      if (!have_fmt) return InvalidArgument("WAV data chunk comes before the fmt chunk");
      WavData wav;
      wav.channels = channels;
      wav.sample_rate = static_cast<int32_t>(std::min<uint32_t>(rate, 0x7fffffff));
      const uint64_t samples = size / 2;
      wav.frames = static_cast<int64_t>(samples / channels);
      wav.samples.resize(static_cast<size_t>(wav.frames * channels));
      for (size_t i = 0; i < wav.samples.size(); ++i) {
        wav.samples[i] = static_cast<float>(static_cast<int16_t>(Le16(b, at + 2 * i))) / 32768.0f;
      }
      return wav;
    }
    at += size;
  }
  return InvalidArgument(have_fmt ? "WAV has no data chunk" : "WAV has no fmt chunk");
}

namespace {

Status DecodeWav(KernelContext& ctx) {
  const Tensor& contents = ctx.input(0);
  if (contents.rank() != 0) return ctx.Error("contents must be a scalar, got " + contents.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(int64_t desired_channels, ctx.AttrOr<int64_t>("desired_channels", -1));
  TFHOST_ASSIGN_OR_RETURN(int64_t desired_samples, ctx.AttrOr<int64_t>("desired_samples", -1));
  auto wav = ParseWav(contents.strings()[0]);
  if (!wav.ok()) return ctx.Error(wav.status().message());
  const int64_t out_channels = desired_channels > 0 ? desired_channels : wav->channels;
  const int64_t out_samples = desired_samples > 0 ? desired_samples : wav->frames;
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, {out_samples, out_channels}, "audio"));
  Tensor audio(DType::kFloat, shape);
  float* o = audio.data<float>();
  for (int64_t s = 0; s < std::min(out_samples, wav->frames); ++s) {
    for (int64_t c = 0; c < out_channels; ++c) {
      o[s * out_channels + c] = wav->samples[s * wav->channels + std::min(c, wav->channels - 1)];
    }
  }
  ctx.set_output(0, std::move(audio));
  ctx.set_output(1, Tensor::Scalar<int32_t>(wav->sample_rate));
  return OkStatus();
}

}  // namespace

void RegisterWavOps(OpRegistry& registry) {
  array::RegisterChecked(registry,
                         ir::OpDefBuilder("DecodeWav")
                             .Input("contents: string")
                             .Output("audio: float")
                             .Output("sample_rate: int32")
                             .Attr("desired_channels: int = -1")
                             .Attr("desired_samples: int = -1"),
                         DecodeWav);
}

}  // namespace tfhost::ops::audio
