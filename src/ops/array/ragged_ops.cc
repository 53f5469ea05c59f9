// Ragged ops of TF2 text / feature graphs (tf.strings.split, Keras
// TextVectorization, ragged feature columns, tf.ragged.range, gathers on
// ragged embeddings):
//
// RaggedTensorToTensor: densifies a RaggedTensor as RaggedTensor.to_tensor()
// does.
//
// The ragged tensor is `values` plus one row partition per ragged dimension,
// outermost first: all ROW_SPLITS, or FIRST_DIM_SIZE (a scalar row count)
// followed by VALUE_ROWIDS per level. Output dims: the row count, then per
// ragged level the longest row, then values.shape[1:]; any dim given in
// `shape` (>= 0) replaces that, truncating longer rows. Missing elements take
// default_value (a scalar, or one element of shape values.shape[1:]).
// RaggedRange: one range per (start, limit, delta) triple (scalars
// broadcast): rt_nested_splits [n + 1] and the concatenated values. A range's
// size is ceil((limit - start) / delta), or 0 when delta points away from the
// limit; values accumulate start, start + delta, ... in T as TensorFlow does.
//
// RaggedGather: gathers rows (outermost dim) of a ragged tensor given by its
// nested row splits and dense values. Indices of rank r > 1 add r - 1 uniform
// outer levels; a scalar index drops the outermost level.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status RaggedTensorToTensor(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> types, ctx.Attr<std::vector<std::string>>("row_partition_types"));
  const int num_partitions = ctx.num_inputs() - 3;
  if (num_partitions < 1 || static_cast<int>(types.size()) != num_partitions) {
    return ctx.Error("row_partition_types has " + Str(static_cast<int64_t>(types.size())) + " entries but there are " +
                     Str(num_partitions) + " row partition tensors");
  }
  const Tensor& values = ctx.input(1);
  const Tensor& def = ctx.input(2);
  if (values.rank() < 1) return ctx.Error("values must be at least 1-D");
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, values.dtype()));
  // Row splits per ragged level, outermost first.
  std::vector<std::vector<int64_t>> splits;
  int64_t nrows = -1;
  int first = 0;
  if (types[0] == "FIRST_DIM_SIZE") {
    TFHOST_ASSIGN_OR_RETURN(nrows, ReadIndexScalar(ctx, 3, "first_dim_size"));
    if (nrows < 0) return ctx.Error("first_dim_size must be non-negative");
    first = 1;
    if (num_partitions < 2) return ctx.Error("FIRST_DIM_SIZE must be followed by VALUE_ROWIDS");
  }
  int64_t parent_count = nrows;  // rows of the level being partitioned
  for (int p = first; p < num_partitions; ++p) {
    const Tensor& t = ctx.input(3 + p);
    auto v = t.ToInt64Vector();
    if (!v.ok() || t.rank() != 1) return ctx.Error("row partition " + Str(p) + " must be a 1-D integer tensor");
    const int64_t child_count = p + 1 < num_partitions ? -1 : values.dim(0);
    std::vector<int64_t> s;
    if (types[p] == "ROW_SPLITS") {
      if (v->empty() || (*v)[0] != 0) return ctx.Error("row_splits must start with 0");
      for (size_t i = 1; i < v->size(); ++i) {
        if ((*v)[i] < (*v)[i - 1]) return ctx.Error("row_splits must be non-decreasing");
      }
      if (parent_count >= 0 && static_cast<int64_t>(v->size()) != parent_count + 1) {
        return ctx.Error("row_splits of level " + Str(p) + " has " + Str(static_cast<int64_t>(v->size())) +
                         " entries, expected " + Str(parent_count + 1));
      }
      s = *v;
    } else if (types[p] == "VALUE_ROWIDS") {
      if (parent_count < 0) return ctx.Error("VALUE_ROWIDS needs FIRST_DIM_SIZE or an outer partition");
      if (parent_count > (int64_t{1} << 40)) return ctx.Error("too many rows");
      s.assign(parent_count + 1, 0);
      for (size_t i = 0; i < v->size(); ++i) {
        const int64_t r = (*v)[i];
        if (r < 0 || r >= parent_count || (i > 0 && r < (*v)[i - 1])) {
          return ctx.Error("value_rowids must be sorted and in [0, " + Str(parent_count) + ")");
        }
        ++s[r + 1];
      }
      for (int64_t r = 0; r < parent_count; ++r) s[r + 1] += s[r];
    } else {
      return ctx.Error("unsupported row partition type '" + types[p] + "'");
    }
    if (child_count >= 0 && s.back() != child_count) {
      return ctx.Error("innermost row partition covers " + Str(s.back()) + " values but values has " +
                       Str(child_count) + " rows");
    }
    parent_count = s.back();
    splits.push_back(std::move(s));
  }
  const int ragged = static_cast<int>(splits.size());
  // Natural output dims.
  std::vector<int64_t> dims;
  dims.push_back(static_cast<int64_t>(splits[0].size()) - 1);
  for (int k = 0; k < ragged; ++k) {
    int64_t longest = 0;
    for (size_t r = 0; r + 1 < splits[k].size(); ++r) longest = std::max(longest, splits[k][r + 1] - splits[k][r]);
    dims.push_back(longest);
  }
  for (int d = 1; d < values.rank(); ++d) dims.push_back(values.dim(d));
  // `shape` overrides known dims (scalar or empty = nothing known).
  const Tensor& shape_t = ctx.input(0);
  if (shape_t.rank() == 1 && shape_t.NumElements() > 0) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> want, ReadIndexVector(ctx, 0, "shape"));
    if (want.size() != dims.size()) {
      return ctx.Error("shape has " + Str(static_cast<int64_t>(want.size())) + " dims, the ragged tensor has rank " +
                       Str(static_cast<int64_t>(dims.size())));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (want[d] < 0) continue;
      if (d > static_cast<size_t>(ragged) && want[d] != dims[d]) {
        return ctx.Error("shape[" + Str(static_cast<int64_t>(d)) + "] = " + Str(want[d]) +
                         " does not match the values' dim " + Str(dims[d]));
      }
      dims[d] = want[d];
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "result"));
  const int64_t inner = DimProduct(values.shape(), 1, values.rank());
  if (def.dtype() != values.dtype()) return ctx.Error("default_value must have the values' dtype");
  if (def.NumElements() != 1 && def.NumElements() != inner) {
    return ctx.Error("default_value must be a scalar or have shape values.shape[1:], got " + def.shape().ToString());
  }
  Tensor out(values.dtype(), out_shape);
  if (def.NumElements() == 1) {
    FillWithScalar(out, def);
  } else {
    for (int64_t o = 0; o + inner <= out.NumElements(); o += inner) CopyElements(def, 0, out, o, inner);
  }
  const std::vector<int64_t> strides = RowMajorStrides(out_shape);
  // Walk rows level by level: (index into this level's rows, output offset).
  std::vector<std::pair<int64_t, int64_t>> frontier;
  for (int64_t r = 0; r < std::min<int64_t>(dims[0], static_cast<int64_t>(splits[0].size()) - 1); ++r) {
    frontier.push_back({r, r * strides[0]});
  }
  for (int k = 0; k < ragged; ++k) {
    std::vector<std::pair<int64_t, int64_t>> next;
    for (const auto& [row, offset] : frontier) {
      const int64_t begin = splits[k][row], end = splits[k][row + 1];
      for (int64_t j = begin; j < end && j - begin < dims[k + 1]; ++j) next.push_back({j, offset + (j - begin) * strides[k + 1]});
    }
    frontier = std::move(next);
  }
  for (const auto& [row, offset] : frontier) CopyElements(values, row * inner, out, offset, inner);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Reads a splits (or any integer) tensor of the node's Tsplits type as int64.
