// Multi-dimensional transforms over the innermost 2 or 3 dimensions, beside
// the 1-D ones of fft_ops.cc: FFT2D, IFFT2D, FFT3D, IFFT3D (complex to
// complex), RFFT2D, RFFT3D (real to the half spectrum of the last axis) and
// IRFFT2D, IRFFT3D (back). Image models use them for frequency-domain
// filtering and some audio models for 2-D spectral features.
//
// A d-D transform is the 1-D transform applied along each of the d axes in
// turn, computed in double. RFFTnD crops or zero-pads each transformed axis of
// the input to fft_length, transforms the last axis real-to-complex (keeping
// fft_length[-1] / 2 + 1 bins) and then the others. IRFFTnD crops or pads the
// outer axes to fft_length and the last to fft_length[-1] / 2 + 1 bins,
// inverts the outer axes, then completes each last-axis row by Hermitian
// symmetry (ignoring the imaginary parts of DC and, for even lengths, Nyquist,
// as TensorFlow's complex-to-real transform does) and inverts it. Inverse
// transforms scale by 1 / (product of the lengths).
#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "ops/array/array_util.h"
#include "ops/audio/audio_ops.h"

namespace tfhost::ops::audio {
namespace {

using Complex = std::complex<double>;

// The 1-D ops' bounds per axis (audio_ops.h); the element bound keeps a
// model's fft_length from asking for unbounded memory.
constexpr int64_t kMaxElements = int64_t{1} << 28;

// Transforms every line of `data` (row-major `dims`) along `axis`, unscaled.
void TransformAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, int axis, bool inverse) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t n = dims[axis];
  if (n == 0 || outer == 0 || inner == 0) return;
  std::vector<Complex> line(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * n * inner + in;
      for (int64_t k = 0; k < n; ++k) line[k] = data[base + k * inner];
      Dft(line, inverse);
      for (int64_t k = 0; k < n; ++k) data[base + k * inner] = line[k];
    }
  }
}


// Copies `t` (complex or real) into a complex buffer of dims `to`: each of the
// last `to.size() - batch_rank` axes cropped or zero-padded. `t`'s leading
// (batch) dims equal `to`'s.
std::vector<Complex> Resize(const Tensor& t, const std::vector<int64_t>& to, bool complex_input) {
  int64_t total = 1;
  for (int64_t d : to) total *= d;
  std::vector<Complex> out(static_cast<size_t>(total));
  const int rank = t.rank();
  if (total == 0) return out;
  for (int64_t o = 0; o < total; ++o) {
    // Decompose o over `to` and map to the source if every coordinate fits.
    int64_t rem = o, src = 0, stride = 1;
    bool inside = true;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t c = rem % to[i];
      rem /= to[i];
      if (c >= t.dim(i)) inside = false;
      src += c * stride;
      stride *= t.dim(i);
    }
    if (inside) out[o] = complex_input ? LoadComplex(t, src) : Complex(LoadReal(t, src), 0.0);
  }
  return out;
}

// fft_length (input 1): `d` non-negative lengths within bounds.
StatusOr<std::vector<int64_t>> ReadLengths(const KernelContext& ctx, int d) {
  const Tensor& len = ctx.input(1);
  if (len.rank() != 1 || len.dim(0) != d) {
    return ctx.Error("fft_length must be a vector of " + std::to_string(d) + " elements, got shape " +
                     len.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, len.ToInt64Vector());
  for (int64_t n : v) {
    if (n < 0 || n > kMaxFftLength) return ctx.Error("fft_length entry " + std::to_string(n) + " is out of range");
    if (n > kMaxDirectDftLength && (n & (n - 1)) != 0) {
      return ctx.Error("fft_length entry " + std::to_string(n) + " that is not a power of two must be at most " +
                       std::to_string(kMaxDirectDftLength));
    }
  }
  return v;
}

Status CheckInput(const KernelContext& ctx, const Tensor& x, int d, bool complex) {
  if (complex && x.dtype() != DType::kComplex64 && x.dtype() != DType::kComplex128) {
    return ctx.Error("input must be complex64 or complex128, got " + DTypeShortName(x.dtype()));
  }
  if (x.rank() < d) {
    return ctx.Error("input must have rank at least " + std::to_string(d) + ", got shape " + x.shape().ToString());
  }
  for (int i = x.rank() - d; i < x.rank(); ++i) {
    if (x.dim(i) > kMaxFftLength || (x.dim(i) > kMaxDirectDftLength && (x.dim(i) & (x.dim(i) - 1)) != 0)) {
      return ctx.Error("transform length " + std::to_string(x.dim(i)) + " is too large");
    }
  }
  return OkStatus();
}

StatusOr<Tensor> Allocate(const KernelContext& ctx, DType dtype, const std::vector<int64_t>& dims) {
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, dims, "output"));
  if (shape.num_elements() > kMaxElements) {
    return ctx.Error("output " + shape.ToString() + " has more than 2^28 elements");
  }
  return Tensor(dtype, shape);
}

