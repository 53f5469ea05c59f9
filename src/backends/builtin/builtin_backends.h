// The backends this build has, and the priorities that order them. Which
// ones exist is a CMake choice (TFHOST_BACKEND_SIMD, TFHOST_BACKEND_ONEDNN);
// AddBuiltinBackends (backend_registry.h) adds those that were built.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace tfhost::backends {

// The simd convolutions run ahead of oneDNN's for the shapes they take and
// hand the rest to oneDNN's kernel; nothing else overlaps.
inline constexpr int kSimdPriority = 20;
inline constexpr int kOneDnnPriority = 10;

std::unique_ptr<Backend> MakeSimdBackend();    // cpu/simd/register.cc
std::unique_ptr<Backend> MakeOneDnnBackend();  // cpu/onednn/register.cc

}  // namespace tfhost::backends
