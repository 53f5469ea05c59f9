// Activations and the "fused_ops" epilogue of _FusedConv2D,
// FusedDepthwiseConv2dNative and _FusedMatMul, in one place so the three ops
// (and the standalone activation ops) agree on the math.
//
// An epilogue is: an optional per-channel affine step (BiasAdd, or
// FusedBatchNorm folded into scale and shift), then an optional residual
// "Add" of a tensor of the output's shape (TensorFlow's oneDNN remapper
// spelling for conv + bias + AddV2, as in ResNet/MobileNet residual blocks),
// then an optional activation. The output is channels-last; channels = last
// dim.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/shape.h"
#include "base/tensor.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

enum class Activation {
  kNone,
  kRelu,
  kRelu6,
  kElu,
  kSelu,
  kLeakyRelu,
  kPrelu,  // alpha is a tensor (extra fused arg), broadcast over the output
  kSigmoid,
  kTanh,
  kGeluApproximate,
  kGeluExact,
  kSoftplus,
  kSoftsign,
  kSwish,  // x * sigmoid(x); TF's oneDNN spelling in fused_ops is "_MklSwish"
};

// Fused-op spelling ("Relu", "Relu6", "Elu", "LeakyRelu", "Prelu", "Sigmoid",
// "Tanh", "GeluApproximate", "GeluExact", "_MklSwish"), case-insensitive as
// TF.js writes some of them lower-case.
StatusOr<Activation> ParseFusedActivation(const std::string& name);

// Applies a non-Prelu activation in place to n values; `alpha` is LeakyRelu's.
// Sigmoid (and Swish's sigmoid) is computed exactly as the standalone Sigmoid
// op does, so a fused activation matches the unfused graph bit for bit.
template <typename T>
void ApplyActivation(Activation act, T alpha, T* data, int64_t n);

template <typename T>
struct FusedEpilogue {
  int64_t channels = 0;
  std::vector<T> scale;  // per channel; empty means 1
  std::vector<T> shift;  // per channel; empty means 0
  Activation act = Activation::kNone;
  T leaky_alpha = T(0.2);
  // Prelu alpha: `channels` values (per channel), or one per output element.
  std::vector<T> prelu_alpha;
  bool prelu_per_element = false;
  // fused_ops "Add": one value per output element, added after the affine
  // step and before the activation (null: none). Points into `residual_holder`.
  const T* residual = nullptr;
  Tensor residual_holder;

  bool IsIdentity() const {
    return scale.empty() && shift.empty() && residual == nullptr && act == Activation::kNone;
  }
  // Applies to `n` consecutive output values starting at flat index `offset`.
  // Preconditions: offset and n are multiples of `channels`.
  void Apply(T* data, int64_t offset, int64_t n) const;
};

// Reads fused_ops, num_args, epsilon and leakyrelu_alpha from the node and the
// fused args inputs[first_arg ...] (already widened to float when T is
// half-like) and builds the epilogue for an output of `out_shape` whose last
// dim is the channel dim. FusedBatchNorm is accepted only when
// `allow_batch_norm`. The grammar is
//   [BiasAdd | FusedBatchNorm] [Add] [activation]
// with one arg per BiasAdd, four per FusedBatchNorm, one per Add (the
// residual, of exactly the output's shape and dtype; with data_format "NCHW"
// it is given in NCHW like the op's output and transposed here) and one per
// Prelu. Errors name the node and the offending op or arg.
template <typename T>
StatusOr<FusedEpilogue<T>> BuildFusedEpilogue(const KernelContext& ctx,
                                              const std::vector<Tensor>& inputs, int first_arg,
                                              const Shape& out_shape, bool allow_batch_norm);

}  // namespace tfhost::ops::nn
