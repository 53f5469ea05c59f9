#include "host/launch/nccl_collective.h"

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "base/test_status.h"
#include "host/launch/launch_plan.h"

namespace tfhost::host::launch {
namespace {

// A fake NCCL + CUDA runtime: "device" memory is host memory, streams finish
// at once, and ranks of one communicator are threads of this test that meet
// at a std::barrier. It drives the backend's logic (rendezvous of the unique
// id, buffers, the benchmark loop, every error path) without a GPU.
struct FakeWorld {
  int ranks = 1;
  std::unique_ptr<std::barrier<>> barrier;
  std::mutex mu;
  std::map<int, std::string> ids_seen;  // rank -> the unique id it was given
  std::vector<const float*> send;
  std::vector<float*> recv;
  std::vector<std::vector<float>> sums;
  int device_count = 2;
  int device_count_error = kCudaSuccess;
  int init_result = kNcclSuccess;
  int stream_query_result = kCudaSuccess;
  int async_error = kNcclSuccess;
  std::atomic<int> aborts{0};
  std::atomic<int> destroys{0};
  std::map<int, int> device_of_thread_rank;
};
FakeWorld* world = nullptr;
thread_local int current_device = -1;

int FakeGetDeviceCount(int* n) {
  *n = world->device_count;
  return world->device_count_error;
}
int FakeSetDevice(int d) {
  current_device = d;
  return kCudaSuccess;
}
int FakeMalloc(void** p, size_t bytes) {
  *p = std::malloc(bytes);
  return *p != nullptr ? kCudaSuccess : 2;
}
int FakeFree(void* p) {
  std::free(p);
  return kCudaSuccess;
}
int FakeMemcpy(void* dst, const void* src, size_t bytes, int) {
  std::memcpy(dst, src, bytes);
  return kCudaSuccess;
}
int FakeCreate(void** h) {
  *h = std::malloc(1);
  return kCudaSuccess;
}
int FakeDestroy(void* h) {
  std::free(h);
  return kCudaSuccess;
}
int FakeStreamQuery(void*) { return world->stream_query_result; }
int FakeRecord(void*, void*) { return kCudaSuccess; }
int FakeSync(void*) { return kCudaSuccess; }
int FakeElapsed(float* ms, void*, void*) {
  *ms = 2.0f;  // every timed loop "takes" 2 ms
  return kCudaSuccess;
}
const char* FakeCudaErrorString(int e) { return e == kCudaErrorNoDevice ? "no CUDA-capable device is detected" : "error"; }
int FakeVersion(int* v) {
  *v = 21803;
  return kNcclSuccess;
}
int FakeGetUniqueId(NcclUniqueId* id) {
  for (size_t i = 0; i < kNcclUniqueIdBytes; ++i) id->internal[i] = static_cast<char>(i * 7 + 3);
  return kNcclSuccess;
}
int FakeInitRank(NcclComm* comm, int nranks, NcclUniqueId id, int rank) {
  if (world->init_result != kNcclSuccess) return world->init_result;
  if (nranks != world->ranks) return kNcclInvalidArgument;
  {
    std::lock_guard<std::mutex> lock(world->mu);
    world->ids_seen[rank] = std::string(id.internal, kNcclUniqueIdBytes);
    world->device_of_thread_rank[rank] = current_device;
  }
  // Like NCCL's, init returns only once every rank has joined (so rank 0's
  // store outlives every rank's read of the id).
  world->barrier->arrive_and_wait();
  *comm = reinterpret_cast<NcclComm>(static_cast<intptr_t>(rank + 1));
  return kNcclSuccess;
}
int FakeCommDestroy(NcclComm) {
  ++world->destroys;
  return kNcclSuccess;
}
int FakeCommAbort(NcclComm) {
  ++world->aborts;
  return kNcclSuccess;
}
int FakeAsyncError(NcclComm, int* e) {
  *e = world->async_error;
  return kNcclSuccess;
}
const char* FakeNcclErrorString(int r) { return r == kNcclSystemError ? "unhandled system error" : "nccl error"; }
const char* FakeLastError(NcclComm) { return "socket connect to 10.0.0.2 failed"; }
int FakeAllReduce(const void* send, void* recv, size_t count, int type, int op, NcclComm comm, void*) {
  if (type != kNcclFloat32 || op != kNcclSum) return kNcclInvalidArgument;
  int rank = static_cast<int>(reinterpret_cast<intptr_t>(comm)) - 1;
  world->send[rank] = static_cast<const float*>(send);
  world->recv[rank] = static_cast<float*>(recv);
  world->barrier->arrive_and_wait();  // everyone's inputs are posted
  std::vector<float>& sum = world->sums[rank];
  sum.assign(count, 0.0f);
  for (int r = 0; r < world->ranks; ++r) {
    for (size_t i = 0; i < count; ++i) sum[i] += world->send[r][i];
  }
  world->barrier->arrive_and_wait();  // everyone has read the inputs (in place is safe)
  std::memcpy(recv, sum.data(), count * sizeof(float));
  return kNcclSuccess;
}

std::shared_ptr<const NcclApi> FakeApi() {
  auto a = std::make_shared<NcclApi>();
  a->nccl_get_version = FakeVersion;
  a->nccl_get_unique_id = FakeGetUniqueId;
  a->nccl_comm_init_rank = FakeInitRank;
  a->nccl_comm_destroy = FakeCommDestroy;
  a->nccl_comm_abort = FakeCommAbort;
  a->nccl_comm_get_async_error = FakeAsyncError;
  a->nccl_get_error_string = FakeNcclErrorString;
  a->nccl_get_last_error = FakeLastError;
  a->nccl_all_reduce = FakeAllReduce;
  a->cuda_get_device_count = FakeGetDeviceCount;
  a->cuda_set_device = FakeSetDevice;
  a->cuda_malloc = FakeMalloc;
  a->cuda_free = FakeFree;
  a->cuda_memcpy = FakeMemcpy;
  a->cuda_stream_create = FakeCreate;
  a->cuda_stream_destroy = FakeDestroy;
  a->cuda_stream_query = FakeStreamQuery;
  a->cuda_event_create = FakeCreate;
  a->cuda_event_destroy = FakeDestroy;
  a->cuda_event_record = FakeRecord;
  a->cuda_event_synchronize = FakeSync;
  a->cuda_event_elapsed_time = FakeElapsed;
  a->cuda_get_error_string = FakeCudaErrorString;
  a->nccl_library = "fake-nccl";
  a->cudart_library = "fake-cudart";
  return a;
}

class NcclFakeTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(1); }
  void TearDown() override { world = nullptr; }
  void Reset(int ranks) {
    fake_ = std::make_unique<FakeWorld>();
    fake_->ranks = ranks;
    fake_->barrier = std::make_unique<std::barrier<>>(ranks);
    fake_->send.assign(ranks, nullptr);
    fake_->recv.assign(ranks, nullptr);
    fake_->sums.assign(ranks, {});
    world = fake_.get();
  }
  NcclOptions Options(double timeout = 10) {
    NcclOptions o;
    o.api = FakeApi();
    o.timeout_seconds = timeout;
    return o;
  }
  std::unique_ptr<FakeWorld> fake_;
};

