#include "host/launch/nccl_collective.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "host/launch/socket_util.h"
#include "host/launch/tcp_kv_store.h"

namespace tfhost::host::launch {

namespace {

constexpr char kUniqueIdKey[] = "tfhost/nccl/unique-id";

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g s", s);
  return buf;
}

}  // namespace

StatusOr<LocalPlacement> LocalPlacementOf(const std::vector<std::string>& addresses, int rank) {
  if (rank < 0 || rank >= static_cast<int>(addresses.size())) {
    return InvalidArgument("rank " + std::to_string(rank) + " is not among " + std::to_string(addresses.size()) +
                           " addresses");
  }
  TFHOST_ASSIGN_OR_RETURN(auto self, SplitAddress(addresses[rank]));
  LocalPlacement p;
  p.local_ranks = 0;
  for (size_t r = 0; r < addresses.size(); ++r) {
    TFHOST_ASSIGN_OR_RETURN(auto other, SplitAddress(addresses[r]));
    if (other.first != self.first) continue;
    if (static_cast<int>(r) < rank) ++p.local_rank;
    ++p.local_ranks;
  }
  return p;
}

StatusOr<int> ChooseGpu(const LocalPlacement& placement, int visible) {
  if (visible <= 0) {
    return FailedPrecondition("no CUDA GPU is visible to this process (cudaGetDeviceCount reports 0; check "
                              "nvidia-smi and CUDA_VISIBLE_DEVICES); the nccl backend needs one GPU per rank");
  }
  // A task given its own GPU through CUDA_VISIBLE_DEVICES (launch
  // --gpus-per-task 1) sees just that one.
  if (visible == 1) return 0;
  if (placement.local_rank >= visible) {
    return FailedPrecondition("local rank " + std::to_string(placement.local_rank) + " of " +
                              std::to_string(placement.local_ranks) + " on this host has no GPU: only " +
                              std::to_string(visible) + " are visible; start at most one rank per GPU");
  }
  return placement.local_rank;
}

NcclCollective::~NcclCollective() {
  if (api_ == nullptr) return;
  if (comm_ != nullptr) api_->nccl_comm_destroy(comm_);
  if (send_ != nullptr) api_->cuda_free(send_);
  if (recv_ != nullptr) api_->cuda_free(recv_);
  if (start_ != nullptr) api_->cuda_event_destroy(start_);
  if (stop_ != nullptr) api_->cuda_event_destroy(stop_);
  if (stream_ != nullptr) api_->cuda_stream_destroy(stream_);
}

std::string NcclCollective::name() const { return "nccl " + NcclVersionString(version_); }

Status NcclCollective::Fail(Status st) {
  // After an error the communicator's state is undefined; ncclCommAbort is
  // the documented way to release it without waiting on peers.
  if (!st.ok() && comm_ != nullptr) {
    api_->nccl_comm_abort(comm_);
    comm_ = nullptr;
  }
  return st;
}

Status NcclCollective::WaitStream(const std::string& what) {
  if (comm_ == nullptr) return FailedPrecondition("the NCCL communicator was aborted after an earlier error");
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::milliseconds(static_cast<long>(timeout_seconds_ * 1000));
  for (;;) {
    int q = api_->cuda_stream_query(stream_);
    if (q == kCudaSuccess) return OkStatus();
    if (q != kCudaErrorNotReady) return Fail(CudaStatus(*api_, q, what));
    int async = kNcclSuccess;
    int r = api_->nccl_comm_get_async_error(comm_, &async);
    if (r != kNcclSuccess) return Fail(NcclStatus(*api_, r, "ncclCommGetAsyncError", comm_));
    if (async != kNcclSuccess && async != kNcclInProgress) {
      return Fail(NcclStatus(*api_, async, what + " (asynchronous NCCL error)", comm_));
    }
    auto now = std::chrono::steady_clock::now();
    if (now > deadline) {
      return Fail(Status(StatusCode::kDeadlineExceeded,
                         what + " did not finish within " + Seconds(timeout_seconds_) +
                             " (--timeout); a peer rank may have died or hung; the communicator was aborted"));
    }
    // Spin briefly (small messages finish in microseconds), then back off.
    if (now - start < std::chrono::milliseconds(5)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

Status NcclCollective::EnsureBuffers(size_t bytes) {
  // Every entry point passes here first: CUDA's current device is per
  // thread, and the caller's thread may not be the one that connected.
  TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_set_device(device_), "cudaSetDevice(" + std::to_string(device_) + ")"));
  bytes = std::max<size_t>(bytes, sizeof(float));
  if (bytes <= buffer_bytes_) return OkStatus();
  if (send_ != nullptr) api_->cuda_free(send_);
  if (recv_ != nullptr) api_->cuda_free(recv_);
  send_ = recv_ = nullptr;
  buffer_bytes_ = 0;
  std::string what = "cudaMalloc of " + std::to_string(bytes) + " bytes on GPU " + std::to_string(device_);
  TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_malloc(&send_, bytes), what + " (send buffer)"));
  TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_malloc(&recv_, bytes), what + " (receive buffer)"));
  buffer_bytes_ = bytes;
  return OkStatus();
}

