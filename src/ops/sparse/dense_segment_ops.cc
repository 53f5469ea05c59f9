// Segment reductions over dense data: SegmentSum/Mean/Max/Min/Prod (sorted
// ids; graph networks, tf.math.segment_*) and UnsortedSegmentSum/Max/Min/Prod
// (ids in any order; Keras 3 segment ops, detection post-processing).
//
//   Segment*: data [N, ...], segment_ids [N] non-decreasing and >= 0; the
//     output has last_id + 1 rows; a segment with no entries is 0 (1 for
//     Prod), as TensorFlow documents for these ops.
//   UnsortedSegment*: segment_ids of shape data.shape[:k]; the output is
//     [num_segments] + data.shape[k:]; negative ids are dropped; an empty
//     segment is 0 for Sum, 1 for Prod, the type's lowest value for Max and
//     its highest for Min (numeric_limits, as TensorFlow).
// Floating-point values are combined in double, then rounded once to the
// output dtype; integers in their own type (wrapping, as TensorFlow).
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/array/array_util.h"
#include "ops/math/math_util.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/sparse/sparse_util.h"

namespace tfhost::ops::sparse {
namespace {

enum class Op { kSum, kMean, kMax, kMin, kProd };

std::vector<double> ReadDoubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DType::kHalf || t.dtype() == DType::kBFloat16) {
    const bool bf = t.dtype() == DType::kBFloat16;
    for (size_t i = 0; i < v.size(); ++i) v[i] = bf ? BFloat16ToFloat(t.data<uint16_t>()[i]) : HalfToFloat(t.data<uint16_t>()[i]);
    return v;
  }
  TFHOST_SWITCH_REAL_TYPES(t.dtype(), {
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(t.data<T>()[i]);
  }, {});
  return v;
}

// numeric_limits<T>::lowest() / max() of `dtype`, as double.
double Extreme(DType dtype, bool lowest) {
  double r = 0;
  switch (dtype) {
    case DType::kHalf: r = 65504.0; break;
    case DType::kBFloat16: r = 3.3895313892515355e38; break;
    default:
      TFHOST_SWITCH_REAL_TYPES(dtype, {
        r = lowest ? static_cast<double>(std::numeric_limits<T>::lowest()) : static_cast<double>(std::numeric_limits<T>::max());
        return r;
      }, {});
  }
  return lowest ? -r : r;
}

double Identity(Op op, DType dtype, bool unsorted) {
  switch (op) {
    case Op::kProd: return 1;
    case Op::kMax: return unsorted ? Extreme(dtype, true) : 0;
    case Op::kMin: return unsorted ? Extreme(dtype, false) : 0;
    default: return 0;
  }
}

// The integer form of Reduce: in the element type itself, sums and products
// wrapping as TensorFlow's do, so 64-bit values beyond 2^53 stay exact and
// an empty Max/Min segment is exactly the type's lowest/highest (conformance
// cases SegmentSum/tf/int64_large, UnsortedSegmentMin/tf/int64). A Mean
// divides with truncation.
template <typename T>
void ReduceIntegers(Op op, bool unsorted, const Tensor& data, const std::vector<int64_t>& ids, int64_t segments,
                    int64_t inner, Tensor& result) {
  const T* in = data.data<T>();
  T* out = result.data<T>();
  std::vector<int64_t> counts(static_cast<size_t>(segments), 0);
  for (size_t r = 0; r < ids.size(); ++r) {
    const int64_t s = ids[r];
    if (s < 0) continue;
    for (int64_t j = 0; j < inner; ++j) {
      T& o = out[s * inner + j];
      const T x = in[r * inner + j];
      if (counts[s] == 0) o = x;
      else if (op == Op::kSum || op == Op::kMean) o = WrapAdd(o, x);
      else if (op == Op::kProd) o = WrapMul(o, x);
      else if (op == Op::kMax) o = x > o ? x : o;
      else o = x < o ? x : o;
    }
    ++counts[s];
  }
  for (int64_t s = 0; s < segments; ++s) {
    for (int64_t j = 0; j < inner; ++j) {
      T& o = out[s * inner + j];
      if (counts[s] == 0) {
        if (op == Op::kProd) o = T(1);
        else if (unsorted && op == Op::kMax) o = std::numeric_limits<T>::lowest();
        else if (unsorted && op == Op::kMin) o = std::numeric_limits<T>::max();
        else o = T(0);
      } else if (op == Op::kMean) {
        using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
        o = static_cast<T>(static_cast<Wide>(o) / static_cast<Wide>(counts[s]));
      }
    }
  }
}

