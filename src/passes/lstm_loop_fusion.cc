// lstm_loop_fusion: a While that runs one Keras LSTM layer over time becomes
// one _TfhostLstmLoop node (ops/nn/lstm_loop.h). At batch 1 a step is about
// 10 us of arithmetic (the 1 x units x 4 units recurrent product and the
// cell), and running it as a While costs the executor a dozen node runs and
// two function calls per step, as much again. ONNX Runtime and OpenVINO run
// an LSTM layer as one operator for the same reason.
//
// The body and condition are matched as they will run: each is
// instantiated and put through the default passes (so
// loop_projection_hoisting, which runs before this pass, has moved the input
// product out of the body, and lstm_cell_fusion has made the gates one
// _TfhostLstmCell). Matched when the optimized body is exactly
//   _ret[time] = time + 1, _ret[counter] = counter + 1 (int32 Consts 1)
//   _ret[outputs] = TensorListSetItem(outputs, time or a Const index, h')
//   h', c' = _TfhostLstmCell(TensorListGetItem(projection, time), MatMul(h, kernel), bias, c)
//     (x and y in either order; MatMul without transposes)
//   _ret[h] = h', _ret[c] = c', every other _ret[k] = argument k
// or, in a masked layer, h, c and the output state o kept where the step's
// mask is false (SelectV2 of Tile(TensorListGetItem(mask, time), [1, n])
// between the new value and the argument), o' stored in the outputs list;
// with no other node than those, their Consts and the arguments, and the
// condition is LogicalAnd of Less(counter, limit) and Less(time, Const
// steps), in either order. The While keeps its name, inputs and outputs; it
// only changes op and attrs, so nothing that reads it changes.
//
// Only where PassContext::has_fast_kernel says a backend other than the
// reference takes the fused node (the loader asks its backends, and says no
// when a GPU is loaded, whose products the host node would take): the
// reference loop would be slower than the While's fast kernels.
#include <algorithm>
#include <optional>

#include "ir/function_inliner.h"
#include "ops/nn/lstm_cell.h"
#include "ops/nn/lstm_loop.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

// A function instantiated and optimized, its arguments and results by
// position.
struct Instance {
  ir::Graph graph;
  std::vector<int> args;               // node of argument k
  std::vector<ir::TensorRef> results;  // what _ret returns as output k
};

// Whether a body is worth instantiating: an LSTM step has a MatMul and a
// TensorListSetItem among a few dozen nodes (Keras writes about 30).
bool MayBeLstmStep(const ir::Graph& graph, const tensorflow::AttrValue* attr) {
  if (attr == nullptr || !attr->has_func()) return false;
  const tensorflow::FunctionDef* f = graph.FindFunction(attr->func().name());
  if (f == nullptr || f->node_def_size() > 200) return false;
  bool product = false, write = false;
  for (const auto& n : f->node_def()) {
    product = product || n.op() == "MatMul";
    write = write || n.op() == "TensorListSetItem";
  }
  return product && write;
}

std::optional<Instance> Instantiate(const ir::Graph& graph, const tensorflow::AttrValue* attr, const PassContext& ctx) {
  if (attr == nullptr || !attr->has_func()) return std::nullopt;
  const ir::AttrMap attrs(attr->func().attr().begin(), attr->func().attr().end());
  auto fg = ir::InstantiateFunction(graph.library(), attr->func().name(), attrs, ops::OpRegistry::Global().Lookup());
  if (!fg.ok() || !ops::InferShapes(fg->graph).ok()) return std::nullopt;
  std::vector<std::string> roots = {"_ret"};
  for (size_t k = 0; k < fg->arg_types.size(); ++k) roots.push_back("_arg_" + std::to_string(k));
  PassContext body_ctx = PassContext::FromRoots(fg->graph, roots);
  body_ctx.keep_unconsumed = false;
  body_ctx.has_fast_kernel = ctx.has_fast_kernel;
  if (!PassManager::Default().Run(&fg->graph, body_ctx).ok()) return std::nullopt;
  Instance inst;
  inst.graph = std::move(fg->graph);
  for (size_t k = 0; k < fg->arg_types.size(); ++k) {
    const int id = inst.graph.FindNode("_arg_" + std::to_string(k));
    if (id < 0) return std::nullopt;
    inst.args.push_back(id);
  }
  const int ret = inst.graph.FindNode("_ret");
  if (ret < 0 || inst.graph.node(ret).op != "IdentityN") return std::nullopt;
  inst.results = inst.graph.node(ret).inputs;
  if (inst.results.size() != fg->ret_types.size()) return std::nullopt;
  for (const ir::Node& n : inst.graph.nodes()) {
    if (!n.control_inputs.empty()) return std::nullopt;
  }
  return inst;
}

