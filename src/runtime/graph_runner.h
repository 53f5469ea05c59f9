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

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/placement.h"
#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ir/graph.h"
#include "ops/op_registry.h"
#include "ops/resource_manager.h"
#include "ops/tensor_array/step_container.h"
#include "runtime/memory_plan.h"
#include "runtime/node_profile.h"
#include "runtime/run_limits.h"

namespace tfhost::runtime {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// The feeds of one prepared run, in the order of Prepare's feed names: a
// caller's named tensors (the names are not read), or bare tensors (a
// function call's arguments, which then need no name strings each call).
// Either may be owned by the run (`mutable_at`), which lets a feed's last
// reader take it.
class FeedList {
 public:
  explicit FeedList(const NamedTensors& named) : named_(&named) {}
  explicit FeedList(NamedTensors* owned) : named_(owned), owned_named_(owned) {}
  explicit FeedList(std::vector<Tensor>* owned) : positional_(owned), owned_positional_(owned) {}
  explicit FeedList(const std::vector<Tensor>& positional) : positional_(&positional) {}
  size_t size() const { return named_ != nullptr ? named_->size() : positional_->size(); }
  const Tensor& at(size_t i) const { return named_ != nullptr ? (*named_)[i].second : (*positional_)[i]; }
  bool owned() const { return owned_named_ != nullptr || owned_positional_ != nullptr; }
  // Precondition: owned().
  Tensor& mutable_at(size_t i) { return owned_named_ != nullptr ? (*owned_named_)[i].second : (*owned_positional_)[i]; }

 private:
  const NamedTensors* named_ = nullptr;
  const std::vector<Tensor>* positional_ = nullptr;
  NamedTensors* owned_named_ = nullptr;
  std::vector<Tensor>* owned_positional_ = nullptr;
};

class ExecutionPlan;
class FunctionRuntime;
// The dataflow executor's per-run bookkeeping kept between runs of one plan
// (dataflow_run.cc), so that a loop body's thousands of runs allocate it once.
class RunStatePool;
std::shared_ptr<RunStatePool> MakeRunStatePool();

// What the kernels of one run see besides their inputs.
struct ExecEnv {
  ops::ResourceManager* resources = nullptr;
  ThreadPool* intra_op = nullptr;
  ThreadPool* inter_op = nullptr;  // null: nodes run one after another on the caller's thread
  FunctionRuntime* functions = nullptr;
  ops::StepContainer* step = nullptr;
  int call_depth = 0;  // nesting of function calls (If/While bodies)
  // The run's while-loop iterations (runtime/run_limits.h); null: unbounded.
  LoopBudget* loops = nullptr;
  // Where to add each node's kernel time (the top-level graph's runs only:
  // function bodies run with null); null: not timed.
  NodeProfile* profile = nullptr;
  // The id of this run's trace slice (base/trace/trace.h) when a recording
  // was on as it started: each top-level node's execution becomes a slice
  // naming it (function bodies run with 0, like profile); 0: not traced.
  uint64_t trace_run = 0;
};

class GraphRunner {
 public:
  // Checks that every node reachable from `roots` (node names; empty = all)
  // has a kernel, or calls a function of the graph's library. `context` names
  // the model or function in errors.
  // Places the graph on `backends` (null: BackendRegistry::Global()), see
  // backends/placement.h: with kFast each node runs on the highest-priority
  // backend that takes it, with kReference on the reference kernels.
  static StatusOr<std::unique_ptr<GraphRunner>> Create(
      ir::Graph graph, std::string context, const std::vector<std::string>& roots = {},
      backends::KernelChoice kernels = backends::KernelChoice::kFast,
      const backends::BackendRegistry* backends = nullptr);

  // Feeds must already be checked by the caller (names resolve, dtypes).
  StatusOr<std::vector<Tensor>> Run(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                    const std::vector<std::string>& targets, const ExecEnv& env);


 private:
  struct ObservedSizes;  // below

 public:
  // A run resolved once for fixed feed names, fetches and targets. Callers
  // that repeat the same run many times (a loop body, every iteration) skip
  // finding the plan by its names each time.
  class Prepared {
   private:
    friend class GraphRunner;
    std::shared_ptr<const ExecutionPlan> plan_;
    std::shared_ptr<ObservedSizes> observed_;
    std::shared_ptr<RunStatePool> states_;
  };
  StatusOr<Prepared> Prepare(const std::vector<std::string>& feed_names, const std::vector<std::string>& fetches,
                             const std::vector<std::string>& targets);
  // `feeds` in the order of Prepare's feed names (their names are not read);
  // `fetches` as given to Prepare, for messages and copies.
  StatusOr<std::vector<Tensor>> Run(const Prepared& prepared, const NamedTensors& feeds,
                                    const std::vector<std::string>& fetches, const ExecEnv& env);
  // The same, owning `feeds`: a feed's last reader takes it, so a kernel that
  // updates its input in place when it is the only owner (TensorListSetItem
  // in a loop body) can. What is left of `feeds` afterwards is unspecified.
  StatusOr<std::vector<Tensor>> Run(const Prepared& prepared, NamedTensors&& feeds,
                                    const std::vector<std::string>& fetches, const ExecEnv& env);
  // The same with bare tensors in Prepare's feed order (a function body's
  // arguments, every call of a loop).
  StatusOr<std::vector<Tensor>> Run(const Prepared& prepared, std::vector<Tensor>&& feeds,
                                    const std::vector<std::string>& fetches, const ExecEnv& env);
  // The same, reading `feeds` without owning them (a loop's condition,
  // which must leave the loop variables to the body).
  StatusOr<std::vector<Tensor>> Run(const Prepared& prepared, const std::vector<Tensor>& feeds,
                                    const std::vector<std::string>& fetches, const ExecEnv& env);

