// HTML renderer: one self-contained page (inline CSS and SVG, no scripts,
// no external resources) that can be attached to a CI run or mailed. It has
// the run's parameters, a summary table per (algorithm, variant), an inline
// SVG bar chart of violating instances per property (where a picture says
// more than a list), the minimal counterexamples, unknown and skipped
// instances, and the notes. Every report string is HTML-escaped.
#include <algorithm>
#include <locale>
#include <sstream>

#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

const char* kStyle =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:72em;"
    "padding:0 1em;color:#1f2328}\n"
    "table{border-collapse:collapse;margin:1em 0}\n"
    "th,td{border:1px solid #d0d7de;padding:.3em .7em;text-align:left;vertical-align:top}\n"
    "th{background:#f6f8fa}\n"
    "td.num{text-align:right}\n"
    "code{font-family:ui-monospace,'SFMono-Regular',Menlo,monospace;font-size:90%}\n"
    ".holds{color:#1a7f37}\n"
    ".violated{color:#cf222e;font-weight:bold}\n"
    ".unknown{color:#9a6700;font-weight:bold}\n"
    ".skipped{color:#6e7781}\n"
    "svg text{font-family:ui-monospace,Menlo,monospace;font-size:12px;fill:#1f2328}\n"
    "svg rect.bar{fill:#cf222e}\n";

std::string esc(const std::string& s) { return xml_escape(s); }

std::string status_span(Status s) {
  return std::string("<span class=\"") + to_string(s) + "\">" + to_string(s) + "</span>";
}

std::string code(const std::string& s) { return s.empty() ? "-" : "<code>" + esc(s) + "</code>"; }

// Horizontal bars: property name, bar, count. Integer geometry keeps the
// output reproducible to the byte.
void write_chart(std::ostringstream& o, const std::vector<std::pair<std::string, uint64_t>>& bars) {
  constexpr uint64_t kLabel = 220, kBar = 400, kRow = 22, kTop = 8;
  uint64_t max = 0;
  for (const auto& b : bars) max = std::max(max, b.second);
  const uint64_t width = kLabel + kBar + 80, height = kTop * 2 + kRow * bars.size();
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height
    << "\" role=\"img\" aria-label=\"violating instances per property\">\n";
  for (size_t k = 0; k < bars.size(); ++k) {
    const auto& [name, n] = bars[k];
    const uint64_t y = kTop + kRow * k;
    const uint64_t w = max == 0 ? 0 : (n * kBar + max / 2) / max;
    o << "<text x=\"" << kLabel - 8 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">" << esc(name) << "</text>";
    o << "<rect class=\"bar\" x=\"" << kLabel << "\" y=\"" << y + 3 << "\" width=\"" << w
      << "\" height=\"16\"><title>" << esc(name) << ": " << n << " violating instance" << (n == 1 ? "" : "s")
      << "</title></rect>";
    o << "<text x=\"" << kLabel + w + 6 << "\" y=\"" << y + 15 << "\">" << n << "</text>\n";
  }
  o << "</svg>\n";
}

