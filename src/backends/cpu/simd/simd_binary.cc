// Element-wise binary float32 kernels (Add/AddV2, Sub, Mul, RealDiv/Div,
// Maximum, Minimum, SquaredDifference) and BiasAdd (NHWC), for the
// broadcasting patterns models use: equal shapes, a scalar on either side, a
// trailing-dims vector on either side (bias, per-channel scale), and a
// leading-dims tensor whose trailing dims are 1 (x - mean with keep_dims),
// and every other valid broadcast ([N, 1] against [1, M], [B, 1, T] against
// [1, H, 1], an attention mask [B, 1, 1, T] against [B, H, T, T]) as rows of
// the output's innermost collapsed dim, each a vector loop against a vector
// or a scalar of either operand. Any input the reference would reject runs
// the reference kernel, so its error messages stay the only ones.
#include <algorithm>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"

namespace tfhost::backends::simd {
namespace {

struct AddF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) { return a + b; }
};
struct SubF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) { return a - b; }
};
struct MulF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) { return a * b; }
};
struct DivF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) { return a / b; }
};
struct MaxF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) { return MaxNan<W>(a, b); }
};
struct MinF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) { return MinNan<W>(a, b); }
};
struct SquaredDifferenceF {
  template <int W> static TFHOST_SIMD_INLINE VF<W> Apply(const VF<W>& a, const VF<W>& b) {
    const VF<W> d = a - b;
    return d * d;
  }
};

// How the two inputs map onto the output (n elements):
//   kSame:    o[i] = f(a[i], b[i])
//   kScalarB: o[i] = f(a[i], b[0])            kScalarA: f(a[0], b[i])
//   kRowB:    o[i] = f(a[i], b[i % m])        kRowA:    f(a[i % m], b[i])
//   kColB:    o[i] = f(a[i], b[i / m])        kColA:    f(a[i / m], b[i])
//   kGeneral: any other broadcast, described by a GeneralBroadcast.
enum class Pattern { kSame, kScalarB, kScalarA, kRowB, kRowA, kColB, kColA, kGeneral };

// A general broadcast with the output's dims collapsed: size-1 output dims
// dropped and neighbours merged where both operands broadcast the same way.
// The last dim (inner) is where the loops run; each operand is there either a
// vector (stride 1) or one value per row (broadcast).
struct GeneralBroadcast {
  static constexpr int kMaxDims = 16;
  int rank = 0;                   // collapsed output rank, >= 1
  int64_t dims[kMaxDims] = {};    // collapsed output dims
  int64_t a_strides[kMaxDims] = {};  // element strides; 0 where a broadcasts
  int64_t b_strides[kMaxDims] = {};
  bool a_inner_scalar = false, b_inner_scalar = false;
};

struct BinaryArgs {
  const float* a;
  const float* b;
  float* o;
  Pattern pattern;
  int64_t m;
  const GeneralBroadcast* general = nullptr;
};

template <int W, typename Op>
TFHOST_SIMD_INLINE void LoopVV(const float* a, const float* b, float* o, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) Store<W>(o + i, Op::template Apply<W>(Load<W>(a + i), Load<W>(b + i)));
  if (i < n) {
    StorePartial<W>(o + i, Op::template Apply<W>(LoadPartial<W>(a + i, n - i), LoadPartial<W>(b + i, n - i)), n - i);
  }
}
template <int W, typename Op>
TFHOST_SIMD_INLINE void LoopVS(const float* a, float s, float* o, int64_t n) {
  const VF<W> vs = Splat<W>(s);
  int64_t i = 0;
  for (; i + W <= n; i += W) Store<W>(o + i, Op::template Apply<W>(Load<W>(a + i), vs));
  if (i < n) StorePartial<W>(o + i, Op::template Apply<W>(LoadPartial<W>(a + i, n - i), vs), n - i);
}
template <int W, typename Op>
TFHOST_SIMD_INLINE void LoopSV(float s, const float* b, float* o, int64_t n) {
  const VF<W> vs = Splat<W>(s);
  int64_t i = 0;
  for (; i + W <= n; i += W) Store<W>(o + i, Op::template Apply<W>(vs, Load<W>(b + i)));
  if (i < n) StorePartial<W>(o + i, Op::template Apply<W>(vs, LoadPartial<W>(b + i, n - i)), n - i);
}

