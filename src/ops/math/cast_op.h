// Cast: element type conversion between every real dtype, bool, half,
// bfloat16, complex64 and complex128. Exposed so that other kernels
// (BatchMatMulV3, nn's fused ops) can convert operands the same way the Cast
// op does.
//
// Semantics: float -> integer truncates toward zero and saturates at the
// target's range, NaN becoming 0 (C++ leaves those cases undefined; TF's own
// result is platform-dependent); integer -> integer wraps (two's complement);
// anything -> bool is `x != 0`; bool -> number is 0/1; -> half/bfloat16 rounds
// to nearest even, or for bfloat16 with `truncate` drops the low mantissa bits;
// a number -> complex is (x, 0), complex -> anything else its real part.
// Strings cannot be cast (Unimplemented).
#pragma once

#include "base/tensor.h"

namespace tfhost::ops::math {

StatusOr<Tensor> CastTensor(const Tensor& input, DType dst, bool truncate = false);

}  // namespace tfhost::ops::math
