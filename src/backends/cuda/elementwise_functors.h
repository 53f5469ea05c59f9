// The math of the CUDA backend's element-wise kernels, written once as
// functors that compile for the device (under nvcc) and for the host, where
// elementwise_functors_test.cc runs every one of them against the op's
// reference kernel. Float32; each follows TensorFlow's definition of its
// op (Relu6 clamps to [0, 6], Sigmoid is 1 / (1 + e^-x) computed as the
// standalone op computes it, GeluExact uses erf, ...).
//
// Thread-safety: stateless.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <strings.h>

#if defined(__CUDACC__)
#define TFHOST_HD __host__ __device__ __forceinline__
#else
#define TFHOST_HD inline
#endif

namespace tfhost::backends::cuda {

enum class UnaryOp : int {
  kRelu,
  kRelu6,
  kNeg,
  kAbs,
  kSquare,
  kSigmoid,
  kTanh,
  kExp,
  kElu,
  kSelu,
  kSoftplus,
  kSoftsign,
  kSqrt,
  kRsqrt,
  kLog,
  kReciprocal,
  kFloor,
  kCeil,
  kErf,
  kLeakyRelu,        // fused only (the alpha comes with the instruction)
  kSwish,            // fused only: x * sigmoid(x)
  kGeluApproximate,  // fused only
  kGeluExact,        // fused only
  kIdentity,         // fused only: no activation
  kCount
};
enum class BinaryOp : int { kAdd, kSub, kMul, kRealDiv, kMaximum, kMinimum, kSquaredDifference, kPow, kCount };

// The standalone Sigmoid op's formula: exp only ever sees non-positive
// arguments, so it neither overflows nor loses the tiny tails.
TFHOST_HD float SigmoidOf(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));
  const float e = expf(x);
  return e / (1.0f + e);
}

// `alpha` is LeakyRelu's slope; the other ops ignore it.
TFHOST_HD float ApplyUnary(UnaryOp op, float x, float alpha = 0.2f) {
  switch (op) {
    // Written so that NaN passes through, as TensorFlow's Relu/Relu6 do.
    case UnaryOp::kRelu: return x < 0.0f ? 0.0f : x;
    case UnaryOp::kRelu6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kAbs: return fabsf(x);
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kSigmoid: return SigmoidOf(x);
    case UnaryOp::kTanh: return tanhf(x);
    case UnaryOp::kExp: return expf(x);
    case UnaryOp::kElu: return x < 0.0f ? expm1f(x) : x;
    // Selu's constants are TensorFlow's; the product is taken in double as
    // its kernel does, so the two agree to the last bit where expm1 does.
    case UnaryOp::kSelu:
      return static_cast<float>(1.0507009873554804934193349852946 *
                                (x < 0.0f ? 1.6732632423543772848170429916717 * expm1(static_cast<double>(x))
                                          : static_cast<double>(x)));
    case UnaryOp::kSoftplus: return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
    case UnaryOp::kSoftsign: return x / (1.0f + fabsf(x));
    case UnaryOp::kSqrt: return sqrtf(x);
    case UnaryOp::kRsqrt: return 1.0f / sqrtf(x);
    case UnaryOp::kLog: return logf(x);
    case UnaryOp::kReciprocal: return 1.0f / x;
    case UnaryOp::kFloor: return floorf(x);
    case UnaryOp::kCeil: return ceilf(x);
    case UnaryOp::kErf: return erff(x);
    case UnaryOp::kLeakyRelu: return x < 0.0f ? alpha * x : x;
    case UnaryOp::kSwish: return x * SigmoidOf(x);
    case UnaryOp::kGeluApproximate:
      return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case UnaryOp::kGeluExact: return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
    default: return x;
  }
}

TFHOST_HD float ApplyBinary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kRealDiv: return a / b;
    // NaN propagates as in TensorFlow's Maximum/Minimum.
    case BinaryOp::kMaximum: return (a != a || b != b) ? a + b : (a > b ? a : b);
    case BinaryOp::kMinimum: return (a != a || b != b) ? a + b : (a < b ? a : b);
    case BinaryOp::kSquaredDifference: return (a - b) * (a - b);
    case BinaryOp::kPow: return powf(a, b);
    default: return a;
  }
}

// How a binary op's operands map onto its output under NumPy/TensorFlow
// broadcasting: the output's dims, and each operand's element stride per
// output dim (0 where the operand is broadcast). rank 0: both operands are
// laid out like the output (same shape), or b is one scalar (b_scalar).
struct BinaryShape {
  static constexpr int kMaxRank = 8;
  int rank = 0;
  bool b_scalar = false;
  int64_t dims[kMaxRank] = {};
  int64_t a_strides[kMaxRank] = {};
  int64_t b_strides[kMaxRank] = {};
};

