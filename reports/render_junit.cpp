// JUnit XML renderer, for CI dashboards. One <testsuite> per (algorithm,
// variant) group and one <testcase name="p=N"> per instance, with classname
// "collcheck.<algorithm>.<variant>" (".<variant>" dropped when empty). A
// violated instance gets one <failure> whose message lists every violated
// property with its counterexample (details in the element body; type
// "expected-refutation" and the message prefixed so for a paper reading
// declared refuted on purpose, else type "violated"); an
// unknown instance (e.g. solver timeout) gets an <error>, a skipped one a
// <skipped>. Each suite's <properties> carry the run's parameters, the
// verdict line (summary.hpp's deployment_verdict), "expected_refutation" for
// a paper reading, the notes and the statistics over the group (summary.hpp's distribution, e.g.
// "traff-bounds.witnesses_max_violations"). Times are the report's own
// seconds, so output is reproducible.
#include <locale>
#include <sstream>

#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

// Strings of the input with their control characters escaped visibly
// (visible(), report.hpp), as in the other reports: an attribute's newline
// would otherwise be one in the parsed value, and the failure body's lines
// are the renderer's own.
std::string attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(visible(value)) + "\"";
}

std::string class_name(const Group& g) {
  std::string s = "collcheck." + g.algorithm;
  if (!g.variant.empty()) s += "." + g.variant;
  return s;
}

void write_testcase(std::ostringstream& o, const Group& g, const InstanceResult& i) {
  o << "    <testcase" << attr("name", "p=" + std::to_string(i.p) + (i.params.empty() ? "" : " " + i.params)) << attr("classname", class_name(g))
    << attr("time", format_seconds(i.seconds));
  const Status s = effective_status(i);
  if (s == Status::holds) {
    o << "/>\n";
    return;
  }
  o << ">\n";
  if (s == Status::violated) {
    std::string message, body;
    for (const Verdict& v : merged_verdicts(i)) {
      if (v.status != Status::violated) continue;
      const std::string cx = v.counterexample ? describe(*v.counterexample) : "no counterexample recorded";
      message += (message.empty() ? "" : "; ") + v.property + ": " + cx;
      body += visible(v.property) + " violated (" + std::to_string(v.violations) + " of " + std::to_string(v.checks) +
              " checks failed)\n";
      if (v.counterexample) {
        const Counterexample& c = *v.counterexample;
        body += "  at " + c.location() + "\n";
        if (!c.expected.empty()) body += "  expected: " + visible(c.expected) + "\n";
        if (!c.actual.empty()) body += "  actual: " + visible(c.actual) + "\n";
        if (!c.message.empty()) body += "  " + visible(c.message) + "\n";
        if (c.root_cause) body += "  root cause: " + visible(c.root_cause->text) + "\n";
      }
      if (!v.stats.empty()) body += "  stats: " + visible(format_stats(v.stats)) + "\n";
    }
    if (message.empty()) message = "instance reported violated without a violated verdict";
    if (g.expected_refutation) message = "expected refutation of a paper reading: " + message;
    o << "      <failure" << attr("message", message)
      << attr("type", g.expected_refutation ? "expected-refutation" : "violated") << ">" << xml_escape(body, /*in_text=*/true)
      << "</failure>\n";
  } else if (s == Status::unknown) {
    std::string message;
    for (const Verdict& v : merged_verdicts(i))
      if (v.status == Status::unknown) message += (message.empty() ? "" : ", ") + v.property;
    message = "unknown: " + (message.empty() ? std::string("instance reported unknown") : message);
    o << "      <error" << attr("message", message) << attr("type", "unknown") << "/>\n";
  } else {
    o << "      <skipped";
    if (!i.skip_reason.empty()) o << attr("message", i.skip_reason);
    o << "/>\n";
  }
  o << "    </testcase>\n";
}

}  // namespace

std::string render_junit(const Report& r) {
  const std::vector<Group> groups = group_instances(r);
  const std::string verdict = deployment_verdict(groups).line;
  std::array<uint64_t, 4> total{};
  for (const Group& g : groups)
    for (size_t k = 0; k < total.size(); ++k) total[k] += g.count[k];
  const auto n = [](const std::array<uint64_t, 4>& c, Status s) { return std::to_string(c[status_index(s)]); };

  std::ostringstream o;
  o.imbue(std::locale::classic());
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<testsuites" << attr("name", "collcheck " + r.kind) << attr("tests", std::to_string(r.instances.size()))
    << attr("failures", n(total, Status::violated)) << attr("errors", n(total, Status::unknown))
    << attr("skipped", n(total, Status::skipped)) << attr("time", format_seconds(r.seconds)) << ">\n";
  for (const Group& g : groups) {
    o << "  <testsuite" << attr("name", class_name(g)) << attr("tests", std::to_string(g.instances.size()))
      << attr("failures", n(g.count, Status::violated)) << attr("errors", n(g.count, Status::unknown))
      << attr("skipped", n(g.count, Status::skipped)) << attr("time", format_seconds(g.seconds)) << ">\n";
    o << "    <properties>\n";
    const auto property = [&](const std::string& name, const std::string& value) {
      o << "      <property" << attr("name", name) << attr("value", value) << "/>\n";
    };
    property("tool_version", r.tool_version);
    property("command", r.command);
    property("collective", g.collective);
    property("mode", r.mode);
    property("seed", std::to_string(r.seed));
    property("verdict", verdict);
    if (g.expected_refutation) property("expected_refutation", "true");
    for (const std::string& note : r.notes) property("note", note);
    // Statistics over the group's instances (histograms, maxima, witnesses).
    for (const PropertySummary& ps : g.properties)
      for (const auto& [key, value] : ps.distribution) property(ps.property + "." + key, value);
    o << "    </properties>\n";
    for (const InstanceResult* i : g.instances) write_testcase(o, g, *i);
    o << "  </testsuite>\n";
  }
  o << "</testsuites>\n";
  return o.str();
}

}  // namespace collcheck::reports_detail
