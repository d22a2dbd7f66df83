#include "properties/plan/decision_plan.hpp"

#include <algorithm>
#include <memory>

#include "schedules/symmetry.hpp"

namespace collcheck {

const std::vector<const DecisionMethod*>& decision_plan() {
  // Certificates and compositions before the quotients they build on, the
  // quotients before the methods that simulate every rank, enumeration last.
  static const std::vector<std::unique_ptr<DecisionMethod>> owned = [] {
    std::vector<std::unique_ptr<DecisionMethod>> m;
    m.push_back(make_parametric_method());
    m.push_back(make_fold_over_grouped_method());
    m.push_back(make_extra_rank_method());
    m.push_back(make_fold_over_quotient_method());
    m.push_back(make_grouped_quotient_method());
    m.push_back(make_cell_quotient_method());
    m.push_back(make_rotation_method());
    m.push_back(make_intervals_method());
    m.push_back(make_enumeration_method());
    return m;
  }();
  static const std::vector<const DecisionMethod*> plan = [] {
    std::vector<const DecisionMethod*> v;
    for (const auto& m : owned) v.push_back(m.get());
    return v;
  }();
  return plan;
}

namespace {

// "" if both lists judge the same properties alike (status, checks,
// violations, minimal counterexample), else the first difference.
std::string verdict_difference(const std::vector<Verdict>& a, const std::vector<Verdict>& b) {
  if (a.size() != b.size()) return std::to_string(a.size()) + " verdicts against " + std::to_string(b.size());
  auto where = [](const Verdict& v) {
    return v.counterexample ? v.counterexample->location() + " " + v.counterexample->expected + " / " +
                                  v.counterexample->actual
                            : std::string("no counterexample");
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const Verdict &x = a[i], &y = b[i];
    if (x.property != y.property || x.status != y.status || x.checks != y.checks || x.violations != y.violations ||
        where(x) != where(y))
      return x.property + ": quotient " + to_string(x.status) + " (" + std::to_string(x.violations) + " of " +
             std::to_string(x.checks) + ", " + where(x) + "), enumerated " + to_string(y.status) + " (" +
             std::to_string(y.violations) + " of " + std::to_string(y.checks) + ", " + where(y) + ")";
  }
  return "";
}

// A refutation by a quotient, re-checked by enumeration while p is small
// enough for exact mode: the counterexample is already concrete (rank 0 is
// the identity's rank), and both checkers must report the same properties,
// counts and minimal counterexamples. A disagreement is a defect of
// collcheck: the enumerated verdicts are reported, and the disagreement.
InstanceCheck rechecked(const DecisionInput& in, InstanceCheck out) {
  const bool refuted = std::any_of(out.verdicts.begin(), out.verdicts.end(),
                                   [](const Verdict& v) { return v.status == Status::violated; });
  if (!refuted || in.s.p() > std::min(in.o.exact_max_p, in.o.recheck_max_p)) return out;
  InstanceCheck enumerated = enumerate_exact(in);
  if (enumerated.refused) {
    out.stats["quotient_rechecked"] = "not rechecked: " + enumerated.refused->reason;
    return out;
  }
  if (std::string diff = verdict_difference(out.verdicts, enumerated.verdicts); !diff.empty()) {
    enumerated.stats["quotient_disagreed"] = diff;
    return enumerated;
  }
  out.stats["quotient_rechecked"] = "the enumerated exact check agrees";
  return out;
}

// The display statistics of the typed result: the method's sentence and
// each decline's reason, rendered here only.
InstanceCheck finished(const DecisionInput& in, InstanceCheck out) {
  out.declined = in.declined;
  if (out.decided_by)
    if (std::string text = describe(*out.decided_by); !text.empty()) out.stats["method"] = std::move(text);
  for (const Declined& d : out.declined)
    if (!d.reason.empty()) out.stats[decline_stat(d.method)] = d.reason;
  return out;
}

}  // namespace

InstanceCheck decide(DecisionInput& in) {
  for (const DecisionMethod* m : decision_plan()) {
    if (!m->applies(in)) continue;
    std::string why;
    std::optional<InstanceCheck> out = m->run(in, &why);
    if (!out) {
      in.declined.push_back({m->id(), std::move(why)});
      continue;
    }
    const bool quotient = m->id() == MethodId::grouped_quotient || m->id() == MethodId::cell_quotient;
    return finished(in, quotient && !out->refused ? rechecked(in, std::move(*out)) : std::move(*out));
  }
  // Enumeration always applies and decides (or is refused): not reached.
  return finished(in, refused_check(Refusal::Kind::undecided, std::string(kUndecidedPrefix) + ": no method applies"));
}

PlannedMethod planned_method(const Schedule& s, const CheckOptions& o, const Schedule* representative) {
  const StepHook none;
  DecisionInput in(s, nullptr, none, o);
  in.representative = representative;
  PlannedMethod out;
  out.fold = in.shape.kind == ScheduleShape::Kind::folded;
  for (const DecisionMethod* m : decision_plan()) {
    if (!m->applies(in) || !m->expects(in)) continue;
    out.method = m->id();
    out.cell_words = m->cell_words(in);
    out.pairs = m->id() == MethodId::cell_quotient && in.shape.group->action().block_action() == BlockAction::pairs;
    return out;
  }
  return out;
}

}  // namespace collcheck
