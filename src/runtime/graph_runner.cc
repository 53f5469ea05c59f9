#include "runtime/graph_runner.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <set>

#include "ir/tensor_proto.h"
#include "ops/kernel_contract.h"
#include "runtime/bf16_edges.h"
#include "runtime/execution_plan.h"
#include "runtime/function_runtime.h"
#include "runtime/memory_plan.h"
#include "runtime/node_trace.h"

namespace tfhost::runtime {

bool IsFunctionalOp(const std::string& op) {
  // Asked for every node run: reject by length first, without comparing.
  const size_t n = op.size();
  if (n != 2 && n != 4 && n != 5 && n != 11 && n != 13 && n != 14 && n != 15 && n != 23) return false;
  return op == "If" || op == "StatelessIf" || op == "While" || op == "StatelessWhile" || op == "Case" ||
         op == "StatelessCase" || op == "PartitionedCall" || op == "StatefulPartitionedCall";
}

const ops::OpRegistration& FunctionCallRegistration() {
  static const ops::OpRegistration* reg = [] {
    auto* r = new ops::OpRegistration();
    r->def.set_name("<function call>");
    r->def.set_is_stateful(true);
    r->kernel = [](ops::KernelContext& ctx) {
      return Internal(ir::NodeContext(ctx.node()) + ": function calls are run by the runtime");
    };
    return r;
  }();
  return *reg;
}

Status RunKernel(const ir::Node& node, int node_id, const ops::OpRegistration& reg, ops::KernelContext& ctx,
                 const ExecEnv& env) {
  ops::ScopedStepContainer step(env.step);
  using Clock = std::chrono::steady_clock;
  // Neither profiled nor traced (the usual case): one branch, no clock read.
  const bool timed = env.profile != nullptr || env.trace_run != 0;
  const Clock::time_point start = timed ? Clock::now() : Clock::time_point();
  Status st;
  if (&reg == &FunctionCallRegistration() || IsFunctionalOp(node.op)) {
    if (env.functions == nullptr) {
      return Unimplemented(ir::NodeContext(node) + ": function calls need a session's function runtime");
    }
    st = env.functions->RunCallNode(ctx, env);
  } else {
    st = ops::InvokeKernel(reg.kernel, ctx);
  }
  if (timed) {
    const Clock::time_point end = Clock::now();
    if (env.profile != nullptr) {
      env.profile->Add(node_id, std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count(),
                       ctx.backend_id());
    }
    if (env.trace_run != 0) RecordNodeSlice(node, ctx, env.trace_run, start, end);
  }
  if (!st.ok()) return st;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.output_dead()[i]) continue;
    const Tensor& t = ctx.outputs()[i];
    if (!t.valid()) return Internal(ir::NodeContext(node) + ": kernel produced no output " + std::to_string(i));
    if (i < static_cast<int>(node.output_dtypes.size()) && t.dtype() != node.output_dtypes[i] &&
        node.output_dtypes[i] != DType::kInvalid) {
      return Internal(ir::NodeContext(node) + ": kernel produced " + DTypeName(t.dtype()) + " for output " +
                      std::to_string(i) + ", schema says " + DTypeName(node.output_dtypes[i]));
    }
  }
  return OkStatus();
}

namespace {

// The kernel contract's static half for node i (ops/kernel_contract.h),
// checked once here rather than on every run: a node's wiring and attrs do
// not change between runs. Input dtypes are the producers' inferred
// output dtypes, which hold at run time because RunKernel holds every kernel
// to its node's output dtypes and the callers of Run hold feeds to them.
// Returns the inputs left to a run-time check (producers of unknown dtype).
StatusOr<std::vector<int>> NodeContract(const ir::Graph& g, int i, const tensorflow::OpDef& def) {
  const ir::Node& n = g.node(i);
  std::vector<DType> dtypes;
  dtypes.reserve(n.inputs.size());
  for (const ir::TensorRef& in : n.inputs) {
    const ir::Node& src = g.node(in.node);
    const bool known = in.index >= 0 && in.index < static_cast<int>(src.output_dtypes.size());
    dtypes.push_back(known ? src.output_dtypes[in.index] : DType::kInvalid);
  }
  return ops::CheckNodeContract(def, n, dtypes);
}

}  // namespace

bool StrippedConstant(const Tensor& value) {
  const DType d = value.dtype();
  return value.valid() && !IsStringLike(d) && d != DType::kVariant && d != DType::kResource &&
         d != DType::kInt32 && d != DType::kInt64 && value.ByteSize() >= kStrippedConstantBytes;
}

