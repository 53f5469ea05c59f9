// bf16 activation chaining: keeps activations in bf16 between consecutive
// bf16 convolutions, converting only at the chain's boundaries. Runs after
// the precision pass (the loader adds it for --precision bf16 when the fast
// kernels run on a CPU with native bf16).
//
// A bf16 convolution rounds its input activations to bf16 before it
// multiplies. When every reader of a convolution's output is such a
// convolution (reading it as its activation input), storing that output in
// bf16 does the same rounding once, at the writer: the readers see the same
// values, and the tensor between them is half the bytes, written and read
// once rather than written in float32, read, converted and written again.
// At batch 32 these activations are far larger than the caches, so this is
// where a memory-bound MobileNet spends its time (docs/perf.md, "bf16").
//
// The edge is visible in the graph: the writer's output dtype becomes
// DT_BFLOAT16 (attr _tfhost_output_dtype), and each reader carries
// _tfhost_bf16_input (ir/precision_attrs.h). Whatever kernel runs a node,
// runtime/bf16_edges.h keeps those dtypes true. Depthwise readers, which stay
// float32 when their input is float32 (converting it costs more than bf16
// saves), compute in bf16 when it arrives in bf16.
//
// Never chained: fetchable or protected writers (callers see float32), NCHW
// nodes, writers with a fused residual Add (the sum post-op accumulates into
// a float32 residual), and outputs read any other way.
#include <set>

#include "ir/attrs.h"
#include "ir/precision_attrs.h"
#include "passes/pass_manager.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

bool IsConvolution(const std::string& op) {
  static const std::set<std::string> kOps = {"Conv2D", "_FusedConv2D", "DepthwiseConv2dNative",
                                             "FusedDepthwiseConv2dNative"};
  return kOps.count(op) > 0;
}

// A float32 NHWC convolution the precision pass marked bf16.
bool IsBf16Convolution(const ir::Node& node) {
  if (!IsConvolution(node.op) || !internal::IsFloatNode(node)) return false;
  auto precision = ir::GetAttrOr<std::string>(node, ir::kPrecisionAttr, "");
  auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  auto filter_format = ir::GetAttrOr<std::string>(node, "filter_format", "HWIO");
  return precision.ok() && *precision == "bf16" && format.ok() && *format == "NHWC" && filter_format.ok() &&
         *filter_format == "HWIO";
}

bool HasFusedAdd(const ir::Node& node) {
  auto fused = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  if (!fused.ok()) return true;  // unreadable: leave it alone
  for (const auto& op : *fused) {
    if (op == "Add") return true;
  }
  return false;
}

class Bf16ActivationChaining : public GraphPass {
 public:
  std::string name() const override { return "bf16_activation_chaining"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<int> writers;
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& node = graph->node(i);
      if (!IsBf16Convolution(node) || HasFusedAdd(node) || ctx.MustKeep(node) || IsProtected(*graph, node)) {
        continue;
      }
      if (node.output_dtypes.size() != 1 || node.output_dtypes[0] != DType::kFloat) continue;
      internal::Uses uses = internal::UsesOf(*graph, consumers, i);
      if (uses.data.empty()) continue;
      bool all_bf16_readers = true;
      for (const auto& use : uses.data) {
        all_bf16_readers = all_bf16_readers && use.output_index == 0 && use.input_slot == 0 &&
                           IsBf16Convolution(graph->node(use.consumer));
      }
      if (all_bf16_readers) writers.push_back(i);
    }
    for (int i : writers) {
      ir::Node& node = graph->mutable_node(i);
      tensorflow::AttrValue type;
      type.set_type(tensorflow::DT_BFLOAT16);
      node.attrs[ir::kOutputDtypeAttr] = type;
      node.output_dtypes[0] = DType::kBFloat16;
      for (const auto& use : internal::UsesOf(*graph, consumers, i).data) {
        tensorflow::AttrValue yes;
        yes.set_b(true);
        graph->mutable_node(use.consumer).attrs[ir::kBf16InputAttr] = yes;
      }
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeBf16ActivationChaining() { return std::make_unique<Bf16ActivationChaining>(); }

}  // namespace tfhost::passes
