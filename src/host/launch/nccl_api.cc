#include "host/launch/nccl_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace tfhost::host::launch {

namespace {

std::vector<std::string> NamesFrom(const char* env_var, std::vector<std::string> defaults) {
  if (const char* v = std::getenv(env_var); v != nullptr && *v != '\0') return {v};
  return defaults;
}

// dlopen of the first name that loads; NotFound lists each try and why.
StatusOr<std::pair<void*, std::string>> OpenFirst(const std::vector<std::string>& names, const std::string& what,
                                                  const std::string& hint) {
  std::string tried;
  for (const std::string& name : names) {
    // RTLD_LOCAL: tfhost links nothing of CUDA, and keeping the symbols
    // private avoids clashing with a CUDA a Python host process loads.
    void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) return std::make_pair(handle, name);
    const char* why = ::dlerror();
    tried += "\n  " + name + ": " + (why != nullptr ? why : "not found");
  }
  return NotFound(what + " could not be loaded; tried:" + tried + "\n" + hint);
}

template <typename Fn>
Status Resolve(void* handle, const std::string& library, const char* symbol, Fn* out, bool optional = false) {
  ::dlerror();
  void* p = ::dlsym(handle, symbol);
  if (p == nullptr && !optional) {
    return NotFound(library + " has no symbol " + symbol + ": it is too old or not the real library (need NCCL 2.x "
                    "and CUDA runtime 11, 12 or 13)");
  }
  *out = reinterpret_cast<Fn>(p);
  return OkStatus();
}

}  // namespace

NcclLibraryNames DefaultNcclLibraryNames() {
  NcclLibraryNames n;
  n.nccl = NamesFrom("TFHOST_NCCL_LIBRARY", {"libnccl.so.2", "libnccl.so"});
  n.cudart = NamesFrom("TFHOST_CUDART_LIBRARY", {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"});
  return n;
}

StatusOr<std::shared_ptr<const NcclApi>> LoadNcclApi(const NcclLibraryNames& names) {
  auto api = std::make_shared<NcclApi>();
  // CUDA first: without a runtime NCCL is of no use, and its absence is the
  // more common (and more fundamental) thing to report.
  TFHOST_ASSIGN_OR_RETURN(auto cudart,
                          OpenFirst(names.cudart, "the CUDA runtime (libcudart)",
                                    "expected the CUDA 11, 12 or 13 runtime: install the CUDA toolkit or the "
                                    "nvidia-cuda-runtime-cu12 wheel and add its lib folder to LD_LIBRARY_PATH, or "
                                    "name the file in TFHOST_CUDART_LIBRARY"));
  TFHOST_ASSIGN_OR_RETURN(auto nccl,
                          OpenFirst(names.nccl, "NCCL (libnccl.so.2)",
                                    "expected NCCL 2.x: install libnccl2 from NVIDIA's CUDA repository or the "
                                    "nvidia-nccl-cu12 wheel and add its lib folder to LD_LIBRARY_PATH, or name the "
                                    "file in TFHOST_NCCL_LIBRARY"));
  void* c = cudart.first;
  const std::string& cl = cudart.second;
  api->cudart_library = cl;
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaGetDeviceCount", &api->cuda_get_device_count));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaSetDevice", &api->cuda_set_device));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaMalloc", &api->cuda_malloc));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaFree", &api->cuda_free));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaMemcpy", &api->cuda_memcpy));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaStreamCreate", &api->cuda_stream_create));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaStreamDestroy", &api->cuda_stream_destroy));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaStreamQuery", &api->cuda_stream_query));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaEventCreate", &api->cuda_event_create));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaEventDestroy", &api->cuda_event_destroy));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaEventRecord", &api->cuda_event_record));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaEventSynchronize", &api->cuda_event_synchronize));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaEventElapsedTime", &api->cuda_event_elapsed_time));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaGetErrorString", &api->cuda_get_error_string));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaDeviceGetPCIBusId", &api->cuda_device_get_pci_bus_id, true));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaRuntimeGetVersion", &api->cuda_runtime_get_version, true));
  TFHOST_RETURN_IF_ERROR(Resolve(c, cl, "cudaDriverGetVersion", &api->cuda_driver_get_version, true));

  void* n = nccl.first;
  const std::string& nl = nccl.second;
  api->nccl_library = nl;
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclGetVersion", &api->nccl_get_version));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclGetUniqueId", &api->nccl_get_unique_id));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclCommInitRank", &api->nccl_comm_init_rank));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclCommDestroy", &api->nccl_comm_destroy));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclCommAbort", &api->nccl_comm_abort));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclCommGetAsyncError", &api->nccl_comm_get_async_error));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclGetErrorString", &api->nccl_get_error_string));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclGetLastError", &api->nccl_get_last_error, true));
  TFHOST_RETURN_IF_ERROR(Resolve(n, nl, "ncclAllReduce", &api->nccl_all_reduce));
  return std::shared_ptr<const NcclApi>(std::move(api));
}

Status CudaStatus(const NcclApi& api, int error, const std::string& what) {
  if (error == kCudaSuccess) return OkStatus();
  const char* text = api.cuda_get_error_string != nullptr ? api.cuda_get_error_string(error) : nullptr;
  std::string msg = what + ": " + (text != nullptr ? text : "CUDA error") + " (cudaError " + std::to_string(error) + ")";
  if (error == kCudaErrorNoDevice) {
    return FailedPrecondition(msg + ": no CUDA GPU is visible to this process (check nvidia-smi and "
                                    "CUDA_VISIBLE_DEVICES); the nccl backend needs one GPU per rank");
  }
  if (error == kCudaErrorInsufficientDriver) {
    // The runtime says the same when there is no driver at all; the driver's
    // library tells the two apart.
    void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (driver == nullptr) driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver == nullptr) {
      return FailedPrecondition(msg + ": no NVIDIA driver is installed (libcuda.so.1 not found), so this host has no "
                                      "usable GPU; the nccl backend needs one GPU per rank");
    }
    return FailedPrecondition(msg + ": the NVIDIA driver is older than the CUDA runtime " + api.cudart_library +
                              " needs; update the driver or use an older CUDA runtime (TFHOST_CUDART_LIBRARY)");
  }
  return Internal(msg);
}

Status NcclStatus(const NcclApi& api, int result, const std::string& what, NcclComm comm) {
  if (result == kNcclSuccess) return OkStatus();
  const char* text = api.nccl_get_error_string != nullptr ? api.nccl_get_error_string(result) : nullptr;
  std::string msg = what + ": " + (text != nullptr ? text : "NCCL error") + " (ncclResult " + std::to_string(result) + ")";
  if (api.nccl_get_last_error != nullptr) {
    const char* last = api.nccl_get_last_error(comm);
    if (last != nullptr && *last != '\0') msg += ": " + std::string(last);
  }
  switch (result) {
    case kNcclInvalidArgument:
    case kNcclInvalidUsage:
      return InvalidArgument(msg);
    case kNcclRemoteError:
    case kNcclSystemError:
      return Unavailable(msg + " (set NCCL_DEBUG=INFO for NCCL's own account)");
    case kNcclTimeout:
      return Status(StatusCode::kDeadlineExceeded, msg);
    default:
      return Internal(msg + " (set NCCL_DEBUG=INFO for NCCL's own account)");
  }
}

std::string NcclVersionString(int code) {
  if (code <= 0) return "unknown";
  int major, minor, patch;
  if (code >= 10000) {
    major = code / 10000, minor = code % 10000 / 100, patch = code % 100;
  } else {
    major = code / 1000, minor = code % 1000 / 100, patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace tfhost::host::launch
