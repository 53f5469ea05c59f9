// einsum_lowering: a two-operand floating-point Einsum (float32, float64,
// float16 or bfloat16) becomes the matrix product it is: Transposes that
// bring each operand to [batch..., rows, inner] and [batch..., inner, cols]
// (or the adjoint, where that needs no Transpose),
// Reshapes that merge each group of labels into one dim, a MatMul (no batch
// labels) or BatchMatMulV2, then the Reshape and Transpose back to the
// equation's output. Keras 3's model.export writes EinsumDense and
// multi-head attention as Einsum ("abc,cde->abde", "BTNH,BSNH->BNTS"); the
// reference Einsum kernel walks the whole index space in double, and no
// device backend takes it, while every backend has a fast matrix product.
// The passes after this one then fuse the product with its bias and
// activation and fold its Transposes as they do for TensorFlow's own einsum
// lowering.
//
// Labels: batch (in both operands and the output), inner (in both, summed),
// row (first operand and output) and column (second operand and output).
// Within the groups the output's order is kept (the inner labels: the first
// operand's). A Reshape's target is a Const where at most one of its dims is
// unknown at load (then -1); otherwise it is gathered at run time from the
// operands' Shape. The products are the same sums of the same products, in
// the product kernels' precision (float32 sums in the fast ones) where the
// Einsum kernel accumulates in double.
//
// Matched: Einsum with two inputs, T floating-point (integers keep the
// Einsum kernel's exact int64 sums), an explicit "->", letters only (no
// "..."), no label repeated within a term, every operand label in the other
// operand or the output (a label summed within one operand is not a
// product), every output label in an operand, operand ranks known and equal
// to their terms' lengths; neither protected. The Einsum's node becomes the
// last op of the lowering (its name, outputs and readers stay).
#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

struct Equation {
  std::string a, b, out;
};

bool Has(const std::string& term, char c) { return term.find(c) != std::string::npos; }

std::optional<Equation> ParseEquation(const std::string& text) {
  const size_t comma = text.find(',');
  const size_t arrow = text.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || arrow < comma) return std::nullopt;
  Equation e{text.substr(0, comma), text.substr(comma + 1, arrow - comma - 1), text.substr(arrow + 2)};
  for (const std::string* term : {&e.a, &e.b, &e.out}) {
    std::string seen;
    for (char c : *term) {
      if (!std::isalpha(static_cast<unsigned char>(c)) || seen.find(c) != std::string::npos) return std::nullopt;
      seen += c;
    }
  }
  for (char c : e.a) {
    if (!Has(e.b, c) && !Has(e.out, c)) return std::nullopt;
  }
  for (char c : e.b) {
    if (!Has(e.a, c) && !Has(e.out, c)) return std::nullopt;
  }
  for (char c : e.out) {
    if (!Has(e.a, c) && !Has(e.b, c)) return std::nullopt;
  }
  return e;
}

// The positions in `term` of `labels`, in that order.
std::vector<int32_t> Positions(const std::string& term, const std::string& labels) {
  std::vector<int32_t> p;
  for (char c : labels) p.push_back(static_cast<int32_t>(term.find(c)));
  return p;
}

// The product of `shape`'s dims at `positions` (1 for none), or -1 where
// one of them is unknown.
int64_t MergedDim(const ir::PartialShape& shape, const std::vector<int32_t>& positions) {
  int64_t d = 1;
  for (int32_t p : positions) d = (d < 0 || shape.dim(p) < 0) ? -1 : d * shape.dim(p);
  return d;
}

