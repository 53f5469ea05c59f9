// If and Loop, whose bodies are GraphProto attributes.
//
// If: a one-element bool picks then_branch or else_branch, two subgraphs
// whose outputs become the node's. ONNX branches take no inputs; they read
// the enclosing graph's values by name. TensorFlow's functions see only
// their arguments, so each branch becomes a library function whose
// arguments are the values the two branches read from outside (in the same
// order for both), and the node becomes a StatelessIf passing them. Values
// read from outside that are constants at load are bound inside the branch
// instead, where the op mappers can use them (shapes, axes).
//
// Loop: the body maps (iteration, condition, N carried values) to (next
// condition, N next values, K scan values), while the iteration is below the
// trip count M and the condition holds (either may be absent). It becomes a
// StatelessWhile over [iteration, condition, N values, K TensorLists, M,
// the values the body reads from outside]: the body function is the ONNX
// body plus the iteration's increment and one TensorListPushBack per scan
// value, and the node's scan outputs are the lists stacked after the loop
// (each iteration's value along a new first axis, as ONNX defines them).
//
// Scan (opset 9+) is a Loop whose trip count is the scan inputs' first
// dimension: the loader writes it as one, with a body that first Gathers
// each scan input's slice for the iteration under the name the Scan body
// gives it, then runs the Scan body. Axes and directions other than 0 and
// forward are refused by name.
#include <set>

#include "ir/op_def_util.h"
#include "ir/type_attr_inference.h"
#include "loaders/graph_function.h"
#include "loaders/onnx/onnx_graph_builder.h"
#include "loaders/onnx/onnx_ops.h"
#include "ops/op_registry.h"

namespace tfhost::loaders::onnx {

namespace {

// `base` made unique among the model's functions.
std::string UniqueFunctionName(const ir::Graph& root, const std::string& base) {
  std::string name = base;
  for (int n = 1; root.FindFunction(name) != nullptr; ++n) name = base + "_" + std::to_string(n);
  return name;
}

// The mappers leave index-type attrs to be inferred, as the loader does
// for the model's own graph.
Status InferTypeAttrs(ir::Graph& body) {
  std::vector<int> all(body.num_nodes());
  for (int i = 0; i < body.num_nodes(); ++i) all[i] = i;
  return ir::InferMissingTypeAttrs(body, ops::OpRegistry::Global().Lookup(), all);
}

struct Capture {
  std::string name;
  DType dtype;
  ir::PartialShape shape;
};

const ::onnx::GraphProto* Branch(const NodeContext& ctx, const std::string& name) {
  for (const auto& a : ctx.node->attribute()) {
    if (a.name() == name && a.has_g()) return &a.g();
  }
  return nullptr;
}

// Builds `branch` into a library function of the model named `fname`;
// returns its result types.
StatusOr<std::vector<DType>> BuildBranch(const NodeContext& ctx, const ::onnx::GraphProto& branch,
                                         const std::string& fname, const std::vector<Capture>& captures,
                                         const std::string& what) {
  const std::string where = ctx.where + " " + what;
  ir::Graph body;
  GraphBuilder b(branch, ctx.b->path(), ctx.b->model_dir(), ctx.b->opset(), &body);
  b.set_root(ctx.b->root());
  FunctionBoundary boundary;
  for (const Capture& c : captures) {
    TFHOST_ASSIGN_OR_RETURN(int node, b.AddCapture(c.name, c.dtype, c.shape));
    boundary.arg_nodes.push_back(node);
    boundary.arg_types.push_back(c.dtype);
  }
  // Constants from outside are bound as constants, not passed.
  for (const std::string& name : FreeValueNames(branch)) {
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* outer, ctx.b->Value(name));
    if (outer->constant.has_value()) TFHOST_RETURN_IF_ERROR(b.BindConstant(name, *outer->constant));
  }
  Status built = b.Build();
  if (!built.ok()) return built.WithContext(where);
  if (branch.output_size() == 0) return ctx.Error(what + " has no outputs");
  for (const auto& out : branch.output()) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b.Ref(out.name()));
    boundary.rets.push_back(ref);
    auto declared = DeclaredType(out, where + " output '" + out.name() + "'");
    boundary.ret_types.push_back(declared.ok() ? declared->first : DType::kInvalid);
  }
  TFHOST_RETURN_IF_ERROR(InferTypeAttrs(body));
  TFHOST_ASSIGN_OR_RETURN(tensorflow::FunctionDef fdef, GraphToFunctionDef(body, fname, boundary, where));
  std::vector<DType> types;
  for (const auto& arg : fdef.signature().output_arg()) types.push_back(static_cast<DType>(arg.type()));
  *ctx.b->root()->mutable_library().add_function() = std::move(fdef);
  return types;
}

