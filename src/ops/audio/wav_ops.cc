// DecodeWav: WAV bytes -> audio [samples, channels] float in [-1, 1) and the
// sample rate. 16-bit PCM (value / 32768) is what TensorFlow reads; tfhost
// also reads 8-bit (unsigned, (v - 128) / 128), 24-bit (v / 2^23) and 32-bit
// (v / 2^31) PCM and 32/64-bit IEEE float (as is), plain or as
// WAVE_FORMAT_EXTENSIBLE, so recordings need no conversion first.
//
// EncodeWav: float audio [samples, channels] -> a 16-bit PCM WAV with
// TensorFlow's 44-byte header and sample mapping (round(x * 32768), clamped).
//
// desired_samples (> 0) truncates or zero-pads the samples; desired_channels
// (> 0) keeps the first channels of a wider file, or repeats the last channel
// of a narrower one (mono -> stereo duplicates). Chunks other than "fmt " and
// "data" are skipped. The file is untrusted: every size is checked against
// the bytes actually present.
#include <algorithm>
#include <cmath>
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
  bool is_float = false;
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
      uint16_t format = Le16(b, at);
      channels = Le16(b, at + 2);
      rate = Le32(b, at + 4);
      bits = Le16(b, at + 14);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the
      // SubFormat GUID, 24 bytes into the chunk.
      if (format == 0xFFFE) {
        if (size < 40) {
          return InvalidArgument("WAV fmt chunk of WAVE_FORMAT_EXTENSIBLE is " + std::to_string(size) +
                                 " bytes, expected >= 40");
        }
        format = Le16(b, at + 24);
      }
      if (format == 1) {
        if (bits != 8 && bits != 16 && bits != 24 && bits != 32) {
          return InvalidArgument("WAV PCM has " + std::to_string(bits) +
                                 " bits per sample; supported are 8, 16, 24 and 32");
        }
      } else if (format == 3) {
        if (bits != 32 && bits != 64) {
          return InvalidArgument("WAV IEEE float has " + std::to_string(bits) +
                                 " bits per sample; supported are 32 and 64");
        }
        is_float = true;
      } else {
        return InvalidArgument("WAV audio format is " + std::to_string(format) +
                               "; supported are PCM (1) and IEEE float (3)");
      }
      if (channels == 0) return InvalidArgument("WAV has zero channels");
      have_fmt = true;
    } else if (id == "data") {
      if (!have_fmt) return InvalidArgument("WAV data chunk comes before the fmt chunk");
      WavData wav;
      wav.channels = channels;
      wav.sample_rate = static_cast<int32_t>(std::min<uint32_t>(rate, 0x7fffffff));
      const size_t bytes = bits / 8;
      const uint64_t samples = size / bytes;
      wav.frames = static_cast<int64_t>(samples / channels);
      wav.samples.resize(static_cast<size_t>(wav.frames * channels));
      const unsigned char* p = reinterpret_cast<const unsigned char*>(b.data()) + at;
      for (size_t i = 0; i < wav.samples.size(); ++i, p += bytes) {
        float v = 0;
        if (is_float && bytes == 4) {
          uint32_t u = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                       (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
          std::memcpy(&v, &u, 4);
        } else if (is_float) {
          uint64_t u = 0;
          for (int k = 7; k >= 0; --k) u = (u << 8) | p[k];
          double d;
          std::memcpy(&d, &u, 8);
          v = static_cast<float>(d);
        } else if (bytes == 1) {
          v = (static_cast<float>(p[0]) - 128.0f) / 128.0f;  // 8-bit PCM is unsigned
        } else if (bytes == 2) {
          v = static_cast<float>(static_cast<int16_t>(p[0] | (p[1] << 8))) / 32768.0f;
        } else if (bytes == 3) {
          // Sign-extend the 24-bit value through the top of an int32.
          int32_t x = static_cast<int32_t>((static_cast<uint32_t>(p[0]) << 8) | (static_cast<uint32_t>(p[1]) << 16) |
                                           (static_cast<uint32_t>(p[2]) << 24)) >> 8;
          v = static_cast<float>(x / 8388608.0);
        } else {
          int32_t x = static_cast<int32_t>(static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                                           (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24));
          v = static_cast<float>(x / 2147483648.0);
        }
        wav.samples[i] = v;
      }
      return wav;
    }
    at += size;
    if ((size & 1) != 0 && at < b.size()) ++at;  // RIFF pads odd-sized chunks to an even length
  }
  return InvalidArgument(have_fmt ? "WAV has no data chunk" : "WAV has no fmt chunk");
}

