#include "passes/pass_manager.h"

#include <unordered_set>

#include "ops/op_registry.h"
#include "passes/gelu_fusion.h"
#include "passes/residual_add_fusion.h"

namespace tfhost::passes {

PassContext PassContext::FromRoots(const ir::Graph& graph, const std::vector<std::string>& roots) {
  PassContext ctx;
  if (roots.empty()) {
    ctx.keep_all = true;
    return ctx;
  }
  for (const std::string& r : roots) {
    auto parsed = ir::ParseTensorName(r);
    ctx.keep.insert(parsed.ok() ? parsed->node : r);
  }
  // Placeholders are what callers feed; keep them even when no root names one.
  for (const auto& n : graph.nodes()) {
    if (n.op == "Placeholder" || n.op == "PlaceholderWithDefault" || n.op == "PlaceholderV2") {
      ctx.keep.insert(n.name);
    }
  }
  return ctx;
}

bool PassContext::MustKeep(const ir::Node& node) const { return keep_all || keep.count(node.name) > 0; }

bool IsControlFlowOp(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {
      "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
      "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger", "_SwitchN"};
  return kOps.count(op) > 0;
}

bool IsProtected(const ir::Graph& graph, const ir::Node& node) {
  if (IsControlFlowOp(node.op)) return true;
  if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault" || node.op == "PlaceholderV2") return true;
  const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(node.op);
  // An op tfhost does not know could be anything.
  if (reg == nullptr || reg->def.is_stateful()) return true;
  for (const auto& [key, value] : node.attrs) {
    if (value.has_func() || (value.has_list() && value.list().func_size() > 0)) return true;
  }
  for (DType t : node.output_dtypes) {
    if (t == DType::kResource || t == DType::kVariant) return true;
  }
  for (const ir::TensorRef& in : node.inputs) {
    if (in.node < 0 || in.node >= graph.num_nodes()) return true;
    const auto& dts = graph.node(in.node).output_dtypes;
    if (in.index < 0 || in.index >= static_cast<int>(dts.size())) return true;
    if (dts[in.index] == DType::kResource || dts[in.index] == DType::kVariant) return true;
  }
  return false;
}

namespace {

// Whether running `node` has no effect but its outputs: a registered op,
// not stateful, not control flow, no function attrs, not a placeholder. A
// node reading or writing a list or handle may be pure (TensorListGetItem):
// with nothing reading its outputs, it may go, though passes must not
// rewrite it (IsProtected).
bool IsPure(const ir::Node& node) {
  if (IsControlFlowOp(node.op)) return false;
  if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault" || node.op == "PlaceholderV2") return false;
  const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(node.op);
  if (reg == nullptr || reg->def.is_stateful()) return false;
  for (const auto& [key, value] : node.attrs) {
    if (value.has_func() || (value.has_list() && value.list().func_size() > 0)) return false;
  }
  return true;
}

}  // namespace

std::vector<int> PassOrder(const ir::Graph& graph) {
  const int n = graph.num_nodes();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> out(n);
  auto back_edge = [&](int src) {
    const std::string& op = graph.node(src).op;
    return op == "NextIteration" || op == "RefNextIteration";
  };
  for (int i = 0; i < n; ++i) {
    const ir::Node& node = graph.node(i);
    for (const auto& in : node.inputs) {
      if (!back_edge(in.node)) ++pending[i], out[in.node].push_back(i);
    }
    for (int c : node.control_inputs) {
      if (!back_edge(c)) ++pending[i], out[c].push_back(i);
    }
  }
  std::vector<int> order;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) order.push_back(i);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (int j : out[order[k]]) {
      if (--pending[j] == 0) order.push_back(j);
    }
  }
  if (static_cast<int>(order.size()) != n) order.clear();
  return order;
}

Status PruneDeadNodes(ir::Graph* graph, const PassContext& ctx) {
  if (ctx.keep_all) return OkStatus();
  const int n = graph->num_nodes();
  std::vector<int> uses(n, 0);
  for (const auto& node : graph->nodes()) {
    for (const auto& in : node.inputs) ++uses[in.node];
    for (int c : node.control_inputs) ++uses[c];
  }
  std::vector<bool> keep(n, true);
  std::vector<int> work;
  auto removable = [&](int i) {
    const ir::Node& node = graph->node(i);
    return keep[i] && uses[i] == 0 && !ctx.MustKeep(node) && IsPure(node);
  };
  for (int i = 0; i < n; ++i) {
    if (removable(i)) work.push_back(i);
  }
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    if (!removable(i)) continue;
    keep[i] = false;
    const ir::Node& node = graph->node(i);
    for (const auto& in : node.inputs) {
      if (--uses[in.node] == 0) work.push_back(in.node);
    }
    for (int c : node.control_inputs) {
      if (--uses[c] == 0) work.push_back(c);
    }
  }
  return graph->Compact(keep);
}

