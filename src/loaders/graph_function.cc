#include "loaders/graph_function.h"

#include <map>

#include "ir/op_def_util.h"
#include "ops/op_registry.h"

namespace tfhost::loaders {

StatusOr<tensorflow::FunctionDef> GraphToFunctionDef(ir::Graph& body, const std::string& name,
                                                     const FunctionBoundary& boundary, const std::string& where) {
  if (boundary.arg_nodes.size() != boundary.arg_types.size() || boundary.rets.size() != boundary.ret_types.size()) {
    return Internal(where + ": a function boundary with mismatched arg or result types");
  }
  tensorflow::FunctionDef fdef;
  tensorflow::OpDef* sig = fdef.mutable_signature();
  sig->set_name(name);
  std::map<int, std::string> arg_of_node;
  for (size_t k = 0; k < boundary.arg_nodes.size(); ++k) {
    const std::string arg = "arg" + std::to_string(k);
    arg_of_node.emplace(boundary.arg_nodes[k], arg);
    auto* in = sig->add_input_arg();
    in->set_name(arg);
    in->set_type(static_cast<tensorflow::DataType>(boundary.arg_types[k]));
  }
  // Output arg names ("node:output:0") come from the schemas, once every
  // attr that sizes them is known.
  const ir::OpDefLookup lookup = ops::OpRegistry::Global().Lookup();
  Status typed = ir::InferTypes(body, lookup);
  if (!typed.ok()) return typed.WithContext(where);
  auto ref_name = [&](ir::TensorRef r) -> StatusOr<std::string> {
    if (auto it = arg_of_node.find(r.node); it != arg_of_node.end()) return it->second;
    const ir::Node& src = body.node(r.node);
    const tensorflow::OpDef* def = lookup(src.op);
    if (def == nullptr) return Internal(where + ": node '" + src.name + "' has op " + src.op + " without a schema");
    for (const auto& out : def->output_arg()) {
      TFHOST_ASSIGN_OR_RETURN(auto range, ir::OutputArgRange(*def, src, out.name()));
      if (r.index >= range.first && r.index < range.first + range.second) {
        return src.name + ":" + out.name() + ":" + std::to_string(r.index - range.first);
      }
    }
    return Internal(where + ": node '" + src.name + "' has no output " + std::to_string(r.index));
  };
  const tensorflow::GraphDef gd = body.ToGraphDef();
  for (int i = 0; i < body.num_nodes(); ++i) {
    if (arg_of_node.count(i)) continue;
    tensorflow::NodeDef* nd = fdef.add_node_def();
    *nd = gd.node(i);
    nd->clear_input();
    nd->clear_device();
    for (const ir::TensorRef& in : body.node(i).inputs) {
      TFHOST_ASSIGN_OR_RETURN(std::string ref, ref_name(in));
      nd->add_input(std::move(ref));
    }
    for (int c : body.node(i).control_inputs) {
      if (!arg_of_node.count(c)) nd->add_input("^" + body.node(c).name);
    }
  }
  for (size_t k = 0; k < boundary.rets.size(); ++k) {
    const ir::TensorRef r = boundary.rets[k];
    const ir::Node& src = body.node(r.node);
    DType type = boundary.ret_types[k];
    const DType computed =
        r.index < static_cast<int>(src.output_dtypes.size()) ? src.output_dtypes[r.index] : DType::kInvalid;
    if (type == DType::kInvalid) type = computed;
    if (computed != DType::kInvalid && computed != type) {
      return InvalidArgument(where + " output " + std::to_string(k) + " is declared " + DTypeShortName(type) +
                             " but its operators compute " + DTypeShortName(computed));
    }
    if (type == DType::kInvalid) return InvalidArgument(where + " output " + std::to_string(k) + " has no known type");
    const std::string out = "out" + std::to_string(k);
    auto* arg = sig->add_output_arg();
    arg->set_name(out);
    arg->set_type(static_cast<tensorflow::DataType>(type));
    TFHOST_ASSIGN_OR_RETURN(std::string ref, ref_name(r));
    (*fdef.mutable_ret())[out] = std::move(ref);
  }
  return fdef;
}

}  // namespace tfhost::loaders
