#include "backends/cuda/cublaslt_matmul.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_backend.h"

namespace tfhost::backends::cuda {
namespace {

Status LtError(cublasStatus_t s, const std::string& call, int device) {
  return Internal(call + " on cuda:" + std::to_string(device) + " failed: " + cublasLtGetStatusString(s) + " (" +
                  std::to_string(static_cast<int>(s)) + ")");
}

#define TFHOST_LT_CHECK(expr, what, device)                                     \
  do {                                                                          \
    if (cublasStatus_t lt_status = (expr); lt_status != CUBLAS_STATUS_SUCCESS)  \
      return LtError(lt_status, what, device);                                  \
  } while (0)
#define TFHOST_LT_CALL(expr, what) TFHOST_LT_CHECK(expr, what, device_)

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

// The operands of one cublasLtMatmul: A, B and D (which doubles as C: with
// beta 0 it is never read).
struct Operands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* d = nullptr;
};

// What choosing an algorithm for one call sees.
struct Call {
  cublasLtHandle_t handle = nullptr;
  int device = 0;
  Descriptors* desc = nullptr;
  uint32_t align_a = 0, align_b = 0, align_d = 0;
  Operands first;  // the plan's first product, which exhaustive search runs
  void* workspace = nullptr;
  cudaStream_t stream = nullptr;
  const std::string* key = nullptr;  // for messages
};

cublasStatus_t Launch(const Call& call, const cublasLtMatmulAlgo_t& algo, const Operands& o) {
  const float alpha = 1.0f, beta = 0.0f;
  const Descriptors& d = *call.desc;
  return cublasLtMatmul(call.handle, d.op, &alpha, o.a, d.a, o.b, d.b, &beta, o.d, d.d, o.d, d.d, &algo,
                        call.workspace, CublasLtMatmul::kWorkspaceBytes, call.stream);
}

Status NoAlgorithm(const Call& call) {
  return Unimplemented("cuBLASLt on cuda:" + std::to_string(call.device) + " has no algorithm for " + *call.key);
}

// Up to `count` of the heuristic's results, best first, leaving out those
// that cannot run within the workspace.
StatusOr<std::vector<cublasLtMatmulHeuristicResult_t>> HeuristicResults(const Call& call, int count) {
  Descriptors& desc = *call.desc;
  if (desc.pref == nullptr) {
    TFHOST_LT_CHECK(cublasLtMatmulPreferenceCreate(&desc.pref), "cublasLtMatmulPreferenceCreate", call.device);
    const uint64_t ws = CublasLtMatmul::kWorkspaceBytes;
    TFHOST_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(desc.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                         sizeof(ws)),
                    "setting the workspace cap", call.device);
    const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, call.align_a},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, call.align_b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, call.align_d},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, call.align_d}};
    for (const auto& [attr, bytes] : aligns) {
      TFHOST_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(desc.pref, attr, &bytes, sizeof(bytes)),
                      "setting an operand's alignment", call.device);
    }
  }
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(count));
  int found = 0;
  TFHOST_LT_CHECK(cublasLtMatmulAlgoGetHeuristic(call.handle, desc.op, desc.a, desc.b, desc.d, desc.d, desc.pref,
                                                 count, results.data(), &found),
                  "cublasLtMatmulAlgoGetHeuristic", call.device);
  results.resize(static_cast<size_t>(found));
  std::erase_if(results, [](const cublasLtMatmulHeuristicResult_t& r) {
    return r.state != CUBLAS_STATUS_SUCCESS || r.workspaceSize > CublasLtMatmul::kWorkspaceBytes;
  });
  return results;
}

// An entry for the cache: the algo's bytes, and its id for people reading
// the file.
AlgorithmChoice ChoiceOf(const cublasLtMatmulAlgo_t& algo, size_t workspace, double micros) {
  AlgorithmChoice c;
  int32_t id = -1;
  size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &written) ==
      CUBLAS_STATUS_SUCCESS) {
    c.algorithm = id;
  }
  c.workspace_bytes = static_cast<int64_t>(workspace);
  c.micros = micros;
  c.blob.assign(reinterpret_cast<const char*>(&algo), sizeof(algo));
  return c;
}

// Whether an algo rebuilt from a cache still runs this call within the
// workspace. The key names the operands' alignments, so the algo was chosen
// for the same ones; cublasLtMatmulAlgoCheck checks the rest (descriptors,
// device, what this library build supports).
bool StillRuns(const Call& call, const cublasLtMatmulAlgo_t& algo) {
  const Descriptors& d = *call.desc;
  cublasLtMatmulHeuristicResult_t result{};
  return cublasLtMatmulAlgoCheck(call.handle, d.op, d.a, d.b, d.d, d.d, &algo, &result) == CUBLAS_STATUS_SUCCESS &&
         result.workspaceSize <= CublasLtMatmul::kWorkspaceBytes;
}

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Events() {
    if (stop) cudaEventDestroy(stop);
    if (start) cudaEventDestroy(start);
  }
};

