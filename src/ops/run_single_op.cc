#include "ops/run_single_op.h"

#include "ir/tensor_proto.h"
#include "ops/kernel_contract.h"

namespace tfhost::ops {

tensorflow::AttrValue MakeAttr(int64_t v) { tensorflow::AttrValue a; a.set_i(v); return a; }
tensorflow::AttrValue MakeAttr(int v) { return MakeAttr(static_cast<int64_t>(v)); }
tensorflow::AttrValue MakeAttr(float v) { tensorflow::AttrValue a; a.set_f(v); return a; }
tensorflow::AttrValue MakeAttr(bool v) { tensorflow::AttrValue a; a.set_b(v); return a; }
tensorflow::AttrValue MakeAttr(const char* v) { tensorflow::AttrValue a; a.set_s(v); return a; }
tensorflow::AttrValue MakeAttr(const std::string& v) { tensorflow::AttrValue a; a.set_s(v); return a; }
tensorflow::AttrValue MakeAttr(DType v) {
  tensorflow::AttrValue a;
  a.set_type(static_cast<tensorflow::DataType>(v));
  return a;
}
tensorflow::AttrValue MakeAttr(const std::vector<int64_t>& v) {
  tensorflow::AttrValue a;
  auto* list = a.mutable_list();
  for (auto x : v) list->add_i(x);
  return a;
}
tensorflow::AttrValue MakeAttr(const std::vector<float>& v) {
  tensorflow::AttrValue a;
  auto* list = a.mutable_list();
  for (auto x : v) list->add_f(x);
  return a;
}
tensorflow::AttrValue MakeAttr(const std::vector<std::string>& v) {
  tensorflow::AttrValue a;
  auto* list = a.mutable_list();
  for (const auto& x : v) list->add_s(x);
  return a;
}
tensorflow::AttrValue MakeAttr(const std::vector<DType>& v) {
  tensorflow::AttrValue a;
  auto* list = a.mutable_list();
  for (auto x : v) list->add_type(static_cast<tensorflow::DataType>(x));
  return a;
}
tensorflow::AttrValue MakeAttr(const Tensor& v) {
  tensorflow::AttrValue a;
  ir::TensorToProto(v, a.mutable_tensor());
  return a;
}

StatusOr<ir::Node> MakeSingleOpNode(const std::string& op, ir::AttrMap attrs) {
  const OpRegistration* reg = OpRegistry::Global().Find(op);
  if (reg == nullptr) return NotFound("op '" + op + "' is not registered");
  ir::Node node;
  node.name = "test_" + op;
  node.op = op;
  node.attrs = std::move(attrs);
  ir::FillDefaultAttrs(reg->def, &node);
  return node;
}

StatusOr<std::vector<Tensor>> RunKernelOnNode(const ir::Node& node, const KernelFn& kernel,
                                              std::vector<Tensor> inputs, ResourceManager* resources,
                                              ThreadPool* intra_op) {
  const OpRegistration* reg = OpRegistry::Global().Find(node.op);
  if (reg == nullptr) return NotFound("op '" + node.op + "' is not registered");
  auto dtypes = ir::OutputDTypes(reg->def, node);
  if (!dtypes.ok()) return dtypes.status();
  // The contract's static half, on the dtypes of the tensors given; a
  // missing (invalid) tensor is left to the run-time half, which names it.
  std::vector<DType> input_dtypes;
  for (const Tensor& t : inputs) input_dtypes.push_back(t.valid() ? t.dtype() : DType::kInvalid);
  TFHOST_ASSIGN_OR_RETURN(std::vector<int> late, CheckNodeContract(reg->def, node, input_dtypes));
  ResourceManager local_resources;
  std::vector<bool> dead(inputs.size(), false);
  KernelContext ctx(node, std::move(inputs), std::move(dead),
                    resources ? resources : &local_resources, intra_op);
  ctx.set_num_outputs(static_cast<int>(dtypes->size()));
  if (!late.empty()) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<DType> expected, ExpectedInputDTypes(reg->def, node));
    TFHOST_RETURN_IF_ERROR(CheckLateInputs(ctx, expected, late));
  }
  TFHOST_RETURN_IF_ERROR(InvokeKernel(kernel, ctx));
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.outputs()[i].valid() && !ctx.output_dead()[i]) {
      return Internal(ir::NodeContext(node) + ": kernel did not set output " + std::to_string(i));
    }
  }
  return std::move(ctx.outputs());
}

StatusOr<std::vector<Tensor>> RunSingleOp(const std::string& op, std::vector<Tensor> inputs,
                                          ir::AttrMap attrs, ResourceManager* resources,
                                          ThreadPool* intra_op) {
  TFHOST_ASSIGN_OR_RETURN(ir::Node node, MakeSingleOpNode(op, std::move(attrs)));
  return RunKernelOnNode(node, OpRegistry::Global().Find(op)->kernel, std::move(inputs), resources, intra_op);
}

}  // namespace tfhost::ops
