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

// Parses one line written by FormatSampleJsonLine. A line without
// cpu_busy_pct gets -1 (unknown), so the CPU rules are not judged on a 0.
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

// A rule the recording holds no data for (no GPU samples, no NVLink
// counters, ...): it neither fired nor was cleared, so the output must not
// speak as if it had been.
struct UnjudgedRule {
  std::string id;
  std::string reason;  // "no GPU samples in the recording"
};

struct AdviseReport {
  size_t samples = 0;   // samples with rates (interval_s > 0)
  double seconds = 0;   // their intervals added up
  size_t gpus = 0;      // the most GPUs any sample had
  std::vector<Finding> findings;          // rule order
  std::vector<UnjudgedRule> not_judged;   // rule order
};

// Runs the rules over samples with a non-zero interval; every rule lands in
// either findings (fired), not_judged (no data) or neither (judged, clear).
AdviseReport RunAdvise(const std::vector<MonitorSample>& samples);

// RunAdvise(samples).findings.
std::vector<Finding> Advise(const std::vector<MonitorSample>& samples);

// The verdict when no rule fired; it names only the rules that were judged
// ("No bottleneck found by the 1 of 7 rules that could be judged (...)").
std::string NoFindingVerdict(const AdviseReport& report);

// The findings (as doctor prints them), a verdict line when there are none
// that names only the rules that were judged, and the rules not judged with
// their reasons.
std::string FormatAdviseText(const AdviseReport& report);

// {"status", "samples", "gpus", "findings": [doctor's finding objects],
//  "not_judged": [{"id", "reason"}]}.
std::string FormatAdviseJson(const AdviseReport& report);

// A self-contained HTML report: summary, findings, rules not judged, charts.
std::string AdviseHtml(const std::vector<MonitorSample>& samples, const AdviseReport& report);

}  // namespace tfhost::host
