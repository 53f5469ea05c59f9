// loop_projection_hoisting: a While loop over a sequence that multiplies each
// step's element by the same matrix gets those products from one matrix
// product before the loop. Keras's LSTM, GRU and SimpleRNN loops do exactly
// this: step t reads x_t = TensorListGetItem(list, t) from a list made by
// TensorListFromTensor(X) and computes MatMul(x_t, kernel) beside the
// recurrent MatMul(h, recurrent_kernel). Per step, that is a matrix-vector
// product re-reading the kernel from memory; over the whole sequence it is
// one [T*B, D] x [D, N] product, which the matmul kernels run near peak and
// which reads the kernel once (what ONNX Runtime's and cuDNN's LSTMs do).
//
// Matched, in the body of a While (or StatelessWhile):
//   g = TensorListGetItem(L, i, shape), L an argument the body returns
//       unchanged, fed by TensorListFromTensor(X) outside (through Identity);
//   m = MatMul(g:item, W), transpose_a false, float, where W is a Const of
//       the body, an argument the body returns unchanged, or
//       ReadVariableOp(R) of such an argument R that the body and cond use
//       only through ReadVariableOp (so nothing assigns the variable).
// Rewrite: outside, Y = Reshape(MatMul(Reshape(X, [-1, D]), W'), [T, B, N])
// with W' the same weights read before the loop, and L' =
// TensorListFromTensor(Y). L' becomes a new loop variable (the body returns
// it unchanged; cond ignores it), and in the body m's uses read
// TensorListGetItem(L', i) instead. Element t of L' is x_t times W for every
// t, so the body computes the same values whatever order or subset of steps
// the loop takes. The body and cond are rewritten as copies under new names,
// so another caller of the same functions is unaffected.
#include <cstdint>
#include <map>
#include <set>

#include "ops/op_registry.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using FunctionDef = tensorflow::FunctionDef;

// One hoistable product in a body.
struct Candidate {
  std::string get_item;  // g
  std::string matmul;    // m
  int list_arg = -1;     // index of L among the loop variables
  // The weights: exactly one of these.
  int weight_arg = -1;       // W is this argument (a tensor)
  int variable_arg = -1;     // W = ReadVariableOp of this argument
  std::string weight_const;  // W is this Const of the body
  bool transpose_b = false;
};

