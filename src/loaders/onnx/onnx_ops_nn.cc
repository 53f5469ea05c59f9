// Matrix products (Gemm, MatMul), activations, Softmax, Clip, inference
// BatchNormalization and LayerNormalization. Convolutions and pooling are in onnx_ops_conv.cc.
#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include "loaders/onnx/onnx_ops.h"
#include "ops/nn/layer_norm.h"

namespace tfhost::loaders::onnx {

namespace {

StatusOr<ir::TensorRef> ScalarLike(const NodeContext& ctx, const std::string& suffix, DType dtype, double v) {
  switch (dtype) {
    case DType::kFloat: return ctx.Const(suffix, Tensor::Scalar(static_cast<float>(v)));
    case DType::kDouble: return ctx.Const(suffix, Tensor::Scalar(v));
    default: return ctx.Unsupported("inputs of type " + DTypeName(dtype) + " (float32 and float64 are supported)");
  }
}

// Y = alpha * op(A) @ op(B) + beta * C, with C broadcast to [M, N].
Status MapGemm(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ai, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* bi, ctx.Info(1));
  TFHOST_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.0f));
  TFHOST_ASSIGN_OR_RETURN(float beta, ctx.Float("beta", 1.0f));
  TFHOST_ASSIGN_OR_RETURN(int64_t trans_a, ctx.Int("transA", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t trans_b, ctx.Int("transB", 0));
  for (const ValueInfo* v : {ai, bi}) {
    if (v->rank() >= 0 && v->rank() != 2) return ctx.Error("inputs A and B must be 2-D, got " + v->shape.ToString());
  }
  const DType dtype = ai->dtype;
  const int64_t m = ai->rank() == 2 ? ai->shape.dim(trans_a ? 1 : 0) : -1;
  const int64_t n = bi->rank() == 2 ? bi->shape.dim(trans_b ? 0 : 1) : -1;
  const ir::PartialShape out = ir::PartialShape::Known({m, n});
  ir::AttrMap attrs;
  attrs["transpose_a"] = BoolAttr(trans_a != 0);
  attrs["transpose_b"] = BoolAttr(trans_b != 0);
  const bool scaled = alpha != 1.0f;
  const bool has_c = ctx.Has(2) && beta != 0.0f;
  if (!scaled && !has_c) return ctx.Emit("MatMul", {a, b}, std::move(attrs), dtype, out);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper("MatMul", "MatMul", {a, b}, std::move(attrs)));
  if (scaled) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ScalarLike(ctx, "alpha", dtype, alpha));
    if (!has_c) return ctx.Emit("Mul", {y, s}, {}, dtype, out);
    TFHOST_ASSIGN_OR_RETURN(y, ctx.Helper("scaled", "Mul", {y, s}));
  }
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ci, ctx.Info(2));
  ir::TensorRef c;
  if (beta != 1.0f) {
    if (ci->constant.has_value() && ci->dtype == DType::kFloat) {
      Tensor scaled_c = ci->constant->Clone();
      for (int64_t i = 0; i < scaled_c.NumElements(); ++i) scaled_c.data<float>()[i] *= beta;
      TFHOST_ASSIGN_OR_RETURN(c, ctx.Const("beta_c", std::move(scaled_c)));
    } else {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ScalarLike(ctx, "beta", dtype, beta));
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef raw, ctx.In(2));
      TFHOST_ASSIGN_OR_RETURN(c, ctx.Helper("beta_c", "Mul", {raw, s}));
    }
  } else {
    TFHOST_ASSIGN_OR_RETURN(c, ctx.In(2));
  }
  // A bias vector of length N is BiasAdd, which the passes fuse into the product.
  const bool bias_vector = ci->rank() == 1 && ci->shape.dim(0) >= 0 && ci->shape.dim(0) == n && n > 1;
  return ctx.Emit(bias_vector ? "BiasAdd" : "AddV2", {y, c}, {}, dtype, out);
}

