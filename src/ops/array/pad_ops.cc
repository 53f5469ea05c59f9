// Padding: Pad (zeros), PadV2 (a scalar constant) and MirrorPad (REFLECT /
// SYMMETRIC). Constant padding fills the output and copies the input into its
// interior with one strided copy; mirror padding maps every output index to
// an input index per dim.
#include <type_traits>

#include "ops/array/array_util.h"
#include "ops/array/strided_copy.h"

namespace tfhost::ops::array {

namespace {

// Reads input `i` as a [rank, 2] matrix of (before, after) pairs.
StatusOr<std::vector<int64_t>> ReadPaddings(const KernelContext& ctx, int i, int rank,
                                            const std::string& what) {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 2 || t.dim(0) != rank || t.dim(1) != 2) {
    return ctx.Error(what + " must have shape [" + std::to_string(rank) + ", 2] for an input of "
                     "rank " + std::to_string(rank) + ", got " + t.shape().ToString());
  }
  auto values = t.ToInt64Vector();
  if (!values.ok()) {
    return ctx.Error(what + " must be an integer tensor, got " + DTypeShortName(t.dtype()));
  }
  for (int64_t v : *values) {
    if (v < 0) return ctx.Error(what + " " + JoinInts(*values) + " must be non-negative");
    if (v > (int64_t{1} << 40)) return ctx.Error(what + " " + JoinInts(*values) + " is too large");
  }
  return values;
}

StatusOr<Shape> PaddedShape(const KernelContext& ctx, const Shape& in,
                            const std::vector<int64_t>& pads) {
  std::vector<int64_t> dims(in.rank());
  for (int d = 0; d < in.rank(); ++d) dims[d] = pads[2 * d] + in.dim(d) + pads[2 * d + 1];
  return OutputShape(ctx, dims, "padded output");
}

// Pad / PadV2: `constant` is null for zeros.
Status ConstantPad(KernelContext& ctx, const Tensor* constant) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                          ReadPaddings(ctx, 1, input.rank(), "paddings"));
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, PaddedShape(ctx, input.shape(), pads));
  Tensor out(input.dtype(), out_shape);
  if (constant != nullptr) {
    if (constant->dtype() != input.dtype() || constant->NumElements() != 1 ||
        constant->rank() != 0) {
      return ctx.Error("constant_values must be a " + DTypeShortName(input.dtype()) +
                       " scalar, got " + DTypeShortName(constant->dtype()) +
                       constant->shape().ToString());
    }
    FillWithScalar(out, *constant);
  }
  StridedLayout dst = DenseLayout(out_shape);
  for (int d = 0; d < input.rank(); ++d) dst.offset += pads[2 * d] * dst.strides[d];
  CopyStrided(input.shape().dims(), input, DenseLayout(input.shape()), out, dst, ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status PadKernel(KernelContext& ctx) { return ConstantPad(ctx, nullptr); }
Status PadV2Kernel(KernelContext& ctx) { return ConstantPad(ctx, &ctx.input(2)); }

// Copies out[o] = in[sum_d map[d][o_d] * in_stride[d]] element by element.
template <typename T>
void GatherByIndexMaps(const Tensor& input, Tensor& out,
                       const std::vector<std::vector<int64_t>>& maps) {
  const int rank = out.rank();
  const int64_t n = out.NumElements();
  if (n == 0) return;
  const T* src = static_cast<const T*>(input.raw_data());
  T* dst = static_cast<T*>(out.raw_data());
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  std::vector<int64_t> strides = RowMajorStrides(input.shape());
  std::vector<int64_t> coord(rank, 0);
  const int64_t inner = out.dim(rank - 1);
  const std::vector<int64_t>& inner_map = maps[rank - 1];
  for (int64_t o = 0; o < n; o += inner) {
    int64_t base = 0;
    for (int d = 0; d + 1 < rank; ++d) base += maps[d][coord[d]] * strides[d];
    for (int64_t j = 0; j < inner; ++j) dst[o + j] = src[base + inner_map[j]];
    for (int d = rank - 2; d >= 0; --d) {
      if (++coord[d] < out.dim(d)) break;
      coord[d] = 0;
    }
  }
}

Status MirrorPadKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::string mode, ctx.Attr<std::string>("mode"));
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return ctx.Error("mode must be REFLECT or SYMMETRIC, got '" + mode + "'");
  }
  const bool reflect = mode == "REFLECT";
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                          ReadPaddings(ctx, 1, input.rank(), "paddings"));
  // REFLECT leaves out the edge element, so it can mirror one fewer.
  for (int d = 0; d < input.rank(); ++d) {
    const int64_t limit = reflect ? input.dim(d) - 1 : input.dim(d);
    if (pads[2 * d] > limit || pads[2 * d + 1] > limit) {
      return ctx.Error("paddings " + JoinInts(pads) + " for dim " + std::to_string(d) +
                       " of input shape " + input.shape().ToString() + " must be at most " +
                       std::to_string(limit) + " in " + mode + " mode");
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, PaddedShape(ctx, input.shape(), pads));
  std::vector<std::vector<int64_t>> maps(input.rank());
  for (int d = 0; d < input.rank(); ++d) {
    const int64_t n = input.dim(d);
    for (int64_t o = 0; o < out_shape.dim(d); ++o) {
      int64_t i = o - pads[2 * d];
      if (i < 0) i = reflect ? -i : -i - 1;
      if (i >= n) i = reflect ? 2 * (n - 1) - i : 2 * n - 1 - i;
      maps[d].push_back(i);
    }
  }
  Tensor out(input.dtype(), out_shape);
  VisitMovableType(input.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    GatherByIndexMaps<T>(input, out, maps);
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterPadOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Pad")
                        .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
                        .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32"),
                    PadKernel);
  registry.Register(ir::OpDefBuilder("PadV2")
                        .Input("input: T").Input("paddings: Tpaddings")
                        .Input("constant_values: T").Output("output: T")
                        .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32"),
                    PadV2Kernel);
  registry.Register(ir::OpDefBuilder("MirrorPad")
                        .Input("input: T").Input("paddings: Tpaddings").Output("output: T")
                        .Attr("T: type").Attr("Tpaddings: {int32, int64} = DT_INT32")
                        .Attr("mode: {'REFLECT', 'SYMMETRIC'}"),
                    MirrorPadKernel);
}

}  // namespace tfhost::ops::array
