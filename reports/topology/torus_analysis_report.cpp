#include "reports/topology/torus_analysis_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "collcheck_version.hpp"
#include "reports/html_svg.hpp"
#include "reports/summary.hpp"

namespace collcheck {
namespace {

std::string name(const TorusAnalysisRow& r) { return r.algorithm + "/" + r.variant; }

// "holds", "violated: <what>" or "reported" for the printed row.
std::string judged(const TorusAnalysisRow& r) {
  if (!r.not_applicable.empty()) return "not applicable";
  if (r.verdict.checks == 0) return "not judged";
  if (r.verdict.status == Status::violated && r.verdict.counterexample)
    return "VIOLATED: " + r.verdict.counterexample->expected + ", measured " + r.verdict.counterexample->actual;
  return "holds (" + std::to_string(r.verdict.checks) + " printed values)";
}

std::string series_label(const TorusAnalysis& a) {
  std::string s;
  for (const auto& shape : a.series) s += (s.empty() ? "" : ", ") + dims_label(shape);
  return s;
}

}  // namespace

std::string torus_analysis_text(const TorusAnalysis& a) {
  std::ostringstream o;
  o << "collcheck analyze: link-level cost on " << a.topology << " " << dims_label(a.dims)
    << " (measured on each schedule's routed links; topology/link_load.hpp)\n";
  o << "Lambda = steps/log2 p, Psi = D sum_s P_s, Xi = sum_s L_s / sum_s P_s (Swing NSDI'24 Sec. 2.2), Theta = D sum_s "
       "L_s (Trivance Sec. 2.1)\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-44s %8s %8s %8s %8s  %s\n", "algorithm/variant", "Lambda", "Psi", "Xi", "Theta",
                "printed row");
  o << line;
  for (const TorusAnalysisRow& r : a.rows) {
    if (!r.not_applicable.empty()) {
      std::snprintf(line, sizeof line, "%-44s %s\n", name(r).c_str(), ("not applicable: " + r.not_applicable).c_str());
      o << line;
      continue;
    }
    std::snprintf(line, sizeof line, "%-44s %8.4f %8.4f %8.4f %8.4f  ", name(r).c_str(), r.cost.lambda, r.cost.psi,
                  r.cost.xi, r.cost.theta);
    o << line << judged(r) << "\n";
  }
  o << "\nXi against p (shapes " << series_label(a) << "):\n";
  for (const TorusAnalysisRow& r : a.rows) {
    if (!r.not_applicable.empty()) continue;
    o << "  " << name(r) << ":";
    for (const auto& [p, xi] : r.xi_series) o << " p=" << p << " " << fixed_decimals(xi);
    o << "\n";
  }
  if (!a.claims.empty()) o << "\nclaims:\n";
  for (const TorusClaimCheck& c : a.claims)
    o << "  " << (c.holds ? "holds" : "VIOLATED") << ": " << c.statement << " [" << c.detail << "]\n";
  o << "\nRESULT: " << (a.holds() ? "holds" : "violated") << "\n";
  return o.str();
}

