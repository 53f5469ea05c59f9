#include "loaders/savedmodel/object_graph_captures.h"

#include <deque>
#include <set>

#include "ir/attrs.h"
#include "ops/run_single_op.h"

namespace tfhost::loaders {
namespace {

constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";

bool IsCallOp(const std::string& op) { return op == "StatefulPartitionedCall" || op == "PartitionedCall"; }

// checkpoint node id for each object-graph node id (-1 where the checkpoint
// has no object at that path), matched by child names from the root.
std::vector<int> MatchCheckpointNodes(const tensorflow::SavedObjectGraph& objects,
                                      const tensorflow::TrackableObjectGraph& checkpoint_objects) {
  const int saved_count = objects.nodes_size();
  const int checkpoint_count = checkpoint_objects.nodes_size();
  std::vector<int> match(saved_count, -1);
  if (saved_count == 0 || checkpoint_count == 0) return match;
  match[0] = 0;
  std::deque<int> queue = {0};
  while (!queue.empty()) {
    const int saved = queue.front();
    queue.pop_front();
    const auto& checkpoint_children = checkpoint_objects.nodes(match[saved]).children();
    for (const auto& child : objects.nodes(saved).children()) {
      if (child.node_id() < 0 || child.node_id() >= saved_count || match[child.node_id()] >= 0) continue;
      for (const auto& candidate : checkpoint_children) {
        if (candidate.local_name() != child.local_name()) continue;
        if (candidate.node_id() < 0 || candidate.node_id() >= checkpoint_count) break;
        match[child.node_id()] = candidate.node_id();
        queue.push_back(child.node_id());
        break;
      }
    }
  }
  return match;
}

// The bundle key of a plain variable's value, or "" when the checkpoint
// object carries none.
std::string VariableValueKey(const tensorflow::TrackableObjectGraph::TrackableObject& object) {
  for (const auto& attribute : object.attributes()) {
    if (attribute.name() == "VARIABLE_VALUE") return attribute.checkpoint_key();
  }
  return "";
}

}  // namespace

StatusOr<tensorflow::TrackableObjectGraph> ReadCheckpointObjectGraph(const checkpoint::TensorBundleReader& bundle,
                                                                     const std::string& prefix) {
  if (!bundle.Entry(kObjectGraphKey).ok()) {
    return NotFound("checkpoint " + prefix + " has no " + kObjectGraphKey + " entry (a TF1 checkpoint)");
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor value, bundle.Read(kObjectGraphKey));
  tensorflow::TrackableObjectGraph graph;
  if (value.dtype() != DType::kString || value.NumElements() != 1 || !graph.ParseFromString(value.strings()[0])) {
    return InvalidArgument("checkpoint " + prefix + ": entry " + kObjectGraphKey +
                           " is not a string scalar holding a tensorflow.TrackableObjectGraph");
  }
  return graph;
}

StatusOr<std::vector<BoundVariable>> CapturedVariables(const ir::Graph& graph,
                                                       const tensorflow::SavedObjectGraph& objects,
                                                       const tensorflow::TrackableObjectGraph& checkpoint_objects) {
  const std::vector<int> match = MatchCheckpointNodes(objects, checkpoint_objects);
  std::vector<BoundVariable> bound;
  std::set<std::string> seen;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const ir::Node& call = graph.node(i);
    if (!IsCallOp(call.op)) continue;
    const tensorflow::AttrValue* f = call.FindAttr("f");
    if (f == nullptr || !f->has_func()) continue;
    auto function = objects.concrete_functions().find(f->func().name());
    if (function == objects.concrete_functions().end()) continue;
    const auto& bound_inputs = function->second.bound_inputs();
    const int first_capture = static_cast<int>(call.inputs.size()) - bound_inputs.size();
    if (first_capture < 0) {
      return InvalidArgument("object graph: function '" + f->func().name() + "' has " +
                             std::to_string(bound_inputs.size()) + " bound inputs, but call node '" + call.name +
                             "' passes it only " + std::to_string(call.inputs.size()) + " inputs");
    }
    for (int k = 0; k < bound_inputs.size(); ++k) {
      const int object_id = bound_inputs[k];
      if (object_id < 0 || object_id >= objects.nodes_size()) {
        return InvalidArgument("object graph: function '" + f->func().name() + "' bound input " +
                               std::to_string(k) + " is object " + std::to_string(object_id) + ", but the graph has " +
                               std::to_string(objects.nodes_size()) + " objects");
      }
      if (objects.nodes(object_id).kind_case() != tensorflow::SavedObject::kVariable) continue;
      const ir::Node& handle = graph.node(call.inputs[first_capture + k].node);
      if (handle.op != "VarHandleOp" || seen.count(handle.name)) continue;
      if (match[object_id] < 0) continue;  // not in the checkpoint: nothing to restore
      std::string key = VariableValueKey(checkpoint_objects.nodes(match[object_id]));
      if (key.empty()) continue;
      seen.insert(handle.name);
      bound.push_back({handle.name, std::move(key)});
    }
  }
  return bound;
}

