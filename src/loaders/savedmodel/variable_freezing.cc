#include "loaders/savedmodel/variable_freezing.h"

#include <map>

#include "ir/attrs.h"
#include "ir/reachability.h"
#include "loaders/savedmodel/loop_variable_inputs.h"
#include "loaders/savedmodel/ref_variables.h"
#include "ops/run_single_op.h"

namespace tfhost::loaders {
namespace {

bool IsVariable(const ir::Node& node) { return node.op == "VarHandleOp" || IsRefVariableOp(node.op); }

// Ops that read a VarHandleOp's variable without writing it, and that have a
// stateless twin over a tensor.
bool IsHandleRead(const std::string& op) {
  return op == "ReadVariableOp" || op == "ResourceGather" || op == "ResourceGatherNd";
}

std::string Describe(const ir::Node& node) { return node.op + " node '" + node.name + "'"; }

StatusOr<int> AddConst(ir::Graph& graph, const std::string& base, const Tensor& value) {
  ir::Node c;
  c.name = graph.UniqueName(base);
  ir::SetConstValue(&c, value);  // held as a tensor: no copy into a proto
  return graph.AddNode(std::move(c));
}

// Rewrites one read of the variable now held by Const `frozen`.
Status RewriteRead(ir::Graph& graph, int read_id, int frozen, DType dtype, const std::string& resource) {
  ir::Node& read = graph.mutable_node(read_id);
  // ReadVariableOp, ResourceGather(Nd) and VariableV2 declare the dtype they read.
  if (read.FindAttr("dtype") != nullptr) {
    auto declared = ir::GetAttr<DType>(read, "dtype");
    if (!declared.ok() || *declared != dtype) {
      return InvalidArgument(Describe(read) + " reads variable '" + resource + "' as " +
                             (declared.ok() ? DTypeName(*declared) : declared.status().message()) +
                             ", but the checkpoint restored " + DTypeName(dtype));
    }
  }
  read.output_dtypes.clear();  // type inference runs after freezing
  if (read.op == "ReadVariableOp" || IsRefVariableOp(read.op)) {
    read.op = "Identity";
    read.inputs = {ir::TensorRef{frozen, 0}};
    read.attrs.clear();
    read.attrs["T"] = ops::MakeAttr(dtype);
    return OkStatus();
  }
  if (read.inputs.size() != 2) {
    return InvalidArgument(Describe(read) + " has " + std::to_string(read.inputs.size()) +
                           " inputs, expected 2 (the variable and the indices)");
  }
  auto tindices = ir::GetAttrOr<DType>(read, "Tindices", DType::kInt32);
  if (!tindices.ok()) return tindices.status().WithContext(Describe(read));
  ir::AttrMap attrs;
  attrs["Tparams"] = ops::MakeAttr(dtype);
  attrs["Tindices"] = ops::MakeAttr(*tindices);
  if (read.op == "ResourceGatherNd") {
    read.op = "GatherNd";
    read.inputs = {ir::TensorRef{frozen, 0}, read.inputs[1]};
  } else {
    // ResourceGather gathers along axis batch_dims.
    auto batch_dims = ir::GetAttrOr<int64_t>(read, "batch_dims", 0);
    if (!batch_dims.ok()) return batch_dims.status().WithContext(Describe(read));
    const ir::TensorRef indices = read.inputs[1];
    const std::string name = read.name;
    TFHOST_ASSIGN_OR_RETURN(int axis, AddConst(graph, name + "/axis",
                                               Tensor::Scalar<int32_t>(static_cast<int32_t>(*batch_dims))));
    ir::Node& gather = graph.mutable_node(read_id);  // AddNode may have moved it
    gather.op = "GatherV2";
    gather.inputs = {ir::TensorRef{frozen, 0}, indices, ir::TensorRef{axis, 0}};
    attrs["Taxis"] = ops::MakeAttr(DType::kInt32);
    attrs["batch_dims"] = ops::MakeAttr(*batch_dims);
    gather.attrs = std::move(attrs);
    return OkStatus();
  }
  read.attrs = std::move(attrs);
  return OkStatus();
}

}  // namespace

FreezePlan PlanVariableFreezing(const ir::Graph& graph, const std::vector<int>& served,
                                const std::vector<int>& init) {
  FreezePlan plan;
  const std::vector<bool> in_init = ir::ReachableFrom(graph, init);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (in_init[i] && IsVariable(graph.node(i))) {
      plan.declined = "the init op reaches variable " + Describe(graph.node(i));
      return plan;
    }
  }
  const std::vector<bool> in_served = ir::ReachableFrom(graph, served);
  const std::vector<std::vector<int>> consumers = graph.Consumers();
  std::map<std::string, size_t> index_of;  // resource name -> plan.variables index
  auto entry = [&](const ir::Node& source) -> FreezePlan::Variable& {
    const std::string resource = VariableResourceName(source);
    auto [it, added] = index_of.emplace(resource, plan.variables.size());
    if (added) plan.variables.push_back({resource, source.name, {}, {}});
    return plan.variables[it->second];
  };
  auto add = [&](const ir::Node& source, const std::string& read) { entry(source).reads.push_back(read); };
  auto decline = [&](std::string why) {
    plan.declined = std::move(why);
    plan.variables.clear();
    return plan;
  };
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (!in_served[i]) continue;
    const ir::Node& node = graph.node(i);
    if (node.op == "VarHandleOp") {
      for (int c : consumers[i]) {
        if (!in_served[c]) continue;  // the restore step's assigns
        const ir::Node& user = graph.node(c);
        bool data_use = false;
        for (const ir::TensorRef& in : user.inputs) data_use |= in.node == i;
        if (!data_use) continue;
        if (user.op == "While" || user.op == "StatelessWhile") {
          for (size_t slot = 0; slot < user.inputs.size(); ++slot) {
            if (user.inputs[slot].node != i) continue;
            std::string why = LoopOnlyReads(graph, consumers, c, static_cast<int>(slot));
            if (!why.empty()) return decline(why);
            entry(node).loop_inputs.emplace_back(user.name, static_cast<int>(slot));
          }
          continue;
        }
        if (!IsHandleRead(user.op) || user.inputs[0].node != i) {
          return decline(Describe(user) + " uses variable '" + VariableResourceName(node) +
                         "' other than by reading it");
        }
        add(node, user.name);
      }
    } else if (IsHandleRead(node.op)) {
      const ir::Node* handle = node.inputs.empty() ? nullptr : &graph.node(node.inputs[0].node);
      if (handle == nullptr || handle->op != "VarHandleOp") {
        return decline(Describe(node) + " reads a handle that is not a VarHandleOp" +
                       (handle != nullptr ? " (it comes from " + Describe(*handle) + ")" : std::string()));
      }
    } else if (IsRefVariableOp(node.op)) {
      // The loader redirected every ref writer to "<V>/_tfhost_handle"
      // (ref_variables.h), so what still reads V reads its value; a served
      // writer shows up as a consumer of that VarHandleOp above.
      add(node, node.name);
    }
  }
  return plan;
}