// FFT2D/3D, IFFT2D/3D.
Status ComplexFftNd(KernelContext& ctx, int d, bool inverse) {
  const Tensor& x = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckInput(ctx, x, d, true));
  const std::vector<int64_t>& dims = x.shape().dims();
  TFHOST_ASSIGN_OR_RETURN(Tensor out, Allocate(ctx, x.dtype(), dims));
  std::vector<Complex> data = Resize(x, dims, true);
  double scale = 1;
  for (int a = x.rank() - d; a < x.rank(); ++a) {
    TransformAxis(data, dims, a, inverse);
    scale *= static_cast<double>(dims[a]);
  }
  for (size_t i = 0; i < data.size(); ++i) StoreComplex(out, static_cast<int64_t>(i), inverse ? data[i] / scale : data[i]);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// RFFT2D/3D.
Status RfftNd(KernelContext& ctx, int d) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::kFloat && x.dtype() != DType::kDouble) {
    return ctx.Error("input must be float or double, got " + DTypeShortName(x.dtype()));
  }
  TFHOST_RETURN_IF_ERROR(CheckInput(ctx, x, d, false));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> n, ReadLengths(ctx, d));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("Tcomplex", DType::kComplex64));
  std::vector<int64_t> full = x.shape().dims();
  const int first = x.rank() - d;
  for (int i = 0; i < d; ++i) full[first + i] = n[i];
  std::vector<int64_t> half = full;
  half.back() = n.back() == 0 ? 0 : n.back() / 2 + 1;
  TFHOST_ASSIGN_OR_RETURN(Tensor out, Allocate(ctx, out_type, half));
  TFHOST_ASSIGN_OR_RETURN(Shape full_shape, array::OutputShape(ctx, full, "padded input"));
  if (full_shape.num_elements() > kMaxElements) return ctx.Error("padded input has more than 2^28 elements");
  std::vector<Complex> data = Resize(x, full, false);
  for (int a = first; a < x.rank(); ++a) TransformAxis(data, full, a, false);
  // Keep the first half.back() bins of each last-axis row.
  const int64_t rows = half.back() == 0 ? 0 : out.NumElements() / half.back();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < half.back(); ++k) StoreComplex(out, r * half.back() + k, data[r * full.back() + k]);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// IRFFT2D/3D.
Status IrfftNd(KernelContext& ctx, int d) {
  const Tensor& x = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckInput(ctx, x, d, true));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> n, ReadLengths(ctx, d));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("Treal", DType::kFloat));
  const int first = x.rank() - d;
  std::vector<int64_t> half = x.shape().dims();
  for (int i = 0; i < d; ++i) half[first + i] = n[i];
  const int64_t last = n.back();
  const int64_t bins = last / 2 + 1;
  half.back() = bins;
  std::vector<int64_t> full = half;
  full.back() = last;
  TFHOST_ASSIGN_OR_RETURN(Tensor out, Allocate(ctx, out_type, full));
  TFHOST_ASSIGN_OR_RETURN(Shape half_shape, array::OutputShape(ctx, half, "cropped input"));
  if (half_shape.num_elements() > kMaxElements) return ctx.Error("cropped input has more than 2^28 elements");
  std::vector<Complex> data = Resize(x, half, true);
  double scale = 1;
  for (int a = first; a + 1 < x.rank(); ++a) {
    TransformAxis(data, half, a, true);
    scale *= static_cast<double>(half[a]);
  }
  scale *= static_cast<double>(last);
  const int64_t rows = last == 0 ? 0 : out.NumElements() / last;
  std::vector<Complex> row(static_cast<size_t>(last));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < last; ++k) {
      const int64_t src = k < bins ? k : last - k;
      Complex v = data[r * bins + src];
      if (src == 0 || (last % 2 == 0 && src == last / 2)) v = {v.real(), 0.0};
      row[k] = k < bins ? v : std::conj(v);
    }
    Dft(row, true);
    for (int64_t j = 0; j < last; ++j) {
      const double v = row[j].real() / scale;
      if (out_type == DType::kFloat) {
        out.data<float>()[r * last + j] = static_cast<float>(v);
      } else {
        out.data<double>()[r * last + j] = v;
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterFftNdOps(OpRegistry& registry) {
  for (int d : {2, 3}) {
    const std::string suffix = std::to_string(d) + "D";
    for (bool inverse : {false, true}) {
      registry.Register(ir::OpDefBuilder((inverse ? "IFFT" : "FFT") + suffix)
                            .Input("input: Tcomplex")
                            .Output("output: Tcomplex")
                            .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64"),
                        [d, inverse](KernelContext& ctx) { return ComplexFftNd(ctx, d, inverse); });
    }
    registry.Register(ir::OpDefBuilder("RFFT" + suffix)
                          .Input("input: Treal")
                          .Input("fft_length: int32")
                          .Output("output: Tcomplex")
                          .Attr("Treal: {float, double} = DT_FLOAT")
                          .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64"),
                      [d](KernelContext& ctx) { return RfftNd(ctx, d); });
    registry.Register(ir::OpDefBuilder("IRFFT" + suffix)
                          .Input("input: Tcomplex")
                          .Input("fft_length: int32")
                          .Output("output: Treal")
                          .Attr("Treal: {float, double} = DT_FLOAT")
                          .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64"),
                      [d](KernelContext& ctx) { return IrfftNd(ctx, d); });
  }
}

}  // namespace tfhost::ops::audio
