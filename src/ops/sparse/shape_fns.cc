// Shape functions of the sparse ops. Entry counts depend on the data, so most
// outputs know their rank and the columns only.
#include "ops/sparse/sparse_ops.h"

namespace tfhost::ops {
namespace {

using ir::PartialShape;

Status SparseToDenseShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.InputAsShape(1));
  return OkStatus();
}

Status SparseFillEmptyRowsShape(ShapeContext& ctx) {
  const PartialShape& idx = ctx.input(0);
  int64_t rank = idx.rank() == 2 ? idx.dim(1) : -1;
  if (rank < 0 && ctx.input(2).rank() == 1) rank = ctx.input(2).dim(0);
  ctx.set_output(0, PartialShape::Known({-1, rank}));
  ctx.set_output(1, PartialShape::Known({-1}));
  auto shape = ctx.InputInts(2);
  ctx.set_output(2, PartialShape::Known({shape && !shape->empty() ? (*shape)[0] : -1}));
  ctx.set_output(3, PartialShape::Known({idx.rank() == 2 ? idx.dim(0) : -1}));
  return OkStatus();
}

Status SparseReshapeShape(ShapeContext& ctx) {
  const PartialShape& idx = ctx.input(0);
  const PartialShape& ns = ctx.input(2);
  const int64_t out_rank = ns.rank() == 1 ? ns.dim(0) : -1;
  ctx.set_output(0, PartialShape::Known({idx.rank() == 2 ? idx.dim(0) : -1, out_rank}));
  ctx.set_output(1, PartialShape::Known({out_rank}));
  return OkStatus();
}

Status SparseSegmentShape(ShapeContext& ctx) {
  const PartialShape& data = ctx.input(0);
  if (!data.rank_known() || data.rank() < 1) return OkStatus();
  PartialShape out = data;
  out.dims[0] = -1;
  if (ctx.num_inputs() == 4) {
    auto n = ctx.InputInts(3);
    if (n && n->size() == 1 && (*n)[0] >= 0) out.dims[0] = (*n)[0];
  }
  ctx.set_output(0, out);
  return OkStatus();
}

Status SparseTensorDenseMatMulShape(ShapeContext& ctx) {
  const bool adj_a = ctx.AttrOr<bool>("adjoint_a", false).value_or(false);
  const bool adj_b = ctx.AttrOr<bool>("adjoint_b", false).value_or(false);
  auto a_shape = ctx.InputInts(2);
  int64_t rows = -1;
  if (a_shape && a_shape->size() == 2) rows = (*a_shape)[adj_a ? 1 : 0];
  const PartialShape& b = ctx.input(3);
  int64_t cols = b.rank() == 2 ? b.dim(adj_b ? 0 : 1) : -1;
  ctx.set_output(0, PartialShape::Known({rows, cols}));
  return OkStatus();
}

// The crosses: [nnz, 2] indices, [nnz] values, a 2-vector dense shape.
Status SparseCrossShape(ShapeContext& ctx) {
  ctx.set_output(0, PartialShape::Known({-1, 2}));
  ctx.set_output(1, PartialShape::Known({-1}));
  ctx.set_output(2, PartialShape::Known({2}));
  return OkStatus();
}

// Segment*: [unknown rows] + data.shape[1:]; UnsortedSegment*:
// [num_segments] + data.shape[ids.rank:].
Status DenseSegmentShape(ShapeContext& ctx) {
  const PartialShape& data = ctx.input(0);
  if (!data.rank_known() || data.rank() < 1) return OkStatus();
  const bool unsorted = ctx.num_inputs() == 3;
  int k = 1;
  int64_t rows = -1;
  if (unsorted) {
    if (!ctx.input(1).rank_known() || ctx.input(1).rank() > data.rank()) return OkStatus();
    k = ctx.input(1).rank();
    auto n = ctx.InputInts(2);
    if (n && n->size() == 1 && (*n)[0] >= 0) rows = (*n)[0];
  }
  std::vector<int64_t> dims = {rows};
  dims.insert(dims.end(), data.dims.begin() + k, data.dims.end());
  ctx.set_output(0, PartialShape::Known(dims));
  return OkStatus();
}

// Rank of the SparseTensor whose indices are input i and dense_shape input j.
int64_t SparseRank(const ShapeContext& ctx, int i, int j) {
  if (ctx.input(i).rank() == 2 && ctx.input(i).dim(1) >= 0) return ctx.input(i).dim(1);
  if (ctx.input(j).rank() == 1) return ctx.input(j).dim(0);
  return -1;
}

// Every output group (indices, values, shape) of a sparse result of `rank`.
void SetSparseOutputs(ShapeContext& ctx, int64_t rank, int groups = 1) {
  for (int g = 0; g < groups; ++g) {
    ctx.set_output(g, PartialShape::Known({-1, rank}));
    ctx.set_output(groups + g, PartialShape::Known({-1}));
    ctx.set_output(2 * groups + g, PartialShape::Known({rank}));
  }
}

Status SparseReorderShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  ctx.set_output(1, ctx.input(1));
  return OkStatus();
}

