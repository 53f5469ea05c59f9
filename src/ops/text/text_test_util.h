// Helpers the text ops' tests share: string tensors in, flat values out.
#pragma once

#include <string>
#include <vector>

#include "base/tensor.h"

namespace tfhost::ops {

inline Tensor Strings(const std::vector<std::string>& v) { return Tensor::FromVector(v); }

template <typename T>
std::vector<T> Vec(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

inline std::vector<std::string> Values(const Tensor& t) { return {t.strings(), t.strings() + t.NumElements()}; }

}  // namespace tfhost::ops