// NumPy matmul: 2-D operands are MatMul; stacks broadcast (BatchMatMulV2);
// a 1-D operand is a row (left) or column (right) vector that leaves no
// dimension in the result.
Status MapMatMul(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef b, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* ai, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* bi, ctx.Info(1));
  const int ra = ai->rank(), rb = bi->rank();
  const DType dtype = ai->dtype;
  if (ra == 2 && rb == 2) {
    return ctx.Emit("MatMul", {a, b}, {}, dtype, ir::PartialShape::Known({ai->shape.dim(0), bi->shape.dim(1)}));
  }
  if (ra == 0 || rb == 0) return ctx.Error("operands must have rank >= 1");
  ir::PartialShape out = ir::PartialShape::Unknown();
  if (ra >= 2 && rb >= 2) {
    ir::PartialShape ba{false, std::vector<int64_t>(ai->shape.dims.begin(), ai->shape.dims.end() - 2)};
    ir::PartialShape bb{false, std::vector<int64_t>(bi->shape.dims.begin(), bi->shape.dims.end() - 2)};
    auto batch = ir::BroadcastPartialShapes(ba, bb);
    if (batch.ok()) {
      out = *batch;
      out.dims.push_back(ai->shape.dim(ra - 2));
      out.dims.push_back(bi->shape.dim(rb - 1));
    }
  }
  if (ra != 1 && rb != 1) return ctx.Emit("BatchMatMulV2", {a, b}, {}, dtype, out);
  if (ra < 0 || rb < 0) return ctx.Unsupported("a 1-D operand with the other's rank unknown at load");
  // Vector operands: lift, multiply, drop the lifted dimension.
  if (ra == 1) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, ctx.Const("row_axis", Tensor::Scalar<int32_t>(0)));
    TFHOST_ASSIGN_OR_RETURN(a, ctx.Helper("row", "ExpandDims", {a, axis}));
  }
  if (rb == 1) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axis, ctx.Const("col_axis", Tensor::Scalar<int32_t>(-1)));
    TFHOST_ASSIGN_OR_RETURN(b, ctx.Helper("col", "ExpandDims", {b, axis}));
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y, ctx.Helper("product", "BatchMatMulV2", {a, b}));
  std::vector<int64_t> drop;
  if (ra == 1) drop.push_back(rb == 1 ? 0 : -2);
  if (rb == 1) drop.push_back(-1);
  ir::AttrMap attrs;
  attrs["squeeze_dims"] = IntListAttr(drop);
  const int out_rank = std::max(ra, rb) - 1;
  return ctx.Emit("Squeeze", {y}, std::move(attrs), dtype, ir::PartialShape::UnknownOfRank(out_rank));
}

// Softmax and LogSoftmax over one axis (opset 13). TensorFlow normalizes the
// last axis, so another axis is swapped to the end and back.
template <bool kLog>
Status MapSoftmax(const NodeContext& ctx) {
  const char* op = kLog ? "LogSoftmax" : "Softmax";
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", -1));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  if (axis == -1) return ctx.Emit(op, {x}, {}, xi->dtype, xi->shape);
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "a Softmax axis other than -1"));
  TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
  if (a == rank - 1) return ctx.Emit(op, {x}, {}, xi->dtype, xi->shape);
  std::vector<int32_t> perm(rank);
  for (int i = 0; i < rank; ++i) perm[i] = i;
  std::swap(perm[a], perm[rank - 1]);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, ctx.Const("perm", Int32Vector(perm)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef t, ctx.Helper("to_last", "Transpose", {x, p}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef s, ctx.Helper(op, op, {t}));
  return ctx.Emit("Transpose", {s, p}, {}, xi->dtype, xi->shape);
}

Status MapLeakyRelu(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 0.01f));
  ir::AttrMap attrs;
  attrs["alpha"] = FloatAttr(alpha);
  return EmitUnary(ctx, "LeakyRelu", std::move(attrs));
}

