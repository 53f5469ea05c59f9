// `tfhost advise [RECORDING | --live] [--html FILE]`: says where the
// bottleneck is (input, GPU memory, kernel launches, host-device copies,
// throttling, storage) from a `tfhost monitor --record` file or from a live
// window of samples, quoting the numbers each finding rests on. --html writes
// a self-contained report with time-series charts.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "base/file_util.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/advise/advise.h"
#include "host/monitor/monitor.h"

namespace tfhost::cli {

int AdviseCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string recording, html, duration_text = "30", interval_text = "1";
  bool live = false, json = false;
  FlagParser flags("tfhost advise [RECORDING | --live] [flags]",
                   "Diagnoses the bottleneck of a running job from a `tfhost monitor --record` recording (or a live "
                   "window): input-bound, memory-bound, launch-bound, host-device copies, throttling, storage-bound. "
                   "Rules the recording has no data for (no GPU samples, no NVLink counters, ...) are listed as not judged. "
                   "Exit status: 0 nothing found, 1 findings.");
  flags.AddPositional("RECORDING", &recording, "JSON lines written by `tfhost monitor --record`", /*required=*/false);
  flags.AddBool("live", &live, "sample this machine for --duration seconds instead of reading a recording");
  flags.AddString("duration", &duration_text, "S", "with --live: seconds to watch (default 30)");
  flags.AddString("interval", &interval_text, "S", "with --live: seconds between samples (default 1)");
  flags.AddString("html", &html, "FILE", "also write a self-contained HTML report with charts");
  flags.AddBool("json", &json, "print findings as JSON");
  if (int code = ParseOrExit(flags, args, "advise", out, err); code >= 0) return code;
  if (live == !recording.empty()) return ReportUsage(err, "advise", "give either a RECORDING or --live");
  std::vector<host::MonitorSample> samples;
  if (!recording.empty()) {
    std::ifstream in(recording);
    if (!in) return ReportFailure(err, "advise", NotFound("cannot open recording " + recording));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    StatusOr<std::vector<host::MonitorSample>> parsed = host::ParseRecording(text);
    if (!parsed.ok()) return ReportFailure(err, "advise", parsed.status().WithContext(recording));
    samples = std::move(*parsed);
  } else {
    double duration = std::strtod(duration_text.c_str(), nullptr);
    double interval = std::strtod(interval_text.c_str(), nullptr);
    if (!(interval >= 0.05 && interval <= 3600) || !(duration >= interval && duration <= 86400)) {
      return ReportUsage(err, "advise", "--interval must be in [0.05, 3600] s and --duration in [interval, 86400] s");
    }
    std::unique_ptr<host::FsReader> fs = host::NewRootedFsReader("/");
    std::unique_ptr<host::Nvml> nvml = host::LoadNvml();
    if (!nvml->Query().ok()) nvml.reset();
    host::Monitor monitor(fs.get(), nvml.get());
    const auto t0 = std::chrono::steady_clock::now();
    auto now = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    auto wall = [] {
      return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    };
    for (double next = 0; next <= duration + 1e-9; next += interval) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, next - now())));
      StatusOr<host::MonitorSample> s = monitor.Next(now(), wall());
      if (!s.ok()) return ReportFailure(err, "advise", s.status());
      samples.push_back(std::move(*s));
    }
  }
  host::AdviseReport report = host::RunAdvise(samples);
  if (!html.empty()) {
    if (Status dirs = CreateParentDirectories(html); !dirs.ok()) return ReportFailure(err, "advise", dirs);
    std::ofstream o(html);
    if (!o) return ReportFailure(err, "advise", NotFound("cannot write --html " + html));
    o << host::AdviseHtml(samples, report);
  }
  if (json) {
    out << host::FormatAdviseJson(report);
  } else {
    out << "tfhost advise: " << report.samples << " samples, " << report.gpus << " GPU(s)\n\n"
        << host::FormatAdviseText(report);
    if (!html.empty()) out << "report: " << html << "\n";
  }
  return report.findings.empty() ? kExitOk : kExitFailure;
}

}  // namespace tfhost::cli