Status NcclCollective::AllreduceSum(float* data, size_t count) {
  if (count == 0) return OkStatus();
  size_t bytes = count * sizeof(float);
  TFHOST_RETURN_IF_ERROR(EnsureBuffers(bytes));
  TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_memcpy(send_, data, bytes, kCudaMemcpyHostToDevice),
                                    "cudaMemcpy host to device"));
  if (comm_ == nullptr) return FailedPrecondition("the NCCL communicator was aborted after an earlier error");
  TFHOST_RETURN_IF_ERROR(Fail(NcclStatus(
      *api_, api_->nccl_all_reduce(send_, recv_, count, kNcclFloat32, kNcclSum, comm_, stream_), "ncclAllReduce", comm_)));
  TFHOST_RETURN_IF_ERROR(WaitStream("allreduce of " + std::to_string(bytes) + " bytes"));
  return CudaStatus(*api_, api_->cuda_memcpy(data, recv_, bytes, kCudaMemcpyDeviceToHost), "cudaMemcpy device to host");
}

Status NcclCollective::Barrier() {
  TFHOST_RETURN_IF_ERROR(EnsureBuffers(sizeof(float)));
  if (comm_ == nullptr) return FailedPrecondition("the NCCL communicator was aborted after an earlier error");
  // In place on the receive buffer, so the send buffer's pattern survives.
  int r = api_->nccl_all_reduce(recv_, recv_, 1, kNcclFloat32, kNcclSum, comm_, stream_);
  if (r != kNcclSuccess) return Fail(NcclStatus(*api_, r, "ncclAllReduce (barrier)", comm_));
  return WaitStream("barrier");
}

StatusOr<std::vector<AllreduceRow>> NcclCollective::RunDeviceBench(const AllreduceBenchOptions& o) {
  if (o.min_bytes < sizeof(float) || o.max_bytes < o.min_bytes) {
    return InvalidArgument("allreduce sizes must satisfy 4 <= min <= max bytes");
  }
  TFHOST_RETURN_IF_ERROR(EnsureBuffers(o.max_bytes));
  std::vector<float> host(o.check ? o.max_bytes / sizeof(float) : 0);
  std::vector<AllreduceRow> rows;
  for (size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    size_t count = bytes / sizeof(float);
    AllreduceRow row;
    row.bytes = count * sizeof(float);
    auto allreduce = [&]() -> Status {
      if (comm_ == nullptr) return FailedPrecondition("the NCCL communicator was aborted after an earlier error");
      int r = api_->nccl_all_reduce(send_, recv_, count, kNcclFloat32, kNcclSum, comm_, stream_);
      return r == kNcclSuccess ? OkStatus()
                               : Fail(NcclStatus(*api_, r, "ncclAllReduce of " + std::to_string(count) + " floats", comm_));
    };
    if (o.check) {
      // Small integers: every partial sum is exact in float, in any order.
      for (size_t i = 0; i < count; ++i) host[i] = static_cast<float>((rank_ + 1) * (i % 7 + 1));
      TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_memcpy(send_, host.data(), row.bytes, kCudaMemcpyHostToDevice),
                                        "cudaMemcpy host to device"));
      TFHOST_RETURN_IF_ERROR(allreduce());
      TFHOST_RETURN_IF_ERROR(WaitStream("check allreduce of " + std::to_string(row.bytes) + " bytes"));
      std::fill(host.begin(), host.begin() + count, -1.0f);
      TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_memcpy(host.data(), recv_, row.bytes, kCudaMemcpyDeviceToHost),
                                        "cudaMemcpy device to host"));
      float ranks = size_ * (size_ + 1) / 2.0f;
      for (size_t i = 0; i < count; ++i) row.wrong += host[i] != ranks * (i % 7 + 1);
    }
    for (int w = 0; w < o.warmup; ++w) TFHOST_RETURN_IF_ERROR(allreduce());
    TFHOST_RETURN_IF_ERROR(Barrier());
    std::string what = "timed allreduces of " + std::to_string(row.bytes) + " bytes";
    TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_event_record(start_, stream_), "cudaEventRecord"));
    for (int it = 0; it < o.iters; ++it) TFHOST_RETURN_IF_ERROR(allreduce());
    TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_event_record(stop_, stream_), "cudaEventRecord"));
    TFHOST_RETURN_IF_ERROR(WaitStream(what));
    float ms = 0;
    TFHOST_RETURN_IF_ERROR(CudaStatus(*api_, api_->cuda_event_elapsed_time(&ms, start_, stop_), "cudaEventElapsedTime"));
    double seconds = ms / 1e3 / std::max(o.iters, 1);
    row.time_us = seconds * 1e6;
    row.algbw_gbs = seconds > 0 ? row.bytes / seconds / 1e9 : 0;
    row.busbw_gbs = row.algbw_gbs * (size_ > 1 ? 2.0 * (size_ - 1) / size_ : 0.0);
    rows.push_back(row);
    if (bytes > o.max_bytes / 2) break;  // no overflow on the doubling
  }
  return rows;
}

