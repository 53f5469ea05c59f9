#include "ops/sparse/sparse_util.h"

#include <cmath>
#include <limits>
#include <type_traits>

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
  // A double outside an integer type's range (sums of huge int64 values)
  // saturates instead of being undefined; NaN stores 0.
  TFHOST_SWITCH_REAL_TYPES(t.dtype(), {
    for (size_t i = 0; i < n; ++i) {
      double v = values[i];
      if constexpr (std::is_integral_v<T>) {
        constexpr double kLow = static_cast<double>(std::numeric_limits<T>::lowest());
        constexpr double kHigh = static_cast<double>(std::numeric_limits<T>::max());
        if (std::isnan(v)) v = 0;
        t.data<T>()[i] = v <= kLow ? std::numeric_limits<T>::lowest()
                         : v >= kHigh ? std::numeric_limits<T>::max() : static_cast<T>(v);
      } else {
        t.data<T>()[i] = static_cast<T>(v);
      }
    }
  }, {});
}

}  // namespace tfhost::ops::sparse
