#include "ops/shape_inference.h"

#include <deque>

namespace tfhost::ops {

namespace {

// Constant values are only kept for small integer tensors: they are what
// shape functions read (shapes, axes, perms, paddings), and copying weights
// would double a model's memory for nothing.
constexpr int64_t kMaxValueElements = 1024;

const ir::PartialShape& UnknownShape() {
  static const ir::PartialShape* unknown = new ir::PartialShape();
  return *unknown;
}

bool KeepValue(DType dtype, int64_t num_elements) {
  return (dtype == DType::kInt32 || dtype == DType::kInt64) && num_elements >= 0 &&
         num_elements <= kMaxValueElements;
}

}  // namespace

ShapeContext::ShapeContext(const ir::Node& node, std::vector<ir::PartialShape> inputs,
                           std::vector<const Tensor*> input_values, int num_outputs,
                           std::vector<const ir::PartialShape*> input_handle_shapes)
    : node_(node),
      inputs_(std::move(inputs)),
      input_values_(std::move(input_values)),
      outputs_(num_outputs),
      output_values_(num_outputs),
      input_handle_shapes_(std::move(input_handle_shapes)),
      output_handle_shapes_(num_outputs) {}

const ir::PartialShape& ShapeContext::input_handle_shape(int i) const {
  if (i < 0 || i >= static_cast<int>(input_handle_shapes_.size()) || input_handle_shapes_[i] == nullptr) {
    return UnknownShape();
  }
  return *input_handle_shapes_[i];
}

void ShapeContext::set_output_handle_shape(int i, ir::PartialShape shape) {
  if (i < 0 || i >= num_outputs()) return;
  output_handle_shapes_[i] = std::move(shape);
}

const ir::PartialShape& ShapeContext::input(int i) const {
  if (i < 0 || i >= num_inputs()) return UnknownShape();
  return inputs_[i];
}

const Tensor* ShapeContext::input_value(int i) const {
  if (i < 0 || i >= static_cast<int>(input_values_.size())) return nullptr;
  return input_values_[i];
}

void ShapeContext::set_output(int i, ir::PartialShape shape) {
  if (i < 0 || i >= num_outputs()) return;
  outputs_[i] = std::move(shape);
}

void ShapeContext::set_output_value(int i, Tensor value) {
  if (i < 0 || i >= num_outputs() || !KeepValue(value.dtype(), value.NumElements())) return;
  output_values_[i] = std::move(value);
}

std::optional<std::vector<int64_t>> ShapeContext::InputInts(int i) const {
  const Tensor* t = input_value(i);
  if (t == nullptr || !IsInteger(t->dtype())) return std::nullopt;
  auto v = t->ToInt64Vector();
  if (!v.ok()) return std::nullopt;
  return std::move(*v);
}

ir::PartialShape ShapeContext::InputAsShape(int i) const {
  if (auto v = InputInts(i); v.has_value() && input_value(i)->rank() <= 1) {
    return ir::PartialShape::Known(std::move(*v));
  }
  const ir::PartialShape& s = input(i);
  if (s.rank() == 1 && s.dim(0) >= 0 && s.dim(0) <= 64) {
    return ir::PartialShape::UnknownOfRank(static_cast<int>(s.dim(0)));
  }
  return ir::PartialShape::Unknown();
}

Status ShapeContext::Error(const std::string& message) const {
  return InvalidArgument(ir::NodeContext(node_) + ": " + message);
}

void ShapeFnRegistry::Register(const std::string& op, ShapeFn fn) { fns_[op] = std::move(fn); }

void ShapeFnRegistry::Register(std::initializer_list<const char*> ops, const ShapeFn& fn) {
  for (const char* op : ops) fns_[op] = fn;
}

const ShapeFn* ShapeFnRegistry::Find(const std::string& op) const {
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

const ShapeFnRegistry& ShapeFnRegistry::Global() {
  static const ShapeFnRegistry* registry = [] {
    auto* r = new ShapeFnRegistry();
    RegisterArrayShapeFns(*r);
    RegisterMathShapeFns(*r);
    RegisterNnShapeFns(*r);
    RegisterStateShapeFns(*r);
    RegisterParsingShapeFns(*r);
    RegisterStringShapeFns(*r);
    RegisterControlFlowShapeFns(*r);
    RegisterRandomShapeFns(*r);
    RegisterLookupShapeFns(*r);
    RegisterSparseShapeFns(*r);
    RegisterImageShapeFns(*r);
    RegisterAudioShapeFns(*r);
    RegisterTextShapeFns(*r);
    return r;
  }();
  return *registry;
}

Status UnchangedShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return OkStatus();
}

Status ForwardAllInputs(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    ctx.set_output(i, ctx.input(i));
    if (const Tensor* v = ctx.input_value(i)) ctx.set_output_value(i, *v);
    if (ctx.input_handle_shape(i).rank_known()) ctx.set_output_handle_shape(i, ctx.input_handle_shape(i));
  }
  return OkStatus();
}

