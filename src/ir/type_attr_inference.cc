#include "ir/type_attr_inference.h"

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "ir/attrs.h"

namespace tfhost::ir {

namespace {

// The attr that sets how many inputs an arg takes, or "" for a single input.
const std::string& LengthAttr(const tensorflow::OpDef::ArgDef& arg) {
  return !arg.number_attr().empty() ? arg.number_attr() : arg.type_list_attr();
}

// dtype behind one input edge; kInvalid while its producer is untyped.
DType InputDType(const Graph& graph, const TensorRef& ref) {
  const Node& src = graph.node(ref.node);
  if (ref.index < 0 || ref.index >= static_cast<int>(src.output_dtypes.size())) return DType::kInvalid;
  return src.output_dtypes[ref.index];
}

std::string JoinQuoted(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "'" : i + 1 == names.size() ? "' and '" : "', '") + names[i];
  }
  return out + "'";
}

// [begin, end) of the node's inputs that each input arg holds. A missing
// length attr follows from the input count when it is the only one missing
// (ConcatV2: N = inputs - 1); a number attr is set here, a type list waits
// for its types.
StatusOr<std::vector<std::pair<int, int>>> InputArgSpans(const tensorflow::OpDef& def, Node& node) {
  const int num_inputs = static_cast<int>(node.inputs.size());
  std::vector<int> arity(def.input_arg_size(), -1);
  std::map<std::string, int> unknown;  // missing length attr -> args it sizes
  int known = 0;
  for (int k = 0; k < def.input_arg_size(); ++k) {
    const std::string& key = LengthAttr(def.input_arg(k));
    if (!key.empty() && node.FindAttr(key) == nullptr) {
      ++unknown[key];
      continue;
    }
    TFHOST_ASSIGN_OR_RETURN(arity[k], ArgArity(def.input_arg(k), node));
    known += arity[k];
  }
  if (unknown.size() > 1) {
    std::vector<std::string> keys;
    for (const auto& [key, uses] : unknown) keys.push_back(key);
    return InvalidArgument(NodeContext(node) + ": missing required attrs " + JoinQuoted(keys) +
                           ", which each set how many inputs an arg takes; " + std::to_string(num_inputs) +
                           " inputs cannot say how they split between them");
  }
  if (unknown.size() == 1) {
    const auto& [key, uses] = *unknown.begin();
    const int rest = num_inputs - known;
    if (rest < 0 || rest % uses != 0) {
      return InvalidArgument(NodeContext(node) + ": missing required attr '" + key + "', and its " +
                             std::to_string(num_inputs) + " inputs do not fit the schema of " + def.name() +
                             " (" + std::to_string(known) + " single inputs plus " + std::to_string(uses) +
                             " list(s) of '" + key + "' entries)");
    }
    for (int& a : arity) {
      if (a < 0) a = rest / uses;
    }
    for (const auto& arg : def.input_arg()) {
      if (arg.number_attr() == key) {
        node.attrs[key].set_i(rest / uses);
        break;
      }
    }
  }
  std::vector<std::pair<int, int>> spans;
  int begin = 0;
  for (int a : arity) {
    spans.emplace_back(std::min(begin, num_inputs), std::min(begin + a, num_inputs));
    begin += a;
  }
  return spans;
}

// What one attempt at a node left undone: the attr still missing and the
// untyped input it waits for (input < 0: nothing left).
struct Blocked {
  int input = -1;
  std::string attr;
};

bool ArgUses(const tensorflow::OpDef::ArgDef& arg, const std::string& attr) {
  return arg.type_attr() == attr || arg.number_attr() == attr || arg.type_list_attr() == attr;
}

// Whether an output arg's type or count depends on `attr`.
bool OutputUses(const tensorflow::OpDef& def, const std::string& attr) {
  for (const auto& arg : def.output_arg()) {
    if (ArgUses(arg, attr)) return true;
  }
  return false;
}

bool InputBinds(const tensorflow::OpDef& def, const std::string& attr) {
  for (const auto& arg : def.input_arg()) {
    if (ArgUses(arg, attr)) return true;
  }
  return false;
}

