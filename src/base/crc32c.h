// CRC-32C (Castagnoli) and TensorFlow/LevelDB's checksum masking (formats.md
// §3.4). Every checksum in tensor bundles, SSTable block trailers and TFRecord
// framing is a masked CRC-32C.
//
// Value/Extend pick the fastest implementation the CPU has, at run time
// (cpuid): with AVX-512 VPCLMULQDQ, inputs of 2 KiB and more fold 256-byte
// windows with carry-less multiplies, and inputs (or what is left) of 128
// bytes and more fold 64-byte blocks with one accumulator (records of a few
// hundred bytes: 1.4-1.5x the crc32 chains); otherwise the SSE4.2 crc32
// instruction runs six or three interleaved streams joined with zero-shift
// tables, so records of a few hundred bytes run at the instruction's
// throughput rather than its latency; without SSE4.2, a portable
// slicing-by-8 loop. All give identical results. All functions are pure and
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfhost::crc32c {

// Returns the CRC-32C of data[0, n) continued from `init_crc`, the finished
// CRC of some earlier bytes A: Extend(Value(A), B) == Value(A ++ B).
uint32_t Extend(uint32_t init_crc, const void* data, size_t n);

// CRC-32C of data[0, n). Value("123456789", 9) == 0xE3069283.
inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// Stored checksums are masked so that a CRC of bytes that themselves contain
// CRCs is not degenerate: rotate right by 15 bits, then add a constant.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline constexpr uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}
inline constexpr uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

// Whether Extend uses the SSE4.2 instruction on this machine (for tests and
// diagnostics).
bool UsingHardware();

// The portable implementation, exposed so tests can compare it with the
// hardware one on every machine.
uint32_t ExtendPortable(uint32_t init_crc, const void* data, size_t n);

}  // namespace tfhost::crc32c