Status MapIf(const NodeContext& ctx) {
  const ::onnx::GraphProto* then_branch = Branch(ctx, "then_branch");
  const ::onnx::GraphProto* else_branch = Branch(ctx, "else_branch");
  if (then_branch == nullptr || else_branch == nullptr) {
    return ctx.Error("needs graph attributes 'then_branch' and 'else_branch'");
  }
  // The values either branch reads from outside, passed to both.
  std::vector<Capture> captures;
  std::set<std::string> seen;
  std::vector<ir::TensorRef> args;
  for (const auto* branch : {then_branch, else_branch}) {
    for (const std::string& name : FreeValueNames(*branch)) {
      if (!seen.insert(name).second) continue;
      auto outer = ctx.b->Value(name);
      if (!outer.ok()) {
        return ctx.Error("a branch reads '" + name + "', which the enclosing graph does not define");
      }
      if ((*outer)->constant.has_value()) continue;
      if ((*outer)->dtype == DType::kInvalid) {
        return ctx.Unsupported("a branch reads '" + name + "', whose type is not known at load");
      }
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, ctx.b->Ref(name));
      args.push_back(ref);
      captures.push_back({name, (*outer)->dtype, (*outer)->shape});
    }
  }
  const std::string base = NodeNameFromValueName(ctx.node->output(0));
  const std::string then_name = UniqueFunctionName(*ctx.b->root(), base + "_then");
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> then_types,
                          BuildBranch(ctx, *then_branch, then_name, captures, "then_branch"));
  const std::string else_name = UniqueFunctionName(*ctx.b->root(), base + "_else");
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> else_types,
                          BuildBranch(ctx, *else_branch, else_name, captures, "else_branch"));
  if (then_types != else_types) {
    return ctx.Error("then_branch returns " + std::to_string(then_types.size()) + " values and else_branch " +
                     std::to_string(else_types.size()) + ", or of other types; both must return the same");
  }
  if (static_cast<int>(then_types.size()) < ctx.node->output_size()) {
    return ctx.Error("has " + std::to_string(ctx.node->output_size()) + " outputs but its branches return " +
                     std::to_string(then_types.size()));
  }
  // The condition holds one bool; TensorFlow's If tests a scalar.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cond, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const("scalar_shape", Int64Vector({})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cond_scalar, ctx.Helper("cond", "Reshape", {cond, scalar}));
  std::vector<ir::TensorRef> inputs = {cond_scalar};
  inputs.insert(inputs.end(), args.begin(), args.end());
  ir::AttrMap attrs;
  attrs["Tcond"] = TypeAttr(DType::kBool);
  std::vector<DType> tin;
  for (const Capture& c : captures) tin.push_back(c.dtype);
  attrs["Tin"] = TypeListAttr(tin);
  attrs["Tout"] = TypeListAttr(then_types);
  attrs["then_branch"].mutable_func()->set_name(then_name);
  attrs["else_branch"].mutable_func()->set_name(else_name);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef node, ctx.Helper("If", "StatelessIf", std::move(inputs), std::move(attrs)));
  for (int i = 0; i < ctx.node->output_size(); ++i) {
    TFHOST_RETURN_IF_ERROR(
        ctx.BindOutput(i, ir::TensorRef{node.node, i}, then_types[i], ir::PartialShape::Unknown()));
  }
  return OkStatus();
}

