// Shared plumbing of the oneDNN kernels: the CPU engine, per-thread streams,
// OpenMP thread counts, memory descriptors over tfhost tensors, the fused
// epilogue as oneDNN post-ops, and the per-node primitive cache.
//
// oneDNN objects are created once per input shape and reused; primitives are
// immutable after creation and may execute on several threads at once (each
// call brings its own scratchpad, see Execute), so a cache entry is shared by
// concurrent runs without a lock once it is built.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "base/tensor.h"
#include "ir/graph.h"
#include "ir/precision_attrs.h"
#include "ops/op_kernel.h"

namespace tfhost::backends::onednn {

// The process-wide CPU engine (created on first use).
const dnnl::engine& Engine();

// Sets OpenMP's thread count for primitives run from this thread: the
// intra-op pool's workers plus the caller, or 1 without a pool (a session
// with intra_op_threads = 1 stays single-threaded).
void SetThreadsFor(const ops::KernelContext& ctx);

// Runs one call of a kernel. Kernels never throw: oneDNN reports failures
// (out of memory for a scratchpad or a reorder, say) with exceptions, which
// become a Status naming the node here.
template <typename Body>
Status RunGuarded(const ops::KernelContext& ctx, Body&& body) {
  try {
    return body();
  } catch (const dnnl::error& e) {
    return Internal(ir::NodeContext(ctx.node()) + ": oneDNN failed: " + e.what());
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(ir::NodeContext(ctx.node()) + ": out of memory in a oneDNN kernel");
  }
}

// Executes `prim` on this thread's stream and waits. `scratchpad` is the
// primitive's scratchpad descriptor (the primitives are made with a
// user-managed scratchpad so concurrent calls never share one).
void Execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args);

// A plain float32 descriptor over `dims` with row-major strides.
dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims);
// A float32 memory over `t`'s buffer with descriptor `desc` (not copied; the
// tensor must outlive the memory).
dnnl::memory Wrap(const dnnl::memory::desc& desc, const Tensor& t);

// bf16 compute (--precision bf16, passes/precision.cc): the node carries the
// string attr `_tfhost_precision` = "bf16". Convolutions and matrix products
// then take bf16 activations and weights and accumulate into float32 outputs.
using ir::kPrecisionAttr;
// Whether the node asks for bf16 compute.
bool NodeWantsBf16(const ir::Node& node);
// Whether this CPU runs bf16 natively (avx512_bf16 or AMX, as oneDNN sees
// it). Without it a bf16-marked node runs in float32: oneDNN would emulate
// bf16, which is slower than float32 and no more exact.
bool CpuHasBf16();
// A copy of the float32 tensor `t` (described by `from`) in `to_md`'s layout
// and data type (a new buffer): bf16 operands, weights in a primitive's
// blocked layout.
dnnl::memory ReorderedCopy(const dnnl::memory::desc& from, const Tensor& t, const dnnl::memory::desc& to_md);
// The same when `to_md` has `t`'s own element order (a dense bf16 copy):
// a vectorized round-to-nearest-even conversion split over the intra-op
// pool, several times faster than oneDNN 2.6's generic reorder for it.
dnnl::memory ConvertToBf16(const Tensor& t, const dnnl::memory::desc& to_md, const ops::KernelContext& ctx);
// The same two conversions into `out` (its descriptor says the layout), for
// callers that reuse one buffer rather than allocate per call.
void ReorderInto(const dnnl::memory::desc& from, const Tensor& t, const dnnl::memory& out);
void ConvertToBf16Into(const Tensor& t, const dnnl::memory& out, const ops::KernelContext& ctx);

// A buffer of at least `bytes` (64-byte aligned) owned by the calling thread
// and slot `slot` (0 or 1), valid until the next call on this thread with the
// same slot. For per-call temporaries of a kernel (the scratchpad, bf16
// activations): kernels run to completion on one thread and never nest, so
// a thread's slot is never in use twice at once, and large temporaries stop
// costing an mmap and page faults on every call.
void* ThreadBuffer(int slot, size_t bytes);

// Copies `bytes` from `src` to `dst`, split over the context's intra-op pool
// when it is large enough to pay for the split.
void ParallelCopy(const ops::KernelContext& ctx, void* dst, const void* src, int64_t bytes);

// Attr helpers for the nodes' factories: absent or malformed attrs yield the
// default / false so the factory can decline.
bool AttrIsFloat(const ir::Node& node, const std::string& key);

// The fused_ops epilogue of _FusedConv2D / FusedDepthwiseConv2dNative /
// _FusedMatMul in the forms oneDNN fuses: an optional BiasAdd (conv/matmul
// bias argument) or FusedBatchNorm (binary mul + add post-ops of per-channel
// scale and shift), then an optional residual Add (a sum post-op: the
// primitive adds what dst holds, so the kernel puts the residual there
// first), then an optional activation (an eltwise post-op).
struct Epilogue {
  enum class Affine { kNone, kBias, kBatchNorm };
  Affine affine = Affine::kNone;
  bool has_sum = false;  // fused_ops "Add": the residual is the last fused arg
  bool has_eltwise = false;
  dnnl::algorithm eltwise = dnnl::algorithm::eltwise_relu;
  float alpha = 0, beta = 0;
  float epsilon = 1e-4f;
  int num_args = 0;  // fused args the node must have (1 bias, 4 batch norm, +1 Add)
};

// Decodes fused_ops / num_args / epsilon / leakyrelu_alpha. Returns false for
// anything not expressible above (Prelu, host args, an arg count that does
// not fit; "Add" unless `allow_sum`, for kernels that cannot seed dst with
// the residual), so the node declines and the reference kernel runs.
bool ParseEpilogue(const ir::Node& node, bool allow_batch_norm, Epilogue* out, bool allow_sum = false);

// Per-channel scale and shift of FusedBatchNorm args (scale, offset, mean,
// variance), folded as the reference does (in double). Returns false when an
// arg is not a float vector of `channels` values (the reference reports it).
bool FoldBatchNorm(const Tensor& scale, const Tensor& offset, const Tensor& mean,
                   const Tensor& variance, float epsilon, int64_t channels, Tensor* fold_scale,
                   Tensor* fold_shift);

// The post-ops for `e` with channels along dim 1 of a `rank`-dim output of
// `channels` channels (binary src1 descriptors for batch norm), in the
// reference epilogue's order: batch norm, sum, eltwise (the bias is the
// primitive's own and comes before all of them).
dnnl::post_ops MakePostOps(const Epilogue& e, int rank, int64_t channels);

// Whether the tensor is a float vector-like arg of exactly `n` elements.
bool IsFloatVector(const Tensor& t, int64_t n);

// A small bounded map from a shape key to a cached entry, guarded by a mutex.
// When full, it is cleared: a node whose shapes keep changing pays creation
// again rather than growing memory without bound.
template <typename Entry>
class ShapeCache {
 public:
  static constexpr size_t kMaxEntries = 16;

  std::shared_ptr<Entry> Find(const std::vector<int64_t>& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }
  void Insert(const std::vector<int64_t>& key, std::shared_ptr<Entry> entry) {
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    map_[key] = std::move(entry);
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.size();
  }

 private:
  std::mutex mu_;
  std::map<std::vector<int64_t>, std::shared_ptr<Entry>> map_;
};

}  // namespace tfhost::backends::onednn
