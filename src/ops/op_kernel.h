// The contract between the executor and a reference kernel.
//
// A kernel is a plain function `Status Compute(KernelContext& ctx)`: it reads
// ctx.input(i) and the node's attrs, and sets every output with
// ctx.set_output(i, tensor). Kernels never throw; a bad attr or input shape
// returns a Status that names the node (ctx.Error(...) adds that prefix).
// Before a kernel first runs on a node, the kernel contract
// (ops/kernel_contract.h) has proven the node's input and output counts and
// input dtypes against the op's schema; a kernel checks only what the schema
// cannot say (ranks, dimensions that must agree, index ranges, attr values).
// Kernels may run concurrently on different nodes; any state shared across runs
// (variables, tables) lives in the ResourceManager.
//
// Memory: a kernel's inputs are in its backend's memory space (the runtime's
// placement put copies where spaces meet), and it puts its outputs there too:
// host kernels allocate Tensors as usual; a device kernel allocates through
// ctx.allocator() and enqueues its work on ctx.stream().
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "base/stream.h"
#include "base/tensor.h"
#include "base/thread_pool.h"
#include "ir/attrs.h"
#include "ir/graph.h"
#include "ops/resource_manager.h"

namespace tfhost::ops {

class KernelContext {
 public:
  KernelContext(const ir::Node& node, std::vector<Tensor> inputs, std::vector<bool> input_dead,
                ResourceManager* resources, ThreadPool* intra_op)
      : node_(node), inputs_(std::move(inputs)), input_dead_(std::move(input_dead)),
        resources_(resources), intra_op_(intra_op) {}

  const ir::Node& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Input i. The kernel contract (ops/kernel_contract.h) proves before the
  // node first runs that it has exactly the inputs its schema declares, so a
  // kernel reading its schema's inputs never misses; no kernel needs its own
  // count check. The one compare here is what keeps a kernel bug (an index
  // past the schema) from reading out of bounds: such a read gets an empty
  // tensor and is recorded, and InvokeKernel then fails the call with an
  // Internal error naming the node and the index. A compare rather than a
  // StatusOr keeps the hot path free of a status per input read.
  const Tensor& input(int i) const {
    if (static_cast<size_t>(i) < inputs_.size()) [[likely]] return inputs_[i];
    return OutOfRangeInput(i);
  }
  // Moves an input out, so an element-wise kernel may reuse its buffer when it
  // is the only owner (Tensor::RefCountIsOne).
  Tensor TakeInput(int i) {
    if (static_cast<size_t>(i) < inputs_.size()) [[likely]] return std::move(inputs_[i]);
    return OutOfRangeInput(i);
  }
  // Replaces an input (a bf16 activation widened to float32 for a kernel that
  // only reads float32, runtime/bf16_edges.h).
  void set_input(int i, Tensor t) {
    if (static_cast<size_t>(i) < inputs_.size()) [[likely]] inputs_[i] = std::move(t);
    else OutOfRangeInput(i);
  }
  // Only kernels registered with `handles_dead_inputs` (Merge) see dead inputs.
  // An index past the inputs reads as dead (and is recorded, as for input()).
  // An empty `input_dead` given to the constructor means none is dead (what
  // executors pass for almost every node, sparing an allocation per node).
  bool input_is_dead(int i) const {
    if (static_cast<size_t>(i) < inputs_.size()) [[likely]] {
      return static_cast<size_t>(i) < input_dead_.size() && input_dead_[i];
    }
    OutOfRangeInput(i);
    return true;
  }
  // The first input index a kernel asked for that the node does not have, or
  // -1 (read by InvokeKernel after the kernel returns).
  int out_of_range_input() const { return out_of_range_input_.load(std::memory_order_relaxed); }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_num_outputs(int n) { outputs_.resize(n); output_dead_.assign(n, false); }
  // The same, in vectors an executor kept from an earlier call (their
  // capacity spares the allocations; their contents are replaced).
  void set_num_outputs(int n, std::vector<Tensor>&& outputs, std::vector<bool>&& dead) {
    outputs_ = std::move(outputs);
    outputs_.assign(n, Tensor());
    output_dead_ = std::move(dead);
    output_dead_.assign(n, false);
  }
  // Moves the inputs out once the kernel has run (an executor keeps the
  // vector's capacity for the node's next call).
  std::vector<Tensor> TakeInputs() { return std::move(inputs_); }
  void set_output(int i, Tensor t) { outputs_[i] = std::move(t); }
  // Marks an output as dead (Switch's untaken branch).
  void set_output_dead(int i) { output_dead_[i] = true; }
  std::vector<Tensor>& outputs() { return outputs_; }
  const std::vector<bool>& output_dead() const { return output_dead_; }
  // Moves the dead flags out once the kernel has run (executors keep them).
  std::vector<bool> TakeOutputDead() { return std::move(output_dead_); }

  ResourceManager* resources() const { return resources_; }
  ThreadPool* intra_op() const { return intra_op_; }

  // Which backend's kernel computed the call, for profiles: a fast kernel
  // that hands a call on (an unusual shape) is followed by the one it hands
  // it to, so the last to set it is the one that did the work. 0 is the op's
  // own reference kernel; backends::BackendName names the others.
  int backend_id() const { return backend_id_; }
  void set_backend_id(int id) { backend_id_ = id; }

  // The running backend's memory space, allocator (null: host memory from
  // the current BufferPool) and stream (null: the kernel is done when it
  // returns). Set by the backend's kernel wrapper before the kernel runs.
  MemorySpace memory_space() const { return memory_space_; }
  Allocator* allocator() const { return allocator_; }
  Stream* stream() const { return stream_; }
  void set_device(MemorySpace space, Allocator* allocator, Stream* stream) {
    memory_space_ = space;
    allocator_ = allocator;
    stream_ = stream;
  }
  // An uninitialized output-sized tensor in the backend's memory.
  StatusOr<Tensor> AllocateOutput(DType dtype, Shape shape) const {
    StatusOr<Tensor> t = Tensor::Allocate(dtype, std::move(shape), allocator_);
    if (!t.ok()) return Status(t.status().code(), ir::NodeContext(node_) + ": " + t.status().message());
    return t;
  }

  template <typename T>
  StatusOr<T> Attr(const std::string& key) const { return ir::GetAttr<T>(node_, key); }
  template <typename T>
  StatusOr<T> AttrOr(const std::string& key, T default_value) const {
    return ir::GetAttrOr<T>(node_, key, std::move(default_value));
  }

  // InvalidArgument prefixed with "node 'name' (Op): ".
  Status Error(const std::string& message) const {
    return InvalidArgument(ir::NodeContext(node_) + ": " + message);
  }
  // Checks that input i has rank in [min_rank, max_rank].
  Status CheckRank(int i, int min_rank, int max_rank) const;
  // Checks that input i has dtype `dtype`.
  Status CheckDType(int i, DType dtype) const;

 private:
  // Records `i` (kernels may read inputs from intra-op workers, hence the
  // atomic) and returns an empty tensor.
  const Tensor& OutOfRangeInput(int i) const;

  const ir::Node& node_;
  std::vector<Tensor> inputs_;
  std::vector<bool> input_dead_;
  std::vector<Tensor> outputs_;
  std::vector<bool> output_dead_;
  ResourceManager* resources_;
  ThreadPool* intra_op_;
  int backend_id_ = 0;
  MemorySpace memory_space_;
  Allocator* allocator_ = nullptr;
  Stream* stream_ = nullptr;
  mutable std::atomic<int> out_of_range_input_{-1};
};

using KernelFn = std::function<Status(KernelContext&)>;

}  // namespace tfhost::ops
