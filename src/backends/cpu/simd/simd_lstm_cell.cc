// _TfhostLstmCell (ops/nn/lstm_cell.h), vectorized: per row, W units at a
// time, the four gates' sums (x + y) + bias, their Sigmoid/Tanh (simd_math.h,
// the approximations the Sigmoid and Tanh kernels use), c_out and h, in
// registers. The values are the ones the separate simd kernels would give.
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_lstm_cell.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"
#include "ops/nn/lstm_cell.h"

namespace tfhost::backends::simd {
namespace {

// Gate k's sums (x + y) + bias at units [j, j + n). A function, not a
// lambda: a lambda is compiled without its caller's target attribute, and
// returning a 256-bit vector from it breaks the AVX2 copy under clang.
template <int W>
TFHOST_SIMD_INLINE VF<W> GateSum(const LstmCellRow& r, int64_t k, int64_t j, int64_t n) {
  const int64_t at = k * (r.gate_stride != 0 ? r.gate_stride : r.units) + j;
  if (n == W) return (Load<W>(r.x + at) + Load<W>(r.y + at)) + Load<W>(r.bias + at);
  return (LoadPartial<W>(r.x + at, n) + LoadPartial<W>(r.y + at, n)) + LoadPartial<W>(r.bias + at, n);
}

template <int W>
TFHOST_SIMD_INLINE void CellSpan(const LstmCellRow& r, int64_t j, int64_t n) {
  const VF<W> i = Sigmoid<W>(GateSum<W>(r, 0, j, n));
  const VF<W> f = Sigmoid<W>(GateSum<W>(r, 1, j, n));
  const VF<W> g = Tanh<W>(GateSum<W>(r, 2, j, n));
  const VF<W> o = Sigmoid<W>(GateSum<W>(r, 3, j, n));
  const VF<W> c = n == W ? Load<W>(r.c + j) : LoadPartial<W>(r.c + j, n);
  const VF<W> forget = f * c;
  const VF<W> input = i * g;
  const VF<W> next = forget + input;
  const VF<W> h = o * Tanh<W>(next);
  if (n == W) {
    Store<W>(r.c_out + j, next);
    Store<W>(r.h + j, h);
  } else {
    StorePartial<W>(r.c_out + j, next, n);
    StorePartial<W>(r.h + j, h, n);
  }
}

template <int W>
TFHOST_SIMD_INLINE void CellBody(const LstmCellRow& r) {
  int64_t j = 0;
  for (; j + W <= r.units; j += W) CellSpan<W>(r, j, W);
  if (j < r.units) CellSpan<W>(r, j, r.units - j);
}

TFHOST_SIMD_DEFINE_VARIANTS(Cell, CellBody, (const LstmCellRow& r), (r))

Status LstmCellKernel(LstmCellRowFn fn, ops::KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ops::nn::LstmCellGeometry g, ops::nn::CheckLstmCellInputs(ctx));
  Tensor h = Tensor::Uninitialized(DType::kFloat, Shape({g.batch, g.units}));
  Tensor c_out = Tensor::Uninitialized(DType::kFloat, Shape({g.batch, g.units}));
  LstmCellRow row{nullptr, nullptr, ctx.input(2).data<float>(), nullptr, nullptr, nullptr, g.units};
  // Rows are a few thousand floats: splitting them over threads would cost
  // more than it saves at the batch sizes a recurrent step runs.
  for (int64_t b = 0; b < g.batch; ++b) {
    row.x = ctx.input(0).data<float>() + b * g.x_stride;
    row.y = ctx.input(1).data<float>() + b * g.y_stride;
    row.c = ctx.input(3).data<float>() + b * g.c_stride;
    row.h = h.data<float>() + b * g.units;
    row.c_out = c_out.data<float>() + b * g.units;
    fn(row);
  }
  ctx.set_output(0, std::move(h));
  ctx.set_output(1, std::move(c_out));
  return OkStatus();
}

}  // namespace

LstmCellRowFn PickLstmCellRow() { return IsaTable<LstmCellRowFn>{&CellAvx512, &CellAvx2, &CellGeneric}.Pick(); }

void RegisterLstmCellKernels(KernelTable& table) {
  table.Add(ops::nn::kLstmCellOp, [](const ir::Node& node, const ops::KernelFn&) -> ops::KernelFn {
    if (!IsFloatNode(node)) return {};
    const LstmCellRowFn fn = PickLstmCellRow();
    return [fn](ops::KernelContext& ctx) { return LstmCellKernel(fn, ctx); };
  });
}

}  // namespace tfhost::backends::simd
