// Audio front-end ops of keyword-spotting and speech-command models
// (tf.audio / tf.raw_ops): DecodeWav, AudioSpectrogram and Mfcc, computed as
// TensorFlow's kernels compute them (periodic Hann window, FFT length = next
// power of two >= window, HTK-style mel filterbank on sqrt of the power
// spectrum, log with a 1e-12 floor, DCT-II scaled by sqrt(2/N)) so that the
// features a model was trained on come out the same.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace tfhost::ops::audio {

// DecodeWav, EncodeWav (wav_ops.cc).
void RegisterWavOps(OpRegistry& registry);
// AudioSpectrogram, Mfcc (spectrogram_ops.cc).
void RegisterSpectrogramOps(OpRegistry& registry);
// RFFT, IRFFT, FFT, IFFT, ComplexAbs, Real, Imag, Angle, Complex (fft_ops.cc).
void RegisterFftOps(OpRegistry& registry);
// FFT2D, IFFT2D, RFFT2D, IRFFT2D and the 3D forms (fft2d_ops.cc).
void RegisterFftNdOps(OpRegistry& registry);

// In-place radix-2 FFT (forward, e^{-2 pi i k n / N}); size must be a power of
// two.
void Fft(std::vector<std::complex<double>>& data);

// Smallest power of two >= n (n >= 1).
int64_t NextPowerOfTwo(int64_t n);

// Unscaled DFT of any length, in place: the radix-2 FFT for powers of two, a
// direct O(n^2) sum otherwise (hence kMaxDirectDftLength). `inverse` flips
// the exponent's sign and does not divide by n. FFT, FFT2D and FFT3D and
// their inverse and real forms all run on it.
void Dft(std::vector<std::complex<double>>& data, bool inverse);

// Element i of a complex64/complex128 tensor (LoadComplex/StoreComplex) or
// a float/double one (LoadReal), as double precision.
std::complex<double> LoadComplex(const Tensor& t, int64_t i);
void StoreComplex(Tensor& t, int64_t i, std::complex<double> v);
double LoadReal(const Tensor& t, int64_t i);

// Bounds on an fft_length (or a transformed axis) that every FFT op enforces,
// so a model cannot ask for unbounded memory or an O(n^2) sum over millions.
inline constexpr int64_t kMaxFftLength = int64_t{1} << 22;
inline constexpr int64_t kMaxDirectDftLength = int64_t{1} << 14;

// Decoded WAV (8/16/24/32-bit PCM, 32/64-bit float): samples interleaved by
// channel, scaled to [-1, 1).
struct WavData {
  std::vector<float> samples;
  int64_t channels = 0;
  int64_t frames = 0;
  int32_t sample_rate = 0;
};
// Parses a RIFF/WAVE file; errors say what is wrong and where.
StatusOr<WavData> ParseWav(const std::string& bytes);
// 16-bit PCM WAV bytes of `frames` x `channels` interleaved samples, as
// TensorFlow's EncodeWav writes them.
std::string EncodeWav16(const float* samples, int64_t frames, int64_t channels, int32_t sample_rate);

// TensorFlow's mel filterbank (MfccMelFilterbank): maps `input_length`
// power-spectrum bins at `sample_rate` onto `channels` triangular mel bands
// between the two frequency limits.
class MelFilterbank {
 public:
  // The arguments' checks alone (Initialize runs them first).
  static Status CheckArgs(int64_t input_length, double sample_rate, int64_t channels, double lower_hz,
                          double upper_hz);
  Status Initialize(int64_t input_length, double sample_rate, int64_t channels, double lower_hz, double upper_hz);
  // `power` has input_length entries; writes `channels` band energies.
  void Compute(const float* power, std::vector<double>* out) const;

 private:
  int64_t channels_ = 0;
  int64_t start_ = 0;
  int64_t end_ = 0;
  std::vector<int64_t> band_;
  std::vector<double> weight_;
};

}  // namespace tfhost::ops::audio

namespace tfhost::ops {
void RegisterAudioOps(OpRegistry& registry);
void RegisterAudioShapeFns(ShapeFnRegistry& registry);
}  // namespace tfhost::ops
