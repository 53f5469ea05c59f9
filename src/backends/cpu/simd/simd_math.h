// Vector math for the SIMD kernels, written once with GCC/Clang vector
// extensions and templated on the lane count W: a kernel body is an
// always-inline template that is instantiated inside three wrapper functions
// compiled for AVX-512 (W = 16), AVX2+FMA (W = 8) and the baseline target
// (W = 4), so the same source becomes zmm, ymm or xmm code. Only the few
// operations the extensions lack (square root) use intrinsics, one overload
// per width carrying its own target attribute.
//
// Transcendentals are polynomial approximations (Cephes-style range
// reduction) accurate to a few float ulps, well inside the conformance
// tolerance of 1e-5 (tests/conformance/tolerances.h), and follow the reference
// kernels on the special values: exp(+inf) = inf, exp(-inf) = 0, NaN stays
// NaN, results that underflow become subnormal or 0, overflow becomes inf.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TFHOST_SIMD_X86 1
#endif

// Passing wide vectors between always-inline helpers trips GCC's notes about
// an ABI change for non-inlined calls; every helper here is inlined.
#pragma GCC diagnostic ignored "-Wpsabi"

#define TFHOST_SIMD_INLINE inline __attribute__((always_inline))
#ifdef TFHOST_SIMD_X86
#define TFHOST_SIMD_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#define TFHOST_SIMD_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define TFHOST_SIMD_TARGET_AVX512
#define TFHOST_SIMD_TARGET_AVX2
#endif

