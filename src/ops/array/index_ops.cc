// Ops that compute positions from values: Where (coordinates of non-zero
// elements), OneHot, Unique (and UniqueWithCounts), TopKV2, MatrixBandPart (keeps a diagonal
// band by position), ListDiff (setdiff1d: entries and positions of x not in
// y) and InTopK/InTopKV2.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <unordered_map>

#include <set>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {

namespace {

// Whether element i of `t` is non-zero ("true"): -0.0 counts as zero.
StatusOr<std::vector<bool>> NonZeroMask(const KernelContext& ctx, const Tensor& t) {
  const int64_t n = t.NumElements();
  std::vector<bool> mask(n);
  switch (t.dtype()) {
    case DType::kHalf:
    case DType::kBFloat16:
      for (int64_t i = 0; i < n; ++i) mask[i] = (t.data<uint16_t>()[i] & 0x7fff) != 0;
      return mask;
    case DType::kComplex64:
      for (int64_t i = 0; i < n; ++i) {
        mask[i] = t.data<float>()[2 * i] != 0 || t.data<float>()[2 * i + 1] != 0;
      }
      return mask;
    case DType::kComplex128:
      for (int64_t i = 0; i < n; ++i) {
        mask[i] = t.data<double>()[2 * i] != 0 || t.data<double>()[2 * i + 1] != 0;
      }
      return mask;
    default: {
      bool ok = true;
      TFHOST_SWITCH_REAL_TYPES(t.dtype(), {
        for (int64_t i = 0; i < n; ++i) mask[i] = t.data<T>()[i] != static_cast<T>(0);
      }, ok = false);
      if (!ok) return ctx.Error("input of dtype " + DTypeShortName(t.dtype()) + " has no truth value");
      return mask;
    }
  }
}

Status WhereKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(std::vector<bool> mask, NonZeroMask(ctx, input));
  const int64_t count = std::count(mask.begin(), mask.end(), true);
  const int rank = input.rank();
  Tensor out(DType::kInt64, Shape({count, rank}));
  int64_t* o = out.data<int64_t>();
  std::vector<int64_t> coord(rank, 0);
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    if (mask[i]) {
      std::copy(coord.begin(), coord.end(), o);
      o += rank;
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < input.dim(d)) break;
      coord[d] = 0;
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status OneHotKernel(KernelContext& ctx) {
  const Tensor& indices_t = ctx.input(0);
  const Tensor& on = ctx.input(2);
  const Tensor& off = ctx.input(3);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, on.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t depth, ReadIndexScalar(ctx, 1, "depth", false));
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.AttrOr<int64_t>("axis", -1));
  if (depth < 0) return ctx.Error("depth must be non-negative, got " + std::to_string(depth));
  if (on.rank() != 0 || off.rank() != 0 || on.dtype() != off.dtype()) {
    return ctx.Error("on_value and off_value must be scalars of one dtype, got " +
                     DTypeShortName(on.dtype()) + on.shape().ToString() + " and " +
                     DTypeShortName(off.dtype()) + off.shape().ToString());
  }
  const int rank = indices_t.rank();
  if (axis < -1 || axis > rank) {
    return ctx.Error("axis must be -1 or in [0, " + std::to_string(rank) + "], got " +
                     std::to_string(axis));
  }
  if (axis == -1) axis = rank;
  auto indices = indices_t.ToInt64Vector();
  if (!indices.ok()) {
    return ctx.Error("indices must be an integer tensor, got " + DTypeShortName(indices_t.dtype()));
  }
  std::vector<int64_t> dims = indices_t.shape().dims();
  dims.insert(dims.begin() + axis, depth);
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "one_hot output"));
  Tensor out(on.dtype(), out_shape);
  FillWithScalar(out, off);
  const int64_t outer = DimProduct(indices_t.shape(), 0, static_cast<int>(axis));
  const int64_t inner = DimProduct(indices_t.shape(), static_cast<int>(axis), rank);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t v = (*indices)[o * inner + i];
      // Out-of-range indices leave the whole column at off_value.
      if (v >= 0 && v < depth) CopyElements(on, 0, out, (o * depth + v) * inner + i, 1);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Maps each element's key to its first position; -0.0 and 0.0 share a key.
template <typename K, typename GetKey>
void UniqueByKey(int64_t n, GetKey get_key, std::vector<int64_t>* first, std::vector<int64_t>* idx) {
  std::unordered_map<K, int64_t> seen;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, inserted] = seen.emplace(get_key(i), static_cast<int64_t>(first->size()));
    if (inserted) first->push_back(i);
    idx->push_back(it->second);
  }
}