// Whether every attr the outputs use is set, so output types can be computed.
bool OutputAttrsPresent(const tensorflow::OpDef& def, const Node& node) {
  for (const auto& arg : def.output_arg()) {
    for (const std::string* key : {&arg.type_attr(), &arg.number_attr(), &arg.type_list_attr()}) {
      if (!key->empty() && node.FindAttr(*key) == nullptr) return false;
    }
  }
  return true;
}

StatusOr<Blocked> TryInferAttrs(const tensorflow::OpDef& def, Graph& graph, int index) {
  Node& node = graph.mutable_node(index);
  TFHOST_ASSIGN_OR_RETURN(auto spans, InputArgSpans(def, node));
  // What blocks the output types matters most, to wait on and to report.
  Blocked blocked;
  auto block = [&](int input, const std::string& attr) {
    if (blocked.input < 0 || (!OutputUses(def, blocked.attr) && OutputUses(def, attr))) blocked = {input, attr};
  };
  // Every input each missing attr binds, across args (AddV2's x: T, y: T).
  std::map<std::string, std::vector<int>> type_inputs, list_inputs;
  for (int k = 0; k < def.input_arg_size(); ++k) {
    const auto& arg = def.input_arg(k);
    auto [begin, end] = spans[k];
    if (!arg.type_attr().empty() && node.FindAttr(arg.type_attr()) == nullptr) {
      auto& inputs = type_inputs[arg.type_attr()];
      for (int j = begin; j < end; ++j) inputs.push_back(j);
    }
    if (!arg.type_list_attr().empty() && node.FindAttr(arg.type_list_attr()) == nullptr &&
        !list_inputs.count(arg.type_list_attr())) {
      auto& inputs = list_inputs[arg.type_list_attr()];
      for (int j = begin; j < end; ++j) inputs.push_back(j);
    }
  }
  for (const auto& [attr, inputs] : type_inputs) {
    if (inputs.empty()) {
      return InvalidArgument(NodeContext(node) + ": missing required attr '" + attr +
                             "', and it binds no input here to infer it from");
    }
    DType found = DType::kInvalid;
    int from = -1;
    for (int j : inputs) {
      const DType t = InputDType(graph, node.inputs[j]);
      if (t == DType::kInvalid) continue;
      if (found == DType::kInvalid) {
        found = t;
        from = j;
      } else if (t != found) {
        return InvalidArgument(NodeContext(node) + ": missing required attr '" + attr +
                               "', and the inputs it binds disagree: input " + std::to_string(from) + " is " +
                               DTypeName(found) + ", input " + std::to_string(j) + " is " + DTypeName(t));
      }
    }
    if (found == DType::kInvalid) {
      // A loop Merge's other input is its NextIteration: one typed input is
      // enough, so wait on the first and keep the rest for later attempts.
      block(inputs[0], attr);
      continue;
    }
    node.attrs[attr].set_type(static_cast<tensorflow::DataType>(found));
  }
  for (const auto& [attr, inputs] : list_inputs) {
    std::vector<DType> types;
    for (int j : inputs) {
      const DType t = InputDType(graph, node.inputs[j]);
      if (t == DType::kInvalid) {
        block(j, attr);
        break;
      }
      types.push_back(t);
    }
    if (types.size() != inputs.size()) continue;
    auto* list = node.attrs[attr].mutable_list();
    for (DType t : types) list->add_type(static_cast<tensorflow::DataType>(t));
  }
  return blocked;
}

