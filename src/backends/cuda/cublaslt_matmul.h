// The CUDA backend's matrix products on cuBLASLt: float32 GEMMs as a
// GemmPlan (gemm_plan.h) lays them out, with cuBLASLt's BIAS and RELU_BIAS
// epilogues. Other activations are the caller's (an element-wise kernel on
// the result), and so is GELU until a device run shows which GELU form the
// library's GELU_BIAS epilogue computes: the tanh form and the erf form
// differ by up to 4e-4, small enough to slip through a loose comparison.
//
// Algorithms are chosen once per shape and kept in the backend's
// AlgorithmCache under an AlgorithmKey that names the shapes, the
// transposes, the epilogue, the math mode, the alignments, the device and
// the library version. A cublasLtMatmulAlgo_t is an opaque struct, so the
// cache keeps its bytes (AlgorithmChoice::blob) and its id for people. The
// choice is cuBLASLt's heuristic's first result, or with exhaustive search
// the fastest of its first kSearchCandidates, timed with CUDA events on the
// stream. Bytes from a cache file are rebuilt into an algo and checked with
// cublasLtMatmulAlgoCheck against the call's descriptors before first use in
// a process: a file from another build or driver may hold an algo this
// library no longer runs, and then a fresh choice replaces it. One workspace
// of at most kWorkspaceBytes per backend serves every call; that is safe
// because every call is ordered on the backend's one stream.
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
  // How many of the heuristic's results exhaustive search times.
  static constexpr int kSearchCandidates = 8;

  // Errors name the device and the cuBLASLt call that failed. `algorithms`
  // (the backend's, shared with the other GPUs) outlives the object;
  // `exhaustive_search` times candidates instead of taking the heuristic's
  // first.
  static StatusOr<std::unique_ptr<CublasLtMatmul>> Create(int device, std::string device_key,
                                                          Allocator* allocator, AlgorithmCache* algorithms,
                                                          bool exhaustive_search);
  ~CublasLtMatmul();

  // out = x * y (as `plan` lays them out) [+ bias along the last dim]
  // [then Relu]. All pointers are float32 device memory of the backend's
  // device; `bias` has plan.m values, or is null for kNone. `allow_tf32`
  // lets the tensor cores round the operands to TF32 (TensorFlow's default).
  // With exhaustive search, the first call of a shape runs the product
  // several times (into `out`) and waits for the stream.
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
  AlgorithmCache* algorithms_ = nullptr;
  bool exhaustive_search_ = false;
  cublasLtHandle_t handle_ = nullptr;

  std::mutex mu_;
  Tensor workspace_;  // guarded by mu_ until made
  // key -> cublasLtMatmulAlgo_t bytes this process chose or checked, so
  // that a choice is checked once, not on every call; guarded by mu_.
  std::map<std::string, std::string> checked_;
};

}  // namespace tfhost::backends::cuda