template <int W, typename Op>
TFHOST_SIMD_INLINE void BinaryBody(const BinaryArgs& args, int64_t begin, int64_t end) {
  const float* a = args.a;
  const float* b = args.b;
  float* o = args.o;
  const int64_t m = args.m;
  switch (args.pattern) {
    case Pattern::kSame:
      LoopVV<W, Op>(a + begin, b + begin, o + begin, end - begin);
      return;
    case Pattern::kScalarB:
      LoopVS<W, Op>(a + begin, b[0], o + begin, end - begin);
      return;
    case Pattern::kScalarA:
      LoopSV<W, Op>(a[0], b + begin, o + begin, end - begin);
      return;
    case Pattern::kRowB:
    case Pattern::kRowA:
      for (int64_t i = begin; i < end;) {
        const int64_t j = i % m;
        const int64_t len = std::min(m - j, end - i);
        if (args.pattern == Pattern::kRowB) {
          LoopVV<W, Op>(a + i, b + j, o + i, len);
        } else {
          LoopVV<W, Op>(a + j, b + i, o + i, len);
        }
        i += len;
      }
      return;
    case Pattern::kColB:
    case Pattern::kColA:
      for (int64_t i = begin; i < end;) {
        const int64_t r = i / m;
        const int64_t len = std::min(m - (i - r * m), end - i);
        if (args.pattern == Pattern::kColB) {
          LoopVS<W, Op>(a + i, b[r], o + i, len);
        } else {
          LoopSV<W, Op>(a[r], b + i, o + i, len);
        }
        i += len;
      }
      return;
    case Pattern::kGeneral: {
      const GeneralBroadcast& g = *args.general;
      const int64_t inner = g.dims[g.rank - 1];
      for (int64_t i = begin; i < end;) {
        // Row offsets of both operands from the row index's digits.
        int64_t row = i / inner, a_off = 0, b_off = 0;
        const int64_t j = i - row * inner;
        for (int d = g.rank - 2; d >= 0 && row > 0; --d) {
          const int64_t digit = row % g.dims[d];
          row /= g.dims[d];
          a_off += digit * g.a_strides[d];
          b_off += digit * g.b_strides[d];
        }
        const int64_t len = std::min(inner - j, end - i);
        if (g.a_inner_scalar) {
          LoopSV<W, Op>(a[a_off], b + b_off + j, o + i, len);
        } else if (g.b_inner_scalar) {
          LoopVS<W, Op>(a + a_off + j, b[b_off], o + i, len);
        } else {
          LoopVV<W, Op>(a + a_off + j, b + b_off + j, o + i, len);
        }
        i += len;
      }
      return;
    }
  }
}

using BinaryFn = void (*)(const BinaryArgs&, int64_t, int64_t);

template <typename Op>
TFHOST_SIMD_TARGET_AVX512 void BinaryAvx512(const BinaryArgs& args, int64_t begin, int64_t end) {
  BinaryBody<kWidthAvx512, Op>(args, begin, end);
}
template <typename Op>
TFHOST_SIMD_TARGET_AVX2 void BinaryAvx2(const BinaryArgs& args, int64_t begin, int64_t end) {
  BinaryBody<kWidthAvx2, Op>(args, begin, end);
}
template <typename Op>
void BinaryGeneric(const BinaryArgs& args, int64_t begin, int64_t end) {
  BinaryBody<kWidthGeneric, Op>(args, begin, end);
}
template <typename Op>
IsaTable<BinaryFn> BinaryTable() {
  return {&BinaryAvx512<Op>, &BinaryAvx2<Op>, &BinaryGeneric<Op>};
}

// Whether `small`, without its leading 1s, equals the trailing dims of `big`;
// *m is then its element count.
bool IsTrailingOf(const Shape& small, const Shape& big, int64_t* m) {
  if (small.rank() > big.rank()) return false;
  int first = 0;
  while (first < small.rank() && small.dim(first) == 1) ++first;
  const int offset = big.rank() - small.rank();
  int64_t count = 1;
  for (int d = first; d < small.rank(); ++d) {
    if (small.dim(d) != big.dim(offset + d)) return false;
    count *= small.dim(d);
  }
  *m = count;
  return true;
}