// The argument position `ref` reads, or -1.
int ArgOf(const Instance& f, const ir::TensorRef& ref) {
  if (ref.index != 0) return -1;
  for (size_t k = 0; k < f.args.size(); ++k) {
    if (f.args[k] == ref.node) return static_cast<int>(k);
  }
  return -1;
}

// The value of an int32 one-element Const `ref` reads, if it is one.
std::optional<int32_t> Int32Scalar(const ir::Graph& g, const ir::TensorRef& ref) {
  auto v = internal::ConstValue(g, ref);
  if (!v || v->dtype() != DType::kInt32 || v->NumElements() != 1) return std::nullopt;
  return v->data<int32_t>()[0];
}

// `ref` is arg + 1 (AddV2 or Add of int32, either order): the argument, or -1.
int IncrementedArg(const Instance& f, const ir::TensorRef& ref, std::vector<int>* used) {
  const ir::Node& n = f.graph.node(ref.node);
  if (ref.index != 0 || (n.op != "AddV2" && n.op != "Add") || n.inputs.size() != 2) return -1;
  for (int side = 0; side < 2; ++side) {
    const int arg = ArgOf(f, n.inputs[side]);
    if (arg >= 0 && Int32Scalar(f.graph, n.inputs[1 - side]) == 1) {
      used->push_back(ref.node);
      used->push_back(n.inputs[1 - side].node);
      return arg;
    }
  }
  return -1;
}

bool BoolAttr(const ir::Node& n, const char* key) {
  auto v = ir::GetAttrOr<bool>(n, key, false);
  return !v.ok() || *v;  // unreadable counts as set: no match
}

bool FloatElements(const ir::Node& n) {
  auto v = ir::GetAttrOr<DType>(n, "element_dtype", DType::kInvalid);
  return v.ok() && *v == DType::kFloat;
}

// A masked layer's state: `ref` is SelectV2(m, from, argument k), with m
// the same node for every state (`*mask`, -1 until the first); k, or -1.
int KeptArg(const Instance& f, const ir::TensorRef& ref, const ir::TensorRef& from, int* mask,
            std::vector<int>* used) {
  const ir::Node& s = f.graph.node(ref.node);
  if (ref.index != 0 || s.op != "SelectV2" || s.inputs.size() != 3 || s.inputs[1] != from ||
      s.inputs[0].index != 0 || !internal::IsFloatNode(s)) {
    return -1;
  }
  if (*mask >= 0 && s.inputs[0].node != *mask) return -1;
  *mask = s.inputs[0].node;
  used->push_back(ref.node);
  return ArgOf(f, s.inputs[2]);
}

// m = Tile(TensorListGetItem(mask list, time), [1, n]): sets r.mask and
// r.mask_units (n; the kernel checks it is 1 or the units).
bool MatchMask(const Instance& f, int tile, ops::nn::LstmLoopRoles* r, std::vector<int>* used) {
  const ir::Graph& g = f.graph;
  const ir::Node& t = g.node(tile);
  if (t.op != "Tile" || t.inputs.size() != 2 || t.inputs[0].index != 0) return false;
  auto multiples = internal::ConstValue(g, t.inputs[1]);
  if (!multiples || multiples->dtype() != DType::kInt32 || multiples->NumElements() != 2 ||
      multiples->data<int32_t>()[0] != 1) {
    return false;
  }
  const ir::Node& item = g.node(t.inputs[0].node);
  auto dtype = ir::GetAttrOr<DType>(item, "element_dtype", DType::kInvalid);
  if (item.op != "TensorListGetItem" || item.inputs.size() != 3 || !dtype.ok() || *dtype != DType::kBool ||
      ArgOf(f, item.inputs[1]) != r->time || !internal::ConstValue(g, item.inputs[2])) {
    return false;
  }
  r->mask = ArgOf(f, item.inputs[0]);
  r->mask_units = multiples->data<int32_t>()[1];
  used->insert(used->end(), {tile, t.inputs[1].node, t.inputs[0].node, item.inputs[2].node});
  return r->mask >= 0;
}