bool IsIdentity(const std::vector<int32_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

// Adds the lowering's nodes next to the Einsum at `index`.
class Lowering {
 public:
  Lowering(ir::Graph* graph, int index, DType dtype)
      : graph_(graph), base_(graph->node(index).name), dtype_(dtype) {}

  StatusOr<ir::TensorRef> Add(const std::string& suffix, const std::string& op, std::vector<ir::TensorRef> inputs,
                              ir::AttrMap attrs, DType dtype, ir::PartialShape shape) {
    ir::Node n;
    n.name = graph_->UniqueName(base_ + "/" + suffix);
    n.op = op;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    n.output_dtypes = {dtype};
    n.output_shapes = {std::move(shape)};
    TFHOST_ASSIGN_OR_RETURN(int id, graph_->AddNode(std::move(n)));
    return ir::TensorRef{id, 0};
  }

  StatusOr<ir::TensorRef> Int32s(const std::string& suffix, const std::vector<int32_t>& values) {
    TFHOST_ASSIGN_OR_RETURN(int id, internal::AddConstNode(graph_, base_ + "/" + suffix,
                                                           Tensor::FromVector<int32_t>(values), {}));
    return ir::TensorRef{id, 0};
  }

  // `x` permuted by `perm` into `out_shape`.
  StatusOr<ir::TensorRef> Transpose(const std::string& suffix, ir::TensorRef x, const std::vector<int32_t>& perm,
                                    const ir::PartialShape& out_shape) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, Int32s(suffix + "_perm", perm));
    return Add(suffix, "Transpose", {x, p}, {{"T", ops::MakeAttr(dtype_)}, {"Tperm", ops::MakeAttr(DType::kInt32)}},
               dtype_, out_shape);
  }

  // The dims of the groups of `source`'s dims in `groups` (each group
  // merged into one dim, an empty group a dim of 1), as a Reshape target:
  // a Const where at most one is unknown, else gathered from Shape(source).
  StatusOr<ir::TensorRef> Target(const std::string& suffix, ir::TensorRef source, const ir::PartialShape& shape,
                                 const std::vector<std::vector<int32_t>>& groups, std::vector<int64_t>* dims) {
    dims->clear();
    int unknown = 0;
    for (const auto& g : groups) {
      dims->push_back(MergedDim(shape, g));
      unknown += dims->back() < 0;
    }
    if (unknown <= 1) {
      std::vector<int32_t> values(dims->begin(), dims->end());
      for (int32_t& v : values) v = v < 0 ? -1 : v;
      return Int32s(suffix, values);
    }
    const ir::AttrMap shape_attrs = {{"out_type", ops::MakeAttr(DType::kInt32)}, {"T", ops::MakeAttr(dtype_)}};
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef full, Add(suffix + "_shape", "Shape", {source}, shape_attrs, DType::kInt32,
                                                    ir::PartialShape::Known({shape.rank()})));
    const ir::AttrMap gather = {{"Tparams", ops::MakeAttr(DType::kInt32)},
                                {"Tindices", ops::MakeAttr(DType::kInt32)},
                                {"Taxis", ops::MakeAttr(DType::kInt32)},
                                {"batch_dims", ops::MakeAttr(int64_t{0})}};
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, Int32s(suffix + "_axis", {0}));
    if (std::all_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() == 1; })) {
      // One dim per group: the dims themselves, in one gather.
      std::vector<int32_t> at;
      for (const auto& g : groups) at.push_back(g[0]);
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef positions, Int32s(suffix + "_at", at));
      return Add(suffix, "GatherV2", {full, positions, axis}, gather, DType::kInt32,
                 ir::PartialShape::Known({static_cast<int64_t>(at.size())}));
    }
    std::vector<ir::TensorRef> pieces;
    for (size_t k = 0; k < groups.size(); ++k) {
      const std::string piece = suffix + "_" + std::to_string(k);
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef at, Int32s(piece + "_at", groups[k]));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef g, Add(piece, "GatherV2", {full, at, axis}, gather, DType::kInt32,
                                                   ir::PartialShape::Known({static_cast<int64_t>(groups[k].size())})));
      const ir::AttrMap prod = {{"T", ops::MakeAttr(DType::kInt32)},
                                {"Tidx", ops::MakeAttr(DType::kInt32)},
                                {"keep_dims", ops::MakeAttr(true)}};
      // The product of no dims is 1, as the group's merged dim must be.
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef merged, Add(piece + "_merged", "Prod", {g, axis}, prod, DType::kInt32,
                                                        ir::PartialShape::Known({1})));
      pieces.push_back(merged);
    }
    pieces.push_back(axis);
    const ir::AttrMap concat = {{"N", ops::MakeAttr(static_cast<int64_t>(groups.size()))},
                                {"T", ops::MakeAttr(DType::kInt32)},
                                {"Tidx", ops::MakeAttr(DType::kInt32)}};
    return Add(suffix, "ConcatV2", pieces, concat, DType::kInt32,
               ir::PartialShape::Known({static_cast<int64_t>(groups.size())}));
  }

  StatusOr<ir::TensorRef> Reshape(const std::string& suffix, ir::TensorRef x, ir::TensorRef target,
                                  const std::vector<int64_t>& dims) {
    return Add(suffix, "Reshape", {x, target}, {{"T", ops::MakeAttr(dtype_)}, {"Tshape", ops::MakeAttr(DType::kInt32)}},
               dtype_, ir::PartialShape::Known(dims));
  }

 private:
  ir::Graph* graph_;
  std::string base_;
  DType dtype_;
};

