// Joining and splitting along one axis: ConcatV2 / Concat, Pack / Unpack,
// Split / SplitV. All of them view each tensor as [outer, axis, inner] and
// move contiguous runs of axis*inner elements.
#include "ops/array/array_util.h"

namespace tfhost::ops::array {

namespace {

// Concatenates inputs [first, first + count) along the axis held by input
// `axis_input`.
Status ConcatImpl(KernelContext& ctx, int first, int count, int axis_input) {
  if (count < 1) return ctx.Error("needs at least one value to concatenate");
  const Tensor& ref = ctx.input(first);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, ref.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis_value, ReadIndexScalar(ctx, axis_input, "axis"));
  const int rank = ref.rank();
  if (rank == 0) return ctx.Error("cannot concatenate scalars; use Pack");
  TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, rank, "axis"));
  int64_t axis_total = 0;
  for (int k = 0; k < count; ++k) {
    const Tensor& t = ctx.input(first + k);
    if (t.dtype() != ref.dtype()) {
      return ctx.Error("value " + std::to_string(k) + " has dtype " + DTypeShortName(t.dtype()) +
                       ", expected " + DTypeShortName(ref.dtype()));
    }
    bool same = t.rank() == rank;
    for (int d = 0; same && d < rank; ++d) same = d == axis || t.dim(d) == ref.dim(d);
    if (!same) {
      return ctx.Error("value " + std::to_string(k) + " has shape " + t.shape().ToString() +
                       ", which does not match value 0's shape " + ref.shape().ToString() +
                       " in every dimension but axis " + std::to_string(axis));
    }
    axis_total += t.dim(axis);
  }
  std::vector<int64_t> dims = ref.shape().dims();
  dims[axis] = axis_total;
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "concat output"));
  Tensor out(ref.dtype(), out_shape);
  const int64_t outer = DimProduct(out_shape, 0, axis);
  const int64_t out_row = DimProduct(out_shape, axis, rank);
  int64_t column = 0;
  for (int k = 0; k < count; ++k) {
    const Tensor& t = ctx.input(first + k);
    const int64_t row = DimProduct(t.shape(), axis, rank);
    // A zero-size piece copies nothing however many rows it has: a
    // [2^40, 0] operand must not loop 2^40 times.
    if (row > 0) {
      for (int64_t o = 0; o < outer; ++o) CopyElements(t, o * row, out, o * out_row + column, row);
    }
    column += row;
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ConcatV2Kernel(KernelContext& ctx) {
  return ConcatImpl(ctx, 0, ctx.num_inputs() - 1, ctx.num_inputs() - 1);
}

Status ConcatKernel(KernelContext& ctx) { return ConcatImpl(ctx, 1, ctx.num_inputs() - 1, 0); }

Status PackKernel(KernelContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1) return ctx.Error("needs at least one value to pack");
  const Tensor& ref = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, ref.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis_value, ctx.AttrOr<int64_t>("axis", 0));
  const int rank = ref.rank();
  TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, rank + 1, "axis"));
  for (int k = 0; k < n; ++k) {
    const Tensor& t = ctx.input(k);
    if (t.dtype() != ref.dtype() || t.shape() != ref.shape()) {
      return ctx.Error("value " + std::to_string(k) + " is " + DTypeShortName(t.dtype()) +
                       t.shape().ToString() + ", expected " + DTypeShortName(ref.dtype()) +
                       ref.shape().ToString() + " like value 0");
    }
  }
  std::vector<int64_t> dims = ref.shape().dims();
  dims.insert(dims.begin() + axis, n);
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "pack output"));
  Tensor out(ref.dtype(), out_shape);
  const int64_t outer = DimProduct(ref.shape(), 0, axis);
  const int64_t inner = DimProduct(ref.shape(), axis, rank);
  for (int k = 0; k < n && inner > 0; ++k) {
    for (int64_t o = 0; o < outer; ++o) {
      CopyElements(ctx.input(k), o * inner, out, (o * n + k) * inner, inner);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status UnpackKernel(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, value.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t num, ctx.Attr<int64_t>("num"));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis_value, ctx.AttrOr<int64_t>("axis", 0));
  const int rank = value.rank();
  if (rank == 0) return ctx.Error("cannot unpack a scalar");
  TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, rank, "axis"));
  if (value.dim(axis) != num || num != ctx.num_outputs()) {
    return ctx.Error("value shape " + value.shape().ToString() + " has " +
                     std::to_string(value.dim(axis)) + " entries along axis " +
                     std::to_string(axis) + ", expected num = " + std::to_string(num));
  }
  std::vector<int64_t> dims = value.shape().dims();
  dims.erase(dims.begin() + axis);
  const int64_t outer = DimProduct(value.shape(), 0, axis);
  const int64_t inner = DimProduct(value.shape(), axis + 1, rank);
  for (int64_t k = 0; k < num; ++k) {
    Tensor out(value.dtype(), Shape(dims));
    for (int64_t o = 0; o < outer && inner > 0; ++o) {
      CopyElements(value, (o * num + k) * inner, out, o * inner, inner);
    }
    ctx.set_output(static_cast<int>(k), std::move(out));
  }
  return OkStatus();
}

