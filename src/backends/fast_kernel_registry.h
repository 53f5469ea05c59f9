// Fast kernels: optional per-backend replacements for the reference kernels
// of src/ops. The reference kernel stays the oracle; a fast kernel must give
// the same outputs within the op's conformance tolerance (the conformance
// suite runs every case through both).
//
// A fast kernel is made once per graph node, when a GraphRunner is built, so
// it can keep per-node state across runs: weights reordered into a blocked
// layout, primitives cached per input shape. A factory that does not handle
// the node's attrs (dtype, data_format, ...) returns an empty KernelFn and the
// reference kernel runs. At run time a fast kernel may still hand a call it
// does not handle (an unusual shape) to the kernel it was given: the
// reference kernel, or another backend's fast kernel for the op (Register).
//
// Thread-safety: Global() is built once and read-only after; kernels made by
// it may be called from several threads at once and must lock their caches.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ops/op_kernel.h"

namespace tfhost::backends {

// Which kernels a session runs. kReference runs only src/ops kernels (for
// comparing outputs and for bisecting a wrong answer to a fast kernel).
enum class KernelChoice { kFast, kReference };

// "fast" / "reference"; an error names the accepted spellings.
StatusOr<KernelChoice> ParseKernelChoice(const std::string& text);
const char* KernelChoiceName(KernelChoice choice);

// Backends as small ids for profiles (KernelContext::backend_id): 0 is
// "reference" (the op's own kernel), every other name gets the next id the
// first time it is asked for, up to kMaxBackends. Thread-safe.
inline constexpr int kMaxBackends = 32;
int BackendId(const std::string& name);
std::string BackendName(int id);
// The names of the ids set in `mask` (bit i: id i), joined by '+' in id order:
// a node whose calls ran on two backends (a shape one kernel hands on).
std::string BackendNames(uint32_t mask);

// Makes the kernel for one node; `reference` is the kernel for the calls it
// declines (the op's reference kernel, or a fast kernel registered after it).
using FastKernelFactory = std::function<ops::KernelFn(const ir::Node& node, const ops::KernelFn& reference)>;

struct FastKernel {
  std::string backend;  // "onednn", "simd": shown by `tfhost inspect` and in tests
  ops::KernelFn kernel;
};

class FastKernelRegistry {
 public:
  static const FastKernelRegistry& Global();

  // Of the factories of one op, the first (in registration order) that
  // returns a kernel wins; the kernel it was given to hand declined calls to
  // is what the factories registered after it make (the first of those that
  // accepts, itself chained the same way), else the reference kernel. Each
  // kernel of the chain marks the calls it receives with its backend's id.
  void Register(const std::string& op, const std::string& backend, FastKernelFactory factory);

  // The fast kernel for `node`, or an empty FastKernel::kernel when none applies.
  FastKernel Make(const ir::Node& node, const ops::KernelFn& reference) const;
  // The same from `backend`'s factories alone (tests and benchmarks of one
  // backend where another is registered ahead of it).
  FastKernel MakeFrom(const std::string& backend, const ir::Node& node, const ops::KernelFn& reference) const;
  // Ops with at least one registered factory, sorted.
  std::vector<std::string> Ops() const;
  // The backends with a factory for `op`, each once, in registration order
  // (the conformance suite runs a case on each that accepts its node).
  std::vector<std::string> Backends(const std::string& op) const;

 private:
  struct Entry {
    std::string backend;
    FastKernelFactory factory;
  };
  // Make over the factories whose backend is `only` (every one when empty).
  FastKernel MakeChained(const ir::Node& node, const ops::KernelFn& reference, const std::string& only) const;

  std::unordered_map<std::string, std::vector<Entry>> factories_;
};

// One function per backend; each registers its factories (src/backends/cpu/).
// Global() calls them in priority order.
void RegisterOneDnnKernels(FastKernelRegistry& registry);  // cpu/onednn/register.cc
void RegisterSimdKernels(FastKernelRegistry& registry);    // cpu/simd/register.cc

}  // namespace tfhost::backends
