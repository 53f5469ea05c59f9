// The precision pass: marks the nodes whose fast kernels may compute in bf16
// (--precision bf16). Only the compute-bound ops are marked — convolutions and
// matrix products, where bf16 halves the bytes moved and doubles the
// multiply rate on CPUs with avx512_bf16/AMX — and only in float32; every
// other node, and the graph's structure, stays as loaded. The attr is a hint:
// reference kernels never read it, and the oneDNN kernels honour it only on a
// CPU with native bf16 (docs/backends.md, "bf16").
#include <set>

#include "passes/pass_manager.h"

namespace tfhost::passes {
namespace {

inline constexpr char kPrecisionAttr[] = "_tfhost_precision";

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

bool IsFloat32(const ir::Node& node, const std::string& key) {
  const tensorflow::AttrValue* v = node.FindAttr(key);
  return v != nullptr && v->value_case() == tensorflow::AttrValue::kType && v->type() == tensorflow::DT_FLOAT;
}

class PrecisionPass : public GraphPass {
 public:
  explicit PrecisionPass(Precision precision) : precision_(precision) {}
  std::string name() const override { return "precision"; }

  Status Run(ir::Graph* graph, const PassContext& /*ctx*/) override {
    if (precision_ != Precision::kBf16) return OkStatus();
    for (int i = 0; i < graph->num_nodes(); ++i) {
      ir::Node& node = graph->mutable_node(i);
      const std::vector<std::string> keys = DtypeAttrsOf(node.op);
      if (keys.empty()) continue;
      bool all_float = true;
      for (const auto& k : keys) all_float = all_float && IsFloat32(node, k);
      if (!all_float) continue;
      tensorflow::AttrValue v;
      v.set_s("bf16");
      node.attrs[kPrecisionAttr] = v;
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