namespace tfhost::backends::simd {

template <int W>
struct VecTypes {
  typedef float F __attribute__((vector_size(W * sizeof(float))));
  typedef int32_t I __attribute__((vector_size(W * sizeof(int32_t))));
  typedef double D __attribute__((vector_size(W * sizeof(double))));
};
template <int W> using VF = typename VecTypes<W>::F;
template <int W> using VI = typename VecTypes<W>::I;
template <int W> using VD = typename VecTypes<W>::D;

// Lane counts of the three compiled copies.
inline constexpr int kWidthAvx512 = 16;
inline constexpr int kWidthAvx2 = 8;
inline constexpr int kWidthGeneric = 4;

template <int W>
TFHOST_SIMD_INLINE VF<W> Splat(float s) {
  // Not `VF<W>{} + s`: 0 + -0 is +0, and a splatted -0 divisor must stay -0.
  VF<W> v;
  for (int i = 0; i < W; ++i) v[i] = s;
  return v;
}
template <int W>
TFHOST_SIMD_INLINE VF<W> Load(const float* p) {
  VF<W> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <int W>
TFHOST_SIMD_INLINE void Store(float* p, const VF<W>& v) {
  std::memcpy(p, &v, sizeof(v));
}
// The first n < W lanes from p; the rest are `fill`.
template <int W>
TFHOST_SIMD_INLINE VF<W> LoadPartial(const float* p, int64_t n, float fill = 0.0f) {
  float buf[W];
  for (int i = 0; i < W; ++i) buf[i] = fill;
  std::memcpy(buf, p, static_cast<size_t>(n) * sizeof(float));
  return Load<W>(buf);
}
template <int W>
TFHOST_SIMD_INLINE void StorePartial(float* p, const VF<W>& v, int64_t n) {
  float buf[W];
  Store<W>(buf, v);
  std::memcpy(p, buf, static_cast<size_t>(n) * sizeof(float));
}

template <int W>
TFHOST_SIMD_INLINE VF<W> Select(VI<W> mask, const VF<W>& a, const VF<W>& b) {
  return mask ? a : b;
}
template <int W>
TFHOST_SIMD_INLINE VD<W> LoadD(const double* p) {
  VD<W> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <int W>
TFHOST_SIMD_INLINE void StoreD(double* p, const VD<W>& v) {
  std::memcpy(p, &v, sizeof(v));
}
template <int W>
TFHOST_SIMD_INLINE VD<W> ToDouble(const VF<W>& v) {
  return __builtin_convertvector(v, VD<W>);
}

template <int W>
TFHOST_SIMD_INLINE VI<W> IsNan(const VF<W>& x) {
  return x != x;
}
template <int W>
TFHOST_SIMD_INLINE VF<W> Abs(const VF<W>& x) {
  return (VF<W>)((VI<W>)x & 0x7fffffff);
}
// |magnitude| with the sign bit of `sign`.
template <int W>
TFHOST_SIMD_INLINE VF<W> CopySign(const VF<W>& magnitude, const VF<W>& sign) {
  return (VF<W>)(((VI<W>)magnitude & 0x7fffffff) | ((VI<W>)sign & static_cast<int32_t>(0x80000000u)));
}
// NaN-propagating maximum/minimum, as TensorFlow's Maximum/Minimum; for equal
// operands (+0/-0) the second one wins, as in the reference's `a > b ? a : b`.
template <int W>
TFHOST_SIMD_INLINE VF<W> MaxNan(const VF<W>& a, const VF<W>& b) {
  VF<W> r = a > b ? a : b;
  r = IsNan<W>(a) ? a : r;
  return IsNan<W>(b) ? b : r;
}
template <int W>
TFHOST_SIMD_INLINE VF<W> MinNan(const VF<W>& a, const VF<W>& b) {
  VF<W> r = a < b ? a : b;
  r = IsNan<W>(a) ? a : r;
  return IsNan<W>(b) ? b : r;
}

// Correctly rounded square root (the hardware instruction).
#ifdef TFHOST_SIMD_X86
// The wide forms are real calls taking pointers: a vector passed by value
// to a function compiled for other ISA extensions than its caller changes
// the ABI (clang refuses it), and these run only on the dispatched paths.
// (The masked AVX-512 form: GCC 12 warns that the unmasked one reads an
// uninitialised pass-through.)
TFHOST_SIMD_TARGET_AVX512 inline void SqrtLanes(const VF<16>* x, VF<16>* y) { *y = _mm512_mask_sqrt_ps(*x, 0xFFFF, *x); }
TFHOST_SIMD_TARGET_AVX2 inline void SqrtLanes(const VF<8>* x, VF<8>* y) { *y = _mm256_sqrt_ps(*x); }
inline void SqrtLanes(const VF<4>* x, VF<4>* y) { *y = _mm_sqrt_ps(*x); }
#else
template <int W>
inline void SqrtLanes(const VF<W>* x, VF<W>* y) {
  for (int i = 0; i < W; ++i) (*y)[i] = std::sqrt((*x)[i]);
}
#endif
template <int W>
TFHOST_SIMD_INLINE VF<W> SqrtV(const VF<W>& x) {
  VF<W> y;
  SqrtLanes(&x, &y);
  return y;
}

// Sum of the lanes.
template <int W>
TFHOST_SIMD_INLINE float HorizontalSum(const VF<W>& v) {
  float s = 0;
  for (int i = 0; i < W; ++i) s += v[i];
  return s;
}
template <int W>
TFHOST_SIMD_INLINE double HorizontalSum(const VD<W>& v) {
  double s = 0;
  for (int i = 0; i < W; ++i) s += v[i];
  return s;
}
// Largest lane, ignoring NaN lanes (as std::max(max, x) does in a loop).
template <int W>
TFHOST_SIMD_INLINE float HorizontalMax(const VF<W>& v) {
  float m = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < W; ++i) m = v[i] > m ? v[i] : m;
  return m;
}

// e^x. Range reduction x = n ln2 + r (|r| <= ln2/2, ln2 split in two parts
// so n ln2 is exact), a degree-6 polynomial for e^r, and 2^n applied as two
// exponent-field scalings so that n = 128 (x near the overflow threshold) and
// subnormal results both come out right.
template <int W>
TFHOST_SIMD_INLINE VF<W> Exp(const VF<W>& x) {
  using F = VF<W>;
  using I = VI<W>;
  const F hi = Splat<W>(88.72283935546875f);  // largest x with a finite e^x
  const F lo = Splat<W>(-104.0f);             // e^x rounds to 0 below this
  F xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  const F magic = Splat<W>(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  F fn = xc * 1.44269504088896341f + magic;
  fn = fn - magic;
  F r = xc - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;
  F p = Splat<W>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  F y = p * (r * r) + r + 1.0f;
  const I n = __builtin_convertvector(fn, I);
  const I n1 = n >> 1;
  const I n2 = n - n1;
  y = y * (F)((n1 + 127) << 23);
  y = y * (F)((n2 + 127) << 23);
  y = x > hi ? Splat<W>(std::numeric_limits<float>::infinity()) : y;
  return IsNan<W>(x) ? x : y;
}

#ifdef TFHOST_SIMD_X86
// e^a for 16 lanes with a in [-110, 0] or NaN, for the AVX-512 kernels whose
// argument is non-positive by construction (softmax's x - max, sigmoid's
// -|x|), built for throughput: no overflow checks, the polynomial in FMAs
// and 2^n as one VSCALEFPS, which also makes the subnormal results and the
// 0 below about -104. The same reduction and polynomial as Exp; within a few
// float ulps of it. NaN stays NaN.
inline __attribute__((always_inline, target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) __m512
ExpNonPositiveAvx512(__m512 a) {
  // (All-lanes masked forms: GCC 12 warns about the plain ones' undefined
  // pass-through operand.)
  const __m512 scaled = _mm512_mul_ps(a, _mm512_set1_ps(1.44269504088896341f));
  const __m512 n =
      _mm512_mask_roundscale_ps(scaled, 0xffff, scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), a);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  const __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_mask_scalef_ps(y, 0xffff, y, n);
}
#endif

// Natural log for finite x > 0 (callers guarantee the range): x = m 2^e
// with m in [sqrt(1/2), sqrt(2)), then a degree-9 polynomial in m - 1
// (Cephes' logf), ln2 split in two parts as in Exp.
template <int W>
TFHOST_SIMD_INLINE VF<W> LogPositive(const VF<W>& x) {
  using F = VF<W>;
  using I = VI<W>;
  const I bits = (I)x;
  I e = ((bits >> 23) & 0xff) - 126;
  F m = (F)((bits & static_cast<int32_t>(0x807fffffu)) | 0x3f000000);  // in [0.5, 1)
  const I small = m < 0.707106781186547524f;
  e = e + small;  // small lanes are -1 (true), so this subtracts 1 there
  m = small ? m + m - 1.0f : m - 1.0f;
  const F fe = __builtin_convertvector(e, F);
  const F z = m * m;
  F p = Splat<W>(7.0376836292e-2f);
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  F y = p * m * z;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  return m + y + fe * 0.693359375f;
}

// log(1 + e^x) = max(x, 0) + log(1 + e^-|x|), as the reference's two
// branches; the log's argument lies in (1, 2], so LogPositive applies. Near
// e^-|x| -> 0 the absolute error (~1e-7) is inside the tolerance.
template <int W>
TFHOST_SIMD_INLINE VF<W> Softplus(const VF<W>& x) {
  using F = VF<W>;
  const F e = Exp<W>(-Abs<W>(x));
  const F pos = x > 0.0f ? x : Splat<W>(0.0f);
  const F y = pos + LogPositive<W>(e + 1.0f);
  return IsNan<W>(x) ? x : y;
}

// tanh: an odd polynomial below |x| = 0.625 (where 1 - 2/(e^2x + 1) would
// lose digits), 1 - 2/(e^{2|x|} + 1) with x's sign above; saturates to +-1.
template <int W>
TFHOST_SIMD_INLINE VF<W> Tanh(const VF<W>& x) {
  using F = VF<W>;
  const F ax = Abs<W>(x);
  const F z = x * x;
  F p = Splat<W>(-5.70498872745e-3f);
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const F small = x + x * z * p;
  const F e = Exp<W>(ax + ax);
  const F big = CopySign<W>(1.0f - 2.0f / (e + 1.0f), x);
  return ax < 0.625f ? small : big;
}

// 1 / (1 + e^-x) without overflow: e = e^-|x| <= 1, then 1/(1+e) or e/(1+e).
template <int W>
TFHOST_SIMD_INLINE VF<W> Sigmoid(const VF<W>& x) {
  using F = VF<W>;
  const F e = Exp<W>(-Abs<W>(x));
  const F r = 1.0f / (e + 1.0f);
  return x >= 0.0f ? r : e * r;
}

}  // namespace tfhost::backends::simd
