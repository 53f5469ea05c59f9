// lstm_cell_fusion: the gates of a Keras LSTM step become one
// _TfhostLstmCell node (ops/nn/lstm_cell.h). A step of Keras's LSTM layer
// (its While body) computes, after its two matrix products x and y:
//   z = BiasAdd(AddV2(x, y), bias); i, f, g, o = Split(axis 1, z, 4)
//   c_out = AddV2(Mul(Sigmoid(f), c), Mul(Sigmoid(i), Tanh(g)))
//   h = Mul(Sigmoid(o), Tanh(c_out))
// Twelve nodes run per step for 4 * units floats of work, so at batch 1 the
// executor's per-node cost outweighs the arithmetic; the fused node reads z's
// parts once and writes h and c_out.
//
// Matched on float32 nodes, each operand order of AddV2/Add and Mul (IEEE
// addition and multiplication commute exactly), the Split's axis a Const 1
// or -1 of a rank-2 z, x, y and c of static rank 2. Every node but h and c_out must have no reader outside
// the pattern (c_out usually has one: the step returns it) and none but h may
// be fetchable by name. h's node becomes the fused node under its name, with
// the same output 0; c_out's readers read its output 1. The result is the same float32
// values: the kernel computes each in the order the ops did.
//
// Runs before elementwise_fusion, which would otherwise take the gates.
#include <optional>

#include "ops/nn/lstm_cell.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::SoleConsumer;

struct Match {
  int split = -1, bias_add = -1, sum = -1;
  int sig_i = -1, sig_f = -1, tanh_g = -1, sig_o = -1;
  int mul_f = -1, mul_i = -1, c_out = -1, tanh_c = -1, h = -1;
  ir::TensorRef x, y, bias, c;
};

class LstmCellFusion : public GraphPass {
 public:
  std::string name() const override { return "lstm_cell_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true), used(graph->num_nodes(), false);
    bool changed = false;
    for (int s = 0; s < graph->num_nodes(); ++s) {
      std::optional<Match> m = MatchAt(*graph, ctx, consumers, s);
      if (!m) continue;
      const std::vector<int> members = {m->split,  m->bias_add, m->sum,   m->sig_i, m->sig_f,  m->tanh_g,
                                        m->sig_o,  m->mul_f,    m->mul_i, m->c_out, m->tanh_c, m->h};
      bool overlap = false;
      for (int n : members) overlap = overlap || used[n];
      if (overlap) continue;
      for (int n : members) used[n] = true;
      Rewrite(graph, *m, members);
      for (int n : members) keep[n] = n == m->h;
      changed = true;
    }
    return changed ? graph->Compact(keep) : OkStatus();
  }

 private:
  static bool Plain(const ir::Graph& graph, const PassContext& ctx, int n) {
    const ir::Node& node = graph.node(n);
    return internal::IsFloatNode(node) && !ctx.MustKeep(node) && !IsProtected(graph, node);
  }

  static bool IsOp(const ir::Graph& graph, int n, std::initializer_list<const char*> ops) {
    for (const char* op : ops) {
      if (graph.node(n).op == op) return true;
    }
    return false;
  }

  // The one reader of output `index` of `n` when nothing else reads n.
  static int OnlyReaderOfOutput(const ir::Graph& graph, const std::vector<std::vector<int>>& consumers, int n,
                                int index) {
    internal::Uses u = internal::UsesOf(graph, consumers, n);
    int reader = -1;
    if (u.control) return -1;
    for (const auto& use : u.data) {
      if (use.output_index != index) continue;
      if (reader != -1) return -1;
      reader = use.consumer;
    }
    return reader;
  }

  // The static rank of `ref`, or -1.
  static int RankOf(const ir::Graph& graph, const ir::TensorRef& ref) {
    const ir::Node& n = graph.node(ref.node);
    if (ref.index < 0 || ref.index >= static_cast<int>(n.output_shapes.size())) return -1;
    return n.output_shapes[ref.index].rank();
  }

  // A binary node whose inputs are {a:0, other} in either order; `other` set.
  static bool Pair(const ir::Graph& graph, int n, int a, ir::TensorRef* other) {
    const ir::Node& node = graph.node(n);
    if (node.inputs.size() != 2) return false;
    const ir::TensorRef a0{a, 0};
    if (node.inputs[0] == a0) {
      *other = node.inputs[1];
      return true;
    }
    if (node.inputs[1] == a0) {
      *other = node.inputs[0];
      return true;
    }
    return false;
  }

