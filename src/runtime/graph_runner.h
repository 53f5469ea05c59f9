// GraphRunner: one graph with its kernels, decoded constants and cached
// execution plans, run against resources and thread pools it borrows. A
// Session runs its graph through one; the function runtime runs each
// instantiated function body (If/While/Case branches, calls) through another,
// sharing the session's resources.
//
// Plans without TF1 while loops run on the dataflow executor (concurrent on
// the inter-op pool when there is one); plans with loops run on the frame
// executor (frame_executor.h), which tags tensors by (frame, iteration).
//
// Thread-safety: Run() may be called from many threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/fast_kernel_registry.h"
#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ir/graph.h"
#include "ops/op_registry.h"
#include "ops/resource_manager.h"
#include "ops/tensor_array/step_container.h"

namespace tfhost::runtime {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class ExecutionPlan;
class FunctionRuntime;

// What the kernels of one run see besides their inputs.
struct ExecEnv {
  ops::ResourceManager* resources = nullptr;
  ThreadPool* intra_op = nullptr;
  ThreadPool* inter_op = nullptr;  // null: nodes run one after another on the caller's thread
  FunctionRuntime* functions = nullptr;
  ops::StepContainer* step = nullptr;
  int call_depth = 0;  // nesting of function calls (If/While bodies)
};

class GraphRunner {
 public:
  // Checks that every node reachable from `roots` (node names; empty = all)
  // has a kernel, or calls a function of the graph's library. `context` names
  // the model or function in errors.
  // `kernels` = kFast replaces reference kernels by fast ones where a backend
  // accepts the node (backends/fast_kernel_registry.h).
  static StatusOr<std::unique_ptr<GraphRunner>> Create(
      ir::Graph graph, std::string context, const std::vector<std::string>& roots = {},
      backends::KernelChoice kernels = backends::KernelChoice::kFast);

  // Feeds must already be checked by the caller (names resolve, dtypes).
  StatusOr<std::vector<Tensor>> Run(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                    const std::vector<std::string>& targets, const ExecEnv& env);

  const ir::Graph& graph() const { return graph_; }
  const std::string& context() const { return context_; }
  // Whether any node the runner may execute is stateful (for loop checks).
  bool HasStatefulNodes() const { return has_stateful_; }
  // The backend whose fast kernel runs node `i` ("onednn", ...), or "" for
  // the reference kernel.
  const std::string& KernelBackend(int i) const { return kernel_backends_[i]; }

 private:
  GraphRunner(ir::Graph graph, std::string context) : graph_(std::move(graph)), context_(std::move(context)) {}
  StatusOr<std::shared_ptr<const ExecutionPlan>> GetPlan(const NamedTensors& feeds,
                                                         const std::vector<std::string>& fetches,
                                                         const std::vector<std::string>& targets);

  ir::Graph graph_;
  std::string context_;
  std::vector<const ops::OpRegistration*> kernels_;  // per node; null = no kernel
  // Registrations whose kernel is a fast one; kernels_ points into these.
  std::vector<std::unique_ptr<ops::OpRegistration>> fast_registrations_;
  std::vector<std::string> kernel_backends_;         // per node; "" = reference
  std::vector<Tensor> constants_;                    // decoded value of each Const node
  bool has_stateful_ = false;
  std::mutex plans_mu_;
  std::map<std::string, std::shared_ptr<const ExecutionPlan>> plans_;
};

// Whether the runtime itself executes this op by running library functions.
bool IsFunctionalOp(const std::string& op);

// Runs one node: its kernel, or the function runtime for If/While/Case and
// calls, with the run's step container current. Then checks every live
// output exists and has the schema's dtype.
Status RunKernel(const ir::Node& node, const ops::OpRegistration& reg, ops::KernelContext& ctx,
                 const ExecEnv& env);

// The registration used for nodes whose op names a library function.
const ops::OpRegistration& FunctionCallRegistration();

}  // namespace tfhost::runtime
