// SparseSparseMaximum / SparseSparseMinimum and SparseSoftmax
// (tf.sparse.maximum, tf.sparse.minimum, tf.sparse.softmax).
//
//   SparseSparseMaximum/Minimum: two SparseTensors of one shape, each in
//     row-major order (unsorted input is an error, repeated indices too); the
//     output holds the union of their indices, in row-major order, and an
//     index stored in only one input is compared with 0 — the implicit zero of
//     the other — as tf.sparse.maximum documents.
//   SparseSoftmax: softmax over each group of entries that share all but the
//     last index (only stored entries take part; implicit zeros are not -inf
//     logits but absent). Output values keep the input's entry order. The
//     input must be at least 2-D.
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>

#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/sparse/sparse_tensor_util.h"

namespace tfhost::ops::sparse {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status CheckStrictlySorted(const KernelContext& ctx, const SparseView& sp, const std::string& what) {
  for (int64_t i = 1; i < sp.nnz; ++i) {
    if (CompareIndex(sp.Index(i - 1), sp.Index(i), sp.rank) >= 0) {
      return ctx.Error(what + " indices must be in row-major order without repeats (use tf.sparse.reorder): entry " +
                       Str(i) + " does not come after entry " + Str(i - 1));
    }
  }
  return OkStatus();
}

Status SparseSparseMinMax(KernelContext& ctx, bool maximum) {
  TFHOST_ASSIGN_OR_RETURN(SparseView a, ReadSparseTensor(ctx, 0, 1, 2, "a"));
  TFHOST_ASSIGN_OR_RETURN(SparseView b, ReadSparseTensor(ctx, 3, 4, 5, "b"));
  const DType dtype = a.values->dtype();
  if (b.values->dtype() != dtype) return ctx.Error("a_values and b_values have different dtypes");
  if (a.shape != b.shape) {
    return ctx.Error("operands do not have the same shape: a_shape " + array::JoinInts(a.shape) + ", b_shape " +
                     array::JoinInts(b.shape));
  }
  TFHOST_RETURN_IF_ERROR(CheckStrictlySorted(ctx, a, "a"));
  TFHOST_RETURN_IF_ERROR(CheckStrictlySorted(ctx, b, "b"));
  const int64_t rank = a.rank;
  std::vector<int64_t> out_idx;
  Tensor out_values;
  const bool known = VisitRealNumber(dtype, [&](auto num) {
    using Num = decltype(num);
    using Acc = typename Num::Acc;
    std::vector<Acc> vals;
    auto pick = [&](Acc x, Acc y) {
      if (std::isnan(static_cast<double>(x)) || std::isnan(static_cast<double>(y))) {
        return std::numeric_limits<Acc>::quiet_NaN();
      }
      return maximum ? (x < y ? y : x) : (y < x ? y : x);
    };
    auto take = [&](const int64_t* row, Acc v) {
      out_idx.insert(out_idx.end(), row, row + rank);
      vals.push_back(v);
    };
    int64_t i = 0, j = 0;
    while (i < a.nnz || j < b.nnz) {
      const int c = i == a.nnz ? 1 : j == b.nnz ? -1 : CompareIndex(a.Index(i), b.Index(j), rank);
      if (c < 0) {
        take(a.Index(i), pick(Num::Load(*a.values, i), Acc(0)));
        ++i;
      } else if (c > 0) {
        take(b.Index(j), pick(Acc(0), Num::Load(*b.values, j)));
        ++j;
      } else {
        take(a.Index(i), pick(Num::Load(*a.values, i), Num::Load(*b.values, j)));
        ++i;
        ++j;
      }
    }
    out_values = Tensor(dtype, Shape({static_cast<int64_t>(vals.size())}));
    for (size_t k = 0; k < vals.size(); ++k) Num::Store(out_values, static_cast<int64_t>(k), vals[k]);
  });
  if (!known) return ctx.Error("values of dtype " + DTypeName(dtype) + " are not supported (real number types only)");
  const int64_t n = out_values.dim(0);
  ctx.set_output(0, Tensor::FromVector<int64_t>(out_idx, Shape({n, rank})));
  ctx.set_output(1, std::move(out_values));
  return OkStatus();
}

Status SparseSoftmax(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(SparseView sp, ReadSparseTensor(ctx, 0, 1, 2, "sp"));
  if (sp.rank < 2) return ctx.Error("sp_indices must have rank >= 2 (a softmax over the last dim), got rank " + Str(sp.rank));
  const DType dtype = sp.values->dtype();
  if (dtype != DType::kFloat && dtype != DType::kDouble && dtype != DType::kHalf) {
    return ctx.Error("sp_values must be half, float or double, got " + DTypeName(dtype));
  }
  // Group key: the index without its last entry.
  std::map<std::vector<int64_t>, std::vector<int64_t>> groups;
  for (int64_t i = 0; i < sp.nnz; ++i) {
    groups[std::vector<int64_t>(sp.Index(i), sp.Index(i) + sp.rank - 1)].push_back(i);
  }
  Tensor out(dtype, Shape({sp.nnz}));
  VisitRealNumber(dtype, [&](auto num) {
    using Num = decltype(num);
    using Acc = typename Num::Acc;
    for (const auto& [key, members] : groups) {
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t i : members) top = std::max(top, static_cast<double>(Num::Load(*sp.values, i)));
      double sum = 0;
      for (int64_t i : members) sum += std::exp(static_cast<double>(Num::Load(*sp.values, i)) - top);
      for (int64_t i : members) {
        Num::Store(out, i, static_cast<Acc>(std::exp(static_cast<double>(Num::Load(*sp.values, i)) - top) / sum));
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

ir::OpDefBuilder MinMaxSchema(const std::string& name) {
  ir::OpDefBuilder b(name);
  b.Input("a_indices: int64").Input("a_values: T").Input("a_shape: int64");
  b.Input("b_indices: int64").Input("b_values: T").Input("b_shape: int64");
  b.Output("output_indices: int64").Output("output_values: T");
  b.Attr(std::string("T: ") + kRealNumberTypes);
  return b;
}

}  // namespace

void RegisterSparseElementwiseOps(OpRegistry& registry) {
  registry.Register(MinMaxSchema("SparseSparseMaximum"),
                         [](KernelContext& ctx) { return SparseSparseMinMax(ctx, true); });
  registry.Register(MinMaxSchema("SparseSparseMinimum"),
                         [](KernelContext& ctx) { return SparseSparseMinMax(ctx, false); });
  registry.Register(ir::OpDefBuilder("SparseSoftmax")
                        .Input("sp_indices: int64")
                        .Input("sp_values: T")
                        .Input("sp_shape: int64")
                        .Output("output: T")
                        .Attr("T: {half, float, double}"),
                    SparseSoftmax);
}

}  // namespace tfhost::ops::sparse