Status UniqueKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 1) return ctx.Error("x must be 1-D, got shape " + x.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(DType out_idx, ctx.AttrOr<DType>("out_idx", DType::kInt32));
  if (out_idx != DType::kInt32 && out_idx != DType::kInt64) {
    return ctx.Error("out_idx must be int32 or int64, got " + DTypeShortName(out_idx));
  }
  if (out_idx == DType::kInt32 && x.NumElements() > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("x has too many elements for out_idx int32");
  }
  const int64_t n = x.NumElements();
  std::vector<int64_t> first, idx;
  const DType dt = x.dtype();
  if (IsStringLike(dt)) {
    UniqueByKey<std::string>(n, [&](int64_t i) { return x.strings()[i]; }, &first, &idx);
  } else if (dt == DType::kHalf || dt == DType::kBFloat16) {
    UniqueByKey<uint16_t>(n, [&](int64_t i) {
      uint16_t b = x.data<uint16_t>()[i];
      return (b & 0x7fff) == 0 ? uint16_t{0} : b;
    }, &first, &idx);
  } else {
    bool ok = true;
    TFHOST_SWITCH_REAL_TYPES(dt, {
      UniqueByKey<T>(n, [&](int64_t i) { return x.data<T>()[i]; }, &first, &idx);
    }, ok = false);
    if (!ok) return ctx.Error("Unique does not support dtype " + DTypeShortName(dt));
  }
  Tensor y(dt, Shape({static_cast<int64_t>(first.size())}));
  for (size_t k = 0; k < first.size(); ++k) CopyElements(x, first[k], y, k, 1);
  Tensor idx_t(out_idx, Shape({n}));
  for (int64_t i = 0; i < n; ++i) {
    if (out_idx == DType::kInt32) {
      idx_t.data<int32_t>()[i] = static_cast<int32_t>(idx[i]);
    } else {
      idx_t.data<int64_t>()[i] = idx[i];
    }
  }
  ctx.set_output(0, std::move(y));
  ctx.set_output(1, std::move(idx_t));
  if (ctx.num_outputs() == 3) {  // UniqueWithCounts: occurrences of each y
    Tensor count(out_idx, Shape({static_cast<int64_t>(first.size())}));
    for (int64_t i = 0; i < n; ++i) {
      if (out_idx == DType::kInt32) {
        ++count.data<int32_t>()[idx[i]];
      } else {
        ++count.data<int64_t>()[idx[i]];
      }
    }
    ctx.set_output(2, std::move(count));
  }
  return OkStatus();
}

// Orders (value, index) pairs for TopK: larger first, NaN before everything,
// ties by lower index (a strict weak order even with NaNs).
template <typename K>
bool TopKBefore(K a, int64_t ia, K b, int64_t ib) {
  if constexpr (std::is_floating_point_v<K>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na && nb ? ia < ib : na;
  }
  if (a != b) return a > b;
  return ia < ib;
}

// Fills `order` (rows x k) with the positions of the k largest keys per row.
template <typename K, typename GetKey>
void TopKRows(int64_t rows, int64_t n, int64_t k, GetKey key, std::vector<int64_t>* order) {
  std::vector<int64_t> perm(n);
  std::vector<K> keys(n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) keys[i] = key(r * n + i);
    std::iota(perm.begin(), perm.end(), 0);
    std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), [&](int64_t a, int64_t b) {
      return TopKBefore<K>(keys[a], a, keys[b], b);
    });
    order->insert(order->end(), perm.begin(), perm.begin() + k);
  }
}