StatusOr<std::vector<int64_t>> ReadSplits(const KernelContext& ctx, const Tensor& t, const std::string& what) {
  if (t.rank() != 1) return ctx.Error(what + " must be a vector, got " + t.shape().ToString());
  auto v = t.ToInt64Vector();
  if (!v.ok()) return ctx.Error(what + " must be int32 or int64");
  return v;
}

Tensor SplitsTensor(DType dtype, const std::vector<int64_t>& v) {
  Tensor t(dtype, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DType::kInt32) {
      t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    } else {
      t.data<int64_t>()[i] = v[i];
    }
  }
  return t;
}

template <typename T>
Status RaggedRangeTyped(KernelContext& ctx, DType splits_type) {
  const Tensor* in[3] = {&ctx.input(0), &ctx.input(1), &ctx.input(2)};
  const char* names[3] = {"starts", "limits", "deltas"};
  int64_t n = -1;
  for (int k = 0; k < 3; ++k) {
    if (in[k]->rank() > 1) return ctx.Error(std::string(names[k]) + " must be a scalar or vector, got " + in[k]->shape().ToString());
    if (in[k]->rank() == 1) {
      if (n >= 0 && in[k]->dim(0) != n) {
        return ctx.Error("starts, limits and deltas must have the same length; " + std::string(names[k]) + " has " +
                         Str(in[k]->dim(0)) + ", expected " + Str(n));
      }
      n = in[k]->dim(0);
    }
  }
  if (n < 0) n = 1;
  auto at = [&](int k, int64_t i) { return in[k]->rank() == 0 ? in[k]->data<T>()[0] : in[k]->data<T>()[i]; };
  std::vector<int64_t> splits = {0};
  for (int64_t i = 0; i < n; ++i) {
    const T start = at(0, i), limit = at(1, i), delta = at(2, i);
    if (delta == T(0)) return ctx.Error("Requires delta != 0 (range " + Str(i) + ")");
    double size = 0;
    if (!((delta > 0 && limit < start) || (delta < 0 && limit > start))) {
      if constexpr (std::is_integral_v<T>) {
        // ceil(|limit - start| / |delta|) in uint64, which holds both
        // exactly (doubles round 2^63 - 1 up: an empty range got a value).
        const auto magnitude = [](int64_t a, int64_t b) {
          return a >= b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                        : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
        };
        const uint64_t span = magnitude(limit, start);
        const uint64_t step = magnitude(delta, 0);
        size = static_cast<double>(span / step + (span % step != 0 ? 1 : 0));
      } else {
        size = std::ceil(std::abs((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta)));
      }
    }
    if (!(size >= 0) || size + static_cast<double>(splits.back()) > static_cast<double>(int64_t{1} << 31)) {
      return ctx.Error("range " + Str(i) + " is too large");
    }
    splits.push_back(splits.back() + static_cast<int64_t>(size));
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, {splits.back()}, "rt_dense_values"));
  Tensor values(in[0]->dtype(), shape);
  T* v = values.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    T value = at(0, i);
    const T delta = at(2, i);
    for (int64_t j = splits[i]; j < splits[i + 1]; ++j) {
      v[j] = value;
      // The step past the last element may leave T's range (start -2^63,
      // delta -2^63): wrap it rather than overflow; it is never stored.
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        value = static_cast<T>(static_cast<U>(value) + static_cast<U>(delta));
      } else {
        value = static_cast<T>(value + delta);
      }
    }
  }
  ctx.set_output(0, SplitsTensor(splits_type, splits));
  ctx.set_output(1, std::move(values));
  return OkStatus();
}

