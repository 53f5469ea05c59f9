// LSTM (ONNX's recurrent op, as PyTorch and tf2onnx write it) as a Loop per
// direction: the loader writes the recurrence as an ONNX Loop body of plain
// ops and maps it like any Loop (onnx_ops_control.cc), so the step runs on
// the same kernels as the rest of the model.
//
// One step, gates in ONNX's order i, o, f, c (layout 0: X is [seq, batch,
// input]; W [dirs, 4h, input], R [dirs, 4h, h], B [dirs, 8h] = Wb ++ Rb):
//   g = x_t W^T + h R^T + Wb + Rb;  i, o, f = sigmoid;  c~ = tanh
// where x_t W^T + Wb + Rb comes from one product over the whole sequence,
// made before the loop.
//   c' = f * c + i * c~;  h' = o * tanh(c')
// The reverse direction walks t from the end, and its Y rows are put back
// in time order. Supported: the default activations, no clip, no peepholes,
// no input_forget, no sequence_lens (every sequence runs the full length);
// the rest is refused by name. W, R and B must be initializers.
#include "loaders/onnx/onnx_graph_builder.h"
#include "loaders/onnx/onnx_ops.h"

namespace tfhost::loaders::onnx {

namespace {

// Builds the nodes of one Loop body.
class BodyWriter {
 public:
  explicit BodyWriter(::onnx::GraphProto* g) : g_(g) {}
  std::string Add(const std::string& op, std::vector<std::string> in, const std::string& out) {
    ::onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    for (auto& i : in) n->add_input(std::move(i));
    n->add_output(out);
    return out;
  }
  ::onnx::NodeProto* last() { return g_->mutable_node(g_->node_size() - 1); }
  // `rank` dims of unknown size (0: a scalar); -1 leaves the shape out.
  void Input(const std::string& name, int32_t elem, int rank) { Declare(g_->add_input(), name, elem, rank); }
  void Output(const std::string& name, int32_t elem) { Declare(g_->add_output(), name, elem, -1); }

