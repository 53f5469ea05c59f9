// Small random tensors for the structure-aware fuzzers, drawn from a
// FuzzedDataProvider: every dtype a graph or a signature may carry, shapes of
// rank 0-4 with zero-size dimensions, and the values kernels trip over (NaN,
// infinities, -0, denormals, negative and extreme integers, empty and
// non-UTF-8 strings). Element counts stay small (kMaxElements) so one fuzz
// iteration stays fast; huge dimensions appear only beside a zero one.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace tfhost::fuzz {

inline constexpr int64_t kMaxElements = 256;

// The dtypes the fuzzers pick from; the first ones are the common ones.
inline const std::vector<DType>& FuzzDTypes() {
  static const std::vector<DType> dtypes = {
      DType::kFloat,  DType::kInt32,     DType::kInt64,      DType::kBool,   DType::kString, DType::kUInt8,
      DType::kDouble, DType::kHalf,      DType::kBFloat16,   DType::kInt8,   DType::kInt16,  DType::kUInt16,
      DType::kUInt32, DType::kUInt64,    DType::kComplex64,  DType::kQInt8,  DType::kQUInt8, DType::kQInt32,
      DType::kComplex128};
  return dtypes;
}

inline DType PickDType(FuzzedDataProvider& in) {
  const auto& all = FuzzDTypes();
  // Half the picks among the first five.
  if (in.ConsumeBool()) return all[in.ConsumeIntegralInRange<size_t>(0, 4)];
  return all[in.ConsumeIntegralInRange<size_t>(0, all.size() - 1)];
}

inline Shape PickShape(FuzzedDataProvider& in, int max_rank = 4) {
  static constexpr int64_t kDims[] = {1, 2, 3, 0, 4, 5, 1, 2, 8, 16, 7};
  const int rank = in.ConsumeIntegralInRange<int>(0, max_rank);
  std::vector<int64_t> dims;
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t d = kDims[in.ConsumeIntegralInRange<size_t>(0, std::size(kDims) - 1)];
    if (elements * d > kMaxElements) d = 1;
    elements *= d;
    dims.push_back(d);
  }
  // A huge dimension is only safe to try beside a zero one.
  if (elements == 0 && rank > 1 && in.ConsumeBool()) {
    const int at = in.ConsumeIntegralInRange<int>(0, rank - 1);
    if (dims[at] != 0) dims[at] = int64_t{1} << 40;
  }
  return Shape(dims);
}

template <typename T>
T PickInteger(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return std::numeric_limits<T>::min();
    case 1: return std::numeric_limits<T>::max();
    case 2: return std::is_signed_v<T> ? static_cast<T>(-1) : static_cast<T>(0);
    case 3: return in.ConsumeIntegral<T>();
    default: return static_cast<T>(in.ConsumeIntegralInRange<int>(std::is_signed_v<T> ? -2 : 0, 8));
  }
}

inline float PickFloat(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    case 2: return -std::numeric_limits<float>::infinity();
    case 3: return -0.0f;
    case 4: return std::numeric_limits<float>::denorm_min();
    case 5: return std::numeric_limits<float>::max();
    case 6: {
      const uint32_t bits = in.ConsumeIntegral<uint32_t>();
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return static_cast<float>(in.ConsumeIntegralInRange<int>(-8, 8)) * 0.5f;
  }
}

// A tensor of `dtype` and `shape` with fuzzed values. Resource and variant
// dtypes, which no feed or constant can carry, give a float tensor.
inline Tensor FillTensor(FuzzedDataProvider& in, DType dtype, const Shape& shape) {
  if (dtype == DType::kResource || dtype == DType::kVariant || dtype == DType::kInvalid) dtype = DType::kFloat;
  Tensor t(dtype, shape);
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n && in.remaining_bytes() > 0; ++i) {
    switch (dtype) {
      case DType::kFloat: t.data<float>()[i] = PickFloat(in); break;
      case DType::kDouble: t.data<double>()[i] = PickFloat(in); break;
      case DType::kHalf: t.data<Half>()[i].bits = FloatToHalf(PickFloat(in)); break;
      case DType::kBFloat16: t.data<BFloat16>()[i].bits = FloatToBFloat16(PickFloat(in)); break;
      case DType::kComplex64:
        t.data<float>()[2 * i] = PickFloat(in);
        t.data<float>()[2 * i + 1] = PickFloat(in);
        break;
      case DType::kComplex128:
        t.data<double>()[2 * i] = PickFloat(in);
        t.data<double>()[2 * i + 1] = PickFloat(in);
        break;
      case DType::kInt32: case DType::kQInt32: t.data<int32_t>()[i] = PickInteger<int32_t>(in); break;
      case DType::kInt64: t.data<int64_t>()[i] = PickInteger<int64_t>(in); break;
      case DType::kUInt8: case DType::kQUInt8: t.data<uint8_t>()[i] = PickInteger<uint8_t>(in); break;
      case DType::kInt8: case DType::kQInt8: t.data<int8_t>()[i] = PickInteger<int8_t>(in); break;
      case DType::kInt16: case DType::kQInt16: t.data<int16_t>()[i] = PickInteger<int16_t>(in); break;
      case DType::kUInt16: case DType::kQUInt16: t.data<uint16_t>()[i] = PickInteger<uint16_t>(in); break;
      case DType::kUInt32: t.data<uint32_t>()[i] = PickInteger<uint32_t>(in); break;
      case DType::kUInt64: t.data<uint64_t>()[i] = PickInteger<uint64_t>(in); break;
      case DType::kBool: t.data<bool>()[i] = in.ConsumeBool(); break;
      case DType::kString: t.data<std::string>()[i] = in.ConsumeRandomLengthString(24); break;
      default: break;
    }
  }
  return t;
}

}  // namespace tfhost::fuzz