// The condition function of a Loop: iteration < M and condition, over all
// the loop variables (`types`).
StatusOr<std::string> BuildLoopCondition(const NodeContext& ctx, const std::vector<DType>& types, int m_index,
                                         bool has_trip_count, const std::string& fname) {
  ir::Graph body;
  FunctionBoundary boundary;
  boundary.arg_types = types;
  std::vector<ir::TensorRef> args;
  for (size_t k = 0; k < types.size(); ++k) {
    ir::Node node;
    node.name = "arg" + std::to_string(k);
    node.op = "Placeholder";
    node.attrs["dtype"] = TypeAttr(types[k]);
    TFHOST_ASSIGN_OR_RETURN(int id, body.AddNode(std::move(node)));
    boundary.arg_nodes.push_back(id);
    args.push_back(ir::TensorRef{id, 0});
  }
  ir::TensorRef result = args[1];
  if (has_trip_count) {
    ir::Node less;
    less.name = "below_trip_count";
    less.op = "Less";
    less.inputs = {args[0], args[m_index]};
    TFHOST_ASSIGN_OR_RETURN(int less_id, body.AddNode(std::move(less)));
    ir::Node both;
    both.name = "keep_going";
    both.op = "LogicalAnd";
    both.inputs = {ir::TensorRef{less_id, 0}, args[1]};
    TFHOST_ASSIGN_OR_RETURN(int both_id, body.AddNode(std::move(both)));
    result = ir::TensorRef{both_id, 0};
  }
  // A tf2onnx body declares its iteration number [1]; the While tests a
  // scalar (a [1] condition would read as "has elements").
  ir::Node node;
  node.name = "scalar_shape";
  ir::SetConstValue(&node, Tensor(DType::kInt32, Shape({0})));
  TFHOST_ASSIGN_OR_RETURN(int shape_id, body.AddNode(std::move(node)));
  ir::Node scalar;
  scalar.name = "keep_going_scalar";
  scalar.op = "Reshape";
  scalar.inputs = {result, ir::TensorRef{shape_id, 0}};
  TFHOST_ASSIGN_OR_RETURN(int scalar_id, body.AddNode(std::move(scalar)));
  boundary.rets = {ir::TensorRef{scalar_id, 0}};
  boundary.ret_types = {DType::kBool};
  TFHOST_RETURN_IF_ERROR(InferTypeAttrs(body));
  TFHOST_ASSIGN_OR_RETURN(tensorflow::FunctionDef fdef,
                          GraphToFunctionDef(body, fname, boundary, ctx.where + " condition"));
  *ctx.b->root()->mutable_library().add_function() = std::move(fdef);
  return fname;
}

