// identity_elimination: Identity, IdentityN, StopGradient, PreventGradient
// and Snapshot forward their inputs unchanged at inference time, and a NoOp
// that only gathers control edges orders nothing its consumers could not
// depend on directly. Removing them saves a kernel launch and a tensor copy
// per node. Consumers are rewired to the forwarded tensor and inherit the
// removed node's control inputs, so ordering is preserved.
//
// Not removed: kept (fetchable/fed) names, and any node next to a
// control-flow primitive. An Identity after a Switch is the pivot that puts
// loop/cond-body constants into their frame through control edges; a control
// edge straight from a Switch would mean something else.
#include <algorithm>
#include <unordered_set>

#include "ops/op_registry.h"
#include "passes/pass_manager.h"

namespace tfhost::passes {
namespace {

bool IsForwardingOp(const std::string& op) {
  return op == "Identity" || op == "IdentityN" || op == "StopGradient" || op == "PreventGradient" ||
         op == "Snapshot";
}

// An input we may read directly instead of through the forwarding node:
// stateless, known, not control flow. (Reading a variable directly could
// move the read relative to an assign the Identity was ordered after.)
bool IsPlainProducer(const ir::Node& node) {
  if (IsControlFlowOp(node.op)) return false;
  if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault" || node.op == "Const") return true;
  const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(node.op);
  return reg != nullptr && !reg->def.is_stateful();
}

void AddControl(ir::Node* node, int c) {
  if (std::find(node->control_inputs.begin(), node->control_inputs.end(), c) == node->control_inputs.end()) {
    node->control_inputs.push_back(c);
  }
}

class IdentityElimination : public GraphPass {
 public:
  std::string name() const override { return "identity_elimination"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true);
    for (int i : order) {
      const ir::Node& node = graph->node(i);
      if (ctx.MustKeep(node)) continue;
      const bool forwarding = IsForwardingOp(node.op);
      const bool noop = node.op == "NoOp" && node.inputs.empty();
      if (!forwarding && !noop) continue;
      if (forwarding && node.output_dtypes.size() != node.inputs.size()) continue;
      bool safe = true;
      for (const auto& in : node.inputs) safe = safe && IsPlainProducer(graph->node(in.node));
      for (int c : node.control_inputs) safe = safe && !IsControlFlowOp(graph->node(c).op);
      std::unordered_set<int> users(consumers[i].begin(), consumers[i].end());
      for (int u : users) safe = safe && keep[u] && !IsControlFlowOp(graph->node(u).op);
      if (!safe) continue;
      if (noop) {
        // Replacing one control edge by several: only when it does not
        // multiply edges (fan-in x fan-out).
        const size_t fan_in = node.control_inputs.size(), fan_out = users.size();
        if (fan_in > 1 && fan_out > 1 && fan_in * fan_out > fan_in + fan_out) continue;
      }
      const std::vector<ir::TensorRef> forwarded = node.inputs;
      const std::vector<int> controls = node.control_inputs;
      for (int u : users) {
        ir::Node& user = graph->mutable_node(u);
        bool used_data = false;
        for (auto& in : user.inputs) {
          if (in.node == i) {
            in = forwarded[in.index];
            used_data = true;
          }
        }
        auto it = std::find(user.control_inputs.begin(), user.control_inputs.end(), i);
        const bool used_control = it != user.control_inputs.end();
        if (used_control) user.control_inputs.erase(it);
        if (used_data || used_control) {
          for (int c : controls) AddControl(&user, c);
        }
        if (used_control) {
          for (const auto& f : forwarded) AddControl(&user, f.node);
        }
      }
      keep[i] = false;
    }
    return graph->Compact(keep);
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeIdentityElimination() { return std::make_unique<IdentityElimination>(); }

}  // namespace tfhost::passes