std::string torus_analysis_json(const TorusAnalysis& a, const std::string& command) {
  nlohmann::json j;
  j["tool_version"] = COLLCHECK_VERSION;
  j["command"] = command;
  j["algorithm"] = a.algo;
  j["topology"] = a.topology;
  j["dims"] = a.dims;
  j["series"] = nlohmann::json::array();
  for (const auto& s : a.series) j["series"].push_back(dims_label(s));
  j["rows"] = nlohmann::json::array();
  for (const TorusAnalysisRow& r : a.rows) {
    nlohmann::json x;
    x["algorithm"] = r.algorithm;
    x["variant"] = r.variant;
    x["subject"] = r.subject;
    if (!r.not_applicable.empty()) {
      x["not_applicable"] = r.not_applicable;
    } else {
      x["lambda"] = r.cost.lambda;
      x["psi"] = r.cost.psi;
      x["xi"] = r.cost.xi;
      x["theta"] = r.cost.theta;
      x["steps"] = r.cost.steps;
      x["printed"] = {{"status", r.verdict.checks == 0 ? "not judged" : to_string(r.verdict.status)},
                      {"stats", r.verdict.stats}};
      if (r.verdict.counterexample)
        x["printed"]["violation"] = {{"expected", r.verdict.counterexample->expected},
                                     {"actual", r.verdict.counterexample->actual}};
      x["xi_series"] = nlohmann::json::array();
      for (const auto& [p, xi] : r.xi_series) x["xi_series"].push_back({{"p", p}, {"xi", xi}});
    }
    j["rows"].push_back(std::move(x));
  }
  j["claims"] = nlohmann::json::array();
  for (const TorusClaimCheck& c : a.claims)
    j["claims"].push_back({{"statement", c.statement}, {"holds", c.holds}, {"detail", c.detail}});
  j["status"] = a.holds() ? "holds" : "violated";
  j["seconds"] = a.seconds;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string torus_analysis_html(const TorusAnalysis& a, const std::string& command) {
  auto esc = [](const std::string& s) { return reports_detail::xml_escape(visible(s), true); };  // as every report
  static const char* colors[] = {"#cf222e", "#0969da", "#1a7f37", "#8250df", "#e8710a", "#57606a",
                                 "#bf3989", "#116329", "#953800", "#0550ae", "#6639ba", "#24292f"};
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>collcheck analyze: "
    << esc(a.topology + " " + dims_label(a.dims)) << "</title>\n<style>\n"
    << "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:80em;padding:0 1em;"
       "color:#1f2328}\ntable{border-collapse:collapse;margin:1em 0}\nth,td{border:1px solid #d0d7de;padding:.3em .7em;"
       "text-align:right}\nth{background:#f6f8fa}\ntd.l{text-align:left}\ncode{font-family:ui-monospace,Menlo,monospace;"
       "font-size:90%}\n.holds{color:#1a7f37}\n.differs{color:#cf222e;font-weight:bold}\n"
       "svg text{font-family:ui-monospace,Menlo,monospace;font-size:12px;fill:#1f2328}\n</style>\n</head>\n<body>\n";
  o << "<h1>Link-level cost on " << esc(a.topology + " " + dims_label(a.dims)) << "</h1>\n";
  o << "<p>Every allreduce collcheck has on a torus, measured on the routed links of its own schedule (minimal "
       "dimension-ordered routing). Lambda, Psi, Xi as in <i>Swing: Short-cutting Rings for Higher Bandwidth "
       "Allreduce</i> (NSDI'24), Sec. 2.2 and Table 2; Theta as in the Trivance paper's Table 2. Command: <code>"
    << esc(command) << "</code> (collcheck " << esc(COLLCHECK_VERSION) << ").</p>\n";
  std::vector<reports_detail::LogSeries> series;
  uint64_t pmax = 3;
  size_t k = 0;
  for (const TorusAnalysisRow& r : a.rows) {
    if (!r.not_applicable.empty() || r.xi_series.empty()) continue;
    reports_detail::LogSeries s{name(r), colors[k++ % 12], {}};
    for (const auto& pt : r.xi_series) {
      s.points.push_back(pt);
      pmax = std::max<uint64_t>(pmax, pt.first);
    }
    series.push_back(std::move(s));
  }
  o << "<h2>Xi against p</h2>\n<p>Shapes " << esc(series_label(a)) << ".</p>\n";
  reports_detail::svg_log_chart(o, "Xi against p on " + a.topology, "p (log scale)", "Xi (log scale)", pmax, series, {});
  o << "<h2>" << esc(dims_label(a.dims)) << "</h2>\n<table>\n<tr><th>algorithm/variant</th><th>Lambda</th><th>Psi</th>"
       "<th>Xi</th><th>Theta</th><th>printed row</th></tr>\n";
  for (const TorusAnalysisRow& r : a.rows) {
    o << "<tr><td class=\"l\">" << esc(name(r)) << "</td>";
    if (!r.not_applicable.empty()) {
      o << "<td colspan=\"5\" class=\"l\">not applicable: " << esc(r.not_applicable) << "</td></tr>\n";
      continue;
    }
    const bool bad = r.verdict.status == Status::violated;
    o << "<td>" << fixed_decimals(r.cost.lambda) << "</td><td>" << fixed_decimals(r.cost.psi) << "</td><td>" << fixed_decimals(r.cost.xi)
      << "</td><td>" << fixed_decimals(r.cost.theta) << "</td><td class=\"l\"><span class=\"" << (bad ? "differs" : "holds")
      << "\">" << esc(judged(r)) << "</span>";
    auto row = r.verdict.stats.find("row");
    if (row != r.verdict.stats.end()) o << "<br>" << esc(row->second);
    o << "</td></tr>\n";
  }
  o << "</table>\n<h2>Claims</h2>\n<ul>\n";
  for (const TorusClaimCheck& c : a.claims)
    o << "<li><span class=\"" << (c.holds ? "holds" : "differs") << "\">" << (c.holds ? "holds" : "VIOLATED")
      << "</span>: " << esc(c.statement) << " <small>" << esc(c.detail) << "</small></li>\n";
  o << "</ul>\n<p>RESULT: " << (a.holds() ? "holds" : "violated") << "</p>\n</body>\n</html>\n";
  return o.str();
}

}  // namespace collcheck
