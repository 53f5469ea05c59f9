// Sum, Mean, Max and Min over float32, for reductions over one contiguous run
// of axes: the innermost axes (row sums), the outermost (column sums, e.g.
// all-but-last), or a middle run (Mean over H and W of NHWC, i.e. global
// average pooling). The input is viewed as [P, R, Q] with R reduced. Other
// axis sets, and bad axes, run the reference kernel.
//
// Sum and Mean accumulate in double like the reference, so long sums agree
// with it to float rounding; Max and Min propagate NaN; empty reductions give
// the reference's identities (0, NaN for Mean, -inf, +inf).
#include <algorithm>
#include <limits>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"

namespace tfhost::backends::simd {
namespace {

enum class Kind { kSum, kMean, kMax, kMin };

struct ReduceArgs {
  const float* in;
  float* out;
  int64_t p, r, q;
};

// Columns per task in the [P, R, Q] (Q > 1) case: accumulators stay in L1.
constexpr int64_t kColumnBlock = 1024;

template <Kind K>
constexpr float Identity() {
  if constexpr (K == Kind::kMax) return -std::numeric_limits<float>::infinity();
  if constexpr (K == Kind::kMin) return std::numeric_limits<float>::infinity();
  return 0.0f;
}

// acc := acc op x, NaN-sticky (a NaN x makes acc NaN; a NaN acc stays).
template <int W, Kind K>
TFHOST_SIMD_INLINE VF<W> Extremum(const VF<W>& acc, const VF<W>& x) {
  if constexpr (K == Kind::kMax) {
    return (x > acc) | IsNan<W>(x) ? x : acc;
  } else {
    return (x < acc) | IsNan<W>(x) ? x : acc;
  }
}

template <int W, Kind K>
TFHOST_SIMD_INLINE float ReduceRow(const float* x, int64_t n) {
  if constexpr (K == Kind::kSum || K == Kind::kMean) {
    VD<W> acc0{}, acc1{};
    int64_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      acc0 += ToDouble<W>(Load<W>(x + i));
      acc1 += ToDouble<W>(Load<W>(x + i + W));
    }
    for (; i + W <= n; i += W) acc0 += ToDouble<W>(Load<W>(x + i));
    if (i < n) acc1 += ToDouble<W>(LoadPartial<W>(x + i, n - i));
    const double sum = HorizontalSum<W>(acc0 + acc1);
    if constexpr (K == Kind::kMean) return static_cast<float>(sum / static_cast<double>(n));
    return static_cast<float>(sum);
  } else {
    VF<W> acc = Splat<W>(Identity<K>());
    int64_t i = 0;
    for (; i + W <= n; i += W) acc = Extremum<W, K>(acc, Load<W>(x + i));
    if (i < n) acc = Extremum<W, K>(acc, LoadPartial<W>(x + i, n - i, Identity<K>()));
    float m = Identity<K>();
    for (int l = 0; l < W; ++l) {
      if (acc[l] != acc[l]) return acc[l];
      m = K == Kind::kMax ? std::max(m, acc[l]) : std::min(m, acc[l]);
    }
    return m;
  }
}

// Rows [begin, end) of the Q == 1 case.
template <int W, Kind K>
TFHOST_SIMD_INLINE void ReduceRowsBody(const ReduceArgs& a, int64_t begin, int64_t end) {
  for (int64_t p = begin; p < end; ++p) a.out[p] = ReduceRow<W, K>(a.in + p * a.r, a.r);
}

// Tasks [begin, end) of the Q > 1 case; task t is (p, column block).
template <int W, Kind K>
TFHOST_SIMD_INLINE void ReduceColumnsBody(const ReduceArgs& a, int64_t begin, int64_t end) {
  const int64_t blocks = (a.q + kColumnBlock - 1) / kColumnBlock;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t p = t / blocks;
    const int64_t q0 = (t % blocks) * kColumnBlock;
    const int64_t len = std::min(kColumnBlock, a.q - q0);
    const float* base = a.in + p * a.r * a.q + q0;
    float* out = a.out + p * a.q + q0;
    if constexpr (K == Kind::kSum || K == Kind::kMean) {
      double acc[kColumnBlock];
      std::fill(acc, acc + len, 0.0);
      for (int64_t r = 0; r < a.r; ++r) {
        const float* x = base + r * a.q;
        int64_t j = 0;
        for (; j + W <= len; j += W) StoreD<W>(acc + j, LoadD<W>(acc + j) + ToDouble<W>(Load<W>(x + j)));
        for (; j < len; ++j) acc[j] += static_cast<double>(x[j]);
      }
      for (int64_t j = 0; j < len; ++j) {
        out[j] = static_cast<float>(K == Kind::kMean ? acc[j] / static_cast<double>(a.r) : acc[j]);
      }
    } else {
      std::fill(out, out + len, Identity<K>());
      for (int64_t r = 0; r < a.r; ++r) {
        const float* x = base + r * a.q;
        int64_t j = 0;
        for (; j + W <= len; j += W) Store<W>(out + j, Extremum<W, K>(Load<W>(out + j), Load<W>(x + j)));
        if (j < len) {
          StorePartial<W>(out + j, Extremum<W, K>(LoadPartial<W>(out + j, len - j), LoadPartial<W>(x + j, len - j)),
                          len - j);
        }
      }
    }
  }
}