// Whether `small` has big's rank, equals big on a prefix of dims and is 1 on
// the rest; *m is then the element count of that rest of big.
bool IsLeadingOf(const Shape& small, const Shape& big, int64_t* m) {
  if (small.rank() != big.rank() || small.rank() == 0) return false;
  int k = small.rank();
  while (k > 0 && small.dim(k - 1) == 1) --k;
  int64_t count = 1;
  for (int d = 0; d < small.rank(); ++d) {
    if (d < k) {
      if (small.dim(d) != big.dim(d)) return false;
    } else {
      count *= big.dim(d);
    }
  }
  if (count == 0) return false;
  *m = count;
  return true;
}

// The pattern and output shape for inputs of shapes x and y; false when the
// broadcast is none of the supported ones (or invalid).
bool DetectPattern(const Shape& x, const Shape& y, Pattern* pattern, int64_t* m, Shape* out) {
  *m = 1;
  if (x == y) {
    *pattern = Pattern::kSame;
    *out = x;
  } else if (y.num_elements() == 1 && y.rank() <= x.rank()) {
    *pattern = Pattern::kScalarB;
    *out = x;
  } else if (x.num_elements() == 1 && x.rank() <= y.rank()) {
    *pattern = Pattern::kScalarA;
    *out = y;
  } else if (IsTrailingOf(y, x, m) && *m > 0) {
    *pattern = Pattern::kRowB;
    *out = x;
  } else if (IsTrailingOf(x, y, m) && *m > 0) {
    *pattern = Pattern::kRowA;
    *out = y;
  } else if (IsLeadingOf(y, x, m)) {
    *pattern = Pattern::kColB;
    *out = x;
  } else if (IsLeadingOf(x, y, m)) {
    *pattern = Pattern::kColA;
    *out = y;
  } else {
    return false;
  }
  return true;
}

// Collapses a valid broadcast of x and y (out = their broadcast shape, with
// elements) into *g; false when it is not a broadcast or has too many dims.
bool DescribeGeneral(const Shape& x, const Shape& y, GeneralBroadcast* g, Shape* out) {
  const int r = std::max(x.rank(), y.rank());
  std::vector<int64_t> xd(r, 1), yd(r, 1), od(r);
  for (int d = 0; d < x.rank(); ++d) xd[r - x.rank() + d] = x.dim(d);
  for (int d = 0; d < y.rank(); ++d) yd[r - y.rank() + d] = y.dim(d);
  for (int d = 0; d < r; ++d) {
    if (xd[d] != yd[d] && xd[d] != 1 && yd[d] != 1) return false;
    od[d] = xd[d] == 1 ? yd[d] : xd[d];
  }
  *out = Shape(od);
  // Collapsed dims (output size, x broadcasts, y broadcasts).
  std::vector<int64_t> dims;
  std::vector<bool> xb, yb;
  for (int d = 0; d < r; ++d) {
    if (od[d] == 1) continue;
    const bool bx = xd[d] == 1, by = yd[d] == 1;
    if (!dims.empty() && xb.back() == bx && yb.back() == by) {
      dims.back() *= od[d];
    } else {
      dims.push_back(od[d]);
      xb.push_back(bx);
      yb.push_back(by);
    }
  }
  if (dims.empty()) {  // every dim 1: one element
    dims = {1};
    xb = {false};
    yb = {false};
  }
  if (static_cast<int>(dims.size()) > GeneralBroadcast::kMaxDims) return false;
  g->rank = static_cast<int>(dims.size());
  int64_t xs = 1, ys = 1;
  for (int d = g->rank - 1; d >= 0; --d) {
    g->dims[d] = dims[d];
    g->a_strides[d] = xb[d] ? 0 : xs;
    g->b_strides[d] = yb[d] ? 0 : ys;
    if (!xb[d]) xs *= dims[d];
    if (!yb[d]) ys *= dims[d];
  }
  g->a_inner_scalar = xb.back();
  g->b_inner_scalar = yb.back();
  return true;
}

