// arithmetic_identities: x * 1, 1 * x, x / 1, x + 0, 0 + x and x - 0 are x,
// and so is a Transpose by the identity permutation, so the node becomes
// Identity(x) and identity_elimination, which runs next, rewires its readers
// to x. Exported models are full of them: TensorFlow's
// tf.nn.silu is x * sigmoid(beta * x) with beta = 1.0, which hides the
// x * Sigmoid(x) swish that conv_bias_activation_fusion puts into the
// convolution, and leaves one more pass over the activation per layer.
//
// Only when that cannot change the result's shape, dtype or bits: the
// constant has one element, its rank is at most x's static rank (so
// broadcasting adds no dimension), and it has x's dtype. For floats x + 0
// is left alone: -0.0 + 0 is +0.0, while x * 1, x / 1 and x - 0 give x
// bit for bit (NaN and -0.0 included).
#include "passes/pass_manager.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::ConstValue;

// Whether the one-element tensor `t` holds `identity` (0 or 1).
bool HoldsOnly(const Tensor& t, int identity) {
  if (t.NumElements() != 1) return false;
  switch (t.dtype()) {
    case DType::kFloat: return t.data<float>()[0] == static_cast<float>(identity);
    case DType::kDouble: return t.data<double>()[0] == static_cast<double>(identity);
    case DType::kInt32: return t.data<int32_t>()[0] == identity;
    case DType::kInt64: return t.data<int64_t>()[0] == identity;
    default: return false;  // half types, quantized: not worth the cases
  }
}

// Which input (0 or 1) is the identity element of `op`, or -1.
int IdentityOperand(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() != 2 || node.output_dtypes.size() != 1) return -1;
  const bool mul = node.op == "Mul", div = node.op == "RealDiv" || node.op == "Div";
  const bool add = node.op == "Add" || node.op == "AddV2", sub = node.op == "Sub";
  if (!mul && !div && !add && !sub) return -1;
  const DType dtype = node.output_dtypes[0];
  if (add && (dtype == DType::kFloat || dtype == DType::kDouble)) return -1;  // -0.0 + 0
  const int identity = (mul || div) ? 1 : 0;
  // x / 1 and x - 0, but not 1 / x or 0 - x.
  const bool commutes = mul || add;
  for (int side : {1, 0}) {
    if (side == 0 && !commutes) break;
    const ir::TensorRef c = node.inputs[side];
    const ir::TensorRef x = node.inputs[1 - side];
    std::optional<Tensor> value = ConstValue(graph, c);
    if (!value || !HoldsOnly(*value, identity) || value->dtype() != dtype) continue;
    const ir::Node& producer = graph.node(x.node);
    if (x.index >= static_cast<int>(producer.output_shapes.size())) continue;
    const ir::PartialShape& xs = producer.output_shapes[x.index];
    if (value->rank() > 0 && (!xs.rank_known() || xs.rank() < value->rank())) continue;
    return side;
  }
  return -1;
}

// Which input is the value of a Transpose whose perm is a Const identity
// permutation (tensordot's Transpose(x, concat(free, axes)) once folded), or
// -1: it returns x as it is.
int IdentityTranspose(const ir::Graph& graph, const ir::Node& node) {
  if (node.op != "Transpose" || node.inputs.size() != 2 || node.output_dtypes.size() != 1) return -1;
  std::optional<Tensor> perm = ConstValue(graph, node.inputs[1]);
  if (!perm || perm->rank() != 1) return -1;
  auto values = perm->ToInt64Vector();
  if (!values.ok()) return -1;
  for (size_t i = 0; i < values->size(); ++i) {
    if ((*values)[i] != static_cast<int64_t>(i)) return -1;
  }
  // The perm's length must be x's rank, or the kernel reports a mismatch.
  const ir::Node& producer = graph.node(node.inputs[0].node);
  const int index = node.inputs[0].index;
  if (index >= static_cast<int>(producer.output_shapes.size())) return -1;
  const ir::PartialShape& xs = producer.output_shapes[index];
  return xs.rank_known() && xs.rank() == static_cast<int>(values->size()) ? 0 : -1;
}

class ArithmeticIdentities : public GraphPass {
 public:
  std::string name() const override { return "arithmetic_identities"; }

  Status Run(ir::Graph* graph, const PassContext&) override {
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& node = graph->node(i);
      if (IsProtected(*graph, node)) continue;
      int kept = IdentityTranspose(*graph, node);
      if (kept < 0) {
        const int side = IdentityOperand(*graph, node);
        if (side < 0) continue;
        kept = 1 - side;
      }
      ir::Node& n = graph->mutable_node(i);
      const DType dtype = n.output_dtypes[0];
      n.inputs = {n.inputs[kept]};
      n.op = "Identity";
      n.attrs.clear();
      n.attrs["T"] = ops::MakeAttr(dtype);
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeArithmeticIdentities() { return std::make_unique<ArithmeticIdentities>(); }

}  // namespace tfhost::passes
