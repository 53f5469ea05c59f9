// Plumbing shared by the SIMD kernel families: which nodes they accept, how
// work is split over the intra-op pool, output buffers reused in place, and
// the per-ISA function table every family picks from at kernel creation.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "backends/cpu/simd/cpu_features.h"
#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ir/attrs.h"
#include "ir/graph.h"

namespace tfhost::backends::simd {

// Whether the node's attr `attr` (default "T") is float32, or absent (the run
// time check on the inputs decides then).
inline bool IsFloatNode(const ir::Node& node, const char* attr = "T") {
  if (node.FindAttr(attr) == nullptr) return true;
  auto t = ir::GetAttr<DType>(node, attr);
  return t.ok() && *t == DType::kFloat;
}

// Element counts below which splitting over threads costs more than it saves:
// cheap element-wise work (a few ns per 1k floats per core) and expensive
// (transcendental) work.
inline constexpr int64_t kMinChunkCheap = 1 << 15;
inline constexpr int64_t kMinChunkExpensive = 1 << 12;

// fn(begin, end) over [0, n): inline when there is no pool, it has no
// workers, or n is below two chunks; otherwise over the pool. Inline, no
// std::function is made (a lambda capturing more than two references would
// be copied to the heap on every call).
template <typename Fn>
void ParallelRange(ThreadPool* pool, int64_t n, int64_t min_chunk, Fn&& fn) {
  if (n <= 0) return;
  if (pool == nullptr || pool->num_threads() == 0 || n < 2 * min_chunk) {
    fn(int64_t{0}, n);
    return;
  }
  pool->ParallelFor(n, min_chunk, std::function<void(int64_t, int64_t)>(fn));
}

// `s` without its last dim (a scalar stays one): the rows of a row-wise
// kernel, for broadcasting them (ops::math::Broadcaster::MakeTo).
inline Shape WithoutLastDim(const Shape& s) {
  if (s.rank() == 0) return s;
  return Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 1));
}

// `candidate` itself when it is a float32 tensor of `shape` that nobody else
// holds (so writing it in place is invisible), else a new, uninitialized one:
// the callers write every element.
inline Tensor ReuseOrAllocate(Tensor& candidate, const Shape& shape) {
  if (candidate.valid() && candidate.dtype() == DType::kFloat && candidate.RefCountIsOne() &&
      candidate.shape() == shape) {
    return std::move(candidate);
  }
  return Tensor::Uninitialized(DType::kFloat, shape);
}

// One function pointer per compiled copy; Pick returns the one for the level
// active now (ActiveIsaLevel), so a kernel made under a forced level keeps it.
template <typename Fn>
struct IsaTable {
  Fn avx512;
  Fn avx2;
  Fn generic;
  Fn Pick() const {
    switch (ActiveIsaLevel()) {
      case IsaLevel::kAvx512: return avx512;
      case IsaLevel::kAvx2: return avx2;
      case IsaLevel::kGeneric: break;
    }
    return generic;
  }
};

}  // namespace tfhost::backends::simd

// Defines NAME##Avx512/Avx2/Generic, each calling BODY<width> (a function
// template taking `width` first) with the same arguments, compiled for its
// instruction set. PARAMS is the parenthesized parameter list, ARGS the
// parenthesized argument names.
#define TFHOST_SIMD_DEFINE_VARIANTS(NAME, BODY, PARAMS, ARGS)                                 \
  TFHOST_SIMD_TARGET_AVX512 void NAME##Avx512 PARAMS { BODY<::tfhost::backends::simd::kWidthAvx512> ARGS; } \
  TFHOST_SIMD_TARGET_AVX2 void NAME##Avx2 PARAMS { BODY<::tfhost::backends::simd::kWidthAvx2> ARGS; }       \
  void NAME##Generic PARAMS { BODY<::tfhost::backends::simd::kWidthGeneric> ARGS; }
