// Einsum: tf.einsum / Keras EinsumDense / attention written as
// "bqhd,bkhd->bhqk". The reference kernel parses the equation, resolves
// every label's size and walks the full index space (output labels x summed
// labels) once, accumulating in double (floats) or int64 (integers).
//
// Equation rules (TensorFlow's): labels are letters; "..." stands for the
// unlabelled leading/middle dims of an operand, broadcast across operands
// NumPy-style (right-aligned, size 1 stretches); without "->" the output is
// "..." followed by the labels used exactly once, alphabetically. A label
// repeated within one operand takes its diagonal. Labels absent from the
// output (and "..." dims when the output omits "...") are summed over.
#include <algorithm>
#include <cctype>
#include <map>

#include "ops/array/array_util.h"
#include "ops/math/math_ops.h"

namespace tfhost::ops::math {
namespace {

constexpr int kEllipsisBase = 1000;  // axis ids >= this are "..." dims

struct Subscripts {
  std::vector<int> labels;  // one per named position; -1 marks where "..." sits
  bool has_ellipsis = false;
};

StatusOr<Subscripts> ParseSubscripts(const std::string& s, const std::string& equation) {
  Subscripts out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (s.compare(i, 3, "...") != 0 || out.has_ellipsis) {
        return InvalidArgument("invalid ellipsis in einsum equation '" + equation + "'");
      }
      out.has_ellipsis = true;
      out.labels.push_back(-1);
      i += 2;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      return InvalidArgument("invalid character '" + std::string(1, c) + "' in einsum equation '" + equation + "'");
    }
    out.labels.push_back(c);
  }
  return out;
}

// Expands an operand's subscripts to one axis id per dim of a rank-`rank`
// tensor; "..." dims get ids kEllipsisBase + k, right-aligned against
// `ellipsis_rank`.
StatusOr<std::vector<int>> ExpandAxes(const Subscripts& sub, int rank, int* ellipsis_dims, int ellipsis_rank) {
  const int named = static_cast<int>(sub.labels.size()) - (sub.has_ellipsis ? 1 : 0);
  const int e = rank - named;
  if (e < 0 || (!sub.has_ellipsis && e != 0)) return InvalidArgument("rank mismatch");
  if (ellipsis_dims) *ellipsis_dims = e;
  std::vector<int> axes;
  for (int l : sub.labels) {
    if (l != -1) {
      axes.push_back(l);
      continue;
    }
    for (int k = 0; k < e; ++k) axes.push_back(kEllipsisBase + (ellipsis_rank - e) + k);
  }
  return axes;
}

