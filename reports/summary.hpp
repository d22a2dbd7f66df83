#pragma once
// Internal to reports/: the views every renderer shares. A Report is a flat
// list of instances; readers think in groups, one per (algorithm, variant),
// with a p-range, status counts and, for each property, the instances that
// violate it and the minimal counterexample among them (smallest by
// Counterexample::operator<, so the choice never depends on thread order).
// Also the small formatting and escaping helpers the formats have in common.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/stat_aggregation.hpp"
#include "reports/report.hpp"

namespace collcheck::reports_detail {

// One property as seen across the instances of a group.
struct PropertySummary {
  std::string property;
  std::vector<uint64_t> violated_p;  // p of the instances where it is violated
  std::vector<uint64_t> unknown_p;   // p of the instances where it is unknown
  uint64_t violations = 0;           // failed elementary checks, summed
  std::optional<Counterexample> minimal;             // smallest over the group
  std::map<std::string, std::string> minimal_stats;  // stats of the verdict holding `minimal`
  // The instance `minimal` comes from: its params name it among instances of
  // one p (torus shapes 4 and 2x2, 2x4 and 4x2; radices; roots).
  const InstanceResult* minimal_instance = nullptr;
  // Verdict stats aggregated over the group's instances (a sweep), each as its
  // property declares (properties/stat_aggregation.hpp, e.g. kTraffBoundsStats):
  // histograms ("0:N0 1:N1 ...") are summed bucket by bucket, max statistics
  // (integers) take the maximum, witness lists (properties/witnesses.hpp) are
  // merged in p order: a witnesses_of_max list keeps the witnesses of the
  // instances reaching the maximum of its max statistic (the extremal ones),
  // any other list the sweep's first. Undeclared statistics are not
  // aggregated. Empty if none occur.
  std::map<std::string, std::string> distribution;
  std::map<std::string, Aggregate> kinds;  // how each distribution entry aggregated
  Aggregate kind(const std::string& key) const {
    auto it = kinds.find(key);
    return it == kinds.end() ? Aggregate::none : it->second;
  }
};

struct Group {
  std::string algorithm;
  std::string variant;
  std::string collective;                     // of the first instance
  std::vector<const InstanceResult*> instances;  // ordered by p (stable)
  Status status = Status::holds;              // as Report::status, over this group
  std::array<uint64_t, 4> count{};            // instances per Status, indexed by status_index
  double seconds = 0;                         // summed over instances
  std::vector<PropertySummary> properties;    // every property seen, first-seen order
  // Distinct skip reasons, first-seen order, with the p they apply to.
  std::vector<std::pair<std::string, std::vector<uint64_t>>> skip_reasons;
  // Which method decided the instances that were checked (decided_by), each
  // distinct method with its p, first-seen order: a reader judges the
  // evidence (a quotient names its group and certificate).
  std::vector<std::pair<std::string, std::vector<uint64_t>>> methods;

  // Declared refuted on purpose (Report::expected_refutations): a paper
  // reading, not a deployable variant.
  bool expected_refutation = false;

