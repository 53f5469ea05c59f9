#include "backends/cuda/cublaslt_matmul.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <utility>

namespace tfhost::backends::cuda {
namespace {

Status LtError(cublasStatus_t s, const std::string& call, int device) {
  return Internal(call + " on cuda:" + std::to_string(device) + " failed: " + cublasLtGetStatusString(s) + " (" +
                  std::to_string(static_cast<int>(s)) + ")");
}

#define TFHOST_LT_CALL(expr, what)                                              \
  do {                                                                          \
    if (cublasStatus_t lt_status = (expr); lt_status != CUBLAS_STATUS_SUCCESS)  \
      return LtError(lt_status, what, device_);                                 \
  } while (0)

// The descriptors of one call, destroyed with it.
struct Descriptors {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Descriptors() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

cublasStatus_t MakeLayout(cublasLtMatrixLayout_t* layout, int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                          int64_t batch_stride) {
  cublasStatus_t s = cublasLtMatrixLayoutCreate(layout, CUDA_R_32F, static_cast<uint64_t>(rows),
                                                static_cast<uint64_t>(cols), ld);
  if (s != CUBLAS_STATUS_SUCCESS || batch <= 1) return s;
  const int32_t count = static_cast<int32_t>(batch);
  s = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  return cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride,
                                          sizeof(batch_stride));
}

// The largest power of two, at most 256, that divides every address a call
// list gives for one operand: the heuristic may only pick algorithms that
// need no stricter alignment.
uint32_t Alignment(const void* base, const GemmPlan& plan, int64_t GemmPlan::Call::*offset) {
  uint64_t bits = reinterpret_cast<uintptr_t>(base) | 256;
  for (const GemmPlan::Call& c : plan.calls) {
    bits |= reinterpret_cast<uintptr_t>(static_cast<const float*>(base) + c.*offset);
  }
  return static_cast<uint32_t>(bits & (~bits + 1));
}

const char* EpilogueName(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::kNone: return "none";
    case GemmEpilogue::kBias: return "bias";
    case GemmEpilogue::kReluBias: return "relu_bias";
  }
  return "?";
}

}  // namespace

StatusOr<std::unique_ptr<CublasLtMatmul>> CublasLtMatmul::Create(int device, std::string device_key,
                                                                 Allocator* allocator) {
  std::unique_ptr<CublasLtMatmul> lt(new CublasLtMatmul());
  lt->device_ = device;
  lt->device_key_ = std::move(device_key);
  lt->allocator_ = allocator;
  cudaSetDevice(device);
  if (cublasStatus_t s = cublasLtCreate(&lt->handle_); s != CUBLAS_STATUS_SUCCESS) {
    return LtError(s, "cublasLtCreate", device);
  }
  const size_t v = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  lt->library_ = "cublasLt " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                 std::to_string(v % 100);
  return lt;
}

CublasLtMatmul::~CublasLtMatmul() {
  if (handle_) cublasLtDestroy(handle_);
}

StatusOr<void*> CublasLtMatmul::Workspace() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!workspace_.valid()) {
    auto ws = Tensor::Allocate(DType::kUInt8, Shape({static_cast<int64_t>(kWorkspaceBytes)}), allocator_);
    if (!ws.ok()) return ws.status();
    workspace_ = std::move(*ws);
  }
  return workspace_.raw_data();
}

