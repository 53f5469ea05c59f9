// SparseAdd, SparseTensorDenseAdd, SparseDenseCwise* and the sparse reductions
// (SparseReduceSum/Max and their *Sparse forms): the sparse ops that compute
// on values.
//
//   SparseAdd: merges two SparseTensors of one dense_shape, both in row-major
//     order (TensorFlow assumes it; here an unsorted input is an error). An
//     index present in both gives a + b, kept only when thresh <= |a + b|;
//     an index present in one input is copied whatever its magnitude.
//   SparseTensorDenseAdd: b + the sparse tensor a (repeated indices add up).
//   SparseDenseCwiseAdd/Mul/Div: the stored values op the dense tensor
//     broadcast to the sparse shape; the indices stay those of the input.
//   SparseReduceSum/Max: reduce over reduction_axes (negative counts from the
//     back, repeats allowed) as tf.sparse.reduce_sum / reduce_max document:
//     only the stored entries take part, so Max of [[-7, ?]] over axis 1 is
//     -7, and a group without entries yields 0. The dense forms return a
//     dense tensor; the *Sparse forms one entry per non-empty group, in
//     row-major order. keep_dims keeps reduced dims with size 1.
//
// Integer sums wrap around as TensorFlow's do; float sums accumulate in
// double and half/bfloat16 compute in float.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <type_traits>