// max(x, 0) + slope * min(x, 0), with slope broadcast to x (unidirectional).
Status MapPRelu(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef slope, ctx.In(1));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pos, ctx.Helper("pos", "Relu", {x}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ScalarLike(ctx, "zero", xi->dtype, 0.0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef neg, ctx.Helper("neg", "Minimum", {x, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scaled, ctx.Helper("scaled", "Mul", {neg, slope}));
  return ctx.Emit("AddV2", {pos, scaled}, {}, xi->dtype, xi->shape);
}

// alpha * min(elu(x), 0) + max(x, 0): TensorFlow's Elu has alpha 1.
Status MapElu(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.0f));
  if (alpha == 1.0f) return EmitUnary(ctx, "Elu");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef elu, ctx.Helper("elu", "Elu", {x}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ScalarLike(ctx, "zero", xi->dtype, 0.0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ScalarLike(ctx, "alpha", xi->dtype, alpha));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef neg, ctx.Helper("neg", "Minimum", {elu, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scaled, ctx.Helper("scaled", "Mul", {neg, a}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pos, ctx.Helper("pos", "Relu", {x}));
  return ctx.Emit("AddV2", {pos, scaled}, {}, xi->dtype, xi->shape);
}

// Selu: gamma * (max(x, 0) + alpha * min(elu(x), 0)); with ONNX's default
// constants (which are TensorFlow's, rounded to float) it is Selu itself.
Status MapSelu(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.67326319217681884765625f));
  TFHOST_ASSIGN_OR_RETURN(float gamma, ctx.Float("gamma", 1.05070102214813232421875f));
  if (std::abs(alpha - 1.6732632f) < 1e-6f && std::abs(gamma - 1.0507010f) < 1e-6f) return EmitUnary(ctx, "Selu");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef elu, ctx.Helper("elu", "Elu", {x}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ScalarLike(ctx, "zero", xi->dtype, 0.0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ScalarLike(ctx, "alpha", xi->dtype, alpha));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef g, ScalarLike(ctx, "gamma", xi->dtype, gamma));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef neg, ctx.Helper("neg", "Minimum", {elu, zero}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scaled, ctx.Helper("scaled", "Mul", {neg, a}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef pos, ctx.Helper("pos", "Relu", {x}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef sum, ctx.Helper("sum", "AddV2", {pos, scaled}));
  return ctx.Emit("Mul", {sum, g}, {}, xi->dtype, xi->shape);
}

// HardSigmoid: clamp(alpha * x + beta, 0, 1); HardSwish: x * HardSigmoid(x)
// with alpha 1/6, beta 1/2.
template <bool kSwish>
Status MapHard(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", kSwish ? 1.0f / 6 : 0.2f));
  TFHOST_ASSIGN_OR_RETURN(float beta, ctx.Float("beta", 0.5f));
  if (kSwish) alpha = 1.0f / 6, beta = 0.5f;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef a, ScalarLike(ctx, "alpha", xi->dtype, alpha));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef bt, ScalarLike(ctx, "beta", xi->dtype, beta));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef zero, ScalarLike(ctx, "zero", xi->dtype, 0.0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef one, ScalarLike(ctx, "one", xi->dtype, 1.0));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ax, ctx.Helper("ax", "Mul", {x, a}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef axb, ctx.Helper("axb", "AddV2", {ax, bt}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef lo, ctx.Helper("lo", "Maximum", {axb, zero}));
  if (!kSwish) return ctx.Emit("Minimum", {lo, one}, {}, xi->dtype, xi->shape);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef gate, ctx.Helper("gate", "Minimum", {lo, one}));
  return ctx.Emit("Mul", {x, gate}, {}, xi->dtype, xi->shape);
}

// Clip with optional min and max inputs; [0, 6] on floats is Relu6, which
// the passes fuse into a preceding convolution.
Status MapClip(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  std::optional<double> lo, hi;
  for (int i : {1, 2}) {
    if (!ctx.Has(i)) continue;
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> v, ctx.ConstIn(i));
    if (v.has_value() && v->NumElements() == 1 && v->dtype() != DType::kString) {
      (i == 1 ? lo : hi) = v->ToDoubleVector()[0];
    }
  }
  if (xi->dtype == DType::kFloat && lo == 0.0 && (hi == 6.0 || !ctx.Has(2))) {
    return EmitUnary(ctx, hi == 6.0 ? "Relu6" : "Relu");
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  ir::TensorRef y = x;
  if (ctx.Has(1)) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef m, ctx.In(1));
    if (!ctx.Has(2)) return ctx.Emit("Maximum", {y, m}, {}, xi->dtype, xi->shape);
    TFHOST_ASSIGN_OR_RETURN(y, ctx.Helper("lower", "Maximum", {y, m}));
  }
  if (!ctx.Has(2)) return ctx.BindOutput(0, y, xi->dtype, xi->shape);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef m, ctx.In(2));
  return ctx.Emit("Minimum", {y, m}, {}, xi->dtype, xi->shape);
}