Status MapLoop(const NodeContext& ctx) {
  const ::onnx::GraphProto* body_proto = Branch(ctx, "body");
  if (body_proto == nullptr) return ctx.Error("needs the graph attribute 'body'");
  const int carried = ctx.node->input_size() - 2;
  if (carried < 0) return ctx.Error("needs inputs M and cond (either may be empty)");
  if (body_proto->input_size() != carried + 2) {
    return ctx.Error("has " + std::to_string(carried) + " carried values but its body takes " +
                     std::to_string(body_proto->input_size()) + " inputs; expected " + std::to_string(carried + 2));
  }
  const int scans = body_proto->output_size() - 1 - carried;
  if (scans < 0) {
    return ctx.Error("its body returns " + std::to_string(body_proto->output_size()) + " values; expected at least " +
                     std::to_string(carried + 1));
  }
  const bool has_trip_count = ctx.Has(0);
  // The values the body reads from outside.
  std::vector<Capture> captures;
  std::vector<ir::TensorRef> capture_refs;
  for (const std::string& name : FreeValueNames(*body_proto)) {
    auto outer = ctx.b->Value(name);
    if (!outer.ok()) return ctx.Error("its body reads '" + name + "', which the enclosing graph does not define");
    if ((*outer)->constant.has_value()) continue;
    if ((*outer)->dtype == DType::kInvalid) {
      return ctx.Unsupported("its body reads '" + name + "', whose type is not known at load");
    }
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, ctx.b->Ref(name));
    capture_refs.push_back(ref);
    captures.push_back({name, (*outer)->dtype, (*outer)->shape});
  }
  // The body: the ONNX graph with its inputs as arguments 0..N+1, then the
  // scan lists, M and the captures.
  const std::string where = ctx.where + " body";
  ir::Graph body;
  GraphBuilder b(*body_proto, ctx.b->path(), ctx.b->model_dir(), ctx.b->opset(), &body);
  b.set_root(ctx.b->root());
  std::vector<int> list_nodes;
  for (int k = 0; k < scans; ++k) {
    TFHOST_ASSIGN_OR_RETURN(int id, b.AddCapture("tfhost_scan_list_" + std::to_string(k), DType::kVariant,
                                                 ir::PartialShape::Scalar()));
    list_nodes.push_back(id);
  }
  TFHOST_ASSIGN_OR_RETURN(int m_node, b.AddCapture("tfhost_trip_count", DType::kInt64, ir::PartialShape::Scalar()));
  std::vector<int> capture_nodes;
  for (const Capture& c : captures) {
    TFHOST_ASSIGN_OR_RETURN(int id, b.AddCapture(c.name, c.dtype, c.shape));
    capture_nodes.push_back(id);
  }
  for (const std::string& name : FreeValueNames(*body_proto)) {
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* outer, ctx.b->Value(name));
    if (outer->constant.has_value()) TFHOST_RETURN_IF_ERROR(b.BindConstant(name, *outer->constant));
  }
  Status built = b.Build();
  if (!built.ok()) return built.WithContext(where);

  FunctionBoundary boundary;
  std::vector<DType> types;
  for (int k = 0; k < carried + 2; ++k) {
    const std::string& name = body_proto->input(k).name();
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* vi, b.Value(name));
    if (vi->dtype == DType::kInvalid) return ctx.Unsupported("a body input '" + name + "' of unknown type");
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b.Ref(name));
    boundary.arg_nodes.push_back(ref.node);
    types.push_back(k == 0 ? DType::kInt64 : k == 1 ? DType::kBool : vi->dtype);
  }
  // Types of the scan values, for the lists that collect them.
  std::vector<DType> scan_types;
  for (int k = 0; k < scans; ++k) {
    const auto& out = body_proto->output(1 + carried + k);
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* vi, b.Value(out.name()));
    if (vi->dtype == DType::kInvalid) return ctx.Unsupported("scan output '" + out.name() + "' of unknown type");
    scan_types.push_back(vi->dtype);
    types.push_back(DType::kVariant);
    boundary.arg_nodes.push_back(list_nodes[k]);
  }
  const int m_index = static_cast<int>(types.size());
  types.push_back(DType::kInt64);
  boundary.arg_nodes.push_back(m_node);
  for (size_t k = 0; k < captures.size(); ++k) {
    types.push_back(captures[k].dtype);
    boundary.arg_nodes.push_back(capture_nodes[k]);
  }
  boundary.arg_types = types;
  // Results: iteration + 1, the next condition and values, the lists with
  // this iteration's scan values pushed, M and the captures unchanged.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef iteration, b.Ref(body_proto->input(0).name()));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, b.AddConst("tfhost_one", Tensor::Scalar<int64_t>(1)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef next, b.AddNode("tfhost_next_iteration", "AddV2", {iteration, one}));
  boundary.rets.push_back(next);
  for (int k = 0; k < 1 + carried; ++k) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, b.Ref(body_proto->output(k).name()));
    boundary.rets.push_back(ref);
  }
  for (int k = 0; k < scans; ++k) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef value, b.Ref(body_proto->output(1 + carried + k).name()));
    ir::AttrMap attrs;
    attrs["element_dtype"] = TypeAttr(scan_types[k]);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pushed, b.AddNode("tfhost_scan_push_" + std::to_string(k),
                                                            "TensorListPushBack",
                                                            {ir::TensorRef{list_nodes[k], 0}, value}, attrs));
    boundary.rets.push_back(pushed);
  }
  boundary.rets.push_back(ir::TensorRef{m_node, 0});
  for (int id : capture_nodes) boundary.rets.push_back(ir::TensorRef{id, 0});
  boundary.ret_types = types;
  TFHOST_RETURN_IF_ERROR(InferTypeAttrs(body));
  const std::string base = NodeNameFromValueName(ctx.node->output(0).empty() ? "loop" : ctx.node->output(0));
  const std::string body_name = UniqueFunctionName(*ctx.b->root(), base + "_body");
  TFHOST_ASSIGN_OR_RETURN(tensorflow::FunctionDef fdef, GraphToFunctionDef(body, body_name, boundary, where));
  *ctx.b->root()->mutable_library().add_function() = std::move(fdef);
  const std::string cond_name = UniqueFunctionName(*ctx.b->root(), base + "_cond");
  TFHOST_RETURN_IF_ERROR(BuildLoopCondition(ctx, types, m_index, has_trip_count, cond_name).status());

  // The loop's initial values.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scalar, ctx.Const("scalar_shape", Int64Vector({})));
  std::vector<ir::TensorRef> inputs;
  // The iteration number has the shape the body declares for it: a scalar
  // as ONNX defines it, or [1] as tf2onnx writes it.
  auto declared_iteration = DeclaredType(body_proto->input(0), where);
  const bool iteration_is_vector = declared_iteration.ok() && declared_iteration->second.rank() == 1;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const("first_iteration", iteration_is_vector
                                                                            ? Tensor::FromVector<int64_t>({0})
                                                                            : Tensor::Scalar<int64_t>(0)));
  inputs.push_back(zero);
  if (ctx.Has(1)) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef cond, ctx.In(1));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c, ctx.Helper("cond", "Reshape", {cond, scalar}));
    inputs.push_back(c);
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef t, ctx.Const("always", Tensor::Scalar<bool>(true)));
    inputs.push_back(t);
  }
  for (int k = 0; k < carried; ++k) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef v, ctx.In(2 + k));
    inputs.push_back(v);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef any_shape, ctx.Const("any_element_shape", Tensor::Scalar<int32_t>(-1)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef no_limit, ctx.Const("no_element_limit", Tensor::Scalar<int32_t>(-1)));
  for (int k = 0; k < scans; ++k) {
    ir::AttrMap attrs;
    attrs["element_dtype"] = TypeAttr(scan_types[k]);
    attrs["shape_type"] = TypeAttr(DType::kInt32);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef list, ctx.Helper("scan_list_" + std::to_string(k), "EmptyTensorList",
                                                           {any_shape, no_limit}, std::move(attrs)));
    inputs.push_back(list);
  }
  if (has_trip_count) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef m, ctx.In(0));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ms, ctx.Helper("trip_count", "Reshape", {m, scalar}));
    inputs.push_back(ms);
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ms, ctx.Const("no_trip_count", Tensor::Scalar<int64_t>(0)));
    inputs.push_back(ms);
  }
  inputs.insert(inputs.end(), capture_refs.begin(), capture_refs.end());
  ir::AttrMap attrs;
  attrs["T"] = TypeListAttr(types);
  attrs["cond"].mutable_func()->set_name(cond_name);
  attrs["body"].mutable_func()->set_name(body_name);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef loop, ctx.Helper("While", "StatelessWhile", std::move(inputs), std::move(attrs)));
  for (int k = 0; k < carried; ++k) {
    TFHOST_RETURN_IF_ERROR(ctx.BindOutput(k, ir::TensorRef{loop.node, 2 + k}, types[2 + k], ir::PartialShape::Unknown()));
  }
  for (int k = 0; k < scans; ++k) {
    if (carried + k >= ctx.node->output_size() || ctx.node->output(carried + k).empty()) continue;
    ir::AttrMap stack_attrs;
    stack_attrs["element_dtype"] = TypeAttr(scan_types[k]);
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef stacked,
                            ctx.Helper("scan_output_" + std::to_string(k), "TensorListStack",
                                       {ir::TensorRef{loop.node, 2 + carried + k}, any_shape}, std::move(stack_attrs)));
    TFHOST_RETURN_IF_ERROR(ctx.BindOutput(carried + k, stacked, scan_types[k], ir::PartialShape::Unknown()));
  }
  return OkStatus();
}

