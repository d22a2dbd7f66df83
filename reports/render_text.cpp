// Text renderer: the terminal summary. A header line (tool version, kind,
// mode, seed, threads, seconds), then one line per (algorithm, variant) group
// with its status, p-range and counts, followed by the minimal counterexample
// of every violated property, the skip reasons and the method that decided
// the checked instances ("decided at p=... by quotient: ..."); with `verbose`, one line per instance row (each
// property's status, its counterexample's location and stats; runs of
// holding instances and skipped ones share a line, summary.hpp's
// instance_rows). Ends with the notes, the verdict line "VERDICT: ..."
// (deployment_verdict: unexpected violations vs expected refutations of paper
// readings) and a final "RESULT: <status>" line that scripts can grep.
// The only time printed is report.seconds, so output is reproducible.
#include <locale>
#include <sstream>
#include <type_traits>

#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

// The text report's stream. Every std::string written to it is report data
// (names, paths, messages, statistics, a schedule file's producer metadata,
// a stored command line) and goes through visible(): no string of the input
// can start a line of its own (a forged "RESULT: holds" before the real one)
// or reach the terminal as an escape sequence. The renderer's own literals
// (const char*) and numbers are written as they are.
class TextOut {
 public:
  TextOut() { o_.imbue(std::locale::classic()); }
  TextOut& operator<<(const std::string& s) {
    o_ << visible(s);
    return *this;
  }
  TextOut& operator<<(const char* literal) {
    o_ << literal;
    return *this;
  }
  template <class T>
    requires std::is_arithmetic_v<T>
  TextOut& operator<<(T v) {
    o_ << v;
    return *this;
  }
  std::string str() const { return o_.str(); }

 private:
  std::ostringstream o_;
};

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// One row of instance_rows: an instance with its verdicts and stats, or a run
// of instances with the same verdicts ("p=1..64: holds (64 instances): ...",
// without the per-instance stats).
void write_verdicts_line(TextOut& o, const InstanceRow& row) {
  const InstanceResult& i = *row.instances.front();
  const bool run = row.instances.size() > 1;
  const Status s = effective_status(i);
  o << "    p=" << row.p_list() << (i.params.empty() ? "" : " " + i.params) << ": " << to_string(s);
  if (s == Status::skipped && !i.skip_reason.empty()) o << " (" << i.skip_reason << ")";
  if (run) o << " (" << row.instances.size() << " instances)";
  const char* sep = ": ";
  for (const Verdict& v : merged_verdicts(i)) {
    o << sep << v.property << " " << to_string(v.status);
    if (v.status == Status::violated && v.counterexample) o << " at " << v.counterexample->location();
    if (!run && !v.stats.empty()) o << " (" << format_stats(v.stats) << ")";
    sep = "; ";
  }
  if (!run && !i.stats.empty()) o << " [" << format_stats(i.stats) << "]";
  o << "\n";
}

void write_group(TextOut& o, const Group& g, bool verbose) {
  o << g.label();
  if (!g.collective.empty()) o << " (" << g.collective << ")";
  o << ": " << to_string(g.status);
  if (g.expected_refutation)
    o << (g.status == Status::violated ? " (expected refutation of a paper reading)"
                                       : " (a paper reading expected to be refuted)");
  o << "  p=" << format_p_list(g.ps()) << "  " << g.n(Status::holds)
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
    o << "    minimal counterexample: " << minimal_location(*ps) << "\n";
    if (!cx.expected.empty()) o << "    expected: " << cx.expected << "\n";
    if (!cx.actual.empty()) o << "    actual:   " << cx.actual << "\n";
    if (!cx.message.empty()) o << "    message:  " << cx.message << "\n";
    if (cx.root_cause) o << "    root cause: " << cx.root_cause->text << "\n";
    if (!ps->minimal_stats.empty())
      o << "    stats:    " << format_stats(ps->minimal_stats) << "\n";
  }
  for (const PropertySummary& ps : g.properties)
    if (!ps.unknown_p.empty())
      o << "  " << ps.property << " unknown at p=" << format_p_list(ps.unknown_p) << "\n";
  for (const auto& [reason, ps] : g.skip_reasons)
    o << "  skipped p=" << format_p_list(ps) << ": " << reason << "\n";
  for (const auto& [method, ps] : g.methods)
    o << "  decided at p=" << format_p_list(ps) << " by " << method << "\n";
  for (const auto& [property, line] : distribution_lines(g))
    o << "  " << property << " over the sweep: " << line << "\n";

  if (verbose) {
    o << "  instances:\n";
    for (const InstanceRow& row : instance_rows(g)) write_verdicts_line(o, row);
  }
}

}  // namespace

std::string render_text(const Report& r, bool verbose) {
  TextOut o;
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
  o << "VERDICT: " << deployment_verdict(groups).line << "\n";
  o << "RESULT: " << to_string(r.status()) << "\n";
  return o.str();
}

}  // namespace collcheck::reports_detail
