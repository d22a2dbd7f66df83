// Text renderer: the terminal summary, for a person at an 80-120 column
// terminal. A header line (tool version, kind, mode, seed, threads,
// seconds), then one line per (algorithm, variant) group with its status,
// p-range, counts and the method that decided it in a word or two
// ("[quotient]", "[enumerated 251, symmetry 5]"), followed by the minimal
// counterexample of every violated property, the unknown properties and the
// skip reasons. Property statistics over the sweep follow their group, or,
// when several groups have the same ones (Träff's tables under each of the
// five Träff collectives), come once after the groups with the groups named;
// long statistic lines wrap at kWidth, and witness lists show their first
// kWitnesses with a pointer to --verbose / --format json.
// With `verbose`: how each p was decided, with the method's whole
// certificate ("decided at p=... by quotient: ..."), whole witness lists,
// and one line per instance row (each property's status, its
// counterexample's location and stats; runs of holding instances and
// skipped ones share a line, summary.hpp's instance_rows). Ends with the
// notes, the verdict line "VERDICT: ..." (deployment_verdict: unexpected
// violations vs expected refutations of paper readings) and a final
// "RESULT: <status>" line that scripts can grep.
// The only time printed is report.seconds, so output is reproducible.
// `color` puts ANSI colours on the status words and nowhere else.
#include <algorithm>
#include <locale>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

#include "properties/witnesses.hpp"
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
  explicit TextOut(bool color = false) : color_(color) { o_.imbue(std::locale::classic()); }
  // A status word, coloured on a terminal.
  TextOut& status(Status s) {
    const char* code = s == Status::holds ? "32" : s == Status::violated ? "1;31" : s == Status::unknown ? "33" : "";
    if (color_ && *code) o_ << "\x1b[" << code << "m" << to_string(s) << "\x1b[0m";
    else o_ << to_string(s);
    return *this;
  }
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
  bool color_ = false;
};

constexpr size_t kWidth = 120;   // where statistic lines wrap
constexpr size_t kWitnesses = 3;  // witnesses a witness list shows without --verbose

// "<first><item><sep> <item><sep> ..." in lines of at most kWidth columns,
// broken between items, and inside an item (between words) only where the
// item alone is longer than a line (a long histogram); continuation lines
// start with `indent`.
void write_wrapped(TextOut& o, const std::string& first, const std::vector<std::string>& items,
                   const std::string& indent = "      ", const char* sep = ";") {
  std::vector<std::string> words;
  for (size_t k = 0; k < items.size(); ++k) {
    const std::string item = items[k] + (k + 1 < items.size() ? sep : "");
    if (indent.size() + item.size() <= kWidth) {
      words.push_back(item);
      continue;
    }
    for (size_t at = 0; at < item.size();) {
      const size_t space = item.find(' ', at);
      const size_t end = space == std::string::npos ? item.size() : space;
      if (end > at) words.push_back(item.substr(at, end - at));
      at = end + 1;
    }
  }
  std::string line = first;
  bool empty = true;
  for (const std::string& w : words) {
    if (!empty && line.size() + 1 + w.size() > kWidth) {
      o << line << "\n";
      line = indent;
      empty = true;
    }
    line += (empty ? "" : " ") + w;
    empty = false;
  }
  o << line << "\n";
}

std::vector<std::string> split_items(const std::string& s) {
  std::vector<std::string> out;
  for (size_t at = 0;;) {
    const size_t semi = s.find("; ", at);
    out.push_back(s.substr(at, semi == std::string::npos ? std::string::npos : semi - at));
    if (semi == std::string::npos) return out;
    at = semi + 2;
  }
}

// One statistic line of distribution_lines ("max_violations 3; ..." or
// "witnesses_violations: p=5 rank 1: ...; ...; and 14 more").
void write_distribution(TextOut& o, const std::string& property, const std::string& line, bool verbose) {
  const std::string head = "  " + property + " over the sweep: ";
  if (verbose) {  // whole, one line: what a script reads
    o << head << line << "\n";
    return;
  }
  const size_t colon = line.find(": ");
  const std::string key = colon == std::string::npos ? "" : line.substr(0, colon);
  if (key.rfind("witnesses", 0) == 0)
    if (const std::optional<WitnessList> w = WitnessList::parse(line.substr(colon + 2)); w && w->total() > kWitnesses) {
      std::vector<std::string> shown(w->items.begin(), w->items.begin() + std::min(kWitnesses, w->items.size()));
      shown.push_back("and " + std::to_string(w->total() - shown.size()) +
                      " more (--verbose or --format json: the first " + std::to_string(WitnessList::kListed) + ")");
      write_wrapped(o, head + key + ": ", shown);
      return;
    }
  write_wrapped(o, head, split_items(line));
}

