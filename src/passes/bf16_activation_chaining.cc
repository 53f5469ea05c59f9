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
// A float32 convolution may also read such an edge (a widening reader): a
// 1x1 or regular NHWC Conv2D the precision pass left float32 for accuracy,
// fed by a convolution that computes in bf16 (a depthwise one only when its
// own input arrives in bf16). It reads the activations widened and keeps its
// float32 weights: only the rounding of its input is new. In MobileNetV2
// this is the depthwise -> narrow projection edge, written and read at 6x
// the block's channels; storing it in bf16 moved nsfw_mobilenet_v2's bf16
// output by 6.5e-3 of its range instead of 5.5e-3, and no fixture model's
// other outputs (docs/perf.md, session 10).
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

bool IsNhwcFloatConvolution(const ir::Node& node) {
  if (!IsConvolution(node.op) || !internal::IsFloatNode(node)) return false;
  auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  auto filter_format = ir::GetAttrOr<std::string>(node, "filter_format", "HWIO");
  return format.ok() && *format == "NHWC" && filter_format.ok() && *filter_format == "HWIO";
}

bool IsDepthwise(const ir::Node& node) { return node.op.find("Depthwise") != std::string::npos; }

// A float32 NHWC convolution the precision pass marked bf16.
bool IsBf16Convolution(const ir::Node& node) {
  auto precision = ir::GetAttrOr<std::string>(node, ir::kPrecisionAttr, "");
  return IsNhwcFloatConvolution(node) && precision.ok() && *precision == "bf16";
}

// A float32 NHWC Conv2D the precision pass left unmarked.
bool IsWideningReader(const ir::Node& node) {
  return IsNhwcFloatConvolution(node) && !IsDepthwise(node) && node.FindAttr(ir::kPrecisionAttr) == nullptr;
}

bool HasFusedAdd(const ir::Node& node) {
  auto fused = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  if (!fused.ok()) return true;  // unreadable: leave it alone
  for (const auto& op : *fused) {
    if (op == "Add") return true;
  }
  return false;
}

// A bf16 convolution whose output may become a bf16 edge.
bool CanWrite(const ir::Graph& graph, const ir::Node& node, const PassContext& ctx) {
  return IsBf16Convolution(node) && !HasFusedAdd(node) && !ctx.MustKeep(node) && !IsProtected(graph, node) &&
         node.output_dtypes.size() == 1 && node.output_dtypes[0] == DType::kFloat;
}

class Bf16ActivationChaining : public GraphPass {
 public:
  std::string name() const override { return "bf16_activation_chaining"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    // First the edges between bf16 convolutions, then those with widening
    // readers, whose writers must compute in bf16 (a depthwise writer's
    // input must be one of the first edges).
    std::vector<bool> chained(graph->num_nodes(), false);
    std::vector<int> writers;
    for (bool widening : {false, true}) {
      for (int i = 0; i < graph->num_nodes(); ++i) {
        const ir::Node& node = graph->node(i);
        if (chained[i] || !CanWrite(*graph, node, ctx)) continue;
        if (widening && IsDepthwise(node)) {
          const ir::TensorRef in = node.inputs.empty() ? ir::TensorRef{} : node.inputs[0];
          if (in.node < 0 || in.index != 0 || !chained[in.node]) continue;
        }
        internal::Uses uses = internal::UsesOf(*graph, consumers, i);
        if (uses.data.empty()) continue;
        bool all_readers = true;
        for (const auto& use : uses.data) {
          const ir::Node& reader = graph->node(use.consumer);
          all_readers = all_readers && use.output_index == 0 && use.input_slot == 0 &&
                        (IsBf16Convolution(reader) || (widening && IsWideningReader(reader)));
        }
        if (!all_readers) continue;
        chained[i] = true;
        writers.push_back(i);
      }
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
