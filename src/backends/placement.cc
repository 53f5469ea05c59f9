#include "backends/placement.h"

#include <algorithm>
#include <mutex>

#include "backends/view_ops.h"
#include "ir/attrs.h"
#include "ops/run_single_op.h"

namespace tfhost::backends {
namespace {

// Whether a kernel running in `reader` can read a tensor in `where`.
bool CanRead(MemorySpace reader, MemorySpace where) {
  return reader == where || (reader.host_accessible() && where.host_accessible());
}

// The backend that runs the device side of a copy between `from` and `to`.
const Backend* DeviceSide(const BackendRegistry& registry, MemorySpace from, MemorySpace to) {
  const MemorySpace device = from.host_accessible() ? to : from;
  for (const Backend* b : registry.backends()) {
    if (b->memory_space() == device) return b;
  }
  return nullptr;
}

ir::Node CopyNode(const ir::Graph& graph, const ir::TensorRef& source, MemorySpace from, MemorySpace to) {
  const ir::Node& producer = graph.node(source.node);
  ir::Node copy;
  copy.name = graph.UniqueName(producer.name + "/_copy_" + std::to_string(source.index) + "_to_" + to.ToString());
  copy.op = kCopyOp;
  copy.inputs = {source};
  const DType dtype = source.index < static_cast<int>(producer.output_dtypes.size())
                          ? producer.output_dtypes[source.index]
                          : DType::kInvalid;
  copy.attrs["T"] = ops::MakeAttr(dtype);
  copy.attrs["from"] = ops::MakeAttr(from.ToString());
  copy.attrs["to"] = ops::MakeAttr(to.ToString());
  copy.attrs["constant_source"] = ops::MakeAttr(producer.op == "Const");
  copy.output_dtypes = {dtype};
  if (source.index < static_cast<int>(producer.output_shapes.size())) {
    copy.output_shapes = {producer.output_shapes[source.index]};
  }
  return copy;
}

}  // namespace

std::string PlacementSummary::ToString() const {
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [name, count] : nodes) by_count.push_back({-count, name});
  std::sort(by_count.begin(), by_count.end());
  std::string out;
  for (const auto& [count, name] : by_count) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(-count);
  return out + "; " + std::to_string(copies) + (copies == 1 ? " copy" : " copies");
}

StatusOr<PlacementSummary> PlaceGraph(ir::Graph* graph, const BackendRegistry& registry, KernelChoice choice,
                                      const std::vector<bool>& reachable) {
  PlacementSummary summary;
  const Backend* reference = registry.reference();
  if (reference == nullptr) return FailedPrecondition("placement: the backend registry has no reference backend");
  const int original = graph->num_nodes();
  auto placed = [&](int i) { return reachable.empty() || (i < static_cast<int>(reachable.size()) && reachable[i]); };
  std::vector<MemorySpace> space(original, MemorySpace::Host());
  for (int i = 0; i < original; ++i) {
    if (!placed(i)) continue;
    ir::Node& n = graph->mutable_node(i);
    const Backend* b = graph->FindFunction(n.op) != nullptr ? reference : registry.Choose(n, choice);
    if (b == nullptr) {
      n.backend.clear();
      continue;
    }
    n.backend = b->name();
    space[i] = b->memory_space();
    ++summary.nodes[n.backend];
  }
  // A view op goes beside its input 0: to the highest-priority backend of the
  // producer's memory space that takes it, so that relabelling a tensor
  // never moves it. Chains of views settle one link per sweep (a bounded
  // number: views alone never form a cycle in a valid graph).
  if (choice == KernelChoice::kFast) {
    bool changed = true;
    for (int sweep = 0; changed && sweep < 64; ++sweep) {
      changed = false;
      for (int i = 0; i < original; ++i) {
        ir::Node& n = graph->mutable_node(i);
        if (!placed(i) || n.backend.empty() || !IsViewOp(n.op) || n.inputs.empty()) continue;
        const MemorySpace want = space[n.inputs[0].node];
        if (CanRead(space[i], want) && CanRead(want, space[i])) continue;
        const Backend* beside = nullptr;
        for (const Backend* b : registry.backends()) {
          if (CanRead(b->memory_space(), want) && CanRead(want, b->memory_space()) && b->Supports(n).supported) {
            beside = b;
            break;
          }
        }
        if (beside == nullptr) continue;
        --summary.nodes[n.backend];
        if (summary.nodes[n.backend] == 0) summary.nodes.erase(n.backend);
        n.backend = beside->name();
        ++summary.nodes[n.backend];
        space[i] = beside->memory_space();
        changed = true;
      }
    }
  }
  // One copy per (producer output, target space); a device-to-device edge
  // goes through a copy to the host first.
  std::map<std::tuple<int, int, std::string>, ir::TensorRef> copies;
  auto copy_of = [&](const ir::TensorRef& src, MemorySpace from, MemorySpace to) -> StatusOr<ir::TensorRef> {
    auto key = std::make_tuple(src.node, src.index, to.ToString());
    if (auto it = copies.find(key); it != copies.end()) return it->second;
    const Backend* device = DeviceSide(registry, from, to);
    if (device == nullptr) {
      return FailedPrecondition("placement: no backend copies between " + from.ToString() + " and " + to.ToString() +
                                " (edge from node '" + graph->node(src.node).name + "')");
    }
    ir::Node copy = CopyNode(*graph, src, from, to);
    copy.backend = device->name();
    auto id = graph->AddNode(std::move(copy));
    if (!id.ok()) return id.status();
    ++summary.copies;
    ir::TensorRef out{*id, 0};
    copies.emplace(key, out);
    return out;
  };
  for (int i = 0; i < original; ++i) {
    if (!placed(i) || graph->node(i).backend.empty()) continue;
    const Backend* reader = space[i].host_accessible() ? nullptr : registry.Find(graph->node(i).backend);
    for (size_t k = 0; k < graph->node(i).inputs.size(); ++k) {
      // An input the device kernel reads in host memory (a Reshape's shape).
      const MemorySpace to = reader != nullptr && reader->InputInHostMemory(graph->node(i), static_cast<int>(k))
                                 ? MemorySpace::Host()
                                 : space[i];
      const ir::TensorRef src = graph->node(i).inputs[k];
      const MemorySpace from = space[src.node];
      if (CanRead(to, from)) continue;
      ir::TensorRef moved = src;
      MemorySpace where = from;
      if (!from.host_accessible() && !to.host_accessible()) {
        auto staged = copy_of(src, from, MemorySpace::Host());
        if (!staged.ok()) return staged.status();
        moved = *staged;
        where = MemorySpace::Host();
      }
      if (!CanRead(to, where)) {
        auto copied = copy_of(moved, where, to);
        if (!copied.ok()) return copied.status();
        moved = *copied;
      }
      graph->mutable_node(i).inputs[k] = moved;
    }
  }
  return summary;
}

