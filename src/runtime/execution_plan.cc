#include "runtime/execution_plan.h"

#include <deque>
#include <map>
#include <set>

namespace tfhost::runtime {

StatusOr<ExecutionPlan> ExecutionPlan::Build(const ir::Graph& graph,
                                             const std::vector<std::string>& feed_names,
                                             const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets) {
  std::map<ir::TensorRef, int> fed;
  for (size_t i = 0; i < feed_names.size(); ++i) {
    auto ref = graph.ResolveTensor(feed_names[i]);
    if (!ref.ok()) return ref.status().WithContext("feed '" + feed_names[i] + "'");
    const ir::Node& n = graph.node(ref->node);
    if (!n.output_dtypes.empty() && ref->index >= static_cast<int>(n.output_dtypes.size())) {
      return InvalidArgument("feed '" + feed_names[i] + "': node '" + n.name + "' has only " +
                             std::to_string(n.output_dtypes.size()) + " outputs");
    }
    if (!fed.emplace(*ref, static_cast<int>(i)).second) {
      return InvalidArgument("tensor '" + feed_names[i] + "' is fed more than once");
    }
  }

  // As in TensorFlow, feeding a placeholder also satisfies control edges from
  // it: converted graphs order function inputs after "^input", and running
  // the placeholder itself would only fail.
  std::set<int> fed_placeholders;
  for (const auto& [ref, index] : fed) {
    const std::string& op = graph.node(ref.node).op;
    if (op == "Placeholder" || op == "PlaceholderWithDefault") fed_placeholders.insert(ref.node);
  }

  ExecutionPlan plan;
  plan.plan_id_of_node.assign(graph.num_nodes(), -1);
  std::deque<int> work;
  auto need = [&](int node) {
    if (plan.plan_id_of_node[node] < 0) {
      plan.plan_id_of_node[node] = static_cast<int>(plan.nodes.size());
      PlannedNode p;
      p.node = node;
      plan.nodes.push_back(std::move(p));
      work.push_back(node);
    }
  };

  std::vector<ir::TensorRef> fetch_refs;
  for (const auto& f : fetches) {
    auto ref = graph.ResolveTensor(f);
    if (!ref.ok()) return ref.status().WithContext("fetch '" + f + "'");
    const ir::Node& n = graph.node(ref->node);
    if (!n.output_dtypes.empty() && ref->index >= static_cast<int>(n.output_dtypes.size())) {
      return InvalidArgument("fetch '" + f + "': node '" + n.name + "' has only " +
                             std::to_string(n.output_dtypes.size()) + " outputs");
    }
    fetch_refs.push_back(*ref);
    if (!fed.count(*ref)) need(ref->node);
  }
  for (const auto& t : targets) {
    auto parsed = ir::ParseTensorName(t);
    if (!parsed.ok()) return parsed.status().WithContext("target '" + t + "'");
    int node = graph.FindNode(parsed->node);
    if (node < 0) return NotFound("target node '" + parsed->node + "' does not exist");
    need(node);
  }
  while (!work.empty()) {
    int node = work.front();
    work.pop_front();
    const ir::Node& n = graph.node(node);
    for (const auto& in : n.inputs) {
      if (!fed.count(in)) need(in.node);
    }
    for (int c : n.control_inputs) {
      if (!fed_placeholders.count(c)) need(c);
    }
  }

  for (auto& p : plan.nodes) {
    const ir::Node& n = graph.node(p.node);
    // Sized by the schema; consumers and fetches grow it on demand. A node with
    // no outputs (NoOp run as a target) must get none, or the executor would
    // demand an output its kernel never makes.
    p.output_use_counts.assign(n.output_dtypes.size(), 0);
  }
  for (size_t id = 0; id < plan.nodes.size(); ++id) {
    PlannedNode& p = plan.nodes[id];
    const ir::Node& n = graph.node(p.node);
    for (const auto& in : n.inputs) {
      InputSource src;
      auto it = fed.find(in);
      if (it != fed.end()) {
        src.feed = it->second;
      } else {
        int pid = plan.plan_id_of_node[in.node];
        src.node = pid;
        src.index = in.index;
        plan.nodes[pid].consumers.push_back(static_cast<int>(id));
        auto& uses = plan.nodes[pid].output_use_counts;
        if (in.index >= static_cast<int>(uses.size())) uses.resize(in.index + 1, 0);
        ++uses[in.index];
        ++p.initial_pending;
      }
      p.inputs.push_back(src);
    }
    for (int c : n.control_inputs) {
      if (fed_placeholders.count(c)) continue;
      int pid = plan.plan_id_of_node[c];
      p.control_inputs.push_back(pid);
      plan.nodes[pid].consumers.push_back(static_cast<int>(id));
      ++p.initial_pending;
    }
  }
  for (const auto& ref : fetch_refs) {
    InputSource src;
    auto it = fed.find(ref);
    if (it != fed.end()) {
      src.feed = it->second;
    } else {
      src.node = plan.plan_id_of_node[ref.node];
      src.index = ref.index;
      auto& uses = plan.nodes[src.node].output_use_counts;
      if (ref.index >= static_cast<int>(uses.size())) uses.resize(ref.index + 1, 0);
      ++uses[ref.index];  // a fetch is a use that is never released
    }
    plan.fetch_sources.push_back(src);
  }

  // Reject cycles among the planned nodes up front (TF1 while loops are not
  // supported yet), so that Run can never wait forever.
  std::vector<int> pending(plan.nodes.size());
  std::deque<int> ready;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    pending[i] = plan.nodes[i].initial_pending;
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  size_t visited = 0;
  while (!ready.empty()) {
    int id = ready.front();
    ready.pop_front();
    ++visited;
    for (int c : plan.nodes[id].consumers) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (visited != plan.nodes.size()) {
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      if (pending[i] > 0) {
        const ir::Node& n = graph.node(plan.nodes[i].node);
        return Unimplemented("the graph has a cycle through node '" + n.name + "' (" + n.op +
                             "); TF1 while loops are not supported yet");
      }
    }
  }
  return plan;
}

}  // namespace tfhost::runtime
