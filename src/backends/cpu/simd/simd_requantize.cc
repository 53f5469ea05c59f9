// _TfhostRequantize (float or int32 accumulators, int8/uint8/int32 outputs:
// every form the TFLite loader writes, ADD's int32 steps included): the same
// fixed-point arithmetic as the reference kernel (ops/math/requantize_ops.cc,
// TFLite's MultiplyByQuantizedMultiplier), written branch-free on int64 lanes
// so that the AVX-512 and AVX2 copies vectorize it. Per-channel parameters
// are laid out once per kernel, so each row walks its channels with no
// division. int16 outputs go to the reference kernel, which is also the
// oracle its test holds this to.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "backends/kernel_table.h"
#include "ir/attrs.h"

namespace tfhost::backends::simd {

namespace {

struct RequantizeParams {
  std::vector<int64_t> multiplier, left, right, mask, threshold_base;
  int64_t zero_point = 0, lo = 0, hi = 0;
};

inline int32_t Accumulator(float v) {
  // The accumulator holds integers; NaN reads as 0, values past int32
  // saturate, as in the reference kernel.
  v = v == v ? v : 0.0f;
  const int32_t r = static_cast<int32_t>(__builtin_rintf(std::min(std::max(v, -2147483648.0f), 2147483520.0f)));
  return v >= 2147483520.0f ? std::numeric_limits<int32_t>::max() : r;
}
inline int32_t Accumulator(int32_t v) { return v; }

// One row: channel c uses the c-th parameters. Everything the loop reads is
// a restrict pointer or a local (an int8 store may alias anything, which
// would make the compiler reload every parameter and not vectorize).
template <typename A, typename Q>
inline __attribute__((always_inline)) void RequantizeRow(
    const A* __restrict a, Q* __restrict o, int64_t n, const int64_t* __restrict mult,
    const int64_t* __restrict left, const int64_t* __restrict right, const int64_t* __restrict mask,
    const int64_t* __restrict base, int64_t zero_point, int64_t lo, int64_t hi) {
  constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min(), kMax32 = std::numeric_limits<int32_t>::max();
  for (int64_t c = 0; c < n; ++c) {
    int64_t x = static_cast<int64_t>(Accumulator(a[c]));
    x = std::min(std::max(x << left[c], kMin32), kMax32);
    const int64_t ab = x * mult[c];
    const int64_t t = ab + (ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30)));
    // t / 2^31, truncating toward zero.
    const int64_t high = (t + ((t >> 63) & ((int64_t{1} << 31) - 1))) >> 31;
    const int64_t rem = high & mask[c];
    const int64_t threshold = base[c] + (high < 0 ? 1 : 0);
    int64_t y = (high >> right[c]) + (rem > threshold ? 1 : 0) + zero_point;
    y = std::min(std::max(y, lo), hi);
    o[c] = static_cast<Q>(y);
  }
}

// Inlined into each ISA's copy below, so that its loop is vectorized for
// that instruction set.
template <int W, typename A, typename Q>
inline __attribute__((always_inline)) void RequantizeRows(const RequantizeParams& p, const A* acc, Q* out,
                                                          int64_t rows) {
  const int64_t channels = static_cast<int64_t>(p.multiplier.size());
  for (int64_t r = 0; r < rows; ++r) {
    RequantizeRow(acc + r * channels, out + r * channels, channels, p.multiplier.data(), p.left.data(),
                  p.right.data(), p.mask.data(), p.threshold_base.data(), p.zero_point, p.lo, p.hi);
  }
}

template <typename A, typename Q>
using RowsFn = void (*)(const RequantizeParams&, const A*, Q*, int64_t);

template <typename A, typename Q>
TFHOST_SIMD_TARGET_AVX512 void RowsAvx512(const RequantizeParams& p, const A* a, Q* o, int64_t n) {
  RequantizeRows<kWidthAvx512, A, Q>(p, a, o, n);
}
template <typename A, typename Q>
TFHOST_SIMD_TARGET_AVX2 void RowsAvx2(const RequantizeParams& p, const A* a, Q* o, int64_t n) {
  RequantizeRows<kWidthAvx2, A, Q>(p, a, o, n);
}
template <typename A, typename Q>
void RowsGeneric(const RequantizeParams& p, const A* a, Q* o, int64_t n) {
  RequantizeRows<kWidthGeneric, A, Q>(p, a, o, n);
}