const std::vector<std::string> kOneRank = {"127.0.0.1:1"};

TEST(NcclLibraryTest, MissingCudaRuntimeIsNotFoundNamingEachFileTried) {
  NcclLibraryNames names;
  names.cudart = {"libtfhost-absent-cudart.so.12", "/nonexistent/libcudart.so.11.0"};
  names.nccl = {"libtfhost-absent-nccl.so.2"};
  auto api = LoadNcclApi(names);
  TFHOST_ASSERT_ERROR(api, StatusCode::kNotFound, "the CUDA runtime (libcudart) could not be loaded; tried:");
  EXPECT_NE(api.status().message().find("CUDA runtime"), std::string::npos) << api.status().message();
  EXPECT_NE(api.status().message().find("libtfhost-absent-cudart.so.12"), std::string::npos);
  EXPECT_NE(api.status().message().find("/nonexistent/libcudart.so.11.0"), std::string::npos);
  EXPECT_NE(api.status().message().find("LD_LIBRARY_PATH"), std::string::npos);
}

TEST(NcclLibraryTest, MissingNcclIsNotFoundWhenTheRuntimeLoads) {
  // libc stands in for a library that loads; NCCL is then the missing one.
  NcclLibraryNames names;
  names.cudart = {"libc.so.6"};
  names.nccl = {"libtfhost-absent-nccl.so.2"};
  auto api = LoadNcclApi(names);
  TFHOST_ASSERT_ERROR(api, StatusCode::kNotFound, "NCCL (libnccl.so.2) could not be loaded; tried:");
  // Symbols are resolved only once both libraries load, so NCCL is named.
  EXPECT_NE(api.status().message().find("libtfhost-absent-nccl.so.2"), std::string::npos) << api.status().message();
}

