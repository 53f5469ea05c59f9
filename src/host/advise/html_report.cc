// The advise HTML report: one file, inline CSS and SVG, no scripts or
// external resources, so it opens anywhere (and from an air-gapped cluster).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "host/advise/advise.h"
#include "host/advise/svg_chart.h"

namespace tfhost::host {

namespace {

std::string Html(const std::string& s) { return HtmlEscape(s); }

std::string F(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

using Series = ChartSeries;

std::string Chart(const std::string& title, const std::vector<Series>& series, double y_max, const std::string& unit) {
  return SvgLineChart(title, series, y_max, unit, "s");
}

}  // namespace

std::string AdviseHtml(const std::vector<MonitorSample>& samples, const AdviseReport& report) {
  double t0 = samples.empty() ? 0 : samples.front().time_s;
  size_t gpus = 0;
  std::vector<std::string> disks;
  for (const MonitorSample& m : samples) {
    gpus = std::max(gpus, m.gpus.size());
    for (const auto& [d, r] : m.host.disks) {
      if (std::find(disks.begin(), disks.end(), d) == disks.end()) disks.push_back(d);
    }
  }
  std::vector<Series> util(gpus), mem(gpus), power(gpus), disk(disks.size());
  Series cpu{"CPU busy", {}};
  for (size_t i = 0; i < gpus; ++i) util[i].name = mem[i].name = power[i].name = "GPU" + std::to_string(i);
  for (size_t i = 0; i < disks.size(); ++i) disk[i].name = disks[i];
  double power_max = 100;
  for (const MonitorSample& m : samples) {
    if (m.host.interval_s <= 0) continue;
    double t = m.time_s - t0;
    if (m.host.cpu_busy_pct >= 0) cpu.points.push_back({t, m.host.cpu_busy_pct});
    for (size_t i = 0; i < m.gpus.size(); ++i) {
      const GpuSample& g = m.gpus[i];
      if (g.util_pct >= 0) util[i].points.push_back({t, static_cast<double>(g.util_pct)});
      if (g.mem_total_bytes) {
        mem[i].points.push_back({t, 100.0 * static_cast<double>(g.mem_used_bytes) / static_cast<double>(g.mem_total_bytes)});
      }
      if (g.power_w >= 0) power[i].points.push_back({t, g.power_w});
      power_max = std::max({power_max, g.power_w, g.power_limit_w});
    }
    for (size_t i = 0; i < disks.size(); ++i) {
      auto it = m.host.disks.find(disks[i]);
      if (it != m.host.disks.end()) disk[i].points.push_back({t, it->second.busy_pct});
    }
  }
  std::string host = samples.empty() ? "" : samples.front().hostname;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tfhost advise: " << Html(host)
    << "</title>\n" << HtmlReportStyle() << "</head><body>\n"
    << "<h1>tfhost advise &mdash; " << Html(host) << "</h1>\n";
  o << "<p>" << report.samples << " samples over " << F(report.seconds) << " s; " << report.gpus
    << " GPU(s).</p>\n<h2>Findings</h2>\n";
  if (report.findings.empty()) o << "<p>" << Html(NoFindingVerdict(report)) << "</p>\n";
  for (const Finding& f : report.findings) {
    o << "<div class=\"f " << SeverityName(f.severity) << "\"><b>" << Html(f.title) << "</b> <span class=\"id\">"
      << Html(f.id) << "</span><br><b>Evidence:</b> " << Html(f.evidence) << "<br><b>Why:</b> " << Html(f.why)
      << "<br><b>Fix:</b> " << Html(f.fix) << "</div>\n";
  }
  if (!report.not_judged.empty()) {
    o << "<h2>Not judged</h2>\n<p>The recording lacks what these rules need, so they neither fired nor were "
         "cleared.</p>\n<ul>\n";
    for (const UnjudgedRule& u : report.not_judged) {
      o << "<li><span class=\"id\">" << Html(u.id) << "</span>: " << Html(u.reason) << "</li>\n";
    }
    o << "</ul>\n";
  }
  o << "<h2>Time series</h2>\n";
  if (gpus > 0) {
    o << Chart("GPU utilisation", util, 100, "%") << Chart("GPU memory used", mem, 100, "%")
      << Chart("GPU power", power, power_max, "W");
  }
  if (!cpu.points.empty()) o << Chart("CPU busy (all cores)", {cpu}, 100, "%");
  if (!disks.empty()) o << Chart("Disk busy", disk, 100, "%");
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tfhost::host