void write_counterexample(std::ostringstream& o, const Group& g, const PropertySummary& ps) {
  o << "<h3>" << code(g.label()) << ": " << code(ps.property) << "</h3>\n";
  o << "<p>Violated at p=" << esc(format_p_list(ps.violated_p)) << " (" << ps.violated_p.size() << " instance"
    << (ps.violated_p.size() == 1 ? "" : "s") << ", " << ps.violations << " failed check"
    << (ps.violations == 1 ? "" : "s") << ").</p>\n";
  if (!ps.minimal) {
    o << "<p>No counterexample was recorded.</p>\n";
    return;
  }
  const Counterexample& cx = *ps.minimal;
  o << "<table class=\"cx\">\n";
  o << "<tr><th>location</th><td>" << code(cx.location()) << "</td></tr>\n";
  if (!cx.expected.empty()) o << "<tr><th>expected</th><td>" << code(cx.expected) << "</td></tr>\n";
  if (!cx.actual.empty()) o << "<tr><th>actual</th><td>" << code(cx.actual) << "</td></tr>\n";
  if (!cx.message.empty()) o << "<tr><th>message</th><td>" << esc(cx.message) << "</td></tr>\n";
  if (!ps.minimal_stats.empty())
    o << "<tr><th>stats</th><td>" << esc(format_stats(ps.minimal_stats)) << "</td></tr>\n";
  o << "</table>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  const std::vector<Group> groups = group_instances(r);
  const std::string title = "collcheck " + r.kind + " report: " + to_string(r.status());

  std::ostringstream o;
  o.imbue(std::locale::classic());
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o << "<title>" << esc(title) << "</title>\n<style>\n" << kStyle << "</style>\n</head>\n<body>\n";
  o << "<h1>collcheck " << esc(r.kind) << " report: " << status_span(r.status()) << "</h1>\n";

  o << "<table class=\"run\">\n";
  o << "<tr><th>tool version</th><td>" << esc(r.tool_version) << "</td></tr>\n";
  if (!r.command.empty()) o << "<tr><th>command</th><td>" << code(r.command) << "</td></tr>\n";
  o << "<tr><th>mode</th><td>" << esc(r.mode) << "</td></tr>\n";
  o << "<tr><th>seed</th><td>" << r.seed << "</td></tr>\n";
  o << "<tr><th>threads</th><td>" << r.threads << "</td></tr>\n";
  o << "<tr><th>seconds</th><td>" << format_seconds(r.seconds) << "</td></tr>\n";
  o << "</table>\n";

  o << "<h2>Summary</h2>\n";
  if (groups.empty()) {
    o << "<p>No instances were checked.</p>\n";
  } else {
    o << "<table class=\"summary\">\n<tr><th>algorithm</th><th>variant</th><th>collective</th><th>p checked</th>"
         "<th>status</th><th>hold</th><th>violated</th><th>unknown</th><th>skipped</th>"
         "<th>failing properties</th></tr>\n";
    for (const Group& g : groups) {
      std::string failing;
      for (const PropertySummary* ps : g.violated_properties())
        failing += (failing.empty() ? "" : ", ") + code(ps->property);
      o << "<tr><td>" << code(g.algorithm) << "</td><td>" << code(g.variant) << "</td><td>" << esc(g.collective)
        << "</td><td>" << esc(format_p_list(g.ps())) << "</td><td>" << status_span(g.status) << "</td>";
      for (Status s : {Status::holds, Status::violated, Status::unknown, Status::skipped})
        o << "<td class=\"num\">" << g.n(s) << "</td>";
      o << "<td>" << (failing.empty() ? "-" : failing) << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  const auto bars = violations_per_property(r);
  o << "<h2>Violating instances per property</h2>\n";
  if (bars.empty()) o << "<p>No property verdicts in this report.</p>\n";
  else write_chart(o, bars);

  bool any_violated = false;
  for (const Group& g : groups) any_violated |= !g.violated_properties().empty();
  if (any_violated) {
    o << "<h2>Counterexamples</h2>\n";
    for (const Group& g : groups)
      for (const PropertySummary* ps : g.violated_properties()) write_counterexample(o, g, *ps);
  }

  std::ostringstream dist;
  for (const Group& g : groups)
    for (const auto& [property, line] : distribution_lines(g))
      dist << "<li>" << code(g.label()) << " " << code(property) << ": " << esc(line) << "</li>\n";
  if (!dist.str().empty()) o << "<h2>Distributions over the sweep</h2>\n<ul>\n" << dist.str() << "</ul>\n";

  std::ostringstream unknown;
  for (const Group& g : groups)
    for (const PropertySummary& ps : g.properties)
      if (!ps.unknown_p.empty())
        unknown << "<li>" << code(g.label()) << " " << code(ps.property) << ": p="
                << esc(format_p_list(ps.unknown_p)) << "</li>\n";
  if (!unknown.str().empty()) o << "<h2>Unknown</h2>\n<ul>\n" << unknown.str() << "</ul>\n";

  std::ostringstream skipped;
  for (const Group& g : groups)
    for (const auto& [reason, ps] : g.skip_reasons)
      skipped << "<li>" << code(g.label()) << " p=" << esc(format_p_list(ps)) << ": " << esc(reason) << "</li>\n";
  if (!skipped.str().empty()) o << "<h2>Skipped</h2>\n<ul>\n" << skipped.str() << "</ul>\n";

  if (!r.notes.empty()) {
    o << "<h2>Notes</h2>\n<ul>\n";
    for (const std::string& n : r.notes) o << "<li>" << esc(n) << "</li>\n";
    o << "</ul>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace collcheck::reports_detail
