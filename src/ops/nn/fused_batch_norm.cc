// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3.
//
// Inference (is_training=false): y = scale * (x - mean) / sqrt(variance + eps)
// + offset per channel; batch_mean/batch_variance and the reserve spaces pass
// mean and variance through (reserve_space_3 is empty, as TF's CPU kernel).
// Training (is_training=true): the batch's mean and biased variance normalize
// x; batch_variance reports the unbiased (n/(n-1)) variance and both running
// outputs blend with the inputs by exponential_avg_factor, as TensorFlow does;
// reserve_space_1/2 hold the batch mean and biased variance.
// Statistics accumulate in double.
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/nn/fused_batch_norm.h"
#include "ops/nn/nn_registrations.h"
#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

Tensor FloatVector(const std::vector<double>& v) {
  Tensor t(DType::kFloat, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = static_cast<float>(v[i]);
  return t;
}

}  // namespace

StatusOr<BatchNormSetup> ParseBatchNorm(const KernelContext& ctx, const Tensor& x, const Tensor* const params[4]) {
  BatchNormSetup s;
  TFHOST_ASSIGN_OR_RETURN(s.epsilon, ctx.AttrOr<float>("epsilon", 0.0001f));
  TFHOST_ASSIGN_OR_RETURN(s.avg_factor, ctx.AttrOr<float>("exponential_avg_factor", 1.0f));
  TFHOST_ASSIGN_OR_RETURN(std::string data_format, ctx.AttrOr<std::string>("data_format", "NHWC"));
  TFHOST_ASSIGN_OR_RETURN(s.is_training, ctx.AttrOr<bool>("is_training", true));
  int rank;
  if (data_format == "NHWC" || data_format == "NCHW") {
    rank = 4;
    s.channels_last = data_format == "NHWC";
  } else if (data_format == "NDHWC" || data_format == "NCDHW") {
    rank = 5;
    s.channels_last = data_format == "NDHWC";
  } else {
    return ctx.Error("data_format must be NHWC, NCHW, NDHWC or NCDHW, got '" + data_format + "'");
  }
  if (x.rank() != rank) {
    return ctx.Error("x must be " + std::to_string(rank) + "-D for data_format " + data_format +
                     ", got shape " + x.shape().ToString());
  }
  s.channels = s.channels_last ? x.dim(rank - 1) : x.dim(1);
  s.inner = s.channels_last ? 1 : x.NumElements() / std::max<int64_t>(x.dim(0) * s.channels, 1);
  s.outer = s.channels_last ? x.NumElements() / std::max<int64_t>(s.channels, 1) : x.dim(0);
  const char* names[4] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < 4; ++i) {
    const Tensor& t = *params[i];
    // Training with exponential_avg_factor == 1 ignores mean and variance,
    // which TF then allows to be empty.
    const bool may_be_empty = s.is_training && s.avg_factor == 1.0f && i >= 2;
    if (may_be_empty && t.NumElements() == 0) continue;
    if (t.rank() != 1 || t.dim(0) != s.channels) {
      return ctx.Error(std::string(names[i]) + " must be a vector of " + std::to_string(s.channels) +
                       " values (one per channel), got shape " + t.shape().ToString());
    }
  }
  return s;
}

