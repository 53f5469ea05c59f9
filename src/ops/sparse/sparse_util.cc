#include "ops/sparse/sparse_util.h"

namespace tfhost::ops::sparse {

bool IsRealNumber(DType dtype) {
  if (dtype == DType::kHalf || dtype == DType::kBFloat16) return true;
  if (dtype == DType::kBool) return false;
  bool ok = true;
  TFHOST_SWITCH_REAL_TYPES(dtype, {}, ok = false);
  return ok;
}

void StoreDoubles(const std::vector<double>& values, Tensor& t) {
  const size_t n = std::min(values.size(), static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DType::kHalf) {
    for (size_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(values[i]));
    return;
  }
  if (t.dtype() == DType::kBFloat16) {
    for (size_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(values[i]));
    return;
  }
  TFHOST_SWITCH_REAL_TYPES(t.dtype(), {
    for (size_t i = 0; i < n; ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  }, {});
}

}  // namespace tfhost::ops::sparse
