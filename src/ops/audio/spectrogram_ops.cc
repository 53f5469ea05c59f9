// AudioSpectrogram and Mfcc, step for step as TensorFlow computes them:
//
// AudioSpectrogram(input [samples, channels]):
//   frames = samples < window ? 0 : 1 + (samples - window) / stride;
//   each frame: x[j] * hann[j], hann[j] = 0.5 - 0.5 cos(2 pi j / window)
//   (periodic), zero-padded to fft = NextPowerOfTwo(window); output bins
//   0..fft/2 hold |X|^2 (magnitude_squared) or |X|; all in double.
//   Output [channels, frames, fft/2 + 1].
// Mfcc(spectrogram [channels, frames, bins] of |X|^2, sample_rate):
//   mel filterbank (MelFilterbank below) on sqrt of each bin, then
//   log(max(energy, 1e-12)), then DCT-II:
//   c[i] = sqrt(2 / N) * sum_j e[j] cos(pi i (j + 0.5) / N).
#include <cmath>
#include <numbers>

#include "ops/array/array_util.h"
#include "ops/audio/audio_ops.h"

namespace tfhost::ops::audio {

int64_t NextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

void Fft(std::vector<std::complex<double>>& a) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const double angle = -2.0 * std::numbers::pi / static_cast<double>(len);
    for (size_t start = 0; start < n; start += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        // Twiddle computed directly per k (not by repeated multiplication) so
        // rounding does not accumulate along the butterfly.
        const std::complex<double> w(std::cos(angle * k), std::sin(angle * k));
        const std::complex<double> u = a[start + k];
        const std::complex<double> v = a[start + k + len / 2] * w;
        a[start + k] = u + v;
        a[start + k + len / 2] = u - v;
      }
    }
  }
}

namespace {
double FreqToMel(double hz) { return 1127.0 * std::log1p(hz / 700.0); }
}  // namespace

Status MelFilterbank::CheckArgs(int64_t input_length, double sample_rate, int64_t channels, double lower_hz,
                                 double upper_hz) {
  if (channels < 1) return InvalidArgument("Number of filterbank channels must be positive.");
  if (sample_rate <= 0) return InvalidArgument("Sample rate must be positive.");
  if (input_length < 2) return InvalidArgument("Input length must greater than 1.");
  if (!std::isfinite(lower_hz) || !std::isfinite(upper_hz)) {
    return InvalidArgument("Frequency limits must be finite, got " + std::to_string(lower_hz) + " and " +
                           std::to_string(upper_hz) + ".");
  }
  if (lower_hz < 0) return InvalidArgument("Lower frequency limit must be nonnegative.");
  if (upper_hz <= lower_hz) {
    return InvalidArgument("Upper frequency limit must be greater than lower frequency limit.");
  }
  return OkStatus();
}

Status MelFilterbank::Initialize(int64_t input_length, double sample_rate, int64_t channels, double lower_hz,
                                 double upper_hz) {
  TFHOST_RETURN_IF_ERROR(CheckArgs(input_length, sample_rate, channels, lower_hz, upper_hz));
  channels_ = channels;
  // channels + 1 centre frequencies: the extra one closes the last triangle.
  std::vector<double> centre(channels + 1);
  const double mel_low = FreqToMel(lower_hz), mel_high = FreqToMel(upper_hz);
  const double spacing = (mel_high - mel_low) / static_cast<double>(channels + 1);
  for (int64_t i = 0; i <= channels; ++i) centre[i] = mel_low + spacing * static_cast<double>(i + 1);
  // DC is always excluded (as HTK does).
  const double hz_per_bin = 0.5 * sample_rate / static_cast<double>(input_length - 1);
  // In double, clamped to the spectrum before the cast: a limit far above
  // Nyquist (or a tiny bin width) would overflow int64.
  const double last = static_cast<double>(input_length);
  start_ = static_cast<int64_t>(std::min(1.5 + lower_hz / hz_per_bin, last));
  end_ = static_cast<int64_t>(std::min(upper_hz / hz_per_bin, last));
  // TensorFlow reads past the spectrum when upper_hz is above Nyquist; bins
  // beyond the last do not exist, so stop there.
  end_ = std::min(end_, input_length - 1);
  band_.assign(input_length, -2);
  weight_.assign(input_length, 0.0);
  int64_t channel = 0;
  for (int64_t i = 0; i < input_length; ++i) {
    if (i < start_ || i > end_) continue;
    const double mel = FreqToMel(static_cast<double>(i) * hz_per_bin);
    while (channel < channels && centre[channel] < mel) ++channel;
    band_[i] = channel - 1;  // the channel whose downward slope bin i is on (-1: none)
    if (band_[i] >= 0) {
      weight_[i] = (centre[band_[i] + 1] - mel) / (centre[band_[i] + 1] - centre[band_[i]]);
    } else {
      weight_[i] = (centre[0] - mel) / (centre[0] - mel_low);
    }
  }
  return OkStatus();
}

