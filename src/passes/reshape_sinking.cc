// reshape_sinking: a Reshape between a matrix product and the bias and
// activation applied to it moves below them, so conv_bias_activation_fusion
// sees MatMul -> BiasAdd -> activation and makes one _FusedMatMul. Keras's
// Dense on a [B, T, D] input is a Tensordot: MatMul on [B*T, D], Reshape to
// [B, T, N], then BiasAdd and the activation; BERT's feed-forward layers
// wrote their 128 x 3072 output three times for it.
//
// The ops moved act on each row of N values alike (a BiasAdd or Add of a
// [N] Const, the activations the fusion takes, a one-instruction GELU node),
// so they commute with a Reshape that keeps each row of N values together:
// one whose last dim is N, or whose last k static dims multiply to N. Keras's
// EinsumDense on attention's query, key and value writes the second form: a
// BatchMatMulV2 to [B, T, 768], a Reshape to [B, T, 12, 64] and an Add of a
// [12, 64] bias, which then becomes a [768] Const. Matched: the Reshape reads
// a MatMul's or BatchMatMul's output, its static last dim(s) cover the same
// known N, the Reshape's only reader is the op to move, and neither is a
// kept name. The moved op then reads the product directly and the Reshape
// reads the moved op; readers of the moved op read the Reshape.
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

// The Reshape's output dims that hold one row of the n-wide product: its
// last dim when that is n, else its last static dims whose product is n;
// empty when neither.
std::vector<int64_t> RowDims(const ir::Graph& graph, int reshape, int64_t n) {
  if (ReshapeLastDim(graph, reshape) == n) return {n};
  const auto& shapes = graph.node(reshape).output_shapes;
  if (shapes.empty() || !shapes[0].rank_known()) return {};
  const ir::PartialShape& s = shapes[0];
  std::vector<int64_t> dims;
  int64_t product = 1;
  for (int k = s.rank() - 1; k >= 0 && product < n; --k) {
    const int64_t d = s.dim(k);
    if (d <= 0 || d > n / product) return {};
    product *= d;
    dims.insert(dims.begin(), d);
  }
  return product == n ? dims : std::vector<int64_t>{};
}

// The bias `node` (reading the Reshape as input 0) adds to each row, as a
// [n] Const: a Const whose dims, leading 1s aside, are the row's dims.
std::optional<Tensor> RowBias(const ir::Graph& graph, const ir::Node& node, int reshape,
                              const std::vector<int64_t>& row) {
  if (node.op != "BiasAdd" && node.op != "Add" && node.op != "AddV2") return std::nullopt;
  if (node.inputs.size() != 2 || node.inputs[0].node != reshape) return std::nullopt;
  if (node.op == "BiasAdd") {
    auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC") return std::nullopt;
  }
  std::optional<Tensor> b = ConstValue(graph, node.inputs[1]);
  if (!b || b->dtype() != DType::kFloat) return std::nullopt;
  const auto& out = graph.node(reshape).output_shapes;
  const int out_rank = out.empty() || !out[0].rank_known() ? -1 : out[0].rank();
  const int lead = b->rank() - static_cast<int>(row.size());
  if (lead < 0 || (node.op != "BiasAdd" && b->rank() > out_rank)) return std::nullopt;
  for (int i = 0; i < b->rank(); ++i) {
    if (b->dim(i) != (i < lead ? 1 : row[i - lead])) return std::nullopt;
  }
  if (b->rank() == 1) return b;
  auto flat = b->Reshaped(Shape({b->NumElements()}));
  if (!flat.ok()) return std::nullopt;
  return *flat;
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
    if (!IsProduct(source) && !IsRowActivation(source) && source.op != "BiasAdd" && source.op != "Add" &&
        source.op != "AddV2") {
      return false;
    }
    // Only below a product, or an op this pass already moved off one.
    const int64_t n = StaticLastDim(*graph, reshape.inputs[0]);
    if (n <= 0) return false;
    const std::vector<int64_t> row = RowDims(*graph, r, n);
    if (row.empty()) return false;
    const int x = SoleConsumer(*graph, consumers, r);
    if (x < 0) return false;
    const ir::Node& op = graph->node(x);
    if (ctx.MustKeep(op) || IsProtected(*graph, op) || !internal::IsFloatNode(op) || !op.control_inputs.empty()) {
      return false;
    }
    std::optional<Tensor> bias;
    if (!IsRowActivation(op)) {
      bias = RowBias(*graph, op, r, row);
      if (!bias) return false;
    }
    if (op.inputs[0].node != r || op.inputs[0].index != 0) return false;
    if (!IsProduct(source) && !Descends(*graph, reshape.inputs[0].node)) return false;

    const ir::TensorRef product = reshape.inputs[0];
    const std::vector<ir::PartialShape> shaped = op.output_shapes;
    // A bias given in the row's dims ([12, 64]) is added as the [N] it is.
    // (Adding a node may move the graph's nodes: no references past here.)
    if (bias && ConstValue(*graph, op.inputs[1])->rank() != 1) {
      StatusOr<int> flat = internal::AddConstNode(graph, op.name + "/row_bias", *bias, {});
      if (!flat.ok()) return false;
      graph->mutable_node(x).inputs[1] = ir::TensorRef{*flat, 0};
    }
    const std::vector<ir::PartialShape> flat_shapes = {graph->node(product.node).output_shapes.size() >
                                                               static_cast<size_t>(product.index)
                                                           ? graph->node(product.node).output_shapes[product.index]
                                                           : ir::PartialShape::Unknown()};
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

  static bool IsProduct(const ir::Node& n) {
    return n.op == "MatMul" || n.op == "_FusedMatMul" || n.op == "BatchMatMul" || n.op == "BatchMatMulV2" ||
           n.op == "BatchMatMulV3";
  }

  // Whether the op feeding a Reshape is a row op that itself reads a
  // matrix product through row ops this pass moved there.
  static bool Descends(const ir::Graph& graph, int node) {
    for (int depth = 0; depth < 4; ++depth) {
      const ir::Node& n = graph.node(node);
      if (IsProduct(n)) return true;
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
