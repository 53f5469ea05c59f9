#include "ir/op_def_util.h"

#include "ir/attrs.h"
#include "ir/type_attr_inference.h"

namespace tfhost::ir {

void FillDefaultAttrs(const tensorflow::OpDef& def, Node* node) {
  for (const auto& attr : def.attr()) {
    if (attr.has_default_value() && !node->attrs.count(attr.name())) {
      node->attrs[attr.name()] = attr.default_value();
    }
  }
}

StatusOr<int> ArgArity(const tensorflow::OpDef::ArgDef& arg, const Node& node) {
  if (!arg.number_attr().empty()) {
    TFHOST_ASSIGN_OR_RETURN(int64_t n, GetAttr<int64_t>(node, arg.number_attr()));
    if (n < 0) return InvalidArgument(NodeContext(node) + ": attr '" + arg.number_attr() + "' is negative");
    if (n > kMaxArgListLength) {
      return InvalidArgument(NodeContext(node) + ": attr '" + arg.number_attr() + "' = " + std::to_string(n) +
                             " asks for more than the " + std::to_string(kMaxArgListLength) +
                             " tensors tfhost takes in one argument list ('" + arg.name() + "')");
    }
    return static_cast<int>(n);
  }
  if (!arg.type_list_attr().empty()) {
    TFHOST_ASSIGN_OR_RETURN(auto types, GetAttr<std::vector<DType>>(node, arg.type_list_attr()));
    return static_cast<int>(types.size());
  }
  return 1;
}

StatusOr<std::vector<DType>> OutputDTypes(const tensorflow::OpDef& def, const Node& node) {
  std::vector<DType> out;
  for (const auto& arg : def.output_arg()) {
    if (!arg.type_list_attr().empty()) {
      TFHOST_ASSIGN_OR_RETURN(auto types, GetAttr<std::vector<DType>>(node, arg.type_list_attr()));
      out.insert(out.end(), types.begin(), types.end());
      continue;
    }
    DType t;
    if (!arg.type_attr().empty()) {
      TFHOST_ASSIGN_OR_RETURN(t, GetAttr<DType>(node, arg.type_attr()));
    } else {
      t = BaseType(arg.type());
    }
    TFHOST_ASSIGN_OR_RETURN(int n, ArgArity(arg, node));
    out.insert(out.end(), n, t);
  }
  return out;
}

StatusOr<std::pair<int, int>> OutputArgRange(const tensorflow::OpDef& def, const Node& node,
                                             const std::string& arg_name) {
  int begin = 0;
  for (const auto& arg : def.output_arg()) {
    TFHOST_ASSIGN_OR_RETURN(int n, ArgArity(arg, node));
    if (arg.name() == arg_name) return std::make_pair(begin, n);
    begin += n;
  }
  return InvalidArgument(NodeContext(node) + " has no output named '" + arg_name + "'");
}

Status InferTypes(Graph& graph, const OpDefLookup& lookup) {
  // Defaults first, as in TensorFlow: an omitted attr with a default means
  // the default. Only attrs without one are inferred from the inputs, and
  // those nodes wait until their producers are typed.
  std::vector<int> waiting;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    Node& node = graph.mutable_node(i);
    const tensorflow::OpDef* def = lookup(node.op);
    if (def == nullptr) continue;
    FillDefaultAttrs(*def, &node);
    if (MissingInputBoundAttr(*def, node)) {
      waiting.push_back(i);
      continue;
    }
    TFHOST_RETURN_IF_ERROR(CheckOutputBoundAttrs(*def, node));
    auto dtypes = OutputDTypes(*def, node);
    if (!dtypes.ok()) return dtypes.status();
    node.output_dtypes = std::move(*dtypes);
  }
  TFHOST_RETURN_IF_ERROR(InferMissingTypeAttrs(graph, lookup, waiting));
  for (const Node& node : graph.nodes()) {
    for (const auto& in : node.inputs) {
      const Node& src = graph.node(in.node);
      if (src.output_dtypes.empty() && lookup(src.op) == nullptr) continue;  // unknown op
      if (in.index < 0 || in.index >= static_cast<int>(src.output_dtypes.size())) {
        return InvalidArgument(NodeContext(node) + " reads output " + std::to_string(in.index) +
                               " of node '" + src.name + "', which has " +
                               std::to_string(src.output_dtypes.size()) + " outputs");
      }
    }
  }
  return OkStatus();
}

}  // namespace tfhost::ir
