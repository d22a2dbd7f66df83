// HTML renderer: the deployment report, one self-contained page (inline CSS
// and SVG, no scripts, no external resources) that a person reads before
// deploying a schedule, and that can be attached to a CI run or mailed:
//   * the verdict banner (summary.hpp's deployment_verdict: unexpected
//     violations vs expected refutations of paper readings) and the run's
//     parameters;
//   * a summary table per (algorithm, variant) and a bar chart of violating
//     instances per property;
//   * verdicts per property and instance (a status matrix; runs of holding
//     instances share a row);
//   * each minimal counterexample as a table and a step-by-rank diagram with
//     the offending transfer highlighted (reports/html_diagram.hpp), those of
//     paper readings refuted on purpose in a section of their own;
//   * sweep coverage: which p were checked, which skipped and why;
//   * statistics as charts (reports/html_svg.hpp): the histogram
//     distributions summed over the sweep (e.g. traff-bounds' violations per
//     rank), K and D against the radix for TRA (tra-formulas), and steps and
//     volume measured vs claimed (cost) against p;
//   * unknown instances and the notes.
// Every report string is HTML-escaped, its control characters escaped
// visibly first (visible(), report.hpp). docs/deployment-report.md describes
// the page.
#include <algorithm>
#include <array>
#include <locale>
#include <map>
#include <set>
#include <sstream>

#include "reports/html_diagram.hpp"
#include "reports/html_svg.hpp"
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
    "code{font-family:ui-monospace,'SFMono-Regular',Menlo,monospace;font-size:90%;overflow-wrap:anywhere}\n"
    ".holds{color:#1a7f37}\n"
    ".violated{color:#cf222e;font-weight:bold}\n"
    ".unknown{color:#9a6700;font-weight:bold}\n"
    ".skipped{color:#6e7781}\n"
    ".expected{color:#57606a;font-style:italic;font-weight:normal}\n"
    "svg text{font-family:ui-monospace,Menlo,monospace;font-size:12px;fill:#1f2328}\n"
    "svg rect.bar{fill:#cf222e}\n"
    ".banner{padding:.8em 1.2em;border-radius:6px;font-size:1.2em;margin:1em 0}\n"
    ".banner.holds{background:#dafbe1;border:1px solid #1a7f37}\n"
    ".banner.violated{background:#ffebe9;border:1px solid #cf222e}\n"
    ".banner.unknown{background:#fff8c5;border:1px solid #9a6700}\n"
    ".banner.skipped{background:#f6f8fa;border:1px solid #6e7781}\n"
    "table.verdicts td.holds,table.verdicts td.violated,table.verdicts td.unknown,table.verdicts td.skipped"
    "{text-align:center}\n"
    "table.verdicts td.violated{background:#ffebe9}\n"
    "table.verdicts td{white-space:nowrap}\n"
    "svg.chart.histogram rect.bar{fill:#0969da}\n"
    "svg .axis{stroke:#57606a;stroke-width:1}\n"
    "svg text.title{font-weight:bold}\n"
    "svg g.series polyline,svg g.series line{fill:none;stroke-width:2}\n"
    "svg g.series.s0 polyline,svg g.series.s0 line{stroke:#0969da}svg g.series.s0 circle{fill:#0969da}\n"
    "svg g.series.s1 polyline,svg g.series.s1 line{stroke:#0969da;stroke-dasharray:5 4}svg g.series.s1 circle{fill:#fff;stroke:#0969da}\n"
    "svg g.series.s2 polyline,svg g.series.s2 line{stroke:#bf8700}svg g.series.s2 circle{fill:#bf8700}\n"
    "svg g.series.s3 polyline,svg g.series.s3 line{stroke:#bf8700;stroke-dasharray:5 4}svg g.series.s3 circle{fill:#fff;stroke:#bf8700}\n"
    "svg.cx-diagram rect.col{fill:#f6f8fa}\n"
    "svg.cx-diagram line.lane{stroke:#d0d7de;stroke-dasharray:2 3}\n"
    "svg.cx-diagram g.transfer line{stroke:#57606a;stroke-width:1.5}\n"
    "svg.cx-diagram path.head{fill:#57606a}svg.cx-diagram path.head-bad{fill:#cf222e}\n"
    "svg.cx-diagram g.offending line{stroke:#cf222e;stroke-width:3.5}\n"
    "svg.cx-diagram g.offending circle{fill:none;stroke:#cf222e;stroke-width:3}\n"
    "svg.cx-diagram g.offending text{fill:#cf222e;font-weight:bold}\n"
    "svg.cx-diagram text.cx-rank{fill:#cf222e;font-weight:bold}\n"
    "svg.cx-diagram text.label{font-size:10px}\n"
    "ul.coverage li{margin:.2em 0}\n"
    ".scroll{overflow-x:auto}\n";

