#include "host/launch/allreduce.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "base/test_status.h"
#include "host/launch/gloo_collective.h"
#include "host/launch/launch_plan.h"
#include "host/launch/mpi_collective.h"

namespace tfhost::host::launch {
namespace {

using Connector = std::function<StatusOr<std::unique_ptr<Collective>>(const std::vector<std::string>&, int, double)>;

Connector ConnectorFor(const std::string& backend) {
  if (backend == "gloo") return ConnectGloo;
  return ConnectTcpRing;
}

// The TCP ring and Gloo both take ranks and peers from a TF_CONFIG address
// list; every behaviour below holds for both.
class CollectiveBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Runs `fn(rank, comm)` on `n` threads, the ranks of one collective on localhost.
  void OnRanks(int n, const std::function<void(int, Collective&)>& fn) {
    auto ports = ProbeFreePorts(n);
    ASSERT_TRUE(ports.ok());
    std::vector<std::string> addrs;
    for (int p : *ports) addrs.push_back("127.0.0.1:" + std::to_string(p));
    Connector connect = ConnectorFor(GetParam());
    std::vector<std::thread> threads;
    std::vector<Status> statuses(n);
    for (int r = 0; r < n; ++r) {
      threads.emplace_back([&, r] {
        auto comm = connect(addrs, r, 20);
        statuses[r] = comm.status();
        if (comm.ok()) fn(r, **comm);
      });
    }
    for (auto& t : threads) t.join();
    for (int r = 0; r < n; ++r) EXPECT_TRUE(statuses[r].ok()) << r << ": " << statuses[r].ToString();
  }
};

TEST_P(CollectiveBackendTest, SumsCorrectlyFor2And4RanksAndOddSizes) {
  for (int n : {2, 4}) {
    OnRanks(n, [n](int rank, Collective& comm) {
      EXPECT_EQ(comm.rank(), rank);
      EXPECT_EQ(comm.size(), n);
      for (size_t count : {1u, 3u, 7u, 1000u, 100003u}) {
        std::vector<float> v(count);
        for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(rank * 1000 + i % 13);
        ASSERT_TRUE(comm.AllreduceSum(v.data(), count).ok());
        float rank_sum = 1000.0f * n * (n - 1) / 2;
        for (size_t i = 0; i < count; ++i) {
          ASSERT_EQ(v[i], rank_sum + n * static_cast<float>(i % 13)) << "n=" << n << " count=" << count << " i=" << i;
        }
      }
    });
  }
}

TEST_P(CollectiveBackendTest, BenchReportsBandwidthAndNoWrongValues) {
  OnRanks(3, [](int rank, Collective& comm) {
    AllreduceBenchOptions o;
    o.min_bytes = 8;
    o.max_bytes = 1 << 20;
    o.iters = 3;
    o.warmup = 1;
    auto rows = RunAllreduceBench(comm, o);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_EQ(rows->size(), 18u);  // 8 B .. 1 MiB doubling
    for (const AllreduceRow& r : *rows) {
      EXPECT_EQ(r.wrong, 0u) << r.bytes;
      EXPECT_GT(r.algbw_gbs, 0);
      EXPECT_NEAR(r.busbw_gbs, r.algbw_gbs * 4.0 / 3.0, 1e-9);
    }
    if (rank == 0) {
      std::string table = FormatAllreduceTable(*rows, comm);
      EXPECT_NE(table.find("over 3 ranks, backend " + comm.name()), std::string::npos) << table;
    }
  });
}

TEST_P(CollectiveBackendTest, RankWhosePeersNeverStartFailsWithinItsTimeout) {
  auto ports = ProbeFreePorts(2);
  ASSERT_TRUE(ports.ok());
  std::vector<std::string> addrs = {"127.0.0.1:" + std::to_string((*ports)[0]), "127.0.0.1:" + std::to_string((*ports)[1])};
  auto start = std::chrono::steady_clock::now();
  auto comm = ConnectorFor(GetParam())(addrs, 1, 0.5);  // rank 0 never comes
  TFHOST_EXPECT_ERROR(comm, StatusCode::kUnavailable, "cannot connect to ");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

INSTANTIATE_TEST_SUITE_P(Backends, CollectiveBackendTest, ::testing::Values("tcp", "gloo"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(AllreduceTest, TcpRingNamesItselfInTheTable) {
  auto comm = ConnectTcpRing({"127.0.0.1:1"}, 0, 1);
  ASSERT_TRUE(comm.ok());
  EXPECT_EQ((*comm)->name(), "tcp-ring");
}

TEST(AllreduceTest, MpiWithoutMpirunIsASingleRankWhoseSumIsItself) {
  auto comm = ConnectMpi();
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  EXPECT_EQ((*comm)->size(), 1);
  std::vector<float> v = {1.5f, -2.0f, 3.0f};
  ASSERT_TRUE((*comm)->AllreduceSum(v.data(), v.size()).ok());
  EXPECT_EQ(v, std::vector<float>({1.5f, -2.0f, 3.0f}));
  EXPECT_TRUE((*comm)->Barrier().ok());
}

TEST(AllreduceTest, RingMembershipFromTfConfig) {
  auto m = RingFromTfConfig(
      R"({"cluster":{"worker":["a:1","b:2"],"chief":["c:3"]},"task":{"type":"worker","index":1}})");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->addresses, std::vector<std::string>({"c:3", "a:1", "b:2"}));
  EXPECT_EQ(m->rank, 2);
  TFHOST_EXPECT_ERROR(RingFromTfConfig("{"), StatusCode::kInvalidArgument,
                      "TF_CONFIG is not {\"cluster\": {...}, \"task\": {...}} JSON");
  TFHOST_EXPECT_ERROR(RingFromTfConfig(R"({"cluster":{"worker":["a:1"]},"task":{"type":"worker","index":4}})"),
                      StatusCode::kInvalidArgument, "TF_CONFIG task worker:4 is not in its cluster");
  TFHOST_EXPECT_ERROR(RingFromTfConfig(R"({"cluster":{"worker":[1]},"task":{"type":"worker","index":0}})"),
                      StatusCode::kInvalidArgument, "TF_CONFIG cluster.worker holds a non-string");
}

TEST(AllreduceTest, SizeRanges) {
  size_t lo = 0, hi = 0;
  ASSERT_TRUE(ParseSizeRange("8:1G", &lo, &hi).ok());
  EXPECT_EQ(lo, 8u);
  EXPECT_EQ(hi, 1u << 30);
  ASSERT_TRUE(ParseSizeRange("64K", &lo, &hi).ok());
  EXPECT_EQ(lo, 65536u);
  EXPECT_EQ(hi, 65536u);
  TFHOST_EXPECT_ERROR(ParseSizeRange("1M:8", &lo, &hi), StatusCode::kInvalidArgument,
                      "--sizes expects MIN:MAX bytes with K/M/G suffixes, 4 <= MIN <= MAX <= 4G, got '1M:8'");
  TFHOST_EXPECT_ERROR(ParseSizeRange("x:8", &lo, &hi), StatusCode::kInvalidArgument,
                      "--sizes expects MIN:MAX bytes with K/M/G suffixes, 4 <= MIN <= MAX <= 4G, got 'x:8'");
  TFHOST_EXPECT_ERROR(ParseSizeRange("8:64G", &lo, &hi), StatusCode::kInvalidArgument,
                      "--sizes expects MIN:MAX bytes with K/M/G suffixes, 4 <= MIN <= MAX <= 4G, got '8:64G'");
}

}  // namespace
}  // namespace tfhost::host::launch