StatusOr<std::unique_ptr<GraphRunner>> GraphRunner::Create(ir::Graph graph, std::string context,
                                                           const std::vector<std::string>& roots,
                                                           backends::KernelChoice kernels,
                                                           const backends::BackendRegistry* backends) {
  std::unique_ptr<GraphRunner> r(new GraphRunner(std::move(graph), std::move(context)));
  r->backends_ = backends != nullptr ? backends : &backends::BackendRegistry::Global();
  const auto& registry = ops::OpRegistry::Global();
  const ir::Graph& g = r->graph_;
  std::vector<bool> reachable(g.num_nodes(), roots.empty());
  if (!roots.empty()) {
    std::vector<int> stack;
    for (const auto& root : roots) {
      auto parsed = ir::ParseTensorName(root);
      if (!parsed.ok()) return parsed.status();
      int id = g.FindNode(parsed->node);
      if (id < 0) return NotFound(r->context_ + ": node '" + parsed->node + "' does not exist");
      stack.push_back(id);
    }
    while (!stack.empty()) {
      int id = stack.back();
      stack.pop_back();
      if (reachable[id]) continue;
      reachable[id] = true;
      for (const auto& in : g.node(id).inputs) stack.push_back(in.node);
      for (int c : g.node(id).control_inputs) stack.push_back(c);
    }
  }
  // The kernel contract before placement, so that no backend is asked about
  // a node its op's schema rejects; the copies placement adds are checked
  // below.
  const int num_checked = g.num_nodes();
  std::vector<std::vector<int>> late_inputs(g.num_nodes());
  for (int i = 0; i < num_checked; ++i) {
    const ops::OpRegistration* reg = reachable[i] ? registry.Find(g.node(i).op) : nullptr;
    if (reg == nullptr) continue;
    auto late = NodeContract(g, i, reg->def);
    if (!late.ok()) return late.status().WithContext(r->context_);
    late_inputs[i] = *std::move(late);
  }
  auto placement = backends::PlaceGraph(&r->graph_, *r->backends_, kernels, reachable);
  if (!placement.ok()) return placement.status().WithContext(r->context_);
  r->placement_ = std::move(*placement);
  reachable.resize(g.num_nodes(), true);  // the copies placement added
  late_inputs.resize(g.num_nodes());
  r->kernels_.resize(g.num_nodes());
  r->kernel_backends_.resize(g.num_nodes());
  for (int i = 0; i < g.num_nodes(); ++i) {
    const ir::Node& n = g.node(i);
    r->kernels_[i] = registry.Find(n.op);
    if (r->kernels_[i] == nullptr && g.FindFunction(n.op) != nullptr) r->kernels_[i] = &FunctionCallRegistration();
    if (r->kernels_[i] == nullptr && reachable[i]) {
      return Unimplemented(r->context_ + ": node '" + n.name + "' uses op '" + n.op +
                           "', which tfhost does not support");
    }
    if (r->kernels_[i] != nullptr && reachable[i] && r->kernels_[i]->def.is_stateful()) {
      r->has_stateful_ = true;
    }
    if (reachable[i] && r->kernels_[i] != nullptr && r->kernels_[i] != &FunctionCallRegistration()) {
      if (i >= num_checked) {
        auto late = NodeContract(g, i, r->kernels_[i]->def);
        if (!late.ok()) return late.status().WithContext(r->context_);
        late_inputs[i] = *std::move(late);
      }
      TFHOST_RETURN_IF_ERROR(r->MakeNodeKernel(i, late_inputs[i]));
    }
  }
  // Bodies of If/While/Case and calls run later as sub-executions; check now
  // that every op they use has a kernel, so an unsupported op fails the load
  // (naming the function) rather than the first request that reaches it.
  std::vector<std::string> pending_functions;
  auto add_funcs = [&](const tensorflow::AttrValue& v) {
    if (v.value_case() == tensorflow::AttrValue::kFunc) pending_functions.push_back(v.func().name());
    if (v.value_case() == tensorflow::AttrValue::kList) {
      for (const auto& f : v.list().func()) pending_functions.push_back(f.name());
    }
  };
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (!reachable[i]) continue;
    const ir::Node& n = g.node(i);
    if (r->kernels_[i] == &FunctionCallRegistration()) pending_functions.push_back(n.op);
    if (IsFunctionalOp(n.op)) {
      for (const auto& [key, value] : n.attrs) add_funcs(value);
    }
  }
  std::set<std::string> checked;
  while (!pending_functions.empty()) {
    std::string name = pending_functions.back();
    pending_functions.pop_back();
    if (!checked.insert(name).second) continue;
    const tensorflow::FunctionDef* fdef = g.FindFunction(name);
    if (fdef == nullptr) {
      return NotFound(r->context_ + ": function '" + name + "' is not in the model's function library");
    }
    for (const auto& nd : fdef->node_def()) {
      for (const auto& [key, value] : nd.attr()) add_funcs(value);
      if (g.FindFunction(nd.op()) != nullptr) {
        pending_functions.push_back(nd.op());
      } else if (registry.Find(nd.op()) == nullptr) {
        return Unimplemented(r->context_ + ": node '" + nd.name() + "' of function '" + name + "' uses op '" +
                             nd.op() + "', which tfhost does not support");
      }
    }
  }
  // Constants are decoded once here, so a corrupt weight fails the load and
  // runs only share the buffers. The serialized copy of each large value is
  // dropped from the graph as soon as it is decoded (node by node, so the
  // load never holds two copies of all weights): see StrippedConstant.
  r->constants_.resize(g.num_nodes());
  r->stripped_.assign(g.num_nodes(), false);
  // Consumers were checked against the dtype attr (the Const's output type),
  // so a value of another dtype would reach kernels that read it as that
  // type; TensorFlow refuses such a Const too.
  auto check_dtype = [&](const ir::Node& n, const Tensor& value) -> Status {
    auto declared = ir::GetAttr<DType>(n, "dtype");
    if (declared.ok() && value.dtype() != *declared) {
      return InvalidArgument(r->context_ + ": " + ir::NodeContext(n) + ": its value is " +
                             DTypeShortName(value.dtype()) + " but its dtype attr is " + DTypeShortName(*declared));
    }
    return OkStatus();
  };
  for (int i = 0; i < g.num_nodes(); ++i) {
    ir::Node& n = r->graph_.mutable_node(i);
    if (n.op != "Const") continue;
    if (n.constant.valid()) {  // already a tensor: its "value" attr is a stub
      TFHOST_RETURN_IF_ERROR(check_dtype(n, n.constant));
      r->constants_[i] = std::move(n.constant);
      n.constant = Tensor();
      // Small and integer values stay readable in the graph, as below.
      r->stripped_[i] = StrippedConstant(r->constants_[i]);
      if (!r->stripped_[i]) ir::TensorToProto(r->constants_[i], n.attrs["value"].mutable_tensor());
      continue;
    }
    auto value = ir::GetAttr<Tensor>(n, "value");
    if (!value.ok()) return value.status().WithContext(r->context_);
    TFHOST_RETURN_IF_ERROR(check_dtype(n, *value));
    r->constants_[i] = std::move(*value);
    if (StrippedConstant(r->constants_[i])) {
      auto it = n.attrs.find("value");
      tensorflow::TensorProto stub;
      stub.set_dtype(it->second.tensor().dtype());
      *stub.mutable_tensor_shape() = it->second.tensor().tensor_shape();
      it->second.mutable_tensor()->Swap(&stub);
      r->stripped_[i] = true;
    }
  }
  return r;
}