Status RaggedRange(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType splits_type, ctx.AttrOr<DType>("Tsplits", DType::kInt64));
  switch (ctx.input(0).dtype()) {
    case DType::kFloat: return RaggedRangeTyped<float>(ctx, splits_type);
    case DType::kDouble: return RaggedRangeTyped<double>(ctx, splits_type);
    case DType::kInt32: return RaggedRangeTyped<int32_t>(ctx, splits_type);
    case DType::kInt64: return RaggedRangeTyped<int64_t>(ctx, splits_type);
    default: return ctx.Error("RaggedRange does not support " + DTypeShortName(ctx.input(0).dtype()));
  }
}

Status RaggedGather(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t params_rank, ctx.Attr<int64_t>("PARAMS_RAGGED_RANK"));
  TFHOST_ASSIGN_OR_RETURN(int64_t output_rank, ctx.Attr<int64_t>("OUTPUT_RAGGED_RANK"));
  TFHOST_ASSIGN_OR_RETURN(DType splits_type, ctx.AttrOr<DType>("Tsplits", DType::kInt64));
  if (params_rank < 1 || ctx.num_inputs() != params_rank + 2) {
    return ctx.Error("PARAMS_RAGGED_RANK " + Str(params_rank) + " does not match " + Str(ctx.num_inputs() - 2) +
                     " splits inputs");
  }
  const Tensor& values = ctx.input(static_cast<int>(params_rank));
  const Tensor& indices_t = ctx.input(static_cast<int>(params_rank) + 1);
  if (values.rank() < 1) return ctx.Error("params_dense_values must be at least 1-D");
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, values.dtype()));
  const int index_rank = indices_t.rank();
  if (output_rank != index_rank - 1 + params_rank) {
    return ctx.Error("OUTPUT_RAGGED_RANK is " + Str(output_rank) + " but indices of rank " + Str(index_rank) +
                     " into params of ragged rank " + Str(params_rank) + " give " + Str(index_rank - 1 + params_rank));
  }
  std::vector<std::vector<int64_t>> splits(params_rank);
  for (int k = 0; k < params_rank; ++k) {
    TFHOST_ASSIGN_OR_RETURN(splits[k], ReadSplits(ctx, ctx.input(k), "params_nested_splits[" + Str(k) + "]"));
    const auto& s = splits[k];
    const int64_t next_size = k + 1 < params_rank ? -1 : values.dim(0);
    if (s.empty() || s[0] != 0) return ctx.Error("params_nested_splits[" + Str(k) + "] must start with 0");
    for (size_t j = 1; j < s.size(); ++j) {
      if (s[j] < s[j - 1]) return ctx.Error("params_nested_splits[" + Str(k) + "] is not sorted");
    }
    if (k > 0 && static_cast<int64_t>(splits[k - 1].back()) != static_cast<int64_t>(s.size()) - 1) {
      return ctx.Error("params_nested_splits[" + Str(k - 1) + "] ends at " + Str(splits[k - 1].back()) + " but level " +
                       Str(k) + " has " + Str(static_cast<int64_t>(s.size()) - 1) + " rows");
    }
    if (next_size >= 0 && s.back() != next_size) {
      return ctx.Error("the last splits end at " + Str(s.back()) + " but params_dense_values has " + Str(next_size) +
                       " rows");
    }
  }
  auto flat = indices_t.ToInt64Vector();
  if (!flat.ok()) return ctx.Error("indices must be int32 or int64");
  const int64_t num_params = static_cast<int64_t>(splits[0].size()) - 1;
  for (size_t i = 0; i < flat->size(); ++i) {
    if ((*flat)[i] < 0 || (*flat)[i] >= num_params) {
      return ctx.Error("indices[" + Str(static_cast<int64_t>(i)) + "] = " + Str((*flat)[i]) + " is not in [0, " +
                       Str(num_params) + ")");
    }
  }
  std::vector<std::vector<int64_t>> out_splits;
  // Uniform outer levels from the indices' own dims 1..r-1.
  int64_t rows = index_rank == 0 ? 1 : indices_t.dim(0);
  for (int d = 1; d < index_rank; ++d) {
    std::vector<int64_t> s(rows + 1);
    for (int64_t i = 0; i <= rows; ++i) s[i] = i * indices_t.dim(d);
    out_splits.push_back(std::move(s));
    rows *= indices_t.dim(d);
  }
  // Gathered levels: follow each selected row's range down the splits.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t idx : *flat) ranges.push_back({idx, idx + 1});
  int64_t total = 0;
  for (int k = 0; k < params_rank; ++k) {
    std::vector<int64_t> s = {0};
    std::vector<std::pair<int64_t, int64_t>> next;
    for (const auto& [b, e] : ranges) {
      for (int64_t j = b; j < e; ++j) {
        const int64_t begin = splits[k][j], end = splits[k][j + 1];
        s.push_back(s.back() + (end - begin));
        next.push_back({begin, end});
        if (s.back() > (int64_t{1} << 34)) return ctx.Error("the gathered ragged tensor is too large");
      }
    }
    total = s.back();
    out_splits.push_back(std::move(s));
    ranges = std::move(next);
  }
  if (index_rank == 0) out_splits.erase(out_splits.begin());  // a scalar index drops the outer level
  std::vector<int64_t> dims = values.shape().dims();
  dims[0] = total;
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dims, "output_dense_values"));
  Tensor out(values.dtype(), shape);
  const int64_t inner = DimProduct(values.shape(), 1, values.rank());
  int64_t at = 0;
  for (const auto& [b, e] : ranges) {
    CopyElements(values, b * inner, out, at * inner, (e - b) * inner);
    at += e - b;
  }
  for (size_t k = 0; k < out_splits.size(); ++k) ctx.set_output(static_cast<int>(k), SplitsTensor(splits_type, out_splits[k]));
  ctx.set_output(static_cast<int>(out_splits.size()), std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterRaggedOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("RaggedRange")
                        .Input("starts: T")
                        .Input("limits: T")
                        .Input("deltas: T")
                        .Output("rt_nested_splits: Tsplits")
                        .Output("rt_dense_values: T")
                        .Attr("T: {bfloat16, float, double, int32, int64} = DT_INT32")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    RaggedRange);
  registry.Register(ir::OpDefBuilder("RaggedGather")
                        .Input("params_nested_splits: PARAMS_RAGGED_RANK * Tsplits")
                        .Input("params_dense_values: Tvalues")
                        .Input("indices: Tindices")
                        .Output("output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits")
                        .Output("output_dense_values: Tvalues")
                        .Attr("Tvalues: type")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("Tsplits: {int32, int64} = DT_INT64")
                        .Attr("PARAMS_RAGGED_RANK: int >= 1")
                        .Attr("OUTPUT_RAGGED_RANK: int >= 0"),
                    RaggedGather);
  registry.Register(ir::OpDefBuilder("RaggedTensorToTensor")
                        .Input("shape: Tshape")
                        .Input("values: T")
                        .Input("default_value: T")
                        .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
                        .Output("result: T")
                        .Attr("T: type")
                        .Attr("Tindex: {int64, int32}")
                        .Attr("Tshape: {int64, int32}")
                        .Attr("num_row_partition_tensors: int")
                        .Attr("row_partition_types: list(string)"),
                    RaggedTensorToTensor);
}

}  // namespace tfhost::ops::array