int NormalizeAxis(int64_t axis, int rank) {
  if (rank < 0 || axis < -rank || axis >= rank) return -1;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Status BroadcastingShape(ShapeContext& ctx) {
  if (ctx.num_inputs() == 0) return OkStatus();
  ir::PartialShape out = ctx.input(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    auto b = ir::BroadcastPartialShapes(out, ctx.input(i));
    if (!b.ok()) return ctx.Error(b.status().message());
    out = std::move(*b);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

namespace {

// Placeholder, PlaceholderWithDefault and Const are seeded here rather than
// through the registry: their shapes come from attrs, and Const's value is
// decoded only when a shape function may want to read it.
void SeedSource(const ir::Node& node, std::vector<ir::PartialShape>* shapes,
                std::vector<std::optional<Tensor>>* values) {
  if (shapes->empty()) return;
  if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault") {
    auto s = ir::GetAttr<ir::PartialShape>(node, "shape");
    if (!s.ok()) return;
    // Graphs written before GraphDef version 22 used a scalar `shape` to mean
    // "unknown" (TensorFlow still reads them so). The version is not kept in
    // the IR, so a scalar Placeholder counts as a scalar only when the
    // writer's own `_output_shapes` record says so.
    if (node.op == "Placeholder" && s->rank() == 0) {
      auto recorded = ir::GetAttr<std::vector<ir::PartialShape>>(node, "_output_shapes");
      if (!recorded.ok() || recorded->size() != 1 || (*recorded)[0].rank() != 0) return;
    }
    (*shapes)[0] = std::move(*s);
    return;
  }
  // Const.
  const tensorflow::AttrValue* v = node.FindAttr("value");
  if (v == nullptr || v->value_case() != tensorflow::AttrValue::kTensor) return;
  ir::PartialShape shape = ir::PartialShape::FromProto(v->tensor().tensor_shape());
  if (!shape.IsFullyDefined()) return;  // malformed; the kernel reports it
  (*shapes)[0] = shape;
  if (KeepValue(BaseType(v->tensor().dtype()), shape.NumElements())) {
    if (auto t = ir::GetAttr<Tensor>(node, "value"); t.ok()) (*values)[0] = std::move(*t);
  }
}

}  // namespace

Status InferShapes(ir::Graph& graph, const ShapeFnRegistry& registry) {
  const int n = graph.num_nodes();
  for (int i = 0; i < n; ++i) {
    ir::Node& node = graph.mutable_node(i);
    node.output_shapes.assign(node.output_dtypes.size(), ir::PartialShape::Unknown());
  }
  // Kahn's order over data and control edges. Nodes on a cycle (and all
  // that depend on them) never become ready and keep unknown shapes.
  std::vector<int> pending(n, 0);
  const auto consumers = graph.Consumers();
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    const ir::Node& node = graph.node(i);
    pending[i] = static_cast<int>(node.inputs.size() + node.control_inputs.size());
    if (pending[i] == 0) ready.push_back(i);
  }
  std::vector<std::vector<std::optional<Tensor>>> values(n);
  std::vector<std::vector<std::optional<ir::PartialShape>>> handle_shapes(n);
  while (!ready.empty()) {
    const int id = ready.front();
    ready.pop_front();
    for (int c : consumers[id]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
    ir::Node& node = graph.mutable_node(id);
    const int num_outputs = static_cast<int>(node.output_shapes.size());
    values[id].resize(num_outputs);
    handle_shapes[id].resize(num_outputs);
    if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault" || node.op == "Const") {
      SeedSource(node, &node.output_shapes, &values[id]);
      continue;
    }
    const ShapeFn* fn = registry.Find(node.op);
    if (fn == nullptr) continue;
    std::vector<ir::PartialShape> in_shapes;
    std::vector<const Tensor*> in_values;
    std::vector<const ir::PartialShape*> in_handles;
    for (const ir::TensorRef& ref : node.inputs) {
      const ir::Node& producer = graph.node(ref.node);
      // Every per-output vector of a processed producer has its output count.
      const bool in_range = ref.index >= 0 && ref.index < static_cast<int>(producer.output_shapes.size());
      in_shapes.push_back(in_range ? producer.output_shapes[ref.index] : ir::PartialShape::Unknown());
      const auto& pv = values[ref.node];
      const auto& ph = handle_shapes[ref.node];
      const bool has_value = in_range && ref.index < static_cast<int>(pv.size()) && pv[ref.index].has_value();
      const bool has_handle = in_range && ref.index < static_cast<int>(ph.size()) && ph[ref.index].has_value();
      in_values.push_back(has_value ? &*pv[ref.index] : nullptr);
      in_handles.push_back(has_handle ? &*ph[ref.index] : nullptr);
    }
    ShapeContext ctx(node, std::move(in_shapes), std::move(in_values), num_outputs, std::move(in_handles));
    Status st = (*fn)(ctx);
    if (!st.ok()) return st.WithContext("shape inference");
    node.output_shapes = ctx.TakeOutputs();
    values[id] = ctx.TakeOutputValues();
    handle_shapes[id] = ctx.TakeOutputHandleShapes();
  }
  return OkStatus();
}

}  // namespace tfhost::ops
