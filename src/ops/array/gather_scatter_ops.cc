// Indexed reads and writes: GatherV2 (with batch_dims), Gather (TF1),
// GatherNd, ScatterNd and TensorScatterUpdate/Add/Sub/Min/Max (ScatterNd
// into a copy of an existing tensor; Keras 3 and tf.tensor_scatter_nd_*). Indices are untrusted: each one is range-checked
// and an out-of-range index is an error naming its position and value
// (TensorFlow's CPU behaviour), unless bad_indices_policy says IGNORE.
#include <type_traits>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {

namespace {

StatusOr<std::vector<int64_t>> ReadIndices(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64 && t.dtype() != DType::kInt16) {
    return ctx.Error("indices must be int16, int32 or int64, got " + DTypeShortName(t.dtype()));
  }
  return t.ToInt64Vector();
}

// params viewed as [batch, outer, gather, inner]; indices as [batch, per_batch].
Status GatherImpl(KernelContext& ctx, int64_t axis_value, int64_t batch_dims) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices_t = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, params.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  const int prank = params.rank(), irank = indices_t.rank();
  if (prank == 0) return ctx.Error("params must be at least 1-D, got a scalar");
  if (batch_dims < 0) batch_dims += irank;
  if (batch_dims < 0 || batch_dims > irank) {
    return ctx.Error("batch_dims must be in [" + std::to_string(-irank) + ", " +
                     std::to_string(irank) + "] for indices shape " +
                     indices_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, prank, "axis"));
  if (batch_dims > axis) {
    return ctx.Error("batch_dims (" + std::to_string(batch_dims) + ") must be at most axis (" +
                     std::to_string(axis) + ")");
  }
  for (int d = 0; d < batch_dims; ++d) {
    if (params.dim(d) != indices_t.dim(d)) {
      return ctx.Error("params shape " + params.shape().ToString() + " and indices shape " +
                       indices_t.shape().ToString() + " must agree in the first " +
                       std::to_string(batch_dims) + " (batch) dims");
    }
  }
  std::vector<int64_t> dims(params.shape().dims().begin(), params.shape().dims().begin() + axis);
  for (int d = static_cast<int>(batch_dims); d < irank; ++d) dims.push_back(indices_t.dim(d));
  for (int d = axis + 1; d < prank; ++d) dims.push_back(params.dim(d));
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "gather output"));

  const int bd = static_cast<int>(batch_dims);
  const int64_t batch = DimProduct(params.shape(), 0, bd);
  const int64_t outer = DimProduct(params.shape(), bd, axis);
  const int64_t limit = params.dim(axis);
  const int64_t inner = DimProduct(params.shape(), axis + 1, prank);
  const int64_t per_batch = DimProduct(indices_t.shape(), bd, irank);
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0 || indices[k] >= limit) {
      return ctx.Error("indices[" + std::to_string(k) + "] = " + std::to_string(indices[k]) +
                       " is not in [0, " + std::to_string(limit) + ")");
    }
  }
  Tensor out(params.dtype(), out_shape);
  // An empty output has nothing to copy, however large its other dims (whose
  // products need not fit int64).
  for (int64_t b = 0; b < batch && out.NumElements() > 0; ++b) {
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t src_base = (b * outer + o) * limit;
      const int64_t dst_base = (b * outer + o) * per_batch;
      for (int64_t j = 0; j < per_batch; ++j) {
        CopyElements(params, (src_base + indices[b * per_batch + j]) * inner, out,
                     (dst_base + j) * inner, inner);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status GatherV2Kernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ReadIndexScalar(ctx, 2, "axis"));
  TFHOST_ASSIGN_OR_RETURN(int64_t batch_dims, ctx.AttrOr<int64_t>("batch_dims", 0));
  return GatherImpl(ctx, axis, batch_dims);
}

Status GatherKernel(KernelContext& ctx) { return GatherImpl(ctx, 0, 0); }

StatusOr<bool> IgnoreBadIndices(const KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string policy, ctx.AttrOr<std::string>("bad_indices_policy", ""));
  if (policy == "" || policy == "DEFAULT" || policy == "ERROR") return false;
  if (policy == "IGNORE") return true;
  return ctx.Error("bad_indices_policy must be '', DEFAULT, ERROR or IGNORE, got '" + policy + "'");
}