TEST(NcclLibraryTest, LibraryWithoutTheSymbolsIsNotFoundNamingTheSymbol) {
  NcclLibraryNames names;
  names.cudart = {"libc.so.6"};
  names.nccl = {"libm.so.6"};
  auto api = LoadNcclApi(names);
  TFHOST_ASSERT_ERROR(api, StatusCode::kNotFound,
                      "libc.so.6 has no symbol cudaGetDeviceCount: it is too old or not the real library (need NCCL "
                      "2.x and CUDA runtime 11, 12 or 13)");
  EXPECT_NE(api.status().message().find("has no symbol cudaGetDeviceCount"), std::string::npos) << api.status().message();
}

TEST(NcclLibraryTest, VersionCodesOfBothSchemesAreSpelledOut) {
  EXPECT_EQ(NcclVersionString(21803), "2.18.3");
  EXPECT_EQ(NcclVersionString(2708), "2.7.8");
  EXPECT_EQ(NcclVersionString(0), "unknown");
}

TEST(NcclPlacementTest, LocalRankCountsEarlierRanksOnTheSameHost) {
  std::vector<std::string> a = {"n1:5000", "n1:5001", "n2:5000", "n1:5002", "n2:5001"};
  auto p = LocalPlacementOf(a, 3);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->local_rank, 2);
  EXPECT_EQ(p->local_ranks, 3);
  p = LocalPlacementOf(a, 4);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->local_rank, 1);
  EXPECT_EQ(p->local_ranks, 2);
  TFHOST_EXPECT_ERROR(LocalPlacementOf(a, 5), StatusCode::kInvalidArgument, "rank 5 is not among 5 addresses");
}

TEST(NcclPlacementTest, GpuIsTheLocalRankOrTheOnlyVisibleOne) {
  EXPECT_EQ(*ChooseGpu({2, 4}, 4), 2);
  EXPECT_EQ(*ChooseGpu({3, 4}, 1), 0);  // CUDA_VISIBLE_DEVICES gave this task its own GPU
  auto too_many = ChooseGpu({2, 3}, 2);
  TFHOST_ASSERT_ERROR(too_many, StatusCode::kFailedPrecondition,
                      "local rank 2 of 3 on this host has no GPU: only 2 are visible; start at most one rank per GPU");
  EXPECT_NE(too_many.status().message().find("only 2 are visible"), std::string::npos);
  auto none = ChooseGpu({0, 1}, 0);
  TFHOST_ASSERT_ERROR(none, StatusCode::kFailedPrecondition,
                      "no CUDA GPU is visible to this process (cudaGetDeviceCount reports 0; check nvidia-smi and "
                      "CUDA_VISIBLE_DEVICES); the nccl backend needs");
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(NcclFakeTest, NoDeviceIsFailedPreconditionSayingNoGpu) {
  fake_->device_count = 0;
  fake_->device_count_error = kCudaErrorNoDevice;
  auto c = ConnectNccl(kOneRank, 0, Options());
  TFHOST_ASSERT_ERROR(c, StatusCode::kFailedPrecondition,
                      "cudaGetDeviceCount: no CUDA-capable device is detected (cudaError 100): no CUDA GPU is visible "
                      "to this process (check nvidia-smi and");
  EXPECT_NE(c.status().message().find("cudaGetDeviceCount"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("no CUDA GPU is visible"), std::string::npos);
}

TEST_F(NcclFakeTest, InitFailureCarriesNcclErrorStringAndLastError) {
  fake_->init_result = kNcclSystemError;
  auto c = ConnectNccl(kOneRank, 0, Options());
  TFHOST_ASSERT_ERROR(c, StatusCode::kUnavailable,
                      "ncclCommInitRank (rank 0 of 1, GPU 0): unhandled system error (ncclResult 2): socket connect to "
                      "10.0.0.2 failed (set NCCL_DEBUG=INFO for");
  const std::string& m = c.status().message();
  EXPECT_NE(m.find("ncclCommInitRank"), std::string::npos) << m;
  EXPECT_NE(m.find("unhandled system error (ncclResult 2)"), std::string::npos) << m;
  EXPECT_NE(m.find("socket connect to 10.0.0.2 failed"), std::string::npos) << m;
}

TEST_F(NcclFakeTest, SingleRankBenchChecksEveryValueAndTimesWithEvents) {
  auto c = ConnectNccl(kOneRank, 0, Options());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->name(), "nccl 2.18.3");
  AllreduceBenchOptions o;
  o.min_bytes = 8;
  o.max_bytes = 1024;
  o.iters = 4;
  o.warmup = 1;
  auto rows = (*c)->RunDeviceBench(o);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 8u);  // 8 .. 1024 doubling
  for (const AllreduceRow& r : *rows) {
    EXPECT_EQ(r.wrong, 0u);
    EXPECT_DOUBLE_EQ(r.time_us, 500.0);  // 2 ms over 4 iterations
    EXPECT_DOUBLE_EQ(r.algbw_gbs, r.bytes / 500e-6 / 1e9);
    EXPECT_EQ(r.busbw_gbs, 0.0);  // one rank moves nothing over a link
  }
  c->reset();
  EXPECT_EQ(fake_->destroys.load(), 1);
}

