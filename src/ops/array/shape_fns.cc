// Shape functions of the array ops: reshaping, joining and splitting,
// slicing, padding, gathering and the shape-reading ops. Most read a small
// constant input (a shape, axis, perm, paddings); without it they still fix
// what they can (usually the rank).
#include <algorithm>
#include <limits>
#include <set>

#include "ops/array/strided_slice.h"
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

using ir::PartialShape;

// Sum and product of dims with unknowns propagated (-1), saturating to
// unknown on overflow.
int64_t AddDims(int64_t a, int64_t b) {
  if (a < 0 || b < 0 || a > std::numeric_limits<int64_t>::max() - b) return -1;
  return a + b;
}
int64_t MulDims(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return -1;
  return a * b;
}

std::string Str(int64_t v) { return std::to_string(v); }

// --- Shape, Size, Rank -----------------------------------------------------

Tensor IntVector(DType dtype, const std::vector<int64_t>& values) {
  if (dtype == DType::kInt64) return Tensor::FromVector<int64_t>(values);
  std::vector<int32_t> v32;
  for (int64_t v : values) v32.push_back(static_cast<int32_t>(v));
  return Tensor::FromVector<int32_t>(v32);
}

Status ShapeShape(ShapeContext& ctx) {
  const DType out_type = ctx.AttrOr<DType>("out_type", DType::kInt32).value_or(DType::kInt32);
  for (int i = 0; i < ctx.num_outputs(); ++i) {  // ShapeN has one output per input
    const PartialShape& in = ctx.input(i);
    ctx.set_output(i, PartialShape::Known({in.rank()}));
    if (in.IsFullyDefined() && (out_type == DType::kInt32 || out_type == DType::kInt64)) {
      ctx.set_output_value(i, IntVector(out_type, in.dims));
    }
  }
  return OkStatus();
}

Status ScalarShape(ShapeContext& ctx) {
  ctx.set_output(0, PartialShape::Scalar());
  return OkStatus();
}

// --- Reshape, Squeeze, ExpandDims, Transpose ---------------------------------