// One operand brought to [batch..., outer, inner] (or [batch..., inner,
// outer] with `adjoint`, where that order needs no Transpose), then merged to
// one dim per group where a group is not exactly one label.
struct Operand {
  ir::TensorRef ref;
  bool adjoint = false;
};

StatusOr<Operand> Arrange(Lowering& l, const std::string& name, ir::TensorRef x, const ir::PartialShape& shape,
                          const std::string& term, const std::string& batch, const std::string& outer,
                          const std::string& inner, bool outer_first) {
  const std::vector<int32_t> b = Positions(term, batch), o = Positions(term, outer), k = Positions(term, inner);
  std::vector<int32_t> plain = b, adjoint = b;
  if (outer_first) {
    plain.insert(plain.end(), o.begin(), o.end());
    plain.insert(plain.end(), k.begin(), k.end());
    adjoint.insert(adjoint.end(), k.begin(), k.end());
    adjoint.insert(adjoint.end(), o.begin(), o.end());
  } else {
    plain.insert(plain.end(), k.begin(), k.end());
    plain.insert(plain.end(), o.begin(), o.end());
    adjoint.insert(adjoint.end(), o.begin(), o.end());
    adjoint.insert(adjoint.end(), k.begin(), k.end());
  }
  Operand r;
  r.adjoint = !IsIdentity(plain) && IsIdentity(adjoint);
  const std::vector<int32_t>& perm = r.adjoint ? adjoint : plain;
  r.ref = x;
  ir::PartialShape arranged = shape;
  if (!IsIdentity(perm)) {
    std::vector<int64_t> dims;
    for (int32_t p : perm) dims.push_back(shape.dim(p));
    arranged = ir::PartialShape::Known(dims);
    TFHOST_ASSIGN_OR_RETURN(r.ref, l.Transpose(name + "_t", x, perm, arranged));
  }
  if (o.size() == 1 && k.size() == 1) return r;
  // Groups as positions in the arranged operand.
  std::vector<std::vector<int32_t>> groups;
  int32_t at = 0;
  for (size_t i = 0; i < b.size(); ++i) groups.push_back({at++});
  const bool outer_next = outer_first != r.adjoint;
  for (size_t g = 0; g < 2; ++g) {
    const size_t n = (g == 0) == outer_next ? o.size() : k.size();
    std::vector<int32_t> group;
    for (size_t i = 0; i < n; ++i) group.push_back(at++);
    groups.push_back(group);
  }
  std::vector<int64_t> dims;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef target, l.Target(name + "_rows_shape", r.ref, arranged, groups, &dims));
  TFHOST_ASSIGN_OR_RETURN(r.ref, l.Reshape(name + "_rows", r.ref, target, dims));
  return r;
}

