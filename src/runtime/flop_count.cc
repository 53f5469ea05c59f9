#include "runtime/flop_count.h"

#include <set>

#include "ir/attrs.h"
#include "ir/tensor_proto.h"
#include "ops/shape_inference.h"

namespace tfhost::runtime {

namespace {

// Fed tensors up to this many elements become Consts for shape inference (a
// resize ratio, a target size); larger ones only give their shape.
constexpr int64_t kMaxConstFeedElements = 64;

const ir::PartialShape* InputShape(const ir::Graph& graph, const ir::Node& node, int i) {
  if (i < 0 || i >= static_cast<int>(node.inputs.size())) return nullptr;
  const ir::TensorRef& ref = node.inputs[i];
  if (ref.node < 0 || ref.node >= graph.num_nodes()) return nullptr;
  const ir::Node& producer = graph.node(ref.node);
  if (ref.index < 0 || ref.index >= static_cast<int>(producer.output_shapes.size())) return nullptr;
  return &producer.output_shapes[ref.index];
}

const ir::PartialShape* OutputShape(const ir::Node& node) {
  return node.output_shapes.empty() ? nullptr : &node.output_shapes[0];
}

// Product of every dim as a double, or -1 when any is unknown.
double Elements(const ir::PartialShape* shape) {
  if (shape == nullptr || !shape->rank_known()) return -1;
  double n = 1;
  for (int64_t d : shape->dims) {
    if (d < 0) return -1;
    n *= static_cast<double>(d);
  }
  return n;
}

// Dim i of a shape of rank `rank` (negative i counts from the end), or -1.
double Dim(const ir::PartialShape* shape, int rank, int i) {
  if (shape == nullptr || shape->rank() != rank) return -1;
  int k = i < 0 ? rank + i : i;
  if (k < 0 || k >= rank) return -1;
  return shape->dims[k] < 0 ? -1 : static_cast<double>(shape->dims[k]);
}

// All of `factors` known (>= 0): 2 * their product; else -1.
double TwoTimesProduct(std::initializer_list<double> factors) {
  double p = 2;
  for (double f : factors) {
    if (f < 0) return -1;
    p *= f;
  }
  return p;
}

double EinsumFlops(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() != 2) return 0;  // one operand: a transpose or reduction
  auto eq = ir::GetAttr<std::string>(node, "equation");
  if (!eq.ok()) return -1;
  std::string equation;
  for (char c : *eq) {
    if (c != ' ') equation += c;
  }
  if (equation.find("...") != std::string::npos) return -1;
  size_t arrow = equation.find("->");
  size_t comma = equation.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow) return -1;
  std::string terms[2] = {equation.substr(0, comma), equation.substr(comma + 1, arrow - comma - 1)};
  std::map<char, double> sizes;
  for (int t = 0; t < 2; ++t) {
    const ir::PartialShape* shape = InputShape(graph, node, t);
    if (shape == nullptr || shape->rank() != static_cast<int>(terms[t].size())) return -1;
    for (size_t i = 0; i < terms[t].size(); ++i) {
      if (shape->dims[i] < 0) return -1;
      sizes[terms[t][i]] = std::max(sizes[terms[t][i]], static_cast<double>(shape->dims[i]));
    }
  }
  // Every (output index, contracted index) combination is one multiply-add.
  double product = 2;
  for (const auto& [letter, size] : sizes) product *= size;
  return product;
}

}  // namespace

bool IsCountedOp(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Conv2D",      "_FusedConv2D",  "DepthwiseConv2dNative", "FusedDepthwiseConv2dNative",
      "_FusedDepthwiseConv2dNative",  "Conv2DBackpropInput",   "MatMul",
      "_FusedMatMul", "BatchMatMul",  "BatchMatMulV2",         "BatchMatMulV3",
      "Einsum"};
  return kOps.count(op) > 0;
}

