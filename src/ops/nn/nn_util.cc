#include "ops/nn/nn_util.h"

#include <algorithm>
#include <cstring>

namespace tfhost::ops::nn {

Tensor WidenToFloat(const Tensor& t) {
  if (!IsHalfLike(t.dtype())) return t;
  Tensor out(DType::kFloat, t.shape());
  const uint16_t* src = t.data<uint16_t>();
  float* dst = out.data<float>();
  const int64_t n = t.NumElements();
  if (t.dtype() == DType::kHalf) {
    for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(src[i]);
  }
  return out;
}

Tensor NarrowFromFloat(const Tensor& t, DType target) {
  if (!IsHalfLike(target) || t.dtype() != DType::kFloat) return t;
  Tensor out(target, t.shape());
  const float* src = t.data<float>();
  uint16_t* dst = out.data<uint16_t>();
  const int64_t n = t.NumElements();
  if (target == DType::kHalf) {
    for (int64_t i = 0; i < n; ++i) dst[i] = FloatToHalf(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = FloatToBFloat16(src[i]);
  }
  return out;
}

Status RunWidened(KernelContext& ctx, int min_inputs, int t_input,
                  const std::vector<int>& narrow_outputs, const NnImpl& impl) {
  if (ctx.num_inputs() < min_inputs || ctx.num_inputs() <= t_input) {
    return ctx.Error("expected at least " + std::to_string(std::max(min_inputs, t_input + 1)) +
                     " inputs, got " + std::to_string(ctx.num_inputs()));
  }
  const DType t = ctx.input(t_input).dtype();
  std::vector<Tensor> inputs;
  inputs.reserve(ctx.num_inputs());
  for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(WidenToFloat(ctx.input(i)));
  std::vector<Tensor> outputs(ctx.num_outputs());
  TFHOST_RETURN_IF_ERROR(impl(ctx, inputs, outputs));
  if (IsHalfLike(t)) {
    for (int i : narrow_outputs) {
      if (i < static_cast<int>(outputs.size())) outputs[i] = NarrowFromFloat(outputs[i], t);
    }
  }
  for (int i = 0; i < static_cast<int>(outputs.size()); ++i) ctx.set_output(i, std::move(outputs[i]));
  return OkStatus();
}

void ParallelRows(const KernelContext& ctx, int64_t rows,
                  const std::function<void(int64_t, int64_t)>& body) {
  if (ctx.intra_op() != nullptr) {
    ctx.intra_op()->ParallelFor(rows, 1, body);
  } else {
    body(0, rows);
  }
}

Status FloatOrDoubleOnlyError(const KernelContext& ctx, DType dtype) {
  return Unimplemented(ir::NodeContext(ctx.node()) + ": dtype " + DTypeShortName(dtype) +
                       " is not supported (expected float32, float64, float16 or bfloat16)");
}

StatusOr<Tensor> AllocateChecked(DType dtype, const std::vector<int64_t>& dims,
                                 const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, what, kMaxOutputElements));
  return Tensor(dtype, std::move(shape));
}

namespace {

// Moves elements of a 4-D tensor so that out dim j = in dim perm[j].
Tensor Transpose4(const Tensor& t, const int perm[4]) {
  const int64_t in_dims[4] = {t.dim(0), t.dim(1), t.dim(2), t.dim(3)};
  Shape out_shape({in_dims[perm[0]], in_dims[perm[1]], in_dims[perm[2]], in_dims[perm[3]]});
  Tensor out(t.dtype(), out_shape);
  const size_t es = DTypeSize(t.dtype());
  int64_t in_strides[4];
  in_strides[3] = 1;
  for (int i = 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in_dims[i + 1];
  const int64_t s0 = in_strides[perm[0]], s1 = in_strides[perm[1]], s2 = in_strides[perm[2]],
                s3 = in_strides[perm[3]];
  const char* src = static_cast<const char*>(t.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  int64_t o = 0;
  for (int64_t a = 0; a < out_shape.dim(0); ++a)
    for (int64_t b = 0; b < out_shape.dim(1); ++b)
      for (int64_t c = 0; c < out_shape.dim(2); ++c)
        for (int64_t d = 0; d < out_shape.dim(3); ++d, ++o) {
          std::memcpy(dst + o * es, src + (a * s0 + b * s1 + c * s2 + d * s3) * es, es);
        }
  return out;
}

}  // namespace

Tensor NchwToNhwc(const Tensor& t) {
  static const int perm[4] = {0, 2, 3, 1};
  return Transpose4(t, perm);
}

Tensor NhwcToNchw(const Tensor& t) {
  static const int perm[4] = {0, 3, 1, 2};
  return Transpose4(t, perm);
}

StatusOr<std::vector<double>> BroadcastValues(const Tensor& t, const Shape& shape) {
  auto mismatch = [&] {
    return InvalidArgument("shape " + t.shape().ToString() + " does not broadcast to " +
                           shape.ToString());
  };
  if (t.rank() > shape.rank()) return mismatch();
  const int rank = shape.rank();
  const int offset = rank - t.rank();
  // Stride of each output dim in `t` (0 where `t` is broadcast).
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int i = t.rank() - 1; i >= 0; --i) {
    const int64_t d = t.dim(i);
    if (d != shape.dim(i + offset) && d != 1) return mismatch();
    strides[i + offset] = d == 1 ? 0 : stride;
    stride *= d;
  }
  const std::vector<double> values = t.ToDoubleVector();
  std::vector<double> out(static_cast<size_t>(shape.num_elements()));
  std::vector<int64_t> index(rank, 0);
  int64_t src = 0;
  for (size_t o = 0; o < out.size(); ++o) {
    out[o] = values[src];
    // Odometer increment over the output index.
    for (int d = rank - 1; d >= 0; --d) {
      ++index[d];
      src += strides[d];
      if (index[d] < shape.dim(d)) break;
      src -= strides[d] * index[d];
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace tfhost::ops::nn
