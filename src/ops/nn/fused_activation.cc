#include "ops/nn/fused_activation.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ops/nn/nn_util.h"

namespace tfhost::ops::nn {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// The standalone Sigmoid op's formula (ops/math/unary_ops.cc): exp never
// overflows because it only sees non-positive arguments.
template <typename T>
inline T Sigmoid(T x) {
  if (x >= 0) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

}  // namespace

StatusOr<Activation> ParseFusedActivation(const std::string& name) {
  const std::string n = Lower(name);
  if (n == "relu") return Activation::kRelu;
  if (n == "relu6") return Activation::kRelu6;
  if (n == "elu") return Activation::kElu;
  if (n == "leakyrelu") return Activation::kLeakyRelu;
  if (n == "prelu") return Activation::kPrelu;
  if (n == "sigmoid") return Activation::kSigmoid;
  if (n == "tanh") return Activation::kTanh;
  if (n == "geluapproximate") return Activation::kGeluApproximate;
  if (n == "geluexact") return Activation::kGeluExact;
  if (n == "_mklswish") return Activation::kSwish;
  return Unimplemented("fused activation '" + name +
                       "' is not supported (expected Relu, Relu6, Elu, LeakyRelu, Prelu, Sigmoid, "
                       "Tanh, GeluApproximate, GeluExact or _MklSwish)");
}

template <typename T>
void ApplyActivation(Activation act, T alpha, T* x, int64_t n) {
  // One loop per kind so the simple ones vectorize.
  switch (act) {
    case Activation::kNone:
    case Activation::kPrelu:  // handled by the caller (needs the alpha tensor)
      break;
    case Activation::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < T(0) ? T(0) : x[i];
      break;
    case Activation::kRelu6:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], T(0)), T(6));
      break;
    case Activation::kElu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < T(0) ? std::expm1(x[i]) : x[i];
      break;
    case Activation::kSelu:
      for (int64_t i = 0; i < n; ++i) {
        x[i] = static_cast<T>(kSeluScale * (x[i] < T(0) ? kSeluAlpha * std::expm1(double(x[i]))
                                                        : double(x[i])));
      }
      break;
    case Activation::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < T(0) ? alpha * x[i] : x[i];
      break;
    case Activation::kSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = Sigmoid(x[i]);
      break;
    case Activation::kSwish:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] * Sigmoid(x[i]);
      break;
    case Activation::kTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
      break;
    case Activation::kGeluApproximate: {
      const T k = T(0.7978845608028654);  // sqrt(2/pi)
      for (int64_t i = 0; i < n; ++i) {
        const T v = x[i];
        x[i] = T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
      }
      break;
    }
    case Activation::kGeluExact:
      for (int64_t i = 0; i < n; ++i) {
        x[i] = T(0.5) * x[i] * (T(1) + std::erf(x[i] * T(0.7071067811865476)));
      }
      break;
    case Activation::kSoftplus:
      // log(1 + e^x) without overflow for large x.
      for (int64_t i = 0; i < n; ++i) {
        const T v = x[i];
        x[i] = v > T(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
      }
      break;
    case Activation::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (T(1) + std::abs(x[i]));
      break;
  }
}

template <typename T>
void FusedEpilogue<T>::Apply(T* data, int64_t offset, int64_t n) const {
  const int64_t c = channels;
  if (c <= 0 || n <= 0) return;
  if (!scale.empty() && !shift.empty()) {
    for (int64_t p = 0; p < n; p += c) {
      T* row = data + p;
      for (int64_t j = 0; j < c; ++j) row[j] = row[j] * scale[j] + shift[j];
    }
  } else if (!shift.empty()) {
    for (int64_t p = 0; p < n; p += c) {
      T* row = data + p;
      for (int64_t j = 0; j < c; ++j) row[j] += shift[j];
    }
  }
  if (residual != nullptr) {
    const T* r = residual + offset;
    for (int64_t i = 0; i < n; ++i) data[i] += r[i];
  }
  if (act == Activation::kPrelu) {
    if (prelu_per_element) {
      const T* a = prelu_alpha.data() + offset;
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] < T(0) ? a[i] * data[i] : data[i];
    } else {
      for (int64_t p = 0; p < n; p += c) {
        T* row = data + p;
        for (int64_t j = 0; j < c; ++j) row[j] = row[j] < T(0) ? prelu_alpha[j] * row[j] : row[j];
      }
    }
  } else {
    ApplyActivation(act, leaky_alpha, data, n);
  }
}