Status Einsum(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string equation, ctx.Attr<std::string>("equation"));
  const int n = ctx.num_inputs();
  const DType dtype = ctx.input(0).dtype();
  const bool is_int = dtype == DType::kInt32 || dtype == DType::kInt64;
  if (!is_int && dtype != DType::kFloat && dtype != DType::kDouble && dtype != DType::kHalf &&
      dtype != DType::kBFloat16) {
    return ctx.Error("unsupported dtype " + DTypeShortName(dtype));
  }
  for (int i = 1; i < n; ++i) {
    if (ctx.input(i).dtype() != dtype) return ctx.Error("all inputs must have the same dtype");
  }
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    parts.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(parts.size()) != n) {
    return ctx.Error("equation '" + equation + "' has " + std::to_string(parts.size()) + " operands but the op has " +
                     std::to_string(n) + " inputs");
  }
  std::vector<Subscripts> subs;
  for (const auto& p : parts) {
    auto s = ParseSubscripts(p, equation);
    if (!s.ok()) return ctx.Error(s.status().message());
    subs.push_back(*s);
  }
  // Ellipsis rank = the most "..." dims of any operand.
  int ellipsis_rank = 0;
  bool any_ellipsis = false;
  for (int i = 0; i < n; ++i) {
    int e = 0;
    auto axes = ExpandAxes(subs[i], ctx.input(i).rank(), &e, 0);
    if (!axes.ok()) {
      return ctx.Error("input " + std::to_string(i) + " has rank " + std::to_string(ctx.input(i).rank()) +
                       " but subscripts '" + parts[i] + "'");
    }
    ellipsis_rank = std::max(ellipsis_rank, e);
    any_ellipsis |= subs[i].has_ellipsis;
  }
  // Sizes of every axis id; "..." dims broadcast.
  std::map<int, int64_t> size;
  std::vector<std::vector<int>> in_axes(n);
  std::map<int, int> label_count;
  for (int i = 0; i < n; ++i) {
    in_axes[i] = *ExpandAxes(subs[i], ctx.input(i).rank(), nullptr, ellipsis_rank);
    for (int d = 0; d < ctx.input(i).rank(); ++d) {
      const int id = in_axes[i][d];
      const int64_t dim = ctx.input(i).dim(d);
      if (id < kEllipsisBase) ++label_count[id];
      auto it = size.find(id);
      if (it == size.end() || it->second == dim) {
        size[id] = dim;
      } else if (id >= kEllipsisBase && (it->second == 1 || dim == 1)) {
        it->second = std::max(it->second, dim);
      } else {
        std::string what = id < kEllipsisBase ? "label '" + std::string(1, static_cast<char>(id)) + "'"
                                              : std::string("broadcast dims of '...'");
        return ctx.Error("dimension mismatch for " + what + ": " + std::to_string(it->second) + " vs " +
                         std::to_string(dim));
      }
    }
  }
  std::vector<int> out_axes;
  if (arrow == std::string::npos) {
    for (int k = 0; k < ellipsis_rank; ++k) out_axes.push_back(kEllipsisBase + k);
    for (const auto& [label, count] : label_count) {
      if (count == 1) out_axes.push_back(label);
    }
  } else {
    auto out_sub = ParseSubscripts(equation.substr(arrow + 2), equation);
    if (!out_sub.ok()) return ctx.Error(out_sub.status().message());
    for (int l : out_sub->labels) {
      if (l == -1) {
        for (int k = 0; k < ellipsis_rank; ++k) out_axes.push_back(kEllipsisBase + k);
        continue;
      }
      if (!size.count(l)) {
        return ctx.Error("output label '" + std::string(1, static_cast<char>(l)) + "' appears in no input");
      }
      if (std::count(out_axes.begin(), out_axes.end(), l)) {
        return ctx.Error("output label '" + std::string(1, static_cast<char>(l)) + "' is repeated");
      }
      out_axes.push_back(l);
    }
  }
  (void)any_ellipsis;
  // Axes walked: output axes first, then the summed ones.
  std::vector<int> walk = out_axes;
  for (const auto& [id, s] : size) {
    if (std::find(out_axes.begin(), out_axes.end(), id) == out_axes.end()) walk.push_back(id);
  }
  std::vector<int64_t> out_dims;
  for (int id : out_axes) out_dims.push_back(size[id]);
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, out_dims, "output"));
  double work = 1;
  for (int id : walk) work *= static_cast<double>(std::max<int64_t>(size[id], 1));
  if (work > 1e11) return ctx.Error("einsum index space is too large for the reference kernel");
  // stride[i][w]: how far operand i's flat offset moves per step of walk axis w.
  std::vector<std::vector<int64_t>> stride(n, std::vector<int64_t>(walk.size(), 0));
  for (int i = 0; i < n; ++i) {
    const std::vector<int64_t> row_major = array::RowMajorStrides(ctx.input(i).shape());
    for (int d = 0; d < ctx.input(i).rank(); ++d) {
      if (ctx.input(i).dim(d) == 1 && size[in_axes[i][d]] != 1) continue;  // broadcast "..." dim
      const size_t w = std::find(walk.begin(), walk.end(), in_axes[i][d]) - walk.begin();
      stride[i][w] += row_major[d];
    }
  }
  std::vector<std::vector<double>> fin(n);
  std::vector<std::vector<int64_t>> iin(n);
  for (int i = 0; i < n; ++i) {
    if (is_int) iin[i] = *ctx.input(i).ToInt64Vector();
    else fin[i] = ctx.input(i).ToDoubleVector();
  }
  const int64_t out_count = out_shape.num_elements();
  int64_t inner = 1;
  for (size_t w = out_axes.size(); w < walk.size(); ++w) inner *= size[walk[w]];
  std::vector<double> facc(is_int ? 0 : out_count, 0.0);
  std::vector<int64_t> iacc(is_int ? out_count : 0, 0);
  std::vector<int64_t> idx(walk.size(), 0);
  std::vector<int64_t> offset(n, 0);
  if (out_count > 0 && inner > 0) {
    for (int64_t o = 0; o < out_count; ++o) {
      for (int64_t k = 0; k < inner; ++k) {
        if (is_int) {
          int64_t p = 1;
          for (int i = 0; i < n; ++i) p = static_cast<int64_t>(static_cast<uint64_t>(p) * static_cast<uint64_t>(iin[i][offset[i]]));
          iacc[o] = static_cast<int64_t>(static_cast<uint64_t>(iacc[o]) + static_cast<uint64_t>(p));
        } else {
          double p = 1;
          for (int i = 0; i < n; ++i) p *= fin[i][offset[i]];
          facc[o] += p;
        }
        // Odometer over all walk axes (the last varies fastest).
        for (int w = static_cast<int>(walk.size()) - 1; w >= 0; --w) {
          if (++idx[w] < size[walk[w]]) {
            for (int i = 0; i < n; ++i) offset[i] += stride[i][w];
            break;
          }
          for (int i = 0; i < n; ++i) offset[i] -= stride[i][w] * (idx[w] - 1);
          idx[w] = 0;
        }
      }
    }
  }
  Tensor out(dtype, out_shape);
  for (int64_t o = 0; o < out_count; ++o) {
    switch (dtype) {
      case DType::kInt32: out.data<int32_t>()[o] = static_cast<int32_t>(iacc[o]); break;
      case DType::kInt64: out.data<int64_t>()[o] = iacc[o]; break;
      case DType::kFloat: out.data<float>()[o] = static_cast<float>(facc[o]); break;
      case DType::kDouble: out.data<double>()[o] = facc[o]; break;
      case DType::kHalf: out.data<uint16_t>()[o] = FloatToHalf(static_cast<float>(facc[o])); break;
      default: out.data<uint16_t>()[o] = FloatToBFloat16(static_cast<float>(facc[o])); break;
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterEinsumOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Einsum")
                        .Input("inputs: N * T")
                        .Output("output: T")
                        .Attr("equation: string")
                        .Attr("N: int >= 1")
                        .Attr("T: type"),
                    Einsum);
}

}  // namespace tfhost::ops::math
