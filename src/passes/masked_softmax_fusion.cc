// masked_softmax_fusion: Softmax(SelectV2(mask, logits, fill)) becomes one
// _TfhostMaskedSoftmax(logits, mask, fill) under the Softmax's name
// (ops/math/masked_softmax.h). Keras's Softmax layer with a mask writes the
// first form for attention: the masked scores replaced by a large negative
// fill, written out as a tensor of the scores' size, then read back by the
// Softmax; the fused node's kernel applies the mask as it reads each row.
//
// Keras also zeroes the masked probabilities, SelectV2(mask, p, 0.0); when
// that is the Softmax's only reader, it goes into the node too (zero_masked,
// under the second SelectV2's name).
//
// The fused node computes exactly what the ops did (its reference kernel is
// theirs). Matched: a float32 Softmax whose input is output 0 of a SelectV2
// read by nothing else, neither kept nor protected, whose fill (e) is a
// Const of one value. Done only where a backend other than the reference
// takes the fused node (PassContext::has_fast_kernel).
#include <cmath>

#include "ops/math/masked_softmax.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddControlInput;
using internal::ConstValue;
using internal::SoleConsumer;

// The node reading the Softmax `softmax` (and nothing else reading it) when
// that is SelectV2(mask, softmax, 0.0) on the same mask, or -1.
int ZeroingSelect(const ir::Graph& graph, const PassContext& ctx, const std::vector<std::vector<int>>& consumers,
                  int softmax, const ir::TensorRef& mask) {
  if (ctx.MustKeep(graph.node(softmax))) return -1;
  const int reader = SoleConsumer(graph, consumers, softmax);
  if (reader < 0) return -1;
  const ir::Node& n = graph.node(reader);
  if (n.op != "SelectV2" || n.inputs.size() != 3 || !(n.inputs[0] == mask) || n.inputs[1].node != softmax ||
      !internal::IsFloatNode(n) || IsProtected(graph, n)) {
    return -1;
  }
  std::optional<Tensor> zero = ConstValue(graph, n.inputs[2]);
  if (!zero || zero->dtype() != DType::kFloat || zero->NumElements() != 1) return -1;
  const float z = zero->data<float>()[0];
  return z == 0.0f && !std::signbit(z) ? reader : -1;
}

class MaskedSoftmaxFusion : public GraphPass {
 public:
  std::string name() const override { return "masked_softmax_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    bool changed = false;
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& softmax = graph->node(i);
      if (softmax.op != "Softmax" || softmax.inputs.size() != 1 || !internal::IsFloatNode(softmax) ||
          IsProtected(*graph, softmax)) {
        continue;
      }
      const int select_id = softmax.inputs[0].node;
      const ir::Node& select = graph->node(select_id);
      if (select.op != "SelectV2" || softmax.inputs[0].index != 0 || select.inputs.size() != 3 ||
          !internal::IsFloatNode(select) || ctx.MustKeep(select) || IsProtected(*graph, select) ||
          SoleConsumer(*graph, consumers, select_id) != i) {
        continue;
      }
      std::optional<Tensor> fill = ConstValue(*graph, select.inputs[2]);
      if (!fill || fill->dtype() != DType::kFloat || fill->NumElements() != 1) continue;
      ir::Node fused = softmax;
      fused.op = ops::math::kMaskedSoftmaxOp;
      fused.inputs = {select.inputs[1], select.inputs[0], select.inputs[2]};
      fused.attrs.clear();
      fused.attrs["T"] = ops::MakeAttr(DType::kFloat);
      for (int c : select.control_inputs) AddControlInput(&fused.control_inputs, c);
      fused.backend.clear();
      if (ctx.has_fast_kernel && !ctx.has_fast_kernel(fused)) continue;
      // Keras then zeroes the masked probabilities: SelectV2(mask, p, 0).
      const int zeroing = ZeroingSelect(*graph, ctx, consumers, i, select.inputs[0]);
      if (zeroing >= 0) {
        fused.name = graph->node(zeroing).name;
        fused.attrs["zero_masked"] = ops::MakeAttr(true);
        for (int c : graph->node(zeroing).control_inputs) AddControlInput(&fused.control_inputs, c);
        graph->mutable_node(zeroing) = std::move(fused);
      } else {
        graph->mutable_node(i) = std::move(fused);
      }
      changed = true;
    }
    // The SelectV2 nodes are dead now; the element-wise fusion after this
    // pass must not take them.
    return changed ? PruneDeadNodes(graph, ctx) : OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeMaskedSoftmaxFusion() { return std::make_unique<MaskedSoftmaxFusion>(); }

}  // namespace tfhost::passes
