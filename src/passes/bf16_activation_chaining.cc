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
// where a memory-bound MobileNet spends its time (docs/perf.md, "bf16:
// speed and accuracy").
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
// the block's channels. Storing it in bf16 moved nsfw_mobilenet_v2's bf16
// output by 6.5e-3 of its range instead of 5.5e-3 and left the other
// fixture models' outputs as they were (commit dec6855).
//
// And a float32 Conv2D (unmarked, a fused residual Add allowed) whose every
// reader is a bf16 1x1 or regular convolution stores its output in bf16:
// those readers round it anyway, so nothing changes but the bytes (in
// MobileNetV2, a narrow projection or residual sum read by the next block's
// wide expansion).
//
// Never chained: fetchable or protected writers (callers see float32), NCHW
// nodes, bf16 writers with a fused residual Add (the sum post-op accumulates
// into a float32 residual), and outputs read any other way.
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

// The kinds of bf16 edge, in the order the pass finds them.
enum class Edge {
  kBf16ToBf16,         // a bf16 writer, bf16 readers
  kToWideningReaders,  // a bf16 writer computing in bf16, some float32 readers
  kFromFloat32Writer,  // a float32 writer, bf16 1x1 or regular readers
};

// Whether the node may write an edge of this kind (its readers aside).
bool CanWrite(Edge edge, const ir::Graph& graph, const ir::Node& node, const PassContext& ctx) {
  if (ctx.MustKeep(node) || IsProtected(graph, node) || node.output_dtypes.size() != 1 ||
      node.output_dtypes[0] != DType::kFloat) {
    return false;
  }
  if (edge == Edge::kFromFloat32Writer) return IsWideningReader(node);
  return IsBf16Convolution(node) && !HasFusedAdd(node);
}

bool CanRead(Edge edge, const ir::Node& reader) {
  switch (edge) {
    case Edge::kBf16ToBf16:
      return IsBf16Convolution(reader);
    case Edge::kToWideningReaders:
      return IsBf16Convolution(reader) || IsWideningReader(reader);
    case Edge::kFromFloat32Writer:
      return IsBf16Convolution(reader) && !IsDepthwise(reader);
  }
  return false;
}

class Bf16ActivationChaining : public GraphPass {
 public:
  std::string name() const override { return "bf16_activation_chaining"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    // Edges with widening readers come after those between bf16
    // convolutions: their writers must compute in bf16, and a depthwise one
    // only does when its input is one of the first edges.
    std::vector<bool> chained(graph->num_nodes(), false);
    std::vector<int> writers;
    for (Edge edge : {Edge::kBf16ToBf16, Edge::kToWideningReaders, Edge::kFromFloat32Writer}) {
      for (int i = 0; i < graph->num_nodes(); ++i) {
        const ir::Node& node = graph->node(i);
        if (chained[i] || !CanWrite(edge, *graph, node, ctx)) continue;
        if (edge == Edge::kToWideningReaders && IsDepthwise(node)) {
          const ir::TensorRef in = node.inputs.empty() ? ir::TensorRef{} : node.inputs[0];
          if (in.node < 0 || in.index != 0 || !chained[in.node]) continue;
        }
        internal::Uses uses = internal::UsesOf(*graph, consumers, i);
        if (uses.data.empty()) continue;
        bool all_readers = true;
        for (const auto& use : uses.data) {
          const ir::Node& reader = graph->node(use.consumer);
          all_readers = all_readers && use.output_index == 0 && use.input_slot == 0 && CanRead(edge, reader);
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
