#include "ops/nn/lstm_cell.h"

#include <algorithm>
#include <cmath>

#include "ops/nn/nn_registrations.h"

namespace tfhost::ops::nn {

StatusOr<LstmCellGeometry> CheckLstmCellInputs(const KernelContext& ctx) {
  return CheckLstmCellOperands(ctx, ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
}

StatusOr<LstmCellGeometry> CheckLstmCellOperands(const KernelContext& ctx, const Tensor& x, const Tensor& y,
                                                 const Tensor& bias, const Tensor& c) {
  static constexpr const char* kNames[] = {"x", "y", "bias", "c"};
  const Tensor* operands[] = {&x, &y, &bias, &c};
  for (int i = 0; i < 4; ++i) {
    if (operands[i]->dtype() != DType::kFloat) {
      return ctx.Error(std::string("input ") + kNames[i] + " must be float32, got " +
                       DTypeShortName(operands[i]->dtype()));
    }
  }
  if (x.rank() != 2 || y.rank() != 2 || c.rank() != 2 || bias.rank() != 1) {
    return ctx.Error("expected x and y [batch, 4 * units], bias [4 * units] and c [batch, units], got " +
                     x.shape().ToString() + ", " + y.shape().ToString() + ", " + bias.shape().ToString() + " and " +
                     c.shape().ToString());
  }
  const int64_t width = x.dim(1);
  if (width % 4 != 0 || y.dim(1) != width || bias.dim(0) != width || c.dim(1) != width / 4) {
    return ctx.Error("gate widths disagree: x " + x.shape().ToString() + ", y " + y.shape().ToString() + ", bias " +
                     bias.shape().ToString() + ", c " + c.shape().ToString() +
                     " (expected 4 * units columns in x, y and bias and units in c)");
  }
  LstmCellGeometry g;
  g.units = width / 4;
  g.batch = std::max({x.dim(0), y.dim(0), c.dim(0)});
  if (x.dim(0) == 0 || y.dim(0) == 0 || c.dim(0) == 0) g.batch = 0;
  for (const Tensor* t : {&x, &y, &c}) {
    if (t->dim(0) != g.batch && t->dim(0) != 1) {
      return ctx.Error("batch sizes do not broadcast: x " + x.shape().ToString() + ", y " + y.shape().ToString() +
                       ", c " + c.shape().ToString() + " (each must have the same rows or one row)");
    }
  }
  g.x_stride = x.dim(0) == 1 ? 0 : width;
  g.y_stride = y.dim(0) == 1 ? 0 : width;
  g.c_stride = c.dim(0) == 1 ? 0 : g.units;
  return g;
}

namespace {

// As the Sigmoid and Tanh reference kernels compute them.
float SigmoidOf(float v) {
  if (v >= 0) return 1.0f / (1.0f + std::exp(-v));
  const float e = std::exp(v);
  return e / (1.0f + e);
}

}  // namespace

void LstmCellRowReference(const float* x, const float* y, const float* bias, const float* c, float* h, float* c_out,
                          int64_t units) {
  const int64_t u = units;
  auto z = [&](int64_t k) { return (x[k] + y[k]) + bias[k]; };
  for (int64_t j = 0; j < u; ++j) {
    const float i_gate = SigmoidOf(z(j));
    const float f_gate = SigmoidOf(z(u + j));
    const float g_gate = std::tanh(z(2 * u + j));
    const float o_gate = SigmoidOf(z(3 * u + j));
    const float next = f_gate * c[j] + i_gate * g_gate;
    c_out[j] = next;
    h[j] = o_gate * std::tanh(next);
  }
}

namespace {

Status LstmCellKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(LstmCellGeometry g, CheckLstmCellInputs(ctx));
  const int64_t u = g.units;
  Tensor h = Tensor::Uninitialized(DType::kFloat, Shape({g.batch, u}));
  Tensor c_out = Tensor::Uninitialized(DType::kFloat, Shape({g.batch, u}));
  const float* bias = ctx.input(2).data<float>();
  for (int64_t r = 0; r < g.batch; ++r) {
    const float* x = ctx.input(0).data<float>() + r * g.x_stride;
    const float* y = ctx.input(1).data<float>() + r * g.y_stride;
    const float* c = ctx.input(3).data<float>() + r * g.c_stride;
    LstmCellRowReference(x, y, bias, c, h.data<float>() + r * u, c_out.data<float>() + r * u, u);
  }
  ctx.set_output(0, std::move(h));
  ctx.set_output(1, std::move(c_out));
  return OkStatus();
}

}  // namespace

void RegisterLstmCellOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder(kLstmCellOp)
                        .Input("x: T")
                        .Input("y: T")
                        .Input("bias: T")
                        .Input("c: T")
                        .Output("h: T")
                        .Output("c_out: T")
                        .Attr("T: {float}"),
                    LstmCellKernel);
}

}  // namespace tfhost::ops::nn
