#include "ir/function_inliner.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "ir/attrs.h"

namespace tfhost::ir {

namespace {

using tensorflow::AttrValue;
using tensorflow::FunctionDef;
using tensorflow::OpDef;

bool IsPartitionedCallOp(const std::string& op) {
  return op == "StatefulPartitionedCall" || op == "PartitionedCall";
}

// The call ops' own schema, for resolving "call:output:i" when neither the
// model nor the registry describes them (they have no kernel).
const OpDef& PartitionedCallSchema(const std::string& op) {
  static const OpDef* stateful = [] {
    auto* def = new OpDef();
    def->set_name("StatefulPartitionedCall");
    auto* in = def->add_input_arg();
    in->set_name("args");
    in->set_type_list_attr("Tin");
    auto* out = def->add_output_arg();
    out->set_name("output");
    out->set_type_list_attr("Tout");
    def->add_attr()->set_name("Tin");
    def->add_attr()->set_name("Tout");
    def->add_attr()->set_name("f");
    return def;
  }();
  static const OpDef* stateless = [] {
    auto* def = new OpDef(*stateful);
    def->set_name("PartitionedCall");
    return def;
  }();
  return op == "PartitionedCall" ? *stateless : *stateful;
}

bool IsDigits(const std::string& s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

// Replaces attr placeholders ("T" standing for the caller's T) with the
// values the function is instantiated with, also inside nested func attrs.
Status Substitute(AttrValue* value, const AttrMap& bindings, const std::string& where) {
  switch (value->value_case()) {
    case AttrValue::kPlaceholder: {
      auto it = bindings.find(value->placeholder());
      if (it == bindings.end()) {
        return InvalidArgument(where + ": attr placeholder '$" + value->placeholder() +
                               "' has no value in the call's attrs");
      }
      *value = it->second;
      return OkStatus();
    }
    case AttrValue::kFunc:
      for (auto& [k, v] : *value->mutable_func()->mutable_attr()) {
        TFHOST_RETURN_IF_ERROR(Substitute(&v, bindings, where));
      }
      return OkStatus();
    case AttrValue::kList:
      for (auto& f : *value->mutable_list()->mutable_func()) {
        for (auto& [k, v] : *f.mutable_attr()) TFHOST_RETURN_IF_ERROR(Substitute(&v, bindings, where));
      }
      return OkStatus();
    default:
      return OkStatus();
  }
}

struct Frame {
  std::string function;
  int parent = -1;
};

class Inliner {
 public:
  Inliner(Graph& graph, const OpDefLookup& lookup, const InlineOptions& options)
      : graph_(graph), lookup_(lookup), options_(options) {
    for (const auto& f : graph.library().function()) functions_.emplace(f.signature().name(), &f);
    bytes_left_ = std::max<int64_t>(options.min_inlined_bytes_budget,
                                    32 * static_cast<int64_t>(graph.library().ByteSizeLong()));
  }

  Status Run() {
    for (int i = 0; i < graph_.num_nodes(); ++i) {
      if (i < static_cast<int>(inlined_.size()) && inlined_[i]) continue;
      std::string function;
      const FunctionDef* fdef = CalledFunction(graph_.node(i), &function);
      if (fdef == nullptr) continue;
      Status st = InlineOne(i, *fdef);
      if (!st.ok()) {
        return st.WithContext("inlining function '" + function + "' called by node '" +
                              graph_.node(i).name + "'");
      }
    }
    return OkStatus();
  }

  const FunctionDef* CalledFunction(const Node& node, std::string* name) const {
    if (IsPartitionedCallOp(node.op)) {
      const AttrValue* f = node.FindAttr("f");
      if (f == nullptr || f->value_case() != AttrValue::kFunc) return nullptr;
      *name = f->func().name();
    } else {
      *name = node.op;
    }
    auto it = functions_.find(*name);
    return it == functions_.end() ? nullptr : it->second;
  }

 private:
  // Schema describing a body node's outputs: a library function's signature,
  // the model's or tfhost's OpDef, or the built-in call schema.
  const OpDef* SchemaFor(const std::string& op) const {
    auto it = functions_.find(op);
    if (it != functions_.end()) return &it->second->signature();
    if (const OpDef* def = lookup_ ? lookup_(op) : nullptr) return def;
    if (IsPartitionedCallOp(op)) return &PartitionedCallSchema(op);
    return nullptr;
  }

  // What one call's body sees while its inputs are resolved.
  struct CallScope {
    std::string function;
    std::map<std::string, std::vector<TensorRef>> args;
    std::unordered_map<std::string, int> body;  // body node name -> graph index
  };

  StatusOr<std::vector<TensorRef>> ResolveData(const CallScope& scope, const std::string& ref,
                                               const std::string& where) const {
    std::vector<std::string> parts = Split(ref, ':');
    auto body_node = [&](const std::string& name) -> int {
      auto it = scope.body.find(name);
      return it == scope.body.end() ? -1 : it->second;
    };
    auto arg = scope.args.find(parts[0]);
    if (parts.size() == 1) {
      if (arg != scope.args.end()) return arg->second;
      int n = body_node(parts[0]);
      if (n >= 0) return std::vector<TensorRef>{{n, 0}};
    } else if (parts.size() == 2 && arg != scope.args.end() && IsDigits(parts[1])) {
      int i = std::stoi(parts[1]);
      if (i >= static_cast<int>(arg->second.size())) {
        return InvalidArgument(where + ": input '" + ref + "' reads element " + parts[1] + " of argument '" +
                               parts[0] + "', which has " + std::to_string(arg->second.size()));
      }
      return std::vector<TensorRef>{arg->second[i]};
    } else if (parts.size() == 2 || parts.size() == 3) {
      int n = body_node(parts[0]);
      if (n < 0) {
        return InvalidArgument(where + ": input '" + ref + "' names no argument or body node '" +
                               parts[0] + "'");
      }
      if (parts.size() == 3 && !IsDigits(parts[2])) {
        return InvalidArgument(where + ": malformed input '" + ref + "': expected 'node:outarg:index'");
      }
      int element = parts.size() == 3 ? std::stoi(parts[2]) : -1;
      const Node& src = graph_.node(n);
      const OpDef* def = SchemaFor(src.op);
      if (def == nullptr) {
        // Unknown op: the node can never run (the runtime reports it if it is
        // needed), so any index will do; keep the element number.
        return std::vector<TensorRef>{{n, std::max(element, 0)}};
      }
      auto range = OutputArgRange(*def, src, parts[1]);
      if (!range.ok()) return range.status().WithContext(where + ": input '" + ref + "'");
      if (element >= 0) {
        if (element >= range->second) {
          return InvalidArgument(where + ": input '" + ref + "' reads element " + parts[2] + " of output '" +
                                 parts[1] + "', which has " + std::to_string(range->second));
        }
        return std::vector<TensorRef>{{n, range->first + element}};
      }
      std::vector<TensorRef> all;
      for (int k = 0; k < range->second; ++k) all.push_back({n, range->first + k});
      return all;
    }
    return InvalidArgument(where + ": input '" + ref + "' names no argument or body node of function '" +
                           scope.function + "'");
  }

  Status InlineOne(int call_index, const FunctionDef& fdef) {
    const OpDef& sig = fdef.signature();
    // Copy what we need: adding nodes moves the graph's node storage.
    const Node call = graph_.node(call_index);

    // Recursion and depth, from the chain of calls this node was inlined by.
    int parent_frame = call_index < static_cast<int>(frame_of_.size()) ? frame_of_[call_index] : -1;
    int depth = 1;
    std::string chain = sig.name();
    for (int f = parent_frame; f >= 0; f = frames_[f].parent) {
      chain = frames_[f].function + " -> " + chain;
      if (frames_[f].function == sig.name()) {
        return InvalidArgument("function '" + sig.name() + "' calls itself (" + chain +
                               "); recursive functions cannot be inlined");
      }
      ++depth;
    }
    if (depth > options_.max_depth) {
      return ResourceExhausted("function calls are nested " + std::to_string(depth) + " deep (more than " +
                               std::to_string(options_.max_depth) + "): " + chain + " (--max_function_depth=" +
                               std::to_string(options_.max_depth) + ")");
    }
    if (static_cast<int64_t>(graph_.num_nodes()) + fdef.node_def_size() > options_.max_nodes) {
      return ResourceExhausted("inlining function '" + sig.name() + "' would grow the graph past " +
                               std::to_string(options_.max_nodes) + " nodes (--max_graph_nodes=" +
                               std::to_string(options_.max_nodes) + ")");
    }
    int64_t body_bytes = 0;
    for (const auto& nd : fdef.node_def()) body_bytes += static_cast<int64_t>(nd.ByteSizeLong());
    if (body_bytes > bytes_left_) {
      return ResourceExhausted("inlining every call would copy more than the budget of function body bytes "
                               "(functions called from too many places)");
    }
    bytes_left_ -= body_bytes;

    // The attrs the function is instantiated with.
    AttrMap bindings;
    if (IsPartitionedCallOp(call.op)) {
      const auto& f = call.attrs.at("f").func();
      bindings = AttrMap(f.attr().begin(), f.attr().end());
    } else {
      bindings = call.attrs;
    }
    Node sig_node;  // stands for the call when computing argument arities
    sig_node.name = call.name;
    sig_node.op = sig.name();
    sig_node.attrs = bindings;
    FillDefaultAttrs(sig, &sig_node);

    CallScope scope;
    scope.function = sig.name();
    size_t pos = 0;
    for (const auto& arg : sig.input_arg()) {
      TFHOST_ASSIGN_OR_RETURN(int n, ArgArity(arg, sig_node));
      if (pos + n > call.inputs.size()) {
        return InvalidArgument("the call passes " + std::to_string(call.inputs.size()) +
                               " inputs, fewer than the function's arguments need (at argument '" +
                               arg.name() + "')");
      }
      scope.args[arg.name()] =
          std::vector<TensorRef>(call.inputs.begin() + pos, call.inputs.begin() + pos + n);
      pos += n;
    }
    if (pos != call.inputs.size()) {
      return InvalidArgument("the call passes " + std::to_string(call.inputs.size()) +
                             " inputs but the function takes " + std::to_string(pos));
    }

    int frame = static_cast<int>(frames_.size());
    frames_.push_back({sig.name(), parent_frame});

    // Create the body nodes first (bodies need not be in topological order).
    std::vector<int> body_ids;
    body_ids.reserve(fdef.node_def_size());
    for (const auto& nd : fdef.node_def()) {
      Node n;
      n.name = call.name + "/" + nd.name();
      n.op = nd.op();
      n.device = nd.device();
      std::string where = "body node '" + nd.name() + "' (" + nd.op() + ")";
      for (const auto& [k, v] : nd.attr()) {
        AttrValue value = v;
        TFHOST_RETURN_IF_ERROR(Substitute(&value, bindings, where));
        n.attrs.emplace(k, std::move(value));
      }
      if (const OpDef* def = SchemaFor(n.op)) FillDefaultAttrs(*def, &n);
      if (scope.body.count(nd.name())) return InvalidArgument("the body has two nodes named '" + nd.name() + "'");
      auto id = graph_.AddNode(std::move(n));
      if (!id.ok()) return id.status().WithContext(where);
      scope.body[nd.name()] = *id;
      body_ids.push_back(*id);
    }
    frame_of_.resize(graph_.num_nodes(), -1);
    inlined_.resize(graph_.num_nodes(), false);
    for (int id : body_ids) frame_of_[id] = frame;

    // Then wire their inputs.
    for (int k = 0; k < fdef.node_def_size(); ++k) {
      const auto& nd = fdef.node_def(k);
      std::string where = "body node '" + nd.name() + "' (" + nd.op() + ")";
      std::vector<TensorRef> inputs;
      std::vector<int> controls;
      for (const std::string& in : nd.input()) {
        if (!in.empty() && in[0] == '^') {
          std::string name = in.substr(1);
          auto b = scope.body.find(name);
          if (b != scope.body.end()) {
            controls.push_back(b->second);
            continue;
          }
          auto a = scope.args.find(name);
          if (a == scope.args.end()) {
            return InvalidArgument(where + ": control input '" + in + "' names no body node");
          }
          for (const auto& t : a->second) controls.push_back(t.node);
          continue;
        }
        TFHOST_ASSIGN_OR_RETURN(auto refs, ResolveData(scope, in, where));
        inputs.insert(inputs.end(), refs.begin(), refs.end());
      }
      if (inputs.empty() && controls.empty()) controls = call.control_inputs;
      Node& n = graph_.mutable_node(body_ids[k]);
      n.inputs = std::move(inputs);
      n.control_inputs = std::move(controls);
    }

    // The call becomes IdentityN(ret...) with control inputs on control_ret.
    std::vector<TensorRef> rets;
    for (const auto& arg : sig.output_arg()) {
      auto it = fdef.ret().find(arg.name());
      if (it == fdef.ret().end()) {
        return InvalidArgument("output '" + arg.name() + "' has no entry in the function's ret map");
      }
      TFHOST_ASSIGN_OR_RETURN(auto refs, ResolveData(scope, it->second, "ret '" + arg.name() + "'"));
      TFHOST_ASSIGN_OR_RETURN(int arity, ArgArity(arg, sig_node));
      if (static_cast<int>(refs.size()) != arity) {
        return InvalidArgument("ret '" + arg.name() + "' = '" + it->second + "' holds " +
                               std::to_string(refs.size()) + " tensors, the signature says " +
                               std::to_string(arity));
      }
      rets.insert(rets.end(), refs.begin(), refs.end());
    }
    TFHOST_ASSIGN_OR_RETURN(std::vector<DType> out_types, OutputDTypes(sig, sig_node));
    std::vector<int> controls = call.control_inputs;
    for (const auto& [name, node_name] : fdef.control_ret()) {
      auto b = scope.body.find(node_name);
      if (b == scope.body.end()) {
        return InvalidArgument("control_ret '" + name + "' names no body node '" + node_name + "'");
      }
      controls.push_back(b->second);
    }
    std::sort(controls.begin(), controls.end());
    controls.erase(std::unique(controls.begin(), controls.end()), controls.end());

    Node& c = graph_.mutable_node(call_index);
    c.op = "IdentityN";
    c.attrs.clear();
    AttrValue types;
    auto* list = types.mutable_list();
    for (DType t : out_types) list->add_type(static_cast<tensorflow::DataType>(t));
    c.attrs["T"] = std::move(types);
    c.inputs = std::move(rets);
    c.control_inputs = std::move(controls);
    c.output_dtypes.clear();
    inlined_[call_index] = true;
    return OkStatus();
  }

  Graph& graph_;
  const OpDefLookup& lookup_;
  InlineOptions options_;
  std::unordered_map<std::string, const FunctionDef*> functions_;
  std::vector<Frame> frames_;
  std::vector<int> frame_of_;   // per node: frame that created it, or -1
  std::vector<bool> inlined_;   // per node: already replaced by IdentityN
  int64_t bytes_left_ = 0;      // budget of body bytes still allowed
};

}  // namespace

bool IsFunctionCall(const Graph& graph, const Node& node, std::string* function_name) {
  std::string name;
  if (IsPartitionedCallOp(node.op)) {
    const AttrValue* f = node.FindAttr("f");
    if (f == nullptr || f->value_case() != AttrValue::kFunc) return false;
    name = f->func().name();
  } else {
    name = node.op;
  }
  if (graph.FindFunction(name) == nullptr) return false;
  if (function_name) *function_name = name;
  return true;
}

namespace {

// Functions reachable from `root`: called as ops or named by func attrs.
void CollectReachable(const std::unordered_map<std::string, const FunctionDef*>& functions,
                      const std::string& root, tensorflow::FunctionDefLibrary* out) {
  std::vector<std::string> stack = {root};
  std::set<std::string> seen;
  auto add_attr = [&](const AttrValue& v) {
    if (v.value_case() == AttrValue::kFunc) stack.push_back(v.func().name());
    if (v.value_case() == AttrValue::kList) {
      for (const auto& f : v.list().func()) stack.push_back(f.name());
    }
  };
  while (!stack.empty()) {
    std::string name = stack.back();
    stack.pop_back();
    auto it = functions.find(name);
    if (it == functions.end() || !seen.insert(name).second) continue;
    *out->add_function() = *it->second;
    for (const auto& nd : it->second->node_def()) {
      stack.push_back(nd.op());
      for (const auto& [k, v] : nd.attr()) add_attr(v);
    }
  }
}

StatusOr<std::vector<DType>> InputDTypes(const OpDef& def, const Node& node) {
  std::vector<DType> out;
  for (const auto& arg : def.input_arg()) {
    if (!arg.type_list_attr().empty()) {
      TFHOST_ASSIGN_OR_RETURN(auto types, GetAttr<std::vector<DType>>(node, arg.type_list_attr()));
      out.insert(out.end(), types.begin(), types.end());
      continue;
    }
    DType t;
    if (!arg.type_attr().empty()) {
      TFHOST_ASSIGN_OR_RETURN(t, GetAttr<DType>(node, arg.type_attr()));
    } else {
      t = BaseType(arg.type());
    }
    TFHOST_ASSIGN_OR_RETURN(int n, ArgArity(arg, node));
    out.insert(out.end(), n, t);
  }
  return out;
}

}  // namespace

StatusOr<FunctionGraph> InstantiateFunction(const tensorflow::FunctionDefLibrary& library,
                                            const std::string& name, const AttrMap& attrs,
                                            const OpDefLookup& lookup, const InlineOptions& options) {
  std::unordered_map<std::string, const FunctionDef*> functions;
  for (const auto& f : library.function()) functions.emplace(f.signature().name(), &f);
  auto found = functions.find(name);
  if (found == functions.end()) {
    return NotFound("function '" + name + "' is not in the model's function library");
  }
  const OpDef& sig = found->second->signature();
  FunctionGraph fg;
  CollectReachable(functions, name, &fg.graph.mutable_library());

  Node sig_node;
  sig_node.name = "_ret";
  sig_node.op = name;
  sig_node.attrs = attrs;
  FillDefaultAttrs(sig, &sig_node);
  auto arg_types = InputDTypes(sig, sig_node);
  if (!arg_types.ok()) return arg_types.status().WithContext("function '" + name + "'");
  auto ret_types = OutputDTypes(sig, sig_node);
  if (!ret_types.ok()) return ret_types.status().WithContext("function '" + name + "'");
  fg.arg_types = *arg_types;
  fg.ret_types = *ret_types;

  Node call;
  call.name = "_ret";
  call.op = "StatefulPartitionedCall";
  AttrValue f;
  f.mutable_func()->set_name(name);
  for (const auto& [k, v] : attrs) (*f.mutable_func()->mutable_attr())[k] = v;
  call.attrs["f"] = f;
  for (size_t k = 0; k < fg.arg_types.size(); ++k) {
    Node arg;
    arg.name = "_arg_" + std::to_string(k);
    arg.op = "Placeholder";
    AttrValue dtype;
    dtype.set_type(static_cast<tensorflow::DataType>(fg.arg_types[k]));
    arg.attrs["dtype"] = dtype;
    arg.output_dtypes = {fg.arg_types[k]};
    // The shape TensorFlow traced the argument with (a loop variable's
    // shape invariant, unknown dims kept unknown), so static shape
    // inference and the passes know a body's shapes as the caller's graph
    // does. Only when arguments are not lists: then flat index k is
    // input_arg k, which arg_attr is keyed by.
    if (static_cast<int>(fg.arg_types.size()) == sig.input_arg_size()) {
      auto attrs_of_arg = found->second->arg_attr().find(static_cast<uint32_t>(k));
      if (attrs_of_arg != found->second->arg_attr().end()) {
        auto shapes = attrs_of_arg->second.attr().find("_output_shapes");
        if (shapes != attrs_of_arg->second.attr().end() && shapes->second.list().shape_size() == 1) {
          *arg.attrs["shape"].mutable_shape() = shapes->second.list().shape(0);
        }
      }
    }
    TFHOST_ASSIGN_OR_RETURN(int id, fg.graph.AddNode(std::move(arg)));
    call.inputs.push_back({id, 0});
  }
  TFHOST_RETURN_IF_ERROR(fg.graph.AddNode(std::move(call)).status());
  TFHOST_RETURN_IF_ERROR(InlineFunctionCalls(fg.graph, lookup, options));
  Status st = InferTypes(fg.graph, lookup);
  if (!st.ok()) return st.WithContext("function '" + name + "'");
  return fg;
}

Status InlineFunctionCalls(Graph& graph, const OpDefLookup& lookup, const InlineOptions& options) {
  if (graph.library().function_size() == 0) return OkStatus();
  Inliner inliner(graph, lookup, options);
  return inliner.Run();
}

}  // namespace tfhost::ir