#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/sparse/sparse_tensor_util.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// a + b, wrapping for integers (no signed-overflow UB).
template <typename Acc>
Acc WrapAdd(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) {
    using U = std::make_unsigned_t<Acc>;
    return static_cast<Acc>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename Acc>
double Magnitude(Acc v) {
  if constexpr (std::is_unsigned_v<Acc>) {
    return static_cast<double>(v);
  } else {
    return std::fabs(static_cast<double>(v));
  }
}

Status UnsupportedDType(const KernelContext& ctx, DType dtype) {
  return ctx.Error("values of dtype " + DTypeName(dtype) + " are not supported (real number types only)");
}

Status CheckSorted(const KernelContext& ctx, const SparseView& sp, const std::string& what) {
  const int64_t bad = FirstUnsortedEntry(sp);
  if (bad < 0) return OkStatus();
  return ctx.Error(what + " indices must be in row-major order (use tf.sparse.reorder): entry " + Str(bad) +
                   " comes before entry " + Str(bad - 1));
}

Status SparseAdd(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(SparseView a, ReadSparseTensor(ctx, 0, 1, 2, "a"));
  TFHOST_ASSIGN_OR_RETURN(SparseView b, ReadSparseTensor(ctx, 3, 4, 5, "b"));
  const DType dtype = a.values->dtype();
  if (b.values->dtype() != dtype) return ctx.Error("a_values and b_values have different dtypes");
  if (a.shape != b.shape) {
    return ctx.Error("operands' shapes do not match: a_shape " + array::JoinInts(a.shape) + ", b_shape " +
                     array::JoinInts(b.shape));
  }
  const Tensor& thresh_t = ctx.input(6);
  if (thresh_t.rank() != 0) return ctx.Error("thresh must be a scalar, got shape " + thresh_t.shape().ToString());
  const double thresh = thresh_t.ToDoubleVector()[0];
  TFHOST_RETURN_IF_ERROR(CheckSorted(ctx, a, "a"));
  TFHOST_RETURN_IF_ERROR(CheckSorted(ctx, b, "b"));
  const int64_t rank = a.rank;
  std::vector<int64_t> out_idx;
  Status status = OkStatus();
  Tensor out_values;
  const bool known = VisitRealNumber(dtype, [&](auto num) {
    using Num = decltype(num);
    using Acc = typename Num::Acc;
    std::vector<Acc> sums;
    auto take = [&](const int64_t* row, Acc v) {
      out_idx.insert(out_idx.end(), row, row + rank);
      sums.push_back(v);
    };
    int64_t i = 0, j = 0;
    while (i < a.nnz && j < b.nnz) {
      const int c = CompareIndex(a.Index(i), b.Index(j), rank);
      if (c < 0) {
        take(a.Index(i), Num::Load(*a.values, i));
        ++i;
      } else if (c > 0) {
        take(b.Index(j), Num::Load(*b.values, j));
        ++j;
      } else {
        const Acc s = WrapAdd<Acc>(Num::Load(*a.values, i), Num::Load(*b.values, j));
        if (thresh <= Magnitude(s)) take(a.Index(i), s);
        ++i;
        ++j;
      }
    }
    for (; i < a.nnz; ++i) take(a.Index(i), Num::Load(*a.values, i));
    for (; j < b.nnz; ++j) take(b.Index(j), Num::Load(*b.values, j));
    out_values = Tensor(dtype, Shape({static_cast<int64_t>(sums.size())}));
    for (size_t k = 0; k < sums.size(); ++k) Num::Store(out_values, static_cast<int64_t>(k), sums[k]);
  });
  if (!known) return UnsupportedDType(ctx, dtype);
  TFHOST_RETURN_IF_ERROR(status);
  const int64_t n = out_values.dim(0);
  ctx.set_output(0, Tensor::FromVector<int64_t>(out_idx, Shape({n, rank})));
  ctx.set_output(1, std::move(out_values));
  ctx.set_output(2, Tensor::FromVector<int64_t>(a.shape));
  return OkStatus();
}

Status SparseTensorDenseAdd(KernelContext& ctx) {
  const Tensor& idx_t = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& b = ctx.input(3);
  if (idx_t.rank() != 2) return ctx.Error("a_indices must be 2-D, got shape " + idx_t.shape().ToString());
  if (values.rank() != 1 || values.dim(0) != idx_t.dim(0)) {
    return ctx.Error("a_values must be 1-D with one entry per index row (" + Str(idx_t.dim(0)) + "), got shape " +
                     values.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> shape, array::ReadIndexVector(ctx, 2, "a_shape"));
  if (ctx.input(2).rank() != 1) return ctx.Error("a_shape must be 1-D");
  if (static_cast<int64_t>(shape.size()) != b.rank() || idx_t.dim(1) != b.rank()) {
    return ctx.Error("a has rank " + Str(static_cast<int64_t>(shape.size())) + " (indices with " +
                     Str(idx_t.dim(1)) + " columns) but b has rank " + Str(b.rank()));
  }
  for (int d = 0; d < b.rank(); ++d) {
    if (shape[d] != b.dim(d)) {
      return ctx.Error("a_shape " + array::JoinInts(shape) + " does not match b's shape " + b.shape().ToString());
    }
  }
  if (values.dtype() != b.dtype()) return ctx.Error("a_values and b have different dtypes");
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> idx, idx_t.ToInt64Vector());
  const int64_t rank = b.rank();
  const std::vector<int64_t> strides = array::RowMajorStrides(b.shape());
  std::vector<int64_t> flat(values.dim(0));
  for (int64_t i = 0; i < values.dim(0); ++i) {
    int64_t f = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t x = idx[i * rank + d];
      if (x < 0 || x >= shape[d]) {
        return ctx.Error("a_indices[" + Str(i) + ", " + Str(d) + "] = " + Str(x) + " is out of bounds of a_shape " +
                         array::JoinInts(shape));
      }
      f += x * strides[d];
    }
    flat[i] = f;
  }
  Tensor out(b.dtype(), b.shape());
  const bool known = VisitRealNumber(b.dtype(), [&](auto num) {
    using Num = decltype(num);
    for (int64_t k = 0; k < b.NumElements(); ++k) Num::Store(out, k, Num::Load(b, k));
    for (size_t i = 0; i < flat.size(); ++i) {
      Num::Store(out, flat[i], WrapAdd(Num::Load(out, flat[i]), Num::Load(values, static_cast<int64_t>(i))));
    }
  });
  if (!known) return UnsupportedDType(ctx, b.dtype());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

enum class Cwise { kAdd, kMul, kDiv };

// SparseDenseCwise{Add,Mul,Div}: sp_values[i] op dense[index i], with dense
// broadcast to sp_shape (right-aligned; each dim equal or 1) — only the
// stored entries are computed, so the output has the input's indices.
Status SparseDenseCwise(KernelContext& ctx, Cwise op) {
  TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, 0, 1, 2, "sp"));
  const Tensor& dense = ctx.input(3);
  const DType dtype = sp.values->dtype();
  if (dense.dtype() != dtype) return ctx.Error("sp_values and dense have different dtypes");
  if (dense.rank() > sp.rank) {
    return ctx.Error("dense of shape " + dense.shape().ToString() + " cannot broadcast to sp_shape " +
                     array::JoinInts(sp.shape) + ": it has more dims");
  }
  const int64_t lead = sp.rank - dense.rank();
  for (int d = 0; d < dense.rank(); ++d) {
    if (dense.dim(d) != 1 && dense.dim(d) != sp.shape[lead + d]) {
      return ctx.Error("dense of shape " + dense.shape().ToString() + " cannot broadcast to sp_shape " +
                       array::JoinInts(sp.shape) + " (only the dense side broadcasts)");
    }
  }
  const std::vector<int64_t> strides = array::RowMajorStrides(dense.shape());
  Tensor out(dtype, Shape({sp.nnz}));
  Status status = OkStatus();
  const bool known = VisitRealNumber(dtype, [&](auto num) {
    using Num = decltype(num);
    using Acc = typename Num::Acc;
    for (int64_t i = 0; i < sp.nnz && status.ok(); ++i) {
      int64_t flat = 0;
      for (int d = 0; d < dense.rank(); ++d) {
        if (dense.dim(d) != 1) flat += sp.Index(i)[lead + d] * strides[d];
      }
      const Acc a = Num::Load(*sp.values, i);
      const Acc b = Num::Load(dense, flat);
      Acc r{};
      if (op == Cwise::kAdd) {
        r = WrapAdd<Acc>(a, b);
      } else if (op == Cwise::kMul) {
        if constexpr (std::is_integral_v<Acc>) {
          r = static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));  // wraps, no UB
        } else {
          r = a * b;
        }
      } else if constexpr (std::is_integral_v<Acc>) {
        if (b == 0) {
          status = ctx.Error("integer division by zero at sparse entry " + Str(i));
        } else if (std::is_signed_v<Acc> && b == static_cast<Acc>(-1)) {
          r = static_cast<Acc>(std::make_unsigned_t<Acc>(0) - static_cast<std::make_unsigned_t<Acc>>(a));
        } else {
          r = static_cast<Acc>(a / b);
        }
      } else {
        r = a / b;
      }
      Num::Store(out, i, r);
    }
  });
  if (!known) return UnsupportedDType(ctx, dtype);
  TFHOST_RETURN_IF_ERROR(status);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

