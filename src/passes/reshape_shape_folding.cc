// reshape_shape_folding: a Reshape whose shape is computed from Shape ops at
// run time gets a constant shape where that computation is known up to one
// element, which becomes -1. TensorFlow's tensordot (Keras's Dense on a
// [B, T, D] input) writes, for every layer,
//   Reshape(x, Pack(Prod(Gather(Shape(x), free)), Prod(Gather(Shape(x), axes))))
//   ... MatMul ...
//   Reshape(product, Concat(Gather(Shape(x), free), [N]))
// seven shape nodes for two Reshapes: at batch 1 BERT-base ran 168 of them,
// each a few microseconds of a cold cache between its 9 MB weight streams.
//
// Shapes and shape values are followed symbolically: every dim is a
// monomial, a known factor times unknown dims (a symbol per unknown dim of a
// tensor's static shape), carried through Shape, GatherV2, Prod, Pack,
// ConcatV2 and Cast for the values, and through Transpose, Reshape, MatMul,
// BatchMatMul, broadcasting binary ops and the ops that keep their input's
// shape for the shapes. A
// shape with every element known becomes that Const. One with one unknown
// element becomes the Const with -1 there only when the reshaped tensor's
// element count is, symbolically, the product of the shape's elements: the
// Reshape then succeeds for every batch size as it did, and -1 resolves to
// exactly the element it replaces. The Reshape keeps its name and outputs;
// the shape nodes are pruned once nothing reads them.
#include <algorithm>
#include <cstdint>
#include <map>

#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddConstNode;
using internal::ConstValue;

struct Symbol {
  int node = 0, output = 0, dim = 0;
  bool operator<(const Symbol& o) const {
    return node != o.node ? node < o.node : output != o.output ? output < o.output : dim < o.dim;
  }
  bool operator==(const Symbol& o) const { return node == o.node && output == o.output && dim == o.dim; }
};

// factor * the product of `symbols` (sorted; a symbol may repeat).
struct Monomial {
  int64_t factor = 1;
  std::vector<Symbol> symbols;
  bool known() const { return symbols.empty(); }
  bool operator==(const Monomial& o) const { return factor == o.factor && symbols == o.symbols; }
};

// Products whose factor leaves [0, 2^40] are given up on (no overflow, and
// no real shape is that large).
constexpr int64_t kMaxFactor = int64_t{1} << 40;

std::optional<Monomial> Multiply(const Monomial& a, const Monomial& b) {
  if (a.factor < 0 || b.factor < 0 || (b.factor != 0 && a.factor > kMaxFactor / b.factor)) return std::nullopt;
  Monomial m{a.factor * b.factor, a.symbols};
  m.symbols.insert(m.symbols.end(), b.symbols.begin(), b.symbols.end());
  std::sort(m.symbols.begin(), m.symbols.end());
  return m;
}

// a / b when b divides a exactly as a monomial (factor and symbols).
std::optional<Monomial> Divide(const Monomial& a, const Monomial& b) {
  if (b.factor <= 0 || a.factor < 0 || a.factor % b.factor != 0) return std::nullopt;
  Monomial q{a.factor / b.factor, {}};
  std::vector<Symbol> rest = b.symbols;
  for (const Symbol& s : a.symbols) {
    auto it = std::find(rest.begin(), rest.end(), s);
    if (it != rest.end()) {
      rest.erase(it);
    } else {
      q.symbols.push_back(s);
    }
  }
  if (!rest.empty()) return std::nullopt;
  return q;
}

std::optional<Monomial> Product(const std::vector<Monomial>& v) {
  Monomial p;
  for (const Monomial& m : v) {
    auto next = Multiply(p, m);
    if (!next) return std::nullopt;
    p = std::move(*next);
  }
  return p;
}

using SymVec = std::vector<Monomial>;

// A small int32/int64 shape value: rank 0 (one element) or rank 1.
struct SymValue {
  bool scalar = false;
  SymVec elements;
};

class ShapeFolder {
 public:
  explicit ShapeFolder(const ir::Graph& graph) : g_(graph) {}

  // Each node's symbolic output shapes and shape values, in `order`.
  void Evaluate(const std::vector<int>& order) {
    for (int id : order) {
      const ir::Node& n = g_.node(id);
      for (int k = 0; k < static_cast<int>(n.output_dtypes.size()); ++k) {
        const ir::TensorRef ref{id, k};
        if (auto v = ValueFromOp(id, n, k)) values_[ref] = std::move(*v);
        if (auto s = ShapeFromOp(id, n, k)) shapes_[ref] = std::move(*s);
      }
    }
  }

