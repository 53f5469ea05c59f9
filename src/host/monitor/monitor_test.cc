// Monitor: host counters become rates; recorded GPU metrics flow into the
// dashboard, the JSON-lines recording and Prometheus text that a strict
// text-format check accepts; the /metrics endpoint serves it over HTTP.
#include "host/monitor/monitor.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "base/test_status.h"
#include "host/monitor/metrics_server.h"

namespace tfhost::host {
namespace {

namespace fs = std::filesystem;

class TempRoot {
 public:
  TempRoot() {
    root_ = fs::path(::testing::TempDir()) /
            ("monitor_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  ~TempRoot() { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    fs::path p = root_ / path.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

void WriteCounters(TempRoot& t, uint64_t tick, uint64_t reads, uint64_t rx, uint64_t ib_words) {
  // Two CPUs; over the interval cpu0 is busy 75 of 100 ticks, cpu1 25 of 100.
  t.Write("/proc/stat", "cpu  " + std::to_string(100 * tick) + " 0 0 " + std::to_string(100 * tick) +
                            " 0 0 0 0 0 0\n"
                            "cpu0 " + std::to_string(75 * tick) + " 0 0 " + std::to_string(25 * tick) +
                            " 0 0 0 0 0 0\n"
                            "cpu1 " + std::to_string(25 * tick) + " 0 0 " + std::to_string(75 * tick) +
                            " 0 0 0 0 0 0\nintr 1 2 3\n");
  t.Write("/proc/meminfo", "MemTotal:       1000 kB\nMemAvailable:    250 kB\n");
  t.Write("/proc/diskstats", " 259 0 nvme0n1 " + std::to_string(reads) + " 0 " + std::to_string(reads * 8) +
                                 " 0 10 0 80 0 0 " + std::to_string(reads / 2) + " 0\n"
                                 " 259 1 nvme0n1p1 999 0 999 0 0 0 0 0 0 0 0\n");
  t.Write("/proc/net/dev",
          "Inter-|   Receive                            |  Transmit\n"
          " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets\n"
          "    lo: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n"
          "  eth0: " + std::to_string(rx) + " 10 0 0 0 0 0 0 " + std::to_string(rx / 2) + " 5 0 0 0 0 0 0\n");
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", std::to_string(ib_words));
  t.Write("/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", std::to_string(ib_words));
  t.Write("/proc/sys/kernel/hostname", "node7");
}

TEST(HostCountersTest, TwoReadingsBecomeRates) {
  TempRoot t;
  std::unique_ptr<FsReader> reader = NewRootedFsReader(t.path());
  WriteCounters(t, 1, 1000, 1000000, 250000);
  StatusOr<HostCounters> a = ReadHostCounters(*reader, 10.0);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  WriteCounters(t, 2, 3000, 11000000, 2750000);
  StatusOr<HostCounters> b = ReadHostCounters(*reader, 12.0);
  ASSERT_TRUE(b.ok());
  HostRates r = ComputeRates(*a, *b);
  EXPECT_DOUBLE_EQ(r.interval_s, 2.0);
  EXPECT_DOUBLE_EQ(r.cpu_busy_pct, 50.0);
  ASSERT_EQ(r.core_busy_pct.size(), 2u);
  EXPECT_DOUBLE_EQ(r.core_busy_pct[0], 75.0);
  EXPECT_DOUBLE_EQ(r.core_busy_pct[1], 25.0);
  EXPECT_EQ(r.mem_used_bytes, 750u * 1024);
  ASSERT_EQ(r.disks.count("nvme0n1"), 1u);
  EXPECT_EQ(r.disks.count("nvme0n1p1"), 0u);  // partitions are not disks
  EXPECT_DOUBLE_EQ(r.disks["nvme0n1"].read_iops, 1000.0);
  EXPECT_DOUBLE_EQ(r.disks["nvme0n1"].read_mbps, 2000 * 8 * 512 / 2 / 1e6);
  EXPECT_DOUBLE_EQ(r.disks["nvme0n1"].busy_pct, 50.0);  // 1000 ms of I/O in 2 s
  EXPECT_EQ(r.net.count("lo"), 0u);
  EXPECT_DOUBLE_EQ(r.net["eth0"].rx_mbps, 5.0);
  EXPECT_DOUBLE_EQ(r.rdma["mlx5_0/1"].rx_mbps, 5.0);  // 4-byte words
}

TEST(HostCountersTest, CountersThatGoBackwardsCountAsZero) {
  TempRoot t;
  std::unique_ptr<FsReader> reader = NewRootedFsReader(t.path());
  WriteCounters(t, 2, 3000, 11000000, 100);
  HostCounters a = *ReadHostCounters(*reader, 1.0);
  WriteCounters(t, 3, 10, 10, 10);
  HostRates r = ComputeRates(a, *ReadHostCounters(*reader, 2.0));
  EXPECT_EQ(r.disks["nvme0n1"].read_iops, 0.0);
  EXPECT_EQ(r.net["eth0"].rx_mbps, 0.0);
}

const char kSmiWithMetrics[] = R"(<?xml version="1.0" ?>
<nvidia_smi_log>
  <driver_version>550.54.15</driver_version>
  <cuda_version>12.4</cuda_version>
  <gpu id="00000000:18:00.0">
    <product_name>NVIDIA H100 80GB HBM3</product_name>
    <uuid>GPU-1111</uuid>
    <pci><pci_bus_id>00000000:18:00.0</pci_bus_id><tx_util>250000 KB/s</tx_util><rx_util>1000 KB/s</rx_util></pci>
    <fb_memory_usage><total>81559 MiB</total><used>70000 MiB</used><free>11559 MiB</free></fb_memory_usage>
    <utilization><gpu_util>62 %</gpu_util><memory_util>40 %</memory_util></utilization>
    <ecc_errors><volatile><dram_uncorrectable>0</dram_uncorrectable></volatile></ecc_errors>
    <temperature><gpu_temp>71 C</gpu_temp></temperature>
    <gpu_power_readings><power_draw>698.12 W</power_draw><current_power_limit>700.00 W</current_power_limit></gpu_power_readings>
    <clocks><sm_clock>1755 MHz</sm_clock><mem_clock>2619 MHz</mem_clock></clocks>
    <clocks_event_reasons>
      <clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
      <clocks_event_reason_sw_power_cap>Active</clocks_event_reason_sw_power_cap>
      <clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>
    </clocks_event_reasons>
    <processes><process_info><pid>4242</pid><type>C</type><process_name>python</process_name><used_memory>69990 MiB</used_memory></process_info></processes>
  </gpu>
</nvidia_smi_log>
)";

MonitorSample SampleWithGpu(TempRoot& t) {
  WriteCounters(t, 1, 1000, 1000000, 250000);
  std::unique_ptr<FsReader> reader = NewRootedFsReader(t.path());
  StatusOr<std::unique_ptr<Nvml>> nvml = NvmlFromRecording(kSmiWithMetrics, "", "test");
  EXPECT_TRUE(nvml.ok());
  Monitor m(reader.get(), nvml->get());
  EXPECT_TRUE(m.Next(1.0, 1700000000.0).ok());
  WriteCounters(t, 2, 3000, 11000000, 2750000);
  StatusOr<MonitorSample> s = m.Next(3.0, 1700000002.0);
  EXPECT_TRUE(s.ok());
  return *s;
}

TEST(MonitorTest, RecordedGpuMetricsReachTheSample) {
  TempRoot t;
  MonitorSample s = SampleWithGpu(t);
  EXPECT_EQ(s.hostname, "node7");
  ASSERT_EQ(s.gpus.size(), 1u);
  const GpuSample& g = s.gpus[0];
  EXPECT_EQ(g.util_pct, 62);
  EXPECT_EQ(g.mem_used_bytes, 70000ull << 20);
  EXPECT_DOUBLE_EQ(g.power_w, 698.12);
  EXPECT_EQ(g.temp_c, 71);
  EXPECT_EQ(g.sm_clock_mhz, 1755);
  EXPECT_DOUBLE_EQ(g.pcie_tx_mbps, 250.0);
  EXPECT_EQ(g.throttle_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(g.ecc_dbe_volatile, 0);
  ASSERT_EQ(g.processes.size(), 1u);
  EXPECT_EQ(g.processes[0].pid, 4242u);
  std::string dash = FormatDashboard(s);
  EXPECT_NE(dash.find("GPU0 NVIDIA H100 80GB HBM3"), std::string::npos) << dash;
  EXPECT_NE(dash.find("THROTTLED: sw_power_cap"), std::string::npos);
  EXPECT_NE(dash.find("pid 4242"), std::string::npos);
}

// The Prometheus text format (exposition format 0.0.4), checked strictly:
// every sample line parses, belongs to a family declared with # TYPE before
// it, and no series repeats.
void ExpectValidPrometheusText(const std::string& text) {
  static const std::regex kSample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*")*\})? (-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|NaN|[+-]Inf)$)");
  static const std::regex kType(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");
  std::set<std::string> families, series;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (std::regex_match(line, m, kType)) {
      EXPECT_TRUE(families.insert(m[1]).second) << "family declared twice: " << line;
      continue;
    }
    ASSERT_TRUE(std::regex_match(line, m, kSample)) << "line " << n << " is not a sample: " << line;
    EXPECT_TRUE(families.count(m[1])) << "no # TYPE before " << line;
    std::string id = line.substr(0, line.rfind(' '));
    EXPECT_TRUE(series.insert(id).second) << "duplicate series " << id;
  }
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
}

TEST(MonitorTest, PrometheusTextUsesDcgmAndNodeExporterNames) {
  TempRoot t;
  MonitorSample s = SampleWithGpu(t);
  std::string text = FormatPrometheus(s);
  ExpectValidPrometheusText(text);
  EXPECT_NE(text.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1111\",device=\"nvidia0\",modelName=\"NVIDIA H100 "
                      "80GB HBM3\",pci_bus_id=\"00000000:18:00.0\",Hostname=\"node7\"} 62\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_USED{"), std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_DEV_POWER_USAGE{"), std::string::npos);
  EXPECT_NE(text.find("reason=\"sw_power_cap\"} 1"), std::string::npos);
  EXPECT_NE(text.find("node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("node_disk_reads_completed_total{device=\"nvme0n1\"} 3000\n"), std::string::npos);
  EXPECT_NE(text.find("node_network_receive_bytes_total{device=\"eth0\"} 1.1e+07\n"), std::string::npos);
  EXPECT_NE(text.find("node_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 1.1e+07\n"),
            std::string::npos);
}

// A GPU source whose NVLink counters grow by 2 GB (tx) and 1 GB (rx) per call.
class CountingNvml : public Nvml {
 public:
  StatusOr<NvidiaFacts> Query() override { return NvidiaFacts{}; }
  StatusOr<std::vector<GpuSample>> Sample() override {
    GpuSample g;
    g.index = 0;
    g.util_pct = 90;
    g.nvlink_tx_kib_total = calls_ * 2000000;
    g.nvlink_rx_kib_total = calls_ * 1000000;
    ++calls_;
    return std::vector<GpuSample>{g};
  }

 private:
  int64_t calls_ = 1;
};

TEST(MonitorTest, NvLinkCountersBecomeRates) {
  TempRoot t;
  WriteCounters(t, 1, 1000, 1000000, 250000);
  std::unique_ptr<FsReader> reader = NewRootedFsReader(t.path());
  CountingNvml nvml;
  Monitor m(reader.get(), &nvml);
  StatusOr<MonitorSample> first = m.Next(1.0, 1.0);
  ASSERT_TRUE(first.ok());
  EXPECT_LT(first->gpus[0].nvlink_tx_mbps, 0);  // no previous reading yet
  StatusOr<MonitorSample> s = m.Next(3.0, 3.0);
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->gpus[0].nvlink_tx_mbps, 2000000.0 * 1024 / 1e6 / 2);
  EXPECT_DOUBLE_EQ(s->gpus[0].nvlink_rx_mbps, 1000000.0 * 1024 / 1e6 / 2);
  std::string text = FormatPrometheus(*s);
  ExpectValidPrometheusText(text);
  EXPECT_NE(text.find("DCGM_FI_PROF_NVLINK_TX_BYTES{gpu=\"0\""), std::string::npos) << text;
}

TEST(MonitorTest, PrometheusEscapesLabelValues) {
  MonitorSample s;
  s.hostname = "a\"b\\c\nd";
  GpuSample g;
  g.index = 0;
  g.util_pct = 5;
  s.gpus.push_back(g);
  std::string text = FormatPrometheus(s);
  ExpectValidPrometheusText(text);
  EXPECT_NE(text.find(R"(Hostname="a\"b\\c\nd")"), std::string::npos) << text;
}

TEST(MonitorTest, JsonLineIsOneParsableObject) {
  TempRoot t;
  MonitorSample s = SampleWithGpu(t);
  std::string line = FormatSampleJsonLine(s);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  rapidjson::Document doc;
  doc.Parse(line.c_str());
  ASSERT_FALSE(doc.HasParseError()) << line;
  EXPECT_DOUBLE_EQ(doc["cpu_busy_pct"].GetDouble(), 50.0);
  EXPECT_EQ(doc["gpus"][0]["util_pct"].GetDouble(), 62);
  EXPECT_STREQ(doc["gpus"][0]["throttle_reasons"][0].GetString(), "sw_power_cap");
}

TEST(MonitorTest, LiveHostGivesSaneRates) {
  std::unique_ptr<FsReader> reader = NewRootedFsReader("/");
  Monitor m(reader.get(), nullptr);
  ASSERT_TRUE(m.Next(0.0, 0.0).ok());
  usleep(200 * 1000);
  StatusOr<MonitorSample> s = m.Next(0.2, 0.2);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_GE(s->host.cpu_busy_pct, 0.0);
  EXPECT_LE(s->host.cpu_busy_pct, 100.0);
  EXPECT_FALSE(s->host.core_busy_pct.empty());
  EXPECT_GT(s->host.mem_total_bytes, 0u);
  ExpectValidPrometheusText(FormatPrometheus(*s));
}

std::string HttpGet(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "";
  }
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
  ::send(fd, req.data(), req.size(), 0);
  std::string resp;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) resp.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return resp;
}

TEST(MetricsServerTest, ServesTheLatestTextAtMetricsAnd404Elsewhere) {
  StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  int port = (*server)->port();
  ASSERT_GT(port, 0);
  (*server)->Update("# TYPE up gauge\nup 1\n");
  std::string r = HttpGet(port, "/metrics");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
  EXPECT_NE(r.find("\r\n\r\n# TYPE up gauge\nup 1\n"), std::string::npos);
  (*server)->Update("# TYPE up gauge\nup 2\n");
  EXPECT_NE(HttpGet(port, "/metrics").find("up 2\n"), std::string::npos);
  EXPECT_EQ(HttpGet(port, "/").rfind("HTTP/1.1 404", 0), 0u);
  TFHOST_EXPECT_ERROR(MetricsServer::Start("no-port"), StatusCode::kInvalidArgument,
                      "--prometheus address must be HOST:PORT or :PORT, got no-port");
}

}  // namespace
}  // namespace tfhost::host
