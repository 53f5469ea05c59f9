// The inline-SVG line chart and page style the HTML reports share (`tfhost
// advise --html`, `tfhost plan --html`): one self-contained file, no scripts
// or external resources, so it opens anywhere, air-gapped clusters included.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tfhost::host {

// `s` with &, <, > and " escaped for HTML text and attributes.
std::string HtmlEscape(const std::string& s);

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x from 0
};

// A line chart, one coloured line per series with a legend; y is clamped to
// [0, y_max]; the x axis runs from 0 to the largest x and is labelled with
// `x_unit` ("s" for time series).
std::string SvgLineChart(const std::string& title, const std::vector<ChartSeries>& series, double y_max,
                         const std::string& y_unit, const std::string& x_unit = "s");

// The <style> element of the reports.
std::string HtmlReportStyle();

}  // namespace tfhost::host
