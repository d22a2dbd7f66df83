#pragma once
// Inline-SVG charts for the HTML deployment report (reports/render_html.cpp):
// horizontal bar charts (violating instances per property, the buckets of a
// *_histogram statistic) and line charts (K and D against the radix, steps
// and volume measured vs claimed against p); and for `collcheck analyze`
// (reports/tra/radix_analysis_report.cpp) log-log charts against the radix. No scripts, no external
// resources; integer geometry so the page is reproducible to the byte.
// Every label is XML-escaped here.
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace collcheck::reports_detail {

// One bar per entry; `title` becomes the SVG's aria-label, `css` its class.
void svg_bar_chart(std::ostream& o, const std::vector<std::pair<std::string, uint64_t>>& bars,
                   const std::string& title, const std::string& css, const std::string& unit);

struct Series {
  std::string name;
  std::string css;  // "s0", "s1", ...: colour and dash come from the page's style sheet
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
};

// A line chart with markers, axes labelled with their ranges and a legend.
void svg_line_chart(std::ostream& o, const std::string& title, const std::string& xlabel, const std::string& ylabel,
                    const std::vector<Series>& series);

// A log-log chart of y against x = 2..x_max (x_max >= 3 on the axis): grid
// lines at powers of 10 (y, over the series' positive finite values) and of 2
// (x), each series a polyline with at most one point per half pixel (values
// that are not positive and finite are left out), a legend, and per marker
// a dashed vertical line at its x, circles where the series meet it and its
// label (markers[k] on label row k). Colours are inline.
struct LogSeries {
  std::string name, color;
  std::vector<std::pair<uint64_t, double>> points;  // (x, y), x ascending
};
struct ChartMarker {
  uint64_t x;
  std::string color, label;
};
void svg_log_chart(std::ostream& o, const std::string& title, const std::string& x_label, const std::string& y_label,
                   uint64_t x_max, const std::vector<LogSeries>& series, const std::vector<ChartMarker>& markers);

// Parses "0:N0 1:N1 ..." (the *_histogram statistics); malformed entries are skipped.
std::vector<std::pair<std::string, uint64_t>> parse_histogram(const std::string& s);

// The leading integer of a statistic ("6 (2*ceil(log2 p))" -> 6); false if none.
bool leading_number(const std::string& s, double& out);

}  // namespace collcheck::reports_detail
