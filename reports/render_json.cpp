// JSON renderer: everything in the report, for machines. Top-level fields
// plus "status" and "deployment" (the verdict line and its parts:
// unexpected violations, undecided, expected refutations of paper readings),
// every instance with every verdict (property, status, checks, violations,
// mode, stats, counterexample) and the method that decided it
// ("decided_by", null if skipped), and a "groups" summary per (algorithm,
// variant) with its distributions and witnesses over the sweep. Absent optional values are null, never omitted,
// so consumers can rely on the key set. Keys come out sorted (nlohmann's
// default object), which keeps the output byte-for-byte reproducible.
#include <nlohmann/json.hpp>

#include "reports/root_cause_json.hpp"
#include "reports/summary.hpp"

namespace collcheck::reports_detail {

namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json counterexample_json(const std::optional<Counterexample>& cx) {
  if (!cx) return nullptr;
  return json{{"p", cx->p},
              {"rank", or_null(cx->rank)},
              {"step", or_null(cx->step)},
              {"block", or_null(cx->block)},
              {"peer", or_null(cx->peer)},
              {"expected", cx->expected},
              {"actual", cx->actual},
              {"message", cx->message},
              {"root_cause", root_cause_to_json(cx->root_cause)},
              {"location", cx->location()}};
}

json verdict_json(const Verdict& v) {
  return json{{"property", v.property},
              {"status", to_string(v.status)},
              {"checks", v.checks},
              {"violations", v.violations},
              {"mode", v.mode},
              {"stats", json(v.stats)},
              {"counterexample", counterexample_json(v.counterexample)}};
}

json instance_json(const InstanceResult& i) {
  json verdicts = json::array();
  for (const Verdict& v : i.verdicts) verdicts.push_back(verdict_json(v));
  return json{{"algorithm", i.algorithm},
              {"variant", i.variant},
              {"collective", i.collective},
              {"p", i.p},
              {"params", i.params},
              {"status", to_string(effective_status(i))},
              {"skip_reason", i.skip_reason.empty() ? json(nullptr) : json(i.skip_reason)},
              {"seconds", i.seconds},
              {"stats", json(i.stats)},
              {"decided_by", decided_by(i).empty() ? json(nullptr) : json(decided_by(i))},
              {"verdicts", verdicts}};
}

json counts_json(const std::array<uint64_t, 4>& c) {
  json j = json::object();
  for (Status s : {Status::holds, Status::violated, Status::unknown, Status::skipped})
    j[to_string(s)] = c[status_index(s)];
  return j;
}

json group_ps_json(const std::vector<GroupPs>& v) {
  json out = json::array();
  for (const GroupPs& g : v) out.push_back(json{{"group", g.group}, {"p", format_p_list(g.ps)}, {"instances", g.ps.size()}});
  return out;
}

// The verdict line and its parts, for CI jobs that gate on unexpected
// violations only (docs/deployment-report.md).
json deployment_json(const DeploymentVerdict& d) {
  return json{{"verdict", to_string(d.kind)},
              {"line", d.line},
              {"unexpected_violations", group_ps_json(d.unexpected)},
              {"undecided", group_ps_json(d.undecided)},
              {"expected_refutations", group_ps_json(d.refuted)},
              {"not_refuted", d.not_refuted}};
}

json group_json(const Group& g) {
  json failing = json::array();
  for (const PropertySummary* ps : g.violated_properties())
    failing.push_back(json{{"property", ps->property},
                           {"violated_p", format_p_list(ps->violated_p)},
                           {"instances", ps->violated_p.size()},
                           {"violations", ps->violations},
                           {"counterexample", counterexample_json(ps->minimal)}});
  json distributions = json::object();
  for (const PropertySummary& ps : g.properties)
    if (!ps.distribution.empty()) distributions[ps.property] = json(ps.distribution);
  return json{{"algorithm", g.algorithm},
              {"variant", g.variant},
              {"expected_refutation", g.expected_refutation},
              {"distributions", distributions},
              {"collective", g.collective},
              {"p_checked", format_p_list(g.ps())},
              {"status", to_string(g.status)},
              {"counts", counts_json(g.count)},
              {"failing_properties", failing}};
}

}  // namespace

std::string render_json(const Report& r) {
  json instances = json::array();
  std::array<uint64_t, 4> counts{};
  for (const InstanceResult& i : r.instances) {
    instances.push_back(instance_json(i));
    ++counts[status_index(effective_status(i))];
  }
  json groups = json::array();
  const std::vector<Group> grouped = group_instances(r);
  for (const Group& g : grouped) groups.push_back(group_json(g));

  const json j{{"tool_version", r.tool_version},
               {"command", r.command},
               {"kind", r.kind},
               {"mode", r.mode},
               {"seed", r.seed},
               {"threads", r.threads},
               {"seconds", r.seconds},
               {"status", to_string(r.status())},
               {"deployment", deployment_json(deployment_verdict(grouped))},
               {"counts", counts_json(counts)},
               {"groups", groups},
               {"instances", instances},
               {"notes", r.notes}};
  // Replace invalid UTF-8 (e.g. a raw byte in a file path) instead of throwing:
  // a violation is a result, never an exception.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace collcheck::reports_detail