namespace {
class PruneDeadPass : public GraphPass {
 public:
  std::string name() const override { return "prune_dead"; }
  Status Run(ir::Graph* graph, const PassContext& ctx) override { return PruneDeadNodes(graph, ctx); }
};
}  // namespace

PassManager PassManager::Default() {
  PassManager pm;
  // x * 1 becomes Identity(x), which the next pass removes.
  pm.Add(MakeArithmeticIdentities());
  pm.Add(MakeIdentityElimination());
  // Keras's Reshape layers rebuild the batch size from Shape: -1 instead.
  pm.Add(MakeReshapeBatchInference());
  // Before folding: the shapes of the hoisted product fold where static.
  pm.Add(MakeLoopProjectionHoisting());
  // On the hoisted loops: an LSTM layer's While becomes one node.
  pm.Add(MakeLstmLoopFusion());
  // Keras's einsums as matrix products, before folding: their Reshape
  // targets fold where static.
  pm.Add(MakeEinsumLowering());
  pm.Add(MakeConstantFolding());
  // On the folded graph: tensordot's shape arithmetic, known up to the
  // batch size, becomes a constant shape with -1.
  pm.Add(MakeReshapeShapeFolding());
  // Again on the folded graph: tensordot's Transpose by a folded identity
  // permutation, and identities folding exposed.
  pm.Add(MakeArithmeticIdentities());
  pm.Add(MakeIdentityElimination());
  // After folding, equal subgraphs have equal Const inputs to be merged by.
  pm.Add(MakeCommonSubexpressionElimination());
  // A Pad before a VALID convolution becomes its explicit padding.
  pm.Add(MakePadFolding());
  // Before fusion: folding turns a batch norm into the BiasAdd fusion eats.
  pm.Add(MakeBatchNormFolding());
  // (A B)^T as B^T A^T: einsum's attention scores lose their transpose.
  pm.Add(MakeMatMulTransposeFolding());
  // GELU spelled out in ops becomes one node the conv/matmul fusion can take.
  pm.Add(MakeGeluFusion());
  // Dense on [B, T, D] (MatMul, Reshape, BiasAdd, act): the Reshape goes
  // last so the fusion below sees the product, its bias and activation.
  pm.Add(MakeReshapeSinking());
  pm.Add(MakeConvBiasActivationFusion());
  // On the fused convolutions the previous pass wrote, and before the
  // element-wise fusion would take their residual Add + activation.
  pm.Add(MakeResidualAddFusion());
  // On the fused convolutions: an expansion and the depthwise layer reading
  // it become one node, where a backend keeps the expanded rows in cache.
  pm.Add(MakeExpandDepthwiseFusion());
  // A Keras LSTM step's gates, before the element-wise fusion takes them
  // apart from their Split.
  pm.Add(MakeLstmCellFusion());
  // Keras's layer normalization, before the element-wise fusion takes its
  // normalizing arithmetic apart from its means.
  pm.Add(MakeLayerNormFusion());
  // Keras's masked softmax: the mask applied as the Softmax reads its rows.
  pm.Add(MakeMaskedSoftmaxFusion());
  // Last: what is left of element-wise chains once activations went into
  // the convolutions.
  pm.Add(MakeElementwiseFusion());
  pm.Add(std::make_unique<PruneDeadPass>());
  return pm;
}

PassManager PassManager::Bf16(bool bf16_activations) {
  PassManager pm;
  pm.Add(MakePrecisionPass(Precision::kBf16));
  if (bf16_activations) pm.Add(MakeBf16ActivationChaining());
  return pm;
}

Status PassManager::Run(ir::Graph* graph, const PassContext& given, std::vector<PassStats>* stats) const {
  // A node nothing consumes is there to be fetched or fed by name (a saver's
  // filename Const, a signature tensor the roots missed): keep it.
  PassContext ctx = given;
  if (!ctx.keep_all && ctx.keep_unconsumed) {
    std::vector<bool> used(graph->num_nodes(), false);
    for (const auto& node : graph->nodes()) {
      for (const auto& in : node.inputs) used[in.node] = true;
      for (int c : node.control_inputs) used[c] = true;
    }
    for (int i = 0; i < graph->num_nodes(); ++i) {
      if (!used[i]) ctx.keep.insert(graph->node(i).name);
    }
  }
  for (const auto& pass : passes_) {
    PassStats row{pass->name(), graph->num_nodes(), 0};
    Status st = pass->Run(graph, ctx);
    if (!st.ok()) return st.WithContext("graph pass '" + pass->name() + "'");
    row.nodes_after = graph->num_nodes();
    if (stats != nullptr) stats->push_back(row);
  }
  return OkStatus();
}

}  // namespace tfhost::passes