// Control characters escaped visibly first (visible(), report.hpp: a newline
// is "\n", ESC "\x1b"), as in the text and Markdown reports, then &, <, >
// and quotes.
std::string esc(const std::string& s) { return xml_escape(visible(s)); }

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

void write_counterexample(std::ostringstream& o, const Group& g, const PropertySummary& ps, int& diagrams) {
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
  o << "<tr><th>location</th><td>" << code(minimal_location(ps)) << "</td></tr>\n";
  if (!cx.expected.empty()) o << "<tr><th>expected</th><td>" << code(cx.expected) << "</td></tr>\n";
  if (!cx.actual.empty()) o << "<tr><th>actual</th><td>" << code(cx.actual) << "</td></tr>\n";
  if (!cx.message.empty()) o << "<tr><th>message</th><td>" << esc(cx.message) << "</td></tr>\n";
  if (cx.root_cause) o << "<tr><th>root cause</th><td>" << esc(cx.root_cause->text) << "</td></tr>\n";
  if (!ps.minimal_stats.empty())
    o << "<tr><th>stats</th><td>" << esc(format_stats(ps.minimal_stats)) << "</td></tr>\n";
  o << "</table>\n";
  // The instance it comes from (not the first of its p: two torus shapes
  // of one p are two instances).
  const InstanceResult* inst = ps.minimal_instance;
  const auto [first, last] = diagram_steps(cx);
  std::vector<DiagramTransfer> excerpt;
  if (inst) excerpt = registry_excerpt(g.algorithm, g.variant, inst->params, cx.p, first, last);
  o << "<figure>\n";
  svg_counterexample(o, cx, excerpt, diagrams++);
  o << "<figcaption>"
    << (!excerpt.empty() ? "The schedule's transfers"
                         : cx.peer ? "The counterexample's own transfer" : "The counterexample's rank")
    << (cx.step ? " at steps " + std::to_string(first) + ".." + std::to_string(last) : std::string())
    << "; in red the offending " << (cx.peer && cx.rank ? "transfer (rank " + std::to_string(*cx.rank) + " and rank " +
                                                  std::to_string(*cx.peer) + ")"
                                             : std::string("rank and step"))
    << ".</figcaption>\n</figure>\n";
}

const char* status_mark(Status s) {
  switch (s) {
    case Status::holds: return "&#10003; holds";
    case Status::violated: return "&#10007; violated";
    case Status::unknown: return "? unknown";
    case Status::skipped: return "&#8211; skipped";
  }
  return "";
}