Status FreezeVariables(ir::Graph& graph, const FreezePlan& plan, std::vector<Tensor> values) {
  if (values.size() != plan.variables.size()) {
    return Internal("freezing " + std::to_string(plan.variables.size()) + " variables with " +
                    std::to_string(values.size()) + " values");
  }
  std::map<std::string, std::vector<FrozenLoopInput>> loops;  // While node -> its frozen inputs
  for (size_t k = 0; k < plan.variables.size(); ++k) {
    const FreezePlan::Variable& var = plan.variables[k];
    const DType dtype = values[k].dtype();
    const Shape shape = values[k].shape();
    TFHOST_ASSIGN_OR_RETURN(int frozen, AddConst(graph, var.source + "/frozen", values[k]));
    values[k] = Tensor();  // the Const holds it now
    for (const auto& [loop, slot] : var.loop_inputs) loops[loop].push_back({slot, frozen, dtype, shape});
    for (const std::string& name : var.reads) {
      const int id = graph.FindNode(name);
      if (id < 0) return Internal("variable '" + var.resource + "': node '" + name + "' is gone");
      TFHOST_RETURN_IF_ERROR(RewriteRead(graph, id, frozen, dtype, var.resource));
    }
  }
  for (const auto& [name, inputs] : loops) {
    const int loop = graph.FindNode(name);
    if (loop < 0) return Internal("freezing variables: While node '" + name + "' is gone");
    TFHOST_RETURN_IF_ERROR(FreezeLoopInputs(graph, loop, inputs));
  }
  return OkStatus();
}

}  // namespace tfhost::loaders
