#include "loaders/tflite/tflite_functions.h"

#include <algorithm>

#include "loaders/graph_function.h"
#include "loaders/tflite/tflite_graph_builder.h"

namespace tfhost::loaders::tflite {

DType BoundaryDTypeOf(fb::TensorType type) {
  switch (type) {
    case fb::TensorType::STRING: return DType::kString;
    case fb::TensorType::RESOURCE: return DType::kResource;
    default: return DTypeOf(type);
  }
}

Status SubgraphLibrary::CheckIndex(int index, const std::string& what, const std::string& where) const {
  if (index < 0 || index >= num_subgraphs()) {
    return InvalidArgument(where + ": " + what + " " + std::to_string(index) + " is not a subgraph; the model has " +
                           std::to_string(num_subgraphs()));
  }
  return OkStatus();
}

StatusOr<SubgraphSignature> SubgraphLibrary::Signature(int index) const {
  const fb::SubGraph* sg = file_.model->subgraphs()->Get(index);
  const int tensors = sg->tensors() == nullptr ? 0 : static_cast<int>(sg->tensors()->size());
  SubgraphSignature out;
  for (auto [list, types, what] : {std::tuple{sg->inputs(), &out.inputs, "input"},
                                   std::tuple{sg->outputs(), &out.outputs, "output"}}) {
    if (list == nullptr) continue;
    for (flatbuffers::uoffset_t k = 0; k < list->size(); ++k) {
      const int t = list->Get(k);
      const std::string at = file_.path + ": subgraph " + std::to_string(index) + " " + what + " " +
                             std::to_string(k);
      if (t < 0 || t >= tensors || sg->tensors()->Get(t) == nullptr) {
        return InvalidArgument(at + " is tensor " + std::to_string(t) + "; the subgraph has " +
                               std::to_string(tensors) + " tensors");
      }
      const fb::TensorType type = sg->tensors()->Get(t)->type();
      const DType dtype = BoundaryDTypeOf(type);
      if (dtype == DType::kInvalid || dtype == DType::kHalf) {
        return Unimplemented(at + " (tensor " + std::to_string(t) + ") is " + TensorTypeName(type) +
                             ", which tfhost cannot pass between subgraphs");
      }
      types->push_back(dtype);
    }
  }
  return out;
}

std::string SubgraphLibrary::Chain(int index) const {
  std::string chain;
  for (int s : building_) chain += "subgraph " + std::to_string(s) + " -> ";
  return chain + "subgraph " + std::to_string(index);
}

Status SubgraphLibrary::Enter(int index) {
  if (static_cast<int>(building_.size()) >= kMaxSubgraphNesting) {
    return InvalidArgument(file_.path + ": subgraphs call subgraphs more than " +
                           std::to_string(kMaxSubgraphNesting) + " deep (" + Chain(index) + ")");
  }
  building_.push_back(index);
  return OkStatus();
}

StatusOr<std::string> SubgraphLibrary::FunctionFor(int index, const std::string& what, const std::string& where,
                                                    bool condition) {
  TFHOST_RETURN_IF_ERROR(CheckIndex(index, what, where));
  if (auto it = functions_.find({index, condition}); it != functions_.end()) return it->second;
  if (std::find(building_.begin(), building_.end(), index) != building_.end()) {
    return InvalidArgument(where + ": " + what + " " + std::to_string(index) + " calls a subgraph that is running (" +
                           Chain(index) + "); TFLite control flow cannot recurse");
  }
  const std::string name = "tflite_subgraph_" + std::to_string(index) + (condition ? "_cond" : "");
  TFHOST_RETURN_IF_ERROR(BuildFunction(index, name, condition));
  functions_[{index, condition}] = name;
  return name;
}

bool SubgraphLibrary::IsStateful(int index) const {
  auto it = stateful_.find(index);
  return it != stateful_.end() && it->second;
}

Status SubgraphLibrary::AddInitSubgraph(int index, const std::string& where) {
  TFHOST_RETURN_IF_ERROR(CheckIndex(index, "init_subgraph_index", where));
  if (std::find(building_.begin(), building_.end(), index) != building_.end()) {
    return InvalidArgument(where + ": init_subgraph_index " + std::to_string(index) +
                           " calls a subgraph that is running (" + Chain(index) + ")");
  }
  const fb::SubGraph* sg = file_.model->subgraphs()->Get(index);
  const size_t inputs = sg->inputs() ? sg->inputs()->size() : 0, outputs = sg->outputs() ? sg->outputs()->size() : 0;
  if (inputs != 0 || outputs != 0) {
    // It runs before any input exists and nobody reads what it returns.
    return InvalidArgument(where + ": init subgraph " + std::to_string(index) + " has " + std::to_string(inputs) +
                           " inputs and " + std::to_string(outputs) + " outputs; expected none");
  }
  if (std::find(init_.begin(), init_.end(), index) == init_.end()) init_.push_back(index);
  return OkStatus();
}

Status SubgraphLibrary::BuildFunction(int index, const std::string& name, bool condition) {
  TFHOST_ASSIGN_OR_RETURN(SubgraphSignature types, Signature(index));
  ir::Graph body;
  GraphBuilder b(file_, index, "", &body, this, /*function_body=*/true);
  TFHOST_RETURN_IF_ERROR(b.Build());
  const fb::SubGraph& sg = b.subgraph();
  const std::string where = file_.path + ": subgraph " + std::to_string(index);

  FunctionBoundary boundary;
  boundary.arg_types = types.inputs;
  boundary.ret_types = types.outputs;
  for (size_t k = 0; k < types.inputs.size(); ++k) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b.Ref(sg.inputs()->Get(k)));
    boundary.arg_nodes.push_back(ref.node);
  }
  for (size_t k = 0; k < types.outputs.size(); ++k) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b.Ref(sg.outputs()->Get(k)));
    boundary.rets.push_back(ref);
  }
  if (condition) {
    const fb::Tensor& cond = b.tensor(sg.outputs()->Get(0));
    if (types.outputs.size() != 1 || types.outputs[0] != DType::kBool) {
      return InvalidArgument(where + " is a WHILE condition; it must return one BOOL, not " +
                             std::to_string(types.outputs.size()) + " outputs" +
                             (types.outputs.empty() ? "" : std::string(" starting with ") +
                                                               TensorTypeName(cond.type())));
    }
    if (cond.shape() == nullptr || cond.shape()->size() != 0) {
      // Reshaping fails, as TFLite does, unless there is exactly one value.
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar_shape,
                              b.AddConst(b.NodeName(sg.outputs()->Get(0)) + "/scalar_shape",
                                         Tensor(DType::kInt32, Shape({0}))));
      TFHOST_ASSIGN_OR_RETURN(boundary.rets[0], b.AddNode(b.NodeName(sg.outputs()->Get(0)) + "/scalar", "Reshape",
                                                          {boundary.rets[0], scalar_shape}));
    }
  }
  TFHOST_ASSIGN_OR_RETURN(tensorflow::FunctionDef fdef, GraphToFunctionDef(body, name, boundary, where));
  tensorflow::OpDef* sig = fdef.mutable_signature();
  // The stateful operators are chained in operator order (GraphBuilder), so
  // waiting for the last one waits for them all, as TFLite runs every
  // operator of a subgraph whether or not its outputs are read.
  const bool stateful = b.last_stateful() >= 0;
  if (stateful) {
    sig->set_is_stateful(true);
    sig->add_control_output("state");
    (*fdef.mutable_control_ret())["state"] = body.node(b.last_stateful()).name;
  }
  stateful_[index] = stateful;
  *graph_->mutable_library().add_function() = std::move(fdef);
  return OkStatus();
}

}  // namespace tfhost::loaders::tflite