StatusOr<NodeKernel> MakeCopyKernel(const BackendRegistry& registry, const ir::Node& copy) {
  auto from_text = ir::GetAttr<std::string>(copy, "from");
  auto to_text = ir::GetAttr<std::string>(copy, "to");
  if (!from_text.ok() || !to_text.ok()) {
    return InvalidArgument(ir::NodeContext(copy) + ": a copy needs string attrs 'from' and 'to'");
  }
  auto from = MemorySpace::Parse(*from_text);
  auto to = MemorySpace::Parse(*to_text);
  if (!from.ok()) return from.status().WithContext(ir::NodeContext(copy) + ", attr 'from'");
  if (!to.ok()) return to.status().WithContext(ir::NodeContext(copy) + ", attr 'to'");
  const Backend* device = DeviceSide(registry, *from, *to);
  if (device == nullptr || device->memory_space().host_accessible()) {
    return FailedPrecondition(ir::NodeContext(copy) + ": no device backend copies between " + *from_text + " and " +
                              *to_text);
  }
  const bool upload = from->host_accessible();
  auto constant_source = ir::GetAttrOr<bool>(copy, "constant_source", false);
  const bool constant = upload && constant_source.ok() && *constant_source;
  struct Cache {
    std::mutex mu;
    Tensor source, copied;
  };
  auto cache = std::make_shared<Cache>();
  ops::KernelFn kernel = [device, upload, constant, cache, id = BackendId(device->name())](ops::KernelContext& ctx) {
    ctx.set_backend_id(id);
    ctx.set_device(device->memory_space(), device->allocator(), device->stream());
    const Tensor& in = ctx.input(0);
    if (constant) {
      std::lock_guard<std::mutex> lock(cache->mu);
      if (cache->source.valid() && cache->source.SharesBufferWith(in)) {
        ctx.set_output(0, cache->copied);
        return OkStatus();
      }
    }
    StatusOr<Tensor> out = upload ? device->CopyIn(in) : device->CopyOut(in);
    if (!out.ok()) return Status(out.status().code(), ir::NodeContext(ctx.node()) + ": " + out.status().message());
    if (constant) {
      std::lock_guard<std::mutex> lock(cache->mu);
      cache->source = in;
      cache->copied = *out;
    }
    ctx.set_output(0, *std::move(out));
    return OkStatus();
  };
  return NodeKernel{device->name(), std::move(kernel)};
}

}  // namespace tfhost::backends
