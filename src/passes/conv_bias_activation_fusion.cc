// conv_bias_activation_fusion: a convolution or matrix product, the bias
// added to it and the activation applied to that become one node of the
// fused forms TensorFlow itself writes (grappler's remapper) and tfhost's
// reference kernels run, so the output tensor is written once instead of
// three times:
//
//   Conv2D                 + BiasAdd [+ act]  -> _FusedConv2D
//   DepthwiseConv2dNative  + BiasAdd [+ act]  -> FusedDepthwiseConv2dNative
//   MatMul, BatchMatMul*   + BiasAdd [+ act]  -> _FusedMatMul
//
//   BatchMatMul* of rank >= 3 + BiasAdd [+ act] -> _TfhostFusedBatchMatMul
//   BatchMatMul* of rank >= 3 + Add(tensor) [+ act] -> _TfhostFusedBatchMatMul
//                                            fused_ops ["Add", act] (a mask that
//                                            broadcasts into the product)
//
// (A BatchMatMul/V2/V3 whose operands are both statically 2-D is MatMul with
// adj_x/adj_y as transpose_a/b. Higher ranks — a transformer's dense layer on
// [B, T, D] x [D, N], attention's [B, H, T, D] x [B, H, D, T] — take tfhost's
// own fused op: TensorFlow's _FusedMatMul is 2-D only, and grappler's
// oneDNN _MklFusedBatchMatMulV2 means a scale and an addend, not a bias and an
// activation.) The depthwise form is TF.js's
// spelling: the registry has a reference kernel for it (and the oneDNN
// backend a fast one), none for grappler's _FusedDepthwiseConv2dNative.
//
// The bias may also be an Add/AddV2 of a per-channel float Const ([C] or
// [1, ..., C]); a conv followed directly by an activation gets a zero bias
// (TF's fused forms start with BiasAdd). Activations: Relu, Relu6, Elu,
// LeakyRelu (alpha -> leakyrelu_alpha), Sigmoid, Tanh, Swish written as
// y * Sigmoid(y) (fused_ops "_MklSwish", TF's oneDNN spelling), and for the
// matrix products GELU as gelu_fusion leaves it (fused_ops "GeluExact" /
// "GeluApproximate", grappler's names). A fused node
// that already carries only [BiasAdd] or [FusedBatchNorm] (TF.js models are
// full of them) takes a following activation too.
//
// The last node of the pattern keeps its name (fetches of the activation, or
// of the bias when no activation follows, still resolve); the earlier nodes
// must have that node as their only reader and must not be kept names.
// NHWC and float32 only. The fused kernels apply the same functions as the
// standalone ops (ops/nn/fused_activation.h), so outputs match bit for bit
// on the reference kernels.
#include "ops/op_registry.h"
#include "passes/gelu_fusion.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

// tfhost's fused batched product (ops/nn/fused_matmul.cc): _FusedMatMul's
// epilogue over BatchMatMulV2's operands.
constexpr char kFusedBatchMatMulOp[] = "_TfhostFusedBatchMatMul";

using internal::AddControlInput;
using internal::SoleConsumer;

enum class BaseKind { kNone, kConv, kDepthwise, kMatMul, kBatchMatMul, kBatchMatMulNd, kFusedWithoutActivation };

bool IsNhwc(const ir::Node& node) {
  auto f = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  return f.ok() && *f == "NHWC";
}

const ir::PartialShape* StaticShapeOf(const ir::Graph& graph, const ir::TensorRef& ref) {
  const auto& shapes = graph.node(ref.node).output_shapes;
  if (ref.index < 0 || ref.index >= static_cast<int>(shapes.size()) || !shapes[ref.index].rank_known()) {
    return nullptr;
  }
  return &shapes[ref.index];
}

bool StaticRankIs(const ir::Graph& graph, const ir::TensorRef& ref, int rank) {
  const ir::PartialShape* s = StaticShapeOf(graph, ref);
  return s != nullptr && s->rank() == rank;
}