  // The graph as run. Const nodes whose value is StrippedConstant keep only
  // dtype and shape in their "value" attr: the decoded tensor lives in the
  // runner (one copy of the weights, not two). GraphWithConstants() puts the
  // values back, for re-running graph passes or writing the graph out.
  const ir::Graph& graph() const { return graph_; }
  ir::Graph GraphWithConstants() const;
  // The liveness plan of a run with these feeds (their shapes), fetches and
  // targets (runtime/memory_plan.h).
  StatusOr<MemoryPlan> PlanMemory(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                  const std::vector<std::string>& targets);
  const std::string& context() const { return context_; }
  // Whether any node the runner may execute is stateful (for loop checks).
  bool HasStatefulNodes() const { return has_stateful_; }
  // The backend whose kernel node `i` was given ("onednn", ...), or ""
  // for the reference kernel. That kernel may hand some calls on to another
  // backend's; a NodeProfile records which computed them.
  const std::string& KernelBackend(int i) const { return kernel_backends_[i]; }
  // How placement spread the graph over the backends, and its copies.
  const backends::PlacementSummary& placement() const { return placement_; }

 private:
  GraphRunner(ir::Graph graph, std::string context) : graph_(std::move(graph)), context_(std::move(context)) {}
  // Run without the copy of fetched device tensors to the host. An owned
  // FeedList may be moved from.
  StatusOr<std::vector<Tensor>> RunPlanned(const Prepared& prepared, FeedList feeds,
                                           const std::vector<std::string>& fetches, const ExecEnv& env);
  // Copies fetched device tensors to the host.
  Status CopyFetchesToHost(std::vector<Tensor>& results, const std::vector<std::string>& fetches,
                           const ExecEnv& env) const;
  // Sets kernels_[i] (holding the registry's registration on entry) to the
  // kernel of node i's placed backend, preceded by the run-time dtype check
  // of `late_inputs` (those the kernel contract could not prove at load).
  Status MakeNodeKernel(int i, const std::vector<int>& late_inputs);
  StatusOr<std::shared_ptr<const ExecutionPlan>> GetPlan(const std::vector<std::string>& feed_names,
                                                         const std::vector<std::string>& fetches,
                                                         const std::vector<std::string>& targets);

  ir::Graph graph_;
  std::string context_;
  std::vector<const ops::OpRegistration*> kernels_;  // per node; null = no kernel
  // Registrations whose kernel replaces the registry's: a fast one, or the
  // reference kernel adapted to bf16 edges; kernels_ points into these.
  std::vector<std::unique_ptr<ops::OpRegistration>> fast_registrations_;
  std::vector<std::string> kernel_backends_;         // per node; "" = reference
  const backends::BackendRegistry* backends_ = nullptr;
  backends::PlacementSummary placement_;
  std::vector<Tensor> constants_;                    // decoded value of each Const node
  std::vector<bool> stripped_;                       // per node: value attr holds dtype and shape only
  bool has_stateful_ = false;
  // The sizes of each planned node's outputs in the latest run of a plan
  // (bytes; -1 = not seen), for memory plans where static shapes are unknown.
  struct ObservedSizes {
    std::vector<int> offset;  // planned id -> first output's index in `bytes`
    std::unique_ptr<std::atomic<int64_t>[]> bytes;
  };
  std::shared_ptr<ObservedSizes> ObservedFor(const ExecutionPlan* plan);
  std::shared_ptr<RunStatePool> StatePoolFor(const ExecutionPlan* plan);

  std::mutex plans_mu_;
  std::map<std::string, std::shared_ptr<const ExecutionPlan>> plans_;
  std::map<const ExecutionPlan*, std::shared_ptr<ObservedSizes>> observed_;
  std::map<const ExecutionPlan*, std::shared_ptr<RunStatePool>> state_pools_;
};

// Const values of at least this many bytes (float-like; not int32/int64,
// which shape inference reads, nor strings) are kept only as decoded tensors.
inline constexpr size_t kStrippedConstantBytes = 1024;
bool StrippedConstant(const Tensor& value);

// Whether the runtime itself executes this op by running library functions.
bool IsFunctionalOp(const std::string& op);

// Runs node `node_id`: its kernel, or the function runtime for If/While/Case
// and calls, with the run's step container current, timed into env.profile
// when there is one, and recorded as a trace slice when env.trace_run is
// set. Then checks every live output exists and has the schema's dtype.
Status RunKernel(const ir::Node& node, int node_id, const ops::OpRegistration& reg, ops::KernelContext& ctx,
                 const ExecEnv& env);

// The registration used for nodes whose op names a library function.
const ops::OpRegistration& FunctionCallRegistration();

}  // namespace tfhost::runtime