// Inference BatchNormalization: y = x * a + b per channel (dim 1), with
// a = scale / sqrt(var + eps) and b = bias - mean * a folded at load (in
// double) when the statistics are constants.
Status MapBatchNorm(const NodeContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t training, ctx.Int("training_mode", 0));
  if (training != 0) return ctx.Unsupported("training_mode 1 (tfhost runs inference only)");
  for (int i = 1; i < ctx.node->output_size(); ++i) {
    if (!ctx.node->output(i).empty()) return ctx.Unsupported("the running mean/variance outputs");
  }
  TFHOST_ASSIGN_OR_RETURN(float eps, ctx.Float("epsilon", 1e-5f));
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "BatchNormalization"));
  if (rank < 2) return ctx.Error("input has rank " + std::to_string(rank) + "; expected [N, C, ...]");
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  std::vector<std::optional<Tensor>> stats;
  for (int i = 1; i <= 4; ++i) {
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> v, ctx.ConstIn(i));
    stats.push_back(std::move(v));
  }
  bool all_const = true;
  int64_t channels = -1;
  for (const auto& s : stats) {
    all_const &= s.has_value() && s->rank() == 1 && s->dtype() == DType::kFloat;
    if (s.has_value()) channels = s->NumElements();
  }
  std::vector<int64_t> bshape(rank - 1, 1);
  bshape[0] = channels;
  if (!all_const || xi->dtype != DType::kFloat) {
    return ctx.Unsupported("statistics computed at run time or not float32 (constant float32 scale, bias, mean " +
                           std::string("and variance are supported)"));
  }
  for (const auto& s : stats) {
    if (s->NumElements() != channels) return ctx.Error("scale, bias, mean and variance must have the same length");
  }
  Tensor a(DType::kFloat, Shape(bshape)), b(DType::kFloat, Shape(bshape));
  for (int64_t c = 0; c < channels; ++c) {
    const double scale = stats[0]->data<float>()[c], bias = stats[1]->data<float>()[c];
    const double mean = stats[2]->data<float>()[c], var = stats[3]->data<float>()[c];
    const double inv = scale / std::sqrt(var + static_cast<double>(eps));
    a.data<float>()[c] = static_cast<float>(inv);
    b.data<float>()[c] = static_cast<float>(bias - mean * inv);
  }
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ar, ctx.Const("scale", std::move(a)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef br, ctx.Const("offset", std::move(b)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scaled, ctx.Helper("scaled", "Mul", {x, ar}));
  return ctx.Emit("AddV2", {scaled, br}, {}, xi->dtype, xi->shape);
}

// LayerNormalization (opset 17): x normalized over its dims from `axis` on,
// as _TfhostLayerNorm (ops/nn/layer_norm.h) normalizes its last dim; a
// layer norm fusion on a decomposed graph would end in the same node. Over
// several dims, x is viewed as [-1, N] (N the normalized dims' product,
// which must be known at load) and Scale and B as N values; Scale and B
// broadcast to the normalized shape first where they are smaller, as ONNX
// allows. Statistics are float32 (stash_type 1); the Mean and InvStdDev
// outputs, which only training reads, are refused.
Status MapLayerNorm(const NodeContext& ctx) {
  for (int i = 1; i < ctx.node->output_size(); ++i) {
    if (!ctx.node->output(i).empty()) return ctx.Unsupported("the Mean and InvStdDev outputs (training's)");
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", -1));
  TFHOST_ASSIGN_OR_RETURN(float epsilon, ctx.Float("epsilon", 1e-5f));
  TFHOST_ASSIGN_OR_RETURN(int64_t stash_type, ctx.Int("stash_type", 1));
  if (stash_type != 1) {
    return ctx.Unsupported("stash_type " + std::to_string(stash_type) + " (1, float32 statistics, is supported)");
  }
  TFHOST_ASSIGN_OR_RETURN(const ValueInfo* xi, ctx.Info(0));
  if (xi->dtype != DType::kFloat) {
    return ctx.Unsupported("inputs of type " + DTypeName(xi->dtype) + " (float32 is supported)");
  }
  TFHOST_ASSIGN_OR_RETURN(int rank, ctx.Rank(0, "LayerNormalization"));
  TFHOST_ASSIGN_OR_RETURN(int a, NormalizeAxis(ctx, axis, rank, "axis"));
  // The normalized shape; over several dims it must be known at load.
  std::vector<int32_t> normalized;
  int64_t n = 1;
  for (int d = a; d < rank; ++d) {
    const int64_t dim = xi->shape.dims[d];
    if (dim < 0 && a < rank - 1) {
      return ctx.Unsupported("normalized dim " + std::to_string(d) + " of x " + xi->shape.ToString() +
                             " unknown at load (over several dims, their sizes must be known)");
    }
    n *= dim;
    if (n > INT32_MAX) return ctx.Unsupported("more than 2^31 normalized values per row");
    normalized.push_back(static_cast<int32_t>(dim));
  }
  const bool known = normalized.size() > 1 || normalized[0] >= 0;
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x, ctx.In(0));
  // Scale and B as the normalized shape (broadcast where their shape is
  // known to differ), as N values when several dims are normalized; an
  // unknown last dim leaves them to the kernel's run-time check.
  auto parameter = [&](int i, const std::string& name) -> StatusOr<ir::TensorRef> {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef p, ctx.In(i));
    TFHOST_ASSIGN_OR_RETURN(const ValueInfo* pi, ctx.Info(i));
    const std::vector<int64_t> want(normalized.begin(), normalized.end());
    if (known && (pi->shape.unknown_rank || pi->shape.dims != want)) {
      TFHOST_ASSIGN_OR_RETURN(ir::TensorRef shape, ctx.Const(name + "_shape", Int32Vector(normalized)));
      TFHOST_ASSIGN_OR_RETURN(p, ctx.Helper(name + "_broadcast", "BroadcastTo", {p, shape}));
    }
    if (a == rank - 1) return p;
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef flat, ctx.Const(name + "_n", Int32Vector({static_cast<int32_t>(n)})));
    return ctx.Helper(name + "_flat", "Reshape", {p, flat});
  };
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef scale, parameter(1, "scale"));
  ir::TensorRef bias;
  if (ctx.Has(2)) {
    TFHOST_ASSIGN_OR_RETURN(bias, parameter(2, "bias"));
  } else {
    TFHOST_ASSIGN_OR_RETURN(bias, ctx.Helper("zero_bias", "ZerosLike", {scale}));
  }
  ir::AttrMap attrs;
  attrs["epsilon"] = FloatAttr(epsilon);
  if (a == rank - 1) return ctx.Emit(ops::nn::kLayerNormOp, {x, scale, bias}, std::move(attrs), xi->dtype, xi->shape);
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef rows_shape,
                          ctx.Const("rows_shape", Int32Vector({-1, static_cast<int32_t>(n)})));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef rows, ctx.Helper("rows", "Reshape", {x, rows_shape}));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef y,
                          ctx.Helper("norm", ops::nn::kLayerNormOp, {rows, scale, bias}, std::move(attrs)));
  TFHOST_ASSIGN_OR_RETURN(ir::TensorRef x_shape, ShapeOf(ctx, x, "x_shape"));
  return ctx.Emit("Reshape", {y, x_shape}, {}, xi->dtype, xi->shape);
}

