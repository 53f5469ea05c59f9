#include "backends/cuda/elementwise_kernels.h"

#include <cuda_runtime.h>

#include "backends/cuda/fused_program.h"
#include "backends/cuda/launch_grid.h"

namespace tfhost::backends::cuda {
namespace {

constexpr int kThreads = 256;

// Grid-stride loops: one launch shape serves every size, and the op is a
// kernel template argument so that each op compiles to its own tight loop.
template <UnaryOp kOp>
__global__ void UnaryKernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = ApplyUnary(kOp, x[i]);
  }
}

// The shape is passed by value: it lands in the kernel's parameter space,
// read by every thread without a global-memory load.
template <BinaryOp kOp>
__global__ void BinaryKernel(const float* __restrict__ a, const float* __restrict__ b, BinaryShape shape,
                             float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ia, ib;
    BroadcastOffsets(shape, i, &ia, &ib);
    y[i] = ApplyBinary(kOp, a[ia], b[ib]);
  }
}

template <UnaryOp kAct>
__global__ void BiasActivationKernel(float* __restrict__ y, const float* __restrict__ bias, int64_t channels,
                                     int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = ApplyBiasActivation(kAct, y[i], bias, i, channels);
  }
}

// The program arrives in the kernel's parameter space, read by every thread
// without a global-memory load.
__global__ void FusedKernel(FusedProgram program, FusedInputs inputs, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = EvalFused(program, inputs, i);
  }
}

unsigned Blocks(int64_t n) { return ElementBlocks(n, kThreads); }

template <UnaryOp kOp>
int RunUnary(const float* x, float* y, int64_t n, cudaStream_t s) {
  UnaryKernel<kOp><<<Blocks(n), kThreads, 0, s>>>(x, y, n);
  return static_cast<int>(cudaGetLastError());
}

template <BinaryOp kOp>
int RunBinary(const float* a, const float* b, const BinaryShape& shape, float* y, int64_t n, cudaStream_t s) {
  BinaryKernel<kOp><<<Blocks(n), kThreads, 0, s>>>(a, b, shape, y, n);
  return static_cast<int>(cudaGetLastError());
}

template <UnaryOp kAct>
int RunBiasActivation(float* y, const float* bias, int64_t channels, int64_t n, cudaStream_t s) {
  BiasActivationKernel<kAct><<<Blocks(n), kThreads, 0, s>>>(y, bias, channels, n);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int LaunchUnary(UnaryOp op, const float* x, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  switch (op) {
    case UnaryOp::kRelu: return RunUnary<UnaryOp::kRelu>(x, y, n, stream);
    case UnaryOp::kRelu6: return RunUnary<UnaryOp::kRelu6>(x, y, n, stream);
    case UnaryOp::kNeg: return RunUnary<UnaryOp::kNeg>(x, y, n, stream);
    case UnaryOp::kAbs: return RunUnary<UnaryOp::kAbs>(x, y, n, stream);
    case UnaryOp::kSquare: return RunUnary<UnaryOp::kSquare>(x, y, n, stream);
    case UnaryOp::kSigmoid: return RunUnary<UnaryOp::kSigmoid>(x, y, n, stream);
    case UnaryOp::kTanh: return RunUnary<UnaryOp::kTanh>(x, y, n, stream);
    case UnaryOp::kExp: return RunUnary<UnaryOp::kExp>(x, y, n, stream);
    case UnaryOp::kElu: return RunUnary<UnaryOp::kElu>(x, y, n, stream);
    case UnaryOp::kSelu: return RunUnary<UnaryOp::kSelu>(x, y, n, stream);
    case UnaryOp::kSoftplus: return RunUnary<UnaryOp::kSoftplus>(x, y, n, stream);
    case UnaryOp::kSoftsign: return RunUnary<UnaryOp::kSoftsign>(x, y, n, stream);
    case UnaryOp::kSqrt: return RunUnary<UnaryOp::kSqrt>(x, y, n, stream);
    case UnaryOp::kRsqrt: return RunUnary<UnaryOp::kRsqrt>(x, y, n, stream);
    case UnaryOp::kLog: return RunUnary<UnaryOp::kLog>(x, y, n, stream);
    case UnaryOp::kReciprocal: return RunUnary<UnaryOp::kReciprocal>(x, y, n, stream);
    case UnaryOp::kFloor: return RunUnary<UnaryOp::kFloor>(x, y, n, stream);
    case UnaryOp::kCeil: return RunUnary<UnaryOp::kCeil>(x, y, n, stream);
    case UnaryOp::kErf: return RunUnary<UnaryOp::kErf>(x, y, n, stream);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int LaunchBinary(BinaryOp op, const float* a, const float* b, const BinaryShape& shape, float* y, int64_t n,
                 cudaStream_t stream) {
  if (n == 0) return 0;
  switch (op) {
    case BinaryOp::kAdd: return RunBinary<BinaryOp::kAdd>(a, b, shape, y, n, stream);
    case BinaryOp::kSub: return RunBinary<BinaryOp::kSub>(a, b, shape, y, n, stream);
    case BinaryOp::kMul: return RunBinary<BinaryOp::kMul>(a, b, shape, y, n, stream);
    case BinaryOp::kRealDiv: return RunBinary<BinaryOp::kRealDiv>(a, b, shape, y, n, stream);
    case BinaryOp::kMaximum: return RunBinary<BinaryOp::kMaximum>(a, b, shape, y, n, stream);
    case BinaryOp::kMinimum: return RunBinary<BinaryOp::kMinimum>(a, b, shape, y, n, stream);
    case BinaryOp::kSquaredDifference:
      return RunBinary<BinaryOp::kSquaredDifference>(a, b, shape, y, n, stream);
    case BinaryOp::kPow: return RunBinary<BinaryOp::kPow>(a, b, shape, y, n, stream);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}


int LaunchFused(const FusedProgram& program, const FusedInputs& inputs, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  FusedKernel<<<Blocks(n), kThreads, 0, stream>>>(program, inputs, y, n);
  return static_cast<int>(cudaGetLastError());
}

int LaunchBiasActivation(UnaryOp act, float* y, const float* bias, int64_t channels, int64_t n,
                         cudaStream_t stream) {
  if (n == 0) return 0;
  switch (act) {
    case UnaryOp::kIdentity: return RunBiasActivation<UnaryOp::kIdentity>(y, bias, channels, n, stream);
    case UnaryOp::kRelu: return RunBiasActivation<UnaryOp::kRelu>(y, bias, channels, n, stream);
    case UnaryOp::kRelu6: return RunBiasActivation<UnaryOp::kRelu6>(y, bias, channels, n, stream);
    case UnaryOp::kElu: return RunBiasActivation<UnaryOp::kElu>(y, bias, channels, n, stream);
    case UnaryOp::kSigmoid: return RunBiasActivation<UnaryOp::kSigmoid>(y, bias, channels, n, stream);
    case UnaryOp::kTanh: return RunBiasActivation<UnaryOp::kTanh>(y, bias, channels, n, stream);
    case UnaryOp::kSwish: return RunBiasActivation<UnaryOp::kSwish>(y, bias, channels, n, stream);
    case UnaryOp::kGeluApproximate:
      return RunBiasActivation<UnaryOp::kGeluApproximate>(y, bias, channels, n, stream);
    case UnaryOp::kGeluExact: return RunBiasActivation<UnaryOp::kGeluExact>(y, bias, channels, n, stream);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace tfhost::backends::cuda
