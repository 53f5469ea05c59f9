// CRC-32C (Castagnoli) and TensorFlow/LevelDB's checksum masking (docs/formats.md
// §3.4). Every checksum in tensor bundles, SSTable block trailers and TFRecord
// framing is a masked CRC-32C.
//
// Value/Extend pick the fastest implementation the CPU has, at run time
// (cpuid), all with identical results:
// - AVX-512 VPCLMULQDQ: inputs of 2 KiB and more fold 256-byte windows with
//   carry-less multiplies, and inputs (or what is left) of 128 bytes and
//   more fold 64-byte blocks with one accumulator (records of a few hundred
//   bytes: 1.4-1.5x the crc32 chains).
// - AVX2 with 256-bit VPCLMULQDQ (AMD Zen 3): inputs of 80 bytes and more
//   fold two (from 1 KiB, four) 32-byte accumulators from the start, and
//   the last partial window as one that ends with the input (AVX2 has no
//   byte-masked loads). Records of 400-640 bytes: 1.25x the crc32 chains.
// - SSE4.2: the crc32 instruction runs six or three interleaved streams
//   joined with zero-shift tables, so records of a few hundred bytes run at
//   the instruction's throughput rather than its latency. The vector paths
//   use it too, below their thresholds.
// - Otherwise a portable slicing-by-8 loop.
// All functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfhost::crc32c {

// Returns the CRC-32C of data[0, n) continued from `init_crc`, the finished
// CRC of some earlier bytes A: Extend(Value(A), B) == Value(A ++ B).
uint32_t Extend(uint32_t init_crc, const void* data, size_t n);

// CRC-32C of data[0, n). Value("123456789", 9) == 0xE3069283.
inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// CRC-32C of the 8 little-endian bytes of `v`, as Value(&v, 8): a TFRecord
// length field. One crc32 instruction where the CPU has it, without the
// length dispatch of Extend (about 3 ns less per record).
uint32_t Value64(uint64_t v);

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

// Whether Extend uses CRC instructions (any implementation but the portable
// one) on this machine.
bool UsingHardware();

// The portable implementation, exposed so tests can compare it with the
// hardware one on every machine.
uint32_t ExtendPortable(uint32_t init_crc, const void* data, size_t n);

// The implementations Extend chooses from, so that tests and benchmarks can
// run each one this CPU supports, not only the one Extend picked.
enum class Impl { kPortable, kSse42, kAvx2Vpclmulqdq, kAvx512Vpclmulqdq };
const char* ImplName(Impl impl);
// Whether this CPU (and build) runs `impl`.
bool ImplSupported(Impl impl);
// The one Extend uses.
Impl ActiveImpl();
// Extend with `impl`; one the CPU does not support runs the portable code.
uint32_t ExtendWith(Impl impl, uint32_t init_crc, const void* data, size_t n);

}  // namespace tfhost::crc32c
