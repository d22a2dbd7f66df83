// Inline-SVG charts for the HTML deployment report (see html_svg.hpp).
#include "reports/html_svg.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

std::string esc(const std::string& s) { return xml_escape(visible(s)); }  // as render_html.cpp's

// Fixed-precision number for axis labels: integers print as integers.
std::string num(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(std::llround(v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

void svg_bar_chart(std::ostream& o, const std::vector<std::pair<std::string, uint64_t>>& bars, const std::string& title,
                   const std::string& css, const std::string& unit) {
  constexpr uint64_t kLabel = 220, kBar = 400, kRow = 22, kTop = 8;
  uint64_t max = 0;
  for (const auto& b : bars) max = std::max(max, b.second);
  const uint64_t width = kLabel + kBar + 90, height = kTop * 2 + kRow * bars.size();
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart " << esc(css) << "\" width=\"" << width
    << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\""
    << esc(title) << "\">\n";
  for (size_t k = 0; k < bars.size(); ++k) {
    const auto& [name, n] = bars[k];
    const uint64_t y = kTop + kRow * k;
    const uint64_t w = max == 0 ? 0 : (n * kBar + max / 2) / max;
    o << "<text x=\"" << kLabel - 8 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">" << esc(name) << "</text>";
    o << "<rect class=\"bar\" x=\"" << kLabel << "\" y=\"" << y + 3 << "\" width=\"" << w << "\" height=\"16\"><title>"
      << esc(name) << ": " << n << " " << esc(unit) << "</title></rect>";
    o << "<text x=\"" << kLabel + w + 6 << "\" y=\"" << y + 15 << "\">" << n << "</text>\n";
  }
  o << "</svg>\n";
}

void svg_line_chart(std::ostream& o, const std::string& title, const std::string& xlabel, const std::string& ylabel,
                    const std::vector<Series>& series) {
  constexpr int kW = 560, kH = 260, kLeft = 60, kRight = 150, kTop = 24, kBottom = 40;
  const int pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  bool first = true;
  for (const Series& s : series)
    for (const auto& [x, y] : s.points) {
      if (first) {
        x0 = x1 = x;
        y0 = y1 = y;
        first = false;
      }
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  y0 = std::min(y0, 0.0);
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1;
  auto X = [&](double x) { return kLeft + static_cast<int>(std::lround((x - x0) / (x1 - x0) * pw)); };
  auto Y = [&](double y) { return kTop + ph - static_cast<int>(std::lround((y - y0) / (y1 - y0) * ph)); };
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart line\" width=\"" << kW << "\" height=\"" << kH
    << "\" viewBox=\"0 0 " << kW << " " << kH << "\" role=\"img\" aria-label=\"" << esc(title) << "\">\n";
  o << "<text x=\"" << kLeft << "\" y=\"14\" class=\"title\">" << esc(title) << "</text>\n";
  o << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop + ph << "\" x2=\"" << kLeft + pw << "\" y2=\""
    << kTop + ph << "\"/><line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\""
    << kTop + ph << "\"/>\n";
  o << "<text x=\"" << kLeft << "\" y=\"" << kTop + ph + 16 << "\">" << num(x0) << "</text><text x=\"" << kLeft + pw
    << "\" y=\"" << kTop + ph + 16 << "\" text-anchor=\"end\">" << num(x1) << "</text><text x=\"" << kLeft + pw / 2
    << "\" y=\"" << kTop + ph + 32 << "\" text-anchor=\"middle\">" << esc(xlabel) << "</text>\n";
  o << "<text x=\"" << kLeft - 6 << "\" y=\"" << kTop + ph << "\" text-anchor=\"end\">" << num(y0) << "</text><text x=\""
    << kLeft - 6 << "\" y=\"" << kTop + 10 << "\" text-anchor=\"end\">" << num(y1) << "</text><text x=\"12\" y=\""
    << kTop + ph / 2 << "\" transform=\"rotate(-90 12 " << kTop + ph / 2 << ")\" text-anchor=\"middle\">" << esc(ylabel)
    << "</text>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    std::vector<std::pair<double, double>> pts = s.points;
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    o << "<g class=\"series " << esc(s.css) << "\"><title>" << esc(s.name) << "</title>";
    if (pts.size() > 1) {
      o << "<polyline points=\"";
      for (size_t i = 0; i < pts.size(); ++i) o << (i ? " " : "") << X(pts[i].first) << "," << Y(pts[i].second);
      o << "\"/>";
    }
    for (const auto& [x, y] : pts)
      o << "<circle cx=\"" << X(x) << "\" cy=\"" << Y(y) << "\" r=\"3\"><title>" << esc(s.name) << ": " << esc(xlabel)
        << " " << num(x) << ", " << num(y) << "</title></circle>";
    const int ly = kTop + 8 + 18 * static_cast<int>(k);
    o << "<line x1=\"" << kLeft + pw + 12 << "\" y1=\"" << ly << "\" x2=\"" << kLeft + pw + 32 << "\" y2=\"" << ly
      << "\"/><text x=\"" << kLeft + pw + 36 << "\" y=\"" << ly + 4 << "\">" << esc(s.name) << "</text></g>\n";
  }
  o << "</svg>\n";
}

void svg_log_chart(std::ostream& o, const std::string& title, const std::string& x_label, const std::string& y_label,
                   uint64_t x_max, const std::vector<LogSeries>& series, const std::vector<ChartMarker>& markers) {
  constexpr double W = 860, H = 420, L = 80, R = 170, T = 30, B = 50;
  const double pw = W - L - R, ph = H - T - B;
  const double x0 = std::log(2.0), x1 = std::log(std::max<double>(3.0, static_cast<double>(x_max)));
  double vmin = 1e300, vmax = 0;
  for (const LogSeries& s : series)
    for (const auto& [r, v] : s.points)
      if (v > 0 && std::isfinite(v)) vmin = std::min(vmin, v), vmax = std::max(vmax, v);
  if (vmax <= 0) vmin = 1, vmax = 10;
  const double y0 = std::floor(std::log10(vmin)), y1 = std::max(y0 + 1, std::ceil(std::log10(vmax)));
  auto X = [&](double r) { return L + (std::log(r) - x0) / (x1 - x0) * pw; };
  auto Y = [&](double v) { return T + ph - (std::log10(v) - y0) / (y1 - y0) * ph; };
  auto f1 = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return std::string(buf);
  };
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" role=\"img\" aria-label=\"" << esc(title) << "\">\n";
  o << "<title>" << esc(title) << "</title>\n";
  o << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#8c959f\"/>\n";
  for (double e = y0; e <= y1; ++e) {  // horizontal grid at powers of 10
    const double y = Y(std::pow(10.0, e));
    o << "<line x1=\"" << L << "\" y1=\"" << f1(y) << "\" x2=\"" << L + pw << "\" y2=\"" << f1(y)
      << "\" stroke=\"#eaeef2\"/><text x=\"" << L - 6 << "\" y=\"" << f1(y + 4) << "\" text-anchor=\"end\">1e"
      << static_cast<int>(e) << "</text>\n";
  }
  for (uint64_t r = 2; r <= x_max; r *= 2) {  // vertical grid at powers of 2
    const double x = X(static_cast<double>(r));
    o << "<line x1=\"" << f1(x) << "\" y1=\"" << T << "\" x2=\"" << f1(x) << "\" y2=\"" << T + ph
      << "\" stroke=\"#eaeef2\"/><text x=\"" << f1(x) << "\" y=\"" << T + ph + 16 << "\" text-anchor=\"middle\">" << r
      << "</text>\n";
    if (r > x_max / 2) break;
  }
  o << "<text x=\"" << L + pw / 2 << "\" y=\"" << H - 10 << "\" text-anchor=\"middle\">" << esc(x_label) << "</text>\n";
  o << "<text x=\"16\" y=\"" << T + ph / 2 << "\" transform=\"rotate(-90 16 " << T + ph / 2
    << ")\" text-anchor=\"middle\">" << esc(y_label) << "</text>\n";
  int legend = 0;
  for (const LogSeries& s : series) {
    o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.8\" points=\"";
    double last_x = -1;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const auto& [r, v] = s.points[i];
      if (!(v > 0 && std::isfinite(v))) continue;  // log scale; a non-finite value would stretch the axis forever
      const double x = X(static_cast<double>(r));
      if (x - last_x < 0.5 && i + 1 < s.points.size()) continue;  // one point per half pixel
      last_x = x;
      o << f1(x) << "," << f1(Y(v)) << " ";
    }
    o << "\"><title>" << esc(s.name) << "</title></polyline>\n";
    o << "<line x1=\"" << L + pw + 12 << "\" y1=\"" << T + 10 + 20 * legend << "\" x2=\"" << L + pw + 36 << "\" y2=\""
      << T + 10 + 20 * legend << "\" stroke=\"" << s.color << "\" stroke-width=\"3\"/><text x=\"" << L + pw + 42
      << "\" y=\"" << T + 14 + 20 * legend << "\">" << esc(s.name) << "</text>\n";
    ++legend;
  }
  auto marker = [&](uint64_t r, const std::string& color, const std::string& label, int slot) {
    const double x = X(static_cast<double>(r));
    o << "<line x1=\"" << f1(x) << "\" y1=\"" << T << "\" x2=\"" << f1(x) << "\" y2=\"" << T + ph << "\" stroke=\""
      << color << "\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"><title>" << esc(label) << "</title></line>\n";
    for (const LogSeries& s : series)
      for (const auto& [rr, v] : s.points)
        if (rr == r && v > 0 && std::isfinite(v))
          o << "<circle cx=\"" << f1(x) << "\" cy=\"" << f1(Y(v)) << "\" r=\"5\" fill=\"none\" stroke=\"" << color
            << "\" stroke-width=\"2\"/>\n";
    o << "<text x=\"" << f1(x + 4) << "\" y=\"" << T + 14 + 14 * slot << "\" fill=\"" << color << "\">" << esc(label)
      << "</text>\n";
  };
  for (size_t k = 0; k < markers.size(); ++k)
    marker(markers[k].x, markers[k].color, markers[k].label, static_cast<int>(k));
  o << "</svg>\n";
}

std::vector<std::pair<std::string, uint64_t>> parse_histogram(const std::string& s) {
  std::vector<std::pair<std::string, uint64_t>> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    const std::string tok = s.substr(i, j - i);
    i = j;
    const size_t colon = tok.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    uint64_t n = 0;
    const char* b = tok.data() + colon + 1;
    const char* e = tok.data() + tok.size();
    auto [ptr, ec] = std::from_chars(b, e, n);
    if (ec != std::errc() || ptr != e) continue;
    out.emplace_back(tok.substr(0, colon), n);
  }
  return out;
}

bool leading_number(const std::string& s, double& out) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data()) return false;
  out = static_cast<double>(v);
  return true;
}

}  // namespace collcheck::reports_detail
