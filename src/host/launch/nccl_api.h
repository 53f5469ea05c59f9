// The slice of NCCL and of the CUDA runtime that `tfhost bench allreduce
// --backend nccl` uses, loaded at run time with dlopen (libnccl.so.2 and
// libcudart.so.13 / .12 / .11.0), so tfhost builds and runs on machines without
// CUDA: there the loader returns a Status saying which library is missing.
//
// No NCCL or CUDA header is installable on the build machines, so the few
// types and values are declared here from the libraries' public API, each
// with where it comes from:
//   NCCL: NVIDIA/nccl src/nccl.h.in (ncclResult_t, ncclDataType_t,
//         ncclRedOp_t, NCCL_UNIQUE_ID_BYTES, ncclUniqueId, the prototypes of
//         ncclGetVersion, ncclGetUniqueId, ncclCommInitRank, ncclCommDestroy,
//         ncclCommAbort, ncclCommGetAsyncError, ncclGetErrorString,
//         ncclGetLastError, ncclAllReduce).
//   CUDA: the CUDA Runtime API reference (docs.nvidia.com/cuda/cuda-runtime-api,
//         driver_types.h: cudaError values, cudaMemcpyKind values; the
//         prototypes of cudaGetDeviceCount, cudaSetDevice, cudaMalloc,
//         cudaFree, cudaMemcpy, cudaStreamCreate/Destroy/Query,
//         cudaEventCreate/Destroy/Record/Synchronize/ElapsedTime,
//         cudaDeviceGetPCIBusId, cudaGetErrorString, cudaRuntimeGetVersion,
//         cudaDriverGetVersion). cudaStream_t and cudaEvent_t are opaque
//         pointers (struct CUstream_st*, struct CUevent_st*), held as void*.
// Every value was cross-checked against nccl.h (NCCL 2.28) and
// driver_types.h / cuda_runtime_api.h (CUDA 13.0) of a CUDA install.
// C enums are int-sized on every ABI NCCL supports, so they travel as int.
//
// The table of function pointers is also the seam for tests: a test fills it
// with fakes (no GPU needed) to drive the error paths and the benchmark loop.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

// ncclResult_t (nccl.h.in).
enum NcclResult : int {
  kNcclSuccess = 0,
  kNcclUnhandledCudaError = 1,
  kNcclSystemError = 2,
  kNcclInternalError = 3,
  kNcclInvalidArgument = 4,
  kNcclInvalidUsage = 5,
  kNcclRemoteError = 6,
  kNcclInProgress = 7,
  kNcclTimeout = 8,  // NCCL 2.27+; older versions never return it
};

// ncclDataType_t: ncclFloat32 = ncclFloat = 7 (nccl.h.in).
constexpr int kNcclFloat32 = 7;
// ncclRedOp_t: ncclSum = 0 (nccl.h.in).
constexpr int kNcclSum = 0;

// NCCL_UNIQUE_ID_BYTES and ncclUniqueId (nccl.h.in): an opaque 128-byte
// struct that ncclCommInitRank takes by value.
constexpr size_t kNcclUniqueIdBytes = 128;
struct NcclUniqueId {
  char internal[kNcclUniqueIdBytes];
};
static_assert(sizeof(NcclUniqueId) == kNcclUniqueIdBytes);

using NcclComm = struct ncclComm*;  // ncclComm_t, opaque

// cudaError_t values (driver_types.h): cudaSuccess = 0,
// cudaErrorInsufficientDriver = 35, cudaErrorNoDevice = 100,
// cudaErrorNotReady = 600 (what cudaStreamQuery returns while work is pending).
constexpr int kCudaSuccess = 0;
constexpr int kCudaErrorInsufficientDriver = 35;
constexpr int kCudaErrorNoDevice = 100;
constexpr int kCudaErrorNotReady = 600;

// cudaMemcpyKind (driver_types.h): HostToHost 0, HostToDevice 1,
// DeviceToHost 2, DeviceToDevice 3, Default 4.
constexpr int kCudaMemcpyHostToDevice = 1;
constexpr int kCudaMemcpyDeviceToHost = 2;

