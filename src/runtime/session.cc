#include "runtime/session.h"

#include "ir/tensor_proto.h"
#include "runtime/function_runtime.h"

namespace tfhost::runtime {

namespace {

std::string ModelContext(const SessionOptions& options) {
  return options.model_name.empty() ? std::string("model") : "model '" + options.model_name + "'";
}

int ResolveThreads(int requested) { return requested <= 0 ? HardwareConcurrency() : requested; }

}  // namespace

Session::Session(const SessionOptions& options) : options_(options) {}

Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Create(ir::Graph graph, const SessionOptions& options,
                                                   const std::vector<std::string>& roots) {
  std::unique_ptr<Session> s(new Session(options));
  TFHOST_ASSIGN_OR_RETURN(s->runner_, GraphRunner::Create(std::move(graph), ModelContext(options), roots, options.kernels));
  s->functions_ =
      std::make_unique<FunctionRuntime>(&s->runner_->graph().library(), ModelContext(options), options.kernels);
  int intra = ResolveThreads(options.intra_op_threads);
  int inter = ResolveThreads(options.inter_op_threads);
  // The caller's thread takes part in both, so a pool of N-1 workers gives N.
  s->intra_op_pool_ = std::make_unique<ThreadPool>(intra - 1);
  if (inter > 1) s->inter_op_pool_ = std::make_unique<ThreadPool>(inter);
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
  return runner_->Run(feeds, fetches, targets, env);
}

}  // namespace tfhost::runtime
