// Ops whose output element maps to an input element by a per-dim affine
// index: Slice (offset), ReverseV2 (negative stride), Tile and BroadcastTo
// (zero stride over repeated dims). Each is one CopyStrided call.
#include "ops/array/array_util.h"
#include "ops/array/strided_copy.h"

namespace tfhost::ops::array {

namespace {

Status SliceKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ReadIndexVector(ctx, 1, "begin"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> size, ReadIndexVector(ctx, 2, "size"));
  const int rank = input.rank();
  if (ctx.input(1).rank() != 1 || ctx.input(2).rank() != 1 ||
      static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank) {
    return ctx.Error("begin " + JoinInts(begin) + " and size " + JoinInts(size) +
                     " must be 1-D with one entry per dim of input shape " +
                     input.shape().ToString());
  }
  std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  StridedLayout src;
  for (int d = 0; d < rank; ++d) {
    const int64_t n = input.dim(d);
    if (begin[d] < 0 || begin[d] > n) {
      return ctx.Error("begin[" + std::to_string(d) + "] = " + std::to_string(begin[d]) +
                       " is out of range; expected a value in [0, " + std::to_string(n) +
                       "] for input shape " + input.shape().ToString());
    }
    if (size[d] == -1) size[d] = n - begin[d];
    if (size[d] < 0 || size[d] > n - begin[d]) {
      return ctx.Error("size[" + std::to_string(d) + "] = " + std::to_string(size[d]) +
                       " is out of range; expected -1 or a value in [0, " +
                       std::to_string(n - begin[d]) + "] for begin " + JoinInts(begin) +
                       " and input shape " + input.shape().ToString());
    }
    src.offset += begin[d] * in_strides[d];
    src.strides.push_back(in_strides[d]);
  }
  Tensor out(input.dtype(), Shape(size));
  CopyStrided(size, input, src, out, DenseLayout(out.shape()), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ReverseDims(KernelContext& ctx, const std::vector<bool>& reverse);

Status ReverseV2Kernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  if (ctx.input(1).rank() != 1) {
    return ctx.Error("axis must be 1-D, got shape " + ctx.input(1).shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadIndexVector(ctx, 1, "axis"));
  const int rank = input.rank();
  std::vector<bool> reverse(rank, false);
  for (int64_t a : axes) {
    TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, a, rank, "axis"));
    if (reverse[axis]) {
      return ctx.Error("axis " + JoinInts(axes) + " names dim " + std::to_string(axis) + " twice");
    }
    reverse[axis] = true;
  }
  return ReverseDims(ctx, reverse);
}

// Reverse (TF1): a bool per dim says whether to reverse it.
Status ReverseV1Kernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  const Tensor& dims = ctx.input(1);
  if (dims.dtype() != DType::kBool || dims.rank() != 1 || dims.dim(0) != input.rank()) {
    return ctx.Error("dims must be a bool vector with one entry per dim of " + input.shape().ToString() + ", got " +
                     DTypeShortName(dims.dtype()) + dims.shape().ToString());
  }
  std::vector<bool> reverse(dims.data<bool>(), dims.data<bool>() + dims.NumElements());
  return ReverseDims(ctx, reverse);
}

Status ReverseDims(KernelContext& ctx, const std::vector<bool>& reverse) {
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  StridedLayout src = DenseLayout(input.shape());
  for (int d = 0; d < rank; ++d) {
    if (!reverse[d] || input.dim(d) == 0) continue;
    src.offset += (input.dim(d) - 1) * src.strides[d];
    src.strides[d] = -src.strides[d];
  }
  Tensor out(input.dtype(), input.shape());
  CopyStrided(input.shape().dims(), input, src, out, DenseLayout(out.shape()), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status TileKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> multiples, ReadIndexVector(ctx, 1, "multiples"));
  const int rank = input.rank();
  if (ctx.input(1).rank() != 1 || static_cast<int>(multiples.size()) != rank) {
    return ctx.Error("multiples " + JoinInts(multiples) + " must be 1-D with one entry per dim of "
                     "input shape " + input.shape().ToString());
  }
  std::vector<int64_t> out_dims(rank);
  for (int d = 0; d < rank; ++d) {
    if (multiples[d] < 0) {
      return ctx.Error("multiples " + JoinInts(multiples) + " must be non-negative");
    }
    if (input.dim(d) != 0 && multiples[d] > (int64_t{1} << 62) / input.dim(d)) {
      return ctx.Error("multiples " + JoinInts(multiples) + " make the output too large");
    }
    out_dims[d] = input.dim(d) * multiples[d];
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, out_dims, "tile output"));
  // The output viewed as [m0, d0, m1, d1, ...] reads the input with stride 0
  // over each multiple.
  std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  std::vector<int64_t> view_dims;
  StridedLayout src;
  for (int d = 0; d < rank; ++d) {
    view_dims.push_back(multiples[d]);
    view_dims.push_back(input.dim(d));
    src.strides.push_back(0);
    src.strides.push_back(in_strides[d]);
  }
  Tensor out(input.dtype(), out_shape);
  CopyStrided(view_dims, input, src, out, DenseLayout(Shape(view_dims)), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status BroadcastToKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  if (ctx.input(1).rank() != 1) {
    return ctx.Error("shape must be 1-D, got shape " + ctx.input(1).shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(ctx, 1, "shape"));
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "broadcast target shape"));
  const int out_rank = out_shape.rank(), in_rank = input.rank();
  bool ok = in_rank <= out_rank;
  std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  StridedLayout src;
  for (int d = 0; ok && d < out_rank; ++d) {
    int id = d - (out_rank - in_rank);
    if (id < 0) {
      src.strides.push_back(0);
    } else if (input.dim(id) == out_shape.dim(d)) {
      src.strides.push_back(in_strides[id]);
    } else if (input.dim(id) == 1) {
      src.strides.push_back(0);
    } else {
      ok = false;
    }
  }
  if (!ok) {
    return ctx.Error("cannot broadcast input shape " + input.shape().ToString() + " to shape " +
                     out_shape.ToString());
  }
  Tensor out(input.dtype(), out_shape);
  CopyStrided(out_shape.dims(), input, src, out, DenseLayout(out_shape), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterSliceOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Slice")
                        .Input("input: T").Input("begin: Index").Input("size: Index")
                        .Output("output: T").Attr("T: type").Attr("Index: {int32, int64}"),
                    SliceKernel);
  registry.Register(ir::OpDefBuilder("ReverseV2")
                        .Input("tensor: T").Input("axis: Tidx").Output("output: T")
                        .Attr("Tidx: {int32, int64} = DT_INT32").Attr("T: type"),
                    ReverseV2Kernel);
  registry.Register(ir::OpDefBuilder("Reverse")
                        .Input("tensor: T").Input("dims: bool").Output("output: T")
                        .Attr("T: {uint8, int8, uint16, int16, uint32, int32, uint64, int64, bool, bfloat16, half, "
                              "float, double, complex64, complex128, string}"),
                    ReverseV1Kernel);
  registry.Register(ir::OpDefBuilder("Tile")
                        .Input("input: T").Input("multiples: Tmultiples").Output("output: T")
                        .Attr("T: type").Attr("Tmultiples: {int32, int64} = DT_INT32"),
                    TileKernel);
  registry.Register(ir::OpDefBuilder("BroadcastTo")
                        .Input("input: T").Input("shape: Tidx").Output("output: T")
                        .Attr("T: type").Attr("Tidx: {int32, int64} = DT_INT32"),
                    BroadcastToKernel);
}

}  // namespace tfhost::ops::array
