// Spectral and complex-number ops of tf.signal audio front ends (stft ->
// RFFT, magnitude -> ComplexAbs; YAMNet-style log-mel models): RFFT, IRFFT,
// FFT, IFFT over the innermost dimension, and ComplexAbs, Real, Imag, Complex,
// Angle.
//
// complex64 elements are stored as interleaved (real, imag) float pairs,
// complex128 as double pairs. Transforms compute in double: a radix-2 FFT
// when the length is a power of two, else a direct DFT with exact twiddles
// (fft lengths in models are small: frame sizes of a few hundred samples).
//
//   RFFT(x, [n]): x's last dim cropped or zero-padded to n; output n/2 + 1 bins.
//   IRFFT(X, [n]): X's last dim cropped or zero-padded to n/2 + 1 bins, the
//     spectrum completed by Hermitian symmetry (imaginary parts of DC and, for
//     even n, Nyquist ignored), inverse transform scaled by 1/n.
//   FFT / IFFT: complex to complex, IFFT scaled by 1/n.
#include <cmath>
#include <complex>
#include <numbers>

#include "ops/array/array_util.h"
#include "ops/audio/audio_ops.h"
#include "ops/math/broadcast.h"

namespace tfhost::ops::audio {
namespace {

using Complex = std::complex<double>;

// The scaled transform of the 1-D ops: the inverse divides by n.
void Transform(std::vector<Complex>& a, bool inverse) {
  Dft(a, inverse);
  if (inverse && a.size() > 1) {
    for (auto& v : a) v /= static_cast<double>(a.size());
  }
}

bool IsComplex(DType d) { return d == DType::kComplex64 || d == DType::kComplex128; }

void StoreReal(Tensor& t, int64_t i, double v) {
  if (t.dtype() == DType::kFloat) {
    t.data<float>()[i] = static_cast<float>(v);
  } else {
    t.data<double>()[i] = v;
  }
}

StatusOr<int64_t> ReadFftLength(const KernelContext& ctx) {
  const Tensor& len = ctx.input(1);
  if (len.rank() != 1 || len.dim(0) != 1) return ctx.Error("fft_length must be a vector of 1, got " + len.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, len.ToInt64Vector());
  if (v[0] < 0 || v[0] > kMaxFftLength) return ctx.Error("fft_length " + std::to_string(v[0]) + " is out of range");
  if (v[0] > kMaxDirectDftLength && (v[0] & (v[0] - 1)) != 0) {
    return ctx.Error("fft_length " + std::to_string(v[0]) + " that is not a power of two must be at most " +
                     std::to_string(kMaxDirectDftLength));
  }
  return v[0];
}

// Batch count and last dim of a transform input of rank >= 1.
StatusOr<std::pair<int64_t, int64_t>> Rows(const KernelContext& ctx, const Tensor& t) {
  if (t.rank() < 1) return ctx.Error("input must be at least 1-D, got a scalar");
  const int64_t last = t.dim(t.rank() - 1);
  return std::make_pair(last == 0 ? 0 : t.NumElements() / last, last);
}

Status Rfft(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ReadFftLength(ctx));
  TFHOST_ASSIGN_OR_RETURN(auto rows, Rows(ctx, x));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("Tcomplex", DType::kComplex64));
  const int64_t bins = n == 0 ? 0 : n / 2 + 1;
  std::vector<int64_t> dims = x.shape().dims();
  dims.back() = bins;
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, dims, "output"));
  Tensor out(out_type, shape);
  std::vector<Complex> buf(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows.first; ++r) {
    for (int64_t j = 0; j < n; ++j) buf[j] = j < rows.second ? LoadReal(x, r * rows.second + j) : 0.0;
    Transform(buf, false);
    for (int64_t k = 0; k < bins; ++k) StoreComplex(out, r * bins + k, buf[k]);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status Irfft(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!IsComplex(x.dtype())) return ctx.Error("input must be complex64 or complex128");
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ReadFftLength(ctx));
  TFHOST_ASSIGN_OR_RETURN(auto rows, Rows(ctx, x));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("Treal", DType::kFloat));
  std::vector<int64_t> dims = x.shape().dims();
  dims.back() = n;
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, dims, "output"));
  Tensor out(out_type, shape);
  const int64_t bins = n / 2 + 1;
  std::vector<Complex> buf(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows.first; ++r) {
    for (int64_t k = 0; k < n; ++k) {
      // Bins 0..n/2 from the input, the rest mirrored (conjugated).
      const int64_t src = k < bins ? k : n - k;
      Complex v = src < rows.second ? LoadComplex(x, r * rows.second + src) : 0.0;
      if (src == 0 || (n % 2 == 0 && src == n / 2)) v = {v.real(), 0.0};
      buf[k] = k < bins ? v : std::conj(v);
    }
    Transform(buf, true);
    for (int64_t j = 0; j < n; ++j) StoreReal(out, r * n + j, buf[j].real());
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ComplexFft(KernelContext& ctx, bool inverse) {
  const Tensor& x = ctx.input(0);
  if (!IsComplex(x.dtype())) return ctx.Error("input must be complex64 or complex128");
  TFHOST_ASSIGN_OR_RETURN(auto rows, Rows(ctx, x));
  if (rows.second > kMaxDirectDftLength && (rows.second & (rows.second - 1)) != 0) {
    return ctx.Error("transform length " + std::to_string(rows.second) + " is too large");
  }
  Tensor out(x.dtype(), x.shape());
  // No rows: nothing to transform, and a [0, 2^40] input must not size a
  // 2^40-element buffer.
  if (rows.first == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  std::vector<Complex> buf(static_cast<size_t>(rows.second));
  for (int64_t r = 0; r < rows.first; ++r) {
    for (int64_t j = 0; j < rows.second; ++j) buf[j] = LoadComplex(x, r * rows.second + j);
    Transform(buf, inverse);
    for (int64_t j = 0; j < rows.second; ++j) StoreComplex(out, r * rows.second + j, buf[j]);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// ComplexAbs / Real / Imag / Angle: complex -> Tout element-wise.
template <typename Fn>
Status ComplexToReal(KernelContext& ctx, Fn fn) {
  const Tensor& x = ctx.input(0);
  if (!IsComplex(x.dtype())) return ctx.Error("input must be complex64 or complex128");
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("Tout", DType::kFloat));
  if (out_type != DType::kFloat && out_type != DType::kDouble) return ctx.Error("Tout must be float or double");
  Tensor out(out_type, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) StoreReal(out, i, fn(LoadComplex(x, i)));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status MakeComplex(KernelContext& ctx) {
  const Tensor& re = ctx.input(0);
  const Tensor& im = ctx.input(1);
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("Tout", DType::kComplex64));
  // real and imag broadcast NumPy-style, as TensorFlow's Complex does
  // (conformance case Complex/tf/float32: [2, 3] with [3]).
  auto bc = math::Broadcaster::Make({re.shape(), im.shape()});
  if (!bc.ok()) return ctx.Error("real and imag shapes do not broadcast: " + std::string(bc.status().message()));
  Tensor out(out_type, bc->output_shape());
  bc->ForEach(0, bc->num_elements(), [&](int64_t i, const int64_t* off) {
    StoreComplex(out, i, {LoadReal(re, off[0]), LoadReal(im, off[1])});
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

Complex LoadComplex(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::kComplex64) return {t.data<float>()[2 * i], t.data<float>()[2 * i + 1]};
  return {t.data<double>()[2 * i], t.data<double>()[2 * i + 1]};
}
void StoreComplex(Tensor& t, int64_t i, Complex v) {
  if (t.dtype() == DType::kComplex64) {
    t.data<float>()[2 * i] = static_cast<float>(v.real());
    t.data<float>()[2 * i + 1] = static_cast<float>(v.imag());
  } else {
    t.data<double>()[2 * i] = v.real();
    t.data<double>()[2 * i + 1] = v.imag();
  }
}
double LoadReal(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat ? t.data<float>()[i] : t.data<double>()[i];
}

void Dft(std::vector<Complex>& a, bool inverse) {
  const size_t n = a.size();
  if (n <= 1) return;
  if (inverse) {
    for (auto& v : a) v = std::conj(v);
  }
  if ((n & (n - 1)) == 0) {
    Fft(a);
  } else {
    std::vector<Complex> out(n);
    for (size_t k = 0; k < n; ++k) {
      Complex sum = 0;
      for (size_t j = 0; j < n; ++j) {
        // (k * j) mod n keeps the angle exact for large products.
        const double angle = -2.0 * std::numbers::pi * static_cast<double>((k * j) % n) / static_cast<double>(n);
        sum += a[j] * Complex(std::cos(angle), std::sin(angle));
      }
      out[k] = sum;
    }
    a = std::move(out);
  }
  if (inverse) {
    for (auto& v : a) v = std::conj(v);
  }
}

void RegisterFftOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("RFFT")
                        .Input("input: Treal")
                        .Input("fft_length: int32")
                        .Output("output: Tcomplex")
                        .Attr("Treal: {float, double} = DT_FLOAT")
                        .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64"),
                    Rfft);
  registry.Register(ir::OpDefBuilder("IRFFT")
                        .Input("input: Tcomplex")
                        .Input("fft_length: int32")
                        .Output("output: Treal")
                        .Attr("Treal: {float, double} = DT_FLOAT")
                        .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64"),
                    Irfft);
  for (const char* name : {"FFT", "IFFT"}) {
    const bool inverse = std::string(name) == "IFFT";
    registry.Register(ir::OpDefBuilder(name)
                          .Input("input: Tcomplex")
                          .Output("output: Tcomplex")
                          .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64"),
                      [inverse](KernelContext& ctx) { return ComplexFft(ctx, inverse); });
  }
  struct Unary { const char* name; double (*fn)(Complex); };
  for (const Unary& u : {Unary{"ComplexAbs", [](Complex v) { return std::abs(v); }},
                         Unary{"Real", [](Complex v) { return v.real(); }},
                         Unary{"Imag", [](Complex v) { return v.imag(); }},
                         Unary{"Angle", [](Complex v) { return std::arg(v); }}}) {
    auto fn = u.fn;
    registry.Register(ir::OpDefBuilder(u.name)
                          .Input(std::string(u.name) == "ComplexAbs" ? "x: T" : "input: T")
                          .Output(std::string(u.name) == "ComplexAbs" ? "y: Tout" : "output: Tout")
                          .Attr("T: {complex64, complex128} = DT_COMPLEX64")
                          .Attr("Tout: {float, double} = DT_FLOAT"),
                      [fn](KernelContext& ctx) { return ComplexToReal(ctx, fn); });
  }
  registry.Register(ir::OpDefBuilder("Complex")
                        .Input("real: T")
                        .Input("imag: T")
                        .Output("out: Tout")
                        .Attr("T: {float, double} = DT_FLOAT")
                        .Attr("Tout: {complex64, complex128} = DT_COMPLEX64"),
                    MakeComplex);
}

}  // namespace tfhost::ops::audio