namespace {

// A 1-D (or effectively 1-D) per-channel arg of exactly `c` values.
template <typename T>
StatusOr<std::vector<T>> ChannelVector(const KernelContext& ctx, const Tensor& t, int64_t c,
                                       const std::string& what) {
  if (t.NumElements() != c || t.rank() > 1) {
    return ctx.Error(what + " must be a vector of " + std::to_string(c) +
                     " values (one per output channel), got shape " + t.shape().ToString());
  }
  std::vector<T> out(c);
  const std::vector<double> v = t.ToDoubleVector();
  for (int64_t i = 0; i < c; ++i) out[i] = static_cast<T>(v[i]);
  return out;
}

// The "Add" arg: a residual of exactly the output's shape and dtype, as a
// tensor in the output's channels-last element order. An op whose
// data_format is NCHW produces (and so is given) NCHW tensors; the epilogue
// runs on the NHWC result before it is transposed back.
template <typename T>
StatusOr<Tensor> ResidualInNhwc(const KernelContext& ctx, const Tensor& r, const Shape& out_shape) {
  TFHOST_ASSIGN_OR_RETURN(std::string format, ctx.AttrOr<std::string>("data_format", "NHWC"));
  const bool nchw = format == "NCHW" && out_shape.rank() == 4;
  const Shape want = nchw ? Shape({out_shape.dim(0), out_shape.dim(3), out_shape.dim(1), out_shape.dim(2)})
                          : out_shape;
  if (!r.valid() || r.dtype() != DTypeOf<T>::value) {
    return ctx.Error("fused_ops Add: the residual must be " + DTypeShortName(DTypeOf<T>::value) +
                     " like the output, got " + (r.valid() ? DTypeShortName(r.dtype()) : "no tensor"));
  }
  if (r.shape() != want) {
    return ctx.Error("fused_ops Add: the residual must have the output's shape " + want.ToString() +
                     " (no broadcasting), got " + r.shape().ToString());
  }
  return nchw ? NchwToNhwc(r) : r;
}

}  // namespace