// Why a node that waited to the end has no type: the input it waited for.
Status UnresolvedError(const Graph& graph, const OpDefLookup& lookup, int index, const Blocked& blocked) {
  const Node& node = graph.node(index);
  const TensorRef& ref = node.inputs[blocked.input];
  const Node& src = graph.node(ref.node);
  std::string why;
  if (lookup(src.op) == nullptr) {
    why = "tfhost has no schema for op '" + src.op + "', so its output types are unknown";
  } else if (ref.index >= static_cast<int>(src.output_dtypes.size()) && !src.output_dtypes.empty()) {
    why = "it has only " + std::to_string(src.output_dtypes.size()) + " outputs";
  } else if (!src.output_dtypes.empty()) {
    why = "that output's type is invalid";
  } else {
    why = "its own missing type attrs depend on this node";
  }
  return InvalidArgument(NodeContext(node) + ": missing required attr '" + blocked.attr + "', which input " +
                         std::to_string(blocked.input) + " should determine, but that input is output " +
                         std::to_string(ref.index) + " of " + NodeContext(src) + " and " + why);
}

}  // namespace

bool MissingInputBoundAttr(const tensorflow::OpDef& def, const Node& node) {
  for (const auto& arg : def.input_arg()) {
    for (const std::string* key : {&arg.type_attr(), &arg.number_attr(), &arg.type_list_attr()}) {
      if (!key->empty() && node.FindAttr(*key) == nullptr) return true;
    }
  }
  return false;
}

Status CheckOutputBoundAttrs(const tensorflow::OpDef& def, const Node& node) {
  for (const auto& arg : def.output_arg()) {
    for (const std::string* key : {&arg.type_attr(), &arg.number_attr(), &arg.type_list_attr()}) {
      if (key->empty() || node.FindAttr(*key) != nullptr || InputBinds(def, *key)) continue;
      return InvalidArgument(NodeContext(node) + ": missing required attr '" + *key + "'; only output '" +
                             arg.name() + "' of " + def.name() + " uses it, so no input can determine it and "
                             "the model must set it");
    }
  }
  return OkStatus();
}

Status InferMissingTypeAttrs(Graph& graph, const OpDefLookup& lookup, const std::vector<int>& waiting) {
  std::vector<bool> pending(graph.num_nodes(), false);
  for (int i : waiting) pending[i] = true;
  std::unordered_map<int, Blocked> blocked;
  // Producer -> the pending nodes that last waited for it.
  std::unordered_map<int, std::vector<int>> waiters;
  std::deque<int> queue(waiting.begin(), waiting.end());
  auto wake = [&](int producer) {
    auto it = waiters.find(producer);
    if (it == waiters.end()) return;
    for (int w : it->second) queue.push_back(w);
    waiters.erase(it);
  };
  while (!queue.empty()) {
    const int i = queue.front();
    queue.pop_front();
    if (!pending[i]) continue;
    Node& node = graph.mutable_node(i);
    const tensorflow::OpDef& def = *lookup(node.op);
    TFHOST_ASSIGN_OR_RETURN(Blocked b, TryInferAttrs(def, graph, i));
    TFHOST_RETURN_IF_ERROR(CheckOutputBoundAttrs(def, node));
    // Output types need only the attrs outputs use: a Cast still waiting
    // for its SrcT can already type its consumers.
    if (node.output_dtypes.empty() && OutputAttrsPresent(def, node)) {
      TFHOST_ASSIGN_OR_RETURN(node.output_dtypes, OutputDTypes(def, node));
      wake(i);
    }
    if (b.input >= 0) {
      blocked[i] = b;
      waiters[node.inputs[b.input].node].push_back(i);
      continue;
    }
    pending[i] = false;
  }
  // A node typed but still missing an attr only inputs use is left for its
  // kernel to report, should it read the attr. An untyped one fails: report
  // where the chain of waiting ends (a producer nothing can type) rather
  // than a node that merely waited for another untyped node.
  auto untyped = [&](int i) { return pending[i] && graph.node(i).output_dtypes.empty(); };
  int culprit = -1;
  for (int i : waiting) {
    if (!untyped(i)) continue;
    if (culprit < 0) culprit = i;
    if (!untyped(graph.node(i).inputs[blocked[i].input].node)) {
      culprit = i;
      break;
    }
  }
  if (culprit < 0) return OkStatus();
  return UnresolvedError(graph, lookup, culprit, blocked[culprit]);
}

}  // namespace tfhost::ir