void MelFilterbank::Compute(const float* power, std::vector<double>* out) const {
  out->assign(channels_, 0.0);
  for (int64_t i = start_; i <= end_; ++i) {
    const double magnitude = std::sqrt(static_cast<double>(power[i]));
    const double weighted = magnitude * weight_[i];
    int64_t channel = band_[i];
    if (channel >= 0) (*out)[channel] += weighted;  // downward slope of this channel
    ++channel;
    if (channel < channels_) (*out)[channel] += magnitude - weighted;  // upward slope of the next
  }
}

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status AudioSpectrogram(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t window, ctx.Attr<int64_t>("window_size"));
  TFHOST_ASSIGN_OR_RETURN(int64_t stride, ctx.Attr<int64_t>("stride"));
  TFHOST_ASSIGN_OR_RETURN(bool squared, ctx.AttrOr<bool>("magnitude_squared", false));
  if (window < 2) return ctx.Error("window_size must be at least 2, got " + Str(window));
  if (window > (int64_t{1} << 24)) return ctx.Error("window_size " + Str(window) + " is too large");
  if (stride < 1) return ctx.Error("stride must be positive, got " + Str(stride));
  const Tensor& input = ctx.input(0);
  if (input.rank() != 2) return ctx.Error("input must be 2-dimensional, got " + input.shape().ToString());
  const int64_t samples = input.dim(0), channels = input.dim(1);
  const int64_t fft = NextPowerOfTwo(window);
  const int64_t bins = fft / 2 + 1;
  const int64_t frames = samples < window ? 0 : 1 + (samples - window) / stride;
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, {channels, frames, bins}, "spectrogram"));
  std::vector<double> hann(window);
  for (int64_t j = 0; j < window; ++j) {
    hann[j] = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(window));
  }
  Tensor out(DType::kFloat, shape);
  const float* x = input.data<float>();
  std::vector<std::complex<double>> buf(fft);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t f = 0; f < frames; ++f) {
      std::fill(buf.begin(), buf.end(), std::complex<double>(0, 0));
      for (int64_t j = 0; j < window; ++j) buf[j] = static_cast<double>(x[(f * stride + j) * channels + c]) * hann[j];
      Fft(buf);
      float* o = out.data<float>() + (c * frames + f) * bins;
      for (int64_t k = 0; k < bins; ++k) {
        const double power = std::norm(buf[k]);
        o[k] = static_cast<float>(squared ? power : std::sqrt(power));
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status Mfcc(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(float upper, ctx.AttrOr<float>("upper_frequency_limit", 4000.0f));
  TFHOST_ASSIGN_OR_RETURN(float lower, ctx.AttrOr<float>("lower_frequency_limit", 20.0f));
  TFHOST_ASSIGN_OR_RETURN(int64_t filters, ctx.AttrOr<int64_t>("filterbank_channel_count", 40));
  TFHOST_ASSIGN_OR_RETURN(int64_t coefficients, ctx.AttrOr<int64_t>("dct_coefficient_count", 13));
  const Tensor& spec = ctx.input(0);
  const Tensor& rate = ctx.input(1);
  if (spec.rank() != 3) return ctx.Error("spectrogram must be 3-dimensional, got " + spec.shape().ToString());
  if (rate.NumElements() != 1 || rate.rank() != 0) return ctx.Error("sample_rate must be a scalar");
  if (filters > 4096) return ctx.Error("filterbank_channel_count " + Str(filters) + " is too large");
  if (coefficients < 1) return ctx.Error("dct_coefficient_count must be positive, got " + Str(coefficients));
  if (coefficients > filters) {
    return ctx.Error("dct_coefficient_count (" + Str(coefficients) + ") must not exceed filterbank_channel_count (" +
                     Str(filters) + ")");
  }
  const int64_t channels = spec.dim(0), frames = spec.dim(1), bins = spec.dim(2);
  MelFilterbank bank;
  // The filterbank keeps two values per bin; with no frames to filter it is
  // only checked (a spectrogram of no frames may still claim 2^40 bins).
  Status init = channels == 0 || frames == 0
                    ? MelFilterbank::CheckArgs(bins, rate.data<int32_t>()[0], filters, lower, upper)
                    : bank.Initialize(bins, rate.data<int32_t>()[0], filters, lower, upper);
  if (!init.ok()) return ctx.Error("Mfcc initialization failed: " + init.message());
  const double norm = std::sqrt(2.0 / static_cast<double>(filters));
  std::vector<double> cosines(coefficients * filters);
  for (int64_t i = 0; i < coefficients; ++i) {
    for (int64_t j = 0; j < filters; ++j) {
      cosines[i * filters + j] = norm * std::cos(std::numbers::pi / static_cast<double>(filters) *
                                                 static_cast<double>(i) * (static_cast<double>(j) + 0.5));
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, {channels, frames, coefficients}, "output"));
  Tensor out(DType::kFloat, shape);
  std::vector<double> energies;
  for (int64_t f = 0; f < channels * frames; ++f) {
    bank.Compute(spec.data<float>() + f * bins, &energies);
    for (double& e : energies) e = std::log(std::max(e, 1e-12));
    float* o = out.data<float>() + f * coefficients;
    for (int64_t i = 0; i < coefficients; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < filters; ++j) sum += energies[j] * cosines[i * filters + j];
      o[i] = static_cast<float>(sum);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterSpectrogramOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("AudioSpectrogram")
                        .Input("input: float")
                        .Output("spectrogram: float")
                        .Attr("window_size: int")
                        .Attr("stride: int")
                        .Attr("magnitude_squared: bool = false"),
                    AudioSpectrogram);
  registry.Register(ir::OpDefBuilder("Mfcc")
                        .Input("spectrogram: float")
                        .Input("sample_rate: int32")
                        .Output("output: float")
                        .Attr("upper_frequency_limit: float = 4000")
                        .Attr("lower_frequency_limit: float = 20")
                        .Attr("filterbank_channel_count: int = 40")
                        .Attr("dct_coefficient_count: int = 13"),
                    Mfcc);
}

}  // namespace tfhost::ops::audio