std::string EncodeWav16(const float* samples, int64_t frames, int64_t channels, int32_t sample_rate) {
  auto put16 = [](std::string& s, uint32_t v) {
    s.push_back(static_cast<char>(v & 0xff));
    s.push_back(static_cast<char>((v >> 8) & 0xff));
  };
  auto put32 = [&](std::string& s, uint32_t v) {
    put16(s, v & 0xffff);
    put16(s, v >> 16);
  };
  const uint64_t data_bytes = static_cast<uint64_t>(frames) * static_cast<uint64_t>(channels) * 2;
  std::string out;
  out.reserve(44 + data_bytes);
  out += "RIFF";
  put32(out, static_cast<uint32_t>(36 + data_bytes));
  out += "WAVEfmt ";
  put32(out, 16);
  put16(out, 1);  // PCM
  put16(out, static_cast<uint32_t>(channels));
  put32(out, static_cast<uint32_t>(sample_rate));
  put32(out, static_cast<uint32_t>(sample_rate * channels * 2));
  put16(out, static_cast<uint32_t>(channels * 2));
  put16(out, 16);
  out += "data";
  put32(out, static_cast<uint32_t>(data_bytes));
  for (int64_t i = 0; i < frames * channels; ++i) {
    // TensorFlow's FloatToInt16Sample: round(x * 32768) clamped to int16; NaN
    // has no sample value and is written as 0.
    float x = samples[i];
    float scaled = std::isnan(x) ? 0.0f : std::round(x * 32768.0f);
    scaled = std::min(32767.0f, std::max(-32768.0f, scaled));
    put16(out, static_cast<uint16_t>(static_cast<int16_t>(scaled)));
  }
  return out;
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

Status EncodeWav(KernelContext& ctx) {
  const Tensor& audio = ctx.input(0);
  const Tensor& rate = ctx.input(1);
  if (audio.rank() != 2) return ctx.Error("audio must be [samples, channels], got " + audio.shape().ToString());
  if (rate.rank() != 0) return ctx.Error("sample_rate must be a scalar, got " + rate.shape().ToString());
  const int64_t frames = audio.dim(0), channels = audio.dim(1);
  if (channels < 1 || channels > 0xffff) {
    return ctx.Error("audio must have 1 to 65535 channels, got " + std::to_string(channels));
  }
  const int32_t sample_rate = rate.data<int32_t>()[0];
  if (sample_rate <= 0) return ctx.Error("sample_rate must be positive, got " + std::to_string(sample_rate));
  // A WAV's sizes are 32-bit: the data must fit below 4 GiB with the header.
  if (static_cast<uint64_t>(frames) * static_cast<uint64_t>(channels) * 2 > 0xffffffffull - 36 ||
      static_cast<uint64_t>(sample_rate) * static_cast<uint64_t>(channels) * 2 > 0xffffffffull) {
    return ctx.Error("audio of shape " + audio.shape().ToString() + " at " + std::to_string(sample_rate) +
                     " Hz does not fit a 16-bit WAV's 32-bit sizes");
  }
  Tensor out(DType::kString, Shape());
  out.strings()[0] = EncodeWav16(audio.data<float>(), frames, channels, sample_rate);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterWavOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DecodeWav")
                        .Input("contents: string")
                        .Output("audio: float")
                        .Output("sample_rate: int32")
                        .Attr("desired_channels: int = -1")
                        .Attr("desired_samples: int = -1"),
                    DecodeWav);
  registry.Register(ir::OpDefBuilder("EncodeWav")
                        .Input("audio: float")
                        .Input("sample_rate: int32")
                        .Output("contents: string"),
                    EncodeWav);
}

}  // namespace tfhost::ops::audio