StatusOr<std::string> AddBoundVariableRestore(ir::Graph& graph, const std::vector<BoundVariable>& variables,
                                              const std::string& prefix) {
  std::vector<std::string> keys;
  std::vector<DType> dtypes;
  std::vector<int> handles;
  for (const BoundVariable& var : variables) {
    const int id = graph.FindNode(var.handle);
    if (id < 0) return NotFound("captured variable '" + var.handle + "' is not in the graph");
    auto dtype = ir::GetAttr<DType>(graph.node(id), "dtype");
    if (!dtype.ok()) return dtype.status().WithContext("VarHandleOp node '" + var.handle + "'");
    keys.push_back(var.checkpoint_key);
    dtypes.push_back(*dtype);
    handles.push_back(id);
  }
  auto add_const = [&](const std::string& base, Tensor value) {
    ir::Node c;
    c.name = graph.UniqueName(base);
    ir::SetConstValue(&c, std::move(value));
    return graph.AddNode(std::move(c));
  };
  const std::string scope = "_tfhost_restore_captures";
  TFHOST_ASSIGN_OR_RETURN(int path, add_const(scope + "/prefix", Tensor::StringScalar(prefix)));
  TFHOST_ASSIGN_OR_RETURN(int names, add_const(scope + "/tensor_names", Tensor::FromVector(keys)));
  TFHOST_ASSIGN_OR_RETURN(int slices, add_const(scope + "/shape_and_slices",
                                                Tensor::FromVector(std::vector<std::string>(keys.size()))));
  ir::Node restore;
  restore.name = graph.UniqueName(scope + "/RestoreV2");
  restore.op = "RestoreV2";
  restore.inputs = {ir::TensorRef{path, 0}, ir::TensorRef{names, 0}, ir::TensorRef{slices, 0}};
  restore.attrs["dtypes"] = ops::MakeAttr(dtypes);
  TFHOST_ASSIGN_OR_RETURN(int restored, graph.AddNode(std::move(restore)));
  ir::Node done;
  done.name = graph.UniqueName(scope);
  done.op = "NoOp";
  for (size_t k = 0; k < handles.size(); ++k) {
    ir::Node assign;
    assign.name = graph.UniqueName(scope + "/Assign");
    assign.op = "AssignVariableOp";
    assign.inputs = {ir::TensorRef{handles[k], 0}, ir::TensorRef{restored, static_cast<int>(k)}};
    assign.attrs["dtype"] = ops::MakeAttr(dtypes[k]);
    TFHOST_ASSIGN_OR_RETURN(int id, graph.AddNode(std::move(assign)));
    done.control_inputs.push_back(id);
  }
  std::string name = done.name;
  TFHOST_RETURN_IF_ERROR(graph.AddNode(std::move(done)).status());
  return name;
}

}  // namespace tfhost::loaders