enum class Reduce { kSum, kMax };

// Shared by the four reductions: groups the entries by their coordinates in
// the dims that are not reduced and reduces each group's values.
Status SparseReduce(KernelContext& ctx, Reduce op, bool sparse_output) {
  TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, 0, 1, 2, "input"));
  TFHOST_ASSIGN_OR_RETURN(bool keep_dims, ctx.AttrOr<bool>("keep_dims", false));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axes_in, array::ReadIndexVector(ctx, 3, "reduction_axes"));
  std::vector<bool> reduced(sp.rank, false);
  for (int64_t axis : axes_in) {
    TFHOST_ASSIGN_OR_RETURN(int a, array::NormalizeAxis(ctx, axis, static_cast<int>(sp.rank), "reduction_axes"));
    reduced[a] = true;
  }
  // Output dims: kept dims, and reduced ones as 1 under keep_dims.
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d < sp.rank; ++d) {
    if (!reduced[d]) {
      out_dims.push_back(sp.shape[d]);
    } else if (keep_dims) {
      out_dims.push_back(1);
    }
  }
  const int64_t out_rank = static_cast<int64_t>(out_dims.size());
  const DType dtype = sp.values->dtype();
  Status status = OkStatus();
  const bool known = VisitRealNumber(dtype, [&](auto num) {
    using Num = decltype(num);
    using Acc = typename Num::Acc;
    using Sum = std::conditional_t<std::is_floating_point_v<Acc>, double, Acc>;
    // Group key = the output index of the group; std::map keeps row-major order.
    std::map<std::vector<int64_t>, Sum> groups;
    std::vector<int64_t> key(out_rank);
    for (int64_t i = 0; i < sp.nnz; ++i) {
      const int64_t* row = sp.Index(i);
      int64_t k = 0;
      for (int64_t d = 0; d < sp.rank; ++d) {
        if (!reduced[d]) {
          key[k++] = row[d];
        } else if (keep_dims) {
          key[k++] = 0;
        }
      }
      const Sum v = static_cast<Sum>(Num::Load(*sp.values, i));
      auto [it, fresh] = groups.try_emplace(key, v);
      if (fresh) continue;
      if (op == Reduce::kSum) {
        it->second = WrapAdd<Sum>(it->second, v);
      } else if (v > it->second || std::isnan(static_cast<double>(v))) {
        it->second = v;
      }
    }
    if (sparse_output) {
      const int64_t n = static_cast<int64_t>(groups.size());
      Tensor out_idx(DType::kInt64, Shape({n, out_rank}));
      Tensor out_values(dtype, Shape({n}));
      int64_t pos = 0;
      for (const auto& [k, v] : groups) {
        std::copy(k.begin(), k.end(), out_idx.data<int64_t>() + pos * out_rank);
        Num::Store(out_values, pos++, static_cast<Acc>(v));
      }
      ctx.set_output(0, std::move(out_idx));
      ctx.set_output(1, std::move(out_values));
      ctx.set_output(2, Tensor::FromVector<int64_t>(out_dims));
      return;
    }
    auto shape = array::OutputShape(ctx, out_dims, "output shape");
    if (!shape.ok()) {
      status = shape.status();
      return;
    }
    Tensor out(dtype, *shape);
    const std::vector<int64_t> strides = array::RowMajorStrides(*shape);
    for (const auto& [k, v] : groups) {
      int64_t flat = 0;
      for (int64_t d = 0; d < out_rank; ++d) flat += k[d] * strides[d];
      Num::Store(out, flat, static_cast<Acc>(v));
    }
    ctx.set_output(0, std::move(out));
  });
  if (!known) return UnsupportedDType(ctx, dtype);
  return status;
}