  static std::optional<Match> MatchAt(const ir::Graph& graph, const PassContext& ctx,
                                      const std::vector<std::vector<int>>& consumers, int s) {
    const ir::Node& split = graph.node(s);
    if (split.op != "Split" || split.inputs.size() != 2 || !Plain(graph, ctx, s)) return std::nullopt;
    auto num_split = ir::GetAttrOr<int64_t>(split, "num_split", 0);
    if (!num_split.ok() || *num_split != 4) return std::nullopt;
    auto axis = internal::ConstValue(graph, split.inputs[0]);
    if (!axis || axis->NumElements() != 1 || (axis->dtype() != DType::kInt32 && axis->dtype() != DType::kInt64)) {
      return std::nullopt;
    }
    const int64_t a = axis->dtype() == DType::kInt32 ? axis->data<int32_t>()[0] : axis->data<int64_t>()[0];
    if (a != 1 && a != -1) return std::nullopt;
    Match m;
    m.split = s;
    m.bias_add = split.inputs[1].node;
    const ir::Node& bias_add = graph.node(m.bias_add);
    if (split.inputs[1].index != 0 || bias_add.op != "BiasAdd" || bias_add.inputs.size() != 2 ||
        !Plain(graph, ctx, m.bias_add) || SoleConsumer(graph, consumers, m.bias_add) != s) {
      return std::nullopt;
    }
    auto format = ir::GetAttrOr<std::string>(bias_add, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC") return std::nullopt;
    if (bias_add.output_shapes.empty() || bias_add.output_shapes[0].rank() != 2) return std::nullopt;
    m.sum = bias_add.inputs[0].node;
    m.bias = bias_add.inputs[1];
    if (bias_add.inputs[0].index != 0 || !IsOp(graph, m.sum, {"AddV2", "Add"}) || !Plain(graph, ctx, m.sum) ||
        graph.node(m.sum).inputs.size() != 2 || SoleConsumer(graph, consumers, m.sum) != m.bias_add) {
      return std::nullopt;
    }
    m.x = graph.node(m.sum).inputs[0];
    m.y = graph.node(m.sum).inputs[1];
    // Split outputs 0..3 (i, f, g, o), each read by one activation only.
    int* gates[4] = {&m.sig_i, &m.sig_f, &m.tanh_g, &m.sig_o};
    for (int k = 0; k < 4; ++k) {
      const int r = OnlyReaderOfOutput(graph, consumers, s, k);
      if (r < 0 || !Plain(graph, ctx, r) || !IsOp(graph, r, {k == 2 ? "Tanh" : "Sigmoid"})) return std::nullopt;
      *gates[k] = r;
    }
    m.mul_f = SoleConsumer(graph, consumers, m.sig_f);
    m.mul_i = SoleConsumer(graph, consumers, m.sig_i);
    if (m.mul_f < 0 || m.mul_i < 0 || m.mul_f == m.mul_i || SoleConsumer(graph, consumers, m.tanh_g) != m.mul_i ||
        !IsOp(graph, m.mul_f, {"Mul"}) || !IsOp(graph, m.mul_i, {"Mul"}) || !Plain(graph, ctx, m.mul_f) ||
        !Plain(graph, ctx, m.mul_i)) {
      return std::nullopt;
    }
    ir::TensorRef other;
    if (!Pair(graph, m.mul_f, m.sig_f, &m.c) || !Pair(graph, m.mul_i, m.sig_i, &other) ||
        !(other == ir::TensorRef{m.tanh_g, 0})) {
      return std::nullopt;
    }
    m.c_out = SoleConsumer(graph, consumers, m.mul_f);
    if (m.c_out < 0 || SoleConsumer(graph, consumers, m.mul_i) != m.c_out || !IsOp(graph, m.c_out, {"AddV2", "Add"}) ||
        !Plain(graph, ctx, m.c_out) || !Pair(graph, m.c_out, m.mul_f, &other) || !(other == ir::TensorRef{m.mul_i, 0})) {
      return std::nullopt;
    }
    m.h = SoleConsumer(graph, consumers, m.sig_o);
    // h may be fetchable: the fused node keeps its name and output 0.
    if (m.h < 0 || !IsOp(graph, m.h, {"Mul"}) || !internal::IsFloatNode(graph.node(m.h)) ||
        IsProtected(graph, graph.node(m.h)) || !Pair(graph, m.h, m.sig_o, &other)) {
      return std::nullopt;
    }
    m.tanh_c = other.node;
    if (other.index != 0 || !IsOp(graph, m.tanh_c, {"Tanh"}) || !Plain(graph, ctx, m.tanh_c) ||
        SoleConsumer(graph, consumers, m.tanh_c) != m.h || graph.node(m.tanh_c).inputs.size() != 1 ||
        !(graph.node(m.tanh_c).inputs[0] == ir::TensorRef{m.c_out, 0})) {
      return std::nullopt;
    }
    // The kernel takes x, y [rows, 4 units] and c [rows, units]; AddV2 and
    // Mul would also broadcast a rank-1 operand, which it does not.
    if (RankOf(graph, m.x) != 2 || RankOf(graph, m.y) != 2 || RankOf(graph, m.c) != 2) return std::nullopt;
    // c_out's readers other than tanh_c read the fused node's output 1: none
    // may be by control edge (the fused node keeps h's name, not c_out's).
    if (internal::UsesOf(graph, consumers, m.c_out).control) return std::nullopt;
    return m;
  }

  static void Rewrite(ir::Graph* graph, const Match& m, const std::vector<int>& members) {
    std::vector<int> controls;
    for (int n : members) {
      for (int c : graph->node(n).control_inputs) internal::AddControlInput(&controls, c);
    }
    const ir::PartialShape c_shape =
        graph->node(m.c_out).output_shapes.empty() ? ir::PartialShape::Unknown() : graph->node(m.c_out).output_shapes[0];
    for (int n = 0; n < graph->num_nodes(); ++n) {
      if (n == m.tanh_c) continue;
      for (ir::TensorRef& in : graph->mutable_node(n).inputs) {
        if (in == ir::TensorRef{m.c_out, 0}) in = ir::TensorRef{m.h, 1};
      }
    }
    ir::Node& h = graph->mutable_node(m.h);
    const ir::PartialShape h_shape = h.output_shapes.empty() ? ir::PartialShape::Unknown() : h.output_shapes[0];
    h.op = ops::nn::kLstmCellOp;
    h.inputs = {m.x, m.y, m.bias, m.c};
    h.control_inputs = controls;
    h.attrs.clear();
    h.attrs["T"] = ops::MakeAttr(DType::kFloat);
    h.output_dtypes = {DType::kFloat, DType::kFloat};
    h.output_shapes = {h_shape, c_shape};
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeLstmCellFusion() { return std::make_unique<LstmCellFusion>(); }

}  // namespace tfhost::passes
