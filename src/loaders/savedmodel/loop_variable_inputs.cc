#include "loaders/savedmodel/loop_variable_inputs.h"

#include <set>

#include "ir/tensor_proto.h"

namespace tfhost::loaders {
namespace {

using FunctionDef = tensorflow::FunctionDef;

bool IsWhile(const std::string& op) { return op == "While" || op == "StatelessWhile"; }

const FunctionDef* LoopFunction(const ir::Graph& graph, const ir::Node& loop, const char* key) {
  const tensorflow::AttrValue* f = loop.FindAttr(key);
  return f != nullptr && f->has_func() ? graph.FindFunction(f->func().name()) : nullptr;
}

// Whether input string `in` of a function body names argument `arg`.
bool NamesArg(const std::string& in, const std::string& arg) {
  return in == arg || (in.size() > arg.size() && in.compare(0, arg.size(), arg) == 0 && in[arg.size()] == ':');
}

// "" when every node of `f` that uses argument `slot` is a ReadVariableOp of it.
std::string OnlyReadVariableOps(const FunctionDef& f, int slot) {
  const std::string& arg = f.signature().input_arg(slot).name();
  for (const auto& n : f.node_def()) {
    for (int k = 0; k < n.input_size(); ++k) {
      if (!NamesArg(n.input(k), arg)) continue;
      if (n.op() != "ReadVariableOp" || k != 0) {
        return n.op() + " node '" + n.name() + "' of function '" + f.signature().name() + "' uses argument '" +
               arg + "' other than by reading it";
      }
    }
  }
  return "";
}

// A library function name not taken yet.
std::string FreshName(const ir::Graph& graph, const std::string& base) {
  std::string name = base;
  for (int n = 1; graph.FindFunction(name) != nullptr; ++n) name = base + "_" + std::to_string(n);
  return name;
}

// Makes argument `slot` of `f` a tensor of `dtype` and `shape`, and every
// ReadVariableOp of it the argument itself (its readers and control users
// rewired); in a body, also the result the argument is returned as.
void TakeValue(FunctionDef& f, int slot, DType dtype, const Shape& shape, bool body) {
  const auto type = static_cast<tensorflow::DataType>(dtype);
  const std::string arg = f.signature().input_arg(slot).name();
  f.mutable_signature()->mutable_input_arg(slot)->set_type(type);
  if (body) f.mutable_signature()->mutable_output_arg(slot)->set_type(type);
  auto* shapes = (*(*f.mutable_arg_attr())[static_cast<uint32_t>(slot)].mutable_attr())["_output_shapes"].mutable_list();
  shapes->clear_shape();
  ir::PartialShape::FromShape(shape).ToProto().Swap(shapes->add_shape());

  std::set<std::string> reads;
  auto* nodes = f.mutable_node_def();
  for (int k = 0; k < nodes->size(); ++k) {
    const auto& n = (*nodes)[k];
    if (n.op() == "ReadVariableOp" && n.input_size() >= 1 && NamesArg(n.input(0), arg)) {
      reads.insert(n.name());
      nodes->DeleteSubrange(k--, 1);
    }
  }
  auto rewire = [&](std::string& in) {
    for (const std::string& read : reads) {
      if (in.rfind(read + ":value:", 0) == 0) in = arg;
    }
  };
  for (auto& n : *nodes) {
    auto* inputs = n.mutable_input();
    for (int k = 0; k < inputs->size(); ++k) {
      std::string& in = (*inputs)[k];
      if (!in.empty() && in[0] == '^' && reads.count(in.substr(1))) {
        inputs->DeleteSubrange(k--, 1);  // the value needs no waiting for
        continue;
      }
      rewire(in);
    }
  }
  for (auto& [key, value] : *f.mutable_ret()) rewire(value);
  auto* control_ret = f.mutable_control_ret();
  for (auto it = control_ret->begin(); it != control_ret->end();) {
    it = reads.count(it->second) ? control_ret->erase(it) : std::next(it);
  }
}

}  // namespace

std::string LoopOnlyReads(const ir::Graph& graph, const std::vector<std::vector<int>>& consumers, int loop,
                          int slot) {
  const ir::Node& node = graph.node(loop);
  const std::string where = node.op + " node '" + node.name + "'";
  if (!IsWhile(node.op)) return where + " takes a variable as input " + std::to_string(slot);
  const FunctionDef* body = LoopFunction(graph, node, "body");
  const FunctionDef* cond = LoopFunction(graph, node, "cond");
  const int vars = static_cast<int>(node.inputs.size());
  if (body == nullptr || cond == nullptr || body->signature().input_arg_size() != vars ||
      body->signature().output_arg_size() != vars || cond->signature().input_arg_size() != vars) {
    return where + " has a body or cond that does not match its " + std::to_string(vars) + " loop variables";
  }
  auto ret = body->ret().find(body->signature().output_arg(slot).name());
  if (ret == body->ret().end() || ret->second != body->signature().input_arg(slot).name()) {
    return where + " passes variable input " + std::to_string(slot) + " to a body that does not return it unchanged";
  }
  for (const FunctionDef* f : {body, cond}) {
    std::string why = OnlyReadVariableOps(*f, slot);
    if (!why.empty()) return why;
  }
  for (int c : consumers[loop]) {
    for (const ir::TensorRef& in : graph.node(c).inputs) {
      if (in.node == loop && in.index == slot) {
        return graph.node(c).op + " node '" + graph.node(c).name + "' reads the variable back from " + where;
      }
    }
  }
  return "";
}

Status FreezeLoopInputs(ir::Graph& graph, int loop, const std::vector<FrozenLoopInput>& inputs) {
  const ir::Node& node = graph.node(loop);
  const FunctionDef* body_def = LoopFunction(graph, node, "body");
  const FunctionDef* cond_def = LoopFunction(graph, node, "cond");
  if (body_def == nullptr || cond_def == nullptr) {
    return Internal(node.op + " node '" + node.name + "': body or cond went missing while freezing");
  }
  FunctionDef body = *body_def;
  FunctionDef cond = *cond_def;
  for (const FrozenLoopInput& in : inputs) {
    TakeValue(body, in.slot, in.dtype, in.shape, /*body=*/true);
    TakeValue(cond, in.slot, in.dtype, in.shape, /*body=*/false);
  }
  body.mutable_signature()->set_name(FreshName(graph, body_def->signature().name() + "_frozen"));
  cond.mutable_signature()->set_name(FreshName(graph, cond_def->signature().name() + "_frozen"));
  const std::string body_name = body.signature().name();
  const std::string cond_name = cond.signature().name();
  *graph.mutable_library().add_function() = std::move(body);
  *graph.mutable_library().add_function() = std::move(cond);

  ir::Node& w = graph.mutable_node(loop);
  w.attrs["body"].mutable_func()->set_name(body_name);
  w.attrs["cond"].mutable_func()->set_name(cond_name);
  for (const FrozenLoopInput& in : inputs) {
    w.inputs[in.slot] = ir::TensorRef{in.frozen, 0};
    auto* types = w.attrs["T"].mutable_list();
    if (in.slot < types->type_size()) types->set_type(in.slot, static_cast<tensorflow::DataType>(in.dtype));
    if (auto it = w.attrs.find("output_shapes"); it != w.attrs.end() && in.slot < it->second.list().shape_size()) {
      *it->second.mutable_list()->mutable_shape(in.slot) = ir::PartialShape::FromShape(in.shape).ToProto();
    }
  }
  w.output_dtypes.clear();  // type inference runs after freezing
  return OkStatus();
}

}  // namespace tfhost::loaders
