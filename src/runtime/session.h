// Session: owns one graph and its state (variables, tables) and runs it.
//
// Run() evaluates only what the fetches and targets need, with fed tensors
// replacing node outputs. Execution plans are cached per (feeds, fetches,
// targets) combination. Independent nodes run concurrently on the inter-op
// pool; kernels may split work on the intra-op pool. Plans with TF1 while
// loops run on the frame executor (runtime/frame_executor.h); TF2 If, While,
// Case and calls run their library functions through the function runtime
// (runtime/function_runtime.h). Per-run objects (TensorArrays) live in a step
// container that dies with the run.
//
// Memory: tensors a run creates come from the session's BufferPool (see
// base/buffer_pool.h for why the pool is per session) and go back to it when
// released, so warm runs allocate no tensor buffers from the system.
// Constants and fed tensors never come from the pool and are never written:
// the runtime keeps a reference to each for the whole run, so an element-wise
// kernel's in-place reuse (KernelContext::TakeInput + RefCountIsOne) only ever
// applies to intermediate tensors.
//
// Thread-safety: Run() may be called from many threads at once; state shared
// between runs lives in the ResourceManager (each variable has its own lock).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend_registry.h"
#include "base/buffer_pool.h"
#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ir/graph.h"
#include "ops/output_limits.h"
#include "ops/op_registry.h"
#include "ops/resource_manager.h"
#include "runtime/function_runtime.h"
#include "runtime/graph_runner.h"
#include "runtime/run_limits.h"

namespace tfhost::runtime {

struct SessionOptions {
  // Threads for splitting one kernel's work; 0 = one per hardware thread,
  // 1 = no intra-op parallelism.
  int intra_op_threads = 0;
  // Threads for running independent nodes at once; 0 = one per hardware
  // thread, 1 = run nodes one after another on the caller's thread.
  int inter_op_threads = 1;
  // Used in error messages ("model 'nsfw' ...").
  std::string model_name;
  // Fast kernels (src/backends) where one applies, or reference kernels only.
  backends::KernelChoice kernels = backends::KernelChoice::kFast;
  // The backends to place nodes on (null: BackendRegistry::Global()); it
  // must outlive the session.
  const backends::BackendRegistry* backends = nullptr;
  // Floor of the bound on the free tensor buffers the session's BufferPool
  // keeps between runs (base/buffer_pool.h); 0 keeps none (every run allocates).
  int64_t buffer_pool_bytes = BufferPool::kDefaultMaxRetainedBytes;
  // Most bytes of tensor buffers the session's runs may hold at once (all
  // concurrent runs together); an allocation past it fails its node with
  // ResourceExhausted. 0 = no limit (base/buffer_pool.h).
  int64_t max_tensor_bytes_in_use = 0;
  // Limits on what a crafted model can demand (runtime/run_limits.h,
  // docs/cli.md "Limits"): while-loop iterations of one Run, all loops
  // together (0 = no limit; --max_loop_iterations); nesting of function
  // calls (--max_function_depth); bytes of one decoded image and of one
  // string value a kernel outputs (ops/output_limits.h;
  // --max_decoded_image_mb, --max_op_string_mb).
  int64_t max_loop_iterations = kDefaultMaxLoopIterations;
  int max_function_depth = kDefaultMaxFunctionDepth;
  int64_t max_decoded_image_bytes = ops::kDefaultMaxDecodedImageBytes;
  int64_t max_op_string_bytes = ops::kDefaultMaxOpStringBytes;
  // Applied to each function body (If/While/Case branches, calls) when it
  // is instantiated; null runs bodies as written.
  FunctionBodyOptimizer optimize_function_body;
};


class Session {
 public:
  // Takes the graph (types already inferred by ir::InferTypes). Checks that
  // every node reachable from `roots` (node names; empty = the whole graph) has
  // a kernel; the error names the op, the node and the model.
  static StatusOr<std::unique_ptr<Session>> Create(ir::Graph graph, const SessionOptions& options,
                                                   const std::vector<std::string>& roots = {});
  ~Session();

  // feeds: tensor name ("x:0") -> value; fetches: tensor names; targets: node
  // names run for their effects. Returns one tensor per fetch.
  StatusOr<std::vector<Tensor>> Run(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                    const std::vector<std::string>& targets = {});

  // The graph as run; large Const values are held decoded by the runner and
  // only their dtype and shape stay in the graph (GraphRunner::graph()).
  const ir::Graph& graph() const { return runner_->graph(); }
  // A copy of graph() with every Const value in place (for graph passes or
  // writing the graph out).
  ir::Graph GraphWithConstants() const { return runner_->GraphWithConstants(); }

  // The liveness plan of one run with these feeds (their shapes count, not
  // their values), fetches and targets: the peak bytes of tensors the run
  // allocates, i.e. the arena the buffer pool settles at once warm
  // (runtime/memory_plan.h).
  StatusOr<MemoryPlan> PlanMemory(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                  const std::vector<std::string>& targets = {});
  // Statistics of the session's buffer pool (system allocations, reuses,
  // bytes in use and their high-water mark, retained bytes).
  BufferPoolStats buffer_pool_stats() const { return buffer_pool_->stats(); }
  // Starts a new high-water mark (e.g. after warm-up).
  void ResetBufferPoolPeak() { buffer_pool_->ResetPeak(); }
  ops::ResourceManager* resources() { return &resources_; }
  const SessionOptions& options() const { return options_; }
  // The top-level graph's runner: GraphRunner::KernelBackend(i) says which
  // kernel backend (fast or reference) node i was given.
  const GraphRunner& runner() const { return *runner_; }
  // Runs started after this add their nodes' kernel time to `profile` (of
  // graph().num_nodes() nodes; null: stop). The caller keeps it alive until
  // those runs have returned.
  void set_profile(NodeProfile* profile) { profile_.store(profile); }

 private:
  explicit Session(const SessionOptions& options);

  SessionOptions options_;
  std::unique_ptr<GraphRunner> runner_;
  // Runs If/While/Case bodies and calls from the graph's function library.
  std::unique_ptr<FunctionRuntime> functions_;
  ops::ResourceManager resources_;
  // Tensor buffers of this session's runs: current on the caller's thread
  // during Run() and bound to the worker threads of the pools below.
  std::shared_ptr<BufferPool> buffer_pool_;
  std::unique_ptr<ThreadPool> intra_op_pool_;
  std::unique_ptr<ThreadPool> inter_op_pool_;
  std::atomic<NodeProfile*> profile_{nullptr};
};

}  // namespace tfhost::runtime