// Splits `value` along `axis` into pieces of the given sizes (already
// validated to sum to the axis length).
void SplitImpl(KernelContext& ctx, const Tensor& value, int axis,
               const std::vector<int64_t>& sizes) {
  const int rank = value.rank();
  const int64_t outer = DimProduct(value.shape(), 0, axis);
  const int64_t inner = DimProduct(value.shape(), axis + 1, rank);
  const int64_t in_row = value.dim(axis) * inner;
  int64_t start = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    std::vector<int64_t> dims = value.shape().dims();
    dims[axis] = sizes[k];
    Tensor out(value.dtype(), Shape(dims));
    const int64_t row = sizes[k] * inner;
    for (int64_t o = 0; o < outer && row > 0; ++o) {
      CopyElements(value, o * in_row + start * inner, out, o * row, row);
    }
    start += sizes[k];
    ctx.set_output(static_cast<int>(k), std::move(out));
  }
}

Status SplitKernel(KernelContext& ctx) {
  const Tensor& value = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, value.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t num_split, ctx.Attr<int64_t>("num_split"));
  TFHOST_ASSIGN_OR_RETURN(int64_t split_dim, ReadIndexScalar(ctx, 0, "split_dim"));
  if (value.rank() == 0) return ctx.Error("cannot split a scalar");
  TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, split_dim, value.rank(), "split_dim"));
  if (num_split < 1 || num_split != ctx.num_outputs() || value.dim(axis) % num_split != 0) {
    return ctx.Error("cannot split dimension " + std::to_string(axis) + " of shape " +
                     value.shape().ToString() + " into num_split = " + std::to_string(num_split) +
                     " equal pieces");
  }
  SplitImpl(ctx, value, axis, std::vector<int64_t>(num_split, value.dim(axis) / num_split));
  return OkStatus();
}

Status SplitVKernel(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, value.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t num_split, ctx.Attr<int64_t>("num_split"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndexVector(ctx, 1, "size_splits"));
  TFHOST_ASSIGN_OR_RETURN(int64_t split_dim, ReadIndexScalar(ctx, 2, "split_dim"));
  if (value.rank() == 0) return ctx.Error("cannot split a scalar");
  TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, split_dim, value.rank(), "split_dim"));
  if (static_cast<int64_t>(sizes.size()) != num_split || num_split != ctx.num_outputs()) {
    return ctx.Error("size_splits " + JoinInts(sizes) + " must have num_split = " +
                     std::to_string(num_split) + " entries");
  }
  const int64_t total = value.dim(axis);
  int unknown = -1;
  int64_t known = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == -1) {
      if (unknown != -1) {
        return ctx.Error("size_splits " + JoinInts(sizes) + " has more than one -1");
      }
      unknown = static_cast<int>(k);
    } else if (sizes[k] < 0 || sizes[k] > total - known) {
      return ctx.Error("size_splits " + JoinInts(sizes) + " do not fit dimension " +
                       std::to_string(axis) + " of shape " + value.shape().ToString());
    } else {
      known += sizes[k];
    }
  }
  if (unknown != -1) {
    sizes[unknown] = total - known;
  } else if (known != total) {
    return ctx.Error("size_splits " + JoinInts(sizes) + " sum to " + std::to_string(known) +
                     ", expected dimension " + std::to_string(axis) + " of shape " +
                     value.shape().ToString() + " (" + std::to_string(total) + ")");
  }
  SplitImpl(ctx, value, axis, sizes);
  return OkStatus();
}

}  // namespace

void RegisterConcatSplitOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("ConcatV2")
                        .Input("values: N * T").Input("axis: Tidx").Output("output: T")
                        .Attr("N: int >= 2").Attr("T: type").Attr("Tidx: {int32, int64} = DT_INT32"),
                    ConcatV2Kernel);
  registry.Register(ir::OpDefBuilder("Concat")
                        .Input("concat_dim: int32").Input("values: N * T").Output("output: T")
                        .Attr("N: int >= 2").Attr("T: type"),
                    ConcatKernel);
  registry.Register(ir::OpDefBuilder("Pack")
                        .Input("values: N * T").Output("output: T")
                        .Attr("N: int >= 1").Attr("T: type").Attr("axis: int = 0"),
                    PackKernel);
  registry.Register(ir::OpDefBuilder("Unpack")
                        .Input("value: T").Output("output: num * T")
                        .Attr("num: int >= 0").Attr("T: type").Attr("axis: int = 0"),
                    UnpackKernel);
  registry.Register(ir::OpDefBuilder("Split")
                        .Input("split_dim: int32").Input("value: T").Output("output: num_split * T")
                        .Attr("num_split: int >= 1").Attr("T: type"),
                    SplitKernel);
  registry.Register(ir::OpDefBuilder("SplitV")
                        .Input("value: T").Input("size_splits: Tlen").Input("split_dim: int32")
                        .Output("output: num_split * T")
                        .Attr("num_split: int >= 1").Attr("T: type")
                        .Attr("Tlen: {int8, int32, int64} = DT_INT64"),
                    SplitVKernel);
}

}  // namespace tfhost::ops::array
