// StridedSlice: spec resolution (the reusable part) and the kernel, which is
// one strided copy over the resolved ranges.
#include "ops/array/strided_slice.h"

#include <algorithm>
#include <string>

#include "ops/array/array_util.h"
#include "ops/array/strided_copy.h"

namespace tfhost::ops::array {

namespace {

constexpr int kMaxSpecs = 32;
// Markers in the list that maps output dims to where their size comes from.
constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;

bool Bit(int64_t mask, int i) { return i < 63 && ((mask >> i) & 1) != 0; }

// The spec rewritten with exactly one entry per input dim (the ellipsis
// expanded, new axes set aside).
struct DenseSpec {
  std::vector<int64_t> begin, end, strides;
  std::vector<bool> begin_masked, end_masked, shrink;
  std::vector<int> output_sources;  // input dim, kNewAxis or kShrinkAxis
};

StatusOr<DenseSpec> BuildDenseSpec(int rank, const std::vector<int64_t>& begin,
                                   const std::vector<int64_t>& end,
                                   const std::vector<int64_t>& strides,
                                   const StridedSliceMasks& masks) {
  int m = static_cast<int>(begin.size());
  int64_t ellipsis = masks.ellipsis_mask & ((int64_t{1} << m) - 1);
  if ((ellipsis & (ellipsis - 1)) != 0) {
    return InvalidArgument("ellipsis_mask " + std::to_string(masks.ellipsis_mask) +
                           " has more than one bit set; at most one ellipsis is allowed");
  }
  int num_new_after_ellipsis = 0;
  bool seen_ellipsis = false;
  for (int i = 0; i < m; ++i) {
    if (seen_ellipsis && Bit(masks.new_axis_mask, i)) ++num_new_after_ellipsis;
    if (Bit(ellipsis, i)) seen_ellipsis = true;
  }
  // Without an explicit ellipsis, one is implied after the last spec.
  int sparse_dims = m;
  if (!seen_ellipsis) {
    ellipsis |= int64_t{1} << m;
    ++sparse_dims;
  }
  DenseSpec dense;
  dense.begin.assign(rank, 0);
  dense.end.assign(rank, 0);
  dense.strides.assign(rank, 1);
  dense.begin_masked.assign(rank, false);
  dense.end_masked.assign(rank, false);
  dense.shrink.assign(rank, false);
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis, i)) {
      int next = std::min(rank - (sparse_dims - i) + 1 + num_new_after_ellipsis, rank);
      for (; full < next; ++full) {
        dense.begin_masked[full] = dense.end_masked[full] = true;
        dense.output_sources.push_back(full);
      }
    } else if (Bit(masks.new_axis_mask, i)) {
      dense.output_sources.push_back(kNewAxis);
    } else {
      if (full >= rank) {
        return InvalidArgument("slice spec entry " + std::to_string(i) +
                               " refers to input dim " + std::to_string(full) +
                               ", but the input has only " + std::to_string(rank) + " dims");
      }
      dense.begin[full] = begin[i];
      dense.end[full] = end[i];
      dense.strides[full] = strides[i];
      dense.begin_masked[full] = Bit(masks.begin_mask, i);
      dense.end_masked[full] = Bit(masks.end_mask, i);
      if (Bit(masks.shrink_axis_mask, i)) {
        dense.shrink[full] = true;
        dense.output_sources.push_back(kShrinkAxis);
      } else {
        dense.output_sources.push_back(full);
      }
      ++full;
    }
  }
  return dense;
}

}  // namespace

