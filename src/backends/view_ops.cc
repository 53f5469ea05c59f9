#include "backends/view_ops.h"

#include "ir/attrs.h"
#include "ops/op_registry.h"

namespace tfhost::backends {

bool IsViewOp(const std::string& op) {
  static constexpr const char* kViews[] = {"Identity", "StopGradient", "Snapshot", "PreventGradient",
                                           "Reshape",  "Squeeze",      "ExpandDims"};
  for (const char* v : kViews) {
    if (op == v) return true;
  }
  return false;
}

bool IsDeviceViewOp(const ir::Node& node) {
  if (!IsViewOp(node.op)) return false;
  auto t = ir::GetAttr<DType>(node, "T");
  return t.ok() && DTypeSize(*t) > 0;
}

bool ViewOpInputInHostMemory(const std::string& op, int index) {
  return index == 1 && (op == "Reshape" || op == "ExpandDims");
}

ops::KernelFn ViewOpKernel(const std::string& op) {
  if (!IsViewOp(op)) return {};
  const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(op);
  return reg != nullptr ? reg->kernel : ops::KernelFn();
}

}  // namespace tfhost::backends
