// Transpose for any fixed-size element type (1, 2, 4 or 8 bytes). The
// permutation is first simplified: size-1 dims are dropped and input dims that
// stay adjacent in the output are merged, so NHWC->NCHW becomes a batch of
// 2-D transposes [N, HW, C] -> [N, C, HW] and NCHW->NHWC the reverse. Then:
//   identity            -> the output shares the input's buffer (a reshape);
//   [B, R, C]->[B, C, R] -> cache-blocked tiles, blocks split over the pool;
//   anything else       -> an odometer over the output that copies
//                          contiguous runs with memcpy, or gathers with a
//                          stride, outer indices split over the pool.
// Bad perms and other dtypes run the reference kernel.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_math.h"
#include "backends/cpu/simd/simd_util.h"

namespace tfhost::backends::simd {
namespace {

// Tile edge of the blocked 2-D transpose: 32x32 of 4-byte elements is 4 KiB
// read and written, well inside L1.
constexpr int64_t kTile = 32;

// The simplified problem: input dims and, for each output dim, the input
// dim it comes from.
struct Simplified {
  std::vector<int64_t> dims;
  std::vector<int> perm;
};

Simplified Simplify(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& perm) {
  const int rank = static_cast<int>(in_dims.size());
  std::vector<int> renumber(rank, -1);
  int kept = 0;
  for (int d = 0; d < rank; ++d) {
    if (in_dims[d] != 1) renumber[d] = kept++;
  }
  std::vector<int64_t> kept_dims;
  for (int d = 0; d < rank; ++d) {
    if (in_dims[d] != 1) kept_dims.push_back(in_dims[d]);
  }
  std::vector<int> p;
  for (int64_t src : perm) {
    if (renumber[src] >= 0) p.push_back(renumber[src]);
  }
  // Groups of consecutive input dims, in output order.
  std::vector<std::pair<int, int>> groups;  // [first, last] input dims
  for (int src : p) {
    if (!groups.empty() && groups.back().second + 1 == src) {
      groups.back().second = src;
    } else {
      groups.push_back({src, src});
    }
  }
  std::vector<int> order(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) order[g] = static_cast<int>(g);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return groups[a].first < groups[b].first; });
  Simplified s;
  s.dims.resize(groups.size());
  s.perm.resize(groups.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& g = groups[order[k]];
    int64_t size = 1;
    for (int d = g.first; d <= g.second; ++d) size *= kept_dims[d];
    s.dims[k] = size;
    s.perm[order[k]] = static_cast<int>(k);
  }
  return s;
}

// dst[c][r] = src[r][c] for r in [r0, r1), c in [c0, c1): the scalar tile.
template <typename T>
inline void ScalarTile(const T* src, T* dst, int64_t rows, int64_t cols, int64_t r0, int64_t r1, int64_t c0,
                       int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) {
    T* d = dst + c * rows;
    for (int64_t r = r0; r < r1; ++r) d[r] = src[r * cols + c];
  }
}