StatusOr<ResolvedStridedSlice> ResolveStridedSlice(const Shape& input,
                                                   const std::vector<int64_t>& begin,
                                                   const std::vector<int64_t>& end,
                                                   const std::vector<int64_t>& strides,
                                                   const StridedSliceMasks& masks) {
  if (begin.size() != end.size() || begin.size() != strides.size()) {
    return InvalidArgument("begin, end and strides must have the same length, got " +
                           std::to_string(begin.size()) + ", " + std::to_string(end.size()) +
                           " and " + std::to_string(strides.size()));
  }
  if (begin.size() > kMaxSpecs) {
    return InvalidArgument("slice spec has " + std::to_string(begin.size()) +
                           " entries; at most " + std::to_string(kMaxSpecs) + " are supported");
  }
  const int rank = input.rank();
  TFHOST_ASSIGN_OR_RETURN(DenseSpec dense, BuildDenseSpec(rank, begin, end, strides, masks));
  ResolvedStridedSlice out;
  out.is_identity = true;
  for (int d = 0; d < rank; ++d) {
    const int64_t n = input.dim(d);
    const int64_t s = dense.strides[d];
    if (s == 0) return InvalidArgument("stride for input dim " + std::to_string(d) + " is 0");
    int64_t b, e;
    if (dense.shrink[d]) {
      if (s < 0) {
        return InvalidArgument("stride for shrunk input dim " + std::to_string(d) +
                               " must be positive, got " + std::to_string(s));
      }
      // Only begin matters: x[-1] arrives as begin=-1, end=0.
      b = dense.begin[d] < 0 ? dense.begin[d] + n : dense.begin[d];
      if (b < 0 || b >= n) {
        return InvalidArgument("index " + std::to_string(dense.begin[d]) +
                               " is out of bounds for input dim " + std::to_string(d) +
                               " of size " + std::to_string(n));
      }
      e = b + 1;
    } else {
      // Valid ranges: [0, n] going forward, [-1, n-1] going backward (-1
      // meaning "before element 0").
      const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? n : n - 1;
      auto canonical = [&](int64_t x, bool masked, bool is_end) {
        if (masked) return (s > 0) != is_end ? lo : hi;
        int64_t fwd = x < 0 ? x + n : x;
        return std::clamp(fwd, lo, hi);
      };
      b = canonical(dense.begin[d], dense.begin_masked[d], false);
      e = canonical(dense.end[d], dense.end_masked[d], true);
    }
    const int64_t length = e - b;
    int64_t size = 0;
    if (length != 0 && (length < 0) == (s < 0)) size = length / s + (length % s != 0 ? 1 : 0);
    out.begin.push_back(b);
    out.strides.push_back(s);
    out.sizes.push_back(size);
    if (b != 0 || s != 1 || size != n) out.is_identity = false;
  }
  for (int src : dense.output_sources) {
    if (src == kNewAxis) {
      out.output_dims.push_back(1);
    } else if (src != kShrinkAxis) {
      out.output_dims.push_back(out.sizes[src]);
    }
  }
  return out;
}

namespace {

Status StridedSliceKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  std::vector<int64_t> spec[3];
  const char* names[3] = {"begin", "end", "strides"};
  for (int k = 0; k < 3; ++k) {
    if (ctx.input(k + 1).rank() != 1) {
      return ctx.Error(std::string(names[k]) + " must be 1-D, got shape " +
                       ctx.input(k + 1).shape().ToString());
    }
    TFHOST_ASSIGN_OR_RETURN(spec[k], ReadIndexVector(ctx, k + 1, names[k]));
  }
  StridedSliceMasks masks;
  TFHOST_ASSIGN_OR_RETURN(masks.begin_mask, ctx.AttrOr<int64_t>("begin_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(masks.end_mask, ctx.AttrOr<int64_t>("end_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(masks.ellipsis_mask, ctx.AttrOr<int64_t>("ellipsis_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(masks.new_axis_mask, ctx.AttrOr<int64_t>("new_axis_mask", 0));
  TFHOST_ASSIGN_OR_RETURN(masks.shrink_axis_mask, ctx.AttrOr<int64_t>("shrink_axis_mask", 0));
  auto resolved = ResolveStridedSlice(input.shape(), spec[0], spec[1], spec[2], masks);
  if (!resolved.ok()) {
    return ctx.Error(resolved.status().message() + " (input shape " + input.shape().ToString() +
                     ", begin " + JoinInts(spec[0]) + ", end " + JoinInts(spec[1]) +
                     ", strides " + JoinInts(spec[2]) + ")");
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape,
                          OutputShape(ctx, resolved->output_dims, "strided slice output"));
  if (resolved->is_identity) {
    TFHOST_ASSIGN_OR_RETURN(Tensor out, input.Reshaped(out_shape));
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  StridedLayout src;
  for (int d = 0; d < input.rank(); ++d) {
    src.offset += resolved->begin[d] * in_strides[d];
    src.strides.push_back(resolved->strides[d] * in_strides[d]);
  }
  Tensor out(input.dtype(), out_shape);
  CopyStrided(resolved->sizes, input, src, out, DenseLayout(Shape(resolved->sizes)),
              ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterStridedSliceOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("StridedSlice")
                        .Input("input: T").Input("begin: Index").Input("end: Index")
                        .Input("strides: Index").Output("output: T")
                        .Attr("T: type").Attr("Index: {int16, int32, int64}")
                        .Attr("begin_mask: int = 0").Attr("end_mask: int = 0")
                        .Attr("ellipsis_mask: int = 0").Attr("new_axis_mask: int = 0")
                        .Attr("shrink_axis_mask: int = 0"),
                    StridedSliceKernel);
}

}  // namespace tfhost::ops::array