// The Reshape targets are int32: an operand of 2^31 or more known elements
// stays an Einsum.
bool FitsInt32(const ir::PartialShape& s) {
  int64_t n = 1;
  for (int d = 0; d < s.rank(); ++d) {
    if (s.dim(d) > 0) n *= s.dim(d);
    if (n > INT32_MAX) return false;
  }
  return true;
}

// Labels in both operands (batch and inner) whose sizes are known must
// agree: TensorFlow refuses unequal ones, which a batched product would
// broadcast where one is 1. Such a node stays an Einsum, whose kernel says so.
bool BatchDimsAgree(const Equation& e, const ir::PartialShape& a, const ir::PartialShape& b) {
  for (char c : e.a) {
    if (!Has(e.b, c)) continue;
    const int64_t x = a.dim(static_cast<int>(e.a.find(c))), y = b.dim(static_cast<int>(e.b.find(c)));
    if (x >= 0 && y >= 0 && x != y) return false;
  }
  return true;
}

class EinsumLowering : public GraphPass {
 public:
  std::string name() const override { return "einsum_lowering"; }

  Status Run(ir::Graph* graph, const PassContext&) override {
    const int original = graph->num_nodes();
    for (int i = 0; i < original; ++i) {
      const ir::Node& node = graph->node(i);
      if (node.op != "Einsum" || node.inputs.size() != 2 || IsProtected(*graph, node)) continue;
      auto t = ir::GetAttr<DType>(node, "T");
      auto text = ir::GetAttr<std::string>(node, "equation");
      if (!t.ok() || !IsFloatingPoint(*t) || !text.ok()) continue;
      std::optional<Equation> e = ParseEquation(*text);
      if (!e) continue;
      const ir::PartialShape* shapes[2];
      bool ranks_match = true;
      for (int k = 0; k < 2; ++k) {
        const ir::Node& in = graph->node(node.inputs[k].node);
        const int index = node.inputs[k].index;
        if (index >= static_cast<int>(in.output_shapes.size())) {
          ranks_match = false;
          break;
        }
        shapes[k] = &in.output_shapes[index];
        const std::string& term = k == 0 ? e->a : e->b;
        ranks_match &= shapes[k]->rank_known() && shapes[k]->rank() == static_cast<int>(term.size());
      }
      if (!ranks_match || !BatchDimsAgree(*e, *shapes[0], *shapes[1]) || !FitsInt32(*shapes[0]) ||
          !FitsInt32(*shapes[1])) {
        continue;
      }
      TFHOST_RETURN_IF_ERROR(Lower(graph, i, *t, *e, *shapes[0], *shapes[1]));
    }
    return OkStatus();
  }

