// The CUDA backend's matrix products on cuBLASLt: float32 GEMMs as a
// GemmPlan (gemm_plan.h) lays them out, with cuBLASLt's BIAS and RELU_BIAS
// epilogues. Other activations are the caller's (an element-wise kernel on
// the result), and so is GELU until a device run shows which GELU form the
// library's GELU_BIAS epilogue computes: the tanh form and the erf form
// differ by up to 4e-4, small enough to slip through a loose comparison.
//
// Algorithms come from cuBLASLt's heuristic, once per shape: the choice is
// kept under an AlgorithmKey that names the shapes, the transposes, the
// epilogue, the math mode, the device and the library version. One
// workspace of at most kWorkspaceBytes per backend serves every call; that is
// safe because every call is ordered on the backend's one stream.
//
// Thread-safety: Run may be called from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backends/algorithm_cache.h"
#include "backends/cuda/gemm_plan.h"
#include "base/allocator.h"
#include "base/tensor.h"

typedef struct CUstream_st* cudaStream_t;
typedef struct cublasLtContext* cublasLtHandle_t;

namespace tfhost::backends::cuda {

enum class GemmEpilogue { kNone, kBias, kReluBias };

class CublasLtMatmul {
 public:
  // NVIDIA's guidance for Hopper: 32 MiB lets every heuristic choice run.
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  // Errors name the device and the cuBLASLt call that failed.
  static StatusOr<std::unique_ptr<CublasLtMatmul>> Create(int device, std::string device_key,
                                                          Allocator* allocator);
  ~CublasLtMatmul();

  // out = x * y (as `plan` lays them out) [+ bias along the last dim]
  // [then Relu]. All pointers are float32 device memory of the backend's
  // device; `bias` has plan.m values, or is null for kNone. `allow_tf32`
  // lets the tensor cores round the operands to TF32 (TensorFlow's default).
  Status Run(const GemmPlan& plan, const float* x, const float* y, const float* bias, GemmEpilogue epilogue,
             bool allow_tf32, float* out, cudaStream_t stream);

  // "cublasLt 13.1.0".
  const std::string& library() const { return library_; }

 private:
  CublasLtMatmul() = default;
  StatusOr<void*> Workspace();

  int device_ = 0;
  std::string device_key_;
  std::string library_;
  Allocator* allocator_ = nullptr;
  cublasLtHandle_t handle_ = nullptr;

  std::mutex mu_;
  Tensor workspace_;                            // guarded by mu_ until made
  std::map<std::string, std::string> algos_;  // key -> cublasLtMatmulAlgo_t bytes; guarded by mu_
};

}  // namespace tfhost::backends::cuda