// An 8x8 block of 4-byte elements transposed in registers: unpack pairs,
// then quads, then swap 128-bit halves (shuffles move bits, so any 4-byte
// type goes through float vectors unchanged).
TFHOST_SIMD_INLINE void Transpose8x8(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride) {
  // __builtin_shufflevector: GCC (12+) and clang both have it.
  using F = VF<8>;
  F r[8];
  for (int k = 0; k < 8; ++k) std::memcpy(&r[k], src + k * src_stride, sizeof(F));
  F t[8], u[8];
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = __builtin_shufflevector(r[2 * k], r[2 * k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[2 * k + 1] = __builtin_shufflevector(r[2 * k], r[2 * k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int h = 0; h < 2; ++h) {
    F* tt = t + 4 * h;
    F* uu = u + 4 * h;
    uu[0] = __builtin_shufflevector(tt[0], tt[2], 0, 1, 8, 9, 4, 5, 12, 13);
    uu[1] = __builtin_shufflevector(tt[0], tt[2], 2, 3, 10, 11, 6, 7, 14, 15);
    uu[2] = __builtin_shufflevector(tt[1], tt[3], 0, 1, 8, 9, 4, 5, 12, 13);
    uu[3] = __builtin_shufflevector(tt[1], tt[3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int k = 0; k < 4; ++k) {
    const F lo = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    const F hi = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    std::memcpy(dst + k * dst_stride, &lo, sizeof(F));
    std::memcpy(dst + (k + 4) * dst_stride, &hi, sizeof(F));
  }
}

// The tile [r0, r1) x [c0, c1) of a 4-byte transpose: 8x8 register blocks,
// scalar edges.
TFHOST_SIMD_INLINE void VectorTile32(const uint32_t* src, uint32_t* dst, int64_t rows, int64_t cols, int64_t r0,
                                     int64_t r1, int64_t c0, int64_t c1) {
  int64_t r = r0;
  for (; r + 8 <= r1; r += 8) {
    int64_t c = c0;
    for (; c + 8 <= c1; c += 8) Transpose8x8(src + r * cols + c, cols, dst + c * rows + r, rows);
    ScalarTile(src, dst, rows, cols, r, r + 8, c, c1);
  }
  ScalarTile(src, dst, rows, cols, r, r1, c0, c1);
}

using Tile32Fn = void (*)(const uint32_t*, uint32_t*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
TFHOST_SIMD_TARGET_AVX512 void Tile32Avx512(const uint32_t* s, uint32_t* d, int64_t rows, int64_t cols, int64_t r0,
                                            int64_t r1, int64_t c0, int64_t c1) {
  VectorTile32(s, d, rows, cols, r0, r1, c0, c1);
}
TFHOST_SIMD_TARGET_AVX2 void Tile32Avx2(const uint32_t* s, uint32_t* d, int64_t rows, int64_t cols, int64_t r0,
                                        int64_t r1, int64_t c0, int64_t c1) {
  VectorTile32(s, d, rows, cols, r0, r1, c0, c1);
}
void Tile32Generic(const uint32_t* s, uint32_t* d, int64_t rows, int64_t cols, int64_t r0, int64_t r1, int64_t c0,
                   int64_t c1) {
  ScalarTile(s, d, rows, cols, r0, r1, c0, c1);
}

// out[b][c][r] = in[b][r][c] for b in [0, batch), over tasks (b, c block).
// `tile32` (4-byte elements only) transposes one tile; null means scalar.
template <typename T>
void BlockedTranspose(const T* in, T* out, int64_t batch, int64_t rows, int64_t cols, ThreadPool* pool,
                      Tile32Fn tile32) {
  const int64_t col_blocks = (cols + kTile - 1) / kTile;
  const int64_t tasks = batch * col_blocks;
  const int64_t min_tasks = std::max<int64_t>(1, (kMinChunkCheap / kTile) / std::max<int64_t>(1, rows));
  ParallelRange(pool, tasks, min_tasks, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / col_blocks;
      const int64_t c0 = (t % col_blocks) * kTile;
      const int64_t c1 = std::min(cols, c0 + kTile);
      const T* src = in + b * rows * cols;
      T* dst = out + b * rows * cols;
      for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
        const int64_t r1 = std::min(rows, r0 + kTile);
        if constexpr (sizeof(T) == 4) {
          if (tile32 != nullptr) {
            tile32(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst), rows, cols, r0, r1, c0,
                   c1);
            continue;
          }
        }
        ScalarTile(src, dst, rows, cols, r0, r1, c0, c1);
      }
    }
  });
}

// Any simplified permutation: walks the output's outer indices; the innermost
// output dim is a memcpy when it is the input's innermost, else a gather.
template <typename T>
void GeneralTranspose(const T* in, T* out, const Simplified& s, ThreadPool* pool) {
  const int rank = static_cast<int>(s.dims.size());
  std::vector<int64_t> in_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * s.dims[d + 1];
  std::vector<int64_t> out_dims(rank), src_stride(rank);
  for (int k = 0; k < rank; ++k) {
    out_dims[k] = s.dims[s.perm[k]];
    src_stride[k] = in_strides[s.perm[k]];
  }
  const int64_t inner = out_dims[rank - 1];
  const int64_t inner_stride = src_stride[rank - 1];
  int64_t outer = 1;
  for (int k = 0; k + 1 < rank; ++k) outer *= out_dims[k];
  const int64_t min_rows = std::max<int64_t>(1, kMinChunkCheap / std::max<int64_t>(1, inner));
  ParallelRange(pool, outer, min_rows, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(rank, 0);
    int64_t rest = begin, offset = 0;
    for (int k = rank - 2; k >= 0; --k) {
      idx[k] = rest % out_dims[k];
      rest /= out_dims[k];
      offset += idx[k] * src_stride[k];
    }
    for (int64_t o = begin; o < end; ++o) {
      T* dst = out + o * inner;
      const T* src = in + offset;
      if (inner_stride == 1) {
        std::memcpy(dst, src, static_cast<size_t>(inner) * sizeof(T));
      } else {
        for (int64_t j = 0; j < inner; ++j) dst[j] = src[j * inner_stride];
      }
      for (int k = rank - 2; k >= 0; --k) {
        offset += src_stride[k];
        if (++idx[k] < out_dims[k]) break;
        offset -= idx[k] * src_stride[k];
        idx[k] = 0;
      }
    }
  });
}

template <typename T>
void RunTranspose(const Tensor& input, Tensor& out, const Simplified& s, ThreadPool* pool, Tile32Fn tile32) {
  const T* in = static_cast<const T*>(input.raw_data());
  T* o = static_cast<T*>(out.raw_data());
  const size_t rank = s.dims.size();
  if (rank == 2 && s.perm[0] == 1) {
    BlockedTranspose(in, o, 1, s.dims[0], s.dims[1], pool, tile32);
  } else if (rank == 3 && s.perm[0] == 0 && s.perm[1] == 2 && s.perm[2] == 1) {
    BlockedTranspose(in, o, s.dims[0], s.dims[1], s.dims[2], pool, tile32);
  } else {
    GeneralTranspose(in, o, s, pool);
  }
}

// The permutation in input 1, or false when it is not a valid one for `rank`.
bool ReadPerm(const Tensor& t, int rank, std::vector<int64_t>* perm) {
  if (t.rank() != 1 || (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64)) return false;
  auto values = t.ToInt64Vector();
  if (!values.ok() || static_cast<int>(values->size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t p : *values) {
    if (p < 0 || p >= rank || seen[p]) return false;
    seen[p] = true;
  }
  *perm = *values;
  return true;
}

bool MovableBySize(DType dtype) {
  if (IsStringLike(dtype) || dtype == DType::kVariant || dtype == DType::kResource) return false;
  const size_t size = DTypeSize(dtype);
  return size == 1 || size == 2 || size == 4 || size == 8;
}

Status TransposeKernel(ops::KernelContext& ctx, const ops::KernelFn& reference, Tile32Fn tile32) {
  if (ctx.num_inputs() != 2) return reference(ctx);
  const Tensor& input = ctx.input(0);
  std::vector<int64_t> perm;
  if (!MovableBySize(input.dtype()) || !ReadPerm(ctx.input(1), input.rank(), &perm)) return reference(ctx);
  std::vector<int64_t> out_dims(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out_dims[k] = input.dim(static_cast<int>(perm[k]));
  const Shape out_shape(out_dims);
  const Simplified s = Simplify(input.shape().dims(), perm);
  bool identity = true;
  for (size_t k = 0; k < s.perm.size(); ++k) identity = identity && s.perm[k] == static_cast<int>(k);
  if (identity || input.NumElements() == 0) {
    if (input.NumElements() == 0) {
      ctx.set_output(0, Tensor(input.dtype(), out_shape));
      return OkStatus();
    }
    TFHOST_ASSIGN_OR_RETURN(Tensor out, input.Reshaped(out_shape));
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  Tensor out = Tensor::Uninitialized(input.dtype(), out_shape);  // a permutation: every element written
  switch (DTypeSize(input.dtype())) {
    case 1: RunTranspose<uint8_t>(input, out, s, ctx.intra_op(), tile32); break;
    case 2: RunTranspose<uint16_t>(input, out, s, ctx.intra_op(), tile32); break;
    case 4: RunTranspose<uint32_t>(input, out, s, ctx.intra_op(), tile32); break;
    default: RunTranspose<uint64_t>(input, out, s, ctx.intra_op(), tile32); break;
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterTransposeKernels(KernelTable& table) {
  table.Add("Transpose", [](const ir::Node& node, const ops::KernelFn& reference) -> ops::KernelFn {
    const Tile32Fn tile32 = IsaTable<Tile32Fn>{&Tile32Avx512, &Tile32Avx2, &Tile32Generic}.Pick();
    return [reference, tile32](ops::KernelContext& ctx) { return TransposeKernel(ctx, reference, tile32); };
  });
}

}  // namespace tfhost::backends::simd
