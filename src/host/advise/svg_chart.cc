// Inline-SVG charts for the HTML reports (moved out of the advise report so
// plan's report draws with the same code).
#include "host/advise/svg_chart.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace tfhost::host {

namespace {

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

std::string F(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

// Tick labels: one decimal for small values, none with a thousands scale.
std::string Tick(double v) {
  char buf[32];
  if (v >= 10000) {
    std::snprintf(buf, sizeof(buf), "%.3g", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f", v);
  }
  return buf;
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
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

std::string SvgLineChart(const std::string& title, const std::vector<ChartSeries>& series, double y_max,
                         const std::string& y_unit, const std::string& x_unit) {
  const double w = 760, h = 220, left = 48, right = 150, top = 28, bottom = 30;
  const double pw = w - left - right, ph = h - top - bottom;
  if (!(y_max > 0)) y_max = 1;
  double t_max = 1;
  for (const ChartSeries& s : series) {
    for (const auto& p : s.points) t_max = std::max(t_max, p.first);
  }
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w
    << " " << h << "\" role=\"img\" aria-label=\"" << HtmlEscape(title) << "\">\n"
    << "<text x=\"" << left << "\" y=\"18\" class=\"t\">" << HtmlEscape(title) << "</text>\n";
  for (int i = 0; i <= 4; ++i) {
    double y = top + ph - ph * i / 4.0;
    o << "<line x1=\"" << left << "\" y1=\"" << F(y) << "\" x2=\"" << left + pw << "\" y2=\"" << F(y)
      << "\" class=\"g\"/><text x=\"" << left - 6 << "\" y=\"" << F(y + 4) << "\" class=\"a\" text-anchor=\"end\">"
      << Tick(y_max * i / 4.0) << "</text>\n";
  }
  o << "<text x=\"" << left + pw << "\" y=\"" << h - 8 << "\" class=\"a\" text-anchor=\"end\">" << F(t_max) << " "
    << HtmlEscape(x_unit) << "</text><text x=\"" << left << "\" y=\"" << h - 8 << "\" class=\"a\">0 "
    << HtmlEscape(x_unit) << "</text>"
    // The unit heads the value axis, clear of its tick labels.
    << "<text x=\"" << left - 6 << "\" y=\"18\" class=\"a\" text-anchor=\"end\">" << HtmlEscape(y_unit) << "</text>\n";
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
      << HtmlEscape(series[k].name) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string HtmlReportStyle() {
  return "<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;max-width:980px;color:#222}"
         "h1{font-size:20px}h2{font-size:16px;margin-top:28px}.f{border-left:4px solid #e6a700;padding:6px 12px;"
         "margin:10px 0;background:#fffaf0}.f.error{border-color:#d62728;background:#fff3f3}.id{font-family:monospace;"
         "color:#555}svg{display:block;margin:8px 0}.t{font-weight:600;font-size:13px}.a{font-size:11px;fill:#555}"
         ".g{stroke:#e5e5e5}td,th{padding:2px 10px;text-align:left}</style>";
}

}  // namespace tfhost::host