std::optional<ops::nn::LstmLoopRoles> MatchBody(const Instance& f, std::vector<int>* used) {
  ops::nn::LstmLoopRoles r;
  const ir::Graph& g = f.graph;
  int cell = -1;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (g.node(i).op != ops::nn::kLstmCellOp) continue;
    if (cell >= 0) return std::nullopt;
    cell = i;
  }
  if (cell < 0 || g.node(cell).inputs.size() != 4) return std::nullopt;
  used->push_back(cell);
  const ir::Node& cn = g.node(cell);
  const ir::TensorRef h_new{cell, 0}, c_new{cell, 1};
  r.bias = ArgOf(f, cn.inputs[2]);
  r.c = ArgOf(f, cn.inputs[3]);
  // x and y: the projection's element and the recurrent product.
  int matmul = -1, get_item = -1;
  for (int side = 0; side < 2; ++side) {
    const ir::TensorRef a = cn.inputs[side], b = cn.inputs[1 - side];
    if (a.index != 0 || b.index != 0) continue;
    if (g.node(a.node).op == "MatMul" && g.node(b.node).op == "TensorListGetItem") {
      matmul = a.node;
      get_item = b.node;
    }
  }
  if (matmul < 0 || r.bias < 0 || r.c < 0) return std::nullopt;
  const ir::Node& mm = g.node(matmul);
  if (mm.inputs.size() != 2 || !internal::IsFloatNode(mm) || BoolAttr(mm, "transpose_a") ||
      BoolAttr(mm, "transpose_b")) {
    return std::nullopt;
  }
  r.h = ArgOf(f, mm.inputs[0]);
  r.kernel = ArgOf(f, mm.inputs[1]);
  const ir::Node& gi = g.node(get_item);
  if (r.h < 0 || r.kernel < 0 || gi.inputs.size() != 3 || !FloatElements(gi)) return std::nullopt;
  r.projection = ArgOf(f, gi.inputs[0]);
  r.time = ArgOf(f, gi.inputs[1]);
  if (r.projection < 0 || r.time < 0 || !internal::ConstValue(g, gi.inputs[2])) return std::nullopt;
  used->insert(used->end(), {matmul, get_item, gi.inputs[2].node});
  // h and c: the cell's outputs, or in a masked layer SelectV2s keeping the
  // state's last value where the mask is false.
  int mask = -1;
  const bool masked = f.results[r.h] != h_new;
  if (masked) {
    if (KeptArg(f, f.results[r.h], h_new, &mask, used) != r.h ||
        KeptArg(f, f.results[r.c], c_new, &mask, used) != r.c) {
      return std::nullopt;
    }
  } else if (f.results[r.c] != c_new) {
    return std::nullopt;
  }
  // outputs = TensorListSetItem(outputs, time, h'), or the output state o'.
  for (size_t k = 0; k < f.results.size(); ++k) {
    const ir::Node& s = g.node(f.results[k].node);
    if (s.op != "TensorListSetItem" || f.results[k].index != 0) continue;
    if (s.inputs.size() != 3 || ArgOf(f, s.inputs[0]) != static_cast<int>(k) || !FloatElements(s) ||
        BoolAttr(s, "resize_if_index_out_of_bounds") || r.outputs >= 0) {
      return std::nullopt;
    }
    if (!masked && s.inputs[2] != h_new) return std::nullopt;
    if (masked) {
      r.output_state = KeptArg(f, s.inputs[2], h_new, &mask, used);
      if (r.output_state < 0 || f.results[r.output_state] != s.inputs[2]) return std::nullopt;
    }
    if (ArgOf(f, s.inputs[1]) != r.time) {
      const std::optional<int32_t> slot = Int32Scalar(g, s.inputs[1]);
      if (!slot || *slot < 0) return std::nullopt;
      r.output_slot = *slot;
      used->push_back(s.inputs[1].node);
    }
    r.outputs = static_cast<int>(k);
    used->push_back(f.results[k].node);
  }
  if (r.outputs < 0 || IncrementedArg(f, f.results[r.time], used) != r.time) return std::nullopt;
  if (masked && !MatchMask(f, mask, &r, used)) return std::nullopt;
  for (size_t k = 0; k < f.results.size(); ++k) {
    const int kk = static_cast<int>(k);
    if (kk == r.time || kk == r.outputs || kk == r.h || kk == r.c || kk == r.output_state) continue;
    if (ArgOf(f, f.results[k]) == kk) continue;
    if (r.counter >= 0 || IncrementedArg(f, f.results[k], used) != kk) return std::nullopt;
    r.counter = kk;
  }
  if (r.counter < 0) return std::nullopt;
  return r;
}

// Less(arg a, arg b) as (a, b); b = -1 with `bound` set for Less(arg, Const).
bool MatchLess(const Instance& f, const ir::TensorRef& ref, int* a, int* b, int64_t* bound, std::vector<int>* used) {
  const ir::Node& n = f.graph.node(ref.node);
  if (ref.index != 0 || n.op != "Less" || n.inputs.size() != 2) return false;
  *a = ArgOf(f, n.inputs[0]);
  *b = ArgOf(f, n.inputs[1]);
  if (*a < 0) return false;
  used->push_back(ref.node);
  if (*b >= 0) return true;
  const std::optional<int32_t> v = Int32Scalar(f.graph, n.inputs[1]);
  if (!v) return false;
  *bound = *v;
  used->push_back(n.inputs[1].node);
  return true;
}

