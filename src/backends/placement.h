// Placement: which backend runs each node, and the copies between memory
// spaces that this choice needs. GraphRunner places every graph it runs
// (a model's graph and each function body) before it makes kernels.
//
// Rules:
//   - Each node goes to BackendRegistry::Choose: the highest-priority
//     backend whose Supports() takes it (the reference backend with
//     KernelChoice::kReference). Nodes calling a library function run on the
//     host (the runtime runs their bodies, which are placed in turn).
//   - A view op (backends/view_ops.h: Reshape, Identity, ...) goes beside
//     its input 0 instead: to the highest-priority backend of the producer's
//     memory space that takes it, so relabelling a tensor never moves it.
//   - Where an edge joins a producer and a consumer whose memory spaces the
//     other cannot read (host and pinned host read each other; a device
//     reads only itself), a `_TfhostCopy` node goes between them: one per
//     producer output and target space, shared by every consumer there.
//     Device to another device goes through the host (two copies).
//   - An input its device backend reads in host memory
//     (Backend::InputInHostMemory: a Reshape's shape) is wanted in the host:
//     a host producer's tensor goes straight there, a device one's is copied out.
//   - Feeds arrive in host memory, so a device node fed directly gets a copy
//     from its Placeholder; fetched device tensors are copied out by
//     GraphRunner::Run when it returns them.
//
// Thread-safety: PlaceGraph mutates the graph it is given; nothing shared.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backends/backend_registry.h"

namespace tfhost::backends {

inline constexpr char kCopyOp[] = "_TfhostCopy";

struct PlacementSummary {
  std::map<std::string, int> nodes;  // backend name -> nodes placed there (copies excluded)
  int copies = 0;
  // "simd 40, onednn 52, reference 12; 0 copies" (backends by node count).
  std::string ToString() const;
};

// Sets Node::backend of every node with reachable[i] (every node when
// `reachable` is empty) and inserts the copy nodes, appended after the
// existing nodes (whose indices do not change). A node no backend supports
// keeps an empty backend; the runner reports it when it makes kernels.
StatusOr<PlacementSummary> PlaceGraph(ir::Graph* graph, const BackendRegistry& registry, KernelChoice choice,
                                      const std::vector<bool>& reachable = {});

// The kernel of a copy node: the device-side backend's CopyIn or CopyOut.
// A copy of a Const (attr constant_source) uploads once and hands every
// later run the same device tensor.
StatusOr<NodeKernel> MakeCopyKernel(const BackendRegistry& registry, const ir::Node& copy);

}  // namespace tfhost::backends
