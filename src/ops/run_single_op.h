// Runs one op on given inputs outside any graph: the way unit and conformance
// tests exercise a reference kernel. Attrs omitted by the caller take their
// schema defaults, as they would after loading a model.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace tfhost::ops {

// Attr values for tests: MakeAttr(3), MakeAttr("SAME"), MakeAttr(DType::kFloat),
// MakeAttr(std::vector<int64_t>{1, 2, 2, 1}), MakeAttr(std::vector<std::string>{...}).
tensorflow::AttrValue MakeAttr(int64_t v);
tensorflow::AttrValue MakeAttr(int v);
tensorflow::AttrValue MakeAttr(float v);
tensorflow::AttrValue MakeAttr(bool v);
tensorflow::AttrValue MakeAttr(const char* v);
tensorflow::AttrValue MakeAttr(const std::string& v);
tensorflow::AttrValue MakeAttr(DType v);
tensorflow::AttrValue MakeAttr(const std::vector<int64_t>& v);
tensorflow::AttrValue MakeAttr(const std::vector<float>& v);
tensorflow::AttrValue MakeAttr(const std::vector<std::string>& v);
tensorflow::AttrValue MakeAttr(const std::vector<DType>& v);
tensorflow::AttrValue MakeAttr(const Tensor& v);

// Runs `op` once. `resources` may be null (a fresh manager is used);
// `intra_op` may be null (runs inline). Returns the outputs in order.
StatusOr<std::vector<Tensor>> RunSingleOp(const std::string& op, std::vector<Tensor> inputs,
                                          ir::AttrMap attrs = {},
                                          ResourceManager* resources = nullptr,
                                          ThreadPool* intra_op = nullptr);

// The two halves of RunSingleOp, for running another kernel (a fast one from
// src/backends) on the same node: the node with `attrs` and schema defaults,
// and one call of `kernel` on it, under the kernel contract
// (ops/kernel_contract.h): the inputs' count and dtypes are checked against
// the op's schema before `kernel` runs, and it is called by InvokeKernel.
StatusOr<ir::Node> MakeSingleOpNode(const std::string& op, ir::AttrMap attrs = {});
StatusOr<std::vector<Tensor>> RunKernelOnNode(const ir::Node& node, const KernelFn& kernel,
                                              std::vector<Tensor> inputs, ResourceManager* resources = nullptr,
                                              ThreadPool* intra_op = nullptr);

}  // namespace tfhost::ops
