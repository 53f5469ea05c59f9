// Copy-like ops done as blocked memcpy over the intra-op pool: ConcatV2 /
// Concat along any axis, any fixed-size element type. Inputs the reference
// would reject (mismatched shapes or dtypes, a bad axis), strings and huge
// outputs run the reference kernel. (Pad, PadV2 and MirrorPad: simd_pad.cc.)
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/simd/simd_kernels.h"
#include "backends/cpu/simd/simd_util.h"

namespace tfhost::backends::simd {
namespace {

// Bytes per parallel task: large enough that a task switch is noise.
constexpr int64_t kMinChunkBytes = 256 * 1024;
// Outputs larger than this (in elements) are left to the reference, which
// reports them as errors or handles them as it sees fit.
constexpr double kMaxElements = static_cast<double>(int64_t{1} << 40);

bool IsPlainData(DType dtype) {
  return !IsStringLike(dtype) && dtype != DType::kVariant && DTypeSize(dtype) > 0;
}

// memcpy for long runs; short runs (a row of a few channels) as fixed-size
// copies the compiler inlines as vector moves, instead of a libc call per row.
inline void CopyRun(char* dst, const char* src, int64_t bytes) {
  if (bytes > 1024) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  int64_t i = 0;
  for (; i + 32 <= bytes; i += 32) std::memcpy(dst + i, src + i, 32);
  for (; i + 4 <= bytes; i += 4) std::memcpy(dst + i, src + i, 4);
  for (; i < bytes; ++i) dst[i] = src[i];
}

bool ReadAxisScalar(const Tensor& t, int64_t* axis) {
  if ((t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) || t.NumElements() != 1) return false;
  auto v = t.ToInt64Vector();
  if (!v.ok()) return false;
  *axis = (*v)[0];
  return true;
}

// Concatenates inputs [first, first + count) along the axis in input `axis_input`.
Status ConcatKernel(ops::KernelContext& ctx, int first, int count, int axis_input, const ops::KernelFn& reference) {
  if (count < 1 || first + count > ctx.num_inputs()) return reference(ctx);
  const Tensor& ref = ctx.input(first);
  int64_t axis = 0;
  if (!IsPlainData(ref.dtype()) || ref.rank() == 0 || !ReadAxisScalar(ctx.input(axis_input), &axis)) {
    return reference(ctx);
  }
  const int rank = ref.rank();
  if (axis < -rank || axis >= rank) return reference(ctx);
  if (axis < 0) axis += rank;
  int64_t axis_total = 0;
  for (int k = 0; k < count; ++k) {
    const Tensor& t = ctx.input(first + k);
    if (t.dtype() != ref.dtype() || t.rank() != rank) return reference(ctx);
    for (int d = 0; d < rank; ++d) {
      if (d != axis && t.dim(d) != ref.dim(d)) return reference(ctx);
    }
    axis_total += t.dim(static_cast<int>(axis));
  }
  std::vector<int64_t> dims = ref.shape().dims();
  dims[axis] = axis_total;
  double elements = 1;
  for (int64_t d : dims) elements *= static_cast<double>(d);
  if (elements > kMaxElements) return reference(ctx);
  Tensor out = Tensor::Uninitialized(ref.dtype(), Shape(dims));  // the inputs' rows tile every output row
  const size_t esize = DTypeSize(ref.dtype());
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  // Row bytes of each input and their offsets inside an output row.
  std::vector<int64_t> row(count), column(count + 1, 0);
  std::vector<const char*> src(count);
  for (int k = 0; k < count; ++k) {
    const Tensor& t = ctx.input(first + k);
    int64_t elems = 1;
    for (int d = static_cast<int>(axis); d < rank; ++d) elems *= t.dim(d);
    row[k] = elems * static_cast<int64_t>(esize);
    column[k + 1] = column[k] + row[k];
    src[k] = static_cast<const char*>(t.raw_data());
  }
  const int64_t out_row = column[count];
  const int64_t total = outer * out_row;
  char* dst = static_cast<char*>(out.raw_data());
  // Splits the output's bytes into ranges; each range copies the pieces of
  // the input rows that land in it.
  ParallelRange(ctx.intra_op(), total, kMinChunkBytes, [&](int64_t begin, int64_t end) {
    int64_t pos = begin;
    while (pos < end) {
      const int64_t o = pos / out_row;
      const int64_t in_row = pos - o * out_row;
      const int k = static_cast<int>(std::upper_bound(column.begin(), column.end(), in_row) - column.begin()) - 1;
      const int64_t within = in_row - column[k];
      const int64_t len = std::min(row[k] - within, end - pos);
      CopyRun(dst + pos, src[k] + o * row[k] + within, len);
      pos += len;
    }
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterConcatKernels(KernelTable& table) {
  table.Add("ConcatV2", [](const ir::Node&, const ops::KernelFn& reference) -> ops::KernelFn {
    return [reference](ops::KernelContext& ctx) {
      return ConcatKernel(ctx, 0, ctx.num_inputs() - 1, ctx.num_inputs() - 1, reference);
    };
  });
  table.Add("Concat", [](const ir::Node&, const ops::KernelFn& reference) -> ops::KernelFn {
    return [reference](ops::KernelContext& ctx) { return ConcatKernel(ctx, 1, ctx.num_inputs() - 1, 0, reference); };
  });
}

}  // namespace tfhost::backends::simd
