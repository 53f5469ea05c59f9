#include "ops/math/broadcast.h"

#include <limits>
#include <span>

namespace tfhost::ops::math {

DimVector BroadcastStrides(const Shape& in, const Shape& out) {
  const int rank = out.rank();
  DimVector strides(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int d = in.rank() - 1; d >= 0; --d) {
    int od = rank - in.rank() + d;
    if (od >= 0 && in.dim(d) != 1) strides[od] = stride;
    // Past int64 only in an empty tensor (a 0 further out): its strides
    // address nothing, so saturating keeps them harmless.
    if (__builtin_mul_overflow(stride, in.dim(d), &stride)) stride = std::numeric_limits<int64_t>::max();
  }
  return strides;
}

namespace {

std::string ShapeList(const Shape* shapes, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i) s += (i + 1 == n) ? " and " : ", ";
    s += shapes[i].ToString();
  }
  return s;
}

}  // namespace

StatusOr<Broadcaster> Broadcaster::Make(const Shape* inputs, size_t n) {
  if (n == 0 || n > kMaxInputs) {
    return InvalidArgument("Broadcaster takes 1 to 3 shapes, got " + std::to_string(n));
  }
  Shape out = inputs[0];
  for (size_t k = 1; k < n; ++k) {
    if (inputs[k] == out) continue;  // the common case, without BroadcastShapes' work
    auto next = BroadcastShapes(out, inputs[k]);
    if (!next.ok()) {
      return InvalidArgument("incompatible shapes for broadcasting: " + ShapeList(inputs, n));
    }
    out = std::move(*next);
  }
  Broadcaster b;
  b.output_shape_ = std::move(out);
  TFHOST_RETURN_IF_ERROR(b.Init(inputs, n));
  return b;
}

StatusOr<Broadcaster> Broadcaster::MakeTo(const Shape* inputs, size_t n, const Shape& out) {
  if (n == 0 || n > kMaxInputs) {
    return InvalidArgument("Broadcaster takes 1 to 3 shapes, got " + std::to_string(n));
  }
  for (const Shape& in : std::span<const Shape>(inputs, n)) {
    auto b = BroadcastShapes(in, out);
    if (!b.ok() || *b != out) {
      return InvalidArgument("shape " + in.ToString() + " cannot be broadcast to " + out.ToString());
    }
  }
  Broadcaster b;
  b.output_shape_ = out;
  TFHOST_RETURN_IF_ERROR(b.Init(inputs, n));
  return b;
}

Status Broadcaster::Init(const Shape* inputs, size_t n) {
  num_inputs_ = static_cast<int>(n);
  const Shape& out = output_shape_;
  std::array<DimVector, kMaxInputs> full;
  for (int k = 0; k < num_inputs_; ++k) {
    full[k] = BroadcastStrides(inputs[k], out);
    identity_[k] = inputs[k] == out;
    scalar_[k] = inputs[k].num_elements() == 1;
  }
  // An empty output is walked by no one: one dim of 0, so that merging huge
  // dims beside the 0 cannot overflow.
  if (out.num_elements() == 0) {
    dims_ = {0};
    for (int k = 0; k < num_inputs_; ++k) strides_[k] = {0};
    return OkStatus();
  }
  // Collapse: drop size-1 output dims; merge a dim into the previous kept one
  // when every input is broadcast on both or on neither (row-major strides of
  // non-broadcast dims are then contiguous).
  for (int d = 0; d < out.rank(); ++d) {
    if (out.dim(d) == 1) continue;
    bool merge = !dims_.empty();
    for (int k = 0; k < num_inputs_ && merge; ++k) {
      merge = (strides_[k].back() == 0) == (full[k][d] == 0);
    }
    if (merge) {
      dims_.back() *= out.dim(d);
      for (int k = 0; k < num_inputs_; ++k) strides_[k].back() = full[k][d];
    } else {
      dims_.push_back(out.dim(d));
      for (int k = 0; k < num_inputs_; ++k) strides_[k].push_back(full[k][d]);
    }
  }
  return OkStatus();
}

}  // namespace tfhost::ops::math
