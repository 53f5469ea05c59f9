#include "base/dtype.h"

#include <cmath>
#include <map>

namespace tfhost {

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalize
      int e = -1;
      do { ++e; mant <<= 1; } while ((mant & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | (exp + 127 - 15) << 23 | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToHalf(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffff;
  if (abs >= 0x7f800000) {  // inf or nan
    return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);
  }
  if (abs >= 0x477ff000) return sign | 0x7c00;  // overflow after rounding
  if (abs < 0x38800000) {  // subnormal or zero in half
    if (abs < 0x33000000) return sign;  // rounds to zero
    uint32_t mant = (abs & 0x7fffff) | 0x800000;
    // value = mant * 2^(exp-150) and the half subnormal unit is 2^-24.
    int shift = 126 - static_cast<int>(abs >> 23);
    uint32_t q = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) ++q;
    return sign | static_cast<uint16_t>(q);
  }
  uint32_t exp = (abs >> 23) - 127 + 15;
  uint32_t mant = abs & 0x7fffff;
  uint32_t q = (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (q & 1))) ++q;
  return sign | static_cast<uint16_t>(q);
}

uint16_t FloatToBFloat16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if (std::isnan(value)) return static_cast<uint16_t>((u >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

DType BaseType(int tf_datatype) {
  if (tf_datatype > 100) tf_datatype -= 100;
  return static_cast<DType>(tf_datatype);
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat: case DType::kInt32: case DType::kQInt32: case DType::kUInt32: return 4;
    case DType::kDouble: case DType::kInt64: case DType::kUInt64: case DType::kComplex64: return 8;
    case DType::kUInt8: case DType::kInt8: case DType::kBool: case DType::kQInt8: case DType::kQUInt8: return 1;
    case DType::kInt16: case DType::kUInt16: case DType::kHalf: case DType::kBFloat16:
    case DType::kQInt16: case DType::kQUInt16: return 2;
    case DType::kComplex128: return 16;
    default: return 0;
  }
}

bool IsSupportedDType(DType dtype) {
  return DTypeSize(dtype) != 0 || IsStringLike(dtype);
}

bool IsFloatingPoint(DType d) {
  return d == DType::kFloat || d == DType::kDouble || d == DType::kHalf || d == DType::kBFloat16;
}

bool IsInteger(DType d) {
  switch (d) {
    case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64:
    case DType::kUInt8: case DType::kUInt16: case DType::kUInt32: case DType::kUInt64:
      return true;
    default:
      return false;
  }
}

namespace {
struct NameEntry { DType dtype; const char* tf_name; const char* short_name; };
constexpr NameEntry kNames[] = {
    {DType::kFloat, "DT_FLOAT", "float32"},      {DType::kDouble, "DT_DOUBLE", "float64"},
    {DType::kInt32, "DT_INT32", "int32"},        {DType::kUInt8, "DT_UINT8", "uint8"},
    {DType::kInt16, "DT_INT16", "int16"},        {DType::kInt8, "DT_INT8", "int8"},
    {DType::kString, "DT_STRING", "string"},     {DType::kComplex64, "DT_COMPLEX64", "complex64"},
    {DType::kInt64, "DT_INT64", "int64"},        {DType::kBool, "DT_BOOL", "bool"},
    {DType::kQInt8, "DT_QINT8", "qint8"},        {DType::kQUInt8, "DT_QUINT8", "quint8"},
    {DType::kQInt32, "DT_QINT32", "qint32"},     {DType::kBFloat16, "DT_BFLOAT16", "bfloat16"},
    {DType::kQInt16, "DT_QINT16", "qint16"},     {DType::kQUInt16, "DT_QUINT16", "quint16"},
    {DType::kUInt16, "DT_UINT16", "uint16"},     {DType::kComplex128, "DT_COMPLEX128", "complex128"},
    {DType::kHalf, "DT_HALF", "float16"},        {DType::kResource, "DT_RESOURCE", "resource"},
    {DType::kVariant, "DT_VARIANT", "variant"},  {DType::kUInt32, "DT_UINT32", "uint32"},
    {DType::kUInt64, "DT_UINT64", "uint64"},
};
}  // namespace

std::string DTypeName(DType dtype) {
  for (const auto& e : kNames) if (e.dtype == dtype) return e.tf_name;
  return "DT_INVALID(" + std::to_string(static_cast<int>(dtype)) + ")";
}

std::string DTypeShortName(DType dtype) {
  for (const auto& e : kNames) if (e.dtype == dtype) return e.short_name;
  return "invalid";
}

StatusOr<DType> ParseDType(const std::string& name) {
  for (const auto& e : kNames) {
    if (name == e.tf_name || name == e.short_name) return e.dtype;
  }
  static const std::map<std::string, DType> kAliases = {
      {"float", DType::kFloat}, {"double", DType::kDouble}, {"half", DType::kHalf},
      {"str", DType::kString}, {"bytes", DType::kString}};
  auto it = kAliases.find(name);
  if (it != kAliases.end()) return it->second;
  return InvalidArgument("unknown dtype '" + name + "' (expected e.g. float32, int64, DT_STRING)");
}

}  // namespace tfhost