ir::OpDefBuilder ReduceSchema(const std::string& name, bool sparse_output) {
  ir::OpDefBuilder b(name);
  b.Input("input_indices: int64").Input("input_values: T").Input("input_shape: int64").Input("reduction_axes: int32");
  b.Attr("keep_dims: bool = false");
  if (sparse_output) {
    b.Output("output_indices: int64").Output("output_values: T").Output("output_shape: int64");
  } else {
    b.Output("output: T");
  }
  b.Attr(std::string("T: ") + kRealNumberTypes);
  return b;
}

}  // namespace

void RegisterSparseAddReduceOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SparseAdd")
                        .Input("a_indices: int64")
                        .Input("a_values: T")
                        .Input("a_shape: int64")
                        .Input("b_indices: int64")
                        .Input("b_values: T")
                        .Input("b_shape: int64")
                        .Input("thresh: Treal")
                        .Output("sum_indices: int64")
                        .Output("sum_values: T")
                        .Output("sum_shape: int64")
                        .Attr(std::string("T: ") + kRealNumberTypes)
                        .Attr(std::string("Treal: ") + kRealNumberTypes),
                    SparseAdd);
  registry.Register(ir::OpDefBuilder("SparseTensorDenseAdd")
                        .Input("a_indices: Tindices")
                        .Input("a_values: T")
                        .Input("a_shape: Tindices")
                        .Input("b: T")
                        .Output("output: T")
                        .Attr(std::string("T: ") + kRealNumberTypes)
                        .Attr("Tindices: {int32, int64}"),
                    SparseTensorDenseAdd);
  const std::pair<const char*, Cwise> cwise[] = {
      {"SparseDenseCwiseAdd", Cwise::kAdd}, {"SparseDenseCwiseMul", Cwise::kMul}, {"SparseDenseCwiseDiv", Cwise::kDiv}};
  for (const auto& [name, op] : cwise) {
    registry.Register(ir::OpDefBuilder(name)
                          .Input("sp_indices: int64")
                          .Input("sp_values: T")
                          .Input("sp_shape: int64")
                          .Input("dense: T")
                          .Output("output: T")
                          .Attr(std::string("T: ") + kRealNumberTypes),
                      [op = op](KernelContext& ctx) { return SparseDenseCwise(ctx, op); });
  }
  registry.Register(ReduceSchema("SparseReduceSum", false),
                         [](KernelContext& ctx) { return SparseReduce(ctx, Reduce::kSum, false); });
  registry.Register(ReduceSchema("SparseReduceSumSparse", true),
                         [](KernelContext& ctx) { return SparseReduce(ctx, Reduce::kSum, true); });
  registry.Register(ReduceSchema("SparseReduceMax", false),
                         [](KernelContext& ctx) { return SparseReduce(ctx, Reduce::kMax, false); });
  registry.Register(ReduceSchema("SparseReduceMaxSparse", true),
                         [](KernelContext& ctx) { return SparseReduce(ctx, Reduce::kMax, true); });
}

}  // namespace tfhost::ops::sparse