  std::string label() const;  // "algorithm/variant", or "algorithm" if no variant
  std::vector<uint64_t> ps() const;
  uint64_t n(Status s) const;
  std::vector<const PropertySummary*> violated_properties() const;
};

// The method that decided an instance, "" if it was skipped: the instance's
// stats "method" when the checker named one ("quotient: <group>; certificate:
// ...", "symmetry: ...", "intervals: ..."), otherwise "enumerated" with the
// bookkeeping mode ("enumerated, exact").
std::string decided_by(const InstanceResult& i);

inline constexpr int status_index(Status s) { return static_cast<int>(s); }

// Groups by (algorithm, variant) in lexicographic order; expected_refutation
// from Report::expected_refutations. Statistics aggregate as `decls` declares
// (every property's declaration, declared_stats(), unless given).
std::vector<Group> group_instances(const Report& r);
std::vector<Group> group_instances(const Report& r, const StatDeclarations& decls);

// What a report says about deploying: the verdict line. Instances of groups
// declared refuted on purpose (paper readings) never decide it; their
// violations are listed as expected refutations.
enum class Deployment {
  deploy,                 // every deployable instance checked holds
  do_not_deploy,          // a deployable variant is violated somewhere
  not_proven,             // none violated, but some unknown or refused by the memory guard
  no_deployable_variant,  // no deployable instance checked, only paper readings
  nothing_checked,        // no instance, or every one skipped
};
const char* to_string(Deployment d);  // "deploy", "do-not-deploy", "not-proven", ...

struct GroupPs {
  std::string group;  // Group::label()
  std::vector<uint64_t> ps;
};

struct DeploymentVerdict {
  Deployment kind = Deployment::nothing_checked;
  std::vector<GroupPs> unexpected;   // deployable groups: the p of their violated instances
  std::vector<GroupPs> undecided;    // deployable groups: unknown or memory-guard-refused instances
  std::vector<GroupPs> refuted;      // paper readings: the p of their violated instances
  std::vector<std::string> not_refuted;  // paper readings that hold wherever checked in this report
  // One line, e.g. "holds for every deployable variant; 2 expected
  // refutations of paper readings: swing/paper-laststep (p=6, 10), ..." or
  // "do not deploy: unexpected violations in swing/bandwidth (p=7)".
  std::string line;
  // The line's first clause, which every title and heading of a report
  // says (one voice with the banner): "holds for every deployable variant",
  // "do not deploy", "not proven", "no deployable variant checked" or
  // "nothing was checked".
  std::string headline;
  // The status that styles the verdict: holds, violated, unknown, skipped.
  Status status() const;
};

DeploymentVerdict deployment_verdict(const std::vector<Group>& groups);

// The rows of a per-instance table of one group, in the order of their first
// p: a violated or unknown instance is a row of its own; holding instances
// with the same parameters and the same verdicts (property and status, in
// order) share a row while no other instance with those parameters lies
// between them (skipped ones do not count); skipped instances share one row
// per parameters and skip reason.
struct InstanceRow {
  std::vector<const InstanceResult*> instances;  // one or more, ordered by p
  std::string p_list() const;                    // format_p_list of their p
};
std::vector<InstanceRow> instance_rows(const Group& g);

// An instance's verdicts with partial verdicts of the same property (rank
// ranges, block chunks) merged by Verdict::merge, in first-seen order.
std::vector<Verdict> merged_verdicts(const InstanceResult& i);
// Whether two of the instance's verdicts judge one property (then only
// merged_verdicts gives one verdict per property).
bool repeats_a_property(const InstanceResult& i);

// Violating instances per property name over the whole report, in
// first-seen order; properties that always hold appear with 0.
std::vector<std::pair<std::string, uint64_t>> violations_per_property(const Report& r);

// Sorted, de-duplicated p values in the CLI's own p-range syntax: runs of
// consecutive values as "A..B", longer arithmetic runs as "A..B:STEP" and
// runs of doubling powers of two as "2^A..2^B:pow2"; e.g. "1..64, 128".
std::string format_p_list(std::vector<uint64_t> ps);

std::string format_seconds(double s);  // fixed, 3 decimals: "1.250"

// Verdict/instance statistics as one line. A "measured_X"/"claimed_X" pair
// reads "measured X 6 vs claimed 6"; other entries read "key=value".
std::string format_stats(const std::map<std::string, std::string>& stats);

// The group's non-empty PropertySummary::distribution entries as
// (property, "key value; key value") lines, each witness list on a line of its
// own, (property, "witnesses_X: list") (for the text, Markdown and HTML
// renderers).
std::vector<std::pair<std::string, std::string>> distribution_lines(const Group& g);

// "p=6 rank=0 step=2 block=4: expected X, actual Y: message" (empty parts omitted).
std::string describe(const Counterexample& cx);

// Where a group's minimal counterexample is, naming its instance:
// Counterexample::location() with the instance's params after p, e.g.
// "p=8 dims=4x2 rank=0 step=1 block=0" ("p=4 rank=3 ..." without params).
std::string minimal_location(const PropertySummary& ps);

// Escapes &, <, >, " and ' for XML and HTML text and attributes; tab, newline
// and carriage return become character references (so attributes keep them;
// `in_text` keeps newlines literal for element content) and other control
// characters, which XML 1.0 forbids, become U+FFFD.
std::string xml_escape(std::string_view s, bool in_text = false);

std::string render_text(const Report& r, bool verbose, bool color = false);
std::string render_json(const Report& r);
std::string render_markdown(const Report& r);
std::string render_junit(const Report& r);
std::string render_html(const Report& r);

}  // namespace collcheck::reports_detail
