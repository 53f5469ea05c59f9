// expand_depthwise_fusion: a 1x1 _FusedConv2D (BiasAdd and at most one
// activation) whose only reader is a 3x3 FusedDepthwiseConv2dNative (the
// same) becomes one _TfhostExpandDepthwise node under the depthwise node's
// name (ops/nn/expand_depthwise.h): MobileNetV2's and EfficientNet's
// inverted residual blocks up to their projection. A backend can then make
// the depthwise layer's input rows as it needs them instead of writing the
// expanded tensor out and reading it back (simd_expand_depthwise.cc).
//
// The fused node computes exactly what the two did (its reference kernel is
// theirs). Matched: NHWC float32; the expansion's filter a Const [1, 1, C, E]
// at stride 1 with no padding or dilation; the depthwise filter a Const
// [3, 3, E, 1]; both with one bias arg; the expansion neither kept nor
// protected. Done only where a backend other than the reference takes the
// fused node (PassContext::has_fast_kernel).
#include <algorithm>

#include "ops/nn/expand_depthwise.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddControlInput;
using internal::ConstValue;
using internal::SoleConsumer;

// A fused node with one bias arg: fused_ops BiasAdd and at most one more.
bool BiasThenActivation(const ir::Node& n) {
  auto ops = ir::GetAttrOr<std::vector<std::string>>(n, "fused_ops", {});
  auto args = ir::GetAttrOr<int64_t>(n, "num_args", 0);
  return ops.ok() && args.ok() && *args == 1 && !ops->empty() && ops->size() <= 2 && (*ops)[0] == "BiasAdd";
}

bool Nhwc(const ir::Node& n) {
  auto f = ir::GetAttrOr<std::string>(n, "data_format", "NHWC");
  auto d = ir::GetAttrOr<std::vector<int64_t>>(n, "dilations", {1, 1, 1, 1});
  return f.ok() && *f == "NHWC" && d.ok() && *d == std::vector<int64_t>{1, 1, 1, 1};
}

// A Const float32 filter of rank 4, or nullopt.
std::optional<Tensor> Filter(const ir::Graph& g, const ir::TensorRef& ref) {
  std::optional<Tensor> f = ConstValue(g, ref);
  if (!f || f->dtype() != DType::kFloat || f->rank() != 4) return std::nullopt;
  return f;
}

class ExpandDepthwiseFusion : public GraphPass {
 public:
  std::string name() const override { return "expand_depthwise_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    // The Pads pad_folding bypassed still read the expansions of strided
    // blocks until pruned; an expansion must have the depthwise layer as its
    // only reader.
    TFHOST_RETURN_IF_ERROR(PruneDeadNodes(graph, ctx));
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      const ir::Node& dw = graph->node(i);
      if (dw.op != "FusedDepthwiseConv2dNative" || dw.inputs.size() != 3 || !internal::IsFloatNode(dw) ||
          IsProtected(*graph, dw) || !BiasThenActivation(dw) || !Nhwc(dw)) {
        continue;
      }
      const int x_id = dw.inputs[0].node;
      const ir::Node& ex = graph->node(x_id);
      if (ex.op != "_FusedConv2D" || dw.inputs[0].index != 0 || ex.inputs.size() != 3 ||
          !internal::IsFloatNode(ex) || ctx.MustKeep(ex) || IsProtected(*graph, ex) || !BiasThenActivation(ex) ||
          !Nhwc(ex) || SoleConsumer(*graph, consumers, x_id) != i) {
        continue;
      }
      auto strides = ir::GetAttrOr<std::vector<int64_t>>(ex, "strides", {});
      auto padding = ir::GetAttrOr<std::string>(ex, "padding", "");
      auto pads = ir::GetAttrOr<std::vector<int64_t>>(ex, "explicit_paddings", {});
      if (!strides.ok() || *strides != std::vector<int64_t>{1, 1, 1, 1} || !padding.ok() || !pads.ok()) continue;
      if (*padding == "EXPLICIT" && std::any_of(pads->begin(), pads->end(), [](int64_t p) { return p != 0; })) continue;
      const std::optional<Tensor> we = Filter(*graph, ex.inputs[1]);  // [1, 1, C, E]
      const std::optional<Tensor> wd = Filter(*graph, dw.inputs[1]);  // [3, 3, E, 1]
      if (!we || !wd || we->dim(0) != 1 || we->dim(1) != 1 || wd->dim(0) != 3 || wd->dim(1) != 3 ||
          wd->dim(2) != we->dim(3) || wd->dim(3) != 1) {
        continue;
      }
      ir::Node fused = dw;
      fused.op = ops::nn::kExpandDepthwiseOp;
      fused.inputs = {ex.inputs[0], ex.inputs[1], ex.inputs[2], dw.inputs[1], dw.inputs[2]};
      fused.attrs.clear();
      fused.attrs["T"] = ops::MakeAttr(DType::kFloat);
      fused.attrs["expand_fused_ops"] = ex.attrs.at("fused_ops");
      fused.attrs["depthwise_fused_ops"] = dw.attrs.at("fused_ops");
      for (const char* attr : {"strides", "padding", "explicit_paddings", "data_format", "dilations"}) {
        if (const auto* v = dw.FindAttr(attr)) fused.attrs[attr] = *v;
      }
      for (int c : ex.control_inputs) AddControlInput(&fused.control_inputs, c);
      fused.backend.clear();
      if (ctx.has_fast_kernel && !ctx.has_fast_kernel(fused)) continue;
      graph->mutable_node(i) = std::move(fused);
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeExpandDepthwiseFusion() { return std::make_unique<ExpandDepthwiseFusion>(); }

}  // namespace tfhost::passes