// The methods that decided a group's instances in a word each, with how
// many p each decided when there are several: "quotient",
// "enumerated 251, symmetry 5".
std::string method_words(const Group& g) {
  std::vector<std::pair<std::string, size_t>> words;
  for (const auto& [method, ps] : g.methods) {
    const std::string word = method.substr(0, method.find_first_of(":,"));
    auto it = std::find_if(words.begin(), words.end(), [&](const auto& w) { return w.first == word; });
    if (it == words.end()) words.push_back({word, ps.size()});
    else it->second += ps.size();
  }
  std::string out;
  for (const auto& [word, n] : words)
    out += (out.empty() ? "" : ", ") + word + (words.size() > 1 ? " " + std::to_string(n) : "");
  return out;
}

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

// A group's distribution lines, except those printed once for several groups.
using SharedStats = std::set<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>;
std::map<std::string, std::vector<std::pair<std::string, std::string>>> lines_by_property(const Group& g) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
  for (const auto& [property, line] : distribution_lines(g)) out[property].push_back({property, line});
  return out;
}

void write_group(TextOut& o, const Group& g, bool verbose, const SharedStats& shared) {
  o << g.label();
  if (!g.collective.empty()) o << " (" << g.collective << ")";
  o << ": ";
  o.status(g.status);
  if (g.expected_refutation)
    o << (g.status == Status::violated ? " (expected refutation of a paper reading)"
                                       : " (a paper reading expected to be refuted)");
  o << "  p=" << format_p_list(g.ps()) << "  " << g.n(Status::holds)
    << " hold, " << g.n(Status::violated) << " violated, " << g.n(Status::unknown) << " unknown, "
    << g.n(Status::skipped) << " skipped";
  if (const std::string m = method_words(g); !m.empty()) o << "  [" << m << "]";
  o << "\n";

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
  if (verbose)
    for (const auto& [method, ps] : g.methods)
      o << "  decided at p=" << format_p_list(ps) << " by " << method << "\n";
  for (const auto& [property, lines] : lines_by_property(g))
    if (!shared.count({property, lines}))
      for (const auto& [prop, line] : lines) write_distribution(o, prop, line, verbose);

  if (verbose) {
    o << "  instances:\n";
    for (const InstanceRow& row : instance_rows(g)) write_verdicts_line(o, row);
  }
}

}  // namespace

std::string render_text(const Report& r, bool verbose, bool color) {
  TextOut o(color);
  o << "collcheck";
  if (!r.tool_version.empty()) o << " " << r.tool_version;
  o << " " << or_dash(r.kind) << ": mode=" << or_dash(r.mode) << " seed=" << r.seed
    << " threads=" << r.threads << " seconds=" << format_seconds(r.seconds) << "\n";
  if (!r.command.empty()) o << "command: " << r.command << "\n";

  const std::vector<Group> groups = group_instances(r);
  if (groups.empty()) o << "no instances\n";
  // Statistics several groups have alike (a property's whole set of lines):
  // printed once, after the groups, naming them.
  std::map<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>, std::vector<std::string>> holders;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> order;
  for (const Group& g : groups)
    for (auto& entry : lines_by_property(g)) {
      std::vector<std::string>& h = holders[entry];
      if (h.empty()) order.push_back(entry);
      h.push_back(g.label());
    }
  SharedStats shared;
  for (const auto& [key, labels] : holders)
    if (labels.size() > 1) shared.insert(key);
  for (const Group& g : groups) write_group(o, g, verbose, shared);
  for (const auto& key : order) {
    if (!shared.count(key)) continue;
    write_wrapped(o, key.first + " over the sweep, the same for " + std::to_string(holders[key].size()) + " groups: ",
                  holders[key], "    ", ",");
    for (const auto& [property, line] : key.second) write_distribution(o, property, line, verbose);
  }

  if (!r.notes.empty()) {
    o << "notes:\n";
    for (const std::string& n : r.notes) o << "  - " << n << "\n";
  }
  o << "VERDICT: " << deployment_verdict(groups).line << "\n";
  o << "RESULT: ";
  o.status(r.status());
  o << "\n";
  return o.str();
}

}  // namespace collcheck::reports_detail