Status TopKV2Kernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(int64_t k, ReadIndexScalar(ctx, 1, "k", false));
  TFHOST_ASSIGN_OR_RETURN(DType index_type, ctx.AttrOr<DType>("index_type", DType::kInt32));
  if (input.rank() < 1) return ctx.Error("input must be at least 1-D, got a scalar");
  const int64_t n = input.dim(input.rank() - 1);
  if (k < 0 || k > n) {
    return ctx.Error("k = " + std::to_string(k) + " must be in [0, " + std::to_string(n) +
                     "] (the last dim of input shape " + input.shape().ToString() + ")");
  }
  int64_t max_index = 0;
  switch (index_type) {
    case DType::kInt16: max_index = std::numeric_limits<int16_t>::max(); break;
    case DType::kInt32: max_index = std::numeric_limits<int32_t>::max(); break;
    case DType::kInt64: max_index = std::numeric_limits<int64_t>::max(); break;
    default:
      return ctx.Error("index_type must be int16, int32 or int64, got " +
                       DTypeShortName(index_type));
  }
  if (n - 1 > max_index) {
    return ctx.Error("last dim " + std::to_string(n) + " does not fit index_type " +
                     DTypeShortName(index_type));
  }
  const int64_t rows = n == 0 ? 0 : input.NumElements() / n;
  std::vector<int64_t> order;
  const DType dt = input.dtype();
  if (dt == DType::kHalf) {
    TopKRows<float>(rows, n, k, [&](int64_t i) { return HalfToFloat(input.data<uint16_t>()[i]); },
                    &order);
  } else if (dt == DType::kBFloat16) {
    TopKRows<float>(rows, n, k,
                    [&](int64_t i) { return BFloat16ToFloat(input.data<uint16_t>()[i]); }, &order);
  } else {
    bool ok = dt != DType::kBool;
    TFHOST_SWITCH_REAL_TYPES(dt, {
      if (ok) TopKRows<T>(rows, n, k, [&](int64_t i) { return input.data<T>()[i]; }, &order);
    }, ok = false);
    if (!ok) return ctx.Error("TopKV2 does not support dtype " + DTypeShortName(dt));
  }
  std::vector<int64_t> dims = input.shape().dims();
  dims.back() = k;
  Tensor values(dt, Shape(dims));
  Tensor indices(index_type, Shape(dims));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < k; ++j) {
      const int64_t pos = order[r * k + j];
      CopyElements(input, r * n + pos, values, r * k + j, 1);
      switch (index_type) {
        case DType::kInt16: indices.data<int16_t>()[r * k + j] = static_cast<int16_t>(pos); break;
        case DType::kInt32: indices.data<int32_t>()[r * k + j] = static_cast<int32_t>(pos); break;
        default: indices.data<int64_t>()[r * k + j] = pos; break;
      }
    }
  }
  ctx.set_output(0, std::move(values));
  ctx.set_output(1, std::move(indices));
  return OkStatus();
}

Status MatrixBandPartKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  if (input.rank() < 2) {
    return ctx.Error("input must be at least 2-D, got shape " + input.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t lower, ReadIndexScalar(ctx, 1, "num_lower", false));
  TFHOST_ASSIGN_OR_RETURN(int64_t upper, ReadIndexScalar(ctx, 2, "num_upper", false));
  const int64_t m = input.dim(input.rank() - 2), n = input.dim(input.rank() - 1);
  if (lower > m || upper > n) {
    return ctx.Error("num_lower (" + std::to_string(lower) + ") must be negative or at most " +
                     std::to_string(m) + " and num_upper (" + std::to_string(upper) +
                     ") negative or at most " + std::to_string(n) + " for input shape " +
                     input.shape().ToString());
  }
  Tensor out(input.dtype(), input.shape());  // zeros outside the band
  const int64_t matrices = m * n == 0 ? 0 : input.NumElements() / (m * n);
  for (int64_t b = 0; b < matrices; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      // Row i keeps columns [i - lower, i + upper] (a negative bound keeps all).
      const int64_t lo = lower < 0 ? 0 : std::max<int64_t>(0, i - lower);
      const int64_t hi = upper < 0 ? n : std::min<int64_t>(n, i + upper + 1);
      const int64_t row = (b * m + i) * n;
      if (hi > lo) CopyElements(input, row + lo, out, row + lo, hi - lo);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// ListDiff (tf.setdiff1d): the entries of x not in y, in x's order, and
// their positions in x.
Status ListDiffKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.rank() != 1 || y.rank() != 1) {
    return ctx.Error("x and y must be vectors, got " + x.shape().ToString() + " and " + y.shape().ToString());
  }
  if (x.dtype() != y.dtype()) return ctx.Error("x and y must have the same dtype");
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, x.dtype()));
  TFHOST_ASSIGN_OR_RETURN(DType idx_type, ctx.AttrOr<DType>("out_idx", DType::kInt32));
  std::vector<int64_t> keep;
  if (IsStringLike(x.dtype())) {
    std::set<std::string> ys(y.strings(), y.strings() + y.NumElements());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (!ys.count(x.strings()[i])) keep.push_back(i);
    }
  } else {
    const size_t size = DTypeSize(x.dtype());
    std::set<std::string> ys;
    const char* yb = static_cast<const char*>(y.raw_data());
    for (int64_t i = 0; i < y.NumElements(); ++i) ys.insert(std::string(yb + i * size, size));
    const char* xb = static_cast<const char*>(x.raw_data());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (!ys.count(std::string(xb + i * size, size))) keep.push_back(i);
    }
  }
  const int64_t n = static_cast<int64_t>(keep.size());
  Tensor out(x.dtype(), Shape({n}));
  Tensor idx(idx_type, Shape({n}));
  for (int64_t k = 0; k < n; ++k) {
    CopyElements(x, keep[k], out, k, 1);
    if (idx_type == DType::kInt64) {
      idx.data<int64_t>()[k] = keep[k];
    } else {
      idx.data<int32_t>()[k] = static_cast<int32_t>(keep[k]);
    }
  }
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(idx));
  return OkStatus();
}