Status ReshapeShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto target = ctx.InputInts(1);
  if (!target.has_value()) {
    ctx.set_output(0, ctx.InputAsShape(1));
    return OkStatus();
  }
  int wildcard = -1;
  int64_t known_product = 1;
  std::vector<int64_t> dims = *target;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (wildcard >= 0) return ctx.Error("at most one dimension of the new shape may be -1, got " +
                                          PartialShape::Known(*target).ToString());
      wildcard = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return ctx.Error("new shape has a negative dimension " + Str(dims[i]));
    } else {
      known_product = MulDims(known_product, dims[i]);
    }
  }
  const int64_t n = in.NumElements();
  if (n >= 0 && known_product >= 0) {
    if (wildcard < 0 && n != known_product) {
      return ctx.Error("cannot reshape a tensor of " + Str(n) + " elements (shape " + in.ToString() + ") to " +
                       PartialShape::Known(dims).ToString() + " (" + Str(known_product) + " elements)");
    }
    if (wildcard >= 0 && known_product > 0) {
      if (n % known_product != 0) {
        return ctx.Error("cannot reshape a tensor of " + Str(n) + " elements (shape " + in.ToString() +
                         ") to " + PartialShape::Known(*target).ToString() + ": " + Str(n) +
                         " is not a multiple of " + Str(known_product));
      }
      dims[wildcard] = n / known_product;
    }
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status SqueezeShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto squeeze_dims = ctx.AttrOr<std::vector<int64_t>>("squeeze_dims", {});
  if (!squeeze_dims.has_value() || !in.rank_known()) return OkStatus();
  std::set<int> drop;
  for (int64_t d : *squeeze_dims) {
    const int axis = NormalizeAxis(d, in.rank());
    if (axis < 0) return ctx.Error("squeeze dim " + Str(d) + " is out of range for shape " + in.ToString());
    if (in.dim(axis) >= 0 && in.dim(axis) != 1) {
      return ctx.Error("cannot squeeze dim " + Str(d) + " of shape " + in.ToString() + ": its size is not 1");
    }
    drop.insert(axis);
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (squeeze_dims->empty()) {
      if (in.dim(i) < 0) return OkStatus();  // might be 1: the rank is unknown
      if (in.dim(i) == 1) continue;
    } else if (drop.count(i)) {
      continue;
    }
    dims.push_back(in.dim(i));
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status ExpandDimsShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto axis = ctx.InputInts(1);
  if (!in.rank_known()) return OkStatus();
  if (!axis.has_value() || axis->size() != 1) {
    ctx.set_output(0, PartialShape::UnknownOfRank(in.rank() + 1));
    return OkStatus();
  }
  const int a = NormalizeAxis((*axis)[0], in.rank() + 1);
  if (a < 0) return ctx.Error("axis " + Str((*axis)[0]) + " is out of range for shape " + in.ToString());
  std::vector<int64_t> dims = in.dims;
  dims.insert(dims.begin() + a, 1);
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status TransposeShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto perm = ctx.InputInts(1);
  if (!perm.has_value()) {
    if (in.rank_known()) ctx.set_output(0, PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  const int rank = static_cast<int>(perm->size());
  if (in.rank_known() && in.rank() != rank) {
    return ctx.Error("perm has " + Str(rank) + " entries but the input has shape " + in.ToString());
  }
  std::vector<int64_t> dims(rank, -1);
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t p = (*perm)[i];
    if (p < 0 || p >= rank || seen[p]) return ctx.Error("perm is not a permutation of [0, " + Str(rank) + ")");
    seen[p] = true;
    if (in.rank_known()) dims[i] = in.dim(static_cast<int>(p));
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// --- Concat, Pack, Unpack, Split ---------------------------------------------

// Joins `inputs` along `axis_value` (nullopt = unknown axis).
Status ConcatShapeImpl(ShapeContext& ctx, const std::vector<PartialShape>& inputs,
                       std::optional<int64_t> axis_value) {
  PartialShape merged;  // every input with the axis dim blanked
  int rank = -1;
  for (const auto& s : inputs) {
    if (!s.rank_known()) continue;
    if (rank >= 0 && s.rank() != rank) {
      return ctx.Error("inputs have different ranks: " + PartialShape::Known(s.dims).ToString() + " vs rank " +
                       Str(rank));
    }
    rank = s.rank();
  }
  if (rank < 0) return OkStatus();
  if (rank == 0) return ctx.Error("cannot concatenate scalars");
  if (!axis_value.has_value()) {
    ctx.set_output(0, PartialShape::UnknownOfRank(rank));
    return OkStatus();
  }
  const int axis = NormalizeAxis(*axis_value, rank);
  if (axis < 0) return ctx.Error("axis " + Str(*axis_value) + " is out of range for rank " + Str(rank));
  int64_t total = 0;
  for (const auto& s : inputs) {
    if (!s.rank_known()) {
      total = -1;
      continue;
    }
    total = AddDims(total, s.dim(axis));
    PartialShape blanked = s;
    blanked.dims[axis] = -1;
    auto m = ir::MergeShapes(merged, blanked);
    if (!m.ok()) return ctx.Error("inputs disagree outside the concat axis: " + m.status().message());
    merged = std::move(*m);
  }
  merged.dims[axis] = total;
  ctx.set_output(0, std::move(merged));
  return OkStatus();
}

Status ConcatShape(ShapeContext& ctx, bool axis_first) {
  const int n = ctx.num_inputs() - 1;
  if (n < 1) return OkStatus();
  const int axis_index = axis_first ? 0 : n;
  std::vector<PartialShape> inputs;
  for (int i = 0; i < n; ++i) inputs.push_back(ctx.input(axis_first ? i + 1 : i));
  std::optional<int64_t> axis;
  if (auto v = ctx.InputInts(axis_index); v.has_value() && v->size() == 1) axis = (*v)[0];
  return ConcatShapeImpl(ctx, inputs, axis);
}

Status PackShape(ShapeContext& ctx) {
  PartialShape merged;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    auto m = ir::MergeShapes(merged, ctx.input(i));
    if (!m.ok()) return ctx.Error("inputs must have the same shape: " + m.status().message());
    merged = std::move(*m);
  }
  auto axis_attr = ctx.AttrOr<int64_t>("axis", 0);
  if (!merged.rank_known() || !axis_attr.has_value()) return OkStatus();
  const int axis = NormalizeAxis(*axis_attr, merged.rank() + 1);
  if (axis < 0) return ctx.Error("axis " + Str(*axis_attr) + " is out of range for shape " + merged.ToString());
  merged.dims.insert(merged.dims.begin() + axis, ctx.num_inputs());
  ctx.set_output(0, std::move(merged));
  // Packing known integer scalars gives a known vector (a shape built from
  // pieces, for a later Reshape or Fill).
  std::vector<int64_t> values;
  DType dtype = DType::kInvalid;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor* v = ctx.input_value(i);
    if (v == nullptr || v->rank() != 0 || !IsInteger(v->dtype())) return OkStatus();
    dtype = v->dtype();
    values.push_back(v->ToInt64Vector()->at(0));
  }
  if (*axis_attr == 0 || *axis_attr == -1) ctx.set_output_value(0, IntVector(dtype, values));
  return OkStatus();
}

Status UnpackShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto axis_attr = ctx.AttrOr<int64_t>("axis", 0);
  if (!in.rank_known() || !axis_attr.has_value()) return OkStatus();
  const int axis = NormalizeAxis(*axis_attr, in.rank());
  if (axis < 0) return ctx.Error("axis " + Str(*axis_attr) + " is out of range for shape " + in.ToString());
  if (in.dim(axis) >= 0 && in.dim(axis) != ctx.num_outputs()) {
    return ctx.Error("cannot unpack dim " + Str(axis) + " of shape " + in.ToString() + " into " +
                     Str(ctx.num_outputs()) + " tensors");
  }
  std::vector<int64_t> dims = in.dims;
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, PartialShape::Known(dims));
  return OkStatus();
}

