// NumPy-style broadcasting for element-wise kernels: given up to three input
// shapes, a Broadcaster computes the output shape and walks the output in
// row-major order, handing the kernel each input's element offset. Other op
// families (nn's BiasAdd, array's Where/Select-like ops, reductions) reuse it
// by broadcasting a smaller shape *to* a given larger one (MakeTo).
//
// Usage:
//   TFHOST_ASSIGN_OR_RETURN(auto bc, Broadcaster::Make({x.shape(), y.shape()}));
//   bc.ForEach(0, bc.num_elements(), [&](int64_t i, const int64_t* off) {
//     z[i] = x[off[0]] + y[off[1]];
//   });
//
// Adjacent dimensions that broadcast the same way are collapsed, so the inner
// loop of ForEach runs over as long a stretch as possible. A Broadcaster is an
// immutable value; ForEach is safe to call concurrently on disjoint ranges.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "base/shape.h"
#include "base/status.h"

namespace tfhost::ops::math {

// Strides (in elements) of row-major `in` viewed with the rank of `out`:
// 0 on dimensions where `in` is broadcast (missing or of size 1). Precondition:
// `in` broadcasts to `out` (check with Broadcaster::MakeTo first).
DimVector BroadcastStrides(const Shape& in, const Shape& out);

class Broadcaster {
 public:
  static constexpr int kMaxInputs = 3;

  // Broadcasts 1..kMaxInputs shapes together; the error names every shape.
  // (Up to rank 6, a Broadcaster allocates nothing: kernels make one per call.)
  static StatusOr<Broadcaster> Make(std::initializer_list<Shape> inputs) { return Make(inputs.begin(), inputs.size()); }
  static StatusOr<Broadcaster> Make(const std::vector<Shape>& inputs) { return Make(inputs.data(), inputs.size()); }
  static StatusOr<Broadcaster> Make(const Shape* inputs, size_t n);
  // Broadcasts every input to exactly `out` (an input may not enlarge it);
  // the error names the input and the target shape.
  static StatusOr<Broadcaster> MakeTo(std::initializer_list<Shape> inputs, const Shape& out) {
    return MakeTo(inputs.begin(), inputs.size(), out);
  }
  static StatusOr<Broadcaster> MakeTo(const std::vector<Shape>& inputs, const Shape& out) {
    return MakeTo(inputs.data(), inputs.size(), out);
  }
  static StatusOr<Broadcaster> MakeTo(const Shape* inputs, size_t n, const Shape& out);

  const Shape& output_shape() const { return output_shape_; }
  int64_t num_elements() const { return output_shape_.num_elements(); }
  int num_inputs() const { return num_inputs_; }
  // Whether input k has exactly the output's shape (its offset is the output
  // index), and whether it is a single element (its offset is always 0):
  // kernels use these for tight loops on the common cases.
  bool IsIdentity(int k) const { return identity_[k]; }
  bool IsScalar(int k) const { return scalar_[k]; }

  // Calls fn(out_index, offsets) for out_index in [begin, end), in order;
  // offsets[k] is input k's element offset. 0 <= begin <= end <= num_elements().
  template <typename Fn>
  void ForEach(int64_t begin, int64_t end, Fn&& fn) const;

 private:
  Status Init(const Shape* inputs, size_t n);

  int num_inputs_ = 0;
  Shape output_shape_;
  // Collapsed iteration space: dims_[d] and, per input, strides_[k][d].
  DimVector dims_;
  std::array<DimVector, kMaxInputs> strides_;
  std::array<bool, kMaxInputs> identity_{};
  std::array<bool, kMaxInputs> scalar_{};
};

template <typename Fn>
void Broadcaster::ForEach(int64_t begin, int64_t end, Fn&& fn) const {
  if (begin >= end) return;
  std::array<int64_t, kMaxInputs> off{};
  const int rank = static_cast<int>(dims_.size());
  if (rank == 0) {  // a single element
    for (int64_t i = begin; i < end; ++i) fn(i, off.data());
    return;
  }
  // Multi-index of `begin`, and the matching offsets.
  DimVector idx(static_cast<size_t>(rank), 0);
  int64_t rest = begin;
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = rest % dims_[d];
    rest /= dims_[d];
    for (int k = 0; k < num_inputs_; ++k) off[k] += idx[d] * strides_[k][d];
  }
  const int last = rank - 1;
  const int64_t inner = dims_[last];
  std::array<int64_t, kMaxInputs> inner_stride{};
  for (int k = 0; k < num_inputs_; ++k) inner_stride[k] = strides_[k][last];
  int64_t i = begin;
  while (i < end) {
    int64_t count = std::min(inner - idx[last], end - i);
    for (int64_t c = 0; c < count; ++c, ++i) {
      fn(i, off.data());
      for (int k = 0; k < num_inputs_; ++k) off[k] += inner_stride[k];
    }
    idx[last] += count;
    if (i >= end) break;
    // Carry into the outer dimensions.
    for (int k = 0; k < num_inputs_; ++k) off[k] -= inner * inner_stride[k];
    idx[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      ++idx[d];
      for (int k = 0; k < num_inputs_; ++k) off[k] += strides_[k][d];
      if (idx[d] < dims_[d]) break;
      for (int k = 0; k < num_inputs_; ++k) off[k] -= dims_[d] * strides_[k][d];
      idx[d] = 0;
    }
  }
}

}  // namespace tfhost::ops::math
