// Integer arithmetic that wraps modulo 2^bits, as TensorFlow's integer
// kernels do in practice (two's complement), without the undefined
// behaviour of signed overflow in C++: the operation runs on the unsigned
// type of the same width. Floating-point types use the plain operators.
//
// Thread-safety: pure functions.
#pragma once

#include <type_traits>

namespace tfhost::ops {

template <typename T>
inline constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Unsigned type at least as wide as int, so that small types do not promote to
// (overflowing) signed int.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
inline T WrapAdd(T a, T b) {
  if constexpr (kWraps<T>) return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
  else return a + b;
}
template <typename T>
inline T WrapSub(T a, T b) {
  if constexpr (kWraps<T>) return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
  else return a - b;
}
template <typename T>
inline T WrapMul(T a, T b) {
  if constexpr (kWraps<T>) return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
  else return a * b;
}
template <typename T>
inline T WrapNeg(T a) {
  if constexpr (kWraps<T>) return static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(a));
  else return -a;
}

}  // namespace tfhost::ops