Status MapScan(const NodeContext& ctx) {
  const ::onnx::GraphProto* body = Branch(ctx, "body");
  if (body == nullptr) return ctx.Error("needs the graph attribute 'body'");
  TFHOST_ASSIGN_OR_RETURN(int64_t num_scan_inputs, ctx.Int("num_scan_inputs", -1));
  for (const char* attr : {"scan_input_axes", "scan_output_axes", "scan_input_directions", "scan_output_directions"}) {
    TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.Ints(attr));
    for (int64_t x : v) {
      if (x != 0) return ctx.Unsupported(std::string(attr) + " other than 0 (the first axis, forward)");
    }
  }
  const int inputs = ctx.node->input_size();
  const int states = inputs - static_cast<int>(num_scan_inputs);
  if (num_scan_inputs < 1 || states < 0) {
    return ctx.Error("num_scan_inputs " + std::to_string(num_scan_inputs) + " does not fit its " +
                     std::to_string(inputs) + " inputs");
  }
  if (body->input_size() != inputs) {
    return ctx.Error("its body takes " + std::to_string(body->input_size()) + " inputs; expected " +
                     std::to_string(inputs));
  }
  const std::string base = NodeNameFromValueName(ctx.node->output_size() > 0 ? ctx.node->output(0) : "scan");
  // M: the first scan input's length.
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef first_scan, ctx.In(states));
  ir::AttrMap shape_attrs;
  shape_attrs["out_type"] = TypeAttr(DType::kInt64);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape, ctx.Helper("scan_shape", "Shape", {first_scan}, std::move(shape_attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis0, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const("dim0", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef length, ctx.Helper("scan_length", "GatherV2", {shape, zero, axis0}));
  const std::string length_name = base + "/tfhost_scan_length";
  TFHOST_RETURN_IF_ERROR(ctx.b->Bind(length_name, length, DType::kInt64, ir::PartialShape::Scalar()));

  ::onnx::NodeProto loop;
  loop.set_op_type("Loop");
  loop.add_input(length_name);
  loop.add_input("");
  for (int k = 0; k < states; ++k) loop.add_input(ctx.node->input(k));
  for (const auto& out : ctx.node->output()) loop.add_output(out);
  auto* attr = loop.add_attribute();
  attr->set_name("body");
  attr->set_type(::onnx::AttributeProto::GRAPH);
  ::onnx::GraphProto* g = attr->mutable_g();
  g->set_name(body->name() + "_as_loop");
  const std::string iter = base + "/tfhost_iteration", cond = base + "/tfhost_condition";
  auto* iv = g->add_input();
  iv->set_name(iter);
  iv->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::INT64);
  iv->mutable_type()->mutable_tensor_type()->mutable_shape();
  auto* cv = g->add_input();
  cv->set_name(cond);
  cv->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::BOOL);
  cv->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int k = 0; k < states; ++k) *g->add_input() = body->input(k);
  // This iteration's slice of each scan input, named as the Scan body names it.
  for (int k = states; k < inputs; ++k) {
    ::onnx::NodeProto* gather = g->add_node();
    gather->set_op_type("Gather");
    gather->add_input(ctx.node->input(k));
    gather->add_input(iter);
    gather->add_output(body->input(k).name());
  }
  for (const auto& n : body->node()) *g->add_node() = n;
  for (const auto& t : body->initializer()) *g->add_initializer() = t;
  for (const auto& v : body->value_info()) *g->add_value_info() = v;
  ::onnx::NodeProto* keep = g->add_node();
  keep->set_op_type("Identity");
  keep->add_input(cond);
  keep->add_output(cond + "_next");
  auto* co = g->add_output();
  co->set_name(cond + "_next");
  co->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::BOOL);
  for (const auto& o : body->output()) *g->add_output() = o;
  NodeContext sub = ctx;
  sub.node = &loop;
  return MapLoop(sub);
}

}  // namespace

MapFn FindControlMapper(const std::string& op_type) {
  if (op_type == "If") return MapIf;
  if (op_type == "Loop") return MapLoop;
  if (op_type == "Scan") return MapScan;
  return nullptr;
}

}  // namespace tfhost::loaders::onnx
