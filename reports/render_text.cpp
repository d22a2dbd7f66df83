// Text renderer: the terminal summary. A header line (tool version, kind,
// mode, seed, threads, seconds), then one line per (algorithm, variant) group
// with its status, p-range and counts, followed by the minimal counterexample
// of every violated property; with `verbose`, one line per instance (each
// property's status, its counterexample's location and stats). Ends
// with the notes and a final "RESULT: <status>" line that scripts can grep.
// The only time printed is report.seconds, so output is reproducible.
#include <locale>
#include <sstream>

#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void write_verdicts_line(std::ostringstream& o, const InstanceResult& i) {
  const Status s = effective_status(i);
  o << "    p=" << i.p << (i.params.empty() ? "" : " " + i.params) << ": " << to_string(s);
  if (s == Status::skipped && !i.skip_reason.empty()) o << " (" << i.skip_reason << ")";
  const char* sep = ": ";
  for (const Verdict& v : merged_verdicts(i)) {
    o << sep << v.property << " " << to_string(v.status);
    if (v.status == Status::violated && v.counterexample) o << " at " << v.counterexample->location();
    if (!v.stats.empty()) o << " (" << format_stats(v.stats) << ")";
    sep = "; ";
  }
  if (!i.stats.empty()) o << " [" << format_stats(i.stats) << "]";
  o << "\n";
}

void write_group(std::ostringstream& o, const Group& g, bool verbose) {
  o << g.label();
  if (!g.collective.empty()) o << " (" << g.collective << ")";
  o << ": " << to_string(g.status) << "  p=" << format_p_list(g.ps()) << "  " << g.n(Status::holds)
    << " hold, " << g.n(Status::violated) << " violated, " << g.n(Status::unknown) << " unknown, "
    << g.n(Status::skipped) << " skipped\n";

  for (const PropertySummary* ps : g.violated_properties()) {
    o << "  " << ps->property << " violated at p=" << format_p_list(ps->violated_p) << " ("
      << ps->violations << " failed check" << (ps->violations == 1 ? "" : "s") << ")\n";
    if (!ps->minimal) {
      o << "    no counterexample recorded\n";
      continue;
    }
    const Counterexample& cx = *ps->minimal;
    o << "    minimal counterexample: " << cx.location() << "\n";
    if (!cx.expected.empty()) o << "    expected: " << cx.expected << "\n";
    if (!cx.actual.empty()) o << "    actual:   " << cx.actual << "\n";
    if (!cx.message.empty()) o << "    message:  " << cx.message << "\n";
    if (!ps->minimal_stats.empty())
      o << "    stats:    " << format_stats(ps->minimal_stats) << "\n";
  }
  for (const PropertySummary& ps : g.properties)
    if (!ps.unknown_p.empty())
      o << "  " << ps.property << " unknown at p=" << format_p_list(ps.unknown_p) << "\n";
  for (const auto& [reason, ps] : g.skip_reasons)
    o << "  skipped p=" << format_p_list(ps) << ": " << reason << "\n";
  for (const auto& [property, line] : distribution_lines(g))
    o << "  " << property << " over the sweep: " << line << "\n";

  if (verbose) {
    o << "  instances:\n";
    for (const InstanceResult* i : g.instances) write_verdicts_line(o, *i);
  }
}

}  // namespace

std::string render_text(const Report& r, bool verbose) {
  std::ostringstream o;
  o.imbue(std::locale::classic());
  o << "collcheck";
  if (!r.tool_version.empty()) o << " " << r.tool_version;
  o << " " << or_dash(r.kind) << ": mode=" << or_dash(r.mode) << " seed=" << r.seed
    << " threads=" << r.threads << " seconds=" << format_seconds(r.seconds) << "\n";
  if (!r.command.empty()) o << "command: " << r.command << "\n";

  const std::vector<Group> groups = group_instances(r);
  if (groups.empty()) o << "no instances\n";
  for (const Group& g : groups) write_group(o, g, verbose);

  if (!r.notes.empty()) {
    o << "notes:\n";
    for (const std::string& n : r.notes) o << "  - " << n << "\n";
  }
  o << "RESULT: " << to_string(r.status()) << "\n";
  return o.str();
}

}  // namespace collcheck::reports_detail
