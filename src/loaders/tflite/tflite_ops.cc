#include "loaders/tflite/tflite_ops.h"

#include "loaders/tflite/tflite_builtins.h"

namespace tfhost::loaders::tflite {

StatusOr<ir::TensorRef> OpContext::In(int i) const {
  if (i >= static_cast<int>(inputs.size())) {
    return Error("has " + std::to_string(inputs.size()) + " inputs; expected at least " + std::to_string(i + 1));
  }
  if (inputs[i] < 0) return Error("input " + std::to_string(i) + " is absent but required");
  return b->Operand(inputs[i]);
}

Status OpContext::Error(const std::string& what) const { return InvalidArgument(where + ": " + what); }


StatusOr<ir::TensorRef> FinishWithActivation(const OpContext& ctx, fb::ActivationFunctionType activation,
                                             const std::string& op, std::vector<ir::TensorRef> inputs,
                                             ir::AttrMap attrs) {
  using Act = fb::ActivationFunctionType;
  if (activation == Act::NONE) return ctx.b->AddOutputNode(ctx.outputs, op, std::move(inputs), std::move(attrs));
  if (ctx.outputs.size() != 1) return ctx.Error("a fused activation needs exactly one output");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.b->AddNode(ctx.Base() + "/" + op, op, std::move(inputs),
                                                          std::move(attrs)));
  switch (activation) {
    case Act::RELU: return ctx.b->AddOutputNode(ctx.outputs, "Relu", {x});
    case Act::RELU6: return ctx.b->AddOutputNode(ctx.outputs, "Relu6", {x});
    case Act::TANH: return ctx.b->AddOutputNode(ctx.outputs, "Tanh", {x});
    case Act::RELU_N1_TO_1: {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef lo, ctx.b->AddConst(ctx.Base() + "/minus_one", Tensor::Scalar(-1.0f)));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef hi, ctx.b->AddConst(ctx.Base() + "/one", Tensor::Scalar(1.0f)));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef clipped, ctx.b->AddNode(ctx.Base() + "/max", "Maximum", {x, lo}));
      return ctx.b->AddOutputNode(ctx.outputs, "Minimum", {clipped, hi});
    }
    default:
      return ctx.Error(std::string("has the fused activation ") + fb::EnumNameActivationFunctionType(activation) +
                       ", which tfhost does not map");
  }
}

StatusOr<std::vector<ir::TensorRef>> AllInputs(const OpContext& ctx, int count) {
  if (static_cast<int>(ctx.inputs.size()) < count) {
    return ctx.Error("has " + std::to_string(ctx.inputs.size()) + " inputs; expected " + std::to_string(count));
  }
  std::vector<ir::TensorRef> refs;
  for (int i = 0; i < count; ++i) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef r, ctx.In(i));
    refs.push_back(r);
  }
  return refs;
}

Status MapSimple(const OpContext& ctx, const std::string& op, int arity, ir::AttrMap attrs) {
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, arity));
  return ctx.b->AddOutputNode(ctx.outputs, op, std::move(in), std::move(attrs)).status();
}

Status MapToOutputType(const OpContext& ctx, const std::string& op, const std::string& attr, int arity) {
  const fb::Tensor& out = ctx.b->tensor(ctx.outputs[0]);
  const DType dtype = DTypeOf(out.type());
  if (dtype == DType::kInvalid) {
    return ctx.Error(std::string("writes ") + TensorTypeName(out.type()) + ", which tfhost has no type for");
  }
  ir::AttrMap attrs;
  attrs[attr] = TypeAttr(dtype);
  return MapSimple(ctx, op, arity, std::move(attrs));
}

bool IsMappedBuiltin(int32_t code) {
  return IsMappedNnBuiltin(code) || IsMappedMathBuiltin(code) || IsMappedArrayBuiltin(code) ||
         IsMappedControlBuiltin(code);
}

bool MayHaveNoOutputs(int32_t code) {
  return code == kCallOnce || code == kAssignVariable || code == kHashtableImport;
}

Status MapOperator(const OpContext& ctx) {
  if (IsMappedNnBuiltin(ctx.code)) return MapNnOperator(ctx);
  if (IsMappedMathBuiltin(ctx.code)) return MapMathOperator(ctx);
  if (IsMappedControlBuiltin(ctx.code)) return MapControlOperator(ctx);
  return MapArrayOperator(ctx);
}

}  // namespace tfhost::loaders::tflite
