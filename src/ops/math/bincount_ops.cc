// Bincount and DenseBincount: per-value counts (or weight sums) into `size`
// bins, as Keras TextVectorization / CategoryEncoding (count, multi_hot) and
// tf.math.bincount write them.
//
//   Bincount(arr int32, size, weights): bins[v] += weights[i] (or 1 when
//     weights is empty) for every arr[i] = v in [0, size).
//   DenseBincount(input 1-D or 2-D, size, weights): the same per row for 2-D
//     input; binary_output records presence (1) instead of a count.
// Values >= size are dropped; negative values are an error. Sums in double.
#include <span>

#include "ops/array/array_util.h"
#include "ops/math/math_ops.h"

namespace tfhost::ops::math {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status BincountImpl(KernelContext& ctx, bool dense) {
  const Tensor& in = ctx.input(0);
  const Tensor& weights = ctx.input(2);
  TFHOST_ASSIGN_OR_RETURN(int64_t size, array::ReadIndexScalar(ctx, 1, "size"));
  bool binary = false;
  if (dense) {
    TFHOST_ASSIGN_OR_RETURN(binary, ctx.AttrOr<bool>("binary_output", false));
  }
  if (size < 0) return ctx.Error("size (" + Str(size) + ") must be non-negative");
  if (dense && in.rank() > 2) return ctx.Error("input must be 1-D or 2-D, got " + in.shape().ToString());
  const bool weighted = weights.NumElements() > 0;
  if (weighted && weights.shape() != in.shape()) {
    return ctx.Error("weights must be empty or have the input's shape " + in.shape().ToString() + ", got " +
                     weights.shape().ToString());
  }
  auto values = in.ToInt64Vector();
  if (!values.ok()) return ctx.Error("input must be an integer tensor");
  const DType out_type = weights.dtype();
  if (out_type != DType::kInt32 && out_type != DType::kInt64 && out_type != DType::kFloat && out_type != DType::kDouble) {
    return ctx.Error("weights dtype must be int32, int64, float or double");
  }
  const bool rows = dense && in.rank() == 2;
  const int64_t batch = rows ? in.dim(0) : 1;
  const int64_t width = rows ? in.dim(1) : in.NumElements();
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, array::OutputShape(ctx, rows ? std::vector<int64_t>{batch, size}
                                                                         : std::vector<int64_t>{size}, "bins"));
  const std::vector<double> w = weighted ? weights.ToDoubleVector() : std::vector<double>();
  // Scratch as a tensor, so it counts against the session's memory like the
  // output does (a `size` of 2^31 must fail there, not take 16 GiB).
  Tensor acc_tensor(DType::kDouble, out_shape);
  const std::span<double> acc(acc_tensor.data<double>(), static_cast<size_t>(out_shape.num_elements()));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < width; ++j) {
      const int64_t i = b * width + j;
      const int64_t v = (*values)[i];
      if (v < 0) return ctx.Error("Input arr must be non-negative, got " + Str(v) + " at " + Str(i));
      if (v >= size) continue;
      double& bin = acc[b * size + v];
      bin = binary ? 1.0 : bin + (weighted ? w[i] : 1.0);
    }
  }
  Tensor out(out_type, out_shape);
  for (size_t k = 0; k < acc.size(); ++k) {
    switch (out_type) {
      case DType::kInt32: out.data<int32_t>()[k] = static_cast<int32_t>(acc[k]); break;
      case DType::kInt64: out.data<int64_t>()[k] = static_cast<int64_t>(acc[k]); break;
      case DType::kFloat: out.data<float>()[k] = static_cast<float>(acc[k]); break;
      default: out.data<double>()[k] = acc[k]; break;
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterBincountOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Bincount")
                        .Input("arr: int32")
                        .Input("size: int32")
                        .Input("weights: T")
                        .Output("bins: T")
                        .Attr("T: {int32, int64, float32, float64}"),
                    [](KernelContext& ctx) { return BincountImpl(ctx, false); });
  registry.Register(ir::OpDefBuilder("DenseBincount")
                        .Input("input: Tidx")
                        .Input("size: Tidx")
                        .Input("weights: T")
                        .Output("output: T")
                        .Attr("Tidx: {int32, int64}")
                        .Attr("T: {int32, int64, float32, float64}")
                        .Attr("binary_output: bool = false"),
                    [](KernelContext& ctx) { return BincountImpl(ctx, true); });
}

}  // namespace tfhost::ops::math
