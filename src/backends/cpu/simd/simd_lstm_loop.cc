// _TfhostLstmLoop (ops/nn/lstm_loop.h), vectorized: each step's recurrent
// product h x kernel reads the kernel packed in panels (simd_gemv.h), packed
// once per kernel buffer, and the cell runs the vectorized rows
// (simd_lstm_cell.h). The loop itself, its checks and its lists are the
// reference kernel's (RunLstmLoop); only the step differs.
//
// With intra-op threads, a StepTeam (base/step_team.h) runs the steps: its
// members split the panels the same way on every step, so each keeps
// re-reading its own share of the kernel from its core's cache; no step
// waits for a sleeping worker to wake. Where the units come in groups of 32
// (one panel of each gate), a member takes whole groups: their four gates'
// panels and then those units' cells, one team sync a step. Otherwise the
// members split the panels, sync, and split the rows' cells.
//
// Every other step reads the panels in reverse order: a
// kernel about the size of L2 (256 x 1024 floats is 1 MiB, this Zen 5's L2)
// read in the same order each step evicts each line just before it is read
// again, while the reverse pass starts on the lines the last one left in
// cache (bench/peers' LSTM at batch 1: about 5% faster, and p90 1.5 -> 1.2
// ms on the Zen 5 core this was written on).
//
// Declined (to the reference kernel) on CPUs without the panel kernels
// (AVX-512), for bf16-marked nodes and for layers of under 4 units;
// passes/lstm_loop_fusion only writes the node where a backend other than
// the reference takes it.
#include <algorithm>
#include <memory>

#include "backends/cpu/simd/simd_gemv.h"
#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_lstm_cell.h"
#include "backends/cpu/simd/simd_weight_cache.h"
#include "base/step_team.h"
#include "ir/precision_attrs.h"
#include "ops/nn/lstm_loop.h"

