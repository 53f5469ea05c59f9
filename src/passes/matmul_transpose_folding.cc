// matmul_transpose_folding: a Transpose that swaps the last two dims of a
// matrix product's only output becomes the product itself with its operands
// swapped, (A B)^T = B^T A^T: MatMul(b, a) with transpose_a = !transpose_b
// and transpose_b = !transpose_a, or BatchMatMul(V2)(y, x) with adj_x =
// !adj_y and adj_y = !adj_x. TensorFlow's einsum writes exactly this for
// attention scores ("aecd,abcd->acbe": K Q^T, then a transpose of every
// [T, T] matrix): BERT-base ran 12 such transposes of [1, 12, 128, 128] at
// batch 1, 0.07 ms each.
//
// The product's entries are the same sums of the same products; the kernel
// may add them in another order (a few float ulps). Matched: the Transpose's
// perm a Const that keeps every batch dim and swaps the last two, its input
// output 0 of a MatMul, BatchMatMul or BatchMatMulV2 that nothing else reads
// and that is neither kept nor protected. The Transpose's node becomes the
// product (its name, outputs and readers stay); the old product is pruned.
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddControlInput;
using internal::ConstValue;
using internal::SoleConsumer;

bool SwapsLastTwo(const std::vector<int64_t>& perm) {
  const size_t r = perm.size();
  if (r < 2) return false;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return perm[r - 2] == static_cast<int64_t>(r - 1) && perm[r - 1] == static_cast<int64_t>(r - 2);
}

// Whether swapping the last two entries of `perm` gives a permutation that
// keeps the last dim last, where `perm` itself does not.
bool InnermostLastWhenSwapped(const std::vector<int64_t>& perm) {
  const size_t r = perm.size();
  return r >= 2 && perm[r - 1] != static_cast<int64_t>(r - 1) && perm[r - 2] == static_cast<int64_t>(r - 1);
}

class MatMulTransposeFolding : public GraphPass {
 public:
  std::string name() const override { return "matmul_transpose_folding"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    TFHOST_RETURN_IF_ERROR(FoldOutputTransposes(graph, ctx));
    return KeepOperandRowsContiguous(graph, ctx);
  }

 private:
  // A batched product's operand that is a Transpose moving the last dim
  // (attention's query as [B, H, D, T]) becomes the Transpose that keeps it
  // last ([B, H, T, D]) read through the product's adjoint flag flipped:
  // the same products, the Transpose copying rows instead of single floats,
  // and the product reading its first operand untransposed (oneDNN 2.6's
  // brgemm ran BERT-base's scores at 0.145 ms with both operands
  // transposed). Turning an operand that keeps the last dim into one that
  // moves it, so that neither is transposed, made the Transposes cost more
  // than the products saved. Matched: the Transpose's perm a Const, its only
  // reader the product, neither kept nor protected.
  static Status KeepOperandRowsContiguous(ir::Graph* graph, const PassContext& ctx) {
    // The products the fold above replaced still read their operands until
    // pruned; an operand's Transpose must have one reader.
    TFHOST_RETURN_IF_ERROR(PruneDeadNodes(graph, ctx));
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& mm = graph->node(i);
      const bool batch = mm.op == "BatchMatMul" || mm.op == "BatchMatMulV2" || mm.op == "BatchMatMulV3";
      if (!batch || mm.inputs.size() != 2 || IsProtected(*graph, mm)) continue;
      for (int slot = 0; slot < 2; ++slot) {
        const ir::TensorRef in = graph->node(i).inputs[slot];
        const ir::Node& t = graph->node(in.node);
        if (t.op != "Transpose" || in.index != 0 || t.inputs.size() != 2 || ctx.MustKeep(t) ||
            IsProtected(*graph, t) || SoleConsumer(*graph, consumers, in.node) != i || !t.control_inputs.empty()) {
          continue;
        }
        std::optional<Tensor> perm = ConstValue(*graph, t.inputs[1]);
        if (!perm || perm->rank() != 1) continue;
        auto values = perm->ToInt64Vector();
        if (!values.ok() || !InnermostLastWhenSwapped(*values)) continue;
        const char* flag = slot == 0 ? "adj_x" : "adj_y";
        auto adj = ir::GetAttrOr<bool>(graph->node(i), flag, false);
        if (!adj.ok()) continue;
        std::vector<int64_t> swapped = *values;
        std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
        Tensor new_perm = perm->dtype() == DType::kInt64
                              ? Tensor::FromVector<int64_t>(swapped)
                              : Tensor::FromVector<int32_t>(std::vector<int32_t>(swapped.begin(), swapped.end()));
        const std::string base = t.name + "/perm";
        TFHOST_ASSIGN_OR_RETURN(int c, internal::AddConstNode(graph, base, new_perm, {}));
        ir::Node& tn = graph->mutable_node(in.node);
        tn.inputs[1] = ir::TensorRef{c, 0};
        if (!tn.output_shapes.empty() && tn.output_shapes[0].rank_known() && tn.output_shapes[0].rank() >= 2) {
          auto& dims = tn.output_shapes[0].dims;
          std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
        }
        tn.backend.clear();
        ir::Node& product = graph->mutable_node(i);
        product.attrs[flag] = ops::MakeAttr(!*adj);
        product.backend.clear();
      }
    }
    return OkStatus();
  }

  static Status FoldOutputTransposes(ir::Graph* graph, const PassContext& ctx) {
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& t = graph->node(i);
      if (t.op != "Transpose" || t.inputs.size() != 2 || IsProtected(*graph, t)) continue;
      std::optional<Tensor> perm = ConstValue(*graph, t.inputs[1]);
      if (!perm || perm->rank() != 1) continue;
      auto values = perm->ToInt64Vector();
      if (!values.ok() || !SwapsLastTwo(*values)) continue;
      const int mm_id = t.inputs[0].node;
      const ir::Node& mm = graph->node(mm_id);
      const bool batch = mm.op == "BatchMatMul" || mm.op == "BatchMatMulV2";
      if ((!batch && mm.op != "MatMul") || t.inputs[0].index != 0 || mm.inputs.size() != 2) continue;
      if (!batch && values->size() != 2) continue;
      if (ctx.MustKeep(mm) || IsProtected(*graph, mm) || SoleConsumer(*graph, consumers, mm_id) != i) continue;
      const char* first = batch ? "adj_x" : "transpose_a";
      const char* second = batch ? "adj_y" : "transpose_b";
      auto a = ir::GetAttrOr<bool>(mm, first, false);
      auto b = ir::GetAttrOr<bool>(mm, second, false);
      if (!a.ok() || !b.ok()) continue;
      const ir::Node product = mm;  // a copy: the graph's node vector is written below
      ir::Node& n = graph->mutable_node(i);
      n.op = product.op;
      n.inputs = {product.inputs[1], product.inputs[0]};
      n.attrs = product.attrs;
      n.attrs[first] = ops::MakeAttr(!*b);
      n.attrs[second] = ops::MakeAttr(!*a);
      for (int c : product.control_inputs) AddControlInput(&n.control_inputs, c);
      n.backend.clear();
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeMatMulTransposeFolding() { return std::make_unique<MatMulTransposeFolding>(); }

}  // namespace tfhost::passes