double NodeFlops(const ir::Graph& graph, const ir::Node& node) {
  const std::string& op = node.op;
  if (!IsCountedOp(op)) return 0;
  if (op == "Conv2D" || op == "_FusedConv2D") {
    // Each output element is a dot product over the filter's [h, w, in] window.
    const ir::PartialShape* filter = InputShape(graph, node, 1);
    return TwoTimesProduct({Elements(OutputShape(node)), Dim(filter, 4, 0), Dim(filter, 4, 1), Dim(filter, 4, 2)});
  }
  if (op == "DepthwiseConv2dNative" || op == "FusedDepthwiseConv2dNative" || op == "_FusedDepthwiseConv2dNative") {
    // Each output element (one input channel x multiplier) sums over h x w.
    const ir::PartialShape* filter = InputShape(graph, node, 1);
    return TwoTimesProduct({Elements(OutputShape(node)), Dim(filter, 4, 0), Dim(filter, 4, 1)});
  }
  if (op == "Conv2DBackpropInput") {
    // Every out_backprop element meets the [h, w, in] slice of its filter.
    const ir::PartialShape* filter = InputShape(graph, node, 1);
    return TwoTimesProduct({Elements(InputShape(graph, node, 2)), Dim(filter, 4, 0), Dim(filter, 4, 1),
                            Dim(filter, 4, 2)});
  }
  if (op == "MatMul" || op == "_FusedMatMul") {
    auto transpose_a = ir::GetAttrOr<bool>(node, "transpose_a", false);
    if (!transpose_a.ok()) return -1;
    const ir::PartialShape* a = InputShape(graph, node, 0);
    return TwoTimesProduct({Elements(OutputShape(node)), Dim(a, 2, *transpose_a ? 0 : 1)});
  }
  if (op == "BatchMatMul" || op == "BatchMatMulV2" || op == "BatchMatMulV3") {
    auto adj_x = ir::GetAttrOr<bool>(node, "adj_x", false);
    if (!adj_x.ok()) return -1;
    const ir::PartialShape* x = InputShape(graph, node, 0);
    if (x == nullptr || !x->rank_known() || x->rank() < 2) return -1;
    return TwoTimesProduct({Elements(OutputShape(node)), Dim(x, x->rank(), *adj_x ? -2 : -1)});
  }
  return EinsumFlops(graph, node);
}

FlopCount CountFlops(const ir::Graph& graph) {
  FlopCount count;
  for (const ir::Node& node : graph.nodes()) {
    if (!IsCountedOp(node.op)) continue;
    double f = NodeFlops(graph, node);
    if (f < 0) {
      count.unknown.push_back(node.name);
      continue;
    }
    ++count.counted_nodes;
    count.flops += f;
    count.flops_by_op[node.op] += f;
  }
  return count;
}

StatusOr<FlopCount> CountFlopsForFeeds(const ir::Graph& graph,
                                       const std::vector<std::pair<std::string, const Tensor*>>& feeds) {
  ir::Graph copy = graph;
  for (const auto& [name, value] : feeds) {
    if (value == nullptr) continue;
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, copy.ResolveTensor(name));
    ir::Node& node = copy.mutable_node(ref.node);
    // A fed output of a multi-output node cannot become a source without
    // renumbering its consumers' edges; it keeps its inferred shape.
    if (ref.index != 0 || node.output_dtypes.size() != 1) continue;
    node.inputs.clear();
    node.control_inputs.clear();
    node.attrs.clear();
    tensorflow::AttrValue dtype;
    dtype.set_type(static_cast<tensorflow::DataType>(value->dtype()));
    if (value->NumElements() <= kMaxConstFeedElements && !IsStringLike(value->dtype())) {
      node.op = "Const";
      node.attrs["dtype"] = dtype;
      ir::TensorToProto(*value, node.attrs["value"].mutable_tensor());
    } else {
      node.op = "Placeholder";
      node.attrs["dtype"] = dtype;
      *node.attrs["shape"].mutable_shape() = ir::ShapeToProto(value->shape());
      // A scalar Placeholder counts as a scalar only with this record
      // (shape_inference.cc, GraphDef versions before 22).
      if (value->shape().rank() == 0) {
        *node.attrs["_output_shapes"].mutable_list()->add_shape() = ir::ShapeToProto(value->shape());
      }
    }
  }
  // The graph passes introduce ops of their own; one without a shape
  // function yet would leave every node after it unknown (nsfw's first node
  // is a fused element-wise chain), so the count gives them the shape they
  // are defined to have.
  ops::ShapeFnRegistry registry = ops::ShapeFnRegistry::Global();
  if (registry.Find("_TfhostFusedElementwise") == nullptr) {
    registry.Register("_TfhostFusedElementwise", ops::BroadcastingShape);
  }
  TFHOST_RETURN_IF_ERROR(ops::InferShapes(copy, registry));
  return CountFlops(copy);
}

}  // namespace tfhost::runtime
