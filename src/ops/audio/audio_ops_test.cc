#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include <limits>

#include "ops/audio/audio_ops.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

void Put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v & 0xff));
  s.push_back(static_cast<char>(v >> 8));
}
void Put32(std::string& s, uint32_t v) {
  Put16(s, static_cast<uint16_t>(v & 0xffff));
  Put16(s, static_cast<uint16_t>(v >> 16));
}

// A 16-bit PCM WAV with a LIST chunk before the data (which readers skip).
std::string MakeWav(const std::vector<int16_t>& samples, uint16_t channels, uint32_t rate) {
  std::string body = "WAVE";
  body += "fmt ";
  Put32(body, 16);
  Put16(body, 1);
  Put16(body, channels);
  Put32(body, rate);
  Put32(body, rate * channels * 2);
  Put16(body, static_cast<uint16_t>(channels * 2));
  Put16(body, 16);
  body += "LIST";
  Put32(body, 4);
  body += "INFO";
  body += "data";
  Put32(body, static_cast<uint32_t>(samples.size() * 2));
  for (int16_t v : samples) Put16(body, static_cast<uint16_t>(v));
  std::string wav = "RIFF";
  Put32(wav, static_cast<uint32_t>(body.size()));
  return wav + body;
}

TEST(DecodeWavTest, ScalesSamplesBy32768AndReturnsRate) {
  auto out = RunSingleOp("DecodeWav", {Tensor::StringScalar(MakeWav({0, 16384, -32768, 32767}, 1, 16000))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({0, 0.5f, -1, 32767 / 32768.0f}, Shape({4, 1}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::Scalar<int32_t>(16000)));
}

TEST(DecodeWavTest, DesiredSamplesPadsAndDesiredChannelsDuplicatesMono) {
  auto out = RunSingleOp("DecodeWav", {Tensor::StringScalar(MakeWav({16384, -16384}, 1, 8000))},
                         {{"desired_channels", MakeAttr(2)}, {"desired_samples", MakeAttr(3)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({0.5f, 0.5f, -0.5f, -0.5f, 0, 0}, Shape({3, 2}))));
  auto first = RunSingleOp("DecodeWav", {Tensor::StringScalar(MakeWav({1, 2, 3, 4}, 2, 8000))},
                           {{"desired_channels", MakeAttr(1)}, {"desired_samples", MakeAttr(1)}});
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(TensorsEqual((*first)[0], Tensor::FromVector<float>({1 / 32768.0f}, Shape({1, 1}))));
}

TEST(DecodeWavTest, TruncatedOrNonPcmFilesAreErrors) {
  std::string wav = MakeWav({1, 2, 3}, 1, 8000);
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeWav", {Tensor::StringScalar(wav.substr(0, wav.size() - 3))}), StatusCode::kInvalidArgument,
                      "WAV chunk 'data' at byte 48 claims 6 bytes but only 3 remain");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeWav", {Tensor::StringScalar("RIFF")}), StatusCode::kInvalidArgument,
                      "WAV data does not start with a RIFF/WAVE header");
  std::string twelve_bit = wav;
  twelve_bit[34] = 12;  // bits per sample
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeWav", {Tensor::StringScalar(twelve_bit)}), StatusCode::kInvalidArgument,
                      "WAV PCM has 12 bits per sample; supported are 8, 16, 24 and 32");
  std::string alaw = wav;
  alaw[20] = 6;  // audio format: A-law
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeWav", {Tensor::StringScalar(alaw)}), StatusCode::kInvalidArgument,
                      "WAV audio format is 6; supported are PCM (1) and IEEE float (3)");
}

// A WAV of `format` (1 PCM, 3 float, 0xFFFE extensible with `sub` as the
// real one) with raw little-endian sample bytes.
std::string MakeWavRaw(uint16_t format, uint16_t bits, uint16_t channels, const std::string& data, uint16_t sub = 1) {
  std::string body = "WAVEfmt ";
  Put32(body, format == 0xFFFE ? 40 : 16);
  Put16(body, format);
  Put16(body, channels);
  Put32(body, 16000);
  Put32(body, 16000u * channels * bits / 8);
  Put16(body, static_cast<uint16_t>(channels * bits / 8));
  Put16(body, bits);
  if (format == 0xFFFE) {
    Put16(body, 22);  // cbSize
    Put16(body, bits);
    Put32(body, 0);  // channel mask
    Put16(body, sub);
    body += std::string(14, '\x01');  // rest of the SubFormat GUID
  }
  body += "data";
  Put32(body, static_cast<uint32_t>(data.size()));
  body += data;
  std::string wav = "RIFF";
  Put32(wav, static_cast<uint32_t>(body.size()));
  return wav + body;
}

