#include "runtime/bf16_edges.h"

#include "ir/attrs.h"
#include "ir/precision_attrs.h"
#include "ops/nn/nn_util.h"

namespace tfhost::runtime {
namespace {

bool StoresBf16Output(const ir::Node& node) {
  auto t = ir::GetAttrOr<DType>(node, ir::kOutputDtypeAttr, DType::kFloat);
  return t.ok() && *t == DType::kBFloat16;
}

bool ReadsBf16Input(const ir::Node& node) {
  auto v = ir::GetAttrOr<bool>(node, ir::kBf16InputAttr, false);
  return v.ok() && *v;
}

}  // namespace

bool HasBf16Edge(const ir::Node& node) { return StoresBf16Output(node) || ReadsBf16Input(node); }

ops::KernelFn AdaptToBf16Edges(const ir::Node& node, ops::KernelFn kernel, bool widen_input) {
  const bool widen = widen_input && ReadsBf16Input(node);
  const bool narrow = StoresBf16Output(node);
  if (!widen && !narrow) return kernel;
  return [kernel = std::move(kernel), widen, narrow](ops::KernelContext& ctx) -> Status {
    if (widen && ctx.num_inputs() > 0 && ctx.input(0).valid() && ctx.input(0).dtype() == DType::kBFloat16) {
      ctx.set_input(0, ops::nn::WidenToFloat(ctx.input(0)));
    }
    Status st = kernel(ctx);
    if (!st.ok()) return st;
    if (narrow && ctx.num_outputs() > 0 && ctx.outputs()[0].valid() && ctx.outputs()[0].dtype() == DType::kFloat) {
      ctx.set_output(0, ops::nn::NarrowFromFloat(ctx.outputs()[0], DType::kBFloat16));
    }
    return OkStatus();
  };
}

}  // namespace tfhost::runtime
