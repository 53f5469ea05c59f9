// `tfhost monitor [--interval S] [--once] [--prometheus ADDR] [--record FILE]
// [--serve HOST:PORT]`: a live dashboard of the GPUs (NVML) and the host
// (procfs), a Prometheus exporter using DCGM exporter's GPU metric names and
// node exporter's host names, and a JSON-lines recording for `tfhost advise`;
// with --serve, also the device memory a running `tfhost serve` holds (its
// GPU allocators, read from its metrics). Ends on Ctrl-C, or after --count
// samples (--once = one sample).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <thread>

#include "base/file_util.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/monitor/metrics_server.h"
#include "host/monitor/monitor.h"
#include "host/monitor/serve_scrape.h"

namespace tfhost::cli {

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Now(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double WallNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int MonitorCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string interval_text = "1", prometheus, record, root = "/", nvml_xml, serve_text;
  bool once = false, json = false, no_gpu = false;
  int count = 0;
  FlagParser flags("tfhost monitor [flags]",
                   "Watches GPUs (utilisation, memory, power, temperature, clocks, PCIe, throttling, ECC, processes) "
                   "and the host (CPU per core, memory, disks, network, RDMA) live; exports Prometheus metrics "
                   "(DCGM exporter names) and records JSON lines for `tfhost advise`.");
  flags.AddString("interval", &interval_text, "S", "seconds between samples (default 1)");
  flags.AddBool("once", &once, "print one sample (after one interval) and exit");
  flags.AddInt("count", &count, "N", "stop after N samples (default: run until Ctrl-C)");
  flags.AddBool("json", &json, "print each sample as a JSON line instead of the dashboard");
  flags.AddString("prometheus", &prometheus, "ADDR", "serve /metrics on ADDR (HOST:PORT or :PORT)");
  flags.AddString("record", &record, "FILE", "append each sample to FILE as a JSON line");
  flags.AddString("root", &root, "DIR", "read host counters from a snapshot folder instead of /");
  flags.AddString("nvml-xml", &nvml_xml, "FILE", "GPU metrics from an `nvidia-smi -q -x` recording instead of NVML");
  flags.AddBool("no-gpu", &no_gpu, "skip GPU metrics");
  flags.AddString("serve", &serve_text, "HOST:PORT[/PATH]",
                  "also show the device memory of a tfhost serve's GPU allocators (in use, peak, reserved, limit, "
                  "failed allocations), read from its REST port's metrics (default path "
                  "/monitoring/prometheus/metrics) each sample");
  if (int code = ParseOrExit(flags, args, "monitor", out, err); code >= 0) return code;
  char* end = nullptr;
  double interval = std::strtod(interval_text.c_str(), &end);
  if (end == interval_text.c_str() || *end != '\0' || !(interval >= 0.05 && interval <= 3600)) {
    return ReportUsage(err, "monitor", "--interval must be a number of seconds in [0.05, 3600], got '" + interval_text + "'");
  }
  if (count < 0) return ReportUsage(err, "monitor", "--count must be >= 0");
  std::optional<host::ServeEndpoint> serve;
  if (!serve_text.empty()) {
    StatusOr<host::ServeEndpoint> endpoint = host::ParseServeEndpoint(serve_text);
    if (!endpoint.ok()) return ReportUsage(err, "monitor", endpoint.status().message());
    serve = *endpoint;
  }
  if (once) count = 1;

  std::unique_ptr<host::FsReader> fs = host::NewRootedFsReader(root);
  std::unique_ptr<host::Nvml> nvml;
  if (!no_gpu) {
    if (!nvml_xml.empty()) {
      std::ifstream in(nvml_xml);
      if (!in) return ReportFailure(err, "monitor", NotFound("cannot open --nvml-xml " + nvml_xml));
      std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      StatusOr<std::unique_ptr<host::Nvml>> rec = host::NvmlFromRecording(xml, "", nvml_xml);
      if (!rec.ok()) return ReportFailure(err, "monitor", rec.status());
      nvml = std::move(*rec);
    } else {
      nvml = host::LoadNvml();
      if (StatusOr<host::NvidiaFacts> q = nvml->Query(); !q.ok()) {
        err << "tfhost monitor: no GPU metrics: " << q.status().message() << "\n";
        nvml.reset();
      }
    }
  }
  std::unique_ptr<host::MetricsServer> server;
  if (!prometheus.empty()) {
    StatusOr<std::unique_ptr<host::MetricsServer>> s = host::MetricsServer::Start(prometheus);
    if (!s.ok()) return ReportFailure(err, "monitor", s.status());
    server = std::move(*s);
    err << "tfhost monitor: serving Prometheus metrics on port " << server->port() << " at /metrics\n";
  }
  std::ofstream recording;
  if (!record.empty()) {
    if (Status dirs = CreateParentDirectories(record); !dirs.ok()) return ReportFailure(err, "monitor", dirs);
    recording.open(record, std::ios::app);
    if (!recording) return ReportFailure(err, "monitor", NotFound("cannot open --record " + record));
  }
  const bool clear = !json && count != 1 && isatty(STDOUT_FILENO) && &out == &std::cout;

  g_stop = false;
  auto old_int = std::signal(SIGINT, OnSignal);
  auto old_term = std::signal(SIGTERM, OnSignal);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = CpuSeconds();
  host::Monitor monitor(fs.get(), nvml.get());
  int code = kExitOk;
  if (StatusOr<host::MonitorSample> first = monitor.Next(Now(t0), WallNow()); !first.ok()) {
    code = ReportFailure(err, "monitor", first.status());
  }
  int produced = 0;
  double next = interval;
  while (code == kExitOk && !g_stop && (count == 0 || produced < count)) {
    // Sleep in short steps so Ctrl-C is prompt; schedule on absolute times so
    // the interval does not drift by the sampling cost.
    while (!g_stop && Now(t0) < next) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(0.1, next - Now(t0))));
    }
    if (g_stop) break;
    next += interval;
    StatusOr<host::MonitorSample> s = monitor.Next(Now(t0), WallNow());
    if (!s.ok()) {
      code = ReportFailure(err, "monitor", s.status());
      break;
    }
    ++produced;
    if (serve) {
      // A server that is down or slow is shown as such; the host's figures
      // still come. Bounded by the interval, so sampling keeps its pace.
      s->serve = serve->ToString();
      const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(std::min(interval, 2.0) * 500));
      StatusOr<std::string> text = host::FetchServeMetrics(*serve, timeout);
      if (text.ok()) {
        s->serve_devices = host::ParseServeDeviceMemory(*text);
      } else {
        s->serve_error = text.status().message();
      }
    }
    if (server) server->Update(host::FormatPrometheus(*s));
    if (recording.is_open()) recording << host::FormatSampleJsonLine(*s) << "\n" << std::flush;
    if (json) {
      out << host::FormatSampleJsonLine(*s) << "\n";
    } else {
      if (clear) out << "\x1b[H\x1b[2J";
      out << host::FormatDashboard(*s);
      if (count != 1) out << "\n";
    }
    out.flush();
  }
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  if (count > 0 && code == kExitOk) {
    double elapsed = Now(t0);
    err << "tfhost monitor: own cost " << (elapsed > 0 ? 100.0 * (CpuSeconds() - cpu0) / elapsed : 0.0)
        << "% of one core over " << elapsed << " s\n";
  }
  return code;
}

}  // namespace tfhost::cli