// Reduces rows of `data` (viewed as [rows, inner]) into `segments` rows by
// `ids` (-1 = drop).
Status Reduce(KernelContext& ctx, Op op, bool unsorted, const std::vector<int64_t>& ids, int64_t segments,
              const std::vector<int64_t>& inner_dims) {
  const Tensor& data = ctx.input(0);
  std::vector<int64_t> out_dims = {segments};
  out_dims.insert(out_dims.end(), inner_dims.begin(), inner_dims.end());
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, out_dims, "output"));
  // An empty output (rows of no elements) needs no per-segment scratch,
  // however many segments the ids name: 2^40 counts would be 8 TiB.
  if (array::DimProduct(shape, 0, shape.rank()) == 0) {
    ctx.set_output(0, Tensor(data.dtype(), shape));
    return OkStatus();
  }
  const int64_t inner = shape.rank() == 0 ? 1 : array::DimProduct(shape, 1, shape.rank());
  bool integer = false;
  TFHOST_SWITCH_REAL_TYPES(data.dtype(), {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      Tensor result(data.dtype(), shape);
      ReduceIntegers<T>(op, unsorted, data, ids, segments, inner, result);
      ctx.set_output(0, std::move(result));
      integer = true;
    }
  }, {});
  if (integer) return OkStatus();
  // The output first: a session's tensor limit (max_tensor_bytes_in_use)
  // refuses a huge one before the double-precision scratch, twice its size
  // and outside that limit, is allocated.
  Tensor result(data.dtype(), shape);
  std::vector<double> in = ReadDoubles(data);
  std::vector<double> out(static_cast<size_t>(segments * inner), 0.0);
  std::vector<int64_t> counts(static_cast<size_t>(segments), 0);
  for (size_t r = 0; r < ids.size(); ++r) {
    const int64_t s = ids[r];
    if (s < 0) continue;
    for (int64_t j = 0; j < inner; ++j) {
      double& o = out[s * inner + j];
      const double x = in[r * inner + j];
      if (counts[s] == 0) {
        o = x;
      } else if (op == Op::kSum || op == Op::kMean) {
        o += x;
      } else if (op == Op::kProd) {
        o *= x;
      } else if (op == Op::kMax) {
        o = (std::isnan(x) || x > o) ? x : o;
      } else {
        o = (std::isnan(x) || x < o) ? x : o;
      }
    }
    ++counts[s];
  }
  const double empty = Identity(op, data.dtype(), unsorted);
  for (int64_t s = 0; s < segments; ++s) {
    for (int64_t j = 0; j < inner; ++j) {
      double& o = out[s * inner + j];
      if (counts[s] == 0) {
        o = empty;
      } else if (op == Op::kMean) {
        o /= static_cast<double>(counts[s]);
      }
    }
  }
  StoreDoubles(out, result);
  ctx.set_output(0, std::move(result));
  return OkStatus();
}

Status SortedSegment(KernelContext& ctx, Op op) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids_t = ctx.input(1);
  if (!IsRealNumber(data.dtype())) return ctx.Error("data must be a real number tensor");
  if (data.rank() < 1) return ctx.Error("data must be at least 1-D, got a scalar");
  if (ids_t.rank() != 1 || ids_t.dim(0) != data.dim(0)) {
    return ctx.Error("segment_ids should be a vector of the size of data's first dimension " +
                     std::to_string(data.dim(0)) + ", got " + ids_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ids_t.ToInt64Vector());
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] < 0) return ctx.Error("segment id " + std::to_string(ids[k]) + " at index " + std::to_string(k) + " is negative");
    if (k > 0 && ids[k] < ids[k - 1]) return ctx.Error("segment ids are not increasing at index " + std::to_string(k));
  }
  // The output has last id + 1 rows, which the largest int64 cannot count.
  if (!ids.empty() && ids.back() == std::numeric_limits<int64_t>::max()) {
    return ctx.Error("segment id " + std::to_string(ids.back()) + " at index " + std::to_string(ids.size() - 1) +
                     " is the largest int64; the output would need one row more than int64 counts");
  }
  const int64_t segments = ids.empty() ? 0 : ids.back() + 1;
  std::vector<int64_t> inner(data.shape().dims().begin() + 1, data.shape().dims().end());
  return Reduce(ctx, op, false, ids, segments, inner);
}

Status UnsortedSegment(KernelContext& ctx, Op op) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids_t = ctx.input(1);
  if (!IsRealNumber(data.dtype())) return ctx.Error("data must be a real number tensor");
  TFHOST_ASSIGN_OR_RETURN(int64_t segments, array::ReadIndexScalar(ctx, 2, "num_segments"));
  if (segments < 0) return ctx.Error("num_segments must be >= 0, got " + std::to_string(segments));
  const int k = ids_t.rank();
  bool prefix = k <= data.rank();
  for (int d = 0; prefix && d < k; ++d) prefix = ids_t.dim(d) == data.dim(d);
  if (!prefix) {
    return ctx.Error("segment_ids shape " + ids_t.shape().ToString() + " must be a prefix of data shape " +
                     data.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ids_t.ToInt64Vector());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= segments) {
      return ctx.Error("segment_ids[" + std::to_string(i) + "] = " + std::to_string(ids[i]) + " is out of range [0, " +
                       std::to_string(segments) + ")");
    }
  }
  std::vector<int64_t> inner(data.shape().dims().begin() + k, data.shape().dims().end());
  return Reduce(ctx, op, true, ids, segments, inner);
}

ir::OpDefBuilder SegmentSchema(const std::string& name, bool unsorted) {
  ir::OpDefBuilder b(name);
  b.Input("data: T").Input("segment_ids: Tindices");
  if (unsorted) b.Input("num_segments: Tnumsegments");
  b.Output("output: T")
      .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64}")
      .Attr("Tindices: {int32, int64}");
  if (unsorted) b.Attr("Tnumsegments: {int32, int64} = DT_INT32");
  return b;
}

}  // namespace

void RegisterDenseSegmentOps(OpRegistry& registry) {
  const std::pair<const char*, Op> ops[] = {{"Sum", Op::kSum}, {"Mean", Op::kMean}, {"Max", Op::kMax},
                                            {"Min", Op::kMin}, {"Prod", Op::kProd}};
  for (const auto& [suffix, op] : ops) {
    const Op o = op;
    registry.Register(SegmentSchema(std::string("Segment") + suffix, false),
                           [o](KernelContext& ctx) { return SortedSegment(ctx, o); });
    if (o != Op::kMean) {
      registry.Register(SegmentSchema(std::string("UnsortedSegment") + suffix, true),
                             [o](KernelContext& ctx) { return UnsortedSegment(ctx, o); });
    }
  }
}

}  // namespace tfhost::ops::sparse
