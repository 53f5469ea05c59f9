#include "runtime/session.h"

#include <condition_variable>
#include <mutex>

#include "base/trace/request_span.h"
#include "base/trace/trace.h"
#include "ir/tensor_proto.h"
#include "runtime/function_runtime.h"

namespace tfhost::runtime {

namespace {

std::string ModelContext(const SessionOptions& options) {
  return options.model_name.empty() ? std::string("model") : "model '" + options.model_name + "'";
}

int ResolveThreads(int requested) { return requested <= 0 ? HardwareConcurrency() : requested; }

// Makes `pool` current on every worker of `threads` for the workers' lives:
// one task per worker, each waiting until all have started, so no worker can
// take two of them.
// Also names each worker's trace track "<name> <i>".
void BindPoolToWorkers(ThreadPool& threads, const std::shared_ptr<BufferPool>& pool, const std::string& name) {
  const int n = threads.num_threads();
  if (n == 0) return;
  // On the heap, shared with the tasks: the caller returns as soon as the
  // last worker has arrived, while the others may still be leaving wait().
  struct Arrivals {
    std::mutex mu;
    std::condition_variable cv;
    int arrived = 0;
  };
  auto arrivals = std::make_shared<Arrivals>();
  for (int i = 0; i < n; ++i) {
    threads.Schedule([arrivals, pool, n, name] {
      BufferPool::BindToThisThread(pool);
      std::unique_lock<std::mutex> lock(arrivals->mu);
      trace::SetThreadName(name + " " + std::to_string(arrivals->arrived));
      if (++arrivals->arrived == n) arrivals->cv.notify_all();
      arrivals->cv.wait(lock, [&] { return arrivals->arrived >= n; });
    });
  }
  std::unique_lock<std::mutex> lock(arrivals->mu);
  arrivals->cv.wait(lock, [&] { return arrivals->arrived >= n; });
}

}  // namespace

Session::Session(const SessionOptions& options) : options_(options) {}

Session::~Session() {
  // Workers first (they hold the pool), then the runner (its constants never
  // came from the pool); blocks still held by fetched tensors go back to the
  // system when those tensors die.
  inter_op_pool_.reset();
  intra_op_pool_.reset();
  functions_.reset();
  runner_.reset();
  if (buffer_pool_) buffer_pool_->Close();
}

StatusOr<std::unique_ptr<Session>> Session::Create(ir::Graph graph, const SessionOptions& options,
                                                   const std::vector<std::string>& roots) {
  std::unique_ptr<Session> s(new Session(options));
  TFHOST_ASSIGN_OR_RETURN(s->runner_, GraphRunner::Create(std::move(graph), ModelContext(options), roots, options.kernels,
                                                              options.backends));
  s->functions_ =
      std::make_unique<FunctionRuntime>(&s->runner_->graph().library(), ModelContext(options), options.kernels,
                                        options.backends, options.max_function_depth,
                                        options.optimize_function_body);
  TFHOST_RETURN_IF_ERROR(ops::SetOutputLimits(s->resources_, {options.max_decoded_image_bytes, options.max_op_string_bytes}));
  int intra = ResolveThreads(options.intra_op_threads);
  int inter = ResolveThreads(options.inter_op_threads);
  // The caller's thread takes part in both, so a pool of N-1 workers gives N.
  s->buffer_pool_ = BufferPool::Create(options.buffer_pool_bytes, options.max_tensor_bytes_in_use);
  s->intra_op_pool_ = std::make_unique<ThreadPool>(intra - 1);
  const std::string model = options.model_name.empty() ? std::string() : options.model_name + " ";
  BindPoolToWorkers(*s->intra_op_pool_, s->buffer_pool_, model + "intra-op");
  if (inter > 1) {
    s->inter_op_pool_ = std::make_unique<ThreadPool>(inter);
    BindPoolToWorkers(*s->inter_op_pool_, s->buffer_pool_, model + "inter-op");
  }
  return s;
}

StatusOr<std::vector<Tensor>> Session::Run(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                           const std::vector<std::string>& targets) {
  const ir::Graph& graph = runner_->graph();
  for (const auto& [name, value] : feeds) {
    if (!value.valid()) return InvalidArgument("feed '" + name + "' is an empty tensor");
    auto ref = graph.ResolveTensor(name);
    if (!ref.ok()) return ref.status().WithContext(ModelContext(options_) + ": feed '" + name + "'");
    const ir::Node& n = graph.node(ref->node);
    if (ref->index < static_cast<int>(n.output_dtypes.size()) &&
        n.output_dtypes[ref->index] != value.dtype() && n.output_dtypes[ref->index] != DType::kInvalid) {
      return InvalidArgument("feed '" + name + "' has dtype " + DTypeShortName(value.dtype()) +
                             " but the graph expects " + DTypeShortName(n.output_dtypes[ref->index]));
    }
  }
  // TensorArrays and other per-run objects die with this container.
  ops::StepContainer step;
  ExecEnv env;
  env.resources = &resources_;
  env.intra_op = intra_op_pool_->num_threads() > 0 ? intra_op_pool_.get() : nullptr;
  env.inter_op = inter_op_pool_.get();
  env.functions = functions_.get();
  env.step = &step;
  env.profile = profile_.load();
  LoopBudget loops(options_.max_loop_iterations);
  env.loops = &loops;
  BufferPool::ScopedCurrent pool(buffer_pool_.get());
  if (!trace::Enabled()) return runner_->Run(feeds, fetches, targets, env);
  // Traced: one slice for the run, parent of its node slices, child of the
  // request or batch current on this thread.
  env.trace_run = trace::NewSpanId();
  trace::ScopedSlice slice("session", options_.model_name.empty() ? "run" : "run " + options_.model_name);
  slice.args().Add("id", env.trace_run).Add("model", options_.model_name);
  if (const trace::Context parent = trace::CurrentContext(); parent.span != 0) slice.args().Add("parent", parent.span);
  auto result = runner_->Run(feeds, fetches, targets, env);
  if (!result.ok()) slice.args().Add("error", result.status().message());
  return result;
}

StatusOr<MemoryPlan> Session::PlanMemory(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                         const std::vector<std::string>& targets) {
  return runner_->PlanMemory(feeds, fetches, targets);
}

}  // namespace tfhost::runtime
