#include "loaders/savedmodel/ref_variables.h"

#include <map>
#include <set>

#include "ir/attrs.h"

namespace tfhost::loaders {

namespace {

// TF ops whose input 0 is `Ref(T)`, for graphs whose OpDefs are unknown.
bool IsKnownRefConsumer(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Assign",         "AssignAdd",      "AssignSub",     "IsVariableInitialized",
      "ScatterUpdate",  "ScatterAdd",     "ScatterSub",    "ScatterMul",
      "ScatterDiv",     "ScatterMin",     "ScatterMax",    "ScatterNdUpdate",
      "ScatterNdAdd",   "ScatterNdSub",   "CountUpTo",     "ApplyGradientDescent",
  };
  return kOps.count(op) != 0;
}

bool ConsumesRef(const std::string& op, const ir::OpDefLookup& lookup) {
  if (IsKnownRefConsumer(op)) return true;
  const tensorflow::OpDef* def = lookup ? lookup(op) : nullptr;
  return def != nullptr && def->input_arg_size() > 0 && def->input_arg(0).is_ref();
}

}  // namespace

bool IsRefVariableOp(const std::string& op) { return op == "VariableV2" || op == "Variable"; }

std::string VariableResourceName(const ir::Node& node) {
  const tensorflow::AttrValue* shared = node.FindAttr("shared_name");
  if (shared != nullptr && shared->value_case() == tensorflow::AttrValue::kS && !shared->s().empty()) {
    return shared->s();
  }
  return node.name;
}

StatusOr<int> RewriteRefVariables(ir::Graph& graph, const ir::OpDefLookup& lookup) {
  std::map<int, int> handle_of;  // variable node -> its _tfhost_handle node
  int rewritten = 0;
  const int original_nodes = graph.num_nodes();
  for (int i = 0; i < original_nodes; ++i) {
    const ir::Node& node = graph.node(i);
    if (node.inputs.empty()) continue;
    int var = node.inputs[0].node;
    if (!IsRefVariableOp(graph.node(var).op) || !ConsumesRef(node.op, lookup)) continue;
    std::string resource = VariableResourceName(graph.node(var));
    auto it = handle_of.find(var);
    if (it == handle_of.end()) {
      const ir::Node& v = graph.node(var);
      ir::Node handle;
      handle.name = graph.UniqueName(v.name + "/_tfhost_handle");
      handle.op = "VarHandleOp";
      tensorflow::AttrValue value;
      value.set_s(resource);
      handle.attrs["shared_name"] = value;
      value.set_s("");
      handle.attrs["container"] = value;
      if (const auto* dtype = v.FindAttr("dtype")) {
        tensorflow::AttrValue base;
        base.set_type(static_cast<tensorflow::DataType>(BaseType(dtype->type())));
        handle.attrs["dtype"] = base;
      } else {
        return InvalidArgument(ir::NodeContext(v) + ": missing required attr 'dtype'");
      }
      if (const auto* shape = v.FindAttr("shape")) handle.attrs["shape"] = *shape;
      TFHOST_ASSIGN_OR_RETURN(int id, graph.AddNode(std::move(handle)));
      it = handle_of.emplace(var, id).first;
    }
    ir::Node& consumer = graph.mutable_node(i);
    tensorflow::AttrValue name_attr;
    name_attr.set_s(resource);
    consumer.attrs["_tfhost_var_name"] = name_attr;
    consumer.inputs[0] = {it->second, 0};
    ++rewritten;
  }
  return rewritten;
}

}  // namespace tfhost::loaders