const tensorflow::NodeDef* FindBodyNode(const FunctionDef& f, const std::string& name) {
  for (const auto& n : f.node_def()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

int ArgIndex(const FunctionDef& f, const std::string& name) {
  for (int k = 0; k < f.signature().input_arg_size(); ++k) {
    if (f.signature().input_arg(k).name() == name) return k;
  }
  return -1;
}

// Whether the body returns argument k unchanged as output k.
bool PassesThrough(const FunctionDef& body, int k) {
  if (k < 0 || k >= body.signature().output_arg_size() || k >= body.signature().input_arg_size()) return false;
  auto it = body.ret().find(body.signature().output_arg(k).name());
  return it != body.ret().end() && it->second == body.signature().input_arg(k).name();
}

// Whether every node of `f` that names `arg` as an input is a ReadVariableOp.
bool OnlyRead(const FunctionDef& f, const std::string& arg) {
  for (const auto& n : f.node_def()) {
    for (const std::string& in : n.input()) {
      if ((in == arg || in.rfind(arg + ":", 0) == 0) && n.op() != "ReadVariableOp") return false;
    }
  }
  return true;
}

bool AttrBool(const tensorflow::NodeDef& n, const std::string& key) {
  auto it = n.attr().find(key);
  return it != n.attr().end() && it->second.b();
}

bool FloatT(const tensorflow::NodeDef& n) {
  auto it = n.attr().find("T");
  return it != n.attr().end() && it->second.type() == tensorflow::DT_FLOAT;
}

std::vector<Candidate> FindCandidates(const FunctionDef& body, const FunctionDef& cond) {
  std::vector<Candidate> found;
  for (const auto& g : body.node_def()) {
    if (g.op() != "TensorListGetItem" || g.input_size() != 3) continue;
    const int list_arg = ArgIndex(body, g.input(0));
    if (!PassesThrough(body, list_arg)) continue;
    const std::string item = g.name() + ":item:0";
    for (const auto& m : body.node_def()) {
      if (m.op() != "MatMul" || m.input_size() != 2 || m.input(0) != item || !FloatT(m)) continue;
      if (AttrBool(m, "transpose_a")) continue;
      Candidate c;
      c.get_item = g.name();
      c.matmul = m.name();
      c.list_arg = list_arg;
      c.transpose_b = AttrBool(m, "transpose_b");
      const std::string& w = m.input(1);
      const int direct = ArgIndex(body, w);
      if (direct >= 0) {
        if (!PassesThrough(body, direct)) continue;
        c.weight_arg = direct;
      } else {
        const std::string producer = w.substr(0, w.find(':'));
        const tensorflow::NodeDef* p = FindBodyNode(body, producer);
        if (p == nullptr) continue;
        if (p->op() == "Const" && w == producer + ":output:0") {
          c.weight_const = producer;
        } else if (p->op() == "ReadVariableOp" && w == producer + ":value:0" && p->input_size() == 1) {
          const int resource = ArgIndex(body, p->input(0));
          const std::string& arg = p->input(0);
          if (!PassesThrough(body, resource) || !OnlyRead(body, arg) ||
              !OnlyRead(cond, cond.signature().input_arg_size() > resource
                                  ? cond.signature().input_arg(resource).name()
                                  : std::string())) {
            continue;
          }
          c.variable_arg = resource;
        } else {
          continue;
        }
      }
      found.push_back(std::move(c));
    }
  }
  return found;
}

class LoopProjectionHoisting : public GraphPass {
 public:
  std::string name() const override { return "loop_projection_hoisting"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    (void)ctx;  // the While keeps its name and outputs; it only gains one
    const int count = graph->num_nodes();
    for (int i = 0; i < count; ++i) {
      const std::string& op = graph->node(i).op;
      if (op != "While" && op != "StatelessWhile") continue;
      TFHOST_RETURN_IF_ERROR(HoistInto(graph, i));
    }
    return OkStatus();
  }

 private:
  // Adds node `op` with `attrs` (schema defaults filled) and its output
  // dtypes; returns its index.
  static StatusOr<int> Add(ir::Graph* graph, const std::string& base, const std::string& op,
                           std::vector<ir::TensorRef> inputs, ir::AttrMap attrs) {
    TFHOST_ASSIGN_OR_RETURN(ir::Node node, ops::MakeSingleOpNode(op, std::move(attrs)));
    node.name = graph->UniqueName(base);
    node.inputs = std::move(inputs);
    TFHOST_ASSIGN_OR_RETURN(node.output_dtypes, ir::OutputDTypes(ops::OpRegistry::Global().Find(op)->def, node));
    node.output_shapes.assign(node.output_dtypes.size(), ir::PartialShape::Unknown());
    return graph->AddNode(std::move(node));
  }

  static StatusOr<int> AddConst(ir::Graph* graph, const std::string& base, const Tensor& value) {
    return internal::AddConstNode(graph, base, value, {});
  }

  // The TensorListFromTensor behind loop input `k` of `loop`, or -1.
  static int ListSource(const ir::Graph& graph, const ir::Node& loop, int k) {
    if (k >= static_cast<int>(loop.inputs.size())) return -1;
    int id = loop.inputs[k].node;
    while (graph.node(id).op == "Identity" && !graph.node(id).inputs.empty()) id = graph.node(id).inputs[0].node;
    return graph.node(id).op == "TensorListFromTensor" ? id : -1;
  }

  Status HoistInto(ir::Graph* graph, int loop_id) {
    const ir::Node& loop = graph->node(loop_id);
    const tensorflow::AttrValue* body_attr = loop.FindAttr("body");
    const tensorflow::AttrValue* cond_attr = loop.FindAttr("cond");
    if (body_attr == nullptr || cond_attr == nullptr || !body_attr->has_func() || !cond_attr->has_func()) {
      return OkStatus();
    }
    const FunctionDef* body_def = graph->FindFunction(body_attr->func().name());
    const FunctionDef* cond_def = graph->FindFunction(cond_attr->func().name());
    if (body_def == nullptr || cond_def == nullptr) return OkStatus();
    const int vars = body_def->signature().input_arg_size();
    if (vars != static_cast<int>(loop.inputs.size()) || cond_def->signature().input_arg_size() != vars ||
        body_def->signature().output_arg_size() != vars) {
      return OkStatus();  // the runtime reports the mismatch
    }
    std::vector<Candidate> candidates = FindCandidates(*body_def, *cond_def);
    std::erase_if(candidates, [&](const Candidate& c) { return ListSource(*graph, loop, c.list_arg) < 0; });
    if (candidates.empty()) return OkStatus();

    FunctionDef body = *body_def;
    FunctionDef cond = *cond_def;
    const std::string base = loop.name + "/hoisted_projection";
    const std::string loop_name = loop.name;
    for (const Candidate& c : candidates) {
      int64_t units = -1;
      TFHOST_ASSIGN_OR_RETURN(int list, HoistOne(graph, graph->FindNode(loop_name), c, body, base, &units));
      // The new loop variable: the body returns it as is, cond ignores it.
      const std::string arg = "tfhost_projected_" + std::to_string(body.signature().input_arg_size());
      auto* in = body.mutable_signature()->add_input_arg();
      in->set_name(arg);
      in->set_type(tensorflow::DT_VARIANT);
      auto* out = body.mutable_signature()->add_output_arg();
      out->set_name(arg + "_out");
      out->set_type(tensorflow::DT_VARIANT);
      (*body.mutable_ret())[arg + "_out"] = arg;
      auto* cond_in = cond.mutable_signature()->add_input_arg();
      cond_in->set_name(arg);
      cond_in->set_type(tensorflow::DT_VARIANT);
      RewriteBody(body, c, arg, units);

      ir::Node& w = graph->mutable_node(graph->FindNode(loop_name));
      w.inputs.push_back(ir::TensorRef{list, 0});
      w.attrs["T"].mutable_list()->add_type(tensorflow::DT_VARIANT);
      if (auto it = w.attrs.find("output_shapes"); it != w.attrs.end() && it->second.has_list()) {
        it->second.mutable_list()->add_shape()->set_unknown_rank(true);
      }
      w.output_dtypes.push_back(DType::kVariant);
      if (!w.output_shapes.empty()) w.output_shapes.push_back(ir::PartialShape::Unknown());
    }
    std::string body_name = body_def->signature().name() + "_tfhost_hoisted";
    for (int n = 1; graph->FindFunction(body_name) != nullptr || graph->FindFunction(body_name + "_cond") != nullptr;
         ++n) {
      body_name = body_def->signature().name() + "_tfhost_hoisted_" + std::to_string(n);
    }
    const std::string cond_name = body_name + "_cond";
    body.mutable_signature()->set_name(body_name);
    cond.mutable_signature()->set_name(cond_name);
    *graph->mutable_library().add_function() = std::move(body);
    *graph->mutable_library().add_function() = std::move(cond);
    ir::Node& w = graph->mutable_node(graph->FindNode(loop_name));
    w.attrs["body"].mutable_func()->set_name(body_name);
    w.attrs["cond"].mutable_func()->set_name(cond_name);
    return OkStatus();
  }

  // Builds L' outside the loop; returns the TensorListFromTensor's index.
  // `units` gets N, the width of each product row, when the weights' static
  // shape says it (-1 otherwise).
  static StatusOr<int> HoistOne(ir::Graph* graph, int loop_id, const Candidate& c, const FunctionDef& body,
                                const std::string& base, int64_t* units) {
    const ir::Node loop = graph->node(loop_id);
    const ir::Node& source = graph->node(ListSource(*graph, loop, c.list_arg));
    const ir::TensorRef x = source.inputs[0];
    ir::TensorRef w;
    if (c.weight_arg >= 0) {
      w = loop.inputs[c.weight_arg];
    } else if (c.variable_arg >= 0) {
      const tensorflow::NodeDef* m = FindBodyNode(body, c.matmul);
      const tensorflow::NodeDef* read = FindBodyNode(body, m->input(1).substr(0, m->input(1).find(':')));
      ir::AttrMap attrs(read->attr().begin(), read->attr().end());
      auto id = Add(graph, base + "/weights", "ReadVariableOp", {loop.inputs[c.variable_arg]}, std::move(attrs));
      if (!id.ok()) return id.status();
      w = {*id, 0};
    } else {
      const tensorflow::NodeDef* k = FindBodyNode(body, c.weight_const);
      ir::Node holder;
      holder.attrs = ir::AttrMap(k->attr().begin(), k->attr().end());
      auto value = ir::GetAttr<Tensor>(holder, "value");
      if (!value.ok()) return value.status().WithContext("Const '" + c.weight_const + "' of a loop body");
      TFHOST_ASSIGN_OR_RETURN(int id, AddConst(graph, base + "/weights", *value));
      w = {id, 0};
    }
    auto slice = [&](const std::string& name, ir::TensorRef shape, int32_t from, int32_t to) -> StatusOr<int> {
      const std::string at = base + "/" + name;
      TFHOST_ASSIGN_OR_RETURN(int b, AddConst(graph, at + "/begin", Tensor::FromVector<int32_t>({from})));
      TFHOST_ASSIGN_OR_RETURN(int e, AddConst(graph, at + "/end", Tensor::FromVector<int32_t>({to})));
      TFHOST_ASSIGN_OR_RETURN(int s, AddConst(graph, at + "/strides", Tensor::FromVector<int32_t>({1})));
      const ir::AttrMap attrs = {{"T", ops::MakeAttr(DType::kInt32)}, {"Index", ops::MakeAttr(DType::kInt32)}};
      return Add(graph, at, "StridedSlice", {shape, {b, 0}, {e, 0}, {s, 0}}, attrs);
    };
    auto concat = [&](const std::string& name, ir::TensorRef a, ir::TensorRef b) -> StatusOr<int> {
      TFHOST_ASSIGN_OR_RETURN(int axis, AddConst(graph, base + "/" + name + "/axis", Tensor::Scalar<int32_t>(0)));
      const ir::AttrMap attrs = {{"N", ops::MakeAttr(2)}, {"T", ops::MakeAttr(DType::kInt32)},
                                 {"Tidx", ops::MakeAttr(DType::kInt32)}};
      return Add(graph, base + "/" + name, "ConcatV2", {a, b, {axis, 0}}, attrs);
    };
    *units = -1;
    if (const ir::Node& wn = graph->node(w.node); w.index < static_cast<int>(wn.output_shapes.size())) {
      const ir::PartialShape& ws = wn.output_shapes[w.index];
      if (ws.rank() == 2) *units = ws.dim(c.transpose_b ? 0 : 1);
    }
    const ir::AttrMap shape_attrs = {{"T", ops::MakeAttr(DType::kFloat)}, {"out_type", ops::MakeAttr(DType::kInt32)}};
    const ir::AttrMap matmul_attrs = {{"T", ops::MakeAttr(DType::kFloat)}, {"transpose_b", ops::MakeAttr(c.transpose_b)}};
    const ir::AttrMap list_attrs = {{"element_dtype", ops::MakeAttr(DType::kFloat)},
                                    {"shape_type", ops::MakeAttr(DType::kInt32)}};
    const ir::AttrMap reshape_attrs = {{"T", ops::MakeAttr(DType::kFloat)}, {"Tshape", ops::MakeAttr(DType::kInt32)}};
    // X is [T, B, D]: the rows of all steps, [T*B, D], times W is [T*B, N].
    TFHOST_ASSIGN_OR_RETURN(int x_shape, Add(graph, base + "/x_shape", "Shape", {x}, shape_attrs));
    TFHOST_ASSIGN_OR_RETURN(int depth, slice("depth", {x_shape, 0}, 2, 3));
    TFHOST_ASSIGN_OR_RETURN(int minus_one, AddConst(graph, base + "/minus_one", Tensor::FromVector<int32_t>({-1})));
    TFHOST_ASSIGN_OR_RETURN(int rows_shape, concat("rows_shape", {minus_one, 0}, {depth, 0}));
    TFHOST_ASSIGN_OR_RETURN(int rows, Add(graph, base + "/rows", "Reshape", {x, {rows_shape, 0}}, reshape_attrs));
    TFHOST_ASSIGN_OR_RETURN(int product, Add(graph, base + "/MatMul", "MatMul", {{rows, 0}, w}, matmul_attrs));
    TFHOST_ASSIGN_OR_RETURN(int p_shape, Add(graph, base + "/product_shape", "Shape", {{product, 0}}, shape_attrs));
    TFHOST_ASSIGN_OR_RETURN(int steps, slice("steps", {x_shape, 0}, 0, 2));
    TFHOST_ASSIGN_OR_RETURN(int width, slice("units", {p_shape, 0}, 1, 2));
    TFHOST_ASSIGN_OR_RETURN(int y_shape, concat("y_shape", {steps, 0}, {width, 0}));
    TFHOST_ASSIGN_OR_RETURN(int y, Add(graph, base + "/y", "Reshape", {{product, 0}, {y_shape, 0}}, reshape_attrs));
    TFHOST_ASSIGN_OR_RETURN(int any_shape, AddConst(graph, base + "/element_shape", Tensor::Scalar<int32_t>(-1)));
    return Add(graph, base + "/list", "TensorListFromTensor", {{y, 0}, {any_shape, 0}}, list_attrs);
  }

  // In `body`, m's output becomes TensorListGetItem(arg, i) and m goes. The
  // element shape given is [-1, units] when units is known, so the body's
  // static shapes stay as known as m's were.
  static void RewriteBody(FunctionDef& body, const Candidate& c, const std::string& arg, int64_t units) {
    const tensorflow::NodeDef* g = FindBodyNode(body, c.get_item);
    const std::string index = g->input(1);
    const std::string shape_name = c.matmul + "/tfhost_element_shape";
    const std::string item_name = c.matmul + "/tfhost_projected";
    tensorflow::NodeDef shape;
    shape.set_name(shape_name);
    shape.set_op("Const");
    (*shape.mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
    auto* t = (*shape.mutable_attr())["value"].mutable_tensor();
    t->set_dtype(tensorflow::DT_INT32);
    if (units >= 0 && units <= INT32_MAX) {
      t->mutable_tensor_shape()->add_dim()->set_size(2);
      t->add_int_val(-1);
      t->add_int_val(static_cast<int32_t>(units));
    } else {
      t->mutable_tensor_shape();
      t->add_int_val(-1);
    }
    tensorflow::NodeDef item;
    item.set_name(item_name);
    item.set_op("TensorListGetItem");
    item.add_input(arg);
    item.add_input(index);
    item.add_input(shape_name + ":output:0");
    (*item.mutable_attr())["element_dtype"].set_type(tensorflow::DT_FLOAT);

    const std::string from = c.matmul + ":product:0";
    const std::string to = item_name + ":item:0";
    auto* nodes = body.mutable_node_def();
    for (int k = 0; k < nodes->size(); ++k) {
      if ((*nodes)[k].name() == c.matmul) {
        nodes->DeleteSubrange(k, 1);
        --k;
        continue;
      }
      for (std::string& in : *(*nodes)[k].mutable_input()) {
        if (in == from) in = to;
        if (in == "^" + c.matmul) in = "^" + item_name;
      }
    }
    for (auto& [key, value] : *body.mutable_ret()) {
      if (value == from) value = to;
    }
    *body.add_node_def() = std::move(shape);
    *body.add_node_def() = std::move(item);
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeLoopProjectionHoisting() { return std::make_unique<LoopProjectionHoisting>(); }

}  // namespace tfhost::passes