 private:
  static Status Lower(ir::Graph* graph, int i, DType dtype, const Equation& e, const ir::PartialShape a_shape,
                      const ir::PartialShape b_shape) {
    std::string batch, rows, cols, inner;
    for (char c : e.out) {
      if (Has(e.a, c) && Has(e.b, c)) batch += c;
      else if (Has(e.a, c)) rows += c;
      else cols += c;
    }
    for (char c : e.a) {
      if (Has(e.b, c) && !Has(e.out, c)) inner += c;
    }
    Lowering l(graph, i, dtype);
    const ir::TensorRef a_in = graph->node(i).inputs[0], b_in = graph->node(i).inputs[1];
    TFHOST_ASSIGN_OR_RETURN(Operand a, Arrange(l, "a", a_in, a_shape, e.a, batch, rows, inner, true));
    TFHOST_ASSIGN_OR_RETURN(Operand b, Arrange(l, "b", b_in, b_shape, e.b, batch, cols, inner, false));
    // The product's dims: the batch labels, then the row and column groups.
    std::vector<int64_t> product_dims;
    for (char c : batch) product_dims.push_back(a_shape.dim(static_cast<int>(e.a.find(c))));
    product_dims.push_back(MergedDim(a_shape, Positions(e.a, rows)));
    product_dims.push_back(MergedDim(b_shape, Positions(e.b, cols)));
    ir::AttrMap attrs = {{"T", ops::MakeAttr(dtype)}};
    const bool plain = batch.empty();
    attrs[plain ? "transpose_a" : "adj_x"] = ops::MakeAttr(a.adjoint);
    attrs[plain ? "transpose_b" : "adj_y"] = ops::MakeAttr(b.adjoint);
    const char* product_op = plain ? "MatMul" : "BatchMatMulV2";
    // The equation's output order, from [batch, rows, cols].
    const std::string grouped = batch + rows + cols;
    std::vector<int32_t> perm = Positions(grouped, e.out);
    const bool split = rows.size() != 1 || cols.size() != 1;
    const bool transpose = !IsIdentity(perm);
    ir::TensorRef y;
    if (split || transpose) {
      TFHOST_ASSIGN_OR_RETURN(y, l.Add("product", product_op, {a.ref, b.ref}, attrs, dtype,
                                       ir::PartialShape::Known(product_dims)));
    }
    if (split) {
      // [batch..., rows..., cols...] from the operands' own dims.
      std::vector<int64_t> dims;
      for (char c : batch + rows) dims.push_back(a_shape.dim(static_cast<int>(e.a.find(c))));
      for (char c : cols) dims.push_back(b_shape.dim(static_cast<int>(e.b.find(c))));
      ir::TensorRef target;
      if (std::count(dims.begin(), dims.end(), -1) <= 1) {
        TFHOST_ASSIGN_OR_RETURN(target, l.Int32s("out_shape", std::vector<int32_t>(dims.begin(), dims.end())));
      } else {
        // Each output dim its own group: batch and rows from a, cols from b.
        std::vector<std::vector<int32_t>> from_a, from_b;
        for (char c : batch + rows) from_a.push_back({static_cast<int32_t>(e.a.find(c))});
        for (char c : cols) from_b.push_back({static_cast<int32_t>(e.b.find(c))});
        std::vector<int64_t> ignored;
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a_part, l.Target("out_shape_a", a_in, a_shape, from_a, &ignored));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b_part, l.Target("out_shape_b", b_in, b_shape, from_b, &ignored));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, l.Int32s("out_shape_axis", {0}));
        const ir::AttrMap concat = {{"N", ops::MakeAttr(int64_t{2})},
                                    {"T", ops::MakeAttr(DType::kInt32)},
                                    {"Tidx", ops::MakeAttr(DType::kInt32)}};
        TFHOST_ASSIGN_OR_RETURN(target, l.Add("out_shape", "ConcatV2", {a_part, b_part, axis}, concat, DType::kInt32,
                                              ir::PartialShape::Known({static_cast<int64_t>(dims.size())})));
      }
      if (!transpose) return Rewrite(graph, i, "Reshape", {y, target},
                                     {{"T", ops::MakeAttr(dtype)}, {"Tshape", ops::MakeAttr(DType::kInt32)}});
      TFHOST_ASSIGN_OR_RETURN(y, l.Reshape("grouped", y, target, dims));
    }
    if (!transpose) return Rewrite(graph, i, product_op, {a.ref, b.ref}, attrs);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, l.Int32s("out_perm", perm));
    return Rewrite(graph, i, "Transpose", {y, p},
                   {{"T", ops::MakeAttr(dtype)}, {"Tperm", ops::MakeAttr(DType::kInt32)}});
  }

  // The Einsum's node becomes the lowering's last op; its name, output
  // dtype and shape, control inputs and readers stay.
  static Status Rewrite(ir::Graph* graph, int i, const std::string& op, std::vector<ir::TensorRef> inputs,
                        ir::AttrMap attrs) {
    ir::Node& n = graph->mutable_node(i);
    n.op = op;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    n.backend.clear();
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeEinsumLowering() { return std::make_unique<EinsumLowering>(); }

}  // namespace tfhost::passes