// Split(axis, value) into num_split equal parts.
Status SplitShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(1);
  auto axis_value = ctx.InputInts(0);
  const int n = ctx.num_outputs();
  if (!in.rank_known() || n == 0) return OkStatus();
  if (!axis_value.has_value() || axis_value->size() != 1) {
    for (int i = 0; i < n; ++i) ctx.set_output(i, PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  const int axis = NormalizeAxis((*axis_value)[0], in.rank());
  if (axis < 0) return ctx.Error("axis " + Str((*axis_value)[0]) + " is out of range for shape " + in.ToString());
  PartialShape part = in;
  if (in.dim(axis) >= 0) {
    if (in.dim(axis) % n != 0) {
      return ctx.Error("dim " + Str(axis) + " of shape " + in.ToString() + " cannot be split into " + Str(n) +
                       " equal parts");
    }
    part.dims[axis] = in.dim(axis) / n;
  }
  for (int i = 0; i < n; ++i) ctx.set_output(i, part);
  return OkStatus();
}

// SplitV(value, size_splits, axis): one size may be -1 (the rest).
Status SplitVShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  const int n = ctx.num_outputs();
  auto axis_value = ctx.InputInts(2);
  auto sizes = ctx.InputInts(1);
  if (!in.rank_known() || n == 0) return OkStatus();
  if (!axis_value.has_value() || axis_value->size() != 1) {
    for (int i = 0; i < n; ++i) ctx.set_output(i, PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  const int axis = NormalizeAxis((*axis_value)[0], in.rank());
  if (axis < 0) return ctx.Error("axis " + Str((*axis_value)[0]) + " is out of range for shape " + in.ToString());
  if (!sizes.has_value() || static_cast<int>(sizes->size()) != n) {
    PartialShape part = in;
    part.dims[axis] = -1;
    for (int i = 0; i < n; ++i) ctx.set_output(i, part);
    return OkStatus();
  }
  int wildcard = -1;
  int64_t known = 0;
  for (int i = 0; i < n; ++i) {
    if ((*sizes)[i] == -1 && wildcard < 0) {
      wildcard = i;
    } else if ((*sizes)[i] < 0) {
      return ctx.Error("size_splits has an invalid entry " + Str((*sizes)[i]));
    } else {
      known = AddDims(known, (*sizes)[i]);
    }
  }
  const int64_t total = in.dim(axis);
  if (total >= 0 && known >= 0) {
    if ((wildcard < 0 && known != total) || (wildcard >= 0 && known > total)) {
      return ctx.Error("size_splits sum to " + Str(known) + " but dim " + Str(axis) + " of shape " +
                       in.ToString() + " is " + Str(total));
    }
  }
  for (int i = 0; i < n; ++i) {
    PartialShape part = in;
    part.dims[axis] = i == wildcard ? (total >= 0 && known >= 0 ? total - known : -1) : (*sizes)[i];
    ctx.set_output(i, std::move(part));
  }
  return OkStatus();
}

// --- Slice, StridedSlice -------------------------------------------------------

// Slice(input, begin, size): size -1 means "to the end".
Status SliceShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto begin = ctx.InputInts(1);
  auto size = ctx.InputInts(2);
  if (!size.has_value()) {
    PartialShape s = ctx.InputAsShape(2);
    if (s.rank_known()) ctx.set_output(0, PartialShape::UnknownOfRank(s.rank()));
    else if (in.rank_known()) ctx.set_output(0, PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  const int rank = static_cast<int>(size->size());
  if (in.rank_known() && in.rank() != rank) {
    return ctx.Error("size has " + Str(rank) + " entries but the input has shape " + in.ToString());
  }
  std::vector<int64_t> dims(rank, -1);
  for (int i = 0; i < rank; ++i) {
    const int64_t s = (*size)[i];
    const int64_t d = in.rank_known() ? in.dim(i) : -1;
    const int64_t b = begin.has_value() && static_cast<int>(begin->size()) == rank ? (*begin)[i] : -1;
    if (s >= 0) {
      if (d >= 0 && b >= 0 && b + s > d) {
        return ctx.Error("slice [" + Str(b) + ", " + Str(b + s) + ") of dim " + Str(i) + " is outside shape " +
                         in.ToString());
      }
      dims[i] = s;
    } else if (s == -1 && d >= 0 && b >= 0 && b <= d) {
      dims[i] = d - b;
    }
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

bool Bit(int64_t mask, int i) { return i < 63 && ((mask >> i) & 1) != 0; }

// For each output dim of a strided slice over a rank-`rank` input, the input
// dim it comes from, or -1 for a new axis (mirrors the dense-spec expansion
// of docs/formats.md §6.3: an explicit or implied ellipsis covers the dims no spec
// entry names; shrunk dims produce no output).
std::vector<int> OutputSources(int rank, int m, const array::StridedSliceMasks& masks) {
  int64_t ellipsis = m < 63 ? masks.ellipsis_mask & ((int64_t{1} << m) - 1) : masks.ellipsis_mask;
  int num_new_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < m; ++i) {
    if (seen && Bit(masks.new_axis_mask, i)) ++num_new_after_ellipsis;
    if (Bit(ellipsis, i)) seen = true;
  }
  int sparse = m;
  if (!seen) {
    ellipsis |= int64_t{1} << m;
    ++sparse;
  }
  std::vector<int> sources;
  int full = 0;
  for (int i = 0; i < sparse; ++i) {
    if (Bit(ellipsis, i)) {
      const int next = std::min(rank - (sparse - i) + 1 + num_new_after_ellipsis, rank);
      for (; full < next; ++full) sources.push_back(full);
    } else if (Bit(masks.new_axis_mask, i)) {
      sources.push_back(-1);
    } else {
      if (!Bit(masks.shrink_axis_mask, i)) sources.push_back(full);
      ++full;
    }
  }
  return sources;
}

// StridedSlice(input, begin, end, strides) with constant spec: unknown input
// dims are given a huge stand-in size to run the kernel's own resolver, and
// every output dim that comes from an unknown input dim is then unknown.
Status StridedSliceShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto begin = ctx.InputInts(1);
  auto end = ctx.InputInts(2);
  auto strides = ctx.InputInts(3);
  array::StridedSliceMasks masks;
  const std::pair<const char*, int64_t*> attrs[] = {{"begin_mask", &masks.begin_mask},
                                                    {"end_mask", &masks.end_mask},
                                                    {"ellipsis_mask", &masks.ellipsis_mask},
                                                    {"new_axis_mask", &masks.new_axis_mask},
                                                    {"shrink_axis_mask", &masks.shrink_axis_mask}};
  for (const auto& [name, field] : attrs) {
    auto v = ctx.AttrOr<int64_t>(name, 0);
    if (!v.has_value()) return OkStatus();
    *field = *v;
  }
  if (!in.rank_known() || !begin || !end || !strides) return OkStatus();
  if (begin->size() != end->size() || begin->size() != strides->size() || begin->size() > 32) return OkStatus();
  constexpr int64_t kStandIn = int64_t{1} << 40;
  std::vector<int64_t> concrete = in.dims;
  for (int64_t& d : concrete) d = d < 0 ? kStandIn : d;
  auto resolved = array::ResolveStridedSlice(Shape(concrete), *begin, *end, *strides, masks);
  if (!resolved.ok()) {
    if (in.IsFullyDefined()) return ctx.Error(resolved.status().message());
    return OkStatus();
  }
  const std::vector<int> sources = OutputSources(in.rank(), static_cast<int>(begin->size()), masks);
  std::vector<int64_t> dims = resolved->output_dims;
  if (sources.size() != dims.size()) {
    // The mapping disagrees with the resolver (a spec shape this mirror does
    // not know): keep only what is certain.
    ctx.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(dims.size())));
    return OkStatus();
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (sources[i] >= 0 && in.dim(sources[i]) < 0) dims[i] = -1;
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  // Slicing a known shape vector keeps it known (x[1:3] of Shape(x), say).
  const Tensor* v = ctx.input_value(0);
  if (v != nullptr && v->rank() == 1 && IsInteger(v->dtype())) {
    auto values = v->ToInt64Vector();
    if (!values.ok()) return OkStatus();
    std::vector<int64_t> out;
    for (int64_t k = 0; k < resolved->sizes[0]; ++k) {
      out.push_back((*values)[resolved->begin[0] + k * resolved->strides[0]]);
    }
    auto t = IntVector(v->dtype(), out).Reshaped(Shape(resolved->output_dims));
    if (t.ok()) ctx.set_output_value(0, *t);
  }
  return OkStatus();
}

// --- Pad, Tile, BroadcastTo, Fill ---------------------------------------------

// Pad/PadV2/MirrorPad(input, paddings [rank, 2], ...).
Status PadShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto paddings = ctx.InputInts(1);
  const PartialShape& pshape = ctx.input(1);
  int rank = in.rank();
  if (rank < 0 && pshape.rank() == 2) rank = static_cast<int>(pshape.dim(0));
  if (!paddings.has_value() || ctx.input_value(1)->rank() != 2) {
    if (rank >= 0) ctx.set_output(0, PartialShape::UnknownOfRank(rank));
    return OkStatus();
  }
  const int rows = static_cast<int>(ctx.input_value(1)->dim(0));
  if (ctx.input_value(1)->dim(1) != 2 || (in.rank_known() && in.rank() != rows)) {
    return ctx.Error("paddings must have shape [" + Str(in.rank()) + ", 2], got " +
                     ctx.input_value(1)->shape().ToString());
  }
  std::vector<int64_t> dims(rows, -1);
  for (int i = 0; i < rows; ++i) {
    const int64_t before = (*paddings)[2 * i], after = (*paddings)[2 * i + 1];
    if (before < 0 || after < 0) return OkStatus();  // the kernel reports it
    if (in.rank_known()) dims[i] = AddDims(in.dim(i), AddDims(before, after));
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status TileShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  auto multiples = ctx.InputInts(1);
  if (!multiples.has_value()) {
    if (in.rank_known()) ctx.set_output(0, PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  const int rank = static_cast<int>(multiples->size());
  if (in.rank_known() && in.rank() != rank) {
    return ctx.Error("multiples has " + Str(rank) + " entries but the input has shape " + in.ToString());
  }
  std::vector<int64_t> dims(rank, -1);
  for (int i = 0; i < rank; ++i) {
    if (in.rank_known()) dims[i] = MulDims(in.dim(i), (*multiples)[i]);
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status BroadcastToShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  PartialShape target = ctx.InputAsShape(1);
  if (!target.rank_known()) return OkStatus();
  if (in.rank_known() && in.rank() > target.rank()) {
    return ctx.Error("cannot broadcast shape " + in.ToString() + " to the lower-rank " + target.ToString());
  }
  auto b = ir::BroadcastPartialShapes(in, target);
  if (!b.ok()) return ctx.Error(b.status().message());
  // The target is the result; only dims it leaves unknown may be learnt from
  // the input (a known input dim > 1 fixes them).
  PartialShape out = target;
  if (b->rank_known()) {
    for (int i = 0; i < out.rank(); ++i) {
      if (out.dim(i) < 0 && b->dim(i) > 1) out.dims[i] = b->dim(i);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status FillShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.InputAsShape(0));
  return OkStatus();
}

// --- Gather ---------------------------------------------------------------------

// GatherV2(params, indices, axis) and Gather(params, indices) (axis 0):
// params[:axis] + indices[batch_dims:] + params[axis+1:].
Status GatherShape(ShapeContext& ctx, bool has_axis) {
  const PartialShape& params = ctx.input(0);
  const PartialShape& indices = ctx.input(1);
  int64_t axis_value = 0;
  if (has_axis) {
    auto v = ctx.InputInts(2);
    if (!v.has_value() || v->size() != 1) return OkStatus();
    axis_value = (*v)[0];
  }
  auto batch_dims = ctx.AttrOr<int64_t>("batch_dims", 0);
  if (!params.rank_known() || !indices.rank_known() || !batch_dims.has_value()) return OkStatus();
  const int axis = NormalizeAxis(axis_value, params.rank());
  if (axis < 0) return ctx.Error("axis " + Str(axis_value) + " is out of range for params shape " + params.ToString());
  int64_t bd = *batch_dims < 0 ? *batch_dims + indices.rank() : *batch_dims;
  if (bd < 0 || bd > axis || bd > indices.rank()) return OkStatus();  // the kernel reports it
  std::vector<int64_t> dims(params.dims.begin(), params.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin() + bd, indices.dims.end());
  dims.insert(dims.end(), params.dims.begin() + axis + 1, params.dims.end());
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// GatherNd(params, indices [..., q]): indices[:-1] + params[q:].
Status GatherNdShape(ShapeContext& ctx) {
  const PartialShape& params = ctx.input(0);
  const PartialShape& indices = ctx.input(1);
  if (!params.rank_known() || !indices.rank_known() || indices.rank() < 1) return OkStatus();
  const int64_t q = indices.dim(indices.rank() - 1);
  if (q < 0) return OkStatus();
  if (q > params.rank()) {
    return ctx.Error("index depth " + Str(q) + " exceeds the rank of params shape " + params.ToString());
  }
  std::vector<int64_t> dims(indices.dims.begin(), indices.dims.end() - 1);
  dims.insert(dims.end(), params.dims.begin() + q, params.dims.end());
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// --- Space/batch/depth rearrangements -------------------------------------------

// SpaceToBatchND(input, block_shape, paddings) and
// BatchToSpaceND(input, block_shape, crops).
Status SpaceBatchShape(ShapeContext& ctx, bool to_batch) {
  const PartialShape& in = ctx.input(0);
  auto block = ctx.InputInts(1);
  auto pads = ctx.InputInts(2);
  if (!in.rank_known()) return OkStatus();
  if (!block.has_value() || !pads.has_value() || pads->size() != 2 * block->size() ||
      static_cast<int>(block->size()) + 1 > in.rank()) {
    ctx.set_output(0, PartialShape::UnknownOfRank(in.rank()));
    return OkStatus();
  }
  std::vector<int64_t> dims = in.dims;
  int64_t block_product = 1;
  for (size_t i = 0; i < block->size(); ++i) {
    const int64_t b = (*block)[i], before = (*pads)[2 * i], after = (*pads)[2 * i + 1];
    if (b < 1 || before < 0 || after < 0) {
      ctx.set_output(0, PartialShape::UnknownOfRank(in.rank()));
      return OkStatus();
    }
    block_product = MulDims(block_product, b);
    int64_t& d = dims[i + 1];
    if (d < 0) continue;
    if (to_batch) {
      const int64_t padded = AddDims(d, AddDims(before, after));
      if (padded >= 0 && padded % b != 0) {
        return ctx.Error("padded spatial dim " + Str(i + 1) + " of shape " + in.ToString() + " (" + Str(padded) +
                         ") is not divisible by block size " + Str(b));
      }
      d = padded < 0 ? -1 : padded / b;
    } else {
      const int64_t grown = MulDims(d, b);
      d = grown >= 0 && grown - before - after >= 0 ? grown - before - after : -1;
    }
  }
  if (dims[0] >= 0 && block_product > 0) {
    if (to_batch) {
      dims[0] = MulDims(dims[0], block_product);
    } else if (dims[0] % block_product != 0) {
      return ctx.Error("batch " + Str(dims[0]) + " of shape " + in.ToString() +
                       " is not divisible by the block size product " + Str(block_product));
    } else {
      dims[0] /= block_product;
    }
  } else {
    dims[0] = -1;
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// DepthToSpace / SpaceToDepth with block_size, NHWC or NCHW.
Status DepthSpaceShape(ShapeContext& ctx, bool to_space) {
  const PartialShape& in = ctx.input(0);
  auto block = ctx.Attr<int64_t>("block_size");
  auto format = ctx.AttrOr<std::string>("data_format", "NHWC");
  if (in.rank_known() && in.rank() != 4) return ctx.Error("input must be 4-D, got shape " + in.ToString());
  if (!in.rank_known() || !block || !format || *block < 2 || (*format != "NHWC" && *format != "NCHW")) {
    ctx.set_output(0, PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  const int h = *format == "NHWC" ? 1 : 2, c = *format == "NHWC" ? 3 : 1;
  const int64_t b = *block;
  std::vector<int64_t> dims = in.dims;
  const int64_t bb = MulDims(b, b);
  if (bb < 0) {  // absurd block size: the kernel rejects it
    ctx.set_output(0, PartialShape::UnknownOfRank(4));
    return OkStatus();
  }
  if (to_space) {
    if (dims[c] >= 0 && dims[c] % bb != 0) {
      return ctx.Error("depth of shape " + in.ToString() + " is not divisible by block_size^2 = " + Str(bb));
    }
    dims[c] = dims[c] < 0 ? -1 : dims[c] / bb;
    dims[h] = MulDims(dims[h], b);
    dims[h + 1] = MulDims(dims[h + 1], b);
  } else {
    for (int s : {h, h + 1}) {
      if (dims[s] >= 0 && dims[s] % b != 0) {
        return ctx.Error("spatial dims of shape " + in.ToString() + " are not divisible by block_size " + Str(b));
      }
      dims[s] = dims[s] < 0 ? -1 : dims[s] / b;
    }
    dims[c] = MulDims(dims[c], bb);
  }
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

// --- Misc ----------------------------------------------------------------------

Status WhereShape(ShapeContext& ctx) {
  ctx.set_output(0, PartialShape::Known({-1, ctx.input(0).rank()}));
  return OkStatus();
}

Status UniqueShape(ShapeContext& ctx) {
  ctx.set_output(0, PartialShape::Known({-1}));
  ctx.set_output(1, ctx.input(0));
  ctx.set_output(2, PartialShape::Known({-1}));  // UniqueWithCounts' count
  return OkStatus();
}

// Range(start, limit, delta): a vector; its length when all three are known.
Status RangeShape(ShapeContext& ctx) {
  auto start = ctx.InputInts(0), limit = ctx.InputInts(1), delta = ctx.InputInts(2);
  int64_t n = -1;
  if (start && limit && delta && start->size() == 1 && limit->size() == 1 && delta->size() == 1 &&
      (*delta)[0] != 0) {
    const int64_t s = (*start)[0], l = (*limit)[0], d = (*delta)[0];
    if ((d > 0 && l > s) || (d < 0 && l < s)) {
      const int64_t span = d > 0 ? l - s : s - l, step = d > 0 ? d : -d;
      n = (span + step - 1) / step;
    } else {
      n = 0;
    }
  }
  ctx.set_output(0, PartialShape::Known({n}));
  return OkStatus();
}

// OneHot(indices, depth, on_value, off_value) with axis.
Status OneHotShape(ShapeContext& ctx) {
  const PartialShape& indices = ctx.input(0);
  auto axis_attr = ctx.AttrOr<int64_t>("axis", -1);
  if (!indices.rank_known() || !axis_attr.has_value()) return OkStatus();
  int64_t depth = -1;
  if (auto d = ctx.InputInts(1); d.has_value() && d->size() == 1 && (*d)[0] >= 0) depth = (*d)[0];
  const int axis = *axis_attr == -1 ? indices.rank() : NormalizeAxis(*axis_attr, indices.rank() + 1);
  if (axis < 0) return OkStatus();
  std::vector<int64_t> dims = indices.dims;
  dims.insert(dims.begin() + axis, depth);
  ctx.set_output(0, PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status ScatterNdShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.InputAsShape(2));
  return OkStatus();
}

// TopKV2(input, k): values and indices share input[:-1] + [k].
Status TopKShape(ShapeContext& ctx) {
  const PartialShape& in = ctx.input(0);
  if (!in.rank_known()) return OkStatus();
  if (in.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
  int64_t k = -1;
  if (auto v = ctx.InputInts(1); v.has_value() && v->size() == 1) k = (*v)[0];
  const int64_t last = in.dim(in.rank() - 1);
  if (k >= 0 && last >= 0 && k > last) {
    return ctx.Error("k = " + Str(k) + " exceeds the last dimension of shape " + in.ToString());
  }
  std::vector<int64_t> dims = in.dims;
  dims.back() = k;
  ctx.set_output(0, PartialShape::Known(dims));
  ctx.set_output(1, PartialShape::Known(dims));
  return OkStatus();
}

}  // namespace

void RegisterArrayShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"Shape", "ShapeN"}, ShapeShape);
  registry.Register({"Size", "Rank"}, ScalarShape);
  registry.Register("Reshape", ReshapeShape);
  registry.Register("Squeeze", SqueezeShape);
  registry.Register("ExpandDims", ExpandDimsShape);
  registry.Register("Transpose", TransposeShape);
  registry.Register("ConcatV2", [](ShapeContext& ctx) { return ConcatShape(ctx, false); });
  registry.Register("Concat", [](ShapeContext& ctx) { return ConcatShape(ctx, true); });
  registry.Register("Pack", PackShape);
  registry.Register("Unpack", UnpackShape);
  registry.Register("Split", SplitShape);
  registry.Register("SplitV", SplitVShape);
  registry.Register("Slice", SliceShape);
  registry.Register("StridedSlice", StridedSliceShape);
  registry.Register({"Pad", "PadV2", "MirrorPad"}, PadShape);
  registry.Register("Tile", TileShape);
  registry.Register("BroadcastTo", BroadcastToShape);
  registry.Register("Fill", FillShape);
  registry.Register("GatherV2", [](ShapeContext& ctx) { return GatherShape(ctx, true); });
  registry.Register("Gather", [](ShapeContext& ctx) { return GatherShape(ctx, false); });
  registry.Register("GatherNd", GatherNdShape);
  registry.Register("SpaceToBatchND", [](ShapeContext& ctx) { return SpaceBatchShape(ctx, true); });
  registry.Register("BatchToSpaceND", [](ShapeContext& ctx) { return SpaceBatchShape(ctx, false); });
  registry.Register("DepthToSpace", [](ShapeContext& ctx) { return DepthSpaceShape(ctx, true); });
  registry.Register("SpaceToDepth", [](ShapeContext& ctx) { return DepthSpaceShape(ctx, false); });
  registry.Register({"ReverseV2", "Reverse", "InvertPermutation", "MatrixBandPart"}, UnchangedShape);
  registry.Register("Where", WhereShape);
  registry.Register({"Unique", "UniqueWithCounts"}, UniqueShape);
  registry.Register("Range", RangeShape);
  registry.Register("OneHot", OneHotShape);
  registry.Register("ScatterNd", ScatterNdShape);
  registry.Register("TopKV2", TopKShape);
  registry.Register("Bucketize", UnchangedShape);
  // RaggedTensorToTensor: the `shape` input when constant and fully given.
  registry.Register("RaggedTensorToTensor", [](ShapeContext& ctx) {
    PartialShape shape = ctx.InputAsShape(0);
    if (shape.rank_known() && shape.rank() > 0) ctx.set_output(0, shape);
    return OkStatus();
  });
  registry.Register({"LowerBound", "UpperBound"}, [](ShapeContext& ctx) {
    ctx.set_output(0, ctx.input(1));
    return OkStatus();
  });
  registry.Register({"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMin",
                     "TensorScatterMax", "Roll", "ReverseSequence", "CheckNumerics", "CheckNumericsV2"},
                    UnchangedShape);
  // EnsureShape: the input's shape refined by the attr.
  registry.Register("EnsureShape", [](ShapeContext& ctx) {
    auto want = ctx.Attr<PartialShape>("shape");
    if (!want) return UnchangedShape(ctx);
    auto merged = ir::MergeShapes(ctx.input(0), *want);
    if (!merged.ok()) return ctx.Error("input shape " + ctx.input(0).ToString() + " is not compatible with " + want->ToString());
    ctx.set_output(0, *merged);
    return OkStatus();
  });
  registry.Register("LinSpace", [](ShapeContext& ctx) {
    auto num = ctx.InputInts(2);
    ctx.set_output(0, PartialShape::Known({num && num->size() == 1 && (*num)[0] > 0 ? (*num)[0] : -1}));
    return OkStatus();
  });
  registry.Register("Empty", [](ShapeContext& ctx) {
    ctx.set_output(0, ctx.InputAsShape(0));
    return OkStatus();
  });
  registry.Register("BroadcastArgs", [](ShapeContext& ctx) {
    const PartialShape& a = ctx.input(0);
    const PartialShape& b = ctx.input(1);
    int64_t n = -1;
    if (a.rank() == 1 && b.rank() == 1 && a.dim(0) >= 0 && b.dim(0) >= 0) n = std::max(a.dim(0), b.dim(0));
    ctx.set_output(0, PartialShape::Known({n}));
    return OkStatus();
  });
  // Bitcast: same size keeps the shape; otherwise a last dim is added or dropped.
  registry.Register("Bitcast", [](ShapeContext& ctx) {
    auto from = ctx.Attr<DType>("T");
    auto to = ctx.Attr<DType>("type");
    const PartialShape& in = ctx.input(0);
    if (!from || !to || !in.rank_known() || DTypeSize(*from) == 0 || DTypeSize(*to) == 0) return OkStatus();
    std::vector<int64_t> dims = in.dims;
    if (DTypeSize(*from) > DTypeSize(*to)) {
      dims.push_back(static_cast<int64_t>(DTypeSize(*from) / DTypeSize(*to)));
    } else if (DTypeSize(*from) < DTypeSize(*to)) {
      if (dims.empty()) return OkStatus();
      dims.pop_back();
    }
    ctx.set_output(0, PartialShape::Known(dims));
    return OkStatus();
  });
  registry.Register({"InTopK", "InTopKV2"}, [](ShapeContext& ctx) {
    ctx.set_output(0, ctx.input(1));
    return OkStatus();
  });
  registry.Register("ListDiff", [](ShapeContext& ctx) {
    ctx.set_output(0, PartialShape::Known({-1}));
    ctx.set_output(1, PartialShape::Known({-1}));
    return OkStatus();
  });
  registry.Register({"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"}, UnchangedShape);
  // MatrixDiag (V1): [..., n] -> [..., n, n]; MatrixDiagPart (V1): [..., m, n] -> [..., min(m, n)].
  registry.Register("MatrixDiag", [](ShapeContext& ctx) {
    const PartialShape& d = ctx.input(0);
    if (!d.rank_known() || d.rank() < 1) return OkStatus();
    std::vector<int64_t> dims = d.dims;
    dims.push_back(dims.back());
    ctx.set_output(0, PartialShape::Known(dims));
    return OkStatus();
  });
  registry.Register("MatrixDiagPart", [](ShapeContext& ctx) {
    const PartialShape& m = ctx.input(0);
    if (!m.rank_known() || m.rank() < 2) return OkStatus();
    std::vector<int64_t> dims(m.dims.begin(), m.dims.end() - 2);
    const int64_t r = m.dims[m.rank() - 2], c = m.dims[m.rank() - 1];
    dims.push_back(r < 0 || c < 0 ? -1 : std::min(r, c));
    ctx.set_output(0, PartialShape::Known(dims));
    return OkStatus();
  });
  // RaggedRange: n + 1 splits when the length of a vector input is known.
  registry.Register("RaggedRange", [](ShapeContext& ctx) {
    int64_t n = ctx.input(0).rank() == 0 && ctx.input(1).rank() == 0 && ctx.input(2).rank() == 0 ? 1 : -1;
    for (int k = 0; k < 3; ++k) {
      if (ctx.input(k).rank() == 1 && ctx.input(k).dim(0) >= 0) n = ctx.input(k).dim(0);
    }
    ctx.set_output(0, PartialShape::Known({n >= 0 ? n + 1 : -1}));
    ctx.set_output(1, PartialShape::Known({-1}));
    return OkStatus();
  });
  // RaggedTensorToSparse: [nnz, RAGGED_RANK + values rank] indices.
  registry.Register("RaggedTensorToSparse", [](ShapeContext& ctx) {
    const PartialShape& values = ctx.input(ctx.num_inputs() - 1);
    const int64_t rank = values.rank_known() ? ctx.num_inputs() - 1 + values.rank() : -1;
    ctx.set_output(0, PartialShape::Known({-1, rank}));
    ctx.set_output(1, PartialShape::Known({-1}));
    ctx.set_output(2, PartialShape::Known({rank}));
    return OkStatus();
  });
  // RaggedTensorToVariant: a scalar, or one element per outer row.
  registry.Register("RaggedTensorToVariant", [](ShapeContext& ctx) {
    if (!ctx.AttrOr<bool>("batched_input", false).value_or(false)) {
      ctx.set_output(0, PartialShape::Known({}));
      return OkStatus();
    }
    const PartialShape& first = ctx.input(0);
    const bool splits = ctx.num_inputs() > 1;
    int64_t rows = -1;
    if (first.rank() >= 1 && first.dim(0) >= 0) rows = splits ? first.dim(0) - 1 : first.dim(0);
    ctx.set_output(0, PartialShape::Known({rows}));
    return OkStatus();
  });
  // RaggedTensorFromVariant: vectors of splits; values of unknown shape.
  registry.Register("RaggedTensorFromVariant", [](ShapeContext& ctx) {
    for (int k = 0; k + 1 < ctx.num_outputs(); ++k) ctx.set_output(k, PartialShape::Known({-1}));
    return OkStatus();
  });
  // RaggedGather: vectors of splits, then values with params' inner dims.
  registry.Register("RaggedGather", [](ShapeContext& ctx) {
    const int values = ctx.num_outputs() - 1;
    for (int k = 0; k < values; ++k) ctx.set_output(k, PartialShape::Known({-1}));
    const PartialShape& params = ctx.input(ctx.num_inputs() - 2);
    if (params.rank_known() && params.rank() >= 1) {
      std::vector<int64_t> dims = params.dims;
      dims[0] = -1;
      ctx.set_output(values, PartialShape::Known(dims));
    }
    return OkStatus();
  });
}

}  // namespace tfhost::ops
