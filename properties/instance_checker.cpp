#include "properties/instance_checker.hpp"

#include <algorithm>

#include "properties/catalog.hpp"
#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/root_cause.hpp"
#include "properties/plan/decision_plan.hpp"
#include "properties/plan/memory_estimates.hpp"
#include "schedules/input_error.hpp"
#include "schedules/int_math.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {

bool CheckOptions::selected(const std::string& name) const {
  return properties.empty() || std::find(properties.begin(), properties.end(), name) != properties.end();
}

bool CheckOptions::any_generic_selected() const {
  for (const auto& info : property_catalog())
    if (info.generic && selected(info.name)) return true;
  return false;
}


const char* to_string(Exactness e) {
  switch (e) {
    case Exactness::automatic:
      return "auto";
    case Exactness::exact:
      return "exact";
    case Exactness::fingerprint:
      return "fingerprint";
  }
  return "?";
}

const char* to_string(Bookkeeping b) {
  switch (b) {
    case Bookkeeping::automatic:
      return "auto";
    case Bookkeeping::dense:
      return "dense";
    case Bookkeeping::intervals:
      return "intervals";
  }
  return "?";
}

std::optional<std::string> infeasible(uint64_t p, uint64_t nblocks, const CheckOptions& o) {
  const Exactness e = resolved_exactness(p, o);
  if (sat_mul(p, nblocks) > kMaxDenseCells && (e == Exactness::exact || o.bookkeeping == Bookkeeping::dense))
    return "p * nblocks = " + cell_count(p, nblocks) +
           " (rank, block) cells exceed the dense checker's limit of 2^32 (p = " + std::to_string(p) +
           "); fingerprint mode with interval bookkeeping (--state auto picks it where transfers are few block "
           "ranges) has no such limit";
  const uint64_t per_block = p * ((p + 63) / 64 + 1) * 8;
  if (e == Exactness::exact && per_block > o.memory_budget)
    return "exact mode needs " + std::to_string(per_block >> 20) + " MiB per block at p = " + std::to_string(p) +
           ", more than the memory budget; use --mode fingerprint or a larger --memory-gib";
  return std::nullopt;
}

std::optional<std::string> infeasible(const Schedule& s, const CheckOptions& o) {
  if (held_takes(s, o, resolved_exactness(s.p(), o))) return std::nullopt;
  return infeasible(s.p(), s.num_blocks(), o);
}

// The estimate of the method expected to run, by the schedule's shape: an
// all-to-all's held cells at rank 0, rank 0's p-bit (or box) cells where
// they fit the budget, its runs of ranks under a 1D group, interval state,
// else every rank's cells. The quotients may decline while they run; the
// generic simulation's estimate is then fallback_bytes.
MemoryEstimate estimate_memory(const Schedule& s, const CheckOptions& o) {
  const Exactness e = resolved_exactness(s.p(), o);
  const RankZeroSize z = rank_zero_size(s);
  MemoryEstimate gen = generic_estimate(s, o, e, z);
  const EquivariantSchedule* eq = equivariant_view(s);
  const bool symmetry = o.use_symmetry && o.exactness != Exactness::fingerprint;
  auto with_fallback = [&](MemoryEstimate m) {
    m.fallback_bytes = gen.bytes;
    return m;
  };
  if (eq && symmetry && eq->action().block_action() == BlockAction::pairs) return with_fallback(held_estimate(s, z));
  const bool symmetric = eq != nullptr || flow::probe_rotation(s);
  const uint64_t state = eq ? flow::quotient_state_bytes(*eq) : flow::rotation_state_bytes(s.p(), s.num_blocks());
  if (symmetry && symmetric && state <= o.memory_budget) return with_fallback(rotation_estimate(s, z));
  if (symmetry && eq && !eq->action().torus()) return with_fallback(runs_estimate(s, z));
  try {
    if (auto plan = interval_plan(s, o, e)) return {plan->memory_bytes, plan->how};
  } catch (const InputError&) {  // check_schedule refuses it; say what intervals would need
    const flow::IntervalPlan plan = flow::plan_intervals(s);
    return {plan.memory_bytes, plan.how};
  }
  return gen;
}

uint64_t default_max_memory() {
  return physical_memory() / 4 * 3;  // unknown (0): no guard
}

std::string refusal(const MemoryEstimate& m, uint64_t limit) {
  return std::string(kRefusedPrefix) + " before allocating: needs an estimated " + gib(m.bytes) + " (" + m.how +
         "), more than --max-memory " + gib(limit);
}

// One trace per counterexample, only for the reported one.
void explain_final_values(const Schedule& s, const std::vector<Verdict*>& verdicts) {
  const int last = std::max(0, s.num_steps() - 1);
  std::vector<TraceRequest> requests;
  for (Verdict* vp : verdicts) {
    Verdict& v = *vp;
    const bool post = v.property == prop::postcondition, once = v.property == prop::exactly_once;
    if ((!post && !once) || !v.counterexample) continue;
    Counterexample& cx = *v.counterexample;
    if (!cx.rank || !cx.block || cx.step != last || (once && cx.peer)) continue;
    cx.root_cause.emplace();
    requests.push_back({*cx.rank, *cx.block, post ? TraceFocus::missing_first : TraceFocus::doubled_first,
                        &*cx.root_cause});
  }
  if (!requests.empty()) trace_root_causes(s, requests);
}

// The decision plan (properties/plan/decision_plan.hpp) decides; the root
// causes of its final-value counterexamples are traced after.
InstanceCheck check_schedule(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o) {
  DecisionInput in(s, claim, hook, o);
  InstanceCheck out = decide(in);
  if (!out.refused && o.trace_root_causes) {
    std::vector<Verdict*> all;
    for (Verdict& v : out.verdicts) all.push_back(&v);
    explain_final_values(s, all);
  }
  return out;
}

}  // namespace collcheck
