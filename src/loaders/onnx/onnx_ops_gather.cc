// GatherND, GatherElements and ScatterND, the ONNX ops that address a
// tensor by index tuples, mapped onto TensorFlow's GatherNd and
// TensorScatter* ops; and EyeLike, built from the same coordinate grids.
//
// ONNX allows negative indices (counted from the end of their dimension),
// which TensorFlow's kernels refuse, so every index tensor is first wrapped
// with the dimension sizes it addresses (read with Shape at run time).
// Indices still out of range after that fail in the TensorFlow kernel,
// naming it, as ONNX Runtime fails.
//
//  * GatherND with batch_dims = b: each index tuple addresses dimensions
//    b..b+k-1 of its own batch entry; the b batch coordinates are prepended
//    to every tuple (a Range per batch dimension, broadcast), which makes it
//    a plain GatherNd.
//  * GatherElements along `axis`: out[i] = data[i with i[axis] replaced by
//    indices[i]]; the full coordinate of every output element is built the
//    same way (a Range per dimension, the indices at `axis`) and gathered.
//  * ScatterND: TensorScatterUpdate/Add/Max/Min for reduction none/add/max/
//    min. TensorFlow has no multiplying TensorScatter, so "mul" is refused
//    by name. With reduction none ONNX leaves duplicate indices undefined;
//    here the last update wins.
//  * EyeLike: ones where column == row + k, as Equal of two coordinate
//    grids over the input's 2-D shape, cast to the `dtype` attribute (the
//    input's type by default).
#include "loaders/onnx/onnx_ops.h"

#include "loaders/onnx/onnx_tensor.h"

namespace tfhost::loaders::onnx {

namespace {

// Rank and tuple length k of an index tensor [..., k]; both must be known
// at load.
StatusOr<std::pair<int, int64_t>> IndexTupleShape(const NodeContext& ctx, int input, const std::string& op) {
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(input, op + " builds index tuples from it"));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* info, ctx.Info(input));
  if (rank < 1) return ctx.Error("indices must have rank >= 1, got a scalar");
  const int64_t k = info->shape.dim(rank - 1);
  if (k < 0) {
    return ctx.Unsupported("indices whose last dimension (the tuple length) is not known at load");
  }
  return std::make_pair(rank, k);
}

