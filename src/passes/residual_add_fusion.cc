// residual_add_fusion: see residual_add_fusion.h for what it matches and why.
#include "passes/residual_add_fusion.h"

#include "ops/op_registry.h"
#include "passes/gelu_fusion.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddControlInput;
using internal::SoleConsumer;

// A fused convolution whose epilogue is only a BiasAdd, with exactly its one
// arg (so the residual becomes the last arg). [FusedBatchNorm] is left alone
// although the kernels take [FusedBatchNorm, Add]: oneDNN (2.6, AVX2) has no
// jit kernel for batch norm's post-ops followed by a sum, so that node would
// run on the reference kernel, slower than the oneDNN convolution and a
// separate Add (and batch_norm_folding has usually made it a BiasAdd anyway).
bool IsBiasOnlyFusedConv(const ir::Node& node) {
  if (node.op != "_FusedConv2D" && node.op != "FusedDepthwiseConv2dNative") return false;
  if (!internal::IsFloatNode(node)) return false;
  auto fused = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  auto num_args = ir::GetAttrOr<int64_t>(node, "num_args", 0);
  auto host = ir::GetAttrOr<int64_t>(node, "num_host_args", 0);
  auto filter_format = ir::GetAttrOr<std::string>(node, "filter_format", "HWIO");
  if (!fused.ok() || !num_args.ok() || !host.ok() || !filter_format.ok()) return false;
  return *host == 0 && *filter_format == "HWIO" && *fused == std::vector<std::string>{"BiasAdd"} &&
         *num_args == 1 && node.inputs.size() == 3;
}

const ir::PartialShape* ShapeOf(const ir::Graph& graph, const ir::TensorRef& ref) {
  const auto& shapes = graph.node(ref.node).output_shapes;
  if (ref.index < 0 || ref.index >= static_cast<int>(shapes.size()) || !shapes[ref.index].rank_known()) {
    return nullptr;
  }
  return &shapes[ref.index];
}

// `a` and `b` are the same 4-D shape: every dim known and equal, except a
// batch dim (0) unknown in both.
bool SameShape(const ir::PartialShape* a, const ir::PartialShape* b) {
  if (a == nullptr || b == nullptr || a->rank() != 4 || b->rank() != 4) return false;
  for (int d = 0; d < 4; ++d) {
    const int64_t x = a->dim(d), y = b->dim(d);
    if (x >= 0 ? x != y : !(d == 0 && y < 0)) return false;
  }
  return true;
}