  const SymValue* Value(const ir::TensorRef& ref) const {
    auto it = values_.find(ref);
    return it == values_.end() ? nullptr : &it->second;
  }

  // The symbolic shape: refined where an op says how its dims relate to its
  // inputs', else the static shape with a symbol per unknown dim.
  std::optional<SymVec> Shape(const ir::TensorRef& ref) const {
    auto it = shapes_.find(ref);
    if (it != shapes_.end()) return it->second;
    return StaticShape(ref);
  }

 private:
  std::optional<SymVec> StaticShape(const ir::TensorRef& ref) const {
    const ir::Node& n = g_.node(ref.node);
    if (ref.index >= static_cast<int>(n.output_shapes.size()) || !n.output_shapes[ref.index].rank_known()) {
      return std::nullopt;
    }
    const ir::PartialShape& s = n.output_shapes[ref.index];
    SymVec v;
    for (int i = 0; i < s.rank(); ++i) {
      if (s.dim(i) >= 0) {
        v.push_back(Monomial{s.dim(i), {}});
      } else {
        v.push_back(Monomial{1, {Symbol{ref.node, ref.index, i}}});
      }
    }
    return v;
  }

  // A Const int vector or scalar's values.
  std::optional<std::vector<int64_t>> ConstInts(const ir::TensorRef& ref) const {
    std::optional<Tensor> t = ConstValue(g_, ref);
    if (!t || t->rank() > 1 || (t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64)) return std::nullopt;
    auto v = t->ToInt64Vector();
    if (!v.ok()) return std::nullopt;
    return *v;
  }

  bool ZeroAxis(const ir::TensorRef& ref) const {
    auto axis = ConstInts(ref);
    return axis && axis->size() == 1 && ((*axis)[0] == 0 || (*axis)[0] == -1);
  }

  std::optional<SymValue> ValueFromOp(int id, const ir::Node& n, int k) const {
    if (k != 0) return std::nullopt;
    const DType dtype = n.output_dtypes[0];
    if (dtype != DType::kInt32 && dtype != DType::kInt64) return std::nullopt;
    if (n.op == "Const") {
      std::optional<Tensor> t = ConstValue(g_, ir::TensorRef{id, 0});
      auto ints = ConstInts(ir::TensorRef{id, 0});
      if (!t || !ints) return std::nullopt;
      SymValue v{t->rank() == 0, {}};
      for (int64_t x : *ints) v.elements.push_back(Monomial{x, {}});
      return v;
    }
    if (n.op == "Shape" && n.inputs.size() == 1) {
      auto s = Shape(n.inputs[0]);
      if (!s) return std::nullopt;
      return SymValue{false, *s};
    }
    if ((n.op == "Cast" || n.op == "Identity") && n.inputs.size() == 1) {
      const SymValue* in = Value(n.inputs[0]);
      if (in == nullptr) return std::nullopt;
      return *in;
    }
    if (n.op == "GatherV2" && n.inputs.size() == 3) {
      const SymValue* params = Value(n.inputs[0]);
      auto indices = ConstInts(n.inputs[1]);
      auto batch_dims = ir::GetAttrOr<int64_t>(n, "batch_dims", 0);
      if (params == nullptr || params->scalar || !indices || !ZeroAxis(n.inputs[2]) || !batch_dims.ok() ||
          *batch_dims != 0) {
        return std::nullopt;
      }
      std::optional<Tensor> index_tensor = ConstValue(g_, n.inputs[1]);
      SymValue v{index_tensor->rank() == 0, {}};
      const int64_t size = static_cast<int64_t>(params->elements.size());
      for (int64_t i : *indices) {
        if (i < 0 || i >= size) return std::nullopt;  // the kernel reports it
        v.elements.push_back(params->elements[i]);
      }
      return v;
    }
    if (n.op == "Prod" && n.inputs.size() == 2) {
      const SymValue* in = Value(n.inputs[0]);
      auto keep = ir::GetAttrOr<bool>(n, "keep_dims", false);
      if (in == nullptr || in->scalar || !ZeroAxis(n.inputs[1]) || !keep.ok() || *keep) return std::nullopt;
      auto p = Product(in->elements);
      if (!p) return std::nullopt;
      return SymValue{true, {*p}};
    }
    if (n.op == "Pack") {
      auto axis = ir::GetAttrOr<int64_t>(n, "axis", 0);
      if (!axis.ok() || (*axis != 0 && *axis != -1)) return std::nullopt;
      SymValue v;
      for (const ir::TensorRef& in : n.inputs) {
        const SymValue* e = Value(in);
        if (e == nullptr || !e->scalar) return std::nullopt;
        v.elements.push_back(e->elements[0]);
      }
      return v;
    }
    if (n.op == "ConcatV2" && n.inputs.size() >= 2) {
      if (!ZeroAxis(n.inputs.back())) return std::nullopt;
      SymValue v;
      for (size_t i = 0; i + 1 < n.inputs.size(); ++i) {
        const SymValue* e = Value(n.inputs[i]);
        if (e == nullptr || e->scalar) return std::nullopt;
        v.elements.insert(v.elements.end(), e->elements.begin(), e->elements.end());
      }
      return v;
    }
    return std::nullopt;
  }

