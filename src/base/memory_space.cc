#include "base/memory_space.h"

#include <cstdlib>

namespace tfhost {

std::string MemorySpace::ToString() const {
  switch (kind) {
    case MemoryKind::kHost:
      return "host";
    case MemoryKind::kPinnedHost:
      return "pinned_host";
    case MemoryKind::kDevice:
      return "device:" + std::to_string(device);
  }
  return "unknown";
}

StatusOr<MemorySpace> MemorySpace::Parse(const std::string& text) {
  if (text == "host") return Host();
  if (text == "pinned_host") return PinnedHost();
  const std::string prefix = "device:";
  if (text.rfind(prefix, 0) == 0 && text.size() > prefix.size() && text.size() <= prefix.size() + 4) {
    const std::string digits = text.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") == std::string::npos) return Device(std::atoi(digits.c_str()));
  }
  return InvalidArgument("memory space '" + text + "' is not one of: host, pinned_host, device:N (N = 0..9999)");
}

}  // namespace tfhost