// Pointers into the loaded libraries (or fakes). Every pointer except the
// ones marked optional is non-null in a table LoadNcclApi returns.
struct NcclApi {
  // NCCL
  int (*nccl_get_version)(int* version) = nullptr;
  int (*nccl_get_unique_id)(NcclUniqueId* id) = nullptr;
  int (*nccl_comm_init_rank)(NcclComm* comm, int nranks, NcclUniqueId id, int rank) = nullptr;
  int (*nccl_comm_destroy)(NcclComm comm) = nullptr;
  int (*nccl_comm_abort)(NcclComm comm) = nullptr;
  int (*nccl_comm_get_async_error)(NcclComm comm, int* async_error) = nullptr;
  const char* (*nccl_get_error_string)(int result) = nullptr;
  const char* (*nccl_get_last_error)(NcclComm comm) = nullptr;  // optional: NCCL 2.13+
  int (*nccl_all_reduce)(const void* send, void* recv, size_t count, int datatype, int op, NcclComm comm,
                         void* stream) = nullptr;
  // CUDA runtime
  int (*cuda_get_device_count)(int* count) = nullptr;
  int (*cuda_set_device)(int device) = nullptr;
  int (*cuda_malloc)(void** ptr, size_t bytes) = nullptr;
  int (*cuda_free)(void* ptr) = nullptr;
  int (*cuda_memcpy)(void* dst, const void* src, size_t bytes, int kind) = nullptr;
  int (*cuda_stream_create)(void** stream) = nullptr;
  int (*cuda_stream_destroy)(void* stream) = nullptr;
  int (*cuda_stream_query)(void* stream) = nullptr;
  int (*cuda_event_create)(void** event) = nullptr;
  int (*cuda_event_destroy)(void* event) = nullptr;
  int (*cuda_event_record)(void* event, void* stream) = nullptr;
  int (*cuda_event_synchronize)(void* event) = nullptr;
  int (*cuda_event_elapsed_time)(float* ms, void* start, void* end) = nullptr;
  int (*cuda_device_get_pci_bus_id)(char* bus_id, int len, int device) = nullptr;  // optional
  const char* (*cuda_get_error_string)(int error) = nullptr;
  int (*cuda_runtime_get_version)(int* version) = nullptr;  // optional
  int (*cuda_driver_get_version)(int* version) = nullptr;   // optional

  std::string nccl_library;   // the file that was loaded, for messages
  std::string cudart_library;
};

// Where to look. Defaults: $TFHOST_NCCL_LIBRARY or libnccl.so.2, libnccl.so;
// $TFHOST_CUDART_LIBRARY or libcudart.so.13, .12, .11.0, libcudart.so
// (the dynamic linker's search path: LD_LIBRARY_PATH, ld.so.cache).
struct NcclLibraryNames {
  std::vector<std::string> nccl;
  std::vector<std::string> cudart;
};
NcclLibraryNames DefaultNcclLibraryNames();

// Loads both libraries and resolves every symbol. NotFound names each file
// tried (with dlerror's reason) and what to install; a missing symbol names
// the symbol and the library (too old a version). The libraries stay loaded
// for the life of the process (CUDA does not support being unloaded).
StatusOr<std::shared_ptr<const NcclApi>> LoadNcclApi(const NcclLibraryNames& names = DefaultNcclLibraryNames());

// "cudaMalloc of 8 bytes: out of memory (cudaError 2)"; OK for kCudaSuccess.
Status CudaStatus(const NcclApi& api, int error, const std::string& what);
// "ncclCommInitRank: unhandled system error (ncclResult 2): <last error>";
// OK for kNcclSuccess. `comm` may be null.
Status NcclStatus(const NcclApi& api, int result, const std::string& what, NcclComm comm = nullptr);

// NCCL's version code as "2.18.3" (codes >= 10000 are X*10000+Y*100+Z,
// older ones X*1000+Y*100+Z, per NCCL_VERSION in nccl.h.in).
std::string NcclVersionString(int code);

}  // namespace tfhost::host::launch