// `indices` (int64) with negative entries wrapped by `bounds`, an int64
// tensor that broadcasts against it (the sizes of the dimensions addressed).
StatusOr<ir::TensorRef> WrapNegative(const NodeContext& ctx, ir::TensorRef indices, ir::TensorRef bounds,
                                     const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const(what + "_zero", Tensor::Scalar<int64_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef negative, ctx.Helper(what + "_is_negative", "Less", {indices, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wrapped, ctx.Helper(what + "_wrapped", "AddV2", {indices, bounds}));
  return ctx.Helper(what, "SelectV2", {negative, wrapped, indices});
}

// Input i as int64 (ONNX index inputs are int64 or int32).
StatusOr<ir::TensorRef> Int64Input(const NodeContext& ctx, int i, const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, ctx.In(i));
  const DType dtype = ctx.InType(i);
  if (dtype == DType::kInt64) return ref;
  if (dtype != DType::kInt32) {
    return ctx.Error(what + " must be int64 or int32, got " + DTypeName(dtype));
  }
  ir::AttrMap attrs;
  attrs["DstT"] = TypeAttr(DType::kInt64);
  return ctx.Helper(what + "_int64", "Cast", {ref}, std::move(attrs));
}

// Dimensions [begin, end) of `shape` (an int64 vector).
StatusOr<ir::TensorRef> ShapeSlice(const NodeContext& ctx, ir::TensorRef shape, int64_t begin, int64_t end,
                                   const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.Const(what + "_begin", Int64Vector({begin})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Const(what + "_size", Int64Vector({end - begin})));
  return ctx.Helper(what, "Slice", {shape, b, s});
}

// The coordinate of every element along dimension `dim` of a tensor of
// rank `rank` and shape `shape` (int64 vector), as a tensor of that shape:
// Range(0, shape[dim]) reshaped to [1,..,-1,..,1] and broadcast.
StatusOr<ir::TensorRef> CoordinateGrid(const NodeContext& ctx, ir::TensorRef shape, int rank, int dim,
                                       const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef size_vec, ShapeSlice(ctx, shape, dim, dim + 1, what + "_size"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar_shape, ctx.Const(what + "_scalar", Int64Vector({})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef size, ctx.Helper(what + "_limit", "Reshape", {size_vec, scalar_shape}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const(what + "_start", Tensor::Scalar<int64_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, ctx.Const(what + "_delta", Tensor::Scalar<int64_t>(1)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef range, ctx.Helper(what + "_range", "Range", {zero, size, one}));
  std::vector<int64_t> placed(rank, 1);
  placed[dim] = -1;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef placed_shape, ctx.Const(what + "_placed_shape", Int64Vector(placed)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef column, ctx.Helper(what + "_placed", "Reshape", {range, placed_shape}));
  return ctx.Helper(what, "BroadcastTo", {column, shape});
}

// [..., 1] of `x` (rank `rank`): ExpandDims on the last axis.
StatusOr<ir::TensorRef> AsTuple(const NodeContext& ctx, ir::TensorRef x, const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef last, ctx.Const(what + "_axis", Tensor::Scalar<int32_t>(-1)));
  return ctx.Helper(what, "ExpandDims", {x, last});
}

StatusOr<ir::TensorRef> ConcatLast(const NodeContext& ctx, std::vector<ir::TensorRef> parts, const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, ctx.Const(what + "_axis", Tensor::Scalar<int32_t>(-1)));
  const int n = static_cast<int>(parts.size());
  parts.push_back(axis);
  ir::AttrMap attrs;
  attrs["N"] = IntAttr(n);
  return ctx.Helper(what, "ConcatV2", std::move(parts), std::move(attrs));
}

Status MapGatherNd(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t batch_dims, ctx.Int("batch_dims", 0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* di, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(int data_rank, ctx.Rank(0, "GatherND checks its index tuples against it"));
  TFHOST_ASSIGN_OR_RETURN(auto tuple, IndexTupleShape(ctx, 1, "GatherND"));
  const auto [index_rank, k] = tuple;
  if (batch_dims < 0 || batch_dims >= std::min<int64_t>(data_rank, index_rank)) {
    return ctx.Error("batch_dims " + std::to_string(batch_dims) + " must be in [0, " +
                     std::to_string(std::min(data_rank, index_rank)) + ") for data of rank " +
                     std::to_string(data_rank) + " and indices of rank " + std::to_string(index_rank));
  }
  if (batch_dims + k > data_rank) {
    return ctx.Error("index tuples of length " + std::to_string(k) + " after " + std::to_string(batch_dims) +
                     " batch dimensions address more than the " + std::to_string(data_rank) + " dimensions of data");
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef data, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef indices, Int64Input(ctx, 1, "indices"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef data_shape, ShapeOf(ctx, data, "data_shape"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bounds, ShapeSlice(ctx, data_shape, batch_dims, batch_dims + k, "bounds"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wrapped, WrapNegative(ctx, indices, bounds, "indices"));
  ir::TensorRef full = wrapped;
  if (batch_dims > 0) {
    // Each batch coordinate, over the tuples' shape [..., 1].
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef index_shape, ShapeOf(ctx, indices, "indices_shape"));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef lead, ShapeSlice(ctx, index_shape, 0, index_rank - 1, "tuples_shape"));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, ctx.Const("tuple_one", Int64Vector({1})));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef grid_shape, ConcatLast(ctx, {lead, one}, "grid_shape"));
    std::vector<ir::TensorRef> parts;
    for (int d = 0; d < batch_dims; ++d) {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef grid,
                              CoordinateGrid(ctx, grid_shape, index_rank, d, "batch" + std::to_string(d)));
      parts.push_back(grid);
    }
    parts.push_back(wrapped);
    TFHOST_ASSIGN_OR_RETURN(full, ConcatLast(ctx, std::move(parts), "full_indices"));
  }
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ii, ctx.Info(1));
  ir::PartialShape out = ir::PartialShape::Known({});
  for (int i = 0; i < index_rank - 1; ++i) out.dims.push_back(ii->shape.dim(i));
  for (int i = static_cast<int>(batch_dims + k); i < data_rank; ++i) out.dims.push_back(di->shape.dim(i));
  return ctx.Emit("GatherNd", {data, full}, {}, di->dtype, out);
}

Status MapGatherElements(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* di, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ii, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "GatherElements builds a coordinate per element"));
  TFHOST_ASSIGN_OR_RETURN(int index_rank, ctx.Rank(1, "GatherElements builds a coordinate per element"));
  if (index_rank != rank) {
    return ctx.Error("indices must have the rank of data (" + std::to_string(rank) + "), got " +
                     std::to_string(index_rank));
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", 0));
  TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef data, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef indices, Int64Input(ctx, 1, "indices"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef data_shape, ShapeOf(ctx, data, "data_shape"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bound, ShapeSlice(ctx, data_shape, a, a + 1, "axis_size"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wrapped, WrapNegative(ctx, indices, bound, "indices"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef index_shape, ShapeOf(ctx, indices, "indices_shape"));
  std::vector<ir::TensorRef> coordinates;
  for (int d = 0; d < rank; ++d) {
    if (d == a) {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c, AsTuple(ctx, wrapped, "coordinate" + std::to_string(d)));
      coordinates.push_back(c);
      continue;
    }
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef grid,
                            CoordinateGrid(ctx, index_shape, rank, d, "grid" + std::to_string(d)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c, AsTuple(ctx, grid, "coordinate" + std::to_string(d)));
    coordinates.push_back(c);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef full, ConcatLast(ctx, std::move(coordinates), "coordinates"));
  return ctx.Emit("GatherNd", {data, full}, {}, di->dtype, ii->shape);
}

Status MapScatterNd(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string reduction, ctx.String("reduction", "none"));
  const char* op = reduction == "none" ? "TensorScatterUpdate"
                   : reduction == "add" ? "TensorScatterAdd"
                   : reduction == "max" ? "TensorScatterMax"
                   : reduction == "min" ? "TensorScatterMin"
                                        : nullptr;
  if (op == nullptr) {
    if (reduction == "mul") return ctx.Unsupported("reduction 'mul' (TensorFlow has no multiplying scatter)");
    return ctx.Error("reduction must be none, add, mul, max or min, got '" + reduction + "'");
  }
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* di, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(auto tuple, IndexTupleShape(ctx, 1, "ScatterND"));
  const int64_t k = tuple.second;
  if (di->rank() >= 0 && k > di->rank()) {
    return ctx.Error("index tuples of length " + std::to_string(k) + " address more than the " +
                     std::to_string(di->rank()) + " dimensions of data");
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef data, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef indices, Int64Input(ctx, 1, "indices"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef updates, ctx.In(2));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef data_shape, ShapeOf(ctx, data, "data_shape"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bounds, ShapeSlice(ctx, data_shape, 0, k, "bounds"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wrapped, WrapNegative(ctx, indices, bounds, "indices"));
  return ctx.Emit(op, {data, wrapped, updates}, {}, di->dtype, di->shape);
}

Status MapEyeLike(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  // ONNX requires a 2-D input; of unknown rank, it is checked at run time
  // (the coordinate grids fail to broadcast otherwise).
  if (xi->rank() >= 0 && xi->rank() != 2) return ctx.Error("input must be 2-D, got rank " + std::to_string(xi->rank()));
  TFHOST_ASSIGN_OR_RETURN(int64_t k, ctx.Int("k", 0));
  DType dtype = ctx.InType(0);
  if (ctx.Attr("dtype") != nullptr) {
    TFHOST_ASSIGN_OR_RETURN(int64_t onnx_type, ctx.Int("dtype", 0));
    dtype = DTypeFromOnnx(static_cast<int32_t>(onnx_type));
    if (dtype == DType::kInvalid) return ctx.Unsupported("dtype " + OnnxTypeName(static_cast<int32_t>(onnx_type)));
  }
  if (dtype == DType::kInvalid || dtype == DType::kString) {
    return ctx.Unsupported("an EyeLike of type " + DTypeName(dtype));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape, ShapeOf(ctx, x, "shape"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef rows, CoordinateGrid(ctx, shape, 2, 0, "rows"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cols, CoordinateGrid(ctx, shape, 2, 1, "cols"));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef offset, ctx.Const("k", Tensor::Scalar<int64_t>(k)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shifted, ctx.Helper("rows_plus_k", "AddV2", {rows, offset}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef on_diagonal, ctx.Helper("on_diagonal", "Equal", {shifted, cols}));
  ir::AttrMap attrs;
  attrs["DstT"] = TypeAttr(dtype);
  return ctx.Emit("Cast", {on_diagonal}, std::move(attrs), dtype,
                  xi->rank() == 2 ? xi->shape : ir::PartialShape::Known({-1, -1}));
}

}  // namespace

MapFn FindGatherMapper(const std::string& op_type) {
  if (op_type == "GatherND") return MapGatherNd;
  if (op_type == "GatherElements") return MapGatherElements;
  if (op_type == "ScatterND") return MapScatterNd;
  if (op_type == "EyeLike") return MapEyeLike;
  return nullptr;
}

}  // namespace tfhost::loaders::onnx