// Verdicts per property (columns) and instance (rows; summary.hpp's
// instance_rows: a run of holding instances, or the skipped ones, share a
// row, class "instances"). Tables of more than kMaxRows rows list the rows
// that do not hold and say how many instances are left out.
void write_verdict_matrix(std::ostringstream& o, const Report& r, const std::vector<Group>& groups) {
  constexpr size_t kMaxRows = 300;
  std::vector<std::string> props;
  for (const auto& [name, n] : violations_per_property(r)) props.push_back(name);
  std::vector<std::pair<const Group*, InstanceRow>> all_rows;
  for (const Group& g : groups)
    for (InstanceRow& row : instance_rows(g)) all_rows.push_back({&g, std::move(row)});
  const bool all = all_rows.size() <= kMaxRows;
  o << "<h2>Verdicts per property and instance</h2>\n";
  std::ostringstream rows;
  size_t shown = 0, left_out = 0;
  for (const auto& [g, row] : all_rows) {
    const InstanceResult* i = row.instances.front();
    const Status st = effective_status(*i);
    if (!all && (st == Status::holds || shown >= kMaxRows)) {
      left_out += row.instances.size();
      continue;
    }
    ++shown;
    std::map<std::string, Status> by;
    for (const Verdict& v : merged_verdicts(*i)) by[v.property] = v.status;
    const size_t n = row.instances.size();
    rows << "<tr class=\"" << (n > 1 ? "instances" : "instance") << "\"><td>" << code(g->label()) << " p="
      << esc(row.p_list()) << (i->params.empty() ? "" : " " + esc(i->params))
      << (n > 1 ? " (" + std::to_string(n) + " instances)" : "") << "</td><td class=\"" << to_string(st) << "\">"
      << status_mark(st) << "</td>";
    for (const std::string& pr : props) {
      auto it = by.find(pr);
      if (it == by.end()) rows << "<td>-</td>";
      else rows << "<td class=\"" << to_string(it->second) << "\">" << status_mark(it->second) << "</td>";
    }
    rows << "</tr>\n";
  }
  if (shown > 0) {
    o << "<div class=\"scroll\"><table class=\"verdicts\">\n<tr><th>instance</th><th>status</th>";
    for (const std::string& pr : props) o << "<th>" << code(pr) << "</th>";
    o << "</tr>\n" << rows.str() << "</table></div>\n";
  }
  if (left_out > 0)
    o << "<p>" << left_out << " more instance" << (left_out == 1 ? "" : "s")
      << " not listed here (the table below counts every instance).</p>\n";
  if (all) return;
  // Long sweeps: every instance counted, per (algorithm, variant) and property.
  o << "<div class=\"scroll\"><table class=\"verdicts per-group\">\n<tr><th>algorithm/variant</th>";
  for (const std::string& pr : props) o << "<th>" << code(pr) << "</th>";
  o << "</tr>\n";
  for (const Group& g : groups) {
    o << "<tr class=\"group\"><td>" << code(g.label()) << "</td>";
    for (const std::string& pr : props) {
      std::array<uint64_t, 4> n{};
      for (const InstanceResult* i : g.instances)
        for (const Verdict& v : merged_verdicts(*i))
          if (v.property == pr) ++n[static_cast<size_t>(status_index(v.status))];
      const Status worst_seen = n[1] ? Status::violated : n[2] ? Status::unknown : n[0] ? Status::holds : Status::skipped;
      if (n[0] + n[1] + n[2] + n[3] == 0) {
        o << "<td>-</td>";
        continue;
      }
      o << "<td class=\"" << to_string(worst_seen) << "\">";
      bool first = true;
      for (Status st : {Status::holds, Status::violated, Status::unknown, Status::skipped})
        if (n[static_cast<size_t>(status_index(st))]) {
          o << (first ? "" : ", ") << n[static_cast<size_t>(status_index(st))] << " " << to_string(st);
          first = false;
        }
      o << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table></div>\n";
}

// Which p were checked, which skipped and why, and which method decided
// the checked ones (quotient, intervals, enumeration), per (algorithm, variant).
void write_coverage(std::ostringstream& o, const std::vector<Group>& groups) {
  o << "<h2>Coverage</h2>\n<ul class=\"coverage\">\n";
  for (const Group& g : groups) {
    std::vector<uint64_t> checked;
    for (const InstanceResult* i : g.instances)
      if (effective_status(*i) != Status::skipped) checked.push_back(i->p);
    o << "<li>" << code(g.label()) << ": checked p=" << (checked.empty() ? "none" : esc(format_p_list(checked))) << " ("
      << checked.size() << " instance" << (checked.size() == 1 ? "" : "s") << ")";
    for (const auto& [reason, ps] : g.skip_reasons)
      o << "; <span class=\"skipped\">skipped p=" << esc(format_p_list(ps)) << ": " << esc(reason) << "</span>";
    for (const auto& [method, ps] : g.methods)
      o << "; <span class=\"method\">decided at p=" << esc(format_p_list(ps)) << " by " << esc(method) << "</span>";
    o << "</li>\n";
  }
  o << "</ul>\n";
}

// The value of a verdict statistic of `property` in instance i, as a number.
bool stat_of(const InstanceResult& i, const std::string& property, const std::string& key, double& out) {
  for (const Verdict& v : i.verdicts)
    if (v.property == property) {
      auto it = v.stats.find(key);
      if (it != v.stats.end() && leading_number(it->second, out)) return true;
    }
  return false;
}

bool radix_of(const std::string& params, double& out) {
  const std::string key = "r=";
  size_t at = params.rfind(' ' + key);
  at = params.compare(0, key.size(), key) == 0 ? 0 : (at == std::string::npos ? at : at + 1);
  return at != std::string::npos && leading_number(params.substr(at + key.size()), out);
}

// Statistics as charts: histogram distributions (declared Aggregate::histogram), K and D against the radix
// (TRA), steps and volume measured vs claimed against p (cost).
void write_stat_charts(std::ostringstream& o, const std::vector<Group>& groups) {
  constexpr int kMaxCharts = 48;
  std::map<std::string, int> histograms_of;  // at most 3 histogram charts per group
  std::ostringstream c;
  c.imbue(std::locale::classic());
  int charts = 0;
  for (const Group& g : groups)
    for (const PropertySummary& ps : g.properties)
      for (const auto& [key, value] : ps.distribution) {
        if (charts >= kMaxCharts || ps.kind(key) != Aggregate::histogram ||
            histograms_of[g.label()] >= 3)
          continue;
        const auto bars = parse_histogram(value);
        if (bars.empty()) continue;
        c << "<h3>" << code(g.label()) << " " << code(ps.property) << ": " << code(key) << " over the sweep</h3>\n";
        svg_bar_chart(c, bars, g.label() + " " + ps.property + " " + key, "histogram", "(summed over the sweep)");
        ++charts;
        ++histograms_of[g.label()];
      }
  for (const Group& g : groups) {
    std::map<uint64_t, std::vector<Series>> tra;  // per p: K and D against the radix
    for (const InstanceResult* i : g.instances) {
      double radix = 0, v = 0;
      if (!radix_of(i->params, radix)) continue;
      auto& ser = tra[i->p];
      if (ser.empty()) ser = {{"K measured", "s0", {}}, {"K claimed", "s1", {}}, {"D measured", "s2", {}},
                              {"D claimed", "s3", {}}};
      const char* keys[] = {"measured_K", "claimed_K", "measured_D", "claimed_D"};
      for (int k = 0; k < 4; ++k)
        if (stat_of(*i, "tra-formulas", keys[k], v)) ser[static_cast<size_t>(k)].points.push_back({radix, v});
    }
    int per_group = 0;
    for (auto& [p, ser] : tra) {
      std::erase_if(ser, [](const Series& s) { return s.points.empty(); });
      if (ser.empty() || charts >= kMaxCharts || per_group >= 4) continue;
      svg_line_chart(c, g.label() + " p=" + std::to_string(p) + ": K rounds and D blocks against the radix", "radix r",
                     "K, D", ser);
      ++charts, ++per_group;
    }
    std::vector<Series> steps = {{"steps measured", "s0", {}}, {"steps claimed", "s1", {}}};
    std::vector<Series> volume = {{"volume measured", "s2", {}}, {"volume claimed", "s3", {}}};
    // Against p; against the radix when one p is checked for several radices.
    std::set<uint64_t> distinct_p;
    bool all_radix = true;
    for (const InstanceResult* i : g.instances) {
      double r0 = 0;
      distinct_p.insert(i->p);
      all_radix = all_radix && radix_of(i->params, r0);
    }
    const bool by_radix = distinct_p.size() == 1 && all_radix && g.instances.size() > 1;
    const std::string xl = by_radix ? "radix r" : "p";
    for (const InstanceResult* i : g.instances) {
      double v = 0, x = static_cast<double>(i->p);
      if (by_radix) radix_of(i->params, x);
      if (stat_of(*i, "cost", "measured_steps", v)) steps[0].points.push_back({x, v});
      if (stat_of(*i, "cost", "claimed_steps", v)) steps[1].points.push_back({x, v});
      if (stat_of(*i, "cost", "measured_volume_blocks", v)) volume[0].points.push_back({x, v});
      if (stat_of(*i, "cost", "claimed_volume_blocks", v)) volume[1].points.push_back({x, v});
    }
    std::erase_if(steps, [](const Series& s) { return s.points.empty(); });
    std::erase_if(volume, [](const Series& s) { return s.points.empty(); });
    if (!steps.empty() && charts < kMaxCharts) {
      svg_line_chart(c, g.label() + ": steps, measured vs claimed", xl, "steps", steps);
      ++charts;
    }
    if (!volume.empty() && charts < kMaxCharts) {
      svg_line_chart(c, g.label() + ": volume (max blocks a rank sends), measured vs claimed", xl, "blocks", volume);
      ++charts;
    }
  }
  if (charts == 0) return;
  o << "<h2>Statistics</h2>\n" << c.str();
  if (charts >= kMaxCharts) o << "<p>Further charts left out (at most " << kMaxCharts << " per page).</p>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  const std::vector<Group> groups = group_instances(r);
  // The title, the heading and the banner say the verdict line, as the text
  // report's VERDICT line does; the status (RESULT, which counts expected
  // refutations of paper readings as violations) is a row of the run table.
  const DeploymentVerdict d = deployment_verdict(groups);
  const std::string title = "collcheck " + r.kind + " report: " + d.headline;

  std::ostringstream o;
  o.imbue(std::locale::classic());
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o << "<title>" << esc(title) << "</title>\n<style>\n" << kStyle << "</style>\n</head>\n<body>\n";
  o << "<h1>collcheck " << esc(r.kind) << " report: <span class=\"" << to_string(d.status()) << "\">"
    << esc(d.headline) << "</span></h1>\n";
  // The deployment verdict: unexpected violations, or what holds besides the
  // paper readings that are refuted on purpose.
  o << "<div class=\"banner " << to_string(d.status()) << "\" data-verdict=\"" << to_string(d.kind)
    << "\">Verdict: <strong>" << esc(d.headline) << "</strong>" << esc(d.line.substr(d.headline.size())) << ".</div>\n";

  o << "<table class=\"run\">\n";
  o << "<tr><th>tool version</th><td>" << esc(r.tool_version) << "</td></tr>\n";
  if (!r.command.empty()) o << "<tr><th>command</th><td>" << code(r.command) << "</td></tr>\n";
  o << "<tr><th>mode</th><td>" << esc(r.mode) << "</td></tr>\n";
  o << "<tr><th>seed</th><td>" << r.seed << "</td></tr>\n";
  o << "<tr><th>threads</th><td>" << r.threads << "</td></tr>\n";
  o << "<tr><th>seconds</th><td>" << format_seconds(r.seconds) << "</td></tr>\n";
  o << "<tr><th>result</th><td>" << to_string(r.status())
    << (d.unexpected.empty() && !d.refuted.empty() ? " (the expected refutations of paper readings are violations)" : "")
    << "</td></tr>\n";
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
        << "</td><td>" << esc(format_p_list(g.ps())) << "</td><td>" << status_span(g.status)
        << (g.expected_refutation ? " <span class=\"expected\">(paper reading, expected to be refuted)</span>" : "")
        << "</td>";
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

  if (!groups.empty()) write_verdict_matrix(o, r, groups);

  // Unexpected violations first, then the expected refutations of paper readings.
  int diagrams = 0;
  for (const bool expected : {false, true}) {
    bool any = false;
    for (const Group& g : groups) any |= g.expected_refutation == expected && !g.violated_properties().empty();
    if (!any) continue;
    o << (expected ? "<h2>Expected refutations of paper readings</h2>\n" : "<h2>Counterexamples</h2>\n");
    for (const Group& g : groups)
      if (g.expected_refutation == expected)
        for (const PropertySummary* ps : g.violated_properties()) write_counterexample(o, g, *ps, diagrams);
  }

  if (!groups.empty()) write_coverage(o, groups);
  write_stat_charts(o, groups);

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
