// Element types of tensors. Values equal TensorFlow's DataType enum numbers
// (docs/formats.md §1.1) so that protobuf dtypes convert by a cast; "_REF" types are
// folded onto their base type by BaseType().
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "base/status.h"

namespace tfhost {

enum class DType : int {
  kInvalid = 0,
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,
  kComplex64 = 8,
  kInt64 = 9,
  kBool = 10,
  kQInt8 = 11,
  kQUInt8 = 12,
  kQInt32 = 13,
  kBFloat16 = 14,
  kQInt16 = 15,
  kQUInt16 = 16,
  kUInt16 = 17,
  kComplex128 = 18,
  kHalf = 19,
  kResource = 20,
  kVariant = 21,
  kUInt32 = 22,
  kUInt64 = 23,
};

// IEEE binary16 and bfloat16 are stored as their 16-bit patterns; kernels
// compute in float32.
struct Half { uint16_t bits = 0; };
struct BFloat16 { uint16_t bits = 0; };

float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);  // round to nearest even
inline float BFloat16ToFloat(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t FloatToBFloat16(float value);  // round to nearest even, NaN stays NaN

// Folds TensorFlow's reference types (value + 100) onto the base type.
DType BaseType(int tf_datatype);
// Whether tfhost can hold tensors of this type (storage, not every kernel).
bool IsSupportedDType(DType dtype);
// Bytes per element for fixed-size types; 0 for string/resource/variant.
size_t DTypeSize(DType dtype);
// Elements stored as std::string: DT_STRING, and DT_RESOURCE handles (the
// handle is the resource's name in the session's resource manager).
inline bool IsStringLike(DType dtype) {
  return dtype == DType::kString || dtype == DType::kResource;
}
bool IsFloatingPoint(DType dtype);
bool IsInteger(DType dtype);
// TensorFlow's enum name ("DT_FLOAT") and numpy-style short name ("float32").
std::string DTypeName(DType dtype);
std::string DTypeShortName(DType dtype);
// Parses "DT_FLOAT", "float32", "float", "int64", ... into a DType.
StatusOr<DType> ParseDType(const std::string& name);

// C++ storage type of a DType, for templates.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kDouble; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<std::string> { static constexpr DType value = DType::kString; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::kBFloat16; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::kUInt16; };
template <> struct DTypeOf<Half> { static constexpr DType value = DType::kHalf; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::kUInt32; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::kUInt64; };

}  // namespace tfhost

// Calls BODY with `T` bound to the storage type of DTYPE, for every real-number
// dtype (float, double, all integers, bool). Half/bfloat16 are excluded because
// kernels convert them to float first (see ops/common/dtype_convert).
#define TFHOST_SWITCH_REAL_TYPES(DTYPE, BODY, ON_OTHER)          \
  switch (DTYPE) {                                               \
    case ::tfhost::DType::kFloat: { using T = float; BODY; break; }    \
    case ::tfhost::DType::kDouble: { using T = double; BODY; break; }  \
    case ::tfhost::DType::kInt32: { using T = int32_t; BODY; break; }  \
    case ::tfhost::DType::kInt64: { using T = int64_t; BODY; break; }  \
    case ::tfhost::DType::kUInt8: { using T = uint8_t; BODY; break; }  \
    case ::tfhost::DType::kInt8: { using T = int8_t; BODY; break; }    \
    case ::tfhost::DType::kInt16: { using T = int16_t; BODY; break; }  \
    case ::tfhost::DType::kUInt16: { using T = uint16_t; BODY; break; } \
    case ::tfhost::DType::kUInt32: { using T = uint32_t; BODY; break; } \
    case ::tfhost::DType::kUInt64: { using T = uint64_t; BODY; break; } \
    case ::tfhost::DType::kBool: { using T = bool; BODY; break; }      \
    default: { ON_OTHER; }                                       \
  }

// Same, for every fixed-size type including Half/BFloat16 (as opaque 2-byte
// values): for kernels that only move elements around.
#define TFHOST_SWITCH_POD_TYPES(DTYPE, BODY, ON_OTHER)                 \
  switch (::tfhost::DTypeSize(DTYPE)) {                                \
    case 1: { using T = uint8_t; BODY; break; }                        \
    case 2: { using T = uint16_t; BODY; break; }                       \
    case 4: { using T = uint32_t; BODY; break; }                       \
    case 8: { using T = uint64_t; BODY; break; }                       \
    case 16: { struct T { uint64_t a, b; }; BODY; break; }             \
    default: { ON_OTHER; }                                             \
  }
