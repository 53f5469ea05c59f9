// The CUDA backend's data-movement kernels (layout_kernels.cu): Transpose,
// ConcatV2, Slice, StridedSlice (every mask), Pad and PadV2 of any 1, 2, 4 or
// 8-byte dtype but int32, GatherV2 (batch_dims 0, int32 or int64 indices) and
// Cast among float32, float16, bfloat16, int32, int64 and bool. The index
// inputs (perm, axis, begin/end/strides/size, paddings, constant_values)
// are read in host memory; GatherV2's indices on the device, where a kernel
// checks them: an index outside [0, limit) fails the call, as TensorFlow's
// CPU kernel does, after a wait for the stream.
//
// int32 tensors are refused, as TensorFlow keeps them in host memory on a
// GPU: they are mostly shapes, and a shape computation moved to the device
// would copy back to the host at each Reshape.
//
// The launchers enqueue on `stream` and return the launch error
// (cudaSuccess = 0); `bytes` is the element size. layout_ops.h holds what
// cuda_kernels.cc registers around them.
//
// Thread-safety: kernels may run from several threads at once.
#pragma once

#include <cstdint>

#include "backends/cuda/layout_functors.h"

typedef struct CUstream_st* cudaStream_t;

namespace tfhost::backends::cuda {

int LaunchStridedGather(int bytes, const StridedGather& g, const void* x, void* y, cudaStream_t stream);
// `value` holds the constant's bits in its low `bytes` bytes.
int LaunchPad(int bytes, const PadIndexing& p, const void* x, uint64_t value, void* y, cudaStream_t stream);
// One ConcatV2 input of [outer, row] elements into columns [column, column + row) of [outer, out_row].
int LaunchConcatPiece(int bytes, const void* x, int64_t outer, int64_t row, int64_t out_row, int64_t column, void* y,
                      cudaStream_t stream);
// Sets *first_bad (device memory) to the position of the first bad index,
// or to ~0 where none is; bad ones write zeros.
int LaunchGatherV2(int bytes, bool indices64, const GatherIndexing& g, const void* params, const void* indices,
                   void* y, unsigned long long* first_bad, cudaStream_t stream);
int LaunchCast(CastType src, CastType dst, bool truncate, const void* x, void* y, int64_t n, cudaStream_t stream);

}  // namespace tfhost::backends::cuda
