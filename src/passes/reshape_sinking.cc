// reshape_sinking: a Reshape between a matrix product and the bias and
// activation applied to it moves below them, so conv_bias_activation_fusion
// sees MatMul -> BiasAdd -> activation and makes one _FusedMatMul. Keras's
// Dense on a [B, T, D] input is a Tensordot: MatMul on [B*T, D], Reshape to
// [B, T, N], then BiasAdd and the activation; BERT's feed-forward layers
// wrote their 128 x 3072 output three times for it.
//
// The ops moved act on each row of N values alike (a BiasAdd or Add of a
// [N] Const, the activations the fusion takes, a one-instruction GELU node),
// so they commute with a Reshape that keeps the last dim N. Matched: the
// Reshape reads a MatMul's output, both static last dims are the same known
// N, the Reshape's only reader is the op to move, and neither is a kept
// name. The moved op then reads the product directly and the Reshape reads
// the moved op; readers of the moved op read the Reshape.
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::ConstValue;
using internal::SoleConsumer;

bool IsRowActivation(const ir::Node& node) {
  static const char* kOps[] = {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"};
  for (const char* op : kOps) {
    if (node.op == op) return node.inputs.size() == 1;
  }
  if (node.op != kFusedElementwiseOp || node.inputs.size() != 1) return false;
  auto ops = ir::GetAttrOr<std::vector<std::string>>(node, "ops", {});
  return ops.ok() && ops->size() == 1 && ((*ops)[0] == "GeluExact" || (*ops)[0] == "GeluApproximate");
}

int64_t StaticLastDim(const ir::Graph& graph, const ir::TensorRef& ref) {
  const auto& shapes = graph.node(ref.node).output_shapes;
  if (ref.index >= static_cast<int>(shapes.size()) || !shapes[ref.index].rank_known() ||
      shapes[ref.index].rank() < 1) {
    return -1;
  }
  return shapes[ref.index].dim(shapes[ref.index].rank() - 1);
}

// The last dim a Reshape produces: from its static shape, else from its
// shape operand when that ends in a constant (a Const, or a ConcatV2 whose
// last piece is one: Tensordot writes concat(gathered batch dims, [N])).
int64_t ReshapeLastDim(const ir::Graph& graph, int reshape) {
  const int64_t known = StaticLastDim(graph, ir::TensorRef{reshape, 0});
  if (known >= 0) return known;
  const ir::TensorRef shape = graph.node(reshape).inputs[1];
  std::optional<Tensor> tail = ConstValue(graph, shape);
  const ir::Node& producer = graph.node(shape.node);
  if (!tail && producer.op == "ConcatV2" && producer.inputs.size() >= 3) {
    std::optional<Tensor> axis = ConstValue(graph, producer.inputs.back());
    if (!axis || axis->NumElements() != 1) return -1;
    auto a = axis->ToInt64Vector();
    if (!a.ok() || ((*a)[0] != 0 && (*a)[0] != -1)) return -1;  // a shape is a vector
    tail = ConstValue(graph, producer.inputs[producer.inputs.size() - 2]);
  }
  if (!tail || tail->rank() != 1 || tail->NumElements() < 1) return -1;
  auto values = tail->ToInt64Vector();
  return values.ok() ? values->back() : -1;
}

// Whether `node` (reading the Reshape as input 0) adds a [n] Const bias.
bool IsRowBias(const ir::Graph& graph, const ir::Node& node, int reshape, int64_t n) {
  if (node.op != "BiasAdd" && node.op != "Add" && node.op != "AddV2") return false;
  if (node.inputs.size() != 2 || node.inputs[0].node != reshape) return false;
  if (node.op == "BiasAdd") {
    auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC") return false;
  }
  std::optional<Tensor> b = ConstValue(graph, node.inputs[1]);
  return b && b->dtype() == DType::kFloat && b->rank() == 1 && b->dim(0) == n;
}

class ReshapeSinking : public GraphPass {
 public:
  std::string name() const override { return "reshape_sinking"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    // Each swap moves one op; a Reshape keeps sinking while it can.
    for (bool moved = true; moved;) {
      moved = false;
      const std::vector<std::vector<int>> consumers = graph->Consumers();
      for (int r = 0; r < graph->num_nodes(); ++r) {
        if (TrySink(graph, ctx, consumers, r)) {
          moved = true;
          break;
        }
      }
    }
    return OkStatus();
  }

 private:
  static bool TrySink(ir::Graph* graph, const PassContext& ctx, const std::vector<std::vector<int>>& consumers,
                      int r) {
    const ir::Node& reshape = graph->node(r);
    if (reshape.op != "Reshape" || reshape.inputs.size() != 2 || !internal::IsFloatNode(reshape) ||
        ctx.MustKeep(reshape) || IsProtected(*graph, reshape)) {
      return false;
    }
    const ir::Node& source = graph->node(reshape.inputs[0].node);
    if (source.op != "MatMul" && source.op != "_FusedMatMul" && !IsRowActivation(source) &&
        source.op != "BiasAdd" && source.op != "Add" && source.op != "AddV2") {
      return false;
    }
    // Only below a product, or an op this pass already moved off one.
    const int64_t n = StaticLastDim(*graph, reshape.inputs[0]);
    if (n <= 0 || ReshapeLastDim(*graph, r) != n) return false;
    const int x = SoleConsumer(*graph, consumers, r);
    if (x < 0) return false;
    const ir::Node& op = graph->node(x);
    if (ctx.MustKeep(op) || IsProtected(*graph, op) || !internal::IsFloatNode(op) || !op.control_inputs.empty()) {
      return false;
    }
    if (!IsRowActivation(op) && !IsRowBias(*graph, op, r, n)) return false;
    if (op.inputs[0].node != r || op.inputs[0].index != 0) return false;
    if (source.op != "MatMul" && source.op != "_FusedMatMul" && !Descends(*graph, reshape.inputs[0].node)) {
      return false;
    }

    const ir::TensorRef product = reshape.inputs[0];
    const std::vector<ir::PartialShape> flat_shapes = {graph->node(product.node).output_shapes.size() >
                                                               static_cast<size_t>(product.index)
                                                           ? graph->node(product.node).output_shapes[product.index]
                                                           : ir::PartialShape::Unknown()};
    const std::vector<ir::PartialShape> shaped = op.output_shapes;
    for (int c : consumers[x]) {
      ir::Node& reader = graph->mutable_node(c);
      for (ir::TensorRef& in : reader.inputs) {
        if (in.node == x) in = ir::TensorRef{r, 0};
      }
      for (int& control : reader.control_inputs) {
        if (control == x) control = r;
      }
    }
    ir::Node& moved = graph->mutable_node(x);
    moved.inputs[0] = product;
    moved.output_shapes = flat_shapes;
    ir::Node& rs = graph->mutable_node(r);
    rs.inputs[0] = ir::TensorRef{x, 0};
    rs.output_shapes = shaped;
    return true;
  }

  // Whether the op feeding a Reshape is a row op that itself reads a
  // matrix product through row ops this pass moved there.
  static bool Descends(const ir::Graph& graph, int node) {
    for (int depth = 0; depth < 4; ++depth) {
      const ir::Node& n = graph.node(node);
      if (n.op == "MatMul" || n.op == "_FusedMatMul") return true;
      const bool row_op = IsRowActivation(n) || ((n.op == "BiasAdd" || n.op == "Add" || n.op == "AddV2") &&
                                                 n.inputs.size() == 2 && ConstValue(graph, n.inputs[1]));
      if (!row_op) return false;
      node = n.inputs[0].node;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeReshapeSinking() { return std::make_unique<ReshapeSinking>(); }

}  // namespace tfhost::passes