std::vector<float> DecodeToFloats(const std::string& wav) {
  auto out = RunSingleOp("DecodeWav", {Tensor::StringScalar(wav)});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  const Tensor& a = (*out)[0];
  return std::vector<float>(a.data<float>(), a.data<float>() + a.NumElements());
}

TEST(DecodeWavTest, ReadsEightTwentyFourAndThirtyTwoBitPcm) {
  // 8-bit PCM is unsigned around 128: 0 -> -1, 128 -> 0, 192 -> 0.5.
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(1, 8, 1, std::string("\x00\x80\xc0", 3))),
            std::vector<float>({-1, 0, 0.5f}));
  // 24-bit: 0x400000 = 2^22 -> 0.5; 0x800000 (sign bit) -> -1; 0xFFFFFF -> -2^-23.
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(1, 24, 1, std::string("\x00\x00\x40\x00\x00\x80\xff\xff\xff", 9))),
            std::vector<float>({0.5f, -1, -1.0f / 8388608}));
  // 32-bit: 0xC0000000 = -2^30 -> -0.5.
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(1, 32, 1, std::string("\x00\x00\x00\xc0", 4))), std::vector<float>({-0.5f}));
}

TEST(DecodeWavTest, ReadsFloatAndExtensibleFormats) {
  std::string f32;
  for (float v : {0.25f, -1.5f}) f32.append(reinterpret_cast<const char*>(&v), 4);
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(3, 32, 2, f32)), std::vector<float>({0.25f, -1.5f}));
  std::string f64;
  double d = -0.125;
  f64.append(reinterpret_cast<const char*>(&d), 8);
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(3, 64, 1, f64)), std::vector<float>({-0.125f}));
  // WAVE_FORMAT_EXTENSIBLE carrying 16-bit PCM and 32-bit float.
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(0xFFFE, 16, 1, std::string("\x00\x40", 2), 1)), std::vector<float>({0.5f}));
  EXPECT_EQ(DecodeToFloats(MakeWavRaw(0xFFFE, 32, 2, f32, 3)), std::vector<float>({0.25f, -1.5f}));
  auto decoded = RunSingleOp("DecodeWav", {Tensor::StringScalar(MakeWavRaw(3, 32, 2, f32))});
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ((*decoded)[0].shape(), Shape({1, 2}));
}

