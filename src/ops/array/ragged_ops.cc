// RaggedTensorToTensor: densifies a RaggedTensor (what tf.strings.split,
// Keras TextVectorization and ragged feature columns produce in TF2 graphs)
// as RaggedTensor.to_tensor() does.
//
// The ragged tensor is `values` plus one row partition per ragged dimension,
// outermost first: all ROW_SPLITS, or FIRST_DIM_SIZE (a scalar row count)
// followed by VALUE_ROWIDS per level. Output dims: the row count, then per
// ragged level the longest row, then values.shape[1:]; any dim given in
// `shape` (>= 0) replaces that, truncating longer rows. Missing elements take
// default_value (a scalar, or one element of shape values.shape[1:]).
#include <algorithm>

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

}  // namespace

void RegisterRaggedOps(OpRegistry& registry) {
  RegisterChecked(registry,
                  ir::OpDefBuilder("RaggedTensorToTensor")
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