Status GraphRunner::MakeNodeKernel(int i, const std::vector<int>& late_inputs) {
  const ir::Node& n = graph_.node(i);
  backends::NodeKernel made;
  if (n.op == backends::kCopyOp) {
    auto copy = backends::MakeCopyKernel(*backends_, n);
    if (!copy.ok()) return copy.status().WithContext(context_);
    made = *std::move(copy);
  } else {
    // The reference kernel, widened/narrowed at bf16 edges, is also what a
    // host backend's kernel falls back to.
    ops::KernelFn reference = AdaptToBf16Edges(n, kernels_[i]->kernel);
    const backends::Backend* placed = backends_->Find(n.backend);
    if (placed == nullptr) {
      return Unimplemented(context_ + ": node '" + n.name + "' (" + n.op + ") was placed on no backend");
    }
    made = backends_->MakeKernel(n, *placed, reference);
    if (!made.kernel) {
      if (!placed->memory_space().host_accessible()) {
        return Internal(context_ + ": backend '" + placed->name() + "' supports node '" + n.name + "' (" + n.op +
                        ") but made no kernel for it");
      }
      made = backends::NodeKernel{"", std::move(reference)};
    } else if (!made.backend.empty()) {
      made.kernel = AdaptToBf16Edges(n, std::move(made.kernel), /*widen_input=*/false);
    }
  }
  // The registry's own kernel, used as it is.
  if (made.backend.empty() && !HasBf16Edge(n) && late_inputs.empty()) return OkStatus();
  if (!late_inputs.empty()) {
    auto expected = ops::ExpectedInputDTypes(kernels_[i]->def, n);
    if (!expected.ok()) return expected.status().WithContext(context_);
    made.kernel = ops::WithLateInputChecks(std::move(made.kernel), *std::move(expected), late_inputs);
  }
  auto reg = std::make_unique<ops::OpRegistration>(*kernels_[i]);
  reg->kernel = std::move(made.kernel);
  kernels_[i] = reg.get();
  kernel_backends_[i] = made.backend;
  fast_registrations_.push_back(std::move(reg));
  return OkStatus();
}