  std::optional<SymVec> ShapeFromOp(int id, const ir::Node& n, int k) const {
    if (k != 0 || n.inputs.empty()) return std::nullopt;
    if (n.op == "Transpose" && n.inputs.size() == 2) {
      auto in = Shape(n.inputs[0]);
      auto perm = ConstInts(n.inputs[1]);
      if (!in || !perm || perm->size() != in->size()) return std::nullopt;
      SymVec out;
      for (int64_t p : *perm) {
        if (p < 0 || p >= static_cast<int64_t>(in->size())) return std::nullopt;
        out.push_back((*in)[p]);
      }
      return out;
    }
    if (n.op == "Reshape" && n.inputs.size() == 2) {
      const SymValue* target = Value(n.inputs[1]);
      auto in = Shape(n.inputs[0]);
      if (target == nullptr || target->scalar || !in) return std::nullopt;
      SymVec out = target->elements;
      int inferred = -1;
      SymVec others;
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i].known() && out[i].factor == -1) {
          if (inferred >= 0) return std::nullopt;
          inferred = static_cast<int>(i);
        } else if (out[i].factor < 0) {
          return std::nullopt;
        } else {
          others.push_back(out[i]);
        }
      }
      if (inferred >= 0) {
        auto total = Product(*in);
        auto rest = Product(others);
        if (!total || !rest) return std::nullopt;
        auto q = Divide(*total, *rest);
        if (!q) return std::nullopt;
        out[inferred] = *q;
      }
      return out;
    }
    if ((n.op == "MatMul" || n.op == "_FusedMatMul") && n.inputs.size() >= 2) {
      auto a = Shape(n.inputs[0]);
      auto b = Shape(n.inputs[1]);
      auto ta = ir::GetAttrOr<bool>(n, "transpose_a", false);
      auto tb = ir::GetAttrOr<bool>(n, "transpose_b", false);
      if (!a || !b || a->size() != 2 || b->size() != 2 || !ta.ok() || !tb.ok()) return std::nullopt;
      return SymVec{(*a)[*ta ? 1 : 0], (*b)[*tb ? 0 : 1]};
    }
    if ((n.op == "BatchMatMulV2" || n.op == "BatchMatMulV3" || n.op == "_TfhostFusedBatchMatMul") &&
        n.inputs.size() >= 2) {
      // Weights of rank 2 under a batched x (a Dense on [B, T, D]).
      auto x = Shape(n.inputs[0]);
      auto y = Shape(n.inputs[1]);
      auto adj_x = ir::GetAttrOr<bool>(n, "adj_x", false);
      auto adj_y = ir::GetAttrOr<bool>(n, "adj_y", false);
      if (!x || !y || x->size() < 2 || y->size() != 2 || !adj_x.ok() || !adj_y.ok() || *adj_x) return std::nullopt;
      SymVec out(x->begin(), x->end() - 1);
      out.push_back((*y)[*adj_y ? 0 : 1]);
      return out;
    }
    // Binary element-wise ops: the broadcast of the two, dim by dim from the
    // last, where a 1 (or a missing dim) takes the other's and equal dims
    // stay; anything else is left to the static shape.
    static const char* kBroadcasting[] = {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum",
                                          "Minimum", "Pow", "SquaredDifference"};
    for (const char* op : kBroadcasting) {
      if (n.op != op || n.inputs.size() != 2) continue;
      auto a = Shape(n.inputs[0]);
      auto b = Shape(n.inputs[1]);
      if (!a || !b) return std::nullopt;
      const size_t rank = std::max(a->size(), b->size());
      SymVec out(rank);
      for (size_t i = 0; i < rank; ++i) {
        const Monomial one{1, {}};
        const Monomial& da = i < rank - a->size() ? one : (*a)[i - (rank - a->size())];
        const Monomial& db = i < rank - b->size() ? one : (*b)[i - (rank - b->size())];
        if (da == db || db == one) {
          out[i] = da;
        } else if (da == one) {
          out[i] = db;
        } else {
          return std::nullopt;
        }
      }
      return out;
    }
    // Ops whose output has their first input's shape (element-wise on one
    // tensor, or with per-channel operands that do not widen it).
    static const char* kSameShape[] = {"Identity", "Relu", "Relu6", "Tanh", "Sigmoid", "Neg", "BiasAdd",
                                       "_TfhostLayerNorm", "Softmax", "_TfhostMaskedSoftmax"};
    for (const char* op : kSameShape) {
      if (n.op != op) continue;
      auto in = Shape(n.inputs[0]);
      auto own = StaticShape(ir::TensorRef{id, 0});
      // Only where the static ranks agree: a widening broadcast would not.
      if (!in || !own || in->size() != own->size()) return std::nullopt;
      return in;
    }
    return std::nullopt;
  }

  const ir::Graph& g_;
  std::map<ir::TensorRef, SymValue> values_;
  std::map<ir::TensorRef, SymVec> shapes_;
};

