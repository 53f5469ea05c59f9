// Ragged conversions: RaggedTensorToSparse, and RaggedTensorToVariant /
// RaggedTensorFromVariant, which tf.map_fn, tf.data and TensorList-based
// loops use to pass RaggedTensors through DT_VARIANT tensors.
//
// A ragged tensor is rt_dense_values plus nested row splits, outermost first.
// Every level's splits start at 0, never decrease, and end at the size of the
// level below (the next splits' row count, or values.dim(0) for the last).
//
//   RaggedTensorToSparse: one sparse entry per element of the values: index =
//     (row, position in row at each ragged level, then the inner dense
//     coordinates); dense_shape = [rows, longest row per level...,
//     values.shape[1:]]. Entries come out in row-major order.
//   RaggedTensorToVariant: batched_input = false wraps the whole ragged tensor
//     in one scalar variant; true gives a vector with one variant per outer
//     row, each the row as a ragged tensor of RAGGED_RANK - 1 (rows of a
//     RAGGED_RANK 0 tensor are dense slices values[i]).
//   RaggedTensorFromVariant: the inverse. encoded_ragged of rank r holds
//     ragged tensors of input_ragged_rank (-1: output_ragged_rank - r); for
//     r > 0 its dims become r uniform outer ragged levels and the components
//     are concatenated below them, so output_ragged_rank = input + r.
//
// Variant values are immutable and shared (VariantValue's contract): a
// RaggedTensorVariant holds its own splits and values tensors.
#include <algorithm>
#include <memory>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// The value of one DT_VARIANT element that holds a ragged tensor.
struct RaggedTensorVariant : VariantValue {
  std::vector<Tensor> nested_splits;  // outermost first, all of one int dtype
  Tensor values;

  std::string TypeName() const override { return "tensorflow::RaggedTensorVariant"; }
  std::string DebugString() const override {
    return "RaggedTensorVariant(ragged_rank=" + Str(static_cast<int64_t>(nested_splits.size())) +
           ", values=" + values.shape().ToString() + ")";
  }
};

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

// Reads and validates nested splits against `values` (see the file comment);
// `what` names them in errors.
StatusOr<std::vector<std::vector<int64_t>>> ReadNestedSplits(const KernelContext& ctx,
                                                             const std::vector<const Tensor*>& splits,
                                                             const Tensor& values, const std::string& what) {
  std::vector<std::vector<int64_t>> out;
  if (!splits.empty() && values.rank() < 1) return ctx.Error(what + " values must be at least 1-D");
  for (size_t k = 0; k < splits.size(); ++k) {
    const Tensor& t = *splits[k];
    auto v = t.ToInt64Vector();
    if (!v.ok() || t.rank() != 1) {
      return ctx.Error(what + " splits[" + Str(static_cast<int64_t>(k)) + "] must be a 1-D int32/int64 tensor, got " +
                       DTypeShortName(t.dtype()) + " " + t.shape().ToString());
    }
    if (v->empty() || (*v)[0] != 0) {
      return ctx.Error(what + " splits[" + Str(static_cast<int64_t>(k)) + "] must start with 0");
    }
    for (size_t i = 1; i < v->size(); ++i) {
      if ((*v)[i] < (*v)[i - 1]) {
        return ctx.Error(what + " splits[" + Str(static_cast<int64_t>(k)) + "] must be non-decreasing, but entry " +
                         Str(static_cast<int64_t>(i)) + " is below its predecessor");
      }
    }
    out.push_back(std::move(*v));
  }
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t below = k + 1 < out.size() ? static_cast<int64_t>(out[k + 1].size()) - 1 : values.dim(0);
    if (out[k].back() != below) {
      return ctx.Error(what + " splits[" + Str(static_cast<int64_t>(k)) + "] ends at " + Str(out[k].back()) +
                       " but the level below has " + Str(below) + " rows");
    }
  }
  return out;
}

std::vector<const Tensor*> SplitInputs(const KernelContext& ctx, int n) {
  std::vector<const Tensor*> v;
  for (int k = 0; k < n; ++k) v.push_back(&ctx.input(k));
  return v;
}

