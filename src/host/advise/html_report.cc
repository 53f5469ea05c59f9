// The advise HTML report: one file, inline CSS and SVG, no scripts or
// external resources, so it opens anywhere (and from an air-gapped cluster).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "host/advise/advise.h"

namespace tfhost::host {

namespace {

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

std::string Html(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string F(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (seconds from start, value)
};

// A line chart; values are clamped to [0, y_max].
std::string Chart(const std::string& title, const std::vector<Series>& series, double y_max, const std::string& unit) {
  const double w = 760, h = 220, left = 48, right = 150, top = 28, bottom = 30;
  const double pw = w - left - right, ph = h - top - bottom;
  double t_max = 1;
  for (const Series& s : series) {
    for (const auto& p : s.points) t_max = std::max(t_max, p.first);
  }
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w
    << " " << h << "\" role=\"img\" aria-label=\"" << Html(title) << "\">\n"
    << "<text x=\"" << left << "\" y=\"18\" class=\"t\">" << Html(title) << "</text>\n";
  for (int i = 0; i <= 4; ++i) {
    double y = top + ph - ph * i / 4.0;
    o << "<line x1=\"" << left << "\" y1=\"" << F(y) << "\" x2=\"" << left + pw << "\" y2=\"" << F(y)
      << "\" class=\"g\"/><text x=\"" << left - 6 << "\" y=\"" << F(y + 4) << "\" class=\"a\" text-anchor=\"end\">"
      << F(y_max * i / 4.0) << "</text>\n";
  }
  o << "<text x=\"" << left + pw << "\" y=\"" << h - 8 << "\" class=\"a\" text-anchor=\"end\">" << F(t_max)
    << " s</text><text x=\"" << left << "\" y=\"" << h - 8 << "\" class=\"a\">0 s</text>"
    // The unit heads the value axis, clear of its tick labels.
    << "<text x=\"" << left - 6 << "\" y=\"18\" class=\"a\" text-anchor=\"end\">" << Html(unit) << "</text>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const char* color = kColors[k % (sizeof(kColors) / sizeof(kColors[0]))];
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.6\" points=\"";
    for (const auto& [t, v] : series[k].points) {
      double x = left + pw * t / t_max;
      double y = top + ph - ph * std::clamp(v, 0.0, y_max) / y_max;
      o << F(x) << "," << F(y) << " ";
    }
    o << "\"/>\n<rect x=\"" << left + pw + 14 << "\" y=\"" << top + 16 * k << "\" width=\"10\" height=\"10\" fill=\""
      << color << "\"/><text x=\"" << left + pw + 30 << "\" y=\"" << top + 16 * k + 9 << "\" class=\"a\">"
      << Html(series[k].name) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
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
    << "</title>\n<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;max-width:980px;color:#222}"
       "h1{font-size:20px}h2{font-size:16px;margin-top:28px}.f{border-left:4px solid #e6a700;padding:6px 12px;"
       "margin:10px 0;background:#fffaf0}.f.error{border-color:#d62728;background:#fff3f3}.id{font-family:monospace;"
       "color:#555}svg{display:block;margin:8px 0}.t{font-weight:600;font-size:13px}.a{font-size:11px;fill:#555}"
       ".g{stroke:#e5e5e5}td,th{padding:2px 10px;text-align:left}</style></head><body>\n"
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