// A batched product of static ranks >= 2, one of them >= 3. BatchMatMul (V1)
// only with equal, fully known batch dims: the fused op broadcasts them as
// V2 does, where V1 would have failed.
bool IsBatchedNd(const ir::Graph& graph, const ir::Node& node) {
  const ir::PartialShape* x = StaticShapeOf(graph, node.inputs[0]);
  const ir::PartialShape* y = StaticShapeOf(graph, node.inputs[1]);
  if (x == nullptr || y == nullptr || x->rank() < 2 || y->rank() < 2 || std::max(x->rank(), y->rank()) < 3) {
    return false;
  }
  if (node.op != "BatchMatMul") return true;
  if (x->rank() != y->rank()) return false;
  for (int i = 0; i + 2 < x->rank(); ++i) {
    if (x->dim(i) < 0 || x->dim(i) != y->dim(i)) return false;
  }
  return true;
}

BaseKind KindOf(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() < 2) return BaseKind::kNone;
  if (node.op == "Conv2D" && node.inputs.size() == 2 && internal::IsFloatNode(node) && IsNhwc(node)) {
    return BaseKind::kConv;
  }
  if (node.op == "DepthwiseConv2dNative" && node.inputs.size() == 2 && internal::IsFloatNode(node) &&
      IsNhwc(node)) {
    return BaseKind::kDepthwise;
  }
  if (node.op == "MatMul" && node.inputs.size() == 2 && internal::IsFloatNode(node)) return BaseKind::kMatMul;
  if ((node.op == "BatchMatMul" || node.op == "BatchMatMulV2" || node.op == "BatchMatMulV3") &&
      node.inputs.size() == 2 && node.output_dtypes.size() == 1 && node.output_dtypes[0] == DType::kFloat) {
    for (const char* key : {"T", "Ta", "Tb", "Tout"}) {
      auto t = ir::GetAttrOr<DType>(node, key, DType::kFloat);
      if (!t.ok() || *t != DType::kFloat) return BaseKind::kNone;
    }
    if (StaticRankIs(graph, node.inputs[0], 2) && StaticRankIs(graph, node.inputs[1], 2)) {
      return BaseKind::kBatchMatMul;
    }
    return IsBatchedNd(graph, node) ? BaseKind::kBatchMatMulNd : BaseKind::kNone;
  }
  if (node.op == "_FusedConv2D" || node.op == "FusedDepthwiseConv2dNative" || node.op == "_FusedMatMul" ||
      node.op == kFusedBatchMatMulOp) {
    auto fused = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
    auto host = ir::GetAttrOr<int64_t>(node, "num_host_args", 0);
    if (!fused.ok() || !host.ok() || *host != 0 || fused->size() != 1 || !internal::IsFloatNode(node) ||
        !IsNhwc(node)) {
      return BaseKind::kNone;
    }
    if ((*fused)[0] == "BiasAdd" ||
        ((*fused)[0] == "FusedBatchNorm" && node.op != "_FusedMatMul" && node.op != kFusedBatchMatMulOp)) {
      return BaseKind::kFusedWithoutActivation;
    }
  }
  return BaseKind::kNone;
}

// Whether `ref` (a float tensor) broadcasts into the batched product's
// output without enlarging it, all static: each of its dims is 1 or the
// output's known dim, and the Add's own output has the product's shape (an
// attention mask [B, 1, 1, T] against scores [B, H, T, T]).
bool AddendFits(const ir::Graph& graph, const ir::TensorRef& ref, const ir::Node& base, const ir::Node& add) {
  const ir::PartialShape* s = StaticShapeOf(graph, ref);
  const auto& dts = graph.node(ref.node).output_dtypes;
  if (s == nullptr || ref.index >= static_cast<int>(dts.size()) || dts[ref.index] != DType::kFloat) return false;
  if (base.output_shapes.empty() || add.output_shapes.empty() || !base.output_shapes[0].rank_known() ||
      !add.output_shapes[0].rank_known() || base.output_shapes[0].dims != add.output_shapes[0].dims) {
    return false;
  }
  const ir::PartialShape& out = base.output_shapes[0];
  if (s->rank() > out.rank()) return false;
  for (int i = 0; i < s->rank(); ++i) {
    const int64_t d = s->dim(i), o = out.dim(out.rank() - s->rank() + i);
    if (d != 1 && (d < 0 || o < 0 || d != o)) return false;
  }
  return true;
}

