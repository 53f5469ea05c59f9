// Backend: one way of running nodes. The interface every backend implements
// (the op registry's reference kernels, the SIMD and oneDNN CPU kernels, a
// GPU library): a name, a priority, the memory space its kernels read and
// write, its allocator and stream, its capabilities, a per-node support
// check, and the kernels it makes for the nodes placed on it.
//
// How the runtime uses it (backends/placement.h): each node goes to the
// highest-priority backend that supports it; copy nodes are inserted where
// a producer's memory space differs from its consumer's. The kernel made
// for a node may hand calls it cannot do (an unusual shape at run time) to
// its `fallback`: the kernel of the next backend that supports the node in
// the same memory space, ending with the reference kernel on the host. A
// kernel never falls back across memory spaces.
//
// Thread-safety: backends are built once and then shared read-only; their
// allocators and streams are thread-safe; the kernels they make may be
// called from several threads at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "base/memory_space.h"
#include "base/stream.h"
#include "base/tensor.h"
#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::backends {

// Facts about a backend that graph passes and the CLI ask, instead of
// knowing one backend's strengths themselves.
struct BackendCapabilities {
  // Computes bf16 natively, faster than float32: --precision bf16 keeps
  // activations in bf16 between the nodes it runs (passes/precision).
  bool native_bf16 = false;
  // Computes float16 natively.
  bool native_fp16 = false;
  // Its kernels enqueue work on a stream rather than finish it in the call.
  bool asynchronous = false;
};

// Whether a backend takes a node, and if not, why (shown by `tfhost
// inspect --optimized` for nodes that stay on a slower backend).
struct NodeSupport {
  bool supported = false;
  std::string reason;  // when not supported
  static NodeSupport Yes() { return {true, ""}; }
  static NodeSupport No(std::string why) { return {false, std::move(why)}; }
};

// What a device backend's allocator holds of its device, for /metrics and
// `tfhost monitor`: the allocator's own figures (in use, peak, limit,
// failures) and what it has taken from the device, which a caching
// allocator (BfcAllocator) keeps past the tensors that used it.
struct DeviceMemoryStats {
  AllocatorStats allocator;
  int64_t bytes_reserved = 0;  // >= allocator.bytes_in_use
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "reference", "simd", "onednn", "cuda": shown in profiles and placement.
  virtual const std::string& name() const = 0;
  // Placement prefers higher; the reference backend is 0.
  virtual int priority() const = 0;
  virtual MemorySpace memory_space() const = 0;
  virtual BackendCapabilities capabilities() const = 0;
  // Where its kernels' outputs go: null for host backends (Tensor's
  // BufferPool); a device backend's own allocator otherwise.
  virtual Allocator* allocator() const = 0;
  // Null for backends whose kernels finish before returning.
  virtual Stream* stream() const = 0;

  // Whether it can run `node` (op, dtypes, shapes, attrs as the graph
  // states them). A supported node may still meet a call its kernel hands to
  // its fallback (a shape only known at run time).
  virtual NodeSupport Supports(const ir::Node& node) const = 0;
  // The kernel for a node it supports; empty when it turns the node down
  // after all. `fallback` is what it hands declined calls to.
  virtual ops::KernelFn MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const = 0;

  // Whether its kernel for `node` reads input `index` in host memory rather
  // than in memory_space(): a device backend's Reshape reads its shape there
  // (TensorFlow's HostMemory inputs). Placement then copies nothing onto
  // that edge, or copies to the host. Host backends are never asked.
  virtual bool InputInHostMemory(const ir::Node& node, int index) const {
    (void)node;
    (void)index;
    return false;
  }

  // Copies between host memory and this backend's memory (device backends;
  // host backends are never asked). `src` is in host memory for CopyIn and
  // in this backend's space for CopyOut; both may enqueue on stream() and
  // return before the copy is done, as long as later work on the stream
  // sees the result (CopyOut synchronizes before returning).
  virtual StatusOr<Tensor> CopyIn(const Tensor& src) const;
  virtual StatusOr<Tensor> CopyOut(const Tensor& src) const;

  // Its device memory figures; none for host backends (memory_space() host
  // accessible, or no allocator). By default from allocator()->stats(), with
  // nothing reserved beyond what is in use; a backend whose allocator caches
  // device memory says what it holds. Thread-safe.
  virtual std::optional<DeviceMemoryStats> device_memory() const;
};

}  // namespace tfhost::backends