TEST_F(NcclFakeTest, TwoRanksShareRankZerosUniqueIdAndSumCorrectly) {
  Reset(2);
  auto ports = ProbeFreePorts(2);
  ASSERT_TRUE(ports.ok());
  std::vector<std::string> addrs = {"127.0.0.1:" + std::to_string((*ports)[0]), "127.0.0.1:" + std::to_string((*ports)[1])};
  std::vector<Status> statuses(2);
  std::vector<std::vector<AllreduceRow>> results(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      auto c = ConnectNccl(addrs, r, Options());
      statuses[r] = c.status();
      if (!c.ok()) return;
      std::vector<float> v = {1.0f * (r + 1), 10.0f * (r + 1), 100.0f};
      statuses[r] = (*c)->AllreduceSum(v.data(), v.size());
      if (!statuses[r].ok()) return;
      EXPECT_EQ(v, (std::vector<float>{3.0f, 30.0f, 200.0f}));
      AllreduceBenchOptions o;
      o.min_bytes = 4;
      o.max_bytes = 4096;
      o.iters = 2;
      o.warmup = 1;
      auto rows = (*c)->RunDeviceBench(o);
      statuses[r] = rows.status();
      if (rows.ok()) results[r] = *rows;
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 2; ++r) ASSERT_TRUE(statuses[r].ok()) << r << ": " << statuses[r].ToString();
  ASSERT_EQ(fake_->ids_seen.size(), 2u);
  EXPECT_EQ(fake_->ids_seen[0], fake_->ids_seen[1]);  // rank 1 got rank 0's id through the store
  EXPECT_EQ(fake_->device_of_thread_rank[0], 0);      // local rank = GPU on the one host
  EXPECT_EQ(fake_->device_of_thread_rank[1], 1);
  ASSERT_EQ(results[0].size(), 11u);
  for (const AllreduceRow& row : results[0]) {
    EXPECT_EQ(row.wrong, 0u) << row.bytes;
    EXPECT_DOUBLE_EQ(row.busbw_gbs, row.algbw_gbs);  // 2(n-1)/n = 1 for n = 2
  }
}

TEST_F(NcclFakeTest, AsynchronousNcclErrorAbortsTheCommunicatorInsteadOfHanging) {
  auto c = ConnectNccl(kOneRank, 0, Options());
  ASSERT_TRUE(c.ok());
  fake_->stream_query_result = kCudaErrorNotReady;  // the GPU never finishes...
  fake_->async_error = kNcclRemoteError;            // ...because a peer failed
  float x = 1;
  Status st = (*c)->AllreduceSum(&x, 1);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find("asynchronous NCCL error"), std::string::npos) << st.message();
  EXPECT_EQ(fake_->aborts.load(), 1);
  // Later calls fail at once rather than touch the aborted communicator.
  EXPECT_EQ((*c)->Barrier().code(), StatusCode::kFailedPrecondition);
}

