// Ops that describe a tensor rather than move it: Shape, ShapeN, Size, Rank.
// Their outputs depend only on the input's shape, never on its values.
#include <limits>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {

namespace {

// A 1-D or scalar tensor of `out_type` holding `values`; int32 output fails
// when a value does not fit, as in TensorFlow.
StatusOr<Tensor> MakeIndexTensor(const KernelContext& ctx, const std::vector<int64_t>& values,
                                 DType out_type, Shape shape) {
  if (out_type == DType::kInt64) {
    return Tensor::FromVector<int64_t>(values, std::move(shape));
  }
  if (out_type != DType::kInt32) {
    return ctx.Error("out_type must be int32 or int64, got " + DTypeShortName(out_type));
  }
  std::vector<int32_t> narrow;
  for (int64_t v : values) {
    if (v > std::numeric_limits<int32_t>::max()) {
      return ctx.Error("value " + std::to_string(v) + " does not fit out_type int32; use int64");
    }
    narrow.push_back(static_cast<int32_t>(v));
  }
  return Tensor::FromVector<int32_t>(narrow, std::move(shape));
}

Status ShapeKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("out_type", DType::kInt32));
  const Shape& s = ctx.input(0).shape();
  TFHOST_ASSIGN_OR_RETURN(Tensor out,
                          MakeIndexTensor(ctx, s.dims(), out_type, Shape({s.rank()})));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ShapeNKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("out_type", DType::kInt32));
  if (ctx.num_outputs() != ctx.num_inputs()) {
    return ctx.Error("has " + std::to_string(ctx.num_inputs()) + " inputs but " +
                     std::to_string(ctx.num_outputs()) + " outputs; expected N of each");
  }
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input(i).shape();
    TFHOST_ASSIGN_OR_RETURN(Tensor out,
                            MakeIndexTensor(ctx, s.dims(), out_type, Shape({s.rank()})));
    ctx.set_output(i, std::move(out));
  }
  return OkStatus();
}

Status SizeKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("out_type", DType::kInt32));
  TFHOST_ASSIGN_OR_RETURN(Tensor out,
                          MakeIndexTensor(ctx, {ctx.input(0).NumElements()}, out_type, Shape()));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status RankKernel(KernelContext& ctx) {
  ctx.set_output(0, Tensor::Scalar<int32_t>(ctx.input(0).rank()));
  return OkStatus();
}

}  // namespace

void RegisterShapeOps(OpRegistry& registry) {
  RegisterChecked(registry, ir::OpDefBuilder("Shape")
                        .Input("input: T").Output("output: out_type")
                        .Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32"),
                    ShapeKernel);
  RegisterChecked(registry, ir::OpDefBuilder("ShapeN")
                        .Input("input: N * T").Output("output: N * out_type")
                        .Attr("N: int >= 1").Attr("T: type")
                        .Attr("out_type: {int32, int64} = DT_INT32"),
                    ShapeNKernel);
  RegisterChecked(registry, ir::OpDefBuilder("Size")
                        .Input("input: T").Output("output: out_type")
                        .Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32"),
                    SizeKernel);
  RegisterChecked(registry, ir::OpDefBuilder("Rank").Input("input: T").Output("output: int32")
                        .Attr("T: type"),
                    RankKernel);
}

}  // namespace tfhost::ops::array
