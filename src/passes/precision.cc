// The precision pass: marks the nodes whose fast kernels may compute in bf16
// (--precision bf16), or must not round float32 operands at all
// (--precision fp32-strict: every float32 convolution and matrix product,
// for the GPU kernels that would otherwise use TF32). Only the compute-bound ops are marked — convolutions and
// matrix products, where bf16 halves the bytes moved and doubles the
// multiply rate on CPUs with avx512_bf16/AMX — and only in float32; every
// other node, and the graph's structure, stays as loaded. The attr is a hint:
// reference kernels never read it, and the oneDNN kernels honour it only on a
// CPU with native bf16 (docs/backends.md, "bf16").
//
// Accuracy: a product with fewer than kMinBf16Channels output channels stays
// float32. Measured on the fixture models (bf16 for one node at a time, max
// relative error of every output vs float32 on the reference inputs), the
// nodes that move an output most are the narrow ones: rvm's projection convs
// of a MobileNetV3 encoder (16-80 channels), its 4-channel output head and the
// decoder's 16-40-channel convs each reach 1.5e-2 to 7.8e-2 alone, where its
// 120-960-channel convs stay near 1e-3 to 1e-2 (its recurrent GRU gates, Sigmoid
// and Tanh included, are among the least sensitive: recurrent paths as such are
// not the problem). A narrow product's output is a short, low-redundancy
// summary, so one rounding of its inputs reaches an output undamped; and it is
// the cheap part of a network, memory-bound, where bf16 saves little. With
// the threshold at 128, nsfw's and blazeface's bf16 outputs are within 1e-2
// and rvm's within 2e-2 except its matte `pha`, whose worst pixel moves by
// 1.7e-2 to 4.3e-2 of its range depending on the inputs' last bits (bf16
// roundings flip; docs/perf.md, "bf16: speed and accuracy").
#include <set>

#include "ir/attrs.h"
#include "ir/precision_attrs.h"

#include "passes/pass_manager.h"

namespace tfhost::passes {
namespace {

constexpr int64_t kMinBf16Channels = 128;

// The dtype attr(s) that must all be float32 for the node to be marked.
std::vector<std::string> DtypeAttrsOf(const std::string& op) {
  static const std::set<std::string> kSingleT = {
      "Conv2D",  "DepthwiseConv2dNative", "_FusedConv2D", "FusedDepthwiseConv2dNative",
      "_FusedDepthwiseConv2dNative", "MatMul", "_FusedMatMul", "BatchMatMulV2",
      "_TfhostFusedBatchMatMul"};
  if (kSingleT.count(op) > 0) return {"T"};
  if (op == "BatchMatMulV3") return {"Ta", "Tb", "Tout"};
  return {};
}

// Output channels of a convolution or matrix product: the channel dim of its
// static output shape, else the filter's / second operand's static dim; -1
// when neither is known.
bool AttrTrue(const ir::Node& node, const std::string& key) {
  auto v = ir::GetAttrOr<bool>(node, key, false);
  return v.ok() && *v;
}

int64_t OutputChannels(const ir::Graph& graph, const ir::Node& node) {
  auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
  const bool nchw = format.ok() && *format == "NCHW";
  if (!node.output_shapes.empty() && node.output_shapes[0].rank_known() && node.output_shapes[0].rank() >= 2) {
    const ir::PartialShape& s = node.output_shapes[0];
    const int64_t c = nchw && s.rank() == 4 ? s.dim(1) : s.dim(s.rank() - 1);
    if (c >= 0) return c;
  }
  if (node.inputs.size() < 2) return -1;
  const ir::TensorRef w = node.inputs[1];
  const auto& shapes = graph.node(w.node).output_shapes;
  if (w.index < 0 || w.index >= static_cast<int>(shapes.size()) || !shapes[w.index].rank_known()) return -1;
  const ir::PartialShape& ws = shapes[w.index];
  if (ws.rank() < 2) return -1;
  if (node.op.find("Depthwise") != std::string::npos) {
    return ws.rank() == 4 && ws.dim(2) >= 0 && ws.dim(3) >= 0 ? ws.dim(2) * ws.dim(3) : -1;
  }
  if (node.op.find("Conv") != std::string::npos) return ws.dim(ws.rank() - 1);
  // Matrix products: n is y's last dim, or the one before when y is adjoint.
  const bool adj = AttrTrue(node, "transpose_b") || AttrTrue(node, "adj_y");
  return ws.dim(ws.rank() - (adj ? 2 : 1));
}

bool IsFloat32(const ir::Node& node, const std::string& key) {
  const tensorflow::AttrValue* v = node.FindAttr(key);
  return v != nullptr && v->value_case() == tensorflow::AttrValue::kType && v->type() == tensorflow::DT_FLOAT;
}

class PrecisionPass : public GraphPass {
 public:
  explicit PrecisionPass(Precision precision) : precision_(precision) {}
  std::string name() const override { return "precision"; }

  Status Run(ir::Graph* graph, const PassContext& /*ctx*/) override {
    if (precision_ == Precision::kFp32) return OkStatus();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      ir::Node& node = graph->mutable_node(i);
      const std::vector<std::string> keys = DtypeAttrsOf(node.op);
      if (keys.empty()) continue;
      bool all_float = true;
      for (const auto& k : keys) all_float = all_float && IsFloat32(node, k);
      if (!all_float) continue;
      tensorflow::AttrValue v;
      if (precision_ == Precision::kFp32Strict) {
        v.set_b(true);
        node.attrs[ir::kStrictFp32Attr] = v;
        continue;
      }
      const int64_t channels = OutputChannels(*graph, node);
      if (channels < kMinBf16Channels) continue;  // narrow or unknown: float32 (see above)
      v.set_s("bf16");
      node.attrs[ir::kPrecisionAttr] = v;
    }
    return OkStatus();
  }

 private:
  Precision precision_;
};

}  // namespace

std::unique_ptr<GraphPass> MakePrecisionPass(Precision precision) {
  return std::make_unique<PrecisionPass>(precision);
}

}  // namespace tfhost::passes