namespace tfhost::backends::simd {
namespace {

class LstmLoopKernel {
 public:
  explicit LstmLoopKernel(ops::KernelFn fallback)
      : fallback_(std::move(fallback)),
        cell_(PickLstmCellRow()),
        weights_(std::make_shared<WeightCache<gemv::PackedWeights>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    auto roles = ops::nn::ReadLstmLoopRoles(ctx);
    if (!roles.ok()) return fallback_(ctx);  // its error names the attr
    const Tensor& kernel = ctx.input(roles->kernel);
    if (kernel.dtype() != DType::kFloat || kernel.rank() != 2) return fallback_(ctx);
    const int64_t k_dim = kernel.dim(0), n_dim = kernel.dim(1);
    // Panels pad the columns to a multiple of 32: past twice the kernel's
    // size (fewer than 16 columns, under 4 units) the pack is not worth it.
    if (n_dim > 0 && gemv::NumPanels(n_dim) * gemv::kPanel > 2 * n_dim) return fallback_(ctx);
    std::shared_ptr<const gemv::PackedWeights> packed;
    if (k_dim > 0 && n_dim > 0) {
      packed = weights_->Get(kernel, nullptr, {k_dim, n_dim},
                             [&] { return gemv::PackPanels(kernel, k_dim, n_dim, /*transposed=*/false); });
    }
    ThreadPool* pool = ctx.intra_op();
    const LstmCellRowFn cell = cell_;
    bool backwards = false;
    std::unique_ptr<StepTeam> team;  // made on the first step worth one
    return ops::nn::RunLstmLoop(ctx, [&](const ops::nn::LstmStepArgs& a) {
      const int64_t width = 4 * a.units;
      const int64_t panels = gemv::NumPanels(width);
      if (team == nullptr && packed != nullptr && pool != nullptr && pool->num_threads() > 0) {
        // A member's share is worth having from about 2^17 multiply-adds.
        const int64_t min_panels = std::max<int64_t>(1, (int64_t{1} << 17) / (a.h_rows * a.k * gemv::kPanel));
        const int64_t members = std::min<int64_t>(pool->num_threads() + 1, panels / min_panels);
        if (members > 1) team = std::make_unique<StepTeam>(pool, static_cast<int>(members));
      }
      const int64_t members = team != nullptr ? team->chunks() : 1;
      const int64_t y_stride = a.h_rows == 1 ? 0 : width;
      const int64_t groups = a.units / gemv::kPanel;  // 32-unit groups, one panel of each gate
      if (team != nullptr && a.units % gemv::kPanel == 0 && groups >= members) {
        // Each member takes whole groups of units: their four gates'
        // panels, then those units' cells for every row, so a step needs
        // one team sync instead of two and each member's gate sums are still
        // in its cache when its cells read them.
        const bool reverse = backwards;
        team->Run([&](int m) {
          const int64_t g0 = groups * m / members, g1 = groups * (m + 1) / members;
          for (int k = 0; k < 4; ++k) {
            const int64_t gate = reverse ? 3 - k : k;
            const int64_t p0 = gate * groups + g0, p1 = gate * groups + g1;
            if (!reverse) {
              gemv::RunPanels(a.h, a.h_rows, *packed, a.y, a.k, width, p0, p1);
            } else {
              for (int64_t p = p1 - 1; p >= p0; --p) gemv::RunPanels(a.h, a.h_rows, *packed, a.y, a.k, width, p, p + 1);
            }
          }
          const int64_t u0 = g0 * gemv::kPanel, n = (g1 - g0) * gemv::kPanel;
          for (int64_t r = 0; r < a.rows; ++r) {
            cell(LstmCellRow{a.x + r * a.x_stride + u0, a.y + r * y_stride + u0, a.bias + u0, a.c + r * a.c_stride + u0,
                             a.h_out + r * a.units + u0, a.c_out + r * a.units + u0, n, a.units});
          }
        });
        backwards = !backwards;
        return;
      }
      auto product = [&](int m) {
        const int64_t p0 = panels * m / members, p1 = panels * (m + 1) / members;
        if (!backwards) {
          gemv::RunPanels(a.h, a.h_rows, *packed, a.y, a.k, width, p0, p1);
          return;
        }
        for (int64_t p = p1 - 1; p >= p0; --p) gemv::RunPanels(a.h, a.h_rows, *packed, a.y, a.k, width, p, p + 1);
      };
      if (packed == nullptr) {
        std::fill(a.y, a.y + a.h_rows * width, 0.0f);  // k = 0: the empty sum
      } else if (team != nullptr) {
        team->Run(product);
      } else {
        product(0);
      }
      backwards = !backwards;
      auto cells = [&](int m) {
        for (int64_t r = a.rows * m / members; r < a.rows * (m + 1) / members; ++r) {
          cell(LstmCellRow{a.x + r * a.x_stride, a.y + r * y_stride, a.bias, a.c + r * a.c_stride,
                           a.h_out + r * a.units, a.c_out + r * a.units, a.units});
        }
      };
      // Rows of a few thousand floats each: worth sharing from a few per member.
      if (team != nullptr && a.rows >= 4 * members) {
        team->Run(cells);
      } else {
        for (int m = 0; m < members; ++m) cells(m);
      }
    });
  }

 private:
  ops::KernelFn fallback_;
  LstmCellRowFn cell_;
  std::shared_ptr<WeightCache<gemv::PackedWeights>> weights_;
};

}  // namespace

void RegisterLstmLoopKernels(KernelTable& table) {
  table.Add(ops::nn::kLstmLoopOp, [](const ir::Node& node, const ops::KernelFn& fallback) -> ops::KernelFn {
    if (!gemv::PanelKernelsAvailable()) return {};
    auto precision = ir::GetAttrOr<std::string>(node, ir::kPrecisionAttr, "");
    if (!precision.ok() || !precision->empty()) return {};
    return LstmLoopKernel(fallback);
  });
}

}  // namespace tfhost::backends::simd
