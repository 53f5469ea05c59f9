// pad_folding: a zero Pad of the spatial dims whose only reader is a
// Conv2D or DepthwiseConv2dNative with VALID (or EXPLICIT) padding becomes
// that convolution's explicit padding, so the padded copy of the activation
// is never written. Keras writes exactly this before every strided
// convolution of MobileNetV2, EfficientNet and ResNet (ZeroPadding2D, then
// padding="valid"): 13% of MobileNetV2's time at batch 1 went to those Pads.
//
// Padding the input and running the convolution over it is the same
// computation as the convolution with those explicit paddings, for any
// stride and dilation. Matched: NHWC, float, Pad or PadV2 with a constant
// of 0, paddings a Const [4, 2] with zero batch and channel rows, the Pad
// not kept and not protected. The convolution keeps its name; the Pad is
// pruned once nothing reads it.
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddControlInput;
using internal::ConstValue;
using internal::SoleConsumer;

bool IsConv(const std::string& op) { return op == "Conv2D" || op == "DepthwiseConv2dNative"; }

// The Pad's [top, bottom, left, right], or nullopt when it is not a zero
// padding of H and W only.
std::optional<std::vector<int64_t>> SpatialZeroPadding(const ir::Graph& graph, const ir::Node& pad) {
  if ((pad.op != "Pad" && pad.op != "PadV2") || !internal::IsFloatNode(pad)) return std::nullopt;
  if (pad.inputs.size() != (pad.op == "Pad" ? 2u : 3u)) return std::nullopt;
  if (pad.op == "PadV2") {
    std::optional<Tensor> value = ConstValue(graph, pad.inputs[2]);
    if (!value || value->dtype() != DType::kFloat || value->NumElements() != 1 || value->data<float>()[0] != 0.0f) {
      return std::nullopt;
    }
  }
  std::optional<Tensor> paddings = ConstValue(graph, pad.inputs[1]);
  if (!paddings || paddings->rank() != 2 || paddings->dim(0) != 4 || paddings->dim(1) != 2) return std::nullopt;
  auto values = paddings->ToInt64Vector();
  if (!values.ok()) return std::nullopt;
  const std::vector<int64_t>& p = *values;
  if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) return std::nullopt;
  for (int64_t v : p) {
    if (v < 0) return std::nullopt;
  }
  return std::vector<int64_t>{p[2], p[3], p[4], p[5]};
}

class PadFolding : public GraphPass {
 public:
  std::string name() const override { return "pad_folding"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& pad = graph->node(i);
      if (ctx.MustKeep(pad) || IsProtected(*graph, pad)) continue;
      std::optional<std::vector<int64_t>> spatial = SpatialZeroPadding(*graph, pad);
      if (!spatial) continue;
      const int conv_id = SoleConsumer(*graph, consumers, i);
      if (conv_id < 0) continue;
      const ir::Node& conv = graph->node(conv_id);
      if (!IsConv(conv.op) || conv.inputs.size() != 2 || conv.inputs[0].node != i || conv.inputs[0].index != 0 ||
          conv.inputs[1].node == i || IsProtected(*graph, conv)) {
        continue;
      }
      auto format = ir::GetAttrOr<std::string>(conv, "data_format", "NHWC");
      auto padding = ir::GetAttrOr<std::string>(conv, "padding", "");
      auto existing = ir::GetAttrOr<std::vector<int64_t>>(conv, "explicit_paddings", {});
      if (!format.ok() || *format != "NHWC" || !padding.ok() || !existing.ok()) continue;
      std::vector<int64_t> explicit_paddings(8, 0);
      if (*padding == "EXPLICIT") {
        if (existing->size() != 8) continue;
        explicit_paddings = *existing;
      } else if (*padding != "VALID") {
        continue;  // SAME's amount depends on the padded size
      }
      for (int k = 0; k < 4; ++k) explicit_paddings[2 + k] += (*spatial)[k];
      const ir::TensorRef source = pad.inputs[0];
      const std::vector<int> pad_controls = pad.control_inputs;
      ir::Node& c = graph->mutable_node(conv_id);
      c.inputs[0] = source;
      for (int control : pad_controls) AddControlInput(&c.control_inputs, control);
      c.attrs["padding"] = ops::MakeAttr("EXPLICIT");
      c.attrs["explicit_paddings"] = ops::MakeAttr(explicit_paddings);
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakePadFolding() { return std::make_unique<PadFolding>(); }

}  // namespace tfhost::passes