// Inference Dropout is the identity; the mask output is refused.
Status MapDropout(const NodeContext& ctx) {
  if (ctx.node->output_size() > 1 && !ctx.node->output(1).empty()) return ctx.Unsupported("the mask output");
  if (ctx.Has(2)) {
    TFHOST_ASSIGN_OR_RETURN(std::optional<Tensor> training, ctx.ConstIn(2));
    if (!training.has_value() || training->NumElements() != 1 || training->ToDoubleVector()[0] != 0) {
      return ctx.Unsupported("training_mode that is not a constant false");
    }
  }
  return EmitUnary(ctx, "Identity");
}

template <const char* kOp>
Status MapActivation(const NodeContext& ctx) { return EmitUnary(ctx, kOp); }

constexpr char kRelu[] = "Relu", kSigmoid[] = "Sigmoid", kTanh[] = "Tanh", kSoftplus[] = "Softplus",
               kSoftsign[] = "Softsign";

}  // namespace

MapFn FindNnMapper(const std::string& op_type) {
  if (MapFn f = FindConvMapper(op_type)) return f;
  static const auto* table = new std::map<std::string, MapFn>{
      {"Gemm", MapGemm},
      {"MatMul", MapMatMul},
      {"Softmax", MapSoftmax<false>},
      {"LogSoftmax", MapSoftmax<true>},
      {"Relu", MapActivation<kRelu>},
      {"Sigmoid", MapActivation<kSigmoid>},
      {"Tanh", MapActivation<kTanh>},
      {"Softplus", MapActivation<kSoftplus>},
      {"Softsign", MapActivation<kSoftsign>},
      {"LeakyRelu", MapLeakyRelu},
      {"PRelu", MapPRelu},
      {"Elu", MapElu},
      {"Selu", MapSelu},
      {"HardSigmoid", MapHard<false>},
      {"HardSwish", MapHard<true>},
      {"Clip", MapClip},
      {"BatchNormalization", MapBatchNorm},
      {"LayerNormalization", MapLayerNorm},
      {"Dropout", MapDropout},
  };
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace tfhost::loaders::onnx