Status CublasLtMatmul::Run(const GemmPlan& plan, const float* x, const float* y, const float* bias,
                           GemmEpilogue epilogue, bool allow_tf32, float* out, cudaStream_t stream) {
  if (plan.m == 0 || plan.n == 0 || plan.batch == 0) return OkStatus();
  TFHOST_ASSIGN_OR_RETURN(void* workspace, Workspace());
  cudaSetDevice(device_);
  Descriptors desc;
  TFHOST_LT_CALL(cublasLtMatmulDescCreate(&desc.op, allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                          CUDA_R_32F),
                 "cublasLtMatmulDescCreate");
  const int32_t ta = plan.a.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int32_t tb = plan.b.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  TFHOST_LT_CALL(cublasLtMatmulDescSetAttribute(desc.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)),
                 "setting TRANSA");
  TFHOST_LT_CALL(cublasLtMatmulDescSetAttribute(desc.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)),
                 "setting TRANSB");
  if (epilogue != GemmEpilogue::kNone) {
    const int32_t e = epilogue == GemmEpilogue::kReluBias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    TFHOST_LT_CALL(cublasLtMatmulDescSetAttribute(desc.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)),
                   "setting the epilogue");
    TFHOST_LT_CALL(cublasLtMatmulDescSetAttribute(desc.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
                   "setting the bias pointer");
  }
  TFHOST_LT_CALL(MakeLayout(&desc.a, plan.a.rows, plan.a.cols, plan.a.ld, plan.batch, plan.a.batch_stride),
                 "cublasLtMatrixLayoutCreate (A)");
  TFHOST_LT_CALL(MakeLayout(&desc.b, plan.b.rows, plan.b.cols, plan.b.ld, plan.batch, plan.b.batch_stride),
                 "cublasLtMatrixLayoutCreate (B)");
  TFHOST_LT_CALL(MakeLayout(&desc.d, plan.m, plan.n, plan.d_ld, plan.batch, plan.d_batch_stride),
                 "cublasLtMatrixLayoutCreate (D)");

  const uint32_t align_a = Alignment(y, plan, &GemmPlan::Call::y_offset);
  const uint32_t align_b = Alignment(x, plan, &GemmPlan::Call::x_offset);
  const uint32_t align_d = Alignment(out, plan, &GemmPlan::Call::out_offset);

  AlgorithmKey key;
  key.op = "matmul";
  key.dtypes = {DType::kFloat, DType::kFloat, DType::kFloat};
  key.layout = "column-major";
  key.shapes = {{plan.a.rows, plan.a.cols, plan.a.ld}, {plan.b.rows, plan.b.cols, plan.b.ld}, {plan.m, plan.n},
                {plan.batch}};
  key.attrs = std::string("ta=") + (plan.a.transpose ? "1" : "0") + ";tb=" + (plan.b.transpose ? "1" : "0") +
              ";epilogue=" + EpilogueName(epilogue) + ";math=" + (allow_tf32 ? "tf32" : "fp32") +
              ";align=" + std::to_string(align_a) + "," + std::to_string(align_b) + "," + std::to_string(align_d);
  key.device = device_key_;
  key.libraries = library_;
  const std::string key_text = key.ToString();

  cublasLtMatmulAlgo_t algo;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = algos_.find(key_text); it != algos_.end()) {
      std::memcpy(&algo, it->second.data(), sizeof(algo));
      known = true;
    }
  }
  if (!known) {
    TFHOST_LT_CALL(cublasLtMatmulPreferenceCreate(&desc.pref), "cublasLtMatmulPreferenceCreate");
    const uint64_t ws = kWorkspaceBytes;
    TFHOST_LT_CALL(cublasLtMatmulPreferenceSetAttribute(desc.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                        sizeof(ws)),
                   "setting the workspace cap");
    const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_d},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_d}};
    for (const auto& [attr, bytes] : aligns) {
      TFHOST_LT_CALL(cublasLtMatmulPreferenceSetAttribute(desc.pref, attr, &bytes, sizeof(bytes)),
                     "setting an operand's alignment");
    }
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    TFHOST_LT_CALL(cublasLtMatmulAlgoGetHeuristic(handle_, desc.op, desc.a, desc.b, desc.d, desc.d, desc.pref, 1,
                                                  &result, &found),
                   "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS) {
      return Unimplemented("cuBLASLt on cuda:" + std::to_string(device_) + " has no algorithm for " + key_text);
    }
    algo = result.algo;
    std::lock_guard<std::mutex> lock(mu_);
    algos_[key_text] = std::string(reinterpret_cast<const char*>(&algo), sizeof(algo));
  }

  const float alpha = 1.0f, beta = 0.0f;
  if (plan.calls.empty()) {
    // D doubles as C: with beta 0 it is never read.
    TFHOST_LT_CALL(cublasLtMatmul(handle_, desc.op, &alpha, y, desc.a, x, desc.b, &beta, out, desc.d, out, desc.d,
                                  &algo, workspace, kWorkspaceBytes, stream),
                   "cublasLtMatmul");
    return OkStatus();
  }
  for (const GemmPlan::Call& c : plan.calls) {
    TFHOST_LT_CALL(cublasLtMatmul(handle_, desc.op, &alpha, y + c.y_offset, desc.a, x + c.x_offset, desc.b, &beta,
                                  out + c.out_offset, desc.d, out + c.out_offset, desc.d, &algo, workspace,
                                  kWorkspaceBytes, stream),
                   "cublasLtMatmul");
  }
  return OkStatus();
}

}  // namespace tfhost::backends::cuda
