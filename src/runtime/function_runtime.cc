#include "runtime/function_runtime.h"

#include "ir/attrs.h"
#include "ir/function_inliner.h"

namespace tfhost::runtime {

struct FunctionRuntime::Instance {
  std::string name;
  std::unique_ptr<GraphRunner> runner;
  std::vector<DType> arg_types;
  std::vector<DType> ret_types;
  std::vector<std::string> feeds;    // "_arg_k:0"
  std::vector<std::string> fetches;  // "_ret:k"
  std::vector<std::string> targets;  // "_ret" when there is nothing to fetch
  GraphRunner::Prepared prepared;    // the body's run, found once
};

namespace {

// TensorFlow's truth value of an If/While condition: a scalar bool as is; a
// numeric scalar is true when nonzero, a string scalar when non-empty; a
// non-scalar when it has elements. Errors name `node` and `what` (a While
// reads one every iteration: the text is built only for an error).
StatusOr<bool> ToBool(const Tensor& t, const ir::Node& node, const char* what) {
  auto where = [&] { return ir::NodeContext(node) + what; };
  if (!t.valid()) return InvalidArgument(where() + ": the condition is missing");
  if (t.rank() != 0) return t.NumElements() > 0;
  switch (t.dtype()) {
    case DType::kBool:
      return t.data<bool>()[0];
    case DType::kString:
      return !t.strings()[0].empty();
    case DType::kResource:
    case DType::kVariant:
      return InvalidArgument(where() + ": a " + DTypeShortName(t.dtype()) + " cannot be a condition");
    default: {
      auto v = t.ToDoubleVector();
      return !v.empty() && v[0] != 0.0;
    }
  }
}

// The function named by a func attr, with its attrs.
StatusOr<std::pair<std::string, ir::AttrMap>> FuncAttr(const ir::Node& node, const std::string& key) {
  const tensorflow::AttrValue* v = node.FindAttr(key);
  if (v == nullptr || v->value_case() != tensorflow::AttrValue::kFunc) {
    return InvalidArgument(ir::NodeContext(node) + ": attr '" + key + "' must name a function");
  }
  return std::make_pair(v->func().name(), ir::AttrMap(v->func().attr().begin(), v->func().attr().end()));
}

}  // namespace

FunctionRuntime::FunctionRuntime(const tensorflow::FunctionDefLibrary* library, std::string context,
                                 backends::KernelChoice kernels, const backends::BackendRegistry* backends,
                                 int max_call_depth, FunctionBodyOptimizer optimizer)
    : library_(library),
      context_(std::move(context)),
      kernels_(kernels),
      backends_(backends),
      max_call_depth_(max_call_depth),
      optimizer_(std::move(optimizer)) {}

FunctionRuntime::~FunctionRuntime() = default;

StatusOr<FunctionRuntime::Instance*> FunctionRuntime::Instantiate(const std::string& name,
                                                                  const ir::AttrMap& attrs) {
  std::string key = name;
  for (const auto& [k, v] : attrs) key += '\x01' + k + '\x02' + v.SerializeAsString();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = instances_.find(key);
  if (it != instances_.end()) return it->second.get();
  ir::InlineOptions inline_options;
  inline_options.max_depth = max_call_depth_;
  auto fg = ir::InstantiateFunction(*library_, name, attrs, ops::OpRegistry::Global().Lookup(), inline_options);
  if (!fg.ok()) return fg.status().WithContext(context_);
  auto instance = std::make_unique<Instance>();
  instance->name = name;
  instance->arg_types = fg->arg_types;
  instance->ret_types = fg->ret_types;
  for (size_t k = 0; k < fg->arg_types.size(); ++k) instance->feeds.push_back("_arg_" + std::to_string(k) + ":0");
  for (size_t k = 0; k < fg->ret_types.size(); ++k) instance->fetches.push_back("_ret:" + std::to_string(k));
  if (instance->fetches.empty()) instance->targets.push_back("_ret");
  const std::string where = context_ + ", function '" + name + "'";
  if (optimizer_ != nullptr) {
    std::vector<std::string> roots = {"_ret"};
    for (size_t k = 0; k < fg->arg_types.size(); ++k) roots.push_back("_arg_" + std::to_string(k));
    Status st = optimizer_(fg->graph, roots);
    if (!st.ok()) return st.WithContext(where);
  }
  auto runner = GraphRunner::Create(std::move(fg->graph), where, {"_ret"}, kernels_, backends_);
  if (!runner.ok()) return runner.status();
  instance->runner = std::move(*runner);
  auto prepared = instance->runner->Prepare(instance->feeds, instance->fetches, instance->targets);
  if (!prepared.ok()) return prepared.status();
  instance->prepared = std::move(*prepared);
  Instance* raw = instance.get();
  instances_.emplace(key, std::move(instance));
  return raw;
}

Status FunctionRuntime::CheckCall(Instance* instance, const std::vector<Tensor>& args, const ExecEnv& env,
                                  ExecEnv* sub) const {
  // Built only for an error: this runs for every iteration of a loop.
  auto where = [&] { return context_ + ", function '" + instance->name + "'"; };
  if (args.size() != instance->arg_types.size()) {
    return InvalidArgument(where() + " takes " + std::to_string(instance->arg_types.size()) + " inputs, got " +
                           std::to_string(args.size()));
  }
  if (env.call_depth >= max_call_depth_) return CallDepthExceeded(where(), max_call_depth_);
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k].valid()) return InvalidArgument(where() + ": input " + std::to_string(k) + " is missing");
    if (args[k].dtype() != instance->arg_types[k]) {
      return InvalidArgument(where() + ": input " + std::to_string(k) + " must be " +
                             DTypeShortName(instance->arg_types[k]) + ", got " + DTypeShortName(args[k].dtype()));
    }
  }
  *sub = env;
  sub->inter_op = nullptr;  // a body must not wait on the pool that runs its caller
  sub->call_depth = env.call_depth + 1;
  sub->profile = nullptr;  // the body's nodes are not the top-level graph's: its time counts in the caller
  sub->trace_run = 0;      // likewise its trace slices: the calling node's slice covers the body
  return OkStatus();
}

