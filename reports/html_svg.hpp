#pragma once
// Inline-SVG charts for the HTML deployment report (reports/render_html.cpp):
// horizontal bar charts (violating instances per property, the buckets of a
// *_histogram statistic) and line charts (K and D against the radix, steps
// and volume measured vs claimed against p). No scripts, no external
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

// Parses "0:N0 1:N1 ..." (the *_histogram statistics); malformed entries are skipped.
std::vector<std::pair<std::string, uint64_t>> parse_histogram(const std::string& s);

// The leading integer of a statistic ("6 (2*ceil(log2 p))" -> 6); false if none.
bool leading_number(const std::string& s, double& out);

}  // namespace collcheck::reports_detail