// Shared by GatherNd and ScatterNd: the flat offsets (in units of slices of
// `slice_size` elements) that each index vector of `indices` addresses in a
// tensor of shape `target`; -1 marks an ignored bad index.
StatusOr<std::vector<int64_t>> IndexVectorOffsets(const KernelContext& ctx,
                                                  const std::vector<int64_t>& indices,
                                                  int64_t index_depth, const Shape& target,
                                                  bool ignore_bad) {
  const int64_t count = index_depth == 0 ? static_cast<int64_t>(indices.size())
                                         : static_cast<int64_t>(indices.size()) / index_depth;
  std::vector<int64_t> offsets(count, 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t offset = 0;
    for (int64_t j = 0; j < index_depth; ++j) {
      const int64_t v = indices[k * index_depth + j];
      const int64_t n = target.dim(static_cast<int>(j));
      if (v < 0 || v >= n) {
        if (ignore_bad) {
          offset = -1;
          break;
        }
        std::vector<int64_t> vec(indices.begin() + k * index_depth,
                                 indices.begin() + (k + 1) * index_depth);
        return ctx.Error("index vector " + std::to_string(k) + " " + JoinInts(vec) +
                         " does not index into shape " + target.ToString());
      }
      offset = offset * n + v;
    }
    offsets[k] = offset;
  }
  return offsets;
}