StatusOr<std::vector<Tensor>> FunctionRuntime::CallInstance(Instance* instance, std::vector<Tensor>&& args,
                                                            const ExecEnv& env) {
  ExecEnv sub;
  TFHOST_RETURN_IF_ERROR(CheckCall(instance, args, env, &sub));
  // The arguments are the feeds, in the order the instance was prepared with.
  return instance->runner->Run(instance->prepared, std::move(args), instance->fetches, sub);
}

StatusOr<std::vector<Tensor>> FunctionRuntime::CallInstanceReading(Instance* instance,
                                                                   const std::vector<Tensor>& args,
                                                                   const ExecEnv& env) {
  ExecEnv sub;
  TFHOST_RETURN_IF_ERROR(CheckCall(instance, args, env, &sub));
  return instance->runner->Run(instance->prepared, args, instance->fetches, sub);
}

StatusOr<std::vector<Tensor>> FunctionRuntime::Call(const std::string& name, const ir::AttrMap& attrs,
                                                    std::vector<Tensor> args, const ExecEnv& env) {
  TFHOST_ASSIGN_OR_RETURN(Instance * instance, Instantiate(name, attrs));
  return CallInstance(instance, std::move(args), env);
}

namespace {

Status SetOutputs(ops::KernelContext& ctx, std::vector<Tensor> values, const std::string& what) {
  if (static_cast<int>(values.size()) != ctx.num_outputs()) {
    return ctx.Error(what + " returned " + std::to_string(values.size()) + " values, the node has " +
                     std::to_string(ctx.num_outputs()) + " outputs");
  }
  for (size_t i = 0; i < values.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(values[i]));
  return OkStatus();
}

std::vector<Tensor> TakeInputs(ops::KernelContext& ctx, int first) {
  std::vector<Tensor> args;
  for (int i = first; i < ctx.num_inputs(); ++i) args.push_back(ctx.TakeInput(i));
  return args;
}

}  // namespace

Status FunctionRuntime::RunIf(ops::KernelContext& ctx, const ExecEnv& env) {
  const ir::Node& node = ctx.node();
  if (ctx.num_inputs() < 1) return ctx.Error("needs a cond input");
  TFHOST_ASSIGN_OR_RETURN(bool taken, ToBool(ctx.input(0), node, ""));
  const char* branch = taken ? "then_branch" : "else_branch";
  TFHOST_ASSIGN_OR_RETURN(auto f, FuncAttr(node, branch));
  auto out = Call(f.first, f.second, TakeInputs(ctx, 1), env);
  if (!out.ok()) return out.status().WithContext(ir::NodeContext(node) + ", " + branch);
  return SetOutputs(ctx, std::move(*out), branch);
}

Status FunctionRuntime::RunCase(ops::KernelContext& ctx, const ExecEnv& env) {
  const ir::Node& node = ctx.node();
  if (ctx.num_inputs() < 1) return ctx.Error("needs a branch_index input");
  const Tensor& index = ctx.input(0);
  if (index.dtype() != DType::kInt32 || index.NumElements() != 1) {
    return ctx.Error("branch_index must be an int32 scalar, got " + DTypeShortName(index.dtype()) +
                     index.shape().ToString());
  }
  const tensorflow::AttrValue* branches = node.FindAttr("branches");
  if (branches == nullptr || branches->list().func_size() == 0) {
    return ctx.Error("attr 'branches' must list at least one function");
  }
  int n = branches->list().func_size();
  int b = index.data<int32_t>()[0];
  if (b < 0 || b >= n) b = n - 1;  // TensorFlow runs the last branch
  const auto& f = branches->list().func(b);
  auto out = Call(f.name(), ir::AttrMap(f.attr().begin(), f.attr().end()), TakeInputs(ctx, 1), env);
  if (!out.ok()) return out.status().WithContext(ir::NodeContext(node) + ", branch " + std::to_string(b));
  return SetOutputs(ctx, std::move(*out), "branch " + std::to_string(b));
}

