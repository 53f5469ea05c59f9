// `tfhost monitor --serve`: the device memory series of a tfhost serve's
// metrics are read over HTTP and shown in the dashboard and the recording.
#include "host/monitor/serve_scrape.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "base/test_status.h"
#include "host/monitor/metrics_server.h"
#include "host/monitor/monitor.h"

namespace tfhost::host {
namespace {

using namespace std::chrono_literals;

// What `tfhost serve` exports for one GPU (serving/metrics/device_memory_metrics.h).
const char kServeMetrics[] =
    "# HELP :tensorflow:serving:request_count The total number of requests.\n"
    "# TYPE :tensorflow:serving:request_count counter\n"
    ":tensorflow:serving:request_count{model_name=\"m\",status=\"OK\"} 3\n"
    "# TYPE :tfhost:serving:device_memory_allocation_failures counter\n"
    ":tfhost:serving:device_memory_allocation_failures{device=\"gpu:0\",backend=\"cuda:0\"} 2\n"
    "# TYPE :tfhost:serving:device_memory_in_use_bytes gauge\n"
    ":tfhost:serving:device_memory_in_use_bytes{device=\"gpu:0\",backend=\"cuda:0\"} 1536\n"
    "# TYPE :tfhost:serving:device_memory_limit_bytes gauge\n"
    ":tfhost:serving:device_memory_limit_bytes{device=\"gpu:0\",backend=\"cuda:0\"} 1073741824\n"
    "# TYPE :tfhost:serving:device_memory_peak_bytes gauge\n"
    ":tfhost:serving:device_memory_peak_bytes{device=\"gpu:0\",backend=\"cuda:0\"} 4096\n"
    "# TYPE :tfhost:serving:device_memory_reserved_bytes gauge\n"
    ":tfhost:serving:device_memory_reserved_bytes{device=\"gpu:0\",backend=\"cuda:0\"} 2097152\n";

TEST(ServeScrapeTest, EndpointsTakeAnOptionalPath) {
  auto plain = ParseServeEndpoint("127.0.0.1:8501");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->host, "127.0.0.1");
  EXPECT_EQ(plain->port, 8501);
  EXPECT_EQ(plain->path, "/monitoring/prometheus/metrics");
  auto pathed = ParseServeEndpoint("[::1]:9000/metrics");
  ASSERT_TRUE(pathed.ok()) << pathed.status().ToString();
  EXPECT_EQ(pathed->port, 9000);
  EXPECT_EQ(pathed->path, "/metrics");
  for (const char* bad : {"localhost", "host:0", "host:port/metrics", ":8501"}) {
    TFHOST_EXPECT_ERROR(ParseServeEndpoint(bad), StatusCode::kInvalidArgument,
                        "--serve '" + std::string(bad) + "' is not HOST:PORT or HOST:PORT/PATH");
  }
}

TEST(ServeScrapeTest, DeviceMemorySeriesAreReadPerDevice) {
  std::vector<ServeDeviceMemory> devices = ParseServeDeviceMemory(kServeMetrics);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].device, "gpu:0");
  EXPECT_EQ(devices[0].backend, "cuda:0");
  EXPECT_EQ(devices[0].in_use_bytes, 1536);
  EXPECT_EQ(devices[0].peak_bytes, 4096);
  EXPECT_EQ(devices[0].limit_bytes, 1073741824);
  EXPECT_EQ(devices[0].reserved_bytes, 2097152);
  EXPECT_EQ(devices[0].allocation_failures, 2);
  EXPECT_TRUE(ParseServeDeviceMemory("# a CPU server\nup 1\n").empty());
}

TEST(ServeScrapeTest, FetchesOverHttpAndSaysWhyWhenItCannot) {
  StatusOr<std::unique_ptr<MetricsServer>> server = MetricsServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  (*server)->Update(kServeMetrics);
  const int port = (*server)->port();
  auto endpoint = ParseServeEndpoint("127.0.0.1:" + std::to_string(port) + "/metrics");
  ASSERT_TRUE(endpoint.ok());
  StatusOr<std::string> text = FetchServeMetrics(*endpoint, 2000ms);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, kServeMetrics);
  // The default path is not what this server serves.
  auto wrong = ParseServeEndpoint("127.0.0.1:" + std::to_string(port));
  TFHOST_EXPECT_ERROR(FetchServeMetrics(*wrong, 2000ms), StatusCode::kUnavailable,
                      "tfhost serve at 127.0.0.1:" + std::to_string(port) +
                          "/monitoring/prometheus/metrics answered 'HTTP/1.1 404 Not Found'");
  server->reset();  // nobody listens there now
  TFHOST_EXPECT_ERROR(FetchServeMetrics(*endpoint, 200ms), StatusCode::kUnavailable,
                      "tfhost serve at 127.0.0.1:" + std::to_string(port) + "/metrics: ");
}

TEST(ServeScrapeTest, DashboardAndRecordingShowTheServersDevices) {
  MonitorSample s;
  s.hostname = "node1";
  s.serve = "127.0.0.1:8501/monitoring/prometheus/metrics";
  s.serve_devices = ParseServeDeviceMemory(kServeMetrics);
  const std::string dashboard = FormatDashboard(s);
  EXPECT_NE(dashboard.find("tfhost serve 127.0.0.1:8501/monitoring/prometheus/metrics\n"), std::string::npos)
      << dashboard;
  EXPECT_NE(dashboard.find("  gpu:0 (cuda:0)  reserved [                    ] 2.0 MiB/1.0 GiB  in use 1.5 KiB  peak "
                           "4.0 KiB  2 failed allocations\n"),
            std::string::npos)
      << dashboard;
  rapidjson::Document json;
  json.Parse(FormatSampleJsonLine(s).c_str());
  ASSERT_FALSE(json.HasParseError());
  ASSERT_TRUE(json.HasMember("serve_devices"));
  const auto& d = json["serve_devices"][0];
  EXPECT_STREQ(d["device"].GetString(), "gpu:0");
  EXPECT_EQ(d["reserved_bytes"].GetDouble(), 2097152);
  EXPECT_EQ(d["allocation_failures"].GetDouble(), 2);

  s.serve_devices.clear();
  s.serve_error = "tfhost serve at 127.0.0.1:8501/monitoring/prometheus/metrics: connection refused";
  EXPECT_NE(FormatDashboard(s).find("\ntfhost serve at 127.0.0.1:8501/monitoring/prometheus/metrics: connection "
                                    "refused\n"),
            std::string::npos)
      << FormatDashboard(s);
  s.serve_error.clear();
  EXPECT_NE(FormatDashboard(s).find("tfhost serve 127.0.0.1:8501/monitoring/prometheus/metrics: no device memory "
                                    "(serving on the CPU)\n"),
            std::string::npos)
      << FormatDashboard(s);
}

}  // namespace
}  // namespace tfhost::host
