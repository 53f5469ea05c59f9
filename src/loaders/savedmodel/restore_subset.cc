#include "loaders/savedmodel/restore_subset.h"

#include <algorithm>
#include <map>

#include "ir/attrs.h"
#include "ir/reachability.h"
#include "ops/run_single_op.h"

namespace tfhost::loaders {
namespace {

ir::TensorRef ThroughIdentity(const ir::Graph& graph, ir::TensorRef ref) {
  for (int hops = 0; hops < graph.num_nodes(); ++hops) {
    const ir::Node& n = graph.node(ref.node);
    if (n.op != "Identity" || n.inputs.empty()) break;
    ref = n.inputs[0];
  }
  return ref;
}

// The string vector a Const holds, when `ref` is one.
const Tensor* ConstStrings(const ir::Graph& graph, const ir::TensorRef& ref, Tensor* holder) {
  const ir::Node& n = graph.node(ref.node);
  if (n.op != "Const" || ref.index != 0) return nullptr;
  auto value = ir::GetAttr<Tensor>(n, "value");
  if (!value.ok() || value->dtype() != DType::kString || value->rank() != 1) return nullptr;
  *holder = std::move(*value);
  return holder;
}

// One RestoreV2 to narrow: the outputs kept, in order.
struct Narrowed {
  std::vector<int> kept;
  Tensor names, slices;
  std::vector<DType> dtypes;
};

}  // namespace

std::vector<std::string> NarrowRestore(ir::Graph& graph, const std::string& restore_op,
                                       const std::vector<std::string>& variables) {
  const int root = graph.FindNode(restore_op);
  if (root < 0) return {};
  const std::vector<bool> in_step = ir::ReachableFrom(graph, {root});
  // Each variable's one assignment in the step (-1: more than one).
  std::map<int, int> assign_of;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const ir::Node& n = graph.node(i);
    if (!in_step[i] || (n.op != "AssignVariableOp" && n.op != "Assign") || n.inputs.size() < 2) continue;
    const int variable = ThroughIdentity(graph, n.inputs[0]).node;
    auto [it, fresh] = assign_of.emplace(variable, i);
    if (!fresh) it->second = -1;
  }
  std::map<int, Narrowed> restores;
  std::vector<std::string> targets;
  for (const std::string& name : variables) {
    auto it = assign_of.find(graph.FindNode(name));
    if (it == assign_of.end() || it->second < 0) return {};
    const ir::Node& assign = graph.node(it->second);
    const ir::TensorRef value = ThroughIdentity(graph, assign.inputs[1]);
    if (graph.node(value.node).op != "RestoreV2") return {};
    restores[value.node].kept.push_back(value.index);
    targets.push_back(assign.name);
  }
  // Every check before any change: a shape not understood leaves the graph as it was.
  for (auto& [id, r] : restores) {
    const ir::Node& node = graph.node(id);
    auto dtypes = ir::GetAttr<std::vector<DType>>(node, "dtypes");
    Tensor names_holder, slices_holder;
    const Tensor* names = node.inputs.size() == 3 ? ConstStrings(graph, node.inputs[1], &names_holder) : nullptr;
    const Tensor* slices = node.inputs.size() == 3 ? ConstStrings(graph, node.inputs[2], &slices_holder) : nullptr;
    if (!dtypes.ok() || names == nullptr || slices == nullptr) return {};
    const int64_t count = static_cast<int64_t>(dtypes->size());
    if (names->NumElements() != count || slices->NumElements() != count) return {};
    std::sort(r.kept.begin(), r.kept.end());
    r.kept.erase(std::unique(r.kept.begin(), r.kept.end()), r.kept.end());
    std::vector<std::string> kept_names, kept_slices;
    for (int k : r.kept) {
      if (k < 0 || k >= count) return {};
      kept_names.push_back(names->strings()[k]);
      kept_slices.push_back(slices->strings()[k]);
      r.dtypes.push_back((*dtypes)[k]);
    }
    r.names = Tensor::FromVector(kept_names);
    r.slices = Tensor::FromVector(kept_slices);
  }
  // What the targets run must read only kept outputs (an assignment ordered
  // after another by a control edge would run that one too).
  std::vector<int> target_ids;
  for (const std::string& t : targets) target_ids.push_back(graph.FindNode(t));
  const std::vector<bool> run = ir::ReachableFrom(graph, target_ids);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (!run[i]) continue;
    for (const ir::TensorRef& in : graph.node(i).inputs) {
      auto r = restores.find(in.node);
      if (r != restores.end() && !std::binary_search(r->second.kept.begin(), r->second.kept.end(), in.index)) return {};
    }
  }
  for (auto& [id, r] : restores) {
    const std::string base = graph.node(id).name;
    auto add_const = [&](const std::string& suffix, Tensor value) -> StatusOr<int> {
      ir::Node c;
      c.name = graph.UniqueName(base + suffix);
      ir::SetConstValue(&c, std::move(value));
      c.output_dtypes = {DType::kString};
      return graph.AddNode(std::move(c));
    };
    auto names = add_const("/tfhost_kept_names", r.names);
    auto slices = add_const("/tfhost_kept_slices", r.slices);
    if (!names.ok() || !slices.ok()) return {};
    ir::Node& node = graph.mutable_node(id);
    node.inputs[1] = {*names, 0};
    node.inputs[2] = {*slices, 0};
    node.attrs["dtypes"] = ops::MakeAttr(r.dtypes);
    if (!node.output_dtypes.empty()) node.output_dtypes = r.dtypes;
    // Readers of a kept output read its new position; the others are not
    // among the targets, and pruning to them removes those readers.
    std::map<int, int> position;
    for (size_t k = 0; k < r.kept.size(); ++k) position[r.kept[k]] = static_cast<int>(k);
    for (int i = 0; i < graph.num_nodes(); ++i) {
      for (ir::TensorRef& in : graph.mutable_node(i).inputs) {
        if (in.node != id) continue;
        auto p = position.find(in.index);
        if (p != position.end()) in.index = p->second;
      }
    }
  }
  return targets;
}

}  // namespace tfhost::loaders
