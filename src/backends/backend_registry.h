// BackendRegistry: the backends a process can run nodes on, ordered by
// priority (highest first), and the one way kernels are made from them.
//
// Global() holds the backends this build has (src/backends/builtin: the
// reference backend always; simd and oneDNN when their CMake options are
// on; a device plugin when one loads). Tests build their own registries,
// for example with a fake device backend beside the reference one.
//
// Thread-safety: a registry is filled once (Add) and then read-only;
// Global() is built on first use.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace tfhost::backends {

// Which kernels a session runs. kReference places every node on the
// reference backend (for comparing outputs and for bisecting a wrong answer
// to a faster backend); kFast lets placement pick the best backend.
enum class KernelChoice { kFast, kReference };

// "fast" / "reference"; an error names the accepted spellings.
StatusOr<KernelChoice> ParseKernelChoice(const std::string& text);
const char* KernelChoiceName(KernelChoice choice);

// Backends as small ids for profiles (KernelContext::backend_id): 0 is
// "reference", every other name gets the next id the first time it is asked
// for, up to kMaxBackends. Thread-safe.
inline constexpr int kMaxBackends = 32;
int BackendId(const std::string& name);
std::string BackendName(int id);
// The names of the ids set in `mask` (bit i: id i), joined by '+' in id order:
// a node whose calls ran on two backends (a shape one kernel hands on).
std::string BackendNames(uint32_t mask);

inline constexpr char kReferenceBackend[] = "reference";

// A node's kernel and the backend that made it ("" when it is the op's
// reference kernel itself).
struct NodeKernel {
  std::string backend;
  ops::KernelFn kernel;
};

class BackendRegistry {
 public:
  static const BackendRegistry& Global();

  // Adds a backend; names must be unique (a second one with a taken name is
  // refused with AlreadyExists).
  Status Add(std::unique_ptr<Backend> backend);
  // Adds a backend another registry owns (a GPU backend a plugin added to
  // the process's plugin registry, shared by the registries of each
  // --device); it must outlive this registry.
  Status AddBorrowed(const Backend* backend);

  // Highest priority first; equal priorities in the order added.
  const std::vector<const Backend*>& backends() const { return order_; }
  const Backend* Find(const std::string& name) const;
  // The reference backend (null until one named "reference" is added).
  const Backend* reference() const { return Find(kReferenceBackend); }

  // Placement's choice for `node`: the highest-priority backend that
  // supports it, or with kReference the reference backend; null when none.
  const Backend* Choose(const ir::Node& node, KernelChoice choice) const;

  // The kernel `placed` makes for `node`, handing the calls it declines to
  // the next lower-priority backend of the same memory space that makes one,
  // and so on down to `host_reference` (host spaces) or an Unimplemented
  // error naming the node and the space (device spaces). Every kernel of the
  // chain marks the calls it receives with its backend's id, memory space,
  // allocator and stream. When `placed` is the reference backend the result is
  // `host_reference` itself, unwrapped.
  NodeKernel MakeKernel(const ir::Node& node, const Backend& placed, const ops::KernelFn& host_reference) const;
  // Choose(node, kFast) then MakeKernel: the kernel a session runs for
  // `node`, or an empty kernel when only the reference backend takes it
  // (tests and benchmarks of the fast path).
  NodeKernel MakeFastKernel(const ir::Node& node, const ops::KernelFn& host_reference) const;
  // Backend `name`'s kernel alone, falling back straight to `host_reference`
  // (a host backend) or to the Unimplemented error that ends a device
  // space's chain (the conformance suite runs a case on each backend this
  // accepts); an empty kernel when it has none for the node.
  NodeKernel MakeKernelFrom(const std::string& name, const ir::Node& node, const ops::KernelFn& host_reference) const;

  // Whether some host backend computes bf16 natively (what the bf16 passes
  // ask before keeping activations in bf16).
  bool HostHasNativeBf16() const;
  // Whether some backend computes in memory the host cannot read (a GPU):
  // placement may then put products there.
  bool HasDeviceBackend() const;

 private:
  std::vector<std::unique_ptr<Backend>> owned_;
  std::vector<const Backend*> order_;
};

// Registers the backends this build was configured with; builtin/ defines
// it, and Global() (link tfhost_backends_builtin for either).
void AddBuiltinBackends(BackendRegistry& registry);

}  // namespace tfhost::backends
