#include "backends/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "backends/cuda/broadcast_shape.h"
#include "backends/cuda/elementwise_kernels.h"
#include "ir/attrs.h"

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

StatusOr<std::unique_ptr<CudaBackend>> CudaBackend::Create(int device, const CudaBackendOptions& options) {
  if (options.memory_fraction <= 0 || options.memory_fraction > 1) {
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
  return b;
}

NodeSupport CudaBackend::Supports(const ir::Node& node) const {
  UnaryOp u;
  BinaryOp bop;
  const bool unary = UnaryOpOf(node.op.c_str(), &u);
  if (!unary && !BinaryOpOf(node.op.c_str(), &bop)) return NodeSupport::No(name_ + " has no kernel for " + node.op);
  auto t = ir::GetAttr<DType>(node, "T");
  if (!t.ok() || *t != DType::kFloat) return NodeSupport::No(name_ + "'s " + node.op + " kernel takes float32 only");
  return NodeSupport::Yes();
}

ops::KernelFn CudaBackend::MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const {
  if (!Supports(node).supported) return {};
  UnaryOp u = UnaryOp::kCount;
  BinaryOp bop = BinaryOp::kCount;
  const bool unary = UnaryOpOf(node.op.c_str(), &u);
  if (!unary) BinaryOpOf(node.op.c_str(), &bop);
  const int device = device_;
  return [device, unary, u, bop, fallback](ops::KernelContext& ctx) -> Status {
    cudaSetDevice(device);
    auto* stream = static_cast<CudaStream*>(ctx.stream());
    const Tensor& a = ctx.input(0);
    if (a.dtype() != DType::kFloat || (!unary && ctx.input(1).dtype() != DType::kFloat)) return fallback(ctx);
    Shape out_shape = a.shape();
    BinaryShape shape;
    if (!unary) {
      auto made = MakeBinaryShape(a.shape(), ctx.input(1).shape(), &out_shape);
      if (!made.ok()) return ctx.Error(made.status().message());
      shape = *made;
    }
    TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, out_shape));
    const int error = unary ? LaunchUnary(u, a.data<float>(), y.data<float>(), y.NumElements(), stream->get())
                            : LaunchBinary(bop, a.data<float>(), ctx.input(1).data<float>(), shape,
                                           y.data<float>(), y.NumElements(), stream->get());
    if (error != 0) return CudaError(error, "launching the " + ctx.node().op + " kernel", device);
    ctx.set_output(0, std::move(y));
    return OkStatus();
  };
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

}  // namespace tfhost::backends::cuda