TEST(EncodeWavTest, WritesTensorFlowsHeaderAndRoundedClampedSamples) {
  Tensor audio = Tensor::FromVector<float>({0.5f, -1.5f, 0.99999f, std::nanf(""), 1e-5f, -0.25f}, Shape({3, 2}));
  auto out = RunSingleOp("EncodeWav", {audio, Tensor::Scalar<int32_t>(44100)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::string& wav = (*out)[0].strings()[0];
  ASSERT_EQ(wav.size(), 44u + 12u);
  std::string header = "RIFF";
  Put32(header, 36 + 12);
  header += "WAVEfmt ";
  Put32(header, 16);
  Put16(header, 1);
  Put16(header, 2);
  Put32(header, 44100);
  Put32(header, 44100 * 4);
  Put16(header, 4);
  Put16(header, 16);
  header += "data";
  Put32(header, 12);
  EXPECT_EQ(wav.substr(0, 44), header);
  // round(x * 32768) clamped to int16: 16384, -32768, 32767, NaN -> 0, 0, -8192.
  auto back = DecodeToFloats(wav);
  EXPECT_EQ(back, std::vector<float>({0.5f, -1, 32767 / 32768.0f, 0, 0, -0.25f}));
  TFHOST_EXPECT_ERROR(RunSingleOp("EncodeWav", {Tensor::FromVector<float>({1}), Tensor::Scalar<int32_t>(8000)}), StatusCode::kInvalidArgument,
                      "audio must be [samples, channels], got [1]");
  TFHOST_EXPECT_ERROR(RunSingleOp("EncodeWav", {audio, Tensor::Scalar<int32_t>(0)}), StatusCode::kInvalidArgument,
                      "sample_rate must be positive, got 0");
}

TEST(FftTest, MatchesDirectDft) {
  std::vector<std::complex<double>> x(16);
  for (int i = 0; i < 16; ++i) x[i] = {std::sin(0.7 * i) + 0.1 * i, std::cos(1.3 * i)};
  auto y = x;
  audio::Fft(y);
  for (int k = 0; k < 16; ++k) {
    std::complex<double> sum = 0;
    for (int n = 0; n < 16; ++n) sum += x[n] * std::polar(1.0, -2 * std::numbers::pi * k * n / 16);
    EXPECT_NEAR(std::abs(y[k] - sum), 0, 1e-9) << k;
  }
}

TEST(AudioSpectrogramTest, PeriodicHannWindowOfConstantSignal) {
  // Window 4: hann = [0, 0.5, 1, 0.5]; X = [2, -1, 0, ...] -> |X| = [2, 1, 0].
  // 10 samples, stride 3 -> 1 + (10 - 4) / 3 = 3 frames.
  Tensor ones(DType::kFloat, Shape({10, 1}));
  for (int i = 0; i < 10; ++i) ones.data<float>()[i] = 1;
  auto out = RunSingleOp("AudioSpectrogram", {ones}, {{"window_size", MakeAttr(4)}, {"stride", MakeAttr(3)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), Shape({1, 3, 3}));
  const float want[] = {2, 1, 0};
  for (int f = 0; f < 3; ++f) {
    for (int k = 0; k < 3; ++k) EXPECT_NEAR((*out)[0].data<float>()[f * 3 + k], want[k], 1e-6);
  }
  auto squared = RunSingleOp("AudioSpectrogram", {ones},
                             {{"window_size", MakeAttr(4)}, {"stride", MakeAttr(3)}, {"magnitude_squared", MakeAttr(true)}});
  ASSERT_TRUE(squared.ok());
  EXPECT_NEAR((*squared)[0].data<float>()[0], 4, 1e-6);
}

TEST(AudioSpectrogramTest, FftLengthIsNextPowerOfTwoAndShortInputHasNoFrames) {
  // Window 5 -> FFT 8 -> 5 bins; hann(5) sums to 2.5 at DC.
  Tensor ones(DType::kFloat, Shape({5, 2}));
  for (int i = 0; i < 10; ++i) ones.data<float>()[i] = 1;
  auto out = RunSingleOp("AudioSpectrogram", {ones}, {{"window_size", MakeAttr(5)}, {"stride", MakeAttr(1)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), Shape({2, 1, 5}));
  EXPECT_NEAR((*out)[0].data<float>()[0], 2.5, 1e-6);
  auto none = RunSingleOp("AudioSpectrogram", {Tensor(DType::kFloat, Shape({3, 1}))},
                          {{"window_size", MakeAttr(4)}, {"stride", MakeAttr(1)}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)[0].shape(), Shape({1, 0, 3}));
}

TEST(MfccTest, AgreesWithTensorFlowGoldenValues) {
  // TensorFlow's mfcc_test: a 513-bin spectrogram 1, 2, ..., 513 at 22050 Hz
  // with the default parameters (20-4000 Hz, 40 filters, 13 coefficients).
  Tensor spec(DType::kFloat, Shape({1, 1, 513}));
  for (int i = 0; i < 513; ++i) spec.data<float>()[i] = static_cast<float>(i + 1);
  auto out = RunSingleOp("Mfcc", {spec, Tensor::Scalar<int32_t>(22050)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const double want[] = {29.13970072, -6.41568601, -0.61903012, -0.96778652, -0.26819878, -0.40907028, -0.15614748,
                         -0.23203119, -0.10481487, -0.1543029,  -0.0769791,  -0.10806114, -0.06047613};
  ASSERT_EQ((*out)[0].shape(), Shape({1, 1, 13}));
  for (int i = 0; i < 13; ++i) EXPECT_NEAR((*out)[0].data<float>()[i], want[i], 1e-4) << i;
}

TEST(MfccTest, BadParametersAreErrors) {
  Tensor spec(DType::kFloat, Shape({1, 1, 257}));
  EXPECT_FALSE(RunSingleOp("Mfcc", {spec, Tensor::Scalar<int32_t>(16000)},
                           {{"dct_coefficient_count", MakeAttr(50)}}).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("Mfcc", {spec, Tensor::Scalar<int32_t>(0)}), StatusCode::kInvalidArgument,
                      "Mfcc initialization failed: Sample rate must be positive.");
  EXPECT_FALSE(RunSingleOp("Mfcc", {spec, Tensor::Scalar<int32_t>(16000)},
                           {{"lower_frequency_limit", MakeAttr(5000.0f)}}).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("Mfcc", {spec, Tensor::Scalar<int32_t>(16000)},
                                  {{"upper_frequency_limit", MakeAttr(std::numeric_limits<float>::quiet_NaN())}}),
                      StatusCode::kInvalidArgument, "Mfcc initialization failed: Frequency limits must be finite");
}

TEST(MfccTest, LimitsFarAboveNyquistStopAtTheLastBin) {
  // Found by fuzzing: a limit of 3.4e38 Hz made bin indices past int64 (a
  // float-to-int overflow); the bands now stop at the spectrum's end.
  Tensor spec(DType::kFloat, Shape({1, 1, 257}));
  auto out = RunSingleOp("Mfcc", {spec, Tensor::Scalar<int32_t>(16000)},
                         {{"lower_frequency_limit", MakeAttr(20.0f)},
                          {"upper_frequency_limit", MakeAttr(std::numeric_limits<float>::max())}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 1, 13}));
}

TEST(MfccTest, NoFramesOfAHugeSpectrumIsAnEmptyOutputWithoutAFilterbank) {
  // Found by fuzzing: a [1, 0, 2^40] spectrogram sized the filterbank's two
  // per-bin tables (ASan: allocation-size-too-big). Its arguments are still
  // checked.
  const Shape shape({1, 0, int64_t{1} << 40});
  auto out = RunSingleOp("Mfcc", {Tensor(DType::kFloat, shape), Tensor::Scalar<int32_t>(16000)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 0, 13}));
  TFHOST_EXPECT_ERROR(RunSingleOp("Mfcc", {Tensor(DType::kFloat, shape), Tensor::Scalar<int32_t>(0)}),
                      StatusCode::kInvalidArgument, "Mfcc initialization failed: Sample rate must be positive.");
}

TEST(ComplexOpsTest, FftOfNoRowsOfAHugeLengthIsAnEmptyOutputWithoutABuffer) {
  // Found by fuzzing: a [0, 2^40] input sized a 2^40-element work buffer.
  const Shape shape({0, int64_t{1} << 40});
  auto out = RunSingleOp("FFT", {Tensor(DType::kComplex64, shape)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), shape);
}

}  // namespace
}  // namespace tfhost::ops

namespace tfhost::ops {
namespace {

std::vector<float> Pairs(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + 2 * t.NumElements());
}

TEST(RfftTest, PowerOfTwoAndDirectLengthsAndInverse) {
  // DFT of [1, 2, 3, 4]: X0 = 10, X1 = -2 + 2i, X2 = -2.
  auto out = RunSingleOp("RFFT", {Tensor::FromVector<float>({1, 2, 3, 4}), Tensor::FromVector<int32_t>({4})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].dtype(), DType::kComplex64);
  ASSERT_EQ((*out)[0].shape(), Shape({3}));
  const std::vector<float> want = {10, 0, -2, 2, -2, 0};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(Pairs((*out)[0])[i], want[i], 1e-5) << i;
  // n = 3 (direct DFT) crops [1, 2, 3, 4] to [1, 2, 3]: X0 = 6, X1 = -1.5 + (sqrt(3)/2) i.
  auto odd = RunSingleOp("RFFT", {Tensor::FromVector<float>({1, 2, 3, 4}), Tensor::FromVector<int32_t>({3})});
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  ASSERT_EQ((*odd)[0].shape(), Shape({2}));
  EXPECT_NEAR(Pairs((*odd)[0])[0], 6, 1e-5);
  EXPECT_NEAR(Pairs((*odd)[0])[2], -1.5, 1e-5);
  EXPECT_NEAR(Pairs((*odd)[0])[3], std::sqrt(3.0) / 2, 1e-5);
  // IRFFT recovers the signal (length 4, padded input of 8 -> zero-padding).
  auto back = RunSingleOp("IRFFT", {(*out)[0], Tensor::FromVector<int32_t>({4})});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR((*back)[0].data<float>()[i], i + 1, 1e-5);
  auto abs = RunSingleOp("ComplexAbs", {(*out)[0]});
  ASSERT_TRUE(abs.ok()) << abs.status().ToString();
  EXPECT_NEAR((*abs)[0].data<float>()[1], std::sqrt(8.0), 1e-5);
  TFHOST_EXPECT_ERROR(RunSingleOp("RFFT", {Tensor::FromVector<float>({1}), Tensor::FromVector<int32_t>({-1})}), StatusCode::kInvalidArgument,
                      "fft_length -1 is out of range");
}

TEST(ComplexOpsTest, ComplexRealImagAngleAndFftRoundTrip) {
  auto z = RunSingleOp("Complex", {Tensor::FromVector<float>({3, 0}), Tensor::FromVector<float>({4, -1})});
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  auto re = RunSingleOp("Real", {(*z)[0]});
  auto im = RunSingleOp("Imag", {(*z)[0]});
  auto ang = RunSingleOp("Angle", {(*z)[0]});
  ASSERT_TRUE(re.ok() && im.ok() && ang.ok());
  EXPECT_TRUE(TensorsEqual((*re)[0], Tensor::FromVector<float>({3, 0})));
  EXPECT_TRUE(TensorsEqual((*im)[0], Tensor::FromVector<float>({4, -1})));
  EXPECT_NEAR((*ang)[0].data<float>()[1], -std::numbers::pi / 2, 1e-6);
  auto f = RunSingleOp("FFT", {(*z)[0]});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto inv = RunSingleOp("IFFT", {(*f)[0]});
  ASSERT_TRUE(inv.ok());
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(Pairs((*inv)[0])[i], Pairs((*z)[0])[i], 1e-5);
}

}  // namespace
}  // namespace tfhost::ops
