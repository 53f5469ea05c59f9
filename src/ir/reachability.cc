#include "ir/reachability.h"

namespace tfhost::ir {

std::vector<bool> ReachableFrom(const Graph& graph, const std::vector<int>& roots) {
  std::vector<bool> seen(graph.num_nodes(), false);
  std::vector<int> stack = roots;
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (id < 0 || id >= graph.num_nodes() || seen[id]) continue;
    seen[id] = true;
    for (const auto& in : graph.node(id).inputs) stack.push_back(in.node);
    for (int c : graph.node(id).control_inputs) stack.push_back(c);
  }
  return seen;
}

StatusOr<int> PruneToRoots(Graph& graph, const std::vector<std::string>& root_names) {
  if (root_names.empty()) return 0;
  std::vector<int> roots;
  for (const std::string& name : root_names) {
    auto parsed = ParseTensorName(name);
    if (parsed.ok()) roots.push_back(graph.FindNode(parsed->node));
  }
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const std::string& op = graph.node(i).op;
    if (op == "Placeholder" || op == "PlaceholderV2") roots.push_back(i);
  }
  std::vector<bool> keep = ReachableFrom(graph, roots);
  int removed = 0;
  for (bool k : keep) removed += k ? 0 : 1;
  if (removed == 0) return 0;
  TFHOST_RETURN_IF_ERROR(graph.Compact(keep));
  return removed;
}

}  // namespace tfhost::ir