// InTopK / InTopKV2: whether each row's target class is among its k largest
// predictions. Ties at the boundary count as in (TensorFlow: fewer than k
// classes strictly above the target's value); a non-finite target value or
// an out-of-range target is false.
Status InTopKKernel(KernelContext& ctx) {
  const Tensor& pred = ctx.input(0);
  const Tensor& targets = ctx.input(1);
  if (pred.dtype() != DType::kFloat) return ctx.Error("predictions must be float32");
  if (pred.rank() != 2) return ctx.Error("predictions must be 2-D, got " + pred.shape().ToString());
  if (targets.rank() != 1 || targets.dim(0) != pred.dim(0)) {
    return ctx.Error("targets must be a vector of " + std::to_string(pred.dim(0)) + ", got " + targets.shape().ToString());
  }
  int64_t k = 0;
  if (ctx.num_inputs() > 2) {
    TFHOST_ASSIGN_OR_RETURN(k, ReadIndexScalar(ctx, 2, "k"));
  } else {
    TFHOST_ASSIGN_OR_RETURN(k, ctx.Attr<int64_t>("k"));
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> t, targets.ToInt64Vector());
  const int64_t classes = pred.dim(1);
  Tensor out(DType::kBool, Shape({pred.dim(0)}));
  for (int64_t b = 0; b < pred.dim(0); ++b) {
    const float* row = pred.data<float>() + b * classes;
    bool in = false;
    if (t[b] >= 0 && t[b] < classes && std::isfinite(row[t[b]])) {
      int64_t above = 0;
      for (int64_t c = 0; c < classes; ++c) above += row[c] > row[t[b]] ? 1 : 0;
      in = above < k;
    }
    out.data<bool>()[b] = in;
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterIndexOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("InTopKV2")
                        .Input("predictions: float").Input("targets: T").Input("k: T").Output("precision: bool")
                        .Attr("T: {int32, int64} = DT_INT32"),
                  InTopKKernel);
  registry.Register(ir::OpDefBuilder("InTopK")
                        .Input("predictions: float").Input("targets: T").Output("precision: bool")
                        .Attr("k: int").Attr("T: {int32, int64} = DT_INT32"),
                  InTopKKernel);
  registry.Register(ir::OpDefBuilder("ListDiff")
                        .Input("x: T").Input("y: T").Output("out: T").Output("idx: out_idx")
                        .Attr("T: type").Attr("out_idx: {int32, int64} = DT_INT32"),
                  ListDiffKernel);
  registry.Register(ir::OpDefBuilder("Where").Input("input: T").Output("index: int64")
                        .Attr("T: type = DT_BOOL"),
                    WhereKernel);
  registry.Register(ir::OpDefBuilder("OneHot")
                        .Input("indices: TI").Input("depth: int32").Input("on_value: T")
                        .Input("off_value: T").Output("output: T")
                        .Attr("axis: int = -1").Attr("T: type")
                        .Attr("TI: {uint8, int8, int32, int64} = DT_INT64"),
                    OneHotKernel);
  registry.Register(ir::OpDefBuilder("Unique")
                        .Input("x: T").Output("y: T").Output("idx: out_idx")
                        .Attr("T: type").Attr("out_idx: {int32, int64} = DT_INT32"),
                    UniqueKernel);
  registry.Register(ir::OpDefBuilder("UniqueWithCounts")
                        .Input("x: T").Output("y: T").Output("idx: out_idx").Output("count: out_idx")
                        .Attr("T: type").Attr("out_idx: {int32, int64} = DT_INT32"),
                    UniqueKernel);
  registry.Register(ir::OpDefBuilder("TopKV2")
                        .Input("input: T").Input("k: Tk").Output("values: T")
                        .Output("indices: index_type")
                        .Attr("sorted: bool = true")
                        .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
                              "uint16, half, uint32, uint64}")
                        .Attr("Tk: {int16, int32, int64} = DT_INT32")
                        .Attr("index_type: {int16, int32, int64} = DT_INT32"),
                    TopKV2Kernel);
  registry.Register(ir::OpDefBuilder("MatrixBandPart")
                        .Input("input: T").Input("num_lower: Tindex").Input("num_upper: Tindex")
                        .Output("band: T")
                        .Attr("T: type").Attr("Tindex: {int32, int64} = DT_INT64"),
                    MatrixBandPartKernel);
}

}  // namespace tfhost::ops::array