 private:
  static void Declare(::onnx::ValueInfoProto* v, const std::string& name, int32_t elem, int rank) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    if (rank < 0) return;
    auto* shape = t->mutable_shape();
    for (int i = 0; i < rank; ++i) shape->add_dim()->set_dim_param("d" + std::to_string(i));
  }
  ::onnx::GraphProto* g_;
};

// Direction `d`'s slice of a [dirs, ...] constant, as a constant.
StatusOr<Tensor> DirectionSlice(const NodeContext& ctx, const Tensor& t, int d, const std::string& what) {
  if (t.rank() < 2 || d >= t.dim(0)) return ctx.Error(what + " has shape " + t.shape().ToString());
  std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  Tensor out(t.dtype(), Shape(dims));
  const int64_t n = out.NumElements();
  std::copy(t.data<float>() + d * n, t.data<float>() + (d + 1) * n, out.data<float>());
  return out;
}

Status MapLstm(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string direction, ctx.String("direction", "forward"));
  TFHOST_ASSIGN_OR_RETURN(int64_t hidden, ctx.Int("hidden_size", -1));
  TFHOST_ASSIGN_OR_RETURN(int64_t layout, ctx.Int("layout", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t input_forget, ctx.Int("input_forget", 0));
  for (const auto& a : ctx.node->attribute()) {
    if (a.name() == "clip") return ctx.Unsupported("clip");
    if (a.name() == "activations") {
      for (int k = 0; k < a.strings_size(); ++k) {
        const std::string want = k % 3 == 0 ? "Sigmoid" : "Tanh";
        if (a.strings(k) != want) return ctx.Unsupported("activation '" + a.strings(k) + "' (the defaults are)");
      }
    }
  }
  if (layout != 0) return ctx.Unsupported("layout 1 (batch first)");
  if (input_forget != 0) return ctx.Unsupported("input_forget");
  if (hidden < 1) return ctx.Error("needs a positive hidden_size");
  if (ctx.Has(4)) return ctx.Unsupported("sequence_lens (sequences of different lengths)");
  if (ctx.Has(7)) return ctx.Unsupported("peepholes (input P)");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return ctx.Error("direction '" + direction + "' is not forward, reverse or bidirectional");
  }
  const int dirs = direction == "bidirectional" ? 2 : 1;
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> w, ctx.ConstIn(1));
  TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> r, ctx.ConstIn(2));
  if (!w || !r || w->dtype() != DType::kFloat || r->dtype() != DType::kFloat) {
    return ctx.Unsupported("W and R computed at run time or not float32 (they must be initializers)");
  }
  std::optional<Tensor> b;
  if (ctx.Has(3)) {
    TFHOST_ASSIGN_OR_RETURN(b, ctx.ConstIn(3));
    if (!b || b->dtype() != DType::kFloat) return ctx.Unsupported("B computed at run time or not float32");
  }
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  if (xi->rank() != 3) return ctx.Unsupported("an input X whose rank is not known to be 3");
  const std::string base = NodeNameFromValueName(ctx.node->output_size() > 0 ? ctx.node->output(0) : "lstm");
  auto name = [&](const std::string& what, int d) { return base + "/tfhost_" + what + "_" + std::to_string(d); };

  // Sequence length and its last index, as values the loops read.
  ir::AttrMap shape_attrs;
  shape_attrs["out_type"] = TypeAttr(DType::kInt64);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x_shape, ctx.Helper("x_shape", "Shape", {x}, std::move(shape_attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis0, ctx.Const("axis0", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef first, ctx.Const("dim0", Tensor::Scalar<int32_t>(0)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef second, ctx.Const("dim1", Tensor::Scalar<int32_t>(1)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef seq, ctx.Helper("seq_length", "GatherV2", {x_shape, first, axis0}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef batch, ctx.Helper("batch", "GatherV2", {x_shape, second, axis0}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, ctx.Const("one", Tensor::Scalar<int64_t>(1)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef last, ctx.Helper("last_step", "Sub", {seq, one}));
  const std::string seq_name = base + "/tfhost_seq_length", last_name = base + "/tfhost_last_step";
  TFHOST_RETURN_IF_ERROR(ctx.b->Bind(seq_name, seq, DType::kInt64, ir::PartialShape::Scalar()));
  TFHOST_RETURN_IF_ERROR(ctx.b->Bind(last_name, last, DType::kInt64, ir::PartialShape::Scalar()));

  std::vector<ir::TensorRef> y, y_h, y_c;
  for (int d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    // Constants: W^T [input, 4h], R^T [h, 4h], Wb + Rb [4h].
    TFHOST_ASSIGN_OR_RETURN(Tensor wd, DirectionSlice(ctx, *w, d, "W"));
    TFHOST_ASSIGN_OR_RETURN(Tensor rd, DirectionSlice(ctx, *r, d, "R"));
    if (wd.rank() != 2 || wd.dim(0) != 4 * hidden || rd.rank() != 2 || rd.dim(0) != 4 * hidden || rd.dim(1) != hidden) {
      return ctx.Error("W and R must be [dirs, 4 x hidden_size, ...], got " + w->shape().ToString() + " and " +
                       r->shape().ToString());
    }
    Tensor bias(DType::kFloat, Shape({4 * hidden}));
    for (int64_t k = 0; k < 4 * hidden; ++k) bias.data<float>()[k] = 0;
    if (b) {
      TFHOST_ASSIGN_OR_RETURN(Tensor bd, DirectionSlice(ctx, *b, d, "B"));
      if (bd.NumElements() != 8 * hidden) return ctx.Error("B must be [dirs, 8 x hidden_size]");
      for (int64_t k = 0; k < 4 * hidden; ++k) bias.data<float>()[k] = bd.data<float>()[k] + bd.data<float>()[4 * hidden + k];
    }
    TFHOST_RETURN_IF_ERROR(ctx.b->BindConstant(name("rt", d), TransposeConstant(rd, {1, 0})));
    // The input's share of the gates does not depend on the state: one
    // product for the whole sequence before the loop, [seq, batch, 4h]
    // (x Wᵀ + Wb + Rb), of which each step reads its row.
    {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef wt, ctx.Const(name("wt", d), TransposeConstant(wd, {1, 0})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef flat_shape,
                              ctx.Const(name("flat_shape", d), Int64Vector({-1, wd.dim(1)})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef flat, ctx.Helper(name("x_flat", d), "Reshape", {x, flat_shape}));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef xw, ctx.Helper(name("xw", d), "MatMul", {flat, wt}));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bias_ref, ctx.Const(name("bias", d), bias));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef biased, ctx.Helper(name("xw_bias", d), "BiasAdd", {xw, bias_ref}));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef gates_width, ctx.Const(name("gates_width", d), Int64Vector({4 * hidden})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef seq_batch_begin, ctx.Const(name("seq_batch_begin", d), Int64Vector({0})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef seq_batch_size, ctx.Const(name("seq_batch_size", d), Int64Vector({2})));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef seq_batch, ctx.Helper(name("seq_batch", d), "Slice",
                                                                  {x_shape, seq_batch_begin, seq_batch_size}));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef gates_shape, ctx.Helper(name("gates_shape", d), "ConcatV2",
                                                                    {seq_batch, gates_width, axis0}));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef input_gates, ctx.Helper(name("input_gates", d), "Reshape",
                                                                    {biased, gates_shape}));
      TFHOST_RETURN_IF_ERROR(ctx.b->Bind(name("input_gates", d), input_gates, DType::kFloat,
                                         ir::PartialShape::UnknownOfRank(3)));
    }
    // Initial state [batch, h]: direction d of initial_h / initial_c, else 0.
    std::vector<std::string> initial;
    for (int k : {5, 6}) {
      const std::string value = name(k == 5 ? "h0" : "c0", d);
      ir::TensorRef state;
      if (ctx.Has(k)) {
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef all, ctx.In(k));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef index, ctx.Const(value + "_dir", Tensor::Scalar<int32_t>(d)));
        TFHOST_ASSIGN_OR_RETURN(state, ctx.Helper(value, "GatherV2", {all, index, axis0}));
      } else {
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef h, ctx.Const(value + "_width", Int64Vector({hidden})));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b1, ctx.Const(value + "_batch_shape", Int64Vector({1})));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bv, ctx.Helper(value + "_batch", "Reshape", {batch, b1}));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef dims, ctx.Helper(value + "_dims", "ConcatV2", {bv, h, axis0}));
        TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ctx.Const(value + "_zero", Tensor::Scalar<float>(0)));
        TFHOST_ASSIGN_OR_RETURN(state, ctx.Helper(value, "Fill", {dims, zero}));
      }
      TFHOST_RETURN_IF_ERROR(ctx.b->Bind(value, state, DType::kFloat, ir::PartialShape::UnknownOfRank(2)));
      initial.push_back(value);
    }
    // The body.
    ::onnx::NodeProto loop;
    loop.set_op_type("Loop");
    loop.add_input(seq_name);
    loop.add_input("");
    loop.add_input(initial[0]);
    loop.add_input(initial[1]);
    for (const char* out : {"h_last", "c_last", "h_all"}) loop.add_output(name(out, d));
    auto* attr = loop.add_attribute();
    attr->set_name("body");
    attr->set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto* g = attr->mutable_g();
    g->set_name(name("step", d));
    BodyWriter w_(g);
    w_.Input("t_iter", ::onnx::TensorProto::INT64, 0);
    w_.Input("t_cond", ::onnx::TensorProto::BOOL, 0);
    w_.Input("t_h", ::onnx::TensorProto::FLOAT, 2);
    w_.Input("t_c", ::onnx::TensorProto::FLOAT, 2);
    const std::string t = reverse ? w_.Add("Sub", {last_name, "t_iter"}, "t_step") : "t_iter";
    w_.Add("Gather", {name("input_gates", d), t}, "t_xw");
    w_.Add("MatMul", {"t_h", name("rt", d)}, "t_hr");
    w_.Add("Add", {"t_xw", "t_hr"}, "t_gates");
    ::onnx::TensorProto* sizes = g->add_initializer();
    sizes->set_name("t_split");
    sizes->set_data_type(::onnx::TensorProto::INT64);
    sizes->add_dims(4);
    for (int k = 0; k < 4; ++k) sizes->add_int64_data(hidden);
    ::onnx::NodeProto* split = g->add_node();
    split->set_op_type("Split");
    split->add_input("t_gates");
    split->add_input("t_split");
    for (const char* o : {"t_gi", "t_go", "t_gf", "t_gc"}) split->add_output(o);
    auto* axis = split->add_attribute();
    axis->set_name("axis");
    axis->set_type(::onnx::AttributeProto::INT);
    axis->set_i(1);
    w_.Add("Sigmoid", {"t_gi"}, "t_i");
    w_.Add("Sigmoid", {"t_go"}, "t_o");
    w_.Add("Sigmoid", {"t_gf"}, "t_f");
    w_.Add("Tanh", {"t_gc"}, "t_cc");
    w_.Add("Mul", {"t_f", "t_c"}, "t_keep");
    w_.Add("Mul", {"t_i", "t_cc"}, "t_write");
    w_.Add("Add", {"t_keep", "t_write"}, "t_c_next");
    w_.Add("Tanh", {"t_c_next"}, "t_c_squashed");
    w_.Add("Mul", {"t_o", "t_c_squashed"}, "t_h_next");
    w_.Add("Identity", {"t_cond"}, "t_cond_next");
    w_.Add("Identity", {"t_h_next"}, "t_h_scan");
    w_.Output("t_cond_next", ::onnx::TensorProto::BOOL);
    w_.Output("t_h_next", ::onnx::TensorProto::FLOAT);
    w_.Output("t_c_next", ::onnx::TensorProto::FLOAT);
    w_.Output("t_h_scan", ::onnx::TensorProto::FLOAT);
    NodeContext sub = ctx;
    sub.node = &loop;
    sub.where = ctx.where + " direction " + std::to_string(d);
    TFHOST_RETURN_IF_ERROR(FindControlMapper("Loop")(sub));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef h_all, ctx.b->Ref(name("h_all", d)));
    if (reverse) {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef time_axis, ctx.Const(name("time_axis", d), Int32Vector({0})));
      TFHOST_ASSIGN_OR_RETURN(h_all, ctx.Helper(name("in_time_order", d), "ReverseV2", {h_all, time_axis}));
    }
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef h_last, ctx.b->Ref(name("h_last", d)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c_last, ctx.b->Ref(name("c_last", d)));
    // Y gets a num_directions axis at 1, Y_h and Y_c at 0.
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef at1, ctx.Const(name("axis1", d), Tensor::Scalar<int32_t>(1)));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y_d, ctx.Helper(name("y", d), "ExpandDims", {h_all, at1}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef h_d, ctx.Helper(name("y_h", d), "ExpandDims", {h_last, axis0}));
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef c_d, ctx.Helper(name("y_c", d), "ExpandDims", {c_last, axis0}));
    y.push_back(y_d);
    y_h.push_back(h_d);
    y_c.push_back(c_d);
  }
  const std::vector<std::pair<std::vector<ir::TensorRef>*, int>> outputs = {{&y, 1}, {&y_h, 0}, {&y_c, 0}};
  for (int k = 0; k < 3 && k < ctx.node->output_size(); ++k) {
    std::vector<ir::TensorRef> parts = *outputs[k].first;
    ir::TensorRef joined = parts[0];
    if (parts.size() > 1) {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef at, ctx.Const("concat_axis_" + std::to_string(k),
                                                          Tensor::Scalar<int32_t>(outputs[k].second)));
      parts.push_back(at);
      TFHOST_ASSIGN_OR_RETURN(joined, ctx.Helper("directions_" + std::to_string(k), "ConcatV2", parts));
    }
    TFHOST_RETURN_IF_ERROR(ctx.BindOutput(k, joined, DType::kFloat, ir::PartialShape::UnknownOfRank(k == 0 ? 4 : 3)));
  }
  return OkStatus();
}

}  // namespace

MapFn FindRnnMapper(const std::string& op_type) { return op_type == "LSTM" ? MapLstm : nullptr; }

}  // namespace tfhost::loaders::onnx
