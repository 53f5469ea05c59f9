// Run-time choice of the instruction set the vectorized kernels use.
//
// The SIMD kernels are compiled three times: for AVX-512 (F/BW/DQ/VL), for
// AVX2+FMA, and a portable copy built for the baseline target (SSE2 on
// x86-64, whatever the compiler targets elsewhere). Which copy a kernel calls
// is decided when its factory runs (once per graph node), from what the CPU
// reports through __builtin_cpu_supports, so one binary runs on any x86-64 CPU
// and never uses -march. Tests force each level in turn with ScopedIsaLevel.
#pragma once

#include <vector>

namespace tfhost::backends::simd {

enum class IsaLevel { kGeneric = 0, kAvx2 = 1, kAvx512 = 2 };

// "generic", "avx2", "avx512".
const char* IsaLevelName(IsaLevel level);

// The best level this CPU supports (probed once, then cached).
IsaLevel DetectedIsaLevel();

// The level kernels made now will use: the detected one, or the level forced
// by a live ScopedIsaLevel (clamped to what the CPU supports).
IsaLevel ActiveIsaLevel();

// Every level this CPU can run, lowest first (for tests that try each).
std::vector<IsaLevel> SupportedIsaLevels();

// Whether the active level is AVX-512 and the CPU has its bf16 conversions
// and dot products (avx512_bf16), and no ScopedHideBf16 is alive.
bool ActiveIsaHasBf16();

// Whether the CPU has AMX tiles with bf16 (amx-tile, amx-bf16) and the OS
// saves their state (XCR0 bits 17 and 18): oneDNN's bf16 kernels then run
// on the tile unit, which no VDPBF16PS loop here keeps up with.
bool CpuHasAmxBf16();

// Test-only: while alive, kernels made by the SIMD factories use `level`
// (or the detected level when it is higher than the CPU supports). Not meant
// for concurrent use from several threads; nests like a stack.
class ScopedIsaLevel {
 public:
  explicit ScopedIsaLevel(IsaLevel level);
  ~ScopedIsaLevel();
  ScopedIsaLevel(const ScopedIsaLevel&) = delete;
  ScopedIsaLevel& operator=(const ScopedIsaLevel&) = delete;

 private:
  int previous_;
};

// Test-only: while alive, ActiveIsaHasBf16() is false, so kernels made now
// take the paths of an AVX-512 CPU without avx512_bf16.
class ScopedHideBf16 {
 public:
  ScopedHideBf16();
  ~ScopedHideBf16();
  ScopedHideBf16(const ScopedHideBf16&) = delete;
  ScopedHideBf16& operator=(const ScopedHideBf16&) = delete;
};

// Test-only: while alive, CpuHasAmxBf16() is false, so the SIMD bf16 tiles
// that an AMX CPU leaves to oneDNN can still be tested there.
class ScopedHideAmx {
 public:
  ScopedHideAmx();
  ~ScopedHideAmx();
  ScopedHideAmx(const ScopedHideAmx&) = delete;
  ScopedHideAmx& operator=(const ScopedHideAmx&) = delete;
};

}  // namespace tfhost::backends::simd