template <typename T>
StatusOr<FusedEpilogue<T>> BuildFusedEpilogue(const KernelContext& ctx,
                                              const std::vector<Tensor>& inputs, int first_arg,
                                              const Shape& out_shape, bool allow_batch_norm) {
  TFHOST_ASSIGN_OR_RETURN(auto fused_ops, ctx.AttrOr<std::vector<std::string>>("fused_ops", {}));
  TFHOST_ASSIGN_OR_RETURN(int64_t num_args, ctx.AttrOr<int64_t>("num_args", 0));
  TFHOST_ASSIGN_OR_RETURN(float epsilon, ctx.AttrOr<float>("epsilon", 0.0001f));
  TFHOST_ASSIGN_OR_RETURN(float leaky_alpha, ctx.AttrOr<float>("leakyrelu_alpha", 0.2f));

  FusedEpilogue<T> e;
  e.channels = out_shape.rank() == 0 ? 1 : out_shape.dim(out_shape.rank() - 1);
  e.leaky_alpha = static_cast<T>(leaky_alpha);

  size_t op = 0;
  int next_arg = first_arg;
  const int available = static_cast<int>(inputs.size());
  auto take_arg = [&](const std::string& what) -> StatusOr<const Tensor*> {
    if (next_arg - first_arg >= num_args || next_arg >= available) {
      return ctx.Error("fused_ops " + what + " needs fused arg " +
                       std::to_string(next_arg - first_arg) + " but num_args is " +
                       std::to_string(num_args) + " and the node has " +
                       std::to_string(available - first_arg) + " fused args");
    }
    return &inputs[next_arg++];
  };

  if (op < fused_ops.size() && fused_ops[op] == "BiasAdd") {
    TFHOST_ASSIGN_OR_RETURN(const Tensor* bias, take_arg("BiasAdd"));
    TFHOST_ASSIGN_OR_RETURN(e.shift, ChannelVector<T>(ctx, *bias, e.channels, "BiasAdd bias"));
    ++op;
  } else if (op < fused_ops.size() && fused_ops[op] == "FusedBatchNorm") {
    if (!allow_batch_norm) return ctx.Error("fused_ops FusedBatchNorm is not supported by this op");
    const char* names[4] = {"scale", "offset", "mean", "variance"};
    std::vector<T> v[4];
    for (int i = 0; i < 4; ++i) {
      TFHOST_ASSIGN_OR_RETURN(const Tensor* t, take_arg("FusedBatchNorm"));
      TFHOST_ASSIGN_OR_RETURN(v[i], ChannelVector<T>(ctx, *t, e.channels,
                                                     std::string("FusedBatchNorm ") + names[i]));
    }
    // y = (x - mean) * scale / sqrt(var + eps) + offset = x * m + (offset - mean * m).
    e.scale.resize(e.channels);
    e.shift.resize(e.channels);
    for (int64_t c = 0; c < e.channels; ++c) {
      const double m = double(v[0][c]) / std::sqrt(double(v[3][c]) + double(epsilon));
      e.scale[c] = static_cast<T>(m);
      e.shift[c] = static_cast<T>(double(v[1][c]) - double(v[2][c]) * m);
    }
    ++op;
  }
  if (op < fused_ops.size() && fused_ops[op] == "Add") {
    TFHOST_ASSIGN_OR_RETURN(const Tensor* residual, take_arg("Add"));
    TFHOST_ASSIGN_OR_RETURN(e.residual_holder, ResidualInNhwc<T>(ctx, *residual, out_shape));
    e.residual = e.residual_holder.template data<T>();
    ++op;
  }
  if (op < fused_ops.size()) {
    auto act = ParseFusedActivation(fused_ops[op]);
    if (!act.ok()) {
      return Status(act.status().code(), ir::NodeContext(ctx.node()) + ": fused_ops entry " +
                                             std::to_string(op) + ": " + act.status().message());
    }
    e.act = *act;
    ++op;
    if (e.act == Activation::kPrelu) {
      TFHOST_ASSIGN_OR_RETURN(const Tensor* alpha, take_arg("Prelu"));
      if (alpha->NumElements() == 1) {
        e.prelu_alpha.assign(e.channels, static_cast<T>(alpha->ToDoubleVector()[0]));
      } else if (alpha->NumElements() == e.channels && alpha->rank() >= 1 &&
                 alpha->dim(alpha->rank() - 1) == e.channels) {
        const std::vector<double> a = alpha->ToDoubleVector();
        e.prelu_alpha.assign(a.begin(), a.end());
      } else {
        auto full = BroadcastValues(*alpha, out_shape);
        if (!full.ok()) return ctx.Error("Prelu alpha: " + full.status().message());
        e.prelu_alpha.assign(full->begin(), full->end());
        e.prelu_per_element = true;
      }
    }
  }
  if (op < fused_ops.size()) {
    std::string list;
    for (const auto& s : fused_ops) list += (list.empty() ? "" : ", ") + s;
    return Unimplemented(ir::NodeContext(ctx.node()) + ": fused_ops [" + list +
                         "] is not supported (expected [BiasAdd|FusedBatchNorm], then an "
                         "optional Add, then at most one activation)");
  }
  return e;
}

template void ApplyActivation<float>(Activation, float, float*, int64_t);
template void ApplyActivation<double>(Activation, double, double*, int64_t);
template struct FusedEpilogue<float>;
template struct FusedEpilogue<double>;
template StatusOr<FusedEpilogue<float>> BuildFusedEpilogue<float>(
    const KernelContext&, const std::vector<Tensor>&, int, const Shape&, bool);
template StatusOr<FusedEpilogue<double>> BuildFusedEpilogue<double>(
    const KernelContext&, const std::vector<Tensor>&, int, const Shape&, bool);

}  // namespace tfhost::ops::nn
