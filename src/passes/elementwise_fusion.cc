// elementwise_fusion: connected float element-wise ops (AddV2 -> Relu,
// x * Relu6(x + 3) * (1/6), ...) become one _TfhostFusedElementwise node
// (ops/math/fused_elementwise.cc) that computes the whole cluster in one
// pass over memory, block by block in L1, instead of writing and re-reading
// a full tensor per op.
//
// A cluster grows from a root (visited sinks first) towards its inputs: a
// producer joins when it is a fusable op, every reader of it (data and
// control) is already in the cluster, its name is not kept, its output has
// the root's static shape (so nothing is recomputed per element that was
// computed once on a smaller tensor) and the cluster has fewer than
// kMaxClusterOps ops. Everything else the members read becomes an input of
// the fused node: scalars, per-channel constants and broadcast operands are
// fine (the kernel broadcasts exactly as the separate ops did). The root
// keeps its name; the members' control inputs move to it. Clusters of one op
// are left alone.
//
// Fusable: float Add, AddV2, Sub, Mul, Div, RealDiv, Maximum, Minimum,
// SquaredDifference, Pow, Neg, Abs, Square, Sqrt, Rsqrt, Exp, Log, Reciprocal,
// Inv, Floor, Ceil, Erf, Tanh, Sigmoid, Relu, Relu6, Elu, Selu, Softplus,
// Softsign, LeakyRelu, and the GELU nodes gelu_fusion wrote (one instruction
// each; a cluster takes their instruction). The kernel evaluates each with the
// standalone op's expression, so outputs are bit-identical.
#include <algorithm>
#include <map>

#include "passes/gelu_fusion.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

constexpr int kMaxClusterOps = 32;

int Arity(const std::string& op) {
  static const std::map<std::string, int> kOps = {
      {"Add", 2},     {"AddV2", 2},      {"Sub", 2},       {"Mul", 2},     {"Div", 2},      {"RealDiv", 2},
      {"Maximum", 2}, {"Minimum", 2},    {"SquaredDifference", 2}, {"Pow", 2},
      {"Neg", 1},     {"Abs", 1},        {"Square", 1},    {"Sqrt", 1},    {"Rsqrt", 1},    {"Exp", 1},
      {"Log", 1},     {"Reciprocal", 1}, {"Inv", 1},       {"Floor", 1},   {"Ceil", 1},     {"Erf", 1},
      {"Tanh", 1},    {"Sigmoid", 1},    {"Relu", 1},      {"Relu6", 1},   {"Elu", 1},      {"Selu", 1},
      {"Softplus", 1}, {"Softsign", 1},  {"LeakyRelu", 1}, {"GeluExact", 1}, {"GeluApproximate", 1}};
  auto it = kOps.find(op);
  return it == kOps.end() ? 0 : it->second;
}

// The op a node contributes to a program: its own, or the GELU instruction
// of a node gelu_fusion wrote (a one-instruction _TfhostFusedElementwise).
std::string ProgramOp(const ir::Node& node) {
  std::string gelu = GeluNodeKind(node);
  return gelu.empty() ? node.op : gelu;
}

