// The filter (and bias) of a SIMD convolution kernel, repacked the way its
// inner loop reads them, kept per node. A Const filter is the same buffer on
// every run, so the pack is built on the first call and rebuilt only when a
// call brings another filter or bias buffer or another shape key.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "base/tensor.h"

namespace tfhost::backends::simd {

template <typename Packed>
class WeightCache {
 public:
  using Key = std::array<int64_t, 2>;

  // `build()` returns a std::shared_ptr<const Packed> for (filter, bias, key).
  template <typename Build>
  std::shared_ptr<const Packed> Get(const Tensor& filter, const Tensor* bias, Key key, Build&& build) {
    std::lock_guard<std::mutex> lock(mu_);
    const bool same = packed_ != nullptr && filter_.SharesBufferWith(filter) && key_ == key &&
                      (bias == nullptr ? !bias_.valid() : bias_.SharesBufferWith(*bias));
    if (same) return packed_;
    packed_ = build();
    filter_ = filter;
    bias_ = bias != nullptr ? *bias : Tensor();
    key_ = key;
    return packed_;
  }

 private:
  std::mutex mu_;
  Tensor filter_, bias_;
  Key key_{};
  std::shared_ptr<const Packed> packed_;
};

}  // namespace tfhost::backends::simd