bool MatchCond(const Instance& f, ops::nn::LstmLoopRoles* r, std::vector<int>* used) {
  if (f.results.size() != 1) return false;
  const ir::Node& n = f.graph.node(f.results[0].node);
  if (f.results[0].index != 0 || n.op != "LogicalAnd" || n.inputs.size() != 2) return false;
  used->push_back(f.results[0].node);
  bool counted = false, timed = false;
  for (const ir::TensorRef& side : n.inputs) {
    int a = -1, b = -1;
    int64_t bound = 0;
    if (!MatchLess(f, side, &a, &b, &bound, used)) return false;
    if (a == r->counter && b >= 0 && !counted) {
      r->limit = b;
      counted = true;
    } else if (a == r->time && b < 0 && !timed) {
      r->steps = bound;
      timed = true;
    } else {
      return false;
    }
  }
  return counted && timed && r->steps >= 0;
}

// Whether every node of `f` is an argument, _ret, a Const or in `used`.
bool NothingElse(const Instance& f, const std::vector<int>& used) {
  for (int i = 0; i < f.graph.num_nodes(); ++i) {
    const ir::Node& n = f.graph.node(i);
    if (n.op == "Const" || n.name == "_ret" || std::find(f.args.begin(), f.args.end(), i) != f.args.end()) continue;
    if (std::find(used.begin(), used.end(), i) == used.end()) return false;
  }
  return true;
}

class LstmLoopFusion : public GraphPass {
 public:
  std::string name() const override { return "lstm_loop_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& loop = graph->node(i);
      if (loop.op != "While" && loop.op != "StatelessWhile") continue;
      std::optional<ir::Node> fused = Fuse(*graph, loop, ctx);
      if (fused) graph->mutable_node(i) = std::move(*fused);
    }
    return OkStatus();
  }

 private:
  static std::optional<ir::Node> Fuse(const ir::Graph& graph, const ir::Node& loop, const PassContext& ctx) {
    const size_t vars = loop.inputs.size();
    if (loop.output_dtypes.size() != vars || !loop.control_inputs.empty() ||
        !MayBeLstmStep(graph, loop.FindAttr("body"))) {
      return std::nullopt;
    }
    std::optional<Instance> body = Instantiate(graph, loop.FindAttr("body"), ctx);
    if (!body || body->args.size() != vars || body->results.size() != vars) return std::nullopt;
    std::vector<int> used;
    std::optional<ops::nn::LstmLoopRoles> roles = MatchBody(*body, &used);
    if (!roles || !NothingElse(*body, used)) return std::nullopt;
    std::optional<Instance> cond = Instantiate(graph, loop.FindAttr("cond"), ctx);
    used.clear();
    if (!cond || cond->args.size() != vars || !MatchCond(*cond, &*roles, &used) || !NothingElse(*cond, used)) {
      return std::nullopt;
    }
    const int positions[] = {roles->counter, roles->limit,      roles->time,   roles->outputs, roles->h,
                             roles->c,       roles->projection, roles->kernel, roles->bias,
                             roles->mask,    roles->output_state};
    const DType expected[] = {DType::kInt32, DType::kInt32,   DType::kInt32, DType::kVariant,
                              DType::kFloat, DType::kFloat,   DType::kVariant, DType::kFloat,
                              DType::kFloat, DType::kVariant, DType::kFloat};
    for (size_t a = 0; a < std::size(positions); ++a) {
      if (positions[a] < 0) continue;  // an unmasked layer's mask and output state
      if (loop.output_dtypes[positions[a]] != expected[a]) return std::nullopt;
      for (size_t b = a + 1; b < std::size(positions); ++b) {
        if (positions[a] == positions[b]) return std::nullopt;
      }
    }
    ir::Node fused = loop;
    fused.op = ops::nn::kLstmLoopOp;
    fused.attrs.clear();
    fused.attrs["T"] = loop.attrs.at("T");
    for (size_t a = 0; a < std::size(ops::nn::kLstmLoopRoleAttrs); ++a) {
      fused.attrs[ops::nn::kLstmLoopRoleAttrs[a]] = ops::MakeAttr(static_cast<int64_t>(positions[a]));
    }
    if (roles->mask >= 0) {
      fused.attrs["mask_index"] = ops::MakeAttr(static_cast<int64_t>(roles->mask));
      fused.attrs["output_state_index"] = ops::MakeAttr(static_cast<int64_t>(roles->output_state));
      fused.attrs["mask_units"] = ops::MakeAttr(roles->mask_units);
    }
    fused.attrs["steps"] = ops::MakeAttr(roles->steps);
    fused.attrs["output_slot"] = ops::MakeAttr(roles->output_slot);
    if (ctx.has_fast_kernel && !ctx.has_fast_kernel(fused)) return std::nullopt;
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeLstmLoopFusion() { return std::make_unique<LstmLoopFusion>(); }

}  // namespace tfhost::passes
