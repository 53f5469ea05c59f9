// Pad, PadV2 and MirrorPad (REFLECT / SYMMETRIC) for any element of 1, 2, 4
// or 8 bytes, writing every output element once, row by row over the
// intra-op pool. The reference fills the whole output and then copies the
// interior over it (constant padding), or gathers element by element through
// per-dim index maps (mirror padding); here each output row is a run of
// constant fills (vector stores) and memcpy'd runs of the input, and mirror
// padding copies whole blocks.
//
// Rows: the trailing dims without padding fold into a block (the channels of
// an NHWC image padded in H and W), and the last padded dim times the block is
// one output row. A row is either all constant (outside the input in an outer
// dim), or [before fills | the input row | after fills]; mirror rows take
// each of their blocks from the mirrored position. Inputs the reference would
// reject (bad paddings, a constant that is not a scalar of T, mirror padding
// too wide, strings) run the reference kernel, so its errors stay the only ones.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_util.h"

namespace tfhost::backends::simd {
namespace {

constexpr int64_t kMinChunkBytes = 128 * 1024;
constexpr int64_t kMaxPadding = int64_t{1} << 40;  // the reference's own limit
constexpr double kMaxElements = static_cast<double>(int64_t{1} << 40);

enum class Mode { kConstant, kReflect, kSymmetric };

// The (before, after) pairs of a [rank, 2] integer tensor, all in
// [0, kMaxPadding]; false otherwise.
bool ReadPaddings(const Tensor& t, int rank, std::vector<int64_t>* pads) {
  if (t.rank() != 2 || t.dim(0) != rank || t.dim(1) != 2) return false;
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) return false;
  auto v = t.ToInt64Vector();
  if (!v.ok()) return false;
  for (int64_t p : *v) {
    if (p < 0 || p > kMaxPadding) return false;
  }
  *pads = std::move(*v);
  return true;
}

// Fills `count` elements of `esize` bytes at dst with the element at `value`.
template <typename U>
void FillT(char* dst, const char* value, int64_t count) {
  U v;
  std::memcpy(&v, value, sizeof(U));
  U* d = reinterpret_cast<U*>(dst);
  std::fill_n(d, count, v);  // vectorized stores
}
void Fill(char* dst, const char* value, int64_t count, size_t esize) {
  switch (esize) {
    case 1: FillT<uint8_t>(dst, value, count); break;
    case 2: FillT<uint16_t>(dst, value, count); break;
    case 4: FillT<uint32_t>(dst, value, count); break;
    default: FillT<uint64_t>(dst, value, count); break;
  }
}

// Input index of output index o along a dim of input size n with `before`
// padding (mirror modes; the range was checked).
int64_t MirrorIndex(int64_t o, int64_t before, int64_t n, Mode mode) {
  int64_t i = o - before;
  if (i < 0) i = mode == Mode::kReflect ? -i : -i - 1;
  if (i >= n) i = mode == Mode::kReflect ? 2 * (n - 1) - i : 2 * n - 1 - i;
  return i;
}

Status PadKernel(ops::KernelContext& ctx, Mode mode, bool has_constant, const ops::KernelFn& reference) {
  if (ctx.num_inputs() < (has_constant ? 3 : 2)) return reference(ctx);
  const Tensor& input = ctx.input(0);
  const DType dtype = input.dtype();
  const size_t esize = DTypeSize(dtype);
  if (IsStringLike(dtype) || dtype == DType::kVariant || !(esize == 1 || esize == 2 || esize == 4 || esize == 8)) {
    return reference(ctx);
  }
  const int rank = input.rank();
  std::vector<int64_t> pads;
  if (rank == 0 || !ReadPaddings(ctx.input(1), rank, &pads)) return reference(ctx);
  std::vector<char> constant(esize, 0);
  if (has_constant) {
    const Tensor& c = ctx.input(2);
    if (c.dtype() != dtype || c.rank() != 0) return reference(ctx);
    std::memcpy(constant.data(), c.raw_data(), esize);
  }
  if (mode != Mode::kConstant) {
    for (int d = 0; d < rank; ++d) {
      const int64_t limit = mode == Mode::kReflect ? input.dim(d) - 1 : input.dim(d);
      if (pads[2 * d] > limit || pads[2 * d + 1] > limit) return reference(ctx);
    }
  }
  std::vector<int64_t> out_dims(rank);
  double elements = 1;
  for (int d = 0; d < rank; ++d) {
    out_dims[d] = pads[2 * d] + input.dim(d) + pads[2 * d + 1];
    elements *= static_cast<double>(out_dims[d]);
  }
  if (elements > kMaxElements) return reference(ctx);
  Tensor out(dtype, Shape(out_dims));
  if (out.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  // k: the last padded dim (0 when none is); block: elements after it.
  int k = rank - 1;
  while (k > 0 && pads[2 * k] == 0 && pads[2 * k + 1] == 0) --k;
  int64_t block = 1;
  for (int d = k + 1; d < rank; ++d) block *= input.dim(d);
  const int64_t in_k = input.dim(k), before_k = pads[2 * k], after_k = pads[2 * k + 1];
  const int64_t out_row = out_dims[k] * block;  // elements
  const int64_t in_row = in_k * block;
  int64_t rows = 1;
  for (int d = 0; d < k; ++d) rows *= out_dims[d];
  // Input row strides (in rows of in_row elements) of the outer dims.
  std::vector<int64_t> in_stride(k, 1);
  for (int d = k - 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * input.dim(d + 1);
  const char* src = static_cast<const char*>(input.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  const int64_t eb = static_cast<int64_t>(esize);
  const int64_t min_rows = std::max<int64_t>(1, kMinChunkBytes / std::max<int64_t>(1, out_row * eb));

  ParallelRange(ctx.intra_op(), rows, min_rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      char* o = dst + r * out_row * eb;
      // The input row this output row reads, or -1 (constant row).
      int64_t in_r = 0, rest = r;
      for (int d = k - 1; d >= 0; --d) {
        const int64_t od = rest % out_dims[d];
        rest /= out_dims[d];
        int64_t id = od - pads[2 * d];
        if (mode == Mode::kConstant) {
          if (id < 0 || id >= input.dim(d)) {
            in_r = -1;
            break;
          }
        } else {
          id = MirrorIndex(od, pads[2 * d], input.dim(d), mode);
        }
        in_r += id * in_stride[d];
      }
      if (in_r < 0) {
        Fill(o, constant.data(), out_row, esize);
        continue;
      }
      const char* s = src + in_r * in_row * eb;
      if (mode == Mode::kConstant) {
        Fill(o, constant.data(), before_k * block, esize);
        std::memcpy(o + before_k * block * eb, s, static_cast<size_t>(in_row * eb));
        Fill(o + (before_k + in_k) * block * eb, constant.data(), after_k * block, esize);
      } else {
        const size_t block_bytes = static_cast<size_t>(block * eb);
        for (int64_t j = 0; j < before_k; ++j) {
          std::memcpy(o + j * block_bytes, s + MirrorIndex(j, before_k, in_k, mode) * block_bytes, block_bytes);
        }
        std::memcpy(o + before_k * block_bytes, s, static_cast<size_t>(in_row * eb));
        for (int64_t j = before_k + in_k; j < before_k + in_k + after_k; ++j) {
          std::memcpy(o + j * block_bytes, s + MirrorIndex(j, before_k, in_k, mode) * block_bytes, block_bytes);
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterPadKernels(KernelTable& table) {
  table.Add("Pad", [](const ir::Node&, const ops::KernelFn& reference) -> ops::KernelFn {
    return [reference](ops::KernelContext& ctx) { return PadKernel(ctx, Mode::kConstant, false, reference); };
  });
  table.Add("PadV2", [](const ir::Node&, const ops::KernelFn& reference) -> ops::KernelFn {
    return [reference](ops::KernelContext& ctx) { return PadKernel(ctx, Mode::kConstant, true, reference); };
  });
  table.Add("MirrorPad", [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    auto mode = ir::GetAttr<std::string>(node, "mode");
    if (!mode.ok() || (*mode != "REFLECT" && *mode != "SYMMETRIC")) return {};
    const Mode m = *mode == "REFLECT" ? Mode::kReflect : Mode::kSymmetric;
    return [reference, m](ops::KernelContext& ctx) { return PadKernel(ctx, m, false, reference); };
  });
}

}  // namespace tfhost::backends::simd
