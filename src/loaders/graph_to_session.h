// The last steps every loader shares: prune the graph to what `roots` and
// LoadOptions::keep reach (ir/reachability.h), fill default attrs and infer
// dtypes from op schemas (the model's own OpDefs first, then tfhost's
// registry), apply soft placement (device pins are informational: tfhost
// places every node itself, so "/device:GPU:0" on a CPU host is not an
// error), run the graph passes (src/passes; off with
// LoadOptions::optimize_graph = false, roots are kept by name), and create
// the Session, checking that every node the model needs has a kernel.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "loaders/model_loader.h"
#include "tensorflow/core/framework/op_def.pb.h"

namespace tfhost::loaders {

// `model_op_defs` may be null (GraphDef/TF.js carry none). `roots` are the
// node or tensor names the model can ever run or be fed (signature tensors,
// init and restore ops, tensors the loader feeds); only what they and
// options.keep reach is kept and checked. Empty = all nodes.
StatusOr<std::unique_ptr<runtime::Session>> GraphToSession(
    ir::Graph graph, const tensorflow::OpList* model_op_defs, const LoadOptions& options,
    const std::string& model_name, const std::vector<std::string>& roots);

// PassContext::has_fast_kernel as the loader sets it: whether `registry`
// places `node` on a backend other than the reference kernels, with
// `kernels` kFast; with a device backend loaded, only on a device backend
// (a fused node on the host would take its neighbours' products off the
// GPU). `registry` must outlive the result.
std::function<bool(const ir::Node&)> FastKernelCheck(const backends::BackendRegistry& registry,
                                                     backends::KernelChoice kernels);

// Reads a whole file; errors name the path.
StatusOr<std::string> ReadFileToString(const std::string& path);

}  // namespace tfhost::loaders