const char* FusedOpFor(BaseKind kind) {
  switch (kind) {
    case BaseKind::kConv: return "_FusedConv2D";
    case BaseKind::kDepthwise: return "FusedDepthwiseConv2dNative";
    case BaseKind::kMatMul:
    case BaseKind::kBatchMatMul: return "_FusedMatMul";
    case BaseKind::kBatchMatMulNd: return kFusedBatchMatMulOp;
    default: return "";
  }
}

// An activation the fused kernels apply: its fused_ops name, or "". GELU is
// a node gelu_fusion wrote; every fused kernel (reference and oneDNN, whose
// gelu_erf / gelu_tanh post-ops run it) takes it.
std::string FusedActivationName(const ir::Node& node) {
  if (node.inputs.size() != 1 || !internal::IsFloatNode(node)) return "";
  if (std::string gelu = GeluNodeKind(node); !gelu.empty()) return gelu;
  static const char* kNames[] = {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"};
  for (const char* n : kNames) {
    if (node.op == n) return n;
  }
  return "";
}

struct Match {
  int base = -1;
  int bias_node = -1;                // BiasAdd/Add node, or -1
  ir::TensorRef bias;                // BiasAdd's bias input (when bias_node is a BiasAdd)
  std::optional<Tensor> bias_value;  // new Const (Add form or zero bias)
  bool addend = false;               // batched product + Add of a broadcast tensor: fused_ops "Add"
  std::string activation;            // fused_ops name, or ""
  float leaky_alpha = 0.2f;
  std::vector<int> act_nodes;  // activation node(s); the last one is the result
  int result = -1;
};

class ConvBiasActivationFusion : public GraphPass {
 public:
  std::string name() const override { return "conv_bias_activation_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true);
    for (int i : order) {
      if (!keep[i]) continue;
      std::optional<Match> m = MatchAt(*graph, ctx, consumers, keep, i);
      if (m) TFHOST_RETURN_IF_ERROR(Rewrite(graph, *m, &keep));
    }
    keep.resize(graph->num_nodes(), true);
    return graph->Compact(keep);
  }

 private:
  // The activation reading output 0 of `node` (its only reader), or Swish.
  static void MatchActivation(const ir::Graph& graph, const PassContext& ctx,
                              const std::vector<std::vector<int>>& consumers, const std::vector<bool>& keep,
                              int node, Match* m) {
    if (ctx.MustKeep(graph.node(node))) return;
    const int a = SoleConsumer(graph, consumers, node);
    if (a >= 0) {
      const ir::Node& act = graph.node(a);
      std::string name = FusedActivationName(act);
      if (name.empty() || !keep[a] || IsProtected(graph, act)) return;
      if (name == "LeakyRelu") {
        auto alpha = ir::GetAttrOr<float>(act, "alpha", 0.2f);
        if (!alpha.ok()) return;
        m->leaky_alpha = *alpha;
      }
      m->activation = name;
      m->act_nodes = {a};
      return;
    }
    // Swish: y * Sigmoid(y), y read by exactly those two.
    internal::Uses uses = internal::UsesOf(graph, consumers, node);
    if (uses.control || uses.data.size() != 2) return;
    int sigmoid = -1, mul = -1;
    for (const auto& u : uses.data) {
      if (u.output_index != 0) return;
      const std::string& op = graph.node(u.consumer).op;
      if (op == "Sigmoid") sigmoid = u.consumer;
      if (op == "Mul") mul = u.consumer;
    }
    if (sigmoid < 0 || mul < 0 || !keep[sigmoid] || !keep[mul]) return;
    const ir::Node& s = graph.node(sigmoid);
    const ir::Node& p = graph.node(mul);
    if (!internal::IsFloatNode(s) || !internal::IsFloatNode(p) || ctx.MustKeep(s) || p.inputs.size() != 2 ||
        SoleConsumer(graph, consumers, sigmoid) != mul) {
      return;
    }
    const ir::TensorRef y{node, 0}, sy{sigmoid, 0};
    if (!((p.inputs[0] == y && p.inputs[1] == sy) || (p.inputs[0] == sy && p.inputs[1] == y))) return;
    m->activation = "_MklSwish";
    m->act_nodes = {sigmoid, mul};
  }

  static std::optional<Match> MatchAt(const ir::Graph& graph, const PassContext& ctx,
                                      const std::vector<std::vector<int>>& consumers, const std::vector<bool>& keep,
                                      int i) {
    const ir::Node& base = graph.node(i);
    const BaseKind kind = KindOf(graph, base);
    if (kind == BaseKind::kNone || ctx.MustKeep(base) || IsProtected(graph, base)) return std::nullopt;
    Match m;
    m.base = i;
    if (kind == BaseKind::kFusedWithoutActivation) {
      MatchActivation(graph, ctx, consumers, keep, i, &m);
      if (m.activation.empty()) return std::nullopt;
      m.result = m.act_nodes.back();
      return m;
    }
    int rank = 0;
    const int64_t channels = internal::StaticChannels(base, &rank);
    const int next = SoleConsumer(graph, consumers, i);
    if (next >= 0 && keep[next] && !IsProtected(graph, graph.node(next))) {
      const ir::Node& n = graph.node(next);
      if (n.op == "BiasAdd" && n.inputs.size() == 2 && n.inputs[0] == ir::TensorRef{i, 0} &&
          internal::IsFloatNode(n) && IsNhwc(n)) {
        m.bias_node = next;
        m.bias = n.inputs[1];
      } else if ((n.op == "Add" || n.op == "AddV2") && n.inputs.size() == 2 && internal::IsFloatNode(n) &&
                 channels > 0) {
        const int other = n.inputs[0] == ir::TensorRef{i, 0} ? 1 : 0;
        if (n.inputs[1 - other] == ir::TensorRef{i, 0}) {
          if (auto c = internal::ConstValue(graph, n.inputs[other])) {
            if (auto v = internal::PerChannelValues(*c, rank, channels)) {
              m.bias_node = next;
              m.bias_value = Tensor::FromVector<float>(*v, Shape({channels}));
            }
          }
          if (m.bias_node < 0 && kind == BaseKind::kBatchMatMulNd && n.inputs[other].node != i &&
              AddendFits(graph, n.inputs[other], base, n)) {
            m.bias_node = next;
            m.bias = n.inputs[other];
            m.addend = true;
          }
        }
      }
    }
    MatchActivation(graph, ctx, consumers, keep, m.bias_node >= 0 ? m.bias_node : i, &m);
    if (m.bias_node < 0) {
      if (m.activation.empty() || channels <= 0) return std::nullopt;
      m.bias_value = Tensor(DType::kFloat, Shape({channels}));  // zeros
    }
    m.result = m.activation.empty() ? m.bias_node : m.act_nodes.back();
    return m;
  }

  static Status Rewrite(ir::Graph* graph, const Match& m, std::vector<bool>* keep) {
    const ir::Node base = graph->node(m.base);  // copy: AddNode may move nodes
    const BaseKind kind = KindOf(*graph, base);
    std::vector<int> absorbed = {m.base};
    if (m.bias_node >= 0 && m.bias_node != m.result) absorbed.push_back(m.bias_node);
    for (int a : m.act_nodes) {
      if (a != m.result) absorbed.push_back(a);
    }
    std::vector<int> controls = graph->node(m.result).control_inputs;
    for (int a : absorbed) {
      for (int c : graph->node(a).control_inputs) AddControlInput(&controls, c);
    }
    ir::TensorRef bias = m.bias;
    if (m.bias_value) {
      std::vector<int> bias_controls;
      if (m.bias_node >= 0) {
        // The Add's Const may be tied to a frame by control edges.
        for (const auto& in : graph->node(m.bias_node).inputs) {
          if (in.node != m.base) bias_controls = graph->node(in.node).control_inputs;
        }
      }
      TFHOST_ASSIGN_OR_RETURN(int id, internal::AddConstNode(graph, base.name + "/fused_bias", *m.bias_value,
                                                             bias_controls));
      bias = ir::TensorRef{id, 0};
    }

    ir::Node& r = graph->mutable_node(m.result);
    std::vector<ir::PartialShape> shapes = r.output_shapes;
    if (shapes.size() > 1) shapes.resize(1);
    r.control_inputs = controls;
    r.output_dtypes = {DType::kFloat};
    r.output_shapes = shapes;
    if (kind == BaseKind::kFusedWithoutActivation) {
      r.op = base.op;
      r.inputs = base.inputs;
      r.attrs = base.attrs;
      auto fused = ir::GetAttrOr<std::vector<std::string>>(base, "fused_ops", {});
      std::vector<std::string> ops = fused.ok() ? *fused : std::vector<std::string>{};
      ops.push_back(m.activation);
      r.attrs["fused_ops"] = ops::MakeAttr(ops);
    } else {
      r.op = FusedOpFor(kind);
      r.inputs = {base.inputs[0], base.inputs[1], bias};
      if (kind == BaseKind::kBatchMatMul) {
        auto adj_x = ir::GetAttrOr<bool>(base, "adj_x", false);
        auto adj_y = ir::GetAttrOr<bool>(base, "adj_y", false);
        r.attrs.clear();
        r.attrs["transpose_a"] = ops::MakeAttr(adj_x.ok() && *adj_x);
        r.attrs["transpose_b"] = ops::MakeAttr(adj_y.ok() && *adj_y);
      } else if (kind == BaseKind::kBatchMatMulNd) {
        auto adj_x = ir::GetAttrOr<bool>(base, "adj_x", false);
        auto adj_y = ir::GetAttrOr<bool>(base, "adj_y", false);
        r.attrs.clear();
        r.attrs["adj_x"] = ops::MakeAttr(adj_x.ok() && *adj_x);
        r.attrs["adj_y"] = ops::MakeAttr(adj_y.ok() && *adj_y);
      } else {
        r.attrs = base.attrs;
      }
      r.attrs["T"] = ops::MakeAttr(DType::kFloat);
      std::vector<std::string> ops = {m.addend ? "Add" : "BiasAdd"};
      if (!m.activation.empty()) ops.push_back(m.activation);
      r.attrs["fused_ops"] = ops::MakeAttr(ops);
      r.attrs["num_args"] = ops::MakeAttr(1);
      // What grappler's remapper writes for a BiasAdd fusion.
      r.attrs["epsilon"] = ops::MakeAttr(0.0f);
    }
    if (m.activation == "LeakyRelu") r.attrs["leakyrelu_alpha"] = ops::MakeAttr(m.leaky_alpha);
    if (const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(r.op)) ir::FillDefaultAttrs(reg->def, &r);
    keep->resize(graph->num_nodes(), true);
    for (int a : absorbed) (*keep)[a] = false;
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConvBiasActivationFusion() { return std::make_unique<ConvBiasActivationFusion>(); }

}  // namespace tfhost::passes
