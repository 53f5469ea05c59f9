// Ops that describe a tensor rather than move it: Shape, ShapeN, Size, Rank;
// and BroadcastArgs, the broadcast of two shape vectors (Keras 3 emits it for
// broadcast_to with dynamic shapes).
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

Status BroadcastArgsKernel(KernelContext& ctx) {
  if (ctx.input(0).rank() != 1 || ctx.input(1).rank() != 1) {
    return ctx.Error("s0 and s1 must be vectors, got " + ctx.input(0).shape().ToString() + " and " +
                     ctx.input(1).shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> a, ReadIndexVector(ctx, 0, "s0"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> b, ReadIndexVector(ctx, 1, "s1"));
  if (a.size() < b.size()) std::swap(a, b);
  std::vector<int64_t> out = a;
  const size_t off = a.size() - b.size();
  for (size_t i = 0; i < b.size(); ++i) {
    const int64_t x = a[off + i], y = b[i];
    if (x == y || y == 1) {
      out[off + i] = x;
    } else if (x == 1) {
      out[off + i] = y;
    } else {
      return ctx.Error("Incompatible shapes: " + JoinInts(a) + " vs. " + JoinInts(b));
    }
  }
  Tensor result(ctx.input(0).dtype(), Shape({static_cast<int64_t>(out.size())}));
  for (size_t i = 0; i < out.size(); ++i) {
    if (result.dtype() == DType::kInt32) {
      result.data<int32_t>()[i] = static_cast<int32_t>(out[i]);
    } else {
      result.data<int64_t>()[i] = out[i];
    }
  }
  ctx.set_output(0, std::move(result));
  return OkStatus();
}

}  // namespace

void RegisterShapeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Shape")
                        .Input("input: T").Output("output: out_type")
                        .Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32"),
                    ShapeKernel);
  registry.Register(ir::OpDefBuilder("ShapeN")
                        .Input("input: N * T").Output("output: N * out_type")
                        .Attr("N: int >= 1").Attr("T: type")
                        .Attr("out_type: {int32, int64} = DT_INT32"),
                    ShapeNKernel);
  registry.Register(ir::OpDefBuilder("Size")
                        .Input("input: T").Output("output: out_type")
                        .Attr("T: type").Attr("out_type: {int32, int64} = DT_INT32"),
                    SizeKernel);
  registry.Register(ir::OpDefBuilder("Rank").Input("input: T").Output("output: int32")
                        .Attr("T: type"),
                    RankKernel);
  registry.Register(ir::OpDefBuilder("BroadcastArgs")
                        .Input("s0: T").Input("s1: T").Output("r0: T").Attr("T: {int32, int64} = DT_INT32"),
                    BroadcastArgsKernel);
}

}  // namespace tfhost::ops::array
