// The function runtime: runs TF2 functional control flow and calls by
// executing function bodies from the graph's FunctionDefLibrary as
// sub-executions (each body instantiated once per attr binding, then cached).
//
//   If / StatelessIf      cond picks then_branch or else_branch
//   Case / StatelessCase  branch_index picks branches[i]; out of range runs
//                         the last branch, as TensorFlow does
//   While / StatelessWhile  cond(vars) -> body(vars) until false; loop
//                         variables may change shape between iterations
//   PartitionedCall / StatefulPartitionedCall, and nodes whose op names a
//                         library function
//
// Bodies share the session's resources (a variable handle passed into a body
// reads and writes the same variable) and the run's step container. Bodies
// run on the calling thread.
//
// Loops run as long as their condition holds, as in TensorFlow, except that
// a While whose body returns its inputs unchanged while nothing stateful runs
// fails at once (it could never finish), and every body run draws on the
// run's LoopBudget (env.loops, --max_loop_iterations). Nested calls are
// bounded in depth (--max_function_depth, runtime/run_limits.h).
//
// Thread-safety: all methods may be called from many threads at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/graph_runner.h"

namespace tfhost::runtime {

// Rewrites a body once it is instantiated, before it first runs: the loader
// hands in its graph passes (they live above the runtime). `roots` are the
// nodes that must keep their names and outputs (the arguments and "_ret").
using FunctionBodyOptimizer = std::function<Status(ir::Graph& graph, const std::vector<std::string>& roots)>;

class FunctionRuntime {
 public:
  // `library` must outlive the runtime. `context` names the model in errors.
  // `max_call_depth` bounds nested calls at run time and the calls inlined
  // into a body when it is instantiated.
  FunctionRuntime(const tensorflow::FunctionDefLibrary* library, std::string context,
                  backends::KernelChoice kernels = backends::KernelChoice::kFast,
                  const backends::BackendRegistry* backends = nullptr,
                  int max_call_depth = kDefaultMaxFunctionDepth, FunctionBodyOptimizer optimizer = nullptr);
  ~FunctionRuntime();

  // Runs a functional node (If, While, Case, calls) whose inputs are in ctx.
  Status RunCallNode(ops::KernelContext& ctx, const ExecEnv& env);

  // Calls function `name` instantiated with `attrs` on `args`.
  StatusOr<std::vector<Tensor>> Call(const std::string& name, const ir::AttrMap& attrs, std::vector<Tensor> args,
                                     const ExecEnv& env);

 private:
  struct Instance;
  StatusOr<Instance*> Instantiate(const std::string& name, const ir::AttrMap& attrs);
  // `args` are the call's to take (the caller may reuse the emptied vector).
  StatusOr<std::vector<Tensor>> CallInstance(Instance* instance, std::vector<Tensor>&& args, const ExecEnv& env);
  // The same, reading `args` without taking them (a loop's condition).
  StatusOr<std::vector<Tensor>> CallInstanceReading(Instance* instance, const std::vector<Tensor>& args,
                                                    const ExecEnv& env);
  // The checks both make; `sub` is the body's environment.
  Status CheckCall(Instance* instance, const std::vector<Tensor>& args, const ExecEnv& env, ExecEnv* sub) const;
  Status RunIf(ops::KernelContext& ctx, const ExecEnv& env);
  Status RunCase(ops::KernelContext& ctx, const ExecEnv& env);
  Status RunWhile(ops::KernelContext& ctx, const ExecEnv& env);

  const tensorflow::FunctionDefLibrary* library_;
  std::string context_;
  backends::KernelChoice kernels_;
  const backends::BackendRegistry* backends_;
  int max_call_depth_;
  FunctionBodyOptimizer optimizer_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Instance>> instances_;
};

}  // namespace tfhost::runtime