StatusOr<std::unique_ptr<NcclCollective>> ConnectNccl(const std::vector<std::string>& addresses, int rank,
                                                      const NcclOptions& options) {
  int n = addresses.size();
  if (n < 1 || rank < 0 || rank >= n) {
    return InvalidArgument("nccl rank " + std::to_string(rank) + " of " + std::to_string(n));
  }
  std::shared_ptr<const NcclApi> api = options.api;
  if (api == nullptr) {
    TFHOST_ASSIGN_OR_RETURN(api, LoadNcclApi());
  }
  std::unique_ptr<NcclCollective> c(new NcclCollective);
  c->api_ = api;
  c->rank_ = rank;
  c->size_ = n;
  c->timeout_seconds_ = options.timeout_seconds;
  const NcclApi& a = *api;

  TFHOST_ASSIGN_OR_RETURN(LocalPlacement placement, LocalPlacementOf(addresses, rank));
  int visible = 0;
  TFHOST_RETURN_IF_ERROR(CudaStatus(a, a.cuda_get_device_count(&visible), "cudaGetDeviceCount"));
  TFHOST_ASSIGN_OR_RETURN(c->device_, ChooseGpu(placement, visible));
  TFHOST_RETURN_IF_ERROR(CudaStatus(a, a.cuda_set_device(c->device_), "cudaSetDevice(" + std::to_string(c->device_) + ")"));
  if (a.cuda_device_get_pci_bus_id != nullptr) {
    char bus[64] = {};
    if (a.cuda_device_get_pci_bus_id(bus, sizeof(bus) - 1, c->device_) == kCudaSuccess) c->pci_bus_id_ = bus;
  }
  TFHOST_RETURN_IF_ERROR(NcclStatus(a, a.nccl_get_version(&c->version_), "ncclGetVersion"));
  TFHOST_RETURN_IF_ERROR(CudaStatus(a, a.cuda_stream_create(&c->stream_), "cudaStreamCreate"));
  TFHOST_RETURN_IF_ERROR(CudaStatus(a, a.cuda_event_create(&c->start_), "cudaEventCreate"));
  TFHOST_RETURN_IF_ERROR(CudaStatus(a, a.cuda_event_create(&c->stop_), "cudaEventCreate"));

  NcclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  std::unique_ptr<TcpKvStoreServer> server;
  if (n == 1) {
    TFHOST_RETURN_IF_ERROR(NcclStatus(a, a.nccl_get_unique_id(&id), "ncclGetUniqueId"));
  } else {
    auto timeout = std::chrono::milliseconds(static_cast<long>(options.timeout_seconds * 1000));
    TFHOST_ASSIGN_OR_RETURN(auto store_address, SplitAddress(addresses[0]));
    if (rank == 0) {
      auto started = TcpKvStoreServer::Start(store_address.second);
      if (!started.ok()) {
        return Unavailable("nccl rank 0 cannot serve the unique id on its TF_CONFIG port " +
                           std::to_string(store_address.second) + ": " + started.status().message());
      }
      server = std::move(*started);
    }
    TFHOST_ASSIGN_OR_RETURN(auto client,
                            TcpKvStoreClient::Connect(store_address.first, store_address.second, timeout));
    if (rank == 0) {
      TFHOST_RETURN_IF_ERROR(NcclStatus(a, a.nccl_get_unique_id(&id), "ncclGetUniqueId"));
      TFHOST_RETURN_IF_ERROR(client->Set(kUniqueIdKey, std::string(id.internal, sizeof(id.internal))));
    } else {
      auto value = client->Get(kUniqueIdKey, timeout);
      if (!value.ok()) {
        return Status(value.status().code(), "nccl rank " + std::to_string(rank) + " waiting for rank 0's unique id at " +
                                                 addresses[0] + ": " + value.status().message());
      }
      if (value->size() != kNcclUniqueIdBytes) {
        return DataLoss("the NCCL unique id from " + addresses[0] + " has " + std::to_string(value->size()) +
                        " bytes, expected " + std::to_string(kNcclUniqueIdBytes) + " (a different program on that port?)");
      }
      std::memcpy(id.internal, value->data(), kNcclUniqueIdBytes);
    }
  }
  int r = a.nccl_comm_init_rank(&c->comm_, n, id, rank);
  if (r != kNcclSuccess) {
    c->comm_ = nullptr;
    return NcclStatus(a, r, "ncclCommInitRank (rank " + std::to_string(rank) + " of " + std::to_string(n) + ", GPU " +
                                std::to_string(c->device_) + ")");
  }
  // ncclCommInitRank returns only once every rank joined, so all have read
  // the id: rank 0's store may close now.
  server.reset();
  return c;
}

}  // namespace tfhost::host::launch