class ElementwiseFusion : public GraphPass {
 public:
  std::string name() const override { return "elementwise_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    const int n = graph->num_nodes();
    std::vector<int> position(n);
    for (int k = 0; k < n; ++k) position[order[k]] = k;
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(n, true), clustered(n, false);

    auto fusable = [&](int i) {
      const ir::Node& node = graph->node(i);
      const int arity = Arity(ProgramOp(node));
      if (arity == 0 || static_cast<int>(node.inputs.size()) != arity || node.output_dtypes.size() != 1 ||
          !internal::IsFloatNode(node) || IsProtected(*graph, node)) {
        return false;
      }
      for (const auto& in : node.inputs) {
        const auto& dts = graph->node(in.node).output_dtypes;
        if (in.index >= static_cast<int>(dts.size()) || dts[in.index] != DType::kFloat) return false;
      }
      return true;
    };
    auto same_shape = [&](int a, int b) {
      const auto& sa = graph->node(a).output_shapes;
      const auto& sb = graph->node(b).output_shapes;
      return !sa.empty() && !sb.empty() && sa[0].rank_known() && sb[0].rank_known() && sa[0].dims == sb[0].dims;
    };

    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int root = *it;
      if (clustered[root] || !fusable(root)) continue;
      std::vector<int> members = {root};
      auto is_member = [&](int i) { return std::find(members.begin(), members.end(), i) != members.end(); };
      bool grew = true;
      while (grew && static_cast<int>(members.size()) < kMaxClusterOps) {
        grew = false;
        for (size_t m = 0; m < members.size() && static_cast<int>(members.size()) < kMaxClusterOps; ++m) {
          for (const ir::TensorRef in : graph->node(members[m]).inputs) {
            const int p = in.node;
            if (is_member(p) || clustered[p] || !fusable(p) || ctx.MustKeep(graph->node(p)) ||
                !same_shape(p, root)) {
              continue;
            }
            internal::Uses uses = internal::UsesOf(*graph, consumers, p);
            bool inside = !uses.control;
            for (const auto& u : uses.data) inside = inside && is_member(u.consumer);
            if (!inside) continue;
            members.push_back(p);
            grew = true;
            if (static_cast<int>(members.size()) >= kMaxClusterOps) break;
          }
        }
      }
      if (members.size() < 2) continue;
      std::sort(members.begin(), members.end(), [&](int a, int b) { return position[a] < position[b]; });

      // Slots: external inputs first (in order of first use), then results.
      std::vector<ir::TensorRef> inputs;
      for (int m : members) {
        for (const auto& in : graph->node(m).inputs) {
          if (!is_member(in.node) && std::find(inputs.begin(), inputs.end(), in) == inputs.end()) {
            inputs.push_back(in);
          }
        }
      }
      const int num_inputs = static_cast<int>(inputs.size());
      std::vector<std::string> ops;
      std::vector<int64_t> operands;
      std::vector<float> alphas;
      std::vector<int> controls;
      for (int m : members) {
        const ir::Node& node = graph->node(m);
        ops.push_back(ProgramOp(node));
        for (int j = 0; j < 2; ++j) {
          if (j >= static_cast<int>(node.inputs.size())) {
            operands.push_back(-1);
            continue;
          }
          const ir::TensorRef in = node.inputs[j];
          if (is_member(in.node)) {
            const int k = static_cast<int>(std::find(members.begin(), members.end(), in.node) - members.begin());
            operands.push_back(num_inputs + k);
          } else {
            operands.push_back(std::find(inputs.begin(), inputs.end(), in) - inputs.begin());
          }
        }
        auto alpha = ir::GetAttrOr<float>(node, "alpha", 0.2f);
        alphas.push_back(node.op == "LeakyRelu" && alpha.ok() ? *alpha : 0.2f);
        for (int c : node.control_inputs) internal::AddControlInput(&controls, c);
      }
      ir::Node& r = graph->mutable_node(root);
      r.op = kFusedElementwiseOp;
      r.inputs = inputs;
      r.control_inputs = controls;
      r.attrs.clear();
      r.attrs["T"] = ops::MakeAttr(DType::kFloat);
      r.attrs["N"] = ops::MakeAttr(num_inputs);
      r.attrs["ops"] = ops::MakeAttr(ops);
      r.attrs["operands"] = ops::MakeAttr(operands);
      r.attrs["alphas"] = ops::MakeAttr(alphas);
      for (int m : members) {
        clustered[m] = true;
        if (m != root) keep[m] = false;
      }
    }
    return graph->Compact(keep);
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeElementwiseFusion() { return std::make_unique<ElementwiseFusion>(); }

}  // namespace tfhost::passes
