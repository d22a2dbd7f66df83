// Markdown renderer: the report for humans (pull requests, issues, wikis).
// A title with the result, the run's parameters and the verdict line
// (summary.hpp's deployment_verdict), a summary table (algorithm | variant |
// p checked | status | failing properties; a paper reading declared refuted
// on purpose says so in its status), one section per violated property with
// its minimal counterexample (unexpected violations under "Counterexamples",
// paper readings under "Expected refutations of paper readings"), the
// distributions and witnesses over the sweep, then unknown and skipped
// instances and the notes. One row per (algorithm, variant): no per-instance
// rows. Identifiers and values are
// code spans, prose is backslash-escaped, so names such as "file:<path>" or
// messages containing '|' cannot break the table or inject markup; control
// characters in either are escaped visibly (visible(), report.hpp), so no
// string of the input can start a line or reach a terminal as one.
#include <algorithm>
#include <locale>
#include <sstream>
#include <string_view>

#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

// A code span that survives any content: the fence is one backtick longer
// than the longest backtick run inside; inside tables '|' is escaped (GFM).
// Control characters are escaped visibly first (visible(): a newline is
// "\n"), as in every string of the input the report shows.
std::string md_code(const std::string& raw, bool in_table = false) {
  if (raw.empty()) return "-";
  const std::string s = visible(raw);
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string body;
  for (char c : s) {
    if (c == '|' && in_table) body += "\\|";
    else body += c;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = body.front() == '`' || body.back() == '`';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// Prose: control characters escaped visibly (visible()), then every ASCII
// punctuation with a Markdown meaning is backslash-escaped.
std::string md_text(const std::string& raw) {
  std::string out;
  for (char c : visible(raw)) {
    if (std::string_view("\\`*_[]<>|#&!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void write_counterexample(std::ostringstream& o, const Group& g, const PropertySummary& ps) {
  o << "### " << md_code(g.label()) << ": " << md_code(ps.property) << "\n\n";
  o << "Violated at p=" << format_p_list(ps.violated_p) << " (" << ps.violated_p.size() << " instance"
    << (ps.violated_p.size() == 1 ? "" : "s") << ", " << ps.violations << " failed check"
    << (ps.violations == 1 ? "" : "s") << ").";
  if (!ps.minimal) {
    o << " No counterexample was recorded.\n\n";
    return;
  }
  const Counterexample& cx = *ps.minimal;
  o << " Minimal counterexample:\n\n";
  o << "- location: " << md_code(minimal_location(ps)) << "\n";
  if (!cx.expected.empty()) o << "- expected: " << md_code(cx.expected) << "\n";
  if (!cx.actual.empty()) o << "- actual: " << md_code(cx.actual) << "\n";
  if (!cx.message.empty()) o << "- message: " << md_text(cx.message) << "\n";
  if (cx.root_cause) o << "- root cause: " << md_text(cx.root_cause->text) << "\n";
  if (!ps.minimal_stats.empty())
    o << "- stats: " << md_text(format_stats(ps.minimal_stats)) << "\n";
  o << "\n";
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::ostringstream o;
  o.imbue(std::locale::classic());
  const std::vector<Group> groups = group_instances(r);

  const DeploymentVerdict d = deployment_verdict(groups);
  // The heading says the verdict line's first clause, as the verdict below
  // does; the result counts expected refutations of paper readings too.
  o << "# collcheck " << md_text(r.kind) << " report: " << md_text(d.headline) << "\n\n";
  o << "- tool: collcheck " << md_text(r.tool_version) << "\n";
  if (!r.command.empty()) o << "- command: " << md_code(r.command) << "\n";
  o << "- mode: " << md_code(r.mode) << "\n";
  o << "- seed: " << r.seed << "\n";
  o << "- threads: " << r.threads << "\n";
  o << "- seconds: " << format_seconds(r.seconds) << "\n";
  o << "- result: **" << to_string(r.status()) << "**\n";
  o << "- verdict: " << md_text(d.line) << "\n\n";

  o << "## Summary\n\n";
  if (groups.empty()) {
    o << "No instances were checked.\n\n";
  } else {
    o << "| algorithm | variant | p checked | status | failing properties |\n";
    o << "|---|---|---|---|---|\n";
    for (const Group& g : groups) {
      std::string failing;
      for (const PropertySummary* ps : g.violated_properties())
        failing += (failing.empty() ? "" : ", ") + md_code(ps->property, true);
      o << "| " << md_code(g.algorithm, true) << " | " << md_code(g.variant, true) << " | "
        << format_p_list(g.ps()) << " | " << to_string(g.status)
        << (g.expected_refutation ? " (paper reading, expected to be refuted)" : "") << " | "
        << (failing.empty() ? "-" : failing) << " |\n";
    }
    o << "\n";
  }

  // Unexpected violations first, then the expected refutations of paper readings.
  for (const bool expected : {false, true}) {
    bool any = false;
    for (const Group& g : groups) any |= g.expected_refutation == expected && !g.violated_properties().empty();
    if (!any) continue;
    o << (expected ? "## Expected refutations of paper readings\n\n" : "## Counterexamples\n\n");
    for (const Group& g : groups)
      if (g.expected_refutation == expected)
        for (const PropertySummary* ps : g.violated_properties()) write_counterexample(o, g, *ps);
  }

  std::ostringstream dist;
  for (const Group& g : groups)
    for (const auto& [property, line] : distribution_lines(g))
      dist << "- " << md_code(g.label()) << " " << md_code(property) << ": " << md_text(line) << "\n";
  if (!dist.str().empty()) o << "## Distributions over the sweep\n\n" << dist.str() << "\n";

  std::ostringstream unknown;
  for (const Group& g : groups)
    for (const PropertySummary& ps : g.properties)
      if (!ps.unknown_p.empty())
        unknown << "- " << md_code(g.label()) << " " << md_code(ps.property)
                << ": p=" << format_p_list(ps.unknown_p) << "\n";
  if (!unknown.str().empty()) o << "## Unknown\n\n" << unknown.str() << "\n";

  std::ostringstream skipped;
  for (const Group& g : groups)
    for (const auto& [reason, ps] : g.skip_reasons)
      skipped << "- " << md_code(g.label()) << " p=" << format_p_list(ps) << ": " << md_text(reason) << "\n";
  if (!skipped.str().empty()) o << "## Skipped\n\n" << skipped.str() << "\n";

  std::ostringstream decided;
  for (const Group& g : groups)
    for (const auto& [method, ps] : g.methods)
      decided << "- " << md_code(g.label()) << " p=" << format_p_list(ps) << ": " << md_text(method) << "\n";
  if (!decided.str().empty()) o << "## Decided by\n\n" << decided.str() << "\n";

  if (!r.notes.empty()) {
    o << "## Notes\n\n";
    for (const std::string& n : r.notes) o << "- " << md_text(n) << "\n";
    o << "\n";
  }
  return o.str();
}

}  // namespace collcheck::reports_detail