using ReduceFn = void (*)(const ReduceArgs&, int64_t, int64_t);

template <Kind K>
TFHOST_SIMD_TARGET_AVX512 void RowsAvx512(const ReduceArgs& a, int64_t b, int64_t e) { ReduceRowsBody<kWidthAvx512, K>(a, b, e); }
template <Kind K>
TFHOST_SIMD_TARGET_AVX2 void RowsAvx2(const ReduceArgs& a, int64_t b, int64_t e) { ReduceRowsBody<kWidthAvx2, K>(a, b, e); }
template <Kind K>
void RowsGeneric(const ReduceArgs& a, int64_t b, int64_t e) { ReduceRowsBody<kWidthGeneric, K>(a, b, e); }
template <Kind K>
TFHOST_SIMD_TARGET_AVX512 void ColumnsAvx512(const ReduceArgs& a, int64_t b, int64_t e) { ReduceColumnsBody<kWidthAvx512, K>(a, b, e); }
template <Kind K>
TFHOST_SIMD_TARGET_AVX2 void ColumnsAvx2(const ReduceArgs& a, int64_t b, int64_t e) { ReduceColumnsBody<kWidthAvx2, K>(a, b, e); }
template <Kind K>
void ColumnsGeneric(const ReduceArgs& a, int64_t b, int64_t e) { ReduceColumnsBody<kWidthGeneric, K>(a, b, e); }

// The reduced axes as a sorted contiguous run [*first, *last); false when the
// axes tensor is malformed, out of range, duplicated, empty or not contiguous.
bool ContiguousAxes(const Tensor& axes, int rank, int* first, int* last) {
  if (axes.rank() > 1 || (axes.dtype() != DType::kInt32 && axes.dtype() != DType::kInt64)) return false;
  auto values = axes.ToInt64Vector();
  if (!values.ok() || values->empty()) return false;
  std::vector<int64_t> v = *values;
  for (int64_t& a : v) {
    if (a < -rank || a >= rank) return false;
    if (a < 0) a += rank;
  }
  std::sort(v.begin(), v.end());
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] != v[0] + static_cast<int64_t>(i)) return false;
  }
  *first = static_cast<int>(v.front());
  *last = static_cast<int>(v.back()) + 1;
  return true;
}

template <Kind K>
void RegisterReduce(KernelTable& table, const char* op) {
  table.Add(op, [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    if (!IsFloatNode(node)) return {};
    auto keep = ir::GetAttrOr<bool>(node, "keep_dims", false);
    if (!keep.ok()) return {};
    const bool keep_dims = *keep;
    const ReduceFn rows = IsaTable<ReduceFn>{&RowsAvx512<K>, &RowsAvx2<K>, &RowsGeneric<K>}.Pick();
    const ReduceFn columns = IsaTable<ReduceFn>{&ColumnsAvx512<K>, &ColumnsAvx2<K>, &ColumnsGeneric<K>}.Pick();
    return [rows, columns, keep_dims, reference](ops::KernelContext& ctx) -> Status {
      if (ctx.num_inputs() != 2) return reference(ctx);
      const Tensor& x = ctx.input(0);
      int first = 0, last = 0;
      if (x.dtype() != DType::kFloat || !ContiguousAxes(ctx.input(1), x.rank(), &first, &last)) return reference(ctx);
      ReduceArgs a{x.data<float>(), nullptr, 1, 1, 1};
      std::vector<int64_t> out_dims;
      for (int d = 0; d < x.rank(); ++d) {
        if (d < first) {
          a.p *= x.dim(d);
        } else if (d < last) {
          a.r *= x.dim(d);
        } else {
          a.q *= x.dim(d);
        }
        if (d < first || d >= last) {
          out_dims.push_back(x.dim(d));
        } else if (keep_dims) {
          out_dims.push_back(1);
        }
      }
      Tensor out(DType::kFloat, Shape(out_dims));
      a.out = out.data<float>();
      if (a.p * a.q > 0) {
        if (a.q == 1) {
          const int64_t min_rows = std::max<int64_t>(1, kMinChunkCheap / std::max<int64_t>(1, a.r));
          ParallelRange(ctx.intra_op(), a.p, min_rows, [&](int64_t b, int64_t e) { rows(a, b, e); });
        } else {
          const int64_t tasks = a.p * ((a.q + kColumnBlock - 1) / kColumnBlock);
          const int64_t per_task = std::max<int64_t>(1, a.r * std::min(a.q, kColumnBlock));
          const int64_t min_tasks = std::max<int64_t>(1, kMinChunkCheap / per_task);
          ParallelRange(ctx.intra_op(), tasks, min_tasks, [&](int64_t b, int64_t e) { columns(a, b, e); });
        }
      }
      ctx.set_output(0, std::move(out));
      return OkStatus();
    };
  });
}

}  // namespace

void RegisterReduceKernels(KernelTable& table) {
  RegisterReduce<Kind::kSum>(table, "Sum");
  RegisterReduce<Kind::kMean>(table, "Mean");
  RegisterReduce<Kind::kMax>(table, "Max");
  RegisterReduce<Kind::kMin>(table, "Min");
}

}  // namespace tfhost::backends::simd
