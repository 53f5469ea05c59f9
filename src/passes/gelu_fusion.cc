// gelu_fusion: see gelu_fusion.h for what is matched and why by probing.
#include "passes/gelu_fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

constexpr int kMaxGeluOps = 12;
constexpr double kProbeTolerance = 1e-5;

int Arity(const std::string& op) {
  static const std::map<std::string, int> kOps = {
      {"Add", 2}, {"AddV2", 2}, {"Sub", 2},    {"Mul", 2}, {"Div", 2}, {"RealDiv", 2}, {"Pow", 2},
      {"Square", 1}, {"Neg", 1}, {"Erf", 1}, {"Erfc", 1}, {"Tanh", 1}};
  auto it = kOps.find(op);
  return it == kOps.end() ? 0 : it->second;
}

bool IsTranscendental(const std::string& op) { return op == "Erf" || op == "Erfc" || op == "Tanh"; }

double GeluExactOf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double GeluApproximateOf(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

struct Candidate {
  std::vector<int> members;  // in graph order; the root last
  ir::TensorRef x;
};

class GeluFusion : public GraphPass {
 public:
  std::string name() const override { return "gelu_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    std::vector<int> position(graph->num_nodes());
    for (size_t k = 0; k < order.size(); ++k) position[order[k]] = static_cast<int>(k);
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true), absorbed(graph->num_nodes(), false);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int root = *it;
      if (absorbed[root]) continue;
      std::optional<Candidate> c = Collect(*graph, ctx, consumers, position, absorbed, root);
      if (!c) continue;
      const std::string kind = Probe(*graph, *c);
      if (kind.empty()) continue;
      Rewrite(graph, *c, kind);
      for (int m : c->members) {
        absorbed[m] = true;
        if (m != root) keep[m] = false;
      }
    }
    return graph->Compact(keep);
  }

 private:
  static bool Fusable(const ir::Graph& graph, const ir::Node& node) {
    const int arity = Arity(node.op);
    return arity > 0 && static_cast<int>(node.inputs.size()) == arity && node.output_dtypes.size() == 1 &&
           internal::IsFloatNode(node) && !IsProtected(graph, node);
  }

  // A scalar float Const (any rank, one element).
  static bool IsScalarConst(const ir::Graph& graph, const ir::TensorRef& ref) {
    auto c = internal::ConstValue(graph, ref);
    return c && c->dtype() == DType::kFloat && c->NumElements() == 1;
  }

  static std::optional<Candidate> Collect(const ir::Graph& graph, const PassContext& ctx,
                                          const std::vector<std::vector<int>>& consumers,
                                          const std::vector<int>& position, const std::vector<bool>& absorbed,
                                          int root) {
    const ir::Node& r = graph.node(root);
    if (!Fusable(graph, r) || r.op != "Mul") return std::nullopt;  // every GELU spelling ends in a product
    std::vector<int> members = {root};
    auto is_member = [&](int i) { return std::find(members.begin(), members.end(), i) != members.end(); };
    std::optional<ir::TensorRef> x;
    for (size_t m = 0; m < members.size(); ++m) {
      for (const ir::TensorRef& in : graph.node(members[m]).inputs) {
        const int p = in.node;
        if (is_member(p)) continue;
        if (IsScalarConst(graph, in)) continue;
        bool joins = !absorbed[p] && Fusable(graph, graph.node(p)) && !ctx.MustKeep(graph.node(p));
        if (joins) {
          internal::Uses uses = internal::UsesOf(graph, consumers, p);
          // Inside a GELU every intermediate has one reader; x is where the
          // graph fans out (it is read by the product and by the erf/tanh
          // branch), so a node read by two ops is x, not a member.
          joins = !uses.control && !uses.data.empty();
          for (const auto& u : uses.data) joins = joins && u.consumer == uses.data[0].consumer && u.output_index == 0;
          joins = joins && is_member(uses.data[0].consumer);
        }
        if (joins) {
          members.push_back(p);
          if (static_cast<int>(members.size()) > kMaxGeluOps) return std::nullopt;
          continue;
        }
        if (x && !(*x == in)) return std::nullopt;  // a second variable operand
        x = in;
      }
    }
    if (!x || members.size() < 4) return std::nullopt;
    int transcendental = 0;
    for (int m : members) transcendental += IsTranscendental(graph.node(m).op);
    if (transcendental != 1) return std::nullopt;
    // x must be float and already of the result's shape: the scalars may not
    // broadcast it to a larger rank.
    const ir::Node& xn = graph.node(x->node);
    if (x->index < 0 || x->index >= static_cast<int>(xn.output_dtypes.size()) ||
        xn.output_dtypes[x->index] != DType::kFloat) {
      return std::nullopt;
    }
    if (x->index >= static_cast<int>(xn.output_shapes.size()) || r.output_shapes.empty() ||
        !xn.output_shapes[x->index].rank_known() || !r.output_shapes[0].rank_known() ||
        xn.output_shapes[x->index].dims != r.output_shapes[0].dims) {
      return std::nullopt;
    }
    std::sort(members.begin(), members.end(), [&](int a, int b) { return position[a] < position[b]; });
    if (members.back() != root) return std::nullopt;
    return Candidate{members, *x};
  }

  // Evaluates the candidate on probe values of x with the reference kernels;
  // the GELU kind it computes, or "".
  static std::string Probe(const ir::Graph& graph, const Candidate& c) {
    std::vector<float> probe;
    for (int i = -64; i <= 64; ++i) probe.push_back(static_cast<float>(i) / 8.f);
    for (float v : {0.001f, -0.003f, 0.37f, -1.41f, 2.71f, -3.3f}) probe.push_back(v);
    const int64_t n = static_cast<int64_t>(probe.size());
    const Tensor xs = Tensor::FromVector<float>(probe, Shape({n}));
    std::map<int, Tensor> values;  // member -> output 0
    for (int m : c.members) {
      const ir::Node& node = graph.node(m);
      std::vector<Tensor> ins;
      for (const ir::TensorRef& in : node.inputs) {
        if (auto it = values.find(in.node); it != values.end() && in.index == 0) {
          ins.push_back(it->second);
        } else if (in == c.x) {
          ins.push_back(xs);
        } else if (auto k = internal::ConstValue(graph, in)) {
          // Scalars only (checked when collecting): as rank 0, so the probe's
          // shape stays [n] whatever rank the model gave the constant.
          ins.push_back(Tensor::Scalar<float>(k->data<float>()[0]));
        } else {
          return "";
        }
      }
      auto out = ops::RunSingleOp(node.op, std::move(ins), node.attrs);
      if (!out.ok() || out->empty() || (*out)[0].dtype() != DType::kFloat || (*out)[0].NumElements() != n) {
        return "";
      }
      values[m] = (*out)[0];
    }
    const Tensor& y = values.at(c.members.back());
    bool exact = true, approximate = true;
    for (int64_t i = 0; i < n; ++i) {
      const double v = y.data<float>()[i];
      const double e = GeluExactOf(probe[i]), a = GeluApproximateOf(probe[i]);
      exact = exact && std::abs(v - e) <= kProbeTolerance * std::max(1.0, std::abs(e));
      approximate = approximate && std::abs(v - a) <= kProbeTolerance * std::max(1.0, std::abs(a));
    }
    if (exact == approximate) return "";
    return exact ? "GeluExact" : "GeluApproximate";
  }

  static void Rewrite(ir::Graph* graph, const Candidate& c, const std::string& kind) {
    std::vector<int> controls;
    for (int m : c.members) {
      for (int ci : graph->node(m).control_inputs) internal::AddControlInput(&controls, ci);
    }
    ir::Node& r = graph->mutable_node(c.members.back());
    r.op = kFusedElementwiseOp;
    r.inputs = {c.x};
    r.control_inputs = controls;
    r.attrs.clear();
    r.attrs["T"] = ops::MakeAttr(DType::kFloat);
    r.attrs["N"] = ops::MakeAttr(1);
    r.attrs["ops"] = ops::MakeAttr(std::vector<std::string>{kind});
    r.attrs["operands"] = ops::MakeAttr(std::vector<int64_t>{0, -1});
    r.attrs["alphas"] = ops::MakeAttr(std::vector<float>{0.2f});
  }
};

}  // namespace

std::string GeluNodeKind(const ir::Node& node) {
  if (node.op != kFusedElementwiseOp || node.inputs.size() != 1) return "";
  auto ops = ir::GetAttrOr<std::vector<std::string>>(node, "ops", {});
  auto operands = ir::GetAttrOr<std::vector<int64_t>>(node, "operands", {});
  if (!ops.ok() || !operands.ok() || ops->size() != 1 || *operands != std::vector<int64_t>{0, -1}) return "";
  const std::string& k = (*ops)[0];
  return k == "GeluExact" || k == "GeluApproximate" ? k : "";
}

std::unique_ptr<GraphPass> MakeGeluFusion() { return std::make_unique<GeluFusion>(); }

}  // namespace tfhost::passes
