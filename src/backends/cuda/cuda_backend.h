// The CUDA backend: one per GPU, in device memory ("device:N"), with its own
// stream and a BfcAllocator over cudaMalloc. It is built into the plugin
// libtfhost_cuda.so (cuda_plugin.cc), never into the tfhost binary, so the
// binary needs no CUDA library to start.
//
// What it runs today: float32 element-wise ops, softmax, reductions, data
// movement, matrix products, and convolutions and pools on cuDNN where the
// plugin was built with it (cuda_kernels.h). Everything else stays on the
// host backends, with copies where the two meet (backends/placement.h).
//
// Thread-safety: as backends/backend.h; every call sets the device first,
// since threads share one process-wide CUDA context per device.
#pragma once

#include <memory>
#include <string>

#include "backends/algorithm_cache_file.h"
#include "backends/backend.h"
#include "backends/bfc_allocator.h"
#include "backends/cuda/cublaslt_matmul.h"
#include "backends/cuda/cuda_kernels.h"
#include "backends/cuda/cuda_plugin_options.h"
#include "backends/cuda/cudnn_handle.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

class CudaStream : public Stream {
 public:
  CudaStream(int device, cudaStream_t stream) : device_(device), stream_(stream) {}
  ~CudaStream() override;
  std::string name() const override { return "cuda:" + std::to_string(device_) + " stream"; }
  MemorySpace space() const override { return MemorySpace::Device(device_); }
  Status Synchronize() override;
  cudaStream_t get() const { return stream_; }

 private:
  int device_;
  cudaStream_t stream_;
};

class CudaBackend : public Backend {
 public:
  // Errors name the device and the CUDA call that failed. `algorithms`
  // (not null) holds the algorithm choices; the plugin shares one among its
  // GPUs (the keys name the device), loaded from and saved to
  // options.algorithm_cache_path.
  static StatusOr<std::unique_ptr<CudaBackend>> Create(int device, const CudaBackendOptions& options,
                                                       std::shared_ptr<AlgorithmCacheFile> algorithms);
  // Saves the algorithm choices this process added, if any.
  ~CudaBackend() override;

  const std::string& name() const override { return name_; }
  int priority() const override { return 100; }
  MemorySpace memory_space() const override { return MemorySpace::Device(device_); }
  BackendCapabilities capabilities() const override { return capabilities_; }
  Allocator* allocator() const override { return allocator_.get(); }
  Stream* stream() const override { return stream_.get(); }
  NodeSupport Supports(const ir::Node& node) const override;
  ops::KernelFn MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const override;
  bool InputInHostMemory(const ir::Node& node, int index) const override;
  StatusOr<Tensor> CopyIn(const Tensor& src) const override;
  StatusOr<Tensor> CopyOut(const Tensor& src) const override;
  // The BfcAllocator's figures and the regions it holds.
  std::optional<DeviceMemoryStats> device_memory() const override;

  // "NVIDIA H100 80GB HBM3, sm_90, 79.2 GiB, limit 71.3 GiB".
  const std::string& description() const { return description_; }

 private:
  CudaBackend() = default;

  int device_ = 0;
  std::string name_;
  std::string description_;
  BackendCapabilities capabilities_;
  std::unique_ptr<CudaStream> stream_;
  std::unique_ptr<BfcAllocator> allocator_;
  // Declared before the users of its cache, so it outlives them.
  std::shared_ptr<AlgorithmCacheFile> algorithms_;
  std::unique_ptr<CublasLtMatmul> matmul_;
  // Made where the plugin has cuDNN (TFHOST_CUDA_CUDNN); its handle and
  // workspace on first use. Destroyed before the allocator its workspace
  // came from. A shared_ptr, whose deleter is bound where it is made, so a
  // plugin without cuDNN never refers to ~CudnnContext.
  std::shared_ptr<CudnnContext> cudnn_;
  CudaKernelEnv env_;
};

// "CUDA call failed" as a Status: the call, the device and CUDA's own words.
Status CudaError(int error, const std::string& call, int device);

// For the kernels: the stream their backend's context carries, and a
// launch's error (0: none) as a Status naming the op, the node and the
// device.
cudaStream_t KernelStream(const ops::KernelContext& ctx);
Status KernelLaunched(int error, const ops::KernelContext& ctx, int device);

}  // namespace tfhost::backends::cuda