StatusOr<std::shared_ptr<const ExecutionPlan>> GraphRunner::GetPlan(const std::vector<std::string>& feed_names,
                                                                    const std::vector<std::string>& fetches,
                                                                    const std::vector<std::string>& targets) {
  std::string key;
  for (const auto& f : feed_names) key += f + '\x01';
  key += '\x02';
  for (const auto& f : fetches) key += f + '\x01';
  key += '\x02';
  for (const auto& t : targets) key += t + '\x01';
  {
    std::lock_guard<std::mutex> lock(plans_mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }
  auto plan = ExecutionPlan::Build(graph_, feed_names, fetches, targets);
  if (!plan.ok()) return plan.status().WithContext(context_);
  for (const auto& p : plan->nodes) {
    if (kernels_[p.node] == nullptr) {
      const ir::Node& n = graph_.node(p.node);
      return Unimplemented(context_ + ": node '" + n.name + "' uses op '" + n.op +
                           "', which tfhost does not support");
    }
  }
  auto shared = std::make_shared<const ExecutionPlan>(std::move(*plan));
  auto observed = std::make_shared<ObservedSizes>();
  int total = 0;
  for (const auto& p : shared->nodes) {
    observed->offset.push_back(total);
    total += static_cast<int>(std::max(graph_.node(p.node).output_dtypes.size(), p.output_use_counts.size()));
  }
  observed->bytes.reset(new std::atomic<int64_t>[std::max(total, 1)]);
  for (int i = 0; i < total; ++i) observed->bytes[i].store(-1);
  std::lock_guard<std::mutex> lock(plans_mu_);
  auto [it, inserted] = plans_.emplace(key, shared);
  if (inserted) observed_.emplace(shared.get(), std::move(observed));
  return it->second;
}

std::shared_ptr<GraphRunner::ObservedSizes> GraphRunner::ObservedFor(const ExecutionPlan* plan) {
  std::lock_guard<std::mutex> lock(plans_mu_);
  auto it = observed_.find(plan);
  return it == observed_.end() ? nullptr : it->second;
}


namespace {

std::vector<std::string> FeedNames(const NamedTensors& feeds) {
  std::vector<std::string> names;
  names.reserve(feeds.size());
  for (const auto& f : feeds) names.push_back(f.first);
  return names;
}

}  // namespace

std::shared_ptr<RunStatePool> GraphRunner::StatePoolFor(const ExecutionPlan* plan) {
  std::lock_guard<std::mutex> lock(plans_mu_);
  std::shared_ptr<RunStatePool>& pool = state_pools_[plan];
  if (pool == nullptr) pool = MakeRunStatePool();
  return pool;
}

StatusOr<GraphRunner::Prepared> GraphRunner::Prepare(const std::vector<std::string>& feed_names,
                                                     const std::vector<std::string>& fetches,
                                                     const std::vector<std::string>& targets) {
  Prepared prepared;
  TFHOST_ASSIGN_OR_RETURN(prepared.plan_, GetPlan(feed_names, fetches, targets));
  prepared.observed_ = ObservedFor(prepared.plan_.get());
  prepared.states_ = StatePoolFor(prepared.plan_.get());
  return prepared;
}

StatusOr<std::vector<Tensor>> GraphRunner::Run(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                               const std::vector<std::string>& targets, const ExecEnv& env) {
  TFHOST_ASSIGN_OR_RETURN(Prepared prepared, Prepare(FeedNames(feeds), fetches, targets));
  return Run(prepared, feeds, fetches, env);
}

StatusOr<std::vector<Tensor>> GraphRunner::Run(const Prepared& prepared, const NamedTensors& feeds,
                                               const std::vector<std::string>& fetches, const ExecEnv& env) {
  if (prepared.plan_ == nullptr) return Internal(context_ + ": run of a plan that was never prepared");
  TFHOST_ASSIGN_OR_RETURN(std::vector<Tensor> results, RunPlanned(prepared, FeedList(feeds), fetches, env));
  TFHOST_RETURN_IF_ERROR(CopyFetchesToHost(results, fetches, env));
  return results;
}

StatusOr<std::vector<Tensor>> GraphRunner::Run(const Prepared& prepared, NamedTensors&& feeds,
                                               const std::vector<std::string>& fetches, const ExecEnv& env) {
  if (prepared.plan_ == nullptr) return Internal(context_ + ": run of a plan that was never prepared");
  TFHOST_ASSIGN_OR_RETURN(std::vector<Tensor> results, RunPlanned(prepared, FeedList(&feeds), fetches, env));
  TFHOST_RETURN_IF_ERROR(CopyFetchesToHost(results, fetches, env));
  return results;
}
StatusOr<std::vector<Tensor>> GraphRunner::Run(const Prepared& prepared, const std::vector<Tensor>& feeds,
                                               const std::vector<std::string>& fetches, const ExecEnv& env) {
  if (prepared.plan_ == nullptr) return Internal(context_ + ": run of a plan that was never prepared");
  TFHOST_ASSIGN_OR_RETURN(std::vector<Tensor> results, RunPlanned(prepared, FeedList(feeds), fetches, env));
  TFHOST_RETURN_IF_ERROR(CopyFetchesToHost(results, fetches, env));
  return results;
}
StatusOr<std::vector<Tensor>> GraphRunner::Run(const Prepared& prepared, std::vector<Tensor>&& feeds,
                                               const std::vector<std::string>& fetches, const ExecEnv& env) {
  if (prepared.plan_ == nullptr) return Internal(context_ + ": run of a plan that was never prepared");
  TFHOST_ASSIGN_OR_RETURN(std::vector<Tensor> results, RunPlanned(prepared, FeedList(&feeds), fetches, env));
  TFHOST_RETURN_IF_ERROR(CopyFetchesToHost(results, fetches, env));
  return results;
}

Status GraphRunner::CopyFetchesToHost(std::vector<Tensor>& results, const std::vector<std::string>& fetches,
                                      const ExecEnv& env) const {
  // Callers get host tensors: fetched device tensors are copied out here.
  for (size_t i = 0; i < results.size(); ++i) {
    const MemorySpace space = results[i].memory_space();
    if (!results[i].valid() || space.host_accessible()) continue;
    const backends::Backend* owner = nullptr;
    for (const backends::Backend* b : backends_->backends()) {
      if (b->memory_space() == space) owner = b;
    }
    if (owner == nullptr) return Internal(context_ + ": fetch '" + fetches[i] + "' is in " + space.ToString() +
                                          ", which no backend of this runner copies from");
    std::optional<trace::ScopedSlice> slice;
    if (env.trace_run != 0) slice.emplace("copy", "fetch " + fetches[i]);
    auto host = owner->CopyOut(results[i]);
    if (slice && slice->active()) {
      slice->args().Add("from", space.ToString()).Add("to", "host").Add("bytes", results[i].ByteSize());
      slice->args().Add("run", env.trace_run);
    }
    if (!host.ok()) return host.status().WithContext(context_ + ": fetch '" + fetches[i] + "'");
    results[i] = *std::move(host);
  }
  return OkStatus();
}

StatusOr<MemoryPlan> GraphRunner::PlanMemory(const NamedTensors& feeds, const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets) {
  TFHOST_ASSIGN_OR_RETURN(std::shared_ptr<const ExecutionPlan> plan, GetPlan(FeedNames(feeds), fetches, targets));
  std::vector<std::vector<int64_t>> observed_bytes(plan->nodes.size());
  if (std::shared_ptr<ObservedSizes> observed = ObservedFor(plan.get())) {
    for (size_t id = 0; id < plan->nodes.size(); ++id) {
      const int begin = observed->offset[id];
      const int end = id + 1 < plan->nodes.size() ? observed->offset[id + 1] : begin + static_cast<int>(
          std::max(graph_.node(plan->nodes[id].node).output_dtypes.size(), plan->nodes[id].output_use_counts.size()));
      for (int k = begin; k < end; ++k) observed_bytes[id].push_back(observed->bytes[k].load());
    }
  }
  if (feeds.empty()) return runtime::PlanMemory(*plan, graph_, constants_, &observed_bytes);
  auto shaped = GraphWithFedShapes(graph_, feeds);
  if (!shaped.ok()) return shaped.status().WithContext(context_ + ": planning memory for the fed shapes");
  return runtime::PlanMemory(*plan, *shaped, constants_, &observed_bytes);
}

ir::Graph GraphRunner::GraphWithConstants() const {
  ir::Graph copy = graph_;
  for (int i = 0; i < copy.num_nodes(); ++i) {
    if (!stripped_[i]) continue;
    ir::TensorToProto(constants_[i], copy.mutable_node(i).attrs["value"].mutable_tensor());
  }
  return copy;
}

}  // namespace tfhost::runtime
