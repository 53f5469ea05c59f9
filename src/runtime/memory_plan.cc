#include "runtime/memory_plan.h"

#include <algorithm>
#include <sstream>

#include "ir/tensor_proto.h"
#include "runtime/execution_plan.h"
#include "ops/shape_inference.h"

namespace tfhost::runtime {

int AliasedInput(const std::string& op, int index) {
  if (op == "IdentityN") return index;
  if (index != 0) return -1;
  if (op == "Identity" || op == "Snapshot" || op == "StopGradient" || op == "PreventGradient" ||
      op == "Reshape" || op == "Squeeze" || op == "ExpandDims" || op == "EnsureShape") {
    return 0;
  }
  return -1;
}

std::string MemoryPlan::ToString() const {
  std::ostringstream os;
  os << "peak " << peak_bytes << " bytes alive at once";
  if (!peak_node.empty()) os << " (at node '" << peak_node << "')";
  os << ", " << total_bytes << " bytes allocated over " << planned_outputs << " outputs without reuse";
  if (observed_outputs > 0) os << " (" << observed_outputs << " sized from the previous run)";
  if (unknown_outputs > 0) os << ", " << unknown_outputs << " outputs of statically unknown size not counted";
  return os.str();
}

MemoryPlan PlanMemory(const ExecutionPlan& plan, const ir::Graph& graph, const std::vector<Tensor>& constants,
                      const std::vector<std::vector<int64_t>>* observed) {
  MemoryPlan result;
  const size_t n = plan.nodes.size();
  // Buffers: bytes and how many output slots still refer to each.
  std::vector<int64_t> buffer_bytes;
  std::vector<int> buffer_refs;
  // Per planned node and output: the buffer it refers to (-1: none), and
  // uses left before the executor drops it.
  std::vector<std::vector<int>> slot_buffer(n);
  std::vector<std::vector<int>> uses_left(n);
  int64_t live = 0;

  auto drop = [&](int buffer) {
    if (buffer < 0) return;
    if (--buffer_refs[buffer] == 0) live -= buffer_bytes[buffer];
  };

  auto execute = [&](int id) {
    const PlannedNode& p = plan.nodes[id];
    const ir::Node& node = graph.node(p.node);
    const size_t num_outputs = std::max(node.output_dtypes.size(), p.output_use_counts.size());
    const bool is_constant = p.node < static_cast<int>(constants.size()) && constants[p.node].valid();
    slot_buffer[id].assign(num_outputs, -1);
    uses_left[id].assign(num_outputs, 0);
    for (size_t k = 0; k < p.output_use_counts.size(); ++k) uses_left[id][k] = p.output_use_counts[k];
    for (size_t k = 0; k < num_outputs && !is_constant; ++k) {
      int alias = AliasedInput(node.op, static_cast<int>(k));
      if (alias >= 0 && alias < static_cast<int>(p.inputs.size())) {
        const InputSource& src = p.inputs[alias];
        int buffer = src.feed >= 0 ? -1 : slot_buffer[src.node][src.index];
        if (buffer >= 0) ++buffer_refs[buffer];
        slot_buffer[id][k] = buffer;
        continue;
      }
      DType dtype = k < node.output_dtypes.size() ? node.output_dtypes[k] : DType::kInvalid;
      if (dtype == DType::kInvalid || IsStringLike(dtype) || dtype == DType::kVariant || dtype == DType::kResource) {
        continue;
      }
      int64_t bytes = -1;
      if (k < node.output_shapes.size() && node.output_shapes[k].IsFullyDefined()) {
        bytes = node.output_shapes[k].NumElements() * static_cast<int64_t>(DTypeSize(dtype));
      } else if (observed != nullptr && static_cast<size_t>(id) < observed->size() &&
                 k < (*observed)[id].size() && (*observed)[id][k] >= 0) {
        bytes = (*observed)[id][k];
        ++result.observed_outputs;
      }
      if (bytes < 0) {
        ++result.unknown_outputs;
        continue;
      }
      slot_buffer[id][k] = static_cast<int>(buffer_bytes.size());
      buffer_bytes.push_back(bytes);
      buffer_refs.push_back(1);
      live += bytes;
      result.total_bytes += bytes;
      ++result.planned_outputs;
    }
    // Inputs are still held by the kernel while it writes its outputs.
    if (live > result.peak_bytes) {
      result.peak_bytes = live;
      result.peak_node = node.name;
    }
    for (const auto& src : p.inputs) {
      if (src.feed >= 0) continue;
      if (--uses_left[src.node][src.index] == 0) drop(slot_buffer[src.node][src.index]);
    }
    // Outputs nothing reads are dropped as soon as the node is done.
    for (size_t k = 0; k < num_outputs; ++k) {
      if (uses_left[id][k] == 0) drop(slot_buffer[id][k]);
    }
  };

  // The order of the dataflow executor on one thread: a LIFO of ready nodes.
  std::vector<int> pending(n);
  std::vector<int> ready;
  for (size_t i = 0; i < n; ++i) {
    pending[i] = plan.nodes[i].initial_pending;
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  while (!ready.empty()) {
    int id = ready.back();
    ready.pop_back();
    execute(id);
    for (int c : plan.nodes[id].consumers) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  for (const auto& src : plan.fetch_sources) {
    if (src.feed >= 0 || src.node < 0 || slot_buffer[src.node].size() <= static_cast<size_t>(src.index)) continue;
    int buffer = slot_buffer[src.node][src.index];
    if (buffer >= 0) result.fetched_bytes += buffer_bytes[buffer];
  }
  return result;
}

StatusOr<ir::Graph> GraphWithFedShapes(const ir::Graph& graph,
                                       const std::vector<std::pair<std::string, Tensor>>& feeds) {
  ir::Graph copy = graph;
  for (const auto& [name, value] : feeds) {
    if (!value.valid()) continue;
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef ref, copy.ResolveTensor(name));
    ir::Node& node = copy.mutable_node(ref.node);
    if (ref.index != 0 || node.output_dtypes.size() != 1) continue;
    node.inputs.clear();
    node.control_inputs.clear();
    node.attrs.clear();
    node.op = "Placeholder";
    node.attrs["dtype"].set_type(static_cast<tensorflow::DataType>(value.dtype()));
    *node.attrs["shape"].mutable_shape() = ir::ShapeToProto(value.shape());
    // A scalar Placeholder counts as a scalar only with this record
    // (shape_inference.cc, GraphDef versions before 22).
    if (value.shape().rank() == 0) {
      *node.attrs["_output_shapes"].mutable_list()->add_shape() = ir::ShapeToProto(value.shape());
    }
  }
  TFHOST_RETURN_IF_ERROR(ops::InferShapes(copy));
  return copy;
}

}  // namespace tfhost::runtime