// Rows [begin, end) of `values` along dim 0.
Tensor SliceRows(const Tensor& values, int64_t begin, int64_t end) {
  std::vector<int64_t> dims = values.shape().dims();
  dims[0] = end - begin;
  Tensor out(values.dtype(), Shape(dims));
  const int64_t inner = DimProduct(values.shape(), 1, values.rank());
  CopyElements(values, begin * inner, out, 0, (end - begin) * inner);
  return out;
}

Status RaggedTensorToSparse(KernelContext& ctx) {
  const int ragged_rank = ctx.num_inputs() - 1;
  if (ragged_rank < 1) return ctx.Error("RAGGED_RANK must be at least 1");
  const Tensor& values = ctx.input(ragged_rank);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, values.dtype()));
  TFHOST_ASSIGN_OR_RETURN(auto splits, ReadNestedSplits(ctx, SplitInputs(ctx, ragged_rank), values, "rt_nested"));
  const int64_t inner = DimProduct(values.shape(), 1, values.rank());
  const int64_t out_rank = ragged_rank + values.rank();
  std::vector<int64_t> dense_shape = {static_cast<int64_t>(splits[0].size()) - 1};
  for (const auto& s : splits) {
    int64_t longest = 0;
    for (size_t i = 1; i < s.size(); ++i) longest = std::max(longest, s[i] - s[i - 1]);
    dense_shape.push_back(longest);
  }
  for (int d = 1; d < values.rank(); ++d) dense_shape.push_back(values.dim(d));
  const int64_t n = values.NumElements();
  Tensor indices(DType::kInt64, Shape({n, out_rank}));
  int64_t* out = indices.data<int64_t>();
  // Depth-first over the levels yields the values in order 0, 1, 2, ...
  std::vector<int64_t> prefix(ragged_rank + 1);
  std::vector<int64_t> inner_dims(values.shape().dims().begin() + 1, values.shape().dims().end());
  int64_t written = 0;
  auto emit_value = [&](int64_t v) {
    (void)v;
    std::vector<int64_t> coord(inner_dims.size(), 0);
    for (int64_t e = 0; e < inner; ++e) {
      int64_t* row = out + written * out_rank;
      std::copy(prefix.begin(), prefix.end(), row);
      std::copy(coord.begin(), coord.end(), row + prefix.size());
      ++written;
      for (int64_t d = static_cast<int64_t>(coord.size()) - 1; d >= 0; --d) {
        if (++coord[d] < inner_dims[d]) break;
        coord[d] = 0;
      }
    }
  };
  auto walk = [&](auto&& self, int level, int64_t row) -> void {
    const auto& s = splits[level];
    for (int64_t pos = s[row]; pos < s[row + 1]; ++pos) {
      prefix[level + 1] = pos - s[row];
      if (level + 1 < ragged_rank) {
        self(self, level + 1, pos);
      } else {
        emit_value(pos);
      }
    }
  };
  for (int64_t r = 0; r + 1 < static_cast<int64_t>(splits[0].size()); ++r) {
    prefix[0] = r;
    walk(walk, 0, r);
  }
  Tensor flat(values.dtype(), Shape({n}));
  CopyElements(values, 0, flat, 0, n);
  ctx.set_output(0, std::move(indices));
  ctx.set_output(1, std::move(flat));
  ctx.set_output(2, Tensor::FromVector<int64_t>(dense_shape));
  return OkStatus();
}