Status GatherNdKernel(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices_t = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, params.dtype()));
  TFHOST_ASSIGN_OR_RETURN(bool ignore_bad, IgnoreBadIndices(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  if (indices_t.rank() < 1) return ctx.Error("indices must be at least 1-D, got a scalar");
  const int64_t depth = indices_t.dim(indices_t.rank() - 1);
  if (depth > params.rank()) {
    return ctx.Error("index depth " + std::to_string(depth) + " (last dim of indices shape " +
                     indices_t.shape().ToString() + ") exceeds params rank " +
                     std::to_string(params.rank()));
  }
  std::vector<int64_t> dims(indices_t.shape().dims().begin(), indices_t.shape().dims().end() - 1);
  for (int d = static_cast<int>(depth); d < params.rank(); ++d) dims.push_back(params.dim(d));
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "gather_nd output"));
  const int64_t slice = DimProduct(params.shape(), static_cast<int>(depth), params.rank());
  const int64_t count = DimProduct(indices_t.shape(), 0, indices_t.rank() - 1);
  std::vector<int64_t> offsets;
  if (depth == 0) {
    offsets.assign(count, 0);  // every index vector is empty: the whole of params
  } else {
    TFHOST_ASSIGN_OR_RETURN(offsets,
                            IndexVectorOffsets(ctx, indices, depth, params.shape(), ignore_bad));
  }
  Tensor out(params.dtype(), out_shape);
  for (int64_t k = 0; k < count; ++k) {
    if (offsets[k] >= 0) CopyElements(params, offsets[k] * slice, out, k * slice, slice);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Accumulates update slices into `out`; duplicates add (logical or for bool,
// last write for strings, float arithmetic for half/bfloat16).
template <typename T>
void ScatterAdd(const Tensor& updates, Tensor& out, const std::vector<int64_t>& offsets,
                int64_t slice) {
  const T* u = updates.data<T>();
  T* o = out.data<T>();
  for (size_t k = 0; k < offsets.size(); ++k) {
    if (offsets[k] < 0) continue;
    for (int64_t j = 0; j < slice; ++j) {
      T& dst = o[offsets[k] * slice + j];
      const T& src = u[k * slice + j];
      if constexpr (std::is_same_v<T, bool>) {
        dst = dst || src;
      } else if constexpr (std::is_integral_v<T>) {
        // Wraps on overflow like TensorFlow's kernels, without signed UB.
        using U = std::make_unsigned_t<T>;
        dst = static_cast<T>(static_cast<U>(static_cast<U>(dst) + static_cast<U>(src)));
      } else {
        dst = static_cast<T>(dst + src);
      }
    }
  }
}

void ScatterAddHalf(const Tensor& updates, Tensor& out, const std::vector<int64_t>& offsets,
                    int64_t slice, bool bfloat) {
  const uint16_t* u = updates.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  auto to_float = [&](uint16_t b) { return bfloat ? BFloat16ToFloat(b) : HalfToFloat(b); };
  auto from_float = [&](float f) { return bfloat ? FloatToBFloat16(f) : FloatToHalf(f); };
  for (size_t k = 0; k < offsets.size(); ++k) {
    if (offsets[k] < 0) continue;
    for (int64_t j = 0; j < slice; ++j) {
      uint16_t& dst = o[offsets[k] * slice + j];
      dst = from_float(to_float(dst) + to_float(u[k * slice + j]));
    }
  }
}

Status ScatterNdKernel(KernelContext& ctx) {
  const Tensor& indices_t = ctx.input(0);
  const Tensor& updates = ctx.input(1);
  TFHOST_ASSIGN_OR_RETURN(bool ignore_bad, IgnoreBadIndices(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 0));
  if (ctx.input(2).rank() != 1) {
    return ctx.Error("shape must be 1-D, got shape " + ctx.input(2).shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> shape_v, ReadIndexVector(ctx, 2, "shape"));
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, shape_v, "scatter_nd shape"));
  if (indices_t.rank() < 1) return ctx.Error("indices must be at least 1-D, got a scalar");
  const int64_t depth = indices_t.dim(indices_t.rank() - 1);
  if (depth > out_shape.rank()) {
    return ctx.Error("index depth " + std::to_string(depth) + " (last dim of indices shape " +
                     indices_t.shape().ToString() + ") must be in [0, " +
                     std::to_string(out_shape.rank()) + "] for shape " + out_shape.ToString());
  }
  // updates must be indices.shape[:-1] + shape[depth:].
  std::vector<int64_t> expected(indices_t.shape().dims().begin(),
                                indices_t.shape().dims().end() - 1);
  for (int d = static_cast<int>(depth); d < out_shape.rank(); ++d) {
    expected.push_back(out_shape.dim(d));
  }
  if (updates.shape() != Shape(expected)) {
    return ctx.Error("updates shape " + updates.shape().ToString() + " must be " +
                     Shape(expected).ToString() + " for indices shape " +
                     indices_t.shape().ToString() + " and shape " + out_shape.ToString());
  }
  std::vector<int64_t> offsets;
  if (depth == 0) {
    // Every index vector is empty: each update covers the whole output.
    offsets.assign(DimProduct(indices_t.shape(), 0, indices_t.rank() - 1), 0);
  } else {
    TFHOST_ASSIGN_OR_RETURN(offsets,
                            IndexVectorOffsets(ctx, indices, depth, out_shape, ignore_bad));
  }
  const int64_t slice = DimProduct(out_shape, static_cast<int>(depth), out_shape.rank());
  Tensor out(updates.dtype(), out_shape);
  const DType dt = updates.dtype();
  if (dt == DType::kHalf || dt == DType::kBFloat16) {
    ScatterAddHalf(updates, out, offsets, slice, dt == DType::kBFloat16);
  } else if (IsStringLike(dt)) {
    for (size_t k = 0; k < offsets.size(); ++k) {
      if (offsets[k] >= 0) CopyElements(updates, k * slice, out, offsets[k] * slice, slice);
    }
  } else if (dt == DType::kComplex64 || dt == DType::kComplex128) {
    // A complex sum is the sums of its parts: slices of 2 * slice reals
    // (conformance case ScatterNd/tf/complex64).
    if (dt == DType::kComplex64) ScatterAdd<float>(updates, out, offsets, 2 * slice);
    else ScatterAdd<double>(updates, out, offsets, 2 * slice);
  } else {
    bool supported = true;
    TFHOST_SWITCH_REAL_TYPES(dt, ScatterAdd<T>(updates, out, offsets, slice), supported = false);
    if (!supported) {
      return ctx.Error("ScatterNd does not support updates of dtype " + DTypeShortName(dt));
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

enum class ScatterMode { kUpdate, kAdd, kSub, kMin, kMax };

// float16/bfloat16 <-> float32, element by element.
Tensor WidenHalfLike(const Tensor& t) {
  Tensor f(DType::kFloat, t.shape());
  const bool bf = t.dtype() == DType::kBFloat16;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const uint16_t b = t.data<uint16_t>()[i];
    f.data<float>()[i] = bf ? BFloat16ToFloat(b) : HalfToFloat(b);
  }
  return f;
}
Tensor NarrowToHalfLike(const Tensor& f, DType dtype) {
  Tensor t(dtype, f.shape());
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    const float v = f.data<float>()[i];
    t.data<uint16_t>()[i] = dtype == DType::kBFloat16 ? FloatToBFloat16(v) : FloatToHalf(v);
  }
  return t;
}

// Applies updates slice by slice, in index order (so the last of duplicate
// indices wins for kUpdate, as on TensorFlow's CPU).
template <typename T>
void ApplyScatter(const Tensor& updates, Tensor& out, const std::vector<int64_t>& offsets, int64_t slice,
                  ScatterMode mode) {
  const T* u = updates.data<T>();
  T* o = out.data<T>();
  for (size_t k = 0; k < offsets.size(); ++k) {
    if (offsets[k] < 0) continue;
    for (int64_t j = 0; j < slice; ++j) {
      T& dst = o[offsets[k] * slice + j];
      const T src = u[k * slice + j];
      switch (mode) {
        case ScatterMode::kUpdate: dst = src; break;
        case ScatterMode::kMin: dst = src < dst ? src : dst; break;
        case ScatterMode::kMax: dst = dst < src ? src : dst; break;
        case ScatterMode::kAdd:
        case ScatterMode::kSub:
          if constexpr (std::is_same_v<T, bool>) {
            dst = mode == ScatterMode::kAdd ? (dst || src) : (dst && !src);
          } else if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            const U a = static_cast<U>(dst), b = static_cast<U>(src);
            dst = static_cast<T>(mode == ScatterMode::kAdd ? static_cast<U>(a + b) : static_cast<U>(a - b));
          } else {
            dst = static_cast<T>(mode == ScatterMode::kAdd ? dst + src : dst - src);
          }
          break;
      }
    }
  }
}

// TensorScatterUpdate/Add/Sub/Min/Max(tensor, indices, updates): the output
// is `tensor` with ScatterNd's slices combined in; updates must be
// indices.shape[:-1] + tensor.shape[depth:].
Status TensorScatterKernel(KernelContext& ctx, ScatterMode mode) {
  const Tensor& tensor = ctx.input(0);
  const Tensor& indices_t = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, tensor.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  if (indices_t.rank() < 1) return ctx.Error("indices must be at least 1-D, got a scalar");
  if (updates.dtype() != tensor.dtype()) return ctx.Error("updates must have the dtype of tensor");
  const Shape& shape = tensor.shape();
  const int64_t depth = indices_t.dim(indices_t.rank() - 1);
  if (depth > shape.rank()) {
    return ctx.Error("index depth " + std::to_string(depth) + " must be at most the rank of tensor " + shape.ToString());
  }
  std::vector<int64_t> expected(indices_t.shape().dims().begin(), indices_t.shape().dims().end() - 1);
  for (int d = static_cast<int>(depth); d < shape.rank(); ++d) expected.push_back(shape.dim(d));
  if (updates.shape() != Shape(expected)) {
    return ctx.Error("updates shape " + updates.shape().ToString() + " must be " + Shape(expected).ToString() +
                     " for indices shape " + indices_t.shape().ToString() + " and tensor shape " + shape.ToString());
  }
  const int64_t slice = DimProduct(shape, static_cast<int>(depth), shape.rank());
  Tensor out(tensor.dtype(), shape);
  CopyElements(tensor, 0, out, 0, tensor.NumElements());
  // Empty slices combine nothing. (With depth 0 there is one offset per
  // index vector, and indices of shape [2^40, 0] hold no element but name
  // 2^40 vectors: a vector of their offsets would not fit in memory.)
  if (slice == 0 || updates.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  std::vector<int64_t> offsets;
  if (depth == 0) {
    // Each vector's update is a whole tensor's worth of `updates`: at most
    // updates.NumElements() / slice of them.
    offsets.assign(DimProduct(indices_t.shape(), 0, indices_t.rank() - 1), 0);
  } else {
    TFHOST_ASSIGN_OR_RETURN(offsets, IndexVectorOffsets(ctx, indices, depth, shape, false));
  }
  const DType dt = tensor.dtype();
  const bool complex = dt == DType::kComplex64 || dt == DType::kComplex128;
  if (mode == ScatterMode::kUpdate && (IsStringLike(dt) || DTypeSize(dt) > 0)) {
    for (size_t k = 0; k < offsets.size(); ++k) CopyElements(updates, k * slice, out, offsets[k] * slice, slice);
  } else if (complex && (mode == ScatterMode::kAdd || mode == ScatterMode::kSub)) {
    // Part by part: slices of 2 * slice reals (conformance case
    // TensorScatterAdd/tf/complex64).
    if (dt == DType::kComplex64) ApplyScatter<float>(updates, out, offsets, 2 * slice, mode);
    else ApplyScatter<double>(updates, out, offsets, 2 * slice, mode);
  } else if (dt == DType::kHalf || dt == DType::kBFloat16) {
    // In float, rounded back once per element (conformance case
    // TensorScatterAdd/tf/float16).
    Tensor wide_out = WidenHalfLike(out), wide_updates = WidenHalfLike(updates);
    ApplyScatter<float>(wide_updates, wide_out, offsets, slice, mode);
    out = NarrowToHalfLike(wide_out, dt);
  } else {
    bool supported = true;
    TFHOST_SWITCH_REAL_TYPES(dt, ApplyScatter<T>(updates, out, offsets, slice, mode), supported = false);
    if (!supported) return ctx.Error(ctx.node().op + " does not support dtype " + DTypeShortName(dt));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterGatherScatterOps(OpRegistry& registry) {
  const std::pair<const char*, ScatterMode> tensor_scatters[] = {
      {"TensorScatterUpdate", ScatterMode::kUpdate}, {"TensorScatterAdd", ScatterMode::kAdd},
      {"TensorScatterSub", ScatterMode::kSub},       {"TensorScatterMin", ScatterMode::kMin},
      {"TensorScatterMax", ScatterMode::kMax}};
  for (const auto& [name, mode] : tensor_scatters) {
    const ScatterMode m = mode;
    registry.Register(ir::OpDefBuilder(name)
                          .Input("tensor: T")
                          .Input("indices: Tindices")
                          .Input("updates: T")
                          .Output("output: T")
                          .Attr("T: type")
                          .Attr("Tindices: {int16, int32, int64, uint16}")
                          .Attr("bad_indices_policy: string = \"\""),
                      [m](KernelContext& ctx) { return TensorScatterKernel(ctx, m); });
  }
  registry.Register(ir::OpDefBuilder("GatherV2")
                        .Input("params: Tparams").Input("indices: Tindices").Input("axis: Taxis")
                        .Output("output: Tparams")
                        .Attr("batch_dims: int = 0").Attr("Tparams: type")
                        .Attr("Tindices: {int16, int32, int64}").Attr("Taxis: {int32, int64}"),
                    GatherV2Kernel);
  registry.Register(ir::OpDefBuilder("Gather")
                        .Input("params: Tparams").Input("indices: Tindices")
                        .Output("output: Tparams")
                        .Attr("validate_indices: bool = true").Attr("Tparams: type")
                        .Attr("Tindices: {int32, int64}"),
                    GatherKernel);
  registry.Register(ir::OpDefBuilder("GatherNd")
                        .Input("params: Tparams").Input("indices: Tindices")
                        .Output("output: Tparams")
                        .Attr("Tparams: type").Attr("Tindices: {int16, int32, int64}")
                        .Attr("bad_indices_policy: string = ''"),
                    GatherNdKernel);
  registry.Register(ir::OpDefBuilder("ScatterNd")
                        .Input("indices: Tindices").Input("updates: T").Input("shape: Tindices")
                        .Output("output: T")
                        .Attr("T: type").Attr("Tindices: {int16, int32, int64}")
                        .Attr("bad_indices_policy: string = ''"),
                    ScatterNdKernel);
}

}  // namespace tfhost::ops::array
