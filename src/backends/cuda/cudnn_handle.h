// The cuDNN state of one GPU for the CUDA backend's convolutions and pools
// (cudnn_conv.h, cudnn_pool.h): a cudnnHandle_t made on first use, one
// workspace of at most kWorkspaceBytes made on first use too, and where the
// algorithm choices (backends/algorithm_cache.h) keyed by shape, math mode,
// device and cuDNN version go: the backend's cache, which its GPUs share and
// which persists across starts. The backend owns one context per GPU and
// outlives every kernel that uses it.
//
// Thread-safety: every method may be called from several threads at once.
// cuDNN forbids using one handle from several threads at a time, so a Lease
// holds the context's lock while a kernel sets the stream and enqueues its
// calls; the work itself runs later, ordered on the backend's one stream,
// which is also why one workspace serves every call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/algorithm_cache.h"
#include "base/allocator.h"
#include "base/tensor.h"
#include "ir/graph.h"
#include "ops/op_kernel.h"

typedef struct CUstream_st* cudaStream_t;
typedef struct cudnnContext* cudnnHandle_t;

namespace tfhost::backends::cuda {

class CudnnContext {
 public:
  // As cublaslt_matmul.h's: enough for every heuristic choice on Hopper.
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  // Makes nothing on the device yet. `device_key` names the GPU in
  // algorithm keys ("NVIDIA H100 80GB HBM3 sm_90"); `allocator` and
  // `algorithms` (the backend's) outlive the context. `exhaustive_search`:
  // the convolutions time cuDNN's algorithms (cudnnFind...Ex) once per
  // shape instead of taking its heuristic's first.
  CudnnContext(int device, std::string device_key, Allocator* allocator, AlgorithmCache* algorithms,
               bool exhaustive_search);
  ~CudnnContext();
  CudnnContext(const CudnnContext&) = delete;
  CudnnContext& operator=(const CudnnContext&) = delete;

  // The handle, set on `stream`, and the workspace, both held exclusively
  // while the lease lives.
  class Lease {
   public:
    cudnnHandle_t handle() const { return handle_; }
    void* workspace() const { return workspace_; }

   private:
    friend class CudnnContext;
    std::unique_lock<std::mutex> lock_;
    cudnnHandle_t handle_ = nullptr;
    void* workspace_ = nullptr;
  };
  // Errors name `node`: a failing cudnnCreate or cudnnSetStream, and
  // ResourceExhausted where the workspace cannot be had.
  StatusOr<Lease> Acquire(cudaStream_t stream, const ir::Node& node);

  AlgorithmCache& algorithms() { return *algorithms_; }
  bool exhaustive_search() const { return exhaustive_search_; }
  int device() const { return device_; }
  const std::string& device_key() const { return device_key_; }
  // "cudnn 9.19.0": the loaded library's version (cudnnGetVersion).
  const std::string& library() const { return library_; }

 private:
  int device_ = 0;
  std::string device_key_;
  std::string library_;
  Allocator* allocator_ = nullptr;
  AlgorithmCache* algorithms_ = nullptr;
  bool exhaustive_search_ = false;

  std::mutex mu_;
  cudnnHandle_t handle_ = nullptr;  // guarded by mu_
  Tensor workspace_;                // guarded by mu_
};

// A failed cuDNN call as a Status naming the node, its op, the call, the
// device and cuDNN's words (cudnnGetErrorString); CUDNN_STATUS_ALLOC_FAILED
// is ResourceExhausted, anything else Internal.
Status CudnnError(int status, const std::string& call, const ir::Node& node, int device);

// A failed allocation for `node` (workspace, output, scratch) with the node
// named and the code kept (ResourceExhausted when memory ran out).
Status AllocationError(const Status& st, const std::string& what, const ir::Node& node);

// Helpers of every cuDNN kernel (the stream and launch errors are
// cuda_backend.h's KernelStream and KernelLaunched).
//
// `x` (NHWC float32 on the device) with `paddings` (Pad's NHWC pairs) of
// cells holding the float whose bits are `value_bits` around it, enqueued
// on the kernel's stream; `x` itself where every padding is 0.
StatusOr<Tensor> PaddedCopy(const Tensor& x, const std::vector<int64_t>& paddings, uint32_t value_bits,
                            ops::KernelContext& ctx, int device);

}  // namespace tfhost::backends::cuda