// Runs the pattern over the pool. A short repeating operand (a bias of 3
// channels) is tiled to at least 256 values first so the vector loops run
// long stretches instead of tails.
Status RunBinary(ops::KernelContext& ctx, BinaryFn fn, Pattern pattern, int64_t m, const Shape& out_shape,
                 const GeneralBroadcast* general = nullptr) {
  Tensor a = ctx.TakeInput(0);
  Tensor b = ctx.TakeInput(1);
  BinaryArgs args{a.data<float>(), b.data<float>(), nullptr, pattern, m, general};
  Tensor out;
  if (a.shape() == out_shape && a.RefCountIsOne()) {
    out = std::move(a);
  } else if (b.shape() == out_shape && b.RefCountIsOne()) {
    out = std::move(b);
  } else {
    out = Tensor::Uninitialized(DType::kFloat, out_shape);  // the kernel writes every element
  }
  args.o = out.data<float>();
  const int64_t n = out.NumElements();
  std::vector<float> tiled;
  if ((pattern == Pattern::kRowA || pattern == Pattern::kRowB) && m < 64 && n > m) {
    const float* src = pattern == Pattern::kRowB ? args.b : args.a;
    const int64_t reps = (256 + m - 1) / m;
    tiled.resize(static_cast<size_t>(reps * m));
    for (int64_t r = 0; r < reps; ++r) std::copy(src, src + m, tiled.begin() + r * m);
    (pattern == Pattern::kRowB ? args.b : args.a) = tiled.data();
    args.m = reps * m;
  }
  ParallelRange(ctx.intra_op(), n, kMinChunkCheap, [&](int64_t begin, int64_t end) { fn(args, begin, end); });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

ops::KernelFn MakeBinaryKernel(BinaryFn fn, const ops::KernelFn& reference) {
  return [fn, reference](ops::KernelContext& ctx) -> Status {
    if (ctx.num_inputs() != 2) return reference(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.dtype() != DType::kFloat || y.dtype() != DType::kFloat) return reference(ctx);
    Pattern pattern;
    int64_t m;
    Shape out_shape;
    if (DetectPattern(x.shape(), y.shape(), &pattern, &m, &out_shape)) return RunBinary(ctx, fn, pattern, m, out_shape);
    GeneralBroadcast general;
    if (!DescribeGeneral(x.shape(), y.shape(), &general, &out_shape)) return reference(ctx);
    return RunBinary(ctx, fn, Pattern::kGeneral, 1, out_shape, &general);
  };
}

template <typename Op>
void RegisterBinary(KernelTable& table, const char* op) {
  table.Add(op, [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    if (!IsFloatNode(node)) return {};
    return MakeBinaryKernel(BinaryTable<Op>().Pick(), reference);
  });
}

// BiasAdd / BiasAddV1 in NHWC: a trailing-vector add whose shape rules are
// BiasAdd's own (bias 1-D, length = last dim); NCHW is declined.
void RegisterBiasAdd(KernelTable& table, const char* op) {
  table.Add(op, [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    if (!IsFloatNode(node)) return {};
    auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC") return {};
    const BinaryFn fn = BinaryTable<AddF>().Pick();
    return [fn, reference](ops::KernelContext& ctx) -> Status {
      if (ctx.num_inputs() != 2) return reference(ctx);
      const Tensor& x = ctx.input(0);
      const Tensor& bias = ctx.input(1);
      if (x.dtype() != DType::kFloat || bias.dtype() != DType::kFloat || x.rank() < 2 || bias.rank() != 1 ||
          bias.dim(0) != x.dim(x.rank() - 1) || bias.dim(0) == 0) {
        return reference(ctx);
      }
      const Shape out_shape = x.shape();
      return RunBinary(ctx, fn, Pattern::kRowB, bias.dim(0), out_shape);
    };
  });
}

}  // namespace

void RegisterBinaryKernels(KernelTable& table) {
  RegisterBinary<AddF>(table, "Add");
  RegisterBinary<AddF>(table, "AddV2");
  RegisterBinary<SubF>(table, "Sub");
  RegisterBinary<MulF>(table, "Mul");
  RegisterBinary<DivF>(table, "RealDiv");
  RegisterBinary<DivF>(table, "Div");
  RegisterBinary<MaxF>(table, "Maximum");
  RegisterBinary<MinF>(table, "Minimum");
  RegisterBinary<SquaredDifferenceF>(table, "SquaredDifference");
  RegisterBiasAdd(table, "BiasAdd");
  RegisterBiasAdd(table, "BiasAddV1");
}

}  // namespace tfhost::backends::simd