namespace {

Status BatchNormImpl(const KernelContext& ctx, const std::vector<Tensor>& in,
                     std::vector<Tensor>& out) {
  const Tensor& x = in[0];
  const Tensor* const params[4] = {&in[1], &in[2], &in[3], &in[4]};
  TFHOST_ASSIGN_OR_RETURN(BatchNormSetup s, ParseBatchNorm(ctx, x, params));
  if (x.dtype() != DType::kFloat) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(x.dtype()) +
                         " is not supported (expected float32, float16 or bfloat16)");
  }
  const float epsilon = s.epsilon, avg_factor = s.avg_factor;
  const bool is_training = s.is_training;
  const int64_t channels = s.channels, inner = s.inner, outer = s.outer;
  const int64_t count = outer * inner;  // values per channel
  std::vector<double> p[4];
  for (int i = 0; i < 4; ++i) p[i] = params[i]->ToDoubleVector();
  const std::vector<double>& scale = p[0];
  const std::vector<double>& offset = p[1];
  std::vector<double> mean = p[2], var = p[3];

  const float* xp = x.data<float>();
  std::vector<double> batch_mean(channels, 0.0), batch_var(channels, 0.0);
  if (is_training) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t j = 0; j < inner; ++j) batch_mean[c] += xp[(o * channels + c) * inner + j];
    for (int64_t c = 0; c < channels; ++c) batch_mean[c] /= double(std::max<int64_t>(count, 1));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t j = 0; j < inner; ++j) {
          const double d = xp[(o * channels + c) * inner + j] - batch_mean[c];
          batch_var[c] += d * d;
        }
    for (int64_t c = 0; c < channels; ++c) batch_var[c] /= double(std::max<int64_t>(count, 1));
  }
  const std::vector<double>& use_mean = is_training ? batch_mean : mean;
  const std::vector<double>& use_var = is_training ? batch_var : var;

  Tensor y(DType::kFloat, x.shape());
  float* yp = y.data<float>();
  std::vector<double> mul(channels), add(channels);
  for (int64_t c = 0; c < channels; ++c) {
    mul[c] = scale[c] / std::sqrt(use_var[c] + double(epsilon));
    add[c] = offset[c] - use_mean[c] * mul[c];
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t i = (o * channels + c) * inner + j;
        yp[i] = static_cast<float>(xp[i] * mul[c] + add[c]);
      }
  out[0] = y;

  if (is_training) {
    const double adjust = count > 1 ? double(count) / double(count - 1) : 1.0;
    std::vector<double> run_mean(channels), run_var(channels);
    for (int64_t c = 0; c < channels; ++c) {
      const double unbiased = batch_var[c] * adjust;
      if (avg_factor == 1.0f) {
        run_mean[c] = batch_mean[c];
        run_var[c] = unbiased;
      } else {
        const double f = avg_factor;
        run_mean[c] = (1 - f) * mean[c] + f * batch_mean[c];
        run_var[c] = (1 - f) * var[c] + f * unbiased;
      }
    }
    out[1] = FloatVector(run_mean);
    out[2] = FloatVector(run_var);
    out[3] = FloatVector(batch_mean);
    out[4] = FloatVector(batch_var);
  } else {
    out[1] = FloatVector(mean);
    out[2] = FloatVector(var);
    out[3] = FloatVector(mean);
    out[4] = FloatVector(var);
  }
  if (out.size() > 5) out[5] = Tensor(DType::kFloat, Shape({0}));
  return OkStatus();
}

Status BatchNormKernel(KernelContext& ctx) { return RunWidened(ctx, 5, 0, {0}, BatchNormImpl); }

ir::OpDefBuilder BatchNormSchema(const std::string& name, bool has_u, bool v3) {
  ir::OpDefBuilder b(name);
  const char* u = has_u ? "U" : "T";
  b.Input("x: T")
      .Input(std::string("scale: ") + u)
      .Input(std::string("offset: ") + u)
      .Input(std::string("mean: ") + u)
      .Input(std::string("variance: ") + u)
      .Output("y: T")
      .Output(std::string("batch_mean: ") + u)
      .Output(std::string("batch_variance: ") + u)
      .Output(std::string("reserve_space_1: ") + u)
      .Output(std::string("reserve_space_2: ") + u);
  if (v3) b.Output("reserve_space_3: U");
  if (has_u) {
    b.Attr("T: {half, bfloat16, float}").Attr("U: {float}");
  } else {
    b.Attr("T: {float}");
  }
  b.Attr("epsilon: float = 0.0001").Attr("exponential_avg_factor: float = 1.0");
  b.Attr(v3 ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
            : "data_format: {'NHWC', 'NCHW'} = 'NHWC'");
  b.Attr("is_training: bool = true");
  return b;
}

}  // namespace

void RegisterFusedBatchNormOps(OpRegistry& registry) {
  registry.Register(BatchNormSchema("FusedBatchNorm", false, false), BatchNormKernel);
  registry.Register(BatchNormSchema("FusedBatchNormV2", true, false), BatchNormKernel);
  registry.Register(BatchNormSchema("FusedBatchNormV3", true, true), BatchNormKernel);
}

}  // namespace tfhost::ops::nn
