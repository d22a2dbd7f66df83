// TRA's radix analysis (properties/tra/radix_analysis.hpp) as a text
// table, JSON and a self-contained HTML page with inline-SVG charts; the
// escaping (reports/summary.hpp: xml_escape; JSON strings by nlohmann) and
// the log-log chart (reports/html_svg.hpp) are the reports' own.
#include "reports/tra/radix_analysis_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "collcheck_version.hpp"
#include "reports/html_svg.hpp"
#include "reports/summary.hpp"

namespace collcheck {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string num(double v) { return fmt("%.4g", v); }
std::string exact(double v) { return fmt("%.9g", v); }

}  // namespace

// ---- text ---------------------------------------------------------------

namespace {

std::string header_lines(const Analysis& a) {
  std::ostringstream o;
  o << "cost model: alpha*K + beta*D*S with alpha = " << num(a.alpha) << " s, beta = " << num(a.beta)
    << " s/byte, S = " << num(a.block_bytes) << " bytes\n";
  o << "K, D: measured = counted from the blocks every round (x, z) sends, "
    << (a.all_measured ? "for every radix" : "for the radices shown, the optimum and r <= 64 (others: the propositions)")
    << "; Prop. = Propositions 1-4 as printed (1, 2: P = r^w; 3, 4: P < r^w)\n";
  const RadixRow& o_row = a.row(a.optimum);
  o << "optimum: r = " << a.optimum << " (K = " << o_row.K << ", D = " << o_row.D << ", cost " << num(o_row.cost)
    << " s)\n";
  const RadixRow& s_row = a.row(a.sqrt_ceil);
  o << "sqrt(P) = " << fmt("%.3f", a.sqrt_p) << ": r = " << a.sqrt_ceil
    << (a.sqrt_floor != a.sqrt_ceil ? " (ceil; floor " + std::to_string(a.sqrt_floor) + ")" : "") << " has K = "
    << s_row.K << ", D = " << s_row.D << ", cost " << num(s_row.cost) << " s = "
    << fmt("%.3f", o_row.cost > 0 ? s_row.cost / o_row.cost : 1.0) << " x the optimum (rank " << a.sqrt_cost_rank
    << " of " << a.rows.size() << " radices by cost)\n";
  return o.str();
}

std::string prop_cell(const std::optional<uint64_t>& v, const std::string& src) {
  if (!v) return "-";
  return std::to_string(*v) + " (" + src.substr(6, 1) + ")";  // "Prop. 1" -> "(1)"
}

}  // namespace

std::string analysis_text(const Analysis& a) {
  std::ostringstream o;
  o << "collcheck analyze: TRA (Fan et al., Sec. III), P = " << a.p << ", radices 2.." << a.p << "\n";
  o << header_lines(a);
  const std::vector<uint64_t> shown = table_radices(a, 64);
  if (shown.size() < a.rows.size())
    o << "table: " << shown.size() << " of " << a.rows.size() << " radices (use --format json for every radix)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%8s %3s %9s %13s %10s %14s %11s  %s\n", "r", "w", "K", "K Prop.", "D", "D Prop.",
                "cost [s]", "");
  o << line;
  for (uint64_t r : shown) {
    const RadixRow& row = a.row(r);
    std::string mark;
    if (r == a.sqrt_floor || r == a.sqrt_ceil) mark += " <- sqrt(P)";
    if (r == a.optimum) mark += " <- optimum";
    if (!row.measured) mark += " (Prop. values, not measured)";
    std::snprintf(line, sizeof line, "%8llu %3d %9llu %13s %10llu %14s %11s %s\n", static_cast<unsigned long long>(r),
                  row.w, static_cast<unsigned long long>(row.K), prop_cell(row.K_prop, row.K_source).c_str(),
                  static_cast<unsigned long long>(row.D), prop_cell(row.D_prop, row.D_source).c_str(),
                  num(row.cost).c_str(), mark.c_str());
    o << line;
  }
  o << "paper statements (Sec. III-B) at P = " << a.p << ":\n";
  for (const PaperStatement& s : a.statements)
    o << "  [" << (s.holds ? "holds" : "differs") << "] " << s.statement << ": " << s.detail << "\n";
  o << "measured vs propositions: "
    << (a.disagreements.empty() ? std::string("no disagreement") : std::to_string(a.disagreements.size()) + " disagreements")
    << "\n";
  for (const std::string& d : a.disagreements) o << "  " << d << "\n";
  return o.str();
}

