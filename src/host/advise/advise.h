// `tfhost advise`: diagnoses where a training or serving job's bottleneck
// is, from a `tfhost monitor --record` recording (JSON lines) or a live
// window of samples. Each finding (doctor's Finding: id, severity, evidence,
// why, fix) quotes the numbers it rests on. The HTML report is one
// self-contained file with inline SVG time-series charts (no scripts, no
// network), because a utilisation curve says more than a table.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "host/doctor/doctor.h"
#include "host/monitor/sample.h"

namespace tfhost::host {

// Parses one line written by FormatSampleJsonLine.
StatusOr<MonitorSample> ParseSampleJsonLine(const std::string& line);

// Parses a whole recording; blank lines are skipped; errors name the line.
StatusOr<std::vector<MonitorSample>> ParseRecording(const std::string& text);

// Thresholds the rules use (named so docs and tests agree).
inline constexpr double kBusyGpuPct = 80;       // below: the GPU waits for something
inline constexpr double kMemoryBoundGpuPct = 70;
inline constexpr double kMemoryFullPct = 90;
inline constexpr double kCpuSaturatedPct = 80;
inline constexpr double kCpuIdlePct = 50;
inline constexpr double kPcieHeavyMBps = 3000;  // per GPU, tx + rx
inline constexpr double kThrottledShare = 0.10;
inline constexpr double kDiskBusyPct = 90;
inline constexpr double kNvLinkIdleMBps = 10;     // per GPU, tx + rx
inline constexpr double kNvLinkBusyGpuPct = 30;   // the GPUs are doing work

// The ids, in rule order.
const std::vector<std::string>& AdviseRuleIds();

// Runs the rules over samples with a non-zero interval.
std::vector<Finding> Advise(const std::vector<MonitorSample>& samples);

// A self-contained HTML report: summary, findings and charts.
std::string AdviseHtml(const std::vector<MonitorSample>& samples, const std::vector<Finding>& findings);

}  // namespace tfhost::host