Status RaggedTensorToVariant(KernelContext& ctx) {
  const int ragged_rank = ctx.num_inputs() - 1;
  TFHOST_ASSIGN_OR_RETURN(bool batched, ctx.Attr<bool>("batched_input"));
  const Tensor& values = ctx.input(ragged_rank);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, values.dtype()));
  TFHOST_ASSIGN_OR_RETURN(auto splits, ReadNestedSplits(ctx, SplitInputs(ctx, ragged_rank), values, "rt_nested"));
  if (!batched) {
    auto rt = std::make_shared<RaggedTensorVariant>();
    for (int k = 0; k < ragged_rank; ++k) rt->nested_splits.push_back(ctx.input(k));
    rt->values = values;
    ctx.set_output(0, Tensor::VariantScalar(std::move(rt)));
    return OkStatus();
  }
  if (values.rank() < 1) return ctx.Error("batched_input needs values of rank >= 1 to unbatch");
  const int64_t rows = ragged_rank > 0 ? static_cast<int64_t>(splits[0].size()) - 1 : values.dim(0);
  const DType splits_dtype = ragged_rank > 0 ? ctx.input(0).dtype() : DType::kInt64;
  Tensor out(DType::kVariant, Shape({rows}));
  for (int64_t r = 0; r < rows; ++r) {
    auto rt = std::make_shared<RaggedTensorVariant>();
    if (ragged_rank == 0) {
      Tensor row = SliceRows(values, r, r + 1);
      std::vector<int64_t> dims(values.shape().dims().begin() + 1, values.shape().dims().end());
      rt->values = Tensor(values.dtype(), Shape(dims));
      CopyElements(row, 0, rt->values, 0, row.NumElements());
    } else {
      int64_t begin = splits[0][r], end = splits[0][r + 1];
      for (int k = 1; k < ragged_rank; ++k) {
        std::vector<int64_t> child(splits[k].begin() + begin, splits[k].begin() + end + 1);
        for (int64_t& x : child) x -= splits[k][begin];
        rt->nested_splits.push_back(SplitsTensor(splits_dtype, child));
        const int64_t next_begin = splits[k][begin], next_end = splits[k][end];
        begin = next_begin;
        end = next_end;
      }
      rt->values = SliceRows(values, begin, end);
    }
    out.variants()[r] = std::move(rt);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status RaggedTensorFromVariant(KernelContext& ctx) {
  const Tensor& encoded = ctx.input(0);
  if (encoded.dtype() != DType::kVariant) return ctx.Error("encoded_ragged must be a variant tensor");
  TFHOST_ASSIGN_OR_RETURN(int64_t input_rank, ctx.Attr<int64_t>("input_ragged_rank"));
  TFHOST_ASSIGN_OR_RETURN(int64_t output_rank, ctx.Attr<int64_t>("output_ragged_rank"));
  TFHOST_ASSIGN_OR_RETURN(DType tvalues, ctx.Attr<DType>("Tvalues"));
  TFHOST_ASSIGN_OR_RETURN(DType tsplits, ctx.AttrOr<DType>("Tsplits", DType::kInt64));
  const int64_t r = encoded.rank();
  if (input_rank == -1) input_rank = output_rank - r;
  if (input_rank < 0 || input_rank + r != output_rank) {
    return ctx.Error("output_ragged_rank (" + Str(output_rank) + ") must equal input_ragged_rank (" +
                     Str(input_rank) + ") + the rank of encoded_ragged (" + Str(r) + ")");
  }
  if (ctx.num_outputs() != output_rank + 1) {
    return ctx.Error("expected " + Str(output_rank + 1) + " outputs, the node has " + Str(ctx.num_outputs()));
  }
  // Check every component before combining them.
  const int64_t n = encoded.NumElements();
  std::vector<std::shared_ptr<const RaggedTensorVariant>> parts(n);
  std::vector<std::vector<std::vector<int64_t>>> part_splits(n);
  for (int64_t i = 0; i < n; ++i) {
    parts[i] = std::dynamic_pointer_cast<const RaggedTensorVariant>(encoded.variants()[i]);
    const std::string what = "encoded_ragged element " + Str(i);
    if (parts[i] == nullptr) return ctx.Error(what + " does not hold a RaggedTensor");
    const RaggedTensorVariant& p = *parts[i];
    if (static_cast<int64_t>(p.nested_splits.size()) != input_rank) {
      return ctx.Error(what + " has ragged rank " + Str(static_cast<int64_t>(p.nested_splits.size())) +
                       ", expected input_ragged_rank " + Str(input_rank));
    }
    if (p.values.dtype() != tvalues) {
      return ctx.Error(what + " holds values of dtype " + DTypeName(p.values.dtype()) + ", expected Tvalues " +
                       DTypeName(tvalues));
    }
    std::vector<const Tensor*> s;
    for (const Tensor& t : p.nested_splits) {
      if (t.dtype() != tsplits) {
        return ctx.Error(what + " has splits of dtype " + DTypeName(t.dtype()) + ", expected Tsplits " +
                         DTypeName(tsplits));
      }
      s.push_back(&t);
    }
    TFHOST_ASSIGN_OR_RETURN(part_splits[i], ReadNestedSplits(ctx, s, p.values, what));
  }
  if (r == 0) {
    for (int64_t k = 0; k < input_rank; ++k) ctx.set_output(static_cast<int>(k), parts[0]->nested_splits[k]);
    ctx.set_output(static_cast<int>(input_rank), parts[0]->values);
    return OkStatus();
  }
  // Components become rows, so their values need a row dim and equal inner dims.
  std::vector<int64_t> inner = {};
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& v = parts[i]->values;
    if (v.rank() < 1) return ctx.Error("encoded_ragged element " + Str(i) + " has scalar values; cannot batch them");
    std::vector<int64_t> d(v.shape().dims().begin() + 1, v.shape().dims().end());
    if (i == 0) {
      inner = d;
    } else if (d != inner) {
      return ctx.Error("encoded_ragged element " + Str(i) + " has values of shape " + v.shape().ToString() +
                       " but element 0 has inner dims " + JoinInts(inner));
    }
  }
  // Uniform outer levels from encoded's dims.
  int64_t rows = 1;
  for (int64_t k = 0; k + 1 < r; ++k) {
    rows *= encoded.dim(static_cast<int>(k));
    const int64_t width = encoded.dim(static_cast<int>(k + 1));
    std::vector<int64_t> s(rows + 1);
    for (int64_t j = 0; j <= rows; ++j) s[j] = j * width;
    ctx.set_output(static_cast<int>(k), SplitsTensor(tsplits, s));
  }
  // The level whose rows are the components, then the components' levels.
  std::vector<int64_t> top = {0};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t count = input_rank > 0 ? static_cast<int64_t>(part_splits[i][0].size()) - 1 : parts[i]->values.dim(0);
    top.push_back(top.back() + count);
  }
  ctx.set_output(static_cast<int>(r - 1), SplitsTensor(tsplits, top));
  for (int64_t k = 0; k < input_rank; ++k) {
    std::vector<int64_t> s = {0};
    for (int64_t i = 0; i < n; ++i) {
      const int64_t offset = s.back();
      for (size_t j = 1; j < part_splits[i][k].size(); ++j) s.push_back(part_splits[i][k][j] + offset);
    }
    ctx.set_output(static_cast<int>(r + k), SplitsTensor(tsplits, s));
  }
  std::vector<int64_t> dims = {top.back()};
  if (input_rank > 0) {
    dims[0] = 0;
    for (int64_t i = 0; i < n; ++i) dims[0] += parts[i]->values.dim(0);
  }
  dims.insert(dims.end(), inner.begin(), inner.end());
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, tvalues));
  Tensor values(tvalues, Shape(dims));
  int64_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t m = parts[i]->values.NumElements();
    CopyElements(parts[i]->values, 0, values, pos, m);
    pos += m;
  }
  ctx.set_output(static_cast<int>(output_rank), std::move(values));
  return OkStatus();
}

}  // namespace

void RegisterRaggedConversionOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("RaggedTensorToSparse")
                        .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
                        .Input("rt_dense_values: T")
                        .Output("sparse_indices: int64")
                        .Output("sparse_values: T")
                        .Output("sparse_dense_shape: int64")
                        .Attr("RAGGED_RANK: int >= 1")
                        .Attr("T: type")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    RaggedTensorToSparse);
  registry.Register(ir::OpDefBuilder("RaggedTensorToVariant")
                        .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
                        .Input("rt_dense_values: Tvalues")
                        .Output("encoded_ragged: variant")
                        .Attr("RAGGED_RANK: int >= 0")
                        .Attr("Tvalues: type")
                        .Attr("Tsplits: {int32, int64} = DT_INT64")
                        .Attr("batched_input: bool"),
                    RaggedTensorToVariant);
  registry.Register(ir::OpDefBuilder("RaggedTensorFromVariant")
                        .Input("encoded_ragged: variant")
                        .Output("output_nested_splits: output_ragged_rank * Tsplits")
                        .Output("output_dense_values: Tvalues")
                        .Attr("input_ragged_rank: int >= -1")
                        .Attr("output_ragged_rank: int >= 0")
                        .Attr("Tvalues: type")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    RaggedTensorFromVariant);
}

}  // namespace tfhost::ops::array
