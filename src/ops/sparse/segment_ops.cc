// SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN and their
// WithNumSegments forms: what embedding_lookup_sparse (categorical columns in
// Estimator/TFX models) compiles to.
//
//   output[s] = reduce over k with segment_ids[k] == s of data[indices[k]]
// where the rows are data's dim 0. segment_ids must be sorted
// (non-decreasing); the output has last_id + 1 rows (or num_segments).
// Segments with no entries are zero. Mean divides by the entry count, SqrtN
// by its square root. Sums accumulate in double.
#include <cmath>

#include "ops/array/array_util.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/sparse/sparse_util.h"

namespace tfhost::ops::sparse {
namespace {

enum class Reduce { kSum, kMean, kSqrtN };

std::string Str(int64_t v) { return std::to_string(v); }

template <Reduce kReduce, bool kWithNumSegments>
Status SparseSegment(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices_t = ctx.input(1);
  const Tensor& ids_t = ctx.input(2);
  if (!IsRealNumber(data.dtype())) return ctx.Error("data must be a real number tensor");
  if (data.rank() < 1) return ctx.Error("data must be at least 1-D, got a scalar");
  if (indices_t.rank() != 1) return ctx.Error("indices should be a vector, got " + indices_t.shape().ToString());
  if (ids_t.rank() != 1) return ctx.Error("segment_ids should be a vector, got " + ids_t.shape().ToString());
  if (indices_t.dim(0) != ids_t.dim(0)) {
    return ctx.Error("segment_ids and indices should have same size, got " + Str(ids_t.dim(0)) + " and " +
                     Str(indices_t.dim(0)));
  }
  auto indices = indices_t.ToInt64Vector();
  auto ids = ids_t.ToInt64Vector();
  if (!indices.ok() || !ids.ok()) return ctx.Error("indices and segment_ids must be integer tensors");
  const int64_t k = indices_t.dim(0);
  if (k > 0 && ((*ids)[k - 1] < 0 || (*ids)[k - 1] >= (int64_t{1} << 40))) {
    return ctx.Error("segment_ids[" + Str(k - 1) + "] = " + Str((*ids)[k - 1]) + " is out of range");
  }
  int64_t num_segments = k == 0 ? 0 : (*ids)[k - 1] + 1;
  if (kWithNumSegments) {
    TFHOST_ASSIGN_OR_RETURN(num_segments, array::ReadIndexScalar(ctx, 3, "num_segments"));
    if (num_segments < 0) return ctx.Error("num_segments must be non-negative, got " + Str(num_segments));
  }
  const int64_t rows = data.dim(0);
  const int64_t row_size = array::DimProduct(data.shape(), 1, data.rank());
  for (int64_t i = 0; i < k; ++i) {
    if ((*indices)[i] < 0 || (*indices)[i] >= rows) {
      return ctx.Error("Bad: indices[" + Str(i) + "] == " + Str((*indices)[i]) + " out of range [0, " +
                       Str(rows) + ")");
    }
    if ((*ids)[i] < 0 || (*ids)[i] >= num_segments) {
      return ctx.Error("segment_ids[" + Str(i) + "] = " + Str((*ids)[i]) + " is out of range [0, " +
                       Str(num_segments) + ")");
    }
    if (i > 0 && (*ids)[i] < (*ids)[i - 1]) return ctx.Error("segment ids are not increasing");
  }
  std::vector<int64_t> dims = data.shape().dims();
  dims[0] = num_segments;
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, dims, "output"));
  // An empty output (rows of no elements) needs no scratch, however many
  // segments there are: a count per segment for 2^40 of them is 8 TiB.
  if (out_shape.num_elements() == 0) {
    ctx.set_output(0, Tensor(data.dtype(), out_shape));
    return OkStatus();
  }
  // The output first: a session's tensor limit (max_tensor_bytes_in_use)
  // refuses a huge one before the double-precision scratch, as large or
  // larger and outside that limit, is allocated.
  Tensor out(data.dtype(), out_shape);
  const std::vector<double> x = data.ToDoubleVector();
  std::vector<double> acc(static_cast<size_t>(out_shape.num_elements()), 0.0);
  std::vector<int64_t> count(kReduce == Reduce::kSum ? 0 : num_segments, 0);
  for (int64_t i = 0; i < k; ++i) {
    const double* src = x.data() + (*indices)[i] * row_size;
    double* dst = acc.data() + (*ids)[i] * row_size;
    for (int64_t j = 0; j < row_size; ++j) dst[j] += src[j];
    if (kReduce != Reduce::kSum) ++count[(*ids)[i]];
  }
  if (kReduce != Reduce::kSum) {
    for (int64_t s = 0; s < num_segments; ++s) {
      if (count[s] == 0) continue;
      double div = kReduce == Reduce::kMean ? static_cast<double>(count[s]) : std::sqrt(static_cast<double>(count[s]));
      for (int64_t j = 0; j < row_size; ++j) acc[s * row_size + j] /= div;
    }
  }
  StoreDoubles(acc, out);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

ir::OpDefBuilder Schema(const char* name, bool real_only, bool with_num_segments) {
  ir::OpDefBuilder b(name);
  b.Input("data: T").Input("indices: Tidx").Input("segment_ids: Tsegmentids");
  if (with_num_segments) b.Input("num_segments: Tnumsegments");
  b.Output("output: T");
  b.Attr(real_only ? "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}" : "T: {bfloat16, half, float, double}");
  b.Attr("Tidx: {int32, int64} = DT_INT32");
  if (with_num_segments) b.Attr("Tnumsegments: {int32,int64} = DT_INT32");
  b.Attr("Tsegmentids: {int32, int64} = DT_INT32");
  // TF >= 2.16 records how gradients flow; it does not change the forward value.
  b.Attr("sparse_gradient: bool = false");
  return b;
}

}  // namespace

void RegisterSparseSegmentOps(OpRegistry& registry) {
  registry.Register(Schema("SparseSegmentSum", true, false), SparseSegment<Reduce::kSum, false>);
  registry.Register(Schema("SparseSegmentMean", false, false), SparseSegment<Reduce::kMean, false>);
  registry.Register(Schema("SparseSegmentSqrtN", false, false),
                         SparseSegment<Reduce::kSqrtN, false>);
  registry.Register(Schema("SparseSegmentSumWithNumSegments", true, true),
                         SparseSegment<Reduce::kSum, true>);
  registry.Register(Schema("SparseSegmentMeanWithNumSegments", false, true),
                         SparseSegment<Reduce::kMean, true>);
  registry.Register(Schema("SparseSegmentSqrtNWithNumSegments", false, true),
                         SparseSegment<Reduce::kSqrtN, true>);
}

}  // namespace tfhost::ops::sparse
