#include "backends/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "backends/view_ops.h"


namespace tfhost::backends::cuda {
namespace {

// cudaMalloc'd regions of one device for the BfcAllocator.
class CudaRegionSource : public RegionSource {
 public:
  explicit CudaRegionSource(int device) : device_(device) {}
  std::string name() const override { return "cuda:" + std::to_string(device_); }
  MemorySpace space() const override { return MemorySpace::Device(device_); }
  StatusOr<void*> AllocateRegion(size_t bytes) override {
    cudaSetDevice(device_);
    void* p = nullptr;
    if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
      cudaGetLastError();  // clears the sticky-free error so later calls are unaffected
      return CudaError(e, "cudaMalloc(" + std::to_string(bytes) + ")", device_);
    }
    return p;
  }
  void FreeRegion(void* ptr, size_t) override {
    cudaSetDevice(device_);
    cudaFree(ptr);
  }
  Status Copy(void* dst, const void* src, size_t bytes) override {
    cudaSetDevice(device_);
    if (cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice); e != cudaSuccess) {
      return CudaError(e, "cudaMemcpy device to device", device_);
    }
    return OkStatus();
  }

 private:
  int device_;
};

std::string GiB(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

Status CudaError(int error, const std::string& call, int device) {
  const auto e = static_cast<cudaError_t>(error);
  const StatusCode code = e == cudaErrorMemoryAllocation ? StatusCode::kResourceExhausted : StatusCode::kInternal;
  return Status(code, call + " on cuda:" + std::to_string(device) + " failed: " + cudaGetErrorString(e) + " (" +
                          cudaGetErrorName(e) + ")");
}

CudaStream::~CudaStream() {
  cudaSetDevice(device_);
  cudaStreamDestroy(stream_);
}

Status CudaStream::Synchronize() {
  cudaSetDevice(device_);
  if (cudaError_t e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
    return CudaError(e, "cudaStreamSynchronize", device_);
  }
  return OkStatus();
}

CudaBackend::~CudaBackend() {
  // The plugin's GPUs share the file; each one leaving writes what all of
  // them added so far (SaveIfChanged writes nothing twice), and the last
  // one's reference flushes the rest.
  if (algorithms_ != nullptr) (void)algorithms_->SaveIfChanged();
}

StatusOr<std::unique_ptr<CudaBackend>> CudaBackend::Create(int device, const CudaBackendOptions& options,
                                                           std::shared_ptr<AlgorithmCacheFile> algorithms) {
  if (algorithms == nullptr) return InvalidArgument("cuda:" + std::to_string(device) + ": no algorithm cache");
  if (!(options.memory_fraction > 0 && options.memory_fraction <= 1)) {
    return InvalidArgument("cuda:" + std::to_string(device) + ": memory fraction must be in (0, 1], got " +
                           std::to_string(options.memory_fraction));
  }
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return CudaError(e, "cudaSetDevice", device);
  cudaDeviceProp prop;
  if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    return CudaError(e, "cudaGetDeviceProperties", device);
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes); e != cudaSuccess) {
    return CudaError(e, "cudaMemGetInfo", device);
  }
  cudaStream_t raw = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking); e != cudaSuccess) {
    return CudaError(e, "cudaStreamCreateWithFlags", device);
  }
  std::unique_ptr<CudaBackend> b(new CudaBackend());
  b->device_ = device;
  b->name_ = "cuda:" + std::to_string(device);
  b->stream_ = std::make_unique<CudaStream>(device, raw);
  BfcOptions bfc;
  bfc.memory_limit = static_cast<int64_t>(static_cast<double>(free_bytes) * options.memory_fraction);
  bfc.allow_growth = options.allow_growth;
  bfc.alignment = 256;
  bfc.min_region_bytes = size_t{64} << 20;
  auto allocator = BfcAllocator::Create(std::make_unique<CudaRegionSource>(device), bfc);
  if (!allocator.ok()) return allocator.status();
  b->allocator_ = std::move(*allocator);
  b->capabilities_.asynchronous = true;
  b->capabilities_.native_fp16 = prop.major >= 7;
  b->capabilities_.native_bf16 = prop.major >= 8;
  b->description_ = std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
                    ", " + GiB(static_cast<double>(total_bytes)) + ", limit " +
                    GiB(static_cast<double>(bfc.memory_limit));
  const std::string device_key = std::string(prop.name) + " sm_" + std::to_string(prop.major) +
                                 std::to_string(prop.minor);
  b->algorithms_ = std::move(algorithms);
  auto matmul = CublasLtMatmul::Create(device, device_key, b->allocator_.get(), &b->algorithms_->cache(),
                                       options.exhaustive_search);
  if (!matmul.ok()) return matmul.status();
  b->matmul_ = std::move(*matmul);
  b->env_.device = device;
  b->env_.backend_name = b->name_;
  b->env_.matmul = b->matmul_.get();
#ifdef TFHOST_CUDA_CUDNN
  b->cudnn_ = std::make_shared<CudnnContext>(device, device_key, b->allocator_.get(), &b->algorithms_->cache(),
                                             options.exhaustive_search);
  b->env_.cudnn = b->cudnn_.get();
#endif
  b->env_.allow_tf32 = options.allow_tf32;
  return b;
}

std::optional<DeviceMemoryStats> CudaBackend::device_memory() const {
  const BfcStats bfc = allocator_->bfc_stats();
  return DeviceMemoryStats{bfc.allocator, bfc.bytes_reserved};
}

NodeSupport CudaBackend::Supports(const ir::Node& node) const { return CudaSupports(env_, node); }

bool CudaBackend::InputInHostMemory(const ir::Node& node, int index) const {
  return CudaInputInHostMemory(node, index);
}

ops::KernelFn CudaBackend::MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const {
  return MakeCudaKernel(env_, node, fallback);
}

StatusOr<Tensor> CudaBackend::CopyIn(const Tensor& src) const {
  TFHOST_ASSIGN_OR_RETURN(Tensor dst, Tensor::Allocate(src.dtype(), src.shape(), allocator_.get()));
  cudaSetDevice(device_);
  // From pageable memory the call returns once the bytes are staged, so
  // `src` may go away; later work on the stream sees the copy.
  if (cudaError_t e = cudaMemcpyAsync(dst.raw_data(), src.raw_data(), src.ByteSize(), cudaMemcpyHostToDevice,
                                      stream_->get());
      e != cudaSuccess) {
    return CudaError(e, "cudaMemcpyAsync host to device (" + std::to_string(src.ByteSize()) + " bytes)", device_);
  }
  return dst;
}

StatusOr<Tensor> CudaBackend::CopyOut(const Tensor& src) const {
  Tensor dst = Tensor::Uninitialized(src.dtype(), src.shape());
  cudaSetDevice(device_);
  if (cudaError_t e = cudaMemcpyAsync(dst.raw_data(), src.raw_data(), src.ByteSize(), cudaMemcpyDeviceToHost,
                                      stream_->get());
      e != cudaSuccess) {
    return CudaError(e, "cudaMemcpyAsync device to host (" + std::to_string(src.ByteSize()) + " bytes)", device_);
  }
  TFHOST_RETURN_IF_ERROR(stream_->Synchronize());
  return dst;
}

cudaStream_t KernelStream(const ops::KernelContext& ctx) { return static_cast<CudaStream*>(ctx.stream())->get(); }

Status KernelLaunched(int error, const ops::KernelContext& ctx, int device) {
  if (error == 0) return OkStatus();
  return CudaError(error, "launching the " + ctx.node().op + " kernel for node '" + ctx.node().name + "'", device);
}

}  // namespace tfhost::backends::cuda
