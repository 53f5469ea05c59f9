// MemorySpace: where a tensor's bytes live. Host memory is what every CPU
// kernel reads; pinned host memory is host memory a device can copy from or
// to without staging (still readable by CPU kernels); device memory belongs
// to one accelerator and is reachable only through its backend's copies.
//
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace tfhost {

enum class MemoryKind : uint8_t { kHost, kPinnedHost, kDevice };

struct MemorySpace {
  MemoryKind kind = MemoryKind::kHost;
  int16_t device = 0;  // which device, for kDevice; 0 otherwise

  static constexpr MemorySpace Host() { return {MemoryKind::kHost, 0}; }
  static constexpr MemorySpace PinnedHost() { return {MemoryKind::kPinnedHost, 0}; }
  static constexpr MemorySpace Device(int n) { return {MemoryKind::kDevice, static_cast<int16_t>(n)}; }

  // CPU code may read and write it in place (host or pinned host).
  constexpr bool host_accessible() const { return kind != MemoryKind::kDevice; }

  friend constexpr bool operator==(MemorySpace a, MemorySpace b) {
    return a.kind == b.kind && a.device == b.device;
  }
  friend constexpr bool operator!=(MemorySpace a, MemorySpace b) { return !(a == b); }

  // "host", "pinned_host", "device:N".
  std::string ToString() const;
  // The inverse of ToString; an error quotes the text and the spellings.
  static StatusOr<MemorySpace> Parse(const std::string& text);
};

}  // namespace tfhost
