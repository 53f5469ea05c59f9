// Small helpers shared by the sparse kernels: numeric values moved through
// double, so one reference loop serves every real dtype (half and bfloat16
// included, which TensorFlow computes in float).
#pragma once

#include <vector>

#include "base/tensor.h"

namespace tfhost::ops::sparse {

// Whether `dtype` is a real number type these kernels compute on.
bool IsRealNumber(DType dtype);
// Writes `values` (one per element) into `t`, rounding to t's dtype.
void StoreDoubles(const std::vector<double>& values, Tensor& t);

}  // namespace tfhost::ops::sparse