class ReshapeShapeFolding : public GraphPass {
 public:
  std::string name() const override { return "reshape_shape_folding"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    ShapeFolder folder(*graph);
    folder.Evaluate(order);
    struct Rewrite {
      int reshape;
      Tensor shape;
    };
    std::vector<Rewrite> rewrites;
    for (int id : order) {
      const ir::Node& n = graph->node(id);
      if (n.op != "Reshape" || n.inputs.size() != 2 || IsProtected(*graph, n) || ConstValue(*graph, n.inputs[1])) {
        continue;
      }
      const SymValue* target = folder.Value(n.inputs[1]);
      if (target == nullptr || target->scalar) continue;
      std::vector<int64_t> values;
      int unknown = -1;
      bool ok = true;
      for (size_t i = 0; i < target->elements.size() && ok; ++i) {
        const Monomial& m = target->elements[i];
        if (m.known()) {
          values.push_back(m.factor);
          ok = m.factor >= 0 || m.factor == -1;
        } else {
          ok = unknown < 0 && m.factor > 0;
          unknown = static_cast<int>(i);
          values.push_back(-1);
        }
      }
      if (!ok) continue;
      const bool has_minus_one = std::count(values.begin(), values.end(), int64_t{-1}) > (unknown >= 0 ? 1 : 0);
      if (unknown >= 0 && has_minus_one) continue;  // two -1s: the kernel reports it
      const DType dtype = graph->node(n.inputs[1].node).output_dtypes[n.inputs[1].index];
      if (dtype == DType::kInt32 &&
          std::any_of(values.begin(), values.end(), [](int64_t v) { return v > INT32_MAX; })) {
        continue;
      }
      if (unknown >= 0) {
        // -1 must resolve to the very element it replaces: the reshaped
        // tensor holds the product of the shape's elements.
        auto in = folder.Shape(n.inputs[0]);
        auto total = in ? Product(*in) : std::nullopt;
        auto want = Product(target->elements);
        if (!total || !want || !(*total == *want)) continue;
        if (std::any_of(values.begin(), values.end(), [](int64_t v) { return v == 0; })) continue;
      }
      Tensor shape = dtype == DType::kInt64
                         ? Tensor::FromVector<int64_t>(values)
                         : Tensor::FromVector<int32_t>(std::vector<int32_t>(values.begin(), values.end()));
      rewrites.push_back({id, std::move(shape)});
    }
    for (Rewrite& r : rewrites) {
      const std::string base = graph->node(r.reshape).name + "/shape";
      TFHOST_ASSIGN_OR_RETURN(int c, AddConstNode(graph, base, r.shape, {}));
      graph->mutable_node(r.reshape).inputs[1] = ir::TensorRef{c, 0};
    }
    return rewrites.empty() ? OkStatus() : PruneDeadNodes(graph, ctx);
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeReshapeShapeFolding() { return std::make_unique<ReshapeShapeFolding>(); }

}  // namespace tfhost::passes