// Microseconds per product of `algo` on the first operands: one run to warm
// up, then the mean of a few between two events on the stream (so the
// stream's earlier work is not counted). Empty where the algo fails to run.
StatusOr<std::optional<double>> TimeMicros(const Call& call, const cublasLtMatmulAlgo_t& algo) {
  constexpr int kTimedRuns = 3;
  if (Launch(call, algo, call.first) != CUBLAS_STATUS_SUCCESS) return std::optional<double>();
  Events ev;
  if (cudaError_t e = cudaEventCreate(&ev.start); e != cudaSuccess) return CudaError(e, "cudaEventCreate", call.device);
  if (cudaError_t e = cudaEventCreate(&ev.stop); e != cudaSuccess) return CudaError(e, "cudaEventCreate", call.device);
  if (cudaError_t e = cudaEventRecord(ev.start, call.stream); e != cudaSuccess) {
    return CudaError(e, "cudaEventRecord", call.device);
  }
  for (int i = 0; i < kTimedRuns; ++i) {
    if (Launch(call, algo, call.first) != CUBLAS_STATUS_SUCCESS) return std::optional<double>();
  }
  if (cudaError_t e = cudaEventRecord(ev.stop, call.stream); e != cudaSuccess) {
    return CudaError(e, "cudaEventRecord", call.device);
  }
  if (cudaError_t e = cudaEventSynchronize(ev.stop); e != cudaSuccess) {
    return CudaError(e, "cudaEventSynchronize (timing cuBLASLt algorithms)", call.device);
  }
  float ms = 0;
  if (cudaError_t e = cudaEventElapsedTime(&ms, ev.start, ev.stop); e != cudaSuccess) {
    return CudaError(e, "cudaEventElapsedTime", call.device);
  }
  return std::optional<double>(static_cast<double>(ms) * 1000.0 / kTimedRuns);
}

// Exhaustive search: the fastest of the heuristic's first candidates.
StatusOr<AlgorithmChoice> Search(const Call& call) {
  TFHOST_ASSIGN_OR_RETURN(auto results, HeuristicResults(call, CublasLtMatmul::kSearchCandidates));
  if (results.empty()) return NoAlgorithm(call);
  std::optional<AlgorithmChoice> best;
  for (const cublasLtMatmulHeuristicResult_t& r : results) {
    TFHOST_ASSIGN_OR_RETURN(std::optional<double> micros, TimeMicros(call, r.algo));
    if (micros.has_value() && (!best.has_value() || *micros < best->micros)) {
      best = ChoiceOf(r.algo, r.workspaceSize, *micros);
    }
  }
  if (!best.has_value()) {
    return Internal("cuBLASLt on cuda:" + std::to_string(call.device) + ": none of the heuristic's " +
                    std::to_string(results.size()) + " algorithms ran for " + *call.key);
  }
  return *best;
}

// The call's algorithm as the bytes of a cublasLtMatmulAlgo_t: the cache's
// where it still runs here, else a fresh choice, which the cache records
// (replacing an entry that no longer runs, measured or not).
StatusOr<std::string> ChooseAlgorithm(const Call& call, const AlgorithmKey& key, AlgorithmCache& cache,
                                      bool exhaustive) {
  bool stale = false;
  if (auto cached = cache.Lookup(key, CublasLtMatmul::kWorkspaceBytes, /*need_measured=*/exhaustive)) {
    cublasLtMatmulAlgo_t algo;
    if (cached->blob.size() == sizeof(algo)) {
      std::memcpy(&algo, cached->blob.data(), sizeof(algo));
      if (StillRuns(call, algo)) return cached->blob;
    }
    stale = true;
  }
  AlgorithmChoice choice;
  if (exhaustive) {
    TFHOST_ASSIGN_OR_RETURN(choice, Search(call));
  } else {
    TFHOST_ASSIGN_OR_RETURN(auto results, HeuristicResults(call, 1));
    if (results.empty()) return NoAlgorithm(call);
    choice = ChoiceOf(results[0].algo, results[0].workspaceSize, -1);
  }
  if (stale) {
    cache.Replace(key, choice);
  } else {
    cache.Insert(key, choice);
  }
  return choice.blob;
}

}  // namespace

StatusOr<std::unique_ptr<CublasLtMatmul>> CublasLtMatmul::Create(int device, std::string device_key,
                                                                 Allocator* allocator, AlgorithmCache* algorithms,
                                                                 bool exhaustive_search) {
  std::unique_ptr<CublasLtMatmul> lt(new CublasLtMatmul());
  lt->device_ = device;
  lt->device_key_ = std::move(device_key);
  lt->allocator_ = allocator;
  lt->algorithms_ = algorithms;
  lt->exhaustive_search_ = exhaustive_search;
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

  Call call;
  call.handle = handle_;
  call.device = device_;
  call.desc = &desc;
  call.align_a = align_a;
  call.align_b = align_b;
  call.align_d = align_d;
  call.first = {y, x, out};
  if (!plan.calls.empty()) {
    const GemmPlan::Call& c = plan.calls.front();
    call.first = {y + c.y_offset, x + c.x_offset, out + c.out_offset};
  }
  call.workspace = workspace;
  call.stream = stream;
  call.key = &key_text;

  std::string bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = checked_.find(key_text); it != checked_.end()) bytes = it->second;
  }
  if (bytes.empty()) {
    // Two threads may choose the same shape at once; both choices are
    // valid, and the cache keeps one.
    TFHOST_ASSIGN_OR_RETURN(bytes, ChooseAlgorithm(call, key, *algorithms_, exhaustive_search_));
    std::lock_guard<std::mutex> lock(mu_);
    checked_[key_text] = bytes;
  }
  cublasLtMatmulAlgo_t algo;
  std::memcpy(&algo, bytes.data(), sizeof(algo));

  if (plan.calls.empty()) {
    TFHOST_LT_CALL(Launch(call, algo, call.first), "cublasLtMatmul");
    return OkStatus();
  }
  for (const GemmPlan::Call& c : plan.calls) {
    TFHOST_LT_CALL(Launch(call, algo, {y + c.y_offset, x + c.x_offset, out + c.out_offset}), "cublasLtMatmul");
  }
  return OkStatus();
}

}  // namespace tfhost::backends::cuda
