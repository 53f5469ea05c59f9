#include "backends/cpu/simd/cpu_features.h"

#include <cpuid.h>

#include <cstdint>

#include <algorithm>
#include <atomic>

namespace tfhost::backends::simd {
namespace {

// -1: nothing forced; otherwise an IsaLevel value.
std::atomic<int> forced_level{-1};
// Live ScopedHideBf16 objects.
std::atomic<int> bf16_hidden{0};
std::atomic<int> amx_hidden{0};

IsaLevel Probe() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return IsaLevel::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return IsaLevel::kAvx2;
#endif
  return IsaLevel::kGeneric;
}

}  // namespace

const char* IsaLevelName(IsaLevel level) {
  switch (level) {
    case IsaLevel::kAvx512: return "avx512";
    case IsaLevel::kAvx2: return "avx2";
    case IsaLevel::kGeneric: break;
  }
  return "generic";
}

IsaLevel DetectedIsaLevel() {
  static const IsaLevel detected = Probe();
  return detected;
}

IsaLevel ActiveIsaLevel() {
  const IsaLevel detected = DetectedIsaLevel();
  const int forced = forced_level.load(std::memory_order_relaxed);
  if (forced < 0) return detected;
  return static_cast<IsaLevel>(std::min(forced, static_cast<int>(detected)));
}

bool ActiveIsaHasBf16() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has && bf16_hidden.load() == 0 && ActiveIsaLevel() == IsaLevel::kAvx512;
#else
  return false;
#endif
}

bool CpuHasAmxBf16() {
#if defined(__x86_64__)
  static const bool has = [] {
    // CPUID leaf 7: EDX bit 22 is AMX-BF16, bit 24 AMX-TILE (clang 14's
    // __builtin_cpu_supports does not know them, GCC 12's does).
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    if ((d & (1u << 22)) == 0 || (d & (1u << 24)) == 0) return false;
    uint32_t eax = 0, edx = 0;
    asm volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    constexpr uint32_t kTileState = (1u << 17) | (1u << 18);  // XTILECFG, XTILEDATA
    return (eax & kTileState) == kTileState;
  }();
  return has && bf16_hidden.load() == 0 && amx_hidden.load() == 0;
#else
  return false;
#endif
}

std::vector<IsaLevel> SupportedIsaLevels() {
  std::vector<IsaLevel> levels;
  for (int l = 0; l <= static_cast<int>(DetectedIsaLevel()); ++l) levels.push_back(static_cast<IsaLevel>(l));
  return levels;
}

ScopedIsaLevel::ScopedIsaLevel(IsaLevel level)
    : previous_(forced_level.exchange(static_cast<int>(level))) {}

ScopedIsaLevel::~ScopedIsaLevel() { forced_level.store(previous_); }

ScopedHideBf16::ScopedHideBf16() { bf16_hidden.fetch_add(1); }

ScopedHideBf16::~ScopedHideBf16() { bf16_hidden.fetch_sub(1); }

ScopedHideAmx::ScopedHideAmx() { amx_hidden.fetch_add(1); }

ScopedHideAmx::~ScopedHideAmx() { amx_hidden.fetch_sub(1); }

}  // namespace tfhost::backends::simd