// The fused_ops name of an activation the fused convolutions apply after
// the Add (reference and oneDNN alike), or "".
std::string ActivationName(const ir::Node& node) {
  if (node.inputs.size() != 1 || !internal::IsFloatNode(node)) return "";
  if (std::string gelu = GeluNodeKind(node); !gelu.empty()) return gelu;
  for (const char* n : {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"}) {
    if (node.op == n) return n;
  }
  return "";
}

struct Match {
  int conv = -1;
  int add = -1;
  ir::TensorRef residual;
  int act = -1;  // or -1
  std::string activation;
  float leaky_alpha = 0.2f;
  int result() const { return act >= 0 ? act : add; }
};

class ResidualAddFusion : public GraphPass {
 public:
  std::string name() const override { return "residual_add_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    // Computed once: a rewrite only moves reads onto the pattern's result
    // node, and every node a rewrite touches is then either removed (keep
    // false) or no longer a convolution waiting for its Add, which the
    // matcher checks.
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true);
    for (int i : order) {
      if (!keep[i]) continue;
      if (std::optional<Match> m = MatchAt(*graph, ctx, consumers, keep, i)) Rewrite(graph, *m, &keep);
    }
    return graph->Compact(keep);
  }

 private:
  static std::optional<Match> MatchAt(const ir::Graph& graph, const PassContext& ctx,
                                      const std::vector<std::vector<int>>& consumers, const std::vector<bool>& keep,
                                      int i) {
    const ir::Node& conv = graph.node(i);
    if (!IsBiasOnlyFusedConv(conv) || ctx.MustKeep(conv) || IsProtected(graph, conv)) return std::nullopt;
    Match m;
    m.conv = i;
    m.add = SoleConsumer(graph, consumers, i);
    if (m.add < 0 || !keep[m.add]) return std::nullopt;
    const ir::Node& add = graph.node(m.add);
    if ((add.op != "AddV2" && add.op != "Add") || add.inputs.size() != 2 || !internal::IsFloatNode(add) ||
        IsProtected(graph, add)) {
      return std::nullopt;
    }
    const ir::TensorRef y{i, 0};
    if (add.inputs[0] == y && add.inputs[1] != y) {
      m.residual = add.inputs[1];
    } else if (add.inputs[1] == y && add.inputs[0] != y) {
      m.residual = add.inputs[0];
    } else {
      return std::nullopt;
    }
    const auto& dts = graph.node(m.residual.node).output_dtypes;
    if (m.residual.index >= static_cast<int>(dts.size()) || dts[m.residual.index] != DType::kFloat) {
      return std::nullopt;
    }
    // The residual, the convolution and the sum all of one shape: the Add
    // does not broadcast.
    const ir::PartialShape* out = ShapeOf(graph, y);
    if (!SameShape(out, ShapeOf(graph, m.residual)) || !SameShape(out, ShapeOf(graph, ir::TensorRef{m.add, 0}))) {
      return std::nullopt;
    }
    if (!ctx.MustKeep(add)) {
      const int a = SoleConsumer(graph, consumers, m.add);
      if (a >= 0 && keep[a] && !IsProtected(graph, graph.node(a))) {
        const ir::Node& act = graph.node(a);
        const std::string name = ActivationName(act);
        auto alpha = ir::GetAttrOr<float>(act, "alpha", 0.2f);
        if (!name.empty() && alpha.ok()) {
          m.act = a;
          m.activation = name;
          if (name == "LeakyRelu") m.leaky_alpha = *alpha;
        }
      }
    }
    return m;
  }

  static void Rewrite(ir::Graph* graph, const Match& m, std::vector<bool>* keep) {
    const ir::Node conv = graph->node(m.conv);  // copy: the result node is rewritten below
    std::vector<int> absorbed = {m.conv};
    if (m.act >= 0) absorbed.push_back(m.add);
    std::vector<int> controls = graph->node(m.result()).control_inputs;
    for (int a : absorbed) {
      for (int c : graph->node(a).control_inputs) AddControlInput(&controls, c);
    }
    ir::Node& r = graph->mutable_node(m.result());
    std::vector<ir::PartialShape> shapes = r.output_shapes;
    if (shapes.size() > 1) shapes.resize(1);
    r.op = conv.op;
    r.inputs = conv.inputs;
    r.inputs.push_back(m.residual);
    r.control_inputs = std::move(controls);
    r.attrs = conv.attrs;
    r.output_dtypes = {DType::kFloat};
    r.output_shapes = std::move(shapes);
    std::vector<std::string> ops = ir::GetAttrOr<std::vector<std::string>>(conv, "fused_ops", {}).value();
    ops.push_back("Add");
    if (!m.activation.empty()) ops.push_back(m.activation);
    r.attrs["fused_ops"] = ops::MakeAttr(ops);
    r.attrs["num_args"] = ops::MakeAttr(static_cast<int64_t>(r.inputs.size() - 2));
    // The newer schema lists the args' types; keep it consistent when present.
    if (auto targs = ir::GetAttr<std::vector<DType>>(conv, "TArgs"); targs.ok() && !targs->empty()) {
      std::vector<DType> types = *targs;
      types.push_back(DType::kFloat);
      r.attrs["TArgs"] = ops::MakeAttr(types);
    }
    if (m.activation == "LeakyRelu") r.attrs["leakyrelu_alpha"] = ops::MakeAttr(m.leaky_alpha);
    if (const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(r.op)) ir::FillDefaultAttrs(reg->def, &r);
    for (int a : absorbed) (*keep)[a] = false;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeResidualAddFusion() { return std::make_unique<ResidualAddFusion>(); }

}  // namespace tfhost::passes
