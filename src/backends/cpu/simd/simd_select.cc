// SelectV2 on float32, row by row: output[i] = condition[i] ? t[i] : e[i]
// with TensorFlow's three-way broadcasting, where the output's last dim is
// at least 16 long and each operand either has it or broadcasts along it.
// That is how attention masks are applied: Keras's masked softmax selects
// [B, H, T, T] scores against a [B, 1, T, T] (or [B, 1, 1, T]) mask and a
// scalar fill, twice per layer; the reference loop, stepping each operand
// by a run-time 0 or 1, ran BERT-base's 26 of them at about 0.45 ns an
// element.
//
// Each row is 16 lanes at a time: 16 condition bytes widened to a lane mask
// (any non-zero byte is true, as the reference reads a bool), then a blend
// of t's and e's vectors, each loaded or broadcast as its step says. Rows
// are split over the intra-op threads. AVX-512 only; other forms, dtypes
// and CPUs go to the reference kernel, which this kernel is given as its
// fallback.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "ops/math/broadcast.h"

namespace tfhost::backends::simd {
namespace {

constexpr int64_t kMinRow = 16;

#ifdef TFHOST_SIMD_X86
#define TFHOST_SELECT_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))

// One row of `len`: step 1 reads the operand's row, step 0 its one value.
template <bool kC, bool kT, bool kE>
TFHOST_SELECT_TARGET void SelectRow(const bool* c, const float* t, const float* e, float* o, int64_t len) {
  const __m512 t_all = kT ? _mm512_setzero_ps() : _mm512_set1_ps(t[0]);
  const __m512 e_all = kE ? _mm512_setzero_ps() : _mm512_set1_ps(e[0]);
  const __mmask16 c_all = kC ? 0 : (c[0] ? static_cast<__mmask16>(0xffff) : 0);
  for (int64_t j = 0; j < len; j += 16) {
    const int64_t n = std::min<int64_t>(16, len - j);
    const __mmask16 lanes = n == 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1);
    __mmask16 pick = c_all;
    if (kC) pick = _mm_mask_test_epi8_mask(lanes, _mm_maskz_loadu_epi8(lanes, c + j), _mm_set1_epi8(-1));
    const __m512 tv = kT ? _mm512_maskz_loadu_ps(lanes, t + j) : t_all;
    const __m512 ev = kE ? _mm512_maskz_loadu_ps(lanes, e + j) : e_all;
    _mm512_mask_storeu_ps(o + j, lanes, _mm512_mask_blend_ps(pick, ev, tv));
  }
}

using SelectRowFn = void (*)(const bool*, const float*, const float*, float*, int64_t);

template <bool kC, bool kT, bool kE>
constexpr SelectRowFn RowFn() { return &SelectRow<kC, kT, kE>; }

// kRows[c][t][e]: the row function for those steps.
constexpr SelectRowFn kRows[2][2][2] = {{{RowFn<false, false, false>(), RowFn<false, false, true>()},
                                         {RowFn<false, true, false>(), RowFn<false, true, true>()}},
                                        {{RowFn<true, false, false>(), RowFn<true, false, true>()},
                                         {RowFn<true, true, false>(), RowFn<true, true, true>()}}};
#endif  // TFHOST_SIMD_X86

Status SelectKernel(ops::KernelContext& ctx, const ops::KernelFn& fallback) {
  if (ctx.num_inputs() != 3) return fallback(ctx);
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  if (cond.dtype() != DType::kBool || t.dtype() != DType::kFloat || e.dtype() != DType::kFloat) return fallback(ctx);
  auto all = ops::math::Broadcaster::Make({cond.shape(), t.shape(), e.shape()});
  if (!all.ok()) return fallback(ctx);  // its error names the shapes
  const Shape& out = all->output_shape();
  if (out.rank() == 0 || out.dim(out.rank() - 1) < kMinRow) return fallback(ctx);
  const int64_t len = out.dim(out.rank() - 1);
  const Tensor* operands[3] = {&cond, &t, &e};
  bool step[3];
  std::vector<Shape> rows;
  for (int k = 0; k < 3; ++k) {
    const Shape& s = operands[k]->shape();
    const int64_t last = s.rank() == 0 ? 1 : s.dim(s.rank() - 1);
    step[k] = last == len;
    rows.push_back(WithoutLastDim(s));
  }
  auto bc = ops::math::Broadcaster::MakeTo(rows, WithoutLastDim(out));
  if (!bc.ok()) return fallback(ctx);
  // Into t's (or e's) own buffer when this node is its last reader and it
  // has the output's shape (the masked scores): each element is read before
  // it is written, and no new buffer of the scores' size is touched.
  Tensor t_own = ctx.TakeInput(1), e_own = ctx.TakeInput(2);
  const float* tp = t_own.data<float>();
  const float* ep = e_own.data<float>();
  Tensor y;
  if (t_own.shape() == out && t_own.RefCountIsOne()) {
    y = std::move(t_own);
  } else if (e_own.shape() == out && e_own.RefCountIsOne()) {
    y = std::move(e_own);
  } else {
    y = Tensor::Uninitialized(DType::kFloat, out);
  }
  if (y.NumElements() == 0) {
    ctx.set_output(0, std::move(y));
    return OkStatus();
  }
#ifdef TFHOST_SIMD_X86
  const SelectRowFn row_fn = kRows[step[0]][step[1]][step[2]];
  const bool* c = cond.data<bool>();
  float* o = y.data<float>();
  // Rows of at least 16 floats: a share is worth a worker from about 2^16
  // elements, as for the other memory-bound element-wise kernels.
  const int64_t num_rows = bc->num_elements();
  const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 16) / len);
  ParallelRange(ctx.intra_op(), num_rows, min_rows, [&](int64_t first, int64_t last) {
    bc->ForEach(first, last, [&](int64_t r, const int64_t* off) {
      row_fn(c + off[0] * (step[0] ? len : 1), tp + off[1] * (step[1] ? len : 1),
             ep + off[2] * (step[2] ? len : 1), o + r * len, len);
    });
  });
#endif
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

ops::KernelFn MakeSelectKernel(const ir::Node& node, const ops::KernelFn& fallback) {
#ifndef TFHOST_SIMD_X86
  return {};
#endif
  if (ActiveIsaLevel() != IsaLevel::kAvx512 || !IsFloatNode(node)) return {};
  return [fallback](ops::KernelContext& ctx) { return SelectKernel(ctx, fallback); };
}

}  // namespace

void RegisterSelectKernels(KernelTable& table) { table.Add("SelectV2", MakeSelectKernel); }

}  // namespace tfhost::backends::simd