// SparseSlice, SparseAdd, SparseConcat (first N inputs are indices, the last N
// dense shapes) and SparseSplit (num_split groups of outputs).
Status SparseSliceAddShape(ShapeContext& ctx) {
  SetSparseOutputs(ctx, SparseRank(ctx, 0, 2));
  return OkStatus();
}
Status SparseConcatShape(ShapeContext& ctx) {
  const int n = ctx.num_inputs() / 3;
  SetSparseOutputs(ctx, n > 0 ? SparseRank(ctx, 0, 2 * n) : -1);
  return OkStatus();
}
Status SparseSplitShape(ShapeContext& ctx) {
  const int groups = ctx.num_outputs() / 3;
  if (groups > 0) SetSparseOutputs(ctx, SparseRank(ctx, 1, 3), groups);
  return OkStatus();
}

// SparseReduceSum/Max: the dense output shape when dense_shape and
// reduction_axes are constant, else the rank only when keep_dims.
Status SparseReduceShape(ShapeContext& ctx) {
  const bool keep = ctx.AttrOr<bool>("keep_dims", false).value_or(false);
  const int64_t rank = SparseRank(ctx, 0, 2);
  auto shape = ctx.InputInts(2);
  auto axes = ctx.InputInts(3);
  if (shape && axes && static_cast<int64_t>(shape->size()) == rank) {
    std::vector<bool> reduced(rank, false);
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank) return ctx.Error("reduction axis " + std::to_string(a) + " is out of range");
      reduced[a < 0 ? a + rank : a] = true;
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) dims.push_back((*shape)[d]);
      else if (keep) dims.push_back(1);
    }
    ctx.set_output(0, PartialShape::Known(dims));
  } else if (keep && rank >= 0) {
    ctx.set_output(0, PartialShape::Known(std::vector<int64_t>(rank, -1)));
  }
  return OkStatus();
}
Status SparseReduceSparseShape(ShapeContext& ctx) {
  const bool keep = ctx.AttrOr<bool>("keep_dims", false).value_or(false);
  SetSparseOutputs(ctx, keep ? SparseRank(ctx, 0, 2) : -1);
  return OkStatus();
}

}  // namespace

void RegisterSparseShapeFns(ShapeFnRegistry& registry) {
  registry.Register("SparseToDense", SparseToDenseShape);
  registry.Register("SparseFillEmptyRows", SparseFillEmptyRowsShape);
  registry.Register("SparseReshape", SparseReshapeShape);
  registry.Register({"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN", "SparseSegmentSumWithNumSegments",
                     "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments"},
                    SparseSegmentShape);
  registry.Register("SparseTensorDenseMatMul", SparseTensorDenseMatMulShape);
  registry.Register({"SparseCross", "SparseCrossV2", "SparseCrossHashed"}, SparseCrossShape);
  registry.Register({"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd", "UnsortedSegmentSum",
                     "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"},
                    DenseSegmentShape);
  registry.Register("SparseReorder", SparseReorderShape);
  registry.Register({"SparseSlice", "SparseAdd"}, SparseSliceAddShape);
  registry.Register("SparseConcat", SparseConcatShape);
  registry.Register("SparseSplit", SparseSplitShape);
  registry.Register("SparseTensorDenseAdd", [](ShapeContext& ctx) {
    ctx.set_output(0, ctx.input(3));
    return OkStatus();
  });
  registry.Register({"SparseSparseMaximum", "SparseSparseMinimum"}, [](ShapeContext& ctx) {
    const int64_t rank = SparseRank(ctx, 0, 2);
    ctx.set_output(0, PartialShape::Known({-1, rank}));
    ctx.set_output(1, PartialShape::Known({-1}));
    return OkStatus();
  });
  registry.Register({"SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseSoftmax"},
                    [](ShapeContext& ctx) {
    const PartialShape& idx = ctx.input(0);
    ctx.set_output(0, PartialShape::Known({idx.rank() == 2 ? idx.dim(0) : -1}));
    return OkStatus();
  });
  registry.Register({"SparseReduceSum", "SparseReduceMax"}, SparseReduceShape);
  // SparseBincount: [size] or [dense_shape[0], size]; RaggedBincount: [rows, size].
  registry.Register({"SparseBincount", "RaggedBincount"}, [](ShapeContext& ctx) {
    const bool ragged = ctx.node().op == "RaggedBincount";
    auto size = ctx.InputInts(ragged ? 2 : 3);
    const int64_t bins = size && size->size() == 1 ? (*size)[0] : -1;
    if (ragged) {
      const PartialShape& splits = ctx.input(0);
      ctx.set_output(0, PartialShape::Known({splits.rank() == 1 && splits.dim(0) > 0 ? splits.dim(0) - 1 : -1, bins}));
      return OkStatus();
    }
    auto shape = ctx.InputInts(2);
    if (shape && shape->size() == 1) {
      ctx.set_output(0, PartialShape::Known({bins}));
    } else if (shape && shape->size() == 2) {
      ctx.set_output(0, PartialShape::Known({(*shape)[0], bins}));
    } else if (ctx.input(2).rank() == 1 && ctx.input(2).dim(0) >= 1) {
      ctx.set_output(0, ctx.input(2).dim(0) == 1 ? PartialShape::Known({bins}) : PartialShape::Known({-1, bins}));
    }
    return OkStatus();
  });
  registry.Register({"SparseReduceSumSparse", "SparseReduceMaxSparse"}, SparseReduceSparseShape);
}

}  // namespace tfhost::ops