Status FunctionRuntime::RunWhile(ops::KernelContext& ctx, const ExecEnv& env) {
  const ir::Node& node = ctx.node();
  TFHOST_ASSIGN_OR_RETURN(auto cond_f, FuncAttr(node, "cond"));
  TFHOST_ASSIGN_OR_RETURN(auto body_f, FuncAttr(node, "body"));
  TFHOST_ASSIGN_OR_RETURN(Instance * cond, Instantiate(cond_f.first, cond_f.second));
  TFHOST_ASSIGN_OR_RETURN(Instance * body, Instantiate(body_f.first, body_f.second));
  const bool stateful = cond->runner->HasStatefulNodes() || body->runner->HasStatefulNodes();
  std::vector<Tensor> vars = TakeInputs(ctx, 0);
  std::vector<Tensor> args;
  std::vector<bool> moved;
  for (int64_t iteration = 0;; ++iteration) {
    auto c = CallInstanceReading(cond, vars, env);
    if (!c.ok()) {
      return c.status().WithContext(ir::NodeContext(node) + ", cond in iteration " + std::to_string(iteration));
    }
    if (c->size() != 1) {
      return ctx.Error("cond '" + cond_f.first + "' returned " + std::to_string(c->size()) + " values, expected 1");
    }
    TFHOST_ASSIGN_OR_RETURN(bool go, ToBool((*c)[0], node, ", cond"));
    if (!go) break;
    if (env.loops != nullptr && !env.loops->TryCharge()) {
      return env.loops->Exceeded(context_ + ", " + ir::NodeContext(node) + ", iteration " + std::to_string(iteration));
    }
    // Lists go into the body (they are not kept for the check below), so
    // that TensorListSetItem, their only reader there, sets the item in place
    // instead of copying the list each iteration; the rest are copied. The
    // two vectors keep their storage from one iteration to the next.
    args.resize(vars.size());
    moved.assign(vars.size(), false);
    for (size_t i = 0; i < vars.size(); ++i) {
      moved[i] = stateful || vars[i].dtype() == DType::kVariant;
      args[i] = moved[i] ? std::move(vars[i]) : vars[i];
    }
    auto next = CallInstance(body, std::move(args), env);
    for (Tensor& a : args) a = Tensor();  // what the body did not take
    if (!next.ok()) {
      return next.status().WithContext(ir::NodeContext(node) + ", body in iteration " + std::to_string(iteration));
    }
    if (next->size() != vars.size()) {
      return ctx.Error("body '" + body_f.first + "' returned " + std::to_string(next->size()) +
                       " values for " + std::to_string(vars.size()) + " loop variables");
    }
    if (!stateful) {
      // Nothing stateful and the same values again: the condition will hold
      // forever.
      bool unchanged = true;
      for (size_t i = 0; i < vars.size() && unchanged; ++i) {
        unchanged = !moved[i] && (*next)[i].SharesBufferWith(vars[i]) && (*next)[i].shape() == vars[i].shape() &&
                    (*next)[i].dtype() == vars[i].dtype();
      }
      if (unchanged) {
        return ctx.Error("the loop can never finish: body '" + body_f.first +
                         "' returns its inputs unchanged while cond '" + cond_f.first + "' is true");
      }
    }
    vars = std::move(*next);
  }
  return SetOutputs(ctx, std::move(vars), "the loop");
}

Status FunctionRuntime::RunCallNode(ops::KernelContext& ctx, const ExecEnv& env) {
  const ir::Node& node = ctx.node();
  const std::string& op = node.op;
  if (op == "If" || op == "StatelessIf") return RunIf(ctx, env);
  if (op == "Case" || op == "StatelessCase") return RunCase(ctx, env);
  if (op == "While" || op == "StatelessWhile") return RunWhile(ctx, env);
  std::pair<std::string, ir::AttrMap> f;
  if (op == "PartitionedCall" || op == "StatefulPartitionedCall") {
    TFHOST_ASSIGN_OR_RETURN(f, FuncAttr(node, "f"));
  } else {
    f = {op, node.attrs};
  }
  auto out = Call(f.first, f.second, TakeInputs(ctx, 0), env);
  if (!out.ok()) return out.status().WithContext(ir::NodeContext(node));
  return SetOutputs(ctx, std::move(*out), "function '" + f.first + "'");
}

}  // namespace tfhost::runtime
