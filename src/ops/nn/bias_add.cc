// BiasAdd and BiasAddV1: add a 1-D bias along the channel dim — the last dim
// for NHWC, dim 1 for NCHW (TensorFlow uses dim 1 for every NCHW rank >= 3).
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"
#include "ops/wrapping_arithmetic.h"

namespace tfhost::ops::nn {

namespace {

Status BiasAddImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                   std::vector<Tensor>& out, bool has_data_format) {
  const Tensor& value = in[0];
  const Tensor& bias = in[1];
  std::string data_format = "NHWC";
  if (has_data_format) {
    TFHOST_ASSIGN_OR_RETURN(data_format, ctx.AttrOr<std::string>("data_format", "NHWC"));
  }
  if (data_format != "NHWC" && data_format != "NCHW") {
    return ctx.Error("data_format must be NHWC or NCHW, got '" + data_format + "'");
  }
  const bool nchw = data_format == "NCHW";
  if (value.rank() < (nchw ? 3 : 2)) {
    return ctx.Error("value must have rank >= " + std::string(nchw ? "3 for NCHW" : "2") +
                     ", got shape " + value.shape().ToString());
  }
  if (bias.rank() != 1) {
    return ctx.Error("bias must be 1-D, got shape " + bias.shape().ToString());
  }
  if (value.dtype() != bias.dtype()) {
    return ctx.Error("value and bias dtypes differ: " + DTypeShortName(value.dtype()) + " vs " +
                     DTypeShortName(bias.dtype()));
  }
  const int channel_dim = nchw ? 1 : value.rank() - 1;
  const int64_t channels = value.dim(channel_dim);
  if (bias.dim(0) != channels) {
    return ctx.Error("bias has " + std::to_string(bias.dim(0)) + " values but value has " +
                     std::to_string(channels) + " channels in dim " + std::to_string(channel_dim) +
                     " of shape " + value.shape().ToString());
  }
  int64_t inner = 1;
  for (int d = channel_dim + 1; d < value.rank(); ++d) inner *= value.dim(d);
  const int64_t outer = channels * inner == 0 ? 0 : value.NumElements() / (channels * inner);
  Tensor y(value.dtype(), value.shape());
  bool supported = value.dtype() != DType::kBool;
  if (supported) {
    TFHOST_SWITCH_REAL_TYPES(value.dtype(), {
      const T* x = value.data<T>();
      const T* bp = bias.data<T>();
      T* yp = y.data<T>();
      int64_t i = 0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t c = 0; c < channels; ++c)
          for (int64_t j = 0; j < inner; ++j, ++i) yp[i] = WrapAdd<T>(x[i], bp[c]);
    }, { supported = false; });
  }
  if (!supported) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " +
                         DTypeShortName(value.dtype()) + " is not supported");
  }
  out[0] = y;
  return OkStatus();
}

}  // namespace

void RegisterBiasAddOps(OpRegistry& registry) {
  const char* kTypes =
      "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
      "uint64}";
  registry.Register(ir::OpDefBuilder("BiasAdd")
                        .Input("value: T")
                        .Input("bias: T")
                        .Output("output: T")
                        .Attr(kTypes)
                        .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'"),
                    [](KernelContext& ctx) {
                      return RunWidened(ctx, 2, 0, {0},
                                        [](const KernelContext& c, const std::vector<Tensor>& in,
                                           std::vector<Tensor>& out) {
                                          return BiasAddImpl(c, in, out, true);
                                        });
                    });
  registry.Register(ir::OpDefBuilder("BiasAddV1")
                        .Input("value: T")
                        .Input("bias: T")
                        .Output("output: T")
                        .Attr(kTypes),
                    [](KernelContext& ctx) {
                      return RunWidened(ctx, 2, 0, {0},
                                        [](const KernelContext& c, const std::vector<Tensor>& in,
                                           std::vector<Tensor>& out) {
                                          return BiasAddImpl(c, in, out, false);
                                        });
                    });
}

}  // namespace tfhost::ops::nn