// The offset of row-major element `i` of a `rank`-dim index space with sizes
// `dims` in a tensor that steps `strides` elements per dim (0: broadcast).
TFHOST_HD int64_t StridedOffset(const int64_t* dims, const int64_t* strides, int rank, int64_t i) {
  int64_t off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    off += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return off;
}

// The elements of a and b that output element `i` combines.
TFHOST_HD void BroadcastOffsets(const BinaryShape& s, int64_t i, int64_t* ia, int64_t* ib) {
  if (s.rank == 0) {
    *ia = i;
    *ib = s.b_scalar ? 0 : i;
    return;
  }
  int64_t a = 0, b = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int64_t coord = i % s.dims[d];
    i /= s.dims[d];
    a += coord * s.a_strides[d];
    b += coord * s.b_strides[d];
  }
  *ia = a;
  *ib = b;
}

// A fused epilogue's last step: y = act(y + bias[channel]), bias optional.
TFHOST_HD float ApplyBiasActivation(UnaryOp act, float y, const float* bias, int64_t i, int64_t channels) {
  if (bias != nullptr) y += bias[i % channels];
  return act == UnaryOp::kIdentity ? y : ApplyUnary(act, y);
}

// The functor of a TensorFlow op name; false when the backend has none.
inline bool UnaryOpOf(const char* name, UnaryOp* op) {
  static constexpr struct { const char* name; UnaryOp op; } kOps[] = {
      {"Relu", UnaryOp::kRelu}, {"Relu6", UnaryOp::kRelu6},     {"Neg", UnaryOp::kNeg},
      {"Abs", UnaryOp::kAbs},   {"Square", UnaryOp::kSquare},   {"Sigmoid", UnaryOp::kSigmoid},
      {"Tanh", UnaryOp::kTanh}, {"Exp", UnaryOp::kExp},         {"Elu", UnaryOp::kElu},
      {"Selu", UnaryOp::kSelu}, {"Softplus", UnaryOp::kSoftplus}, {"Softsign", UnaryOp::kSoftsign},
      {"Sqrt", UnaryOp::kSqrt}, {"Rsqrt", UnaryOp::kRsqrt},     {"Log", UnaryOp::kLog},
      {"Reciprocal", UnaryOp::kReciprocal}, {"Inv", UnaryOp::kReciprocal}, {"Floor", UnaryOp::kFloor},
      {"Ceil", UnaryOp::kCeil}, {"Erf", UnaryOp::kErf}};
  for (const auto& e : kOps) {
    if (std::strcmp(e.name, name) == 0) {
      *op = e.op;
      return true;
    }
  }
  return false;
}

// The functor of a fused_ops activation as _FusedMatMul spells it
// (ops/nn/fused_activation.h), compared without case as TF.js writes some
// lower-case; false for those the backend does not fuse (LeakyRelu and
// Prelu need an alpha).
inline bool FusedActivationOf(const char* name, UnaryOp* op) {
  static constexpr struct { const char* name; UnaryOp op; } kOps[] = {
      {"relu", UnaryOp::kRelu},       {"relu6", UnaryOp::kRelu6},
      {"elu", UnaryOp::kElu},         {"sigmoid", UnaryOp::kSigmoid},
      {"tanh", UnaryOp::kTanh},       {"geluapproximate", UnaryOp::kGeluApproximate},
      {"geluexact", UnaryOp::kGeluExact}, {"_mklswish", UnaryOp::kSwish}};
  for (const auto& e : kOps) {
    if (strcasecmp(e.name, name) == 0) {
      *op = e.op;
      return true;
    }
  }
  return false;
}

inline bool BinaryOpOf(const char* name, BinaryOp* op) {
  static constexpr struct { const char* name; BinaryOp op; } kOps[] = {
      {"Add", BinaryOp::kAdd},         {"AddV2", BinaryOp::kAdd},         {"Sub", BinaryOp::kSub},
      {"Mul", BinaryOp::kMul},         {"RealDiv", BinaryOp::kRealDiv},   {"Maximum", BinaryOp::kMaximum},
      {"Minimum", BinaryOp::kMinimum}, {"SquaredDifference", BinaryOp::kSquaredDifference},
      {"Div", BinaryOp::kRealDiv},     {"Pow", BinaryOp::kPow}};
  for (const auto& e : kOps) {
    if (std::strcmp(e.name, name) == 0) {
      *op = e.op;
      return true;
    }
  }
  return false;
}

}  // namespace tfhost::backends::cuda