TEST_F(NcclFakeTest, StuckStreamTimesOutWithDeadlineExceeded) {
  auto c = ConnectNccl(kOneRank, 0, Options(/*timeout=*/0.2));
  ASSERT_TRUE(c.ok());
  fake_->stream_query_result = kCudaErrorNotReady;
  auto start = std::chrono::steady_clock::now();
  Status st = (*c)->Barrier();
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded) << st.ToString();
  EXPECT_NE(st.message().find("a peer rank may have died"), std::string::npos);
  EXPECT_LT(waited, 5.0);
  EXPECT_EQ(fake_->aborts.load(), 1);
}

// Whatever this machine has: without the libraries the error is NotFound
// naming them; with the libraries but no GPU (or no driver) it is
// FailedPrecondition saying there is no usable GPU. Skips only where a GPU is
// present (the next test covers that).
TEST(NcclHostTest, WithoutLibrariesOrGpuConnectSaysWhatIsMissing) {
  auto api = LoadNcclApi();
  if (!api.ok()) {
    EXPECT_EQ(api.status().code(), StatusCode::kNotFound);
    EXPECT_NE(api.status().message().find("could not be loaded"), std::string::npos) << api.status().message();
    NcclOptions o;  // the same through ConnectNccl's own loading
    auto c = ConnectNccl(kOneRank, 0, o);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
    return;
  }
  int visible = 0;
  if ((*api)->cuda_get_device_count(&visible) == kCudaSuccess && visible > 0) {
    GTEST_SKIP() << visible << " GPU(s) present; NcclGpuTest runs on them";
  }
  NcclOptions o;
  o.api = *api;
  auto c = ConnectNccl(kOneRank, 0, o);
  TFHOST_ASSERT_ERROR(c, StatusCode::kFailedPrecondition,
                      "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version (cudaError "
                      "35): no NVIDIA driver is installed");
  EXPECT_NE(c.status().message().find("GPU"), std::string::npos) << c.status().message();
}

// The real thing: needs libnccl.so.2, the CUDA runtime and a GPU; skips,
// saying which is missing, everywhere else (bench/allreduce/gpu_check.sh runs
// it on a GPU machine).
TEST(NcclGpuTest, RealNcclSumsCorrectlyOnOneAndAllLocalGpus) {
  auto api = LoadNcclApi();
  if (!api.ok()) GTEST_SKIP() << "no NCCL/CUDA here: " << api.status().message();
  int visible = 0;
  Status devices = CudaStatus(**api, (*api)->cuda_get_device_count(&visible), "cudaGetDeviceCount");
  if (!devices.ok() || visible == 0) GTEST_SKIP() << "no GPU here: " << (devices.ok() ? "0 devices" : devices.message());
  std::vector<int> rank_counts = {1};
  if (visible > 1) rank_counts.push_back(visible);
  for (int n : rank_counts) {
    auto ports = ProbeFreePorts(n);
    ASSERT_TRUE(ports.ok());
    std::vector<std::string> addrs;
    for (int p : *ports) addrs.push_back("127.0.0.1:" + std::to_string(p));
    std::vector<Status> statuses(n);
    std::vector<std::thread> threads;
    for (int r = 0; r < n; ++r) {
      threads.emplace_back([&, r] {
        NcclOptions o;
        o.api = *api;
        o.timeout_seconds = 120;
        auto c = ConnectNccl(addrs, r, o);
        statuses[r] = c.status();
        if (!c.ok()) return;
        AllreduceBenchOptions bench;
        bench.min_bytes = 4;
        bench.max_bytes = 64 << 20;
        bench.iters = 5;
        bench.warmup = 2;
        auto rows = (*c)->RunDeviceBench(bench);
        statuses[r] = rows.status();
        if (!rows.ok()) return;
        for (const AllreduceRow& row : *rows) EXPECT_EQ(row.wrong, 0u) << "ranks " << n << " bytes " << row.bytes;
        if (r == 0) std::printf("%s", FormatAllreduceTable(*rows, **c).c_str());
      });
    }
    for (auto& t : threads) t.join();
    for (int r = 0; r < n; ++r) EXPECT_TRUE(statuses[r].ok()) << "ranks " << n << " rank " << r << ": " << statuses[r].ToString();
  }
}

}  // namespace
}  // namespace tfhost::host::launch