template <typename A, typename Q>
ops::KernelFn MakeKernel(RequantizeParams params, DType in_type, DType out_type, const ops::KernelFn& reference) {
  const RowsFn<A, Q> fn =
      IsaTable<RowsFn<A, Q>>{&RowsAvx512<A, Q>, &RowsAvx2<A, Q>, &RowsGeneric<A, Q>}.Pick();
  return [fn, params, in_type, out_type, reference](ops::KernelContext& ctx) -> Status {
    const Tensor& acc = ctx.input(0);
    const int64_t channels = static_cast<int64_t>(params.multiplier.size());
    if (acc.dtype() != in_type || acc.rank() < 1 || (channels > 1 && acc.dim(acc.rank() - 1) != channels)) {
      return reference(ctx);  // the reference kernel answers (and names the error)
    }
    const int64_t n = acc.NumElements();
    TFHOST_ASSIGN_OR_RETURN(Tensor out, ctx.AllocateOutput(out_type, acc.shape()));
    const int64_t rows = channels == 0 ? 0 : n / channels;
    const A* a = static_cast<const A*>(acc.raw_data());
    Q* o = static_cast<Q*>(out.raw_data());
    const int64_t min_rows = std::max<int64_t>(1, kMinChunkCheap / std::max<int64_t>(1, channels));
    ParallelRange(ctx.intra_op(), rows, min_rows,
                  [&](int64_t b, int64_t e) { fn(params, a + b * channels, o + b * channels, e - b); });
    ctx.set_output(0, std::move(out));
    return OkStatus();
  };
}

template <typename A>
ops::KernelFn MakeKernelFor(RequantizeParams params, DType in_type, DType out_type, const ops::KernelFn& reference) {
  switch (out_type) {
    case DType::kInt8: return MakeKernel<A, int8_t>(std::move(params), in_type, out_type, reference);
    case DType::kUInt8: return MakeKernel<A, uint8_t>(std::move(params), in_type, out_type, reference);
    default: return MakeKernel<A, int32_t>(std::move(params), in_type, out_type, reference);
  }
}

}  // namespace

void RegisterRequantizeKernels(KernelTable& table) {
  table.Add("_TfhostRequantize", [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    auto t = ir::GetAttr<DType>(node, "T");
    auto out_type = ir::GetAttr<DType>(node, "out_type");
    auto multipliers = ir::GetAttr<std::vector<int64_t>>(node, "multipliers");
    auto shifts = ir::GetAttr<std::vector<int64_t>>(node, "shifts");
    auto zero_point = ir::GetAttr<int64_t>(node, "zero_point");
    auto lo = ir::GetAttr<int64_t>(node, "clamp_min");
    auto hi = ir::GetAttr<int64_t>(node, "clamp_max");
    if (!t.ok() || (*t != DType::kFloat && *t != DType::kInt32) || !out_type.ok() || !multipliers.ok() ||
        !shifts.ok() || !zero_point.ok() || !lo.ok() || !hi.ok() || multipliers->empty() ||
        multipliers->size() != shifts->size()) {
      return {};
    }
    int64_t type_lo, type_hi;
    switch (*out_type) {
      case DType::kInt8: type_lo = -128, type_hi = 127; break;
      case DType::kUInt8: type_lo = 0, type_hi = 255; break;
      case DType::kInt32:
        type_lo = std::numeric_limits<int32_t>::min(), type_hi = std::numeric_limits<int32_t>::max();
        break;
      default: return {};
    }
    if (*lo < type_lo || *hi > type_hi || *lo > *hi || *zero_point < type_lo || *zero_point > type_hi) return {};
    RequantizeParams p;
    for (size_t c = 0; c < multipliers->size(); ++c) {
      const int64_t m = (*multipliers)[c], s = (*shifts)[c];
      // Parameters the reference refuses stay with it.
      if (m < 0 || m > std::numeric_limits<int32_t>::max() || s < -31 || s > 30) return {};
      p.multiplier.push_back(m);
      p.left.push_back(s > 0 ? s : 0);
      const int64_t right = s > 0 ? 0 : -s;
      p.right.push_back(right);
      p.mask.push_back((int64_t{1} << right) - 1);
      p.threshold_base.push_back(((int64_t{1} << right) - 1) >> 1);
    }
    p.zero_point = *zero_point;
    p.lo = *lo;
    p.hi = *hi;
    if (*t == DType::kFloat) return MakeKernelFor<float>(std::move(p), *t, *out_type, reference);
    return MakeKernelFor<int32_t>(std::move(p), *t, *out_type, reference);
  });
}

}  // namespace tfhost::backends::simd