// ---- JSON ---------------------------------------------------------------

namespace {

// A JSON string literal (nlohmann's escaping; bytes that are not UTF-8 become U+FFFD).
std::string jstr(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string jopt(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "null"; }

}  // namespace

std::string analysis_json(const Analysis& a, const std::string& command) {
  std::string o;
  o.reserve(a.rows.size() * 160 + 4096);
  auto row_json = [&](const RadixRow& row) {
    return "{\"r\": " + std::to_string(row.r) + ", \"w\": " + std::to_string(row.w) + ", \"K\": " +
           std::to_string(row.K) + ", \"D\": " + std::to_string(row.D) +
           ", \"measured\": " + (row.measured ? "true" : "false") + ", \"K_prop\": " + jopt(row.K_prop) +
           ", \"K_prop_source\": " + jstr(row.K_source) + ", \"D_prop\": " + jopt(row.D_prop) +
           ", \"D_prop_source\": " + jstr(row.D_source) + ", \"cost_seconds\": " + exact(row.cost) + "}";
  };
  o += "{\n  \"tool_version\": " + jstr(COLLCHECK_VERSION) + ",\n  \"command\": " + jstr(command) +
       ",\n  \"algorithm\": \"tra\",\n  \"p\": " + std::to_string(a.p) + ",\n  \"alpha_seconds\": " + exact(a.alpha) +
       ",\n  \"beta_seconds_per_byte\": " + exact(a.beta) + ",\n  \"block_bytes\": " + exact(a.block_bytes) +
       ",\n  \"cost_formula\": \"alpha*K + beta*D*S\",\n  \"all_measured\": " + (a.all_measured ? "true" : "false") +
       ",\n  \"sqrt_p\": " + exact(a.sqrt_p) + ",\n  \"sqrt_floor\": " + std::to_string(a.sqrt_floor) +
       ",\n  \"sqrt_ceil\": " + std::to_string(a.sqrt_ceil) + ",\n  \"sqrt_cost_rank\": " +
       std::to_string(a.sqrt_cost_rank) + ",\n  \"optimum\": " + row_json(a.row(a.optimum)) +
       ",\n  \"sqrt_rows\": [" + row_json(a.row(a.sqrt_floor < 2 ? 2 : a.sqrt_floor)) +
       (a.sqrt_ceil != a.sqrt_floor ? ", " + row_json(a.row(a.sqrt_ceil)) : "") + "],\n  \"paper_statements\": [";
  for (size_t i = 0; i < a.statements.size(); ++i)
    o += std::string(i ? "," : "") + "\n    {\"statement\": " + jstr(a.statements[i].statement) +
         ", \"holds\": " + (a.statements[i].holds ? "true" : "false") + ", \"detail\": " + jstr(a.statements[i].detail) +
         "}";
  o += "\n  ],\n  \"disagreements\": [";
  for (size_t i = 0; i < a.disagreements.size(); ++i) o += (i ? ", " : "") + jstr(a.disagreements[i]);
  o += "],\n  \"radices\": [";
  for (size_t i = 0; i < a.rows.size(); ++i) o += std::string(i ? ",\n    " : "\n    ") + row_json(a.rows[i]);
  o += "\n  ]\n}\n";
  return o;
}

// ---- HTML ---------------------------------------------------------------

namespace {

// Element content and attribute values (reports/summary.hpp).
// Control characters escaped visibly first (visible(), report.hpp), as in every report.
std::string esc(const std::string& s) { return reports_detail::xml_escape(visible(s), true); }

}  // namespace

std::string analysis_html(const Analysis& a, const std::string& command) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>collcheck analyze: TRA, P = "
    << a.p << "</title>\n<style>\n"
    << "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:72em;padding:0 1em;"
       "color:#1f2328}\ntable{border-collapse:collapse;margin:1em 0}\nth,td{border:1px solid #d0d7de;padding:.3em .7em;"
       "text-align:right}\nth{background:#f6f8fa}\ntd.l{text-align:left}\ntr.sqrt td{background:#dafbe1}\n"
       "tr.opt td{background:#ffebe9}\ncode{font-family:ui-monospace,Menlo,monospace;font-size:90%}\n"
       ".holds{color:#1a7f37}\n.differs{color:#cf222e;font-weight:bold}\n"
       "svg text{font-family:ui-monospace,Menlo,monospace;font-size:12px;fill:#1f2328}\n"
    << "</style>\n</head>\n<body>\n";
  o << "<h1>TRA: K and D against the radix, P = " << a.p << "</h1>\n";
  o << "<p>Tunable-radix all-to-all (Fan et al., <i>Configurable Algorithms for All-to-all Collectives</i>, Sec. III; "
       "the paper's Fig. 4). Command: <code>"
    << esc(command) << "</code> (collcheck " << esc(COLLCHECK_VERSION) << ").</p>\n<pre>" << esc(header_lines(a))
    << "</pre>\n";
  using reports_detail::LogSeries;
  std::vector<LogSeries> kd = {{"K (rounds)", "#e8710a", {}}, {"D (blocks)", "#0969da", {}}};
  std::vector<LogSeries> cs = {{"cost [s]", "#6639ba", {}}};
  for (const RadixRow& row : a.rows) {
    kd[0].points.push_back({row.r, static_cast<double>(row.K)});
    kd[1].points.push_back({row.r, static_cast<double>(row.D)});
    cs[0].points.push_back({row.r, row.cost});
  }
  const std::vector<reports_detail::ChartMarker> markers = {
      {a.sqrt_ceil, "#1a7f37", "sqrt(P) (r = " + std::to_string(a.sqrt_ceil) + ")"},
      {a.optimum, "#cf222e", "optimum (r = " + std::to_string(a.optimum) + ")"}};
  o << "<h2>K and D</h2>\n";
  reports_detail::svg_log_chart(o, "K and D against r, P = " + std::to_string(a.p), "radix r (log scale)",
                                "rounds K, blocks D", a.p, kd, markers);
  o << "<h2>Cost alpha*K + beta*D*S</h2>\n";
  reports_detail::svg_log_chart(o, "cost against r", "radix r (log scale)", "seconds", a.p, cs, markers);
  o << "<h2>Radices</h2>\n<table>\n<tr><th>r</th><th>w</th><th>K</th><th>K (Prop.)</th><th>D</th><th>D (Prop.)</th>"
       "<th>cost [s]</th><th>note</th></tr>\n";
  for (uint64_t r : table_radices(a, 256)) {
    const RadixRow& row = a.row(r);
    std::string note, cls;
    if (r == a.sqrt_floor || r == a.sqrt_ceil) note += "sqrt(P) ", cls = "sqrt";
    if (r == a.optimum) note += "optimum ", cls = "opt";
    if (!row.measured) note += "Prop. values (not measured)";
    o << "<tr" << (cls.empty() ? "" : " class=\"" + cls + "\"") << "><td>" << r << "</td><td>" << row.w << "</td><td>"
      << row.K << "</td><td>" << esc(prop_cell(row.K_prop, row.K_source)) << "</td><td>" << row.D << "</td><td>"
      << esc(prop_cell(row.D_prop, row.D_source)) << "</td><td>" << num(row.cost) << "</td><td class=\"l\">"
      << esc(note) << "</td></tr>\n";
  }
  o << "</table>\n<h2>Sec. III-B's statements at this P</h2>\n<ul>\n";
  for (const PaperStatement& s : a.statements)
    o << "<li><span class=\"" << (s.holds ? "holds" : "differs") << "\">" << (s.holds ? "holds" : "differs")
      << "</span> " << esc(s.statement) << ": " << esc(s.detail) << "</li>\n";
  o << "</ul>\n<h2>Measured against the propositions</h2>\n";
  if (a.disagreements.empty()) {
    o << "<p>No disagreement.</p>\n";
  } else {
    o << "<ul>\n";
    for (const std::string& d : a.disagreements) o << "<li>" << esc(d) << "</li>\n";
    o << "</ul>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace collcheck
