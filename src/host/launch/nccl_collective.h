// The NCCL backend of `tfhost bench allreduce`: one rank per process, one GPU
// per rank, in the manner of nccl-tests. Ranks and peers come from TF_CONFIG
// like the tcp and gloo backends (so it runs under `tfhost launch` on any
// engine); rank 0 makes the ncclUniqueId and publishes it through the
// key-value store it serves on its own TF_CONFIG port (tcp_kv_store.h); the
// others read it there and every rank calls ncclCommInitRank.
//
// The GPU is the rank's local rank on its host (ranks whose TF_CONFIG
// address names the same host, in rank order), counted among the devices
// CUDA_VISIBLE_DEVICES leaves visible; when a task sees exactly one GPU
// (launch --gpus-per-task 1) it uses that one.
//
// NCCL and the CUDA runtime are loaded at run time (nccl_api.h): every
// failure, from a missing library to a GPU-less host to an NCCL error, is a
// Status naming what was missing and what was expected. Waits on the GPU poll
// the stream and NCCL's asynchronous error state with a deadline, so a peer
// that dies makes this rank abort its communicator and return an error
// rather than hang.
//
// Thread-safety: one thread at a time per collective (each owns a stream and
// buffers on its GPU, and makes that GPU current before every call).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/launch/allreduce.h"
#include "host/launch/nccl_api.h"

namespace tfhost::host::launch {

struct NcclOptions {
  double timeout_seconds = 60;            // rendezvous and each wait on the GPU
  std::shared_ptr<const NcclApi> api;     // null: LoadNcclApi() with the default names
};

class NcclCollective : public Collective {
 public:
  ~NcclCollective() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // "nccl 2.18.3" (the library's own version).
  std::string name() const override;
  // Host data, staged through the device buffers (for tests and --check of
  // callers that hold host arrays); the benchmark uses RunDeviceBench.
  Status AllreduceSum(float* data, size_t count) override;
  Status Barrier() override;

  // The nccl-tests sweep over device-resident buffers: per size, with
  // options.check a check allreduce whose result is copied back and compared
  // with the exact sum, then `warmup` untimed and `iters` timed out-of-place
  // allreduces between two CUDA events on the rank's stream.
  StatusOr<std::vector<AllreduceRow>> RunDeviceBench(const AllreduceBenchOptions& options);

  int device() const { return device_; }
  const std::string& pci_bus_id() const { return pci_bus_id_; }  // "0000:18:00.0", or "" if unknown

 private:
  friend StatusOr<std::unique_ptr<NcclCollective>> ConnectNccl(const std::vector<std::string>&, int,
                                                               const NcclOptions&);
  NcclCollective() = default;
  Status EnsureBuffers(size_t bytes);
  // Waits for the stream, polling NCCL's async error; aborts the
  // communicator on an NCCL error or after the timeout.
  Status WaitStream(const std::string& what);
  Status Fail(Status st);

  std::shared_ptr<const NcclApi> api_;
  int rank_ = 0, size_ = 1, device_ = 0, version_ = 0;
  double timeout_seconds_ = 60;
  std::string pci_bus_id_;
  NcclComm comm_ = nullptr;
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  size_t buffer_bytes_ = 0;
};

// Which host each rank is on: the host part of each "host:port".
// Local rank = how many earlier ranks share this rank's host; local ranks =
// how many ranks share it in all.
struct LocalPlacement {
  int local_rank = 0;
  int local_ranks = 1;
};
StatusOr<LocalPlacement> LocalPlacementOf(const std::vector<std::string>& addresses, int rank);

// The device a rank uses among `visible` GPUs: its local rank, or 0 when it
// sees exactly one (its own). FailedPrecondition when none is visible or the
// host has more ranks than GPUs.
StatusOr<int> ChooseGpu(const LocalPlacement& placement, int visible);

// Rank `rank` of `addresses` (the same list on every rank, as the other
// backends take it): loads the libraries, picks the GPU, exchanges the
// unique id through rank 0's store and initialises the communicator.
StatusOr<std::unique_ptr<NcclCollective>> ConnectNccl(const std::vector<std::string>& addresses, int rank,
                                                      const NcclOptions& options);

}  // namespace tfhost::host::launch
