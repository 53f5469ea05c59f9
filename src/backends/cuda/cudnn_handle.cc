#include "backends/cuda/cudnn_handle.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <utility>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/layout_kernels.h"
#include "ir/attrs.h"

namespace tfhost::backends::cuda {

CudnnContext::CudnnContext(int device, std::string device_key, Allocator* allocator, AlgorithmCache* algorithms,
                           bool exhaustive_search)
    : device_(device),
      device_key_(std::move(device_key)),
      allocator_(allocator),
      algorithms_(algorithms),
      exhaustive_search_(exhaustive_search) {
  // cuDNN 9 numbers its versions major * 10000 + minor * 100 + patch.
  const size_t v = cudnnGetVersion();
  library_ = "cudnn " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
             std::to_string(v % 100);
}

CudnnContext::~CudnnContext() {
  workspace_ = Tensor();
  if (handle_ != nullptr) {
    cudaSetDevice(device_);
    cudnnDestroy(handle_);
  }
}

StatusOr<CudnnContext::Lease> CudnnContext::Acquire(cudaStream_t stream, const ir::Node& node) {
  Lease lease;
  lease.lock_ = std::unique_lock<std::mutex>(mu_);
  cudaSetDevice(device_);
  if (handle_ == nullptr) {
    // Made on first use: creating a handle loads cuDNN's sub-libraries and
    // costs device memory, which a model without convolutions never needs.
    if (cudnnStatus_t s = cudnnCreate(&handle_); s != CUDNN_STATUS_SUCCESS) {
      handle_ = nullptr;
      return CudnnError(s, "cudnnCreate", node, device_);
    }
  }
  if (!workspace_.valid()) {
    auto ws = Tensor::Allocate(DType::kUInt8, Shape({static_cast<int64_t>(kWorkspaceBytes)}), allocator_);
    if (!ws.ok()) return AllocationError(ws.status(), "the cuDNN workspace", node);
    workspace_ = std::move(*ws);
  }
  if (cudnnStatus_t s = cudnnSetStream(handle_, stream); s != CUDNN_STATUS_SUCCESS) {
    return CudnnError(s, "cudnnSetStream", node, device_);
  }
  lease.handle_ = handle_;
  lease.workspace_ = workspace_.raw_data();
  return lease;
}

Status CudnnError(int status, const std::string& call, const ir::Node& node, int device) {
  const auto s = static_cast<cudnnStatus_t>(status);
  const StatusCode code = s == CUDNN_STATUS_ALLOC_FAILED ? StatusCode::kResourceExhausted : StatusCode::kInternal;
  return Status(code, ir::NodeContext(node) + ": " + call + " on cuda:" + std::to_string(device) +
                          " failed: " + cudnnGetErrorString(s) + " (" + std::to_string(status) + ")");
}

Status AllocationError(const Status& st, const std::string& what, const ir::Node& node) {
  return Status(st.code(), ir::NodeContext(node) + ": allocating " + what + ": " + st.message());
}

StatusOr<Tensor> PaddedCopy(const Tensor& x, const std::vector<int64_t>& paddings, uint32_t value_bits,
                            ops::KernelContext& ctx, int device) {
  bool any = false;
  for (int64_t p : paddings) any = any || p != 0;
  if (!any) return x;
  Shape padded;
  auto indexing = MakePadIndexing(x.shape(), paddings, &padded);
  if (!indexing.ok()) return Status(indexing.status().code(), ir::NodeContext(ctx.node()) + ": " + indexing.status().message());
  TFHOST_ASSIGN_OR_RETURN(Tensor y, ctx.AllocateOutput(DType::kFloat, padded));
  if (int e = LaunchPad(4, *indexing, x.raw_data(), value_bits, y.raw_data(), KernelStream(ctx)); e != 0) {
    return CudaError(e, "launching the padding kernel for node '" + ctx.node().name + "'", device);
  }
  return y;
}

}  // namespace tfhost::backends::cuda
