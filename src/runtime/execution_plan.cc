#include "runtime/execution_plan.h"

#include <deque>
#include <map>
#include <set>

#include "ir/attrs.h"
#include "ops/op_registry.h"

namespace tfhost::runtime {

NodeKind KindOfOp(const std::string& op) {
  if (op == "Enter" || op == "RefEnter") return NodeKind::kEnter;
  if (op == "Exit" || op == "RefExit") return NodeKind::kExit;
  if (op == "NextIteration" || op == "RefNextIteration") return NodeKind::kNextIteration;
  if (op == "Merge" || op == "RefMerge") return NodeKind::kMerge;
  if (op == "LoopCond") return NodeKind::kLoopCond;
  return NodeKind::kNormal;
}

namespace {

std::string FrameLabel(const ExecutionPlan& plan, int frame) {
  return frame == 0 ? std::string("the top level (outside every while loop)")
                    : "while-loop frame '" + plan.frames[frame].name + "'";
}

// Works out which frame every planned node runs in, following TensorFlow's
// rules: Enter's outputs live in the frame it names (a child of the Enter's
// own frame), Exit's in the parent of its frame, everything else in the frame
// of its inputs, which must agree. `order` is topological without back edges.
Status AnalyzeFrames(const ir::Graph& graph, const std::vector<int>& order, ExecutionPlan& plan) {
  const size_t count = plan.nodes.size();
  plan.has_frames = true;
  plan.frames.assign(1, FrameInfo());
  plan.frame_of.assign(count, -1);
  plan.enter_frame.assign(count, -1);
  plan.is_constant_enter.assign(count, false);
  plan.merge_back_inputs.assign(count, 0);
  plan.invariant_loop_cond.assign(count, false);
  std::map<std::pair<int, std::string>, int> frame_ids;  // (parent, name) -> frame
  auto name_of = [&](int id) { return graph.node(plan.nodes[id].node).name; };
  auto where = [&](int id) { return ir::NodeContext(graph.node(plan.nodes[id].node)); };

  // Frame that the outputs of planned node `id` belong to.
  auto output_frame = [&](int id) -> StatusOr<int> {
    int f = plan.frame_of[id];
    switch (plan.kinds[id]) {
      case NodeKind::kEnter:
        return plan.enter_frame[id];
      case NodeKind::kExit:
        return plan.frames[f].parent;
      default:
        return f;
    }
  };

  for (int id : order) {
    const ir::Node& n = graph.node(plan.nodes[id].node);
    const PlannedNode& p = plan.nodes[id];
    int frame = -1;
    int frame_source = -1;
    // `producer` < 0: a fed tensor, which lives at the top level.
    auto agree = [&](int producer) -> Status {
      int f = 0;
      if (producer >= 0) {
        if (plan.kinds[producer] == NodeKind::kNextIteration) return OkStatus();  // checked below
        TFHOST_ASSIGN_OR_RETURN(f, output_frame(producer));
      }
      if (frame < 0) {
        frame = f;
        frame_source = producer;
      } else if (f != frame) {
        auto via = [&](int node) { return node < 0 ? std::string("a fed tensor") : "node '" + name_of(node) + "'"; };
        return InvalidArgument(where(id) + " has inputs from two different frames: " + FrameLabel(plan, frame) +
                               " (through " + via(frame_source) + ") and " + FrameLabel(plan, f) + " (through " +
                               via(producer) + "); a malformed while loop");
      }
      return OkStatus();
    };
    for (const auto& in : p.inputs) TFHOST_RETURN_IF_ERROR(agree(in.feed >= 0 ? -1 : in.node));
    for (int c : p.control_inputs) TFHOST_RETURN_IF_ERROR(agree(c));
    if (frame < 0) {
      // Only back edges or nothing: a Merge fed solely by NextIteration never
      // starts; a source node runs at the top level.
      if (plan.kinds[id] == NodeKind::kMerge && !p.inputs.empty()) {
        return InvalidArgument(where(id) + " has only NextIteration inputs, so its loop can never start");
      }
      frame = 0;
    }
    plan.frame_of[id] = frame;
    switch (plan.kinds[id]) {
      case NodeKind::kEnter: {
        auto frame_name = ir::GetAttr<std::string>(n, "frame_name");
        if (!frame_name.ok() || frame_name->empty()) {
          return InvalidArgument(where(id) + " has no frame_name attr");
        }
        auto key = std::make_pair(frame, *frame_name);
        auto it = frame_ids.find(key);
        if (it == frame_ids.end()) {
          FrameInfo info;
          info.name = *frame_name;
          info.parent = frame;
          auto parallel = ir::GetAttrOr<int64_t>(n, "parallel_iterations", 10);
          info.parallel_iterations = parallel.ok() && *parallel > 0
                                         ? static_cast<int>(std::min<int64_t>(*parallel, 1 << 20))
                                         : 10;
          it = frame_ids.emplace(key, static_cast<int>(plan.frames.size())).first;
          plan.frames.push_back(info);
        }
        plan.enter_frame[id] = it->second;
        ++plan.frames[it->second].num_enters;
        auto is_constant = ir::GetAttrOr<bool>(n, "is_constant", false);
        plan.is_constant_enter[id] = is_constant.ok() && *is_constant;
        break;
      }
      case NodeKind::kExit:
        if (frame == 0) return InvalidArgument(where(id) + " is an Exit outside every while loop");
        break;
      case NodeKind::kNextIteration:
        if (frame == 0) return InvalidArgument(where(id) + " is a NextIteration outside every while loop");
        break;
      default:
        break;
    }
  }

  // Back edges: a NextIteration must feed only Merges of its own frame.
  for (size_t id = 0; id < count; ++id) {
    if (plan.kinds[id] != NodeKind::kNextIteration) continue;
    if (plan.nodes[id].consumers.empty()) {
      return InvalidArgument(where(id) + " feeds no Merge; the while loop has no back edge");
    }
    for (int c : plan.nodes[id].consumers) {
      if (plan.kinds[c] != NodeKind::kMerge) {
        return InvalidArgument(where(static_cast<int>(id)) + " feeds node '" + name_of(c) + "' (" +
                               graph.node(plan.nodes[c].node).op + "), but a NextIteration must feed a Merge");
      }
      if (plan.frame_of[c] != plan.frame_of[id]) {
        return InvalidArgument(where(static_cast<int>(id)) + " runs in " + FrameLabel(plan, plan.frame_of[id]) +
                               " but feeds Merge '" + name_of(c) + "' in " + FrameLabel(plan, plan.frame_of[c]));
      }
    }
  }
  for (size_t id = 0; id < count; ++id) {
    for (const auto& in : plan.nodes[id].inputs) {
      if (in.feed >= 0) continue;
      if (plan.kinds[in.node] == NodeKind::kNextIteration) ++plan.merge_back_inputs[id];
      if (plan.kinds[id] != NodeKind::kNextIteration && plan.kinds[in.node] == NodeKind::kNextIteration &&
          plan.kinds[id] != NodeKind::kMerge) {
        return InvalidArgument(where(static_cast<int>(id)) + " reads NextIteration '" + name_of(in.node) +
                               "'; only a Merge may");
      }
    }
    if (plan.kinds[id] == NodeKind::kMerge && plan.merge_back_inputs[id] > 0 &&
        plan.merge_back_inputs[id] == static_cast<int>(plan.nodes[id].inputs.size())) {
      return InvalidArgument(where(static_cast<int>(id)) + " has only NextIteration inputs, so its loop can never start");
    }
  }

  // Local indices within each frame and output edges with input slots.
  plan.local_index.assign(count, -1);
  for (size_t id = 0; id < count; ++id) plan.local_index[id] = plan.frames[plan.frame_of[id]].num_nodes++;
  plan.out_edges.assign(count, {});
  for (size_t id = 0; id < count; ++id) {
    const PlannedNode& p = plan.nodes[id];
    for (size_t s = 0; s < p.inputs.size(); ++s) {
      if (p.inputs[s].feed >= 0) continue;
      plan.out_edges[p.inputs[s].node].push_back({p.inputs[s].index, static_cast<int>(id), static_cast<int>(s)});
    }
    for (int c : p.control_inputs) plan.out_edges[c].push_back({0, static_cast<int>(id), -1});
  }

  // Loop conditions that no loop variable feeds can never turn false.
  const auto& registry = ops::OpRegistry::Global();
  for (size_t id = 0; id < count; ++id) {
    if (plan.kinds[id] != NodeKind::kLoopCond) continue;
    int frame = plan.frame_of[id];
    if (frame == 0) continue;
    std::vector<int> stack = {static_cast<int>(id)};
    std::vector<bool> seen(count, false);
    bool varies = false;
    while (!stack.empty() && !varies) {
      int cur = stack.back();
      stack.pop_back();
      auto visit = [&](int producer) {
        if (seen[producer]) return;
        seen[producer] = true;
        const ops::OpRegistration* reg = registry.Find(graph.node(plan.nodes[producer].node).op);
        if (reg == nullptr || reg->def.is_stateful() || plan.kinds[producer] == NodeKind::kMerge ||
            plan.kinds[producer] == NodeKind::kExit) {
          // A Merge carries loop variables; stateful ops and nested loops may
          // change between iterations. Unknown ops: assume they may too.
          if (plan.frame_of[producer] == frame || plan.kinds[producer] == NodeKind::kExit) varies = true;
          return;
        }
        if (plan.frame_of[producer] == frame) stack.push_back(producer);
      };
      // Data edges only: TensorFlow hangs cond constants off the Merge by a
      // control edge, which carries no value.
      for (const auto& in : plan.nodes[cur].inputs) {
        if (in.feed < 0) visit(in.node);
      }
    }
    plan.invariant_loop_cond[id] = !varies;
  }
  return OkStatus();
}

}  // namespace

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
  plan.feed_use_counts.assign(feed_names.size(), 0);
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
        ++plan.feed_use_counts[src.feed];
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
      ++plan.feed_use_counts[src.feed];
    } else {
      src.node = plan.plan_id_of_node[ref.node];
      src.index = ref.index;
      auto& uses = plan.nodes[src.node].output_use_counts;
      if (ref.index >= static_cast<int>(uses.size())) uses.resize(ref.index + 1, 0);
      ++uses[ref.index];  // a fetch is a use that is never released
    }
    plan.fetch_sources.push_back(src);
  }

  // Cycles are allowed only through a NextIteration -> Merge back edge (TF1
  // while loops); any other cycle could never run, so it fails here rather
  // than leaving Run waiting forever.
  const size_t count = plan.nodes.size();
  plan.kinds.resize(count);
  bool loops = false;
  for (size_t i = 0; i < count; ++i) {
    const ir::Node& n = graph.node(plan.nodes[i].node);
    plan.kinds[i] = KindOfOp(n.op);
    NodeKind k = plan.kinds[i];
    loops |= k == NodeKind::kEnter || k == NodeKind::kExit || k == NodeKind::kNextIteration;
    if (n.op == "If" || n.op == "StatelessIf" || n.op == "While" || n.op == "StatelessWhile" ||
        n.op == "Case" || n.op == "StatelessCase" || n.op == "PartitionedCall" ||
        n.op == "StatefulPartitionedCall") {
      plan.has_function_calls = true;
    }
  }
  auto is_back_edge = [&](int producer) { return plan.kinds[producer] == NodeKind::kNextIteration; };
  std::vector<int> pending(count, 0);
  for (size_t i = 0; i < count; ++i) {
    for (const auto& in : plan.nodes[i].inputs) {
      if (in.feed < 0 && !is_back_edge(in.node)) ++pending[i];
    }
    for (int c : plan.nodes[i].control_inputs) {
      if (!is_back_edge(c)) ++pending[i];
    }
  }
  std::deque<int> ready;
  for (size_t i = 0; i < count; ++i) {
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  std::vector<int> order;
  order.reserve(count);
  while (!ready.empty()) {
    int id = ready.front();
    ready.pop_front();
    order.push_back(id);
    if (is_back_edge(id)) continue;
    for (int c : plan.nodes[id].consumers) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (order.size() != count) {
    for (size_t i = 0; i < count; ++i) {
      if (pending[i] > 0) {
        const ir::Node& n = graph.node(plan.nodes[i].node);
        return InvalidArgument("the graph has a cycle through node '" + n.name + "' (" + n.op +
                               ") that does not pass through a NextIteration -> Merge back edge of a "
                               "while loop; it can never run");
      }
    }
  }
  if (loops) TFHOST_RETURN_IF_ERROR(AnalyzeFrames(graph, order, plan));
  return plan;
}

}  // namespace tfhost::runtime
