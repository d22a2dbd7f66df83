#include "properties/plan/decision_method.hpp"

#include "properties/catalog.hpp"
#include "properties/cost.hpp"
#include "properties/plan/rank_zero_masks.hpp"
#include "schedules/memory_guard.hpp"

namespace collcheck {

DecisionInput::DecisionInput(const Schedule& sched, const Claim* c, const StepHook& h, const CheckOptions& opts)
    : s(sched), shape(sched.shape()), claim(c), hook(h), o(opts), exactness(resolved_exactness(sched.p(), opts)) {}

const RankZeroSize& DecisionInput::rank_zero() const {
  if (!zero_) zero_ = o.max_memory ? rank_zero_size(s) : RankZeroSize{};
  return *zero_;
}

const flow::MaskSchedule* DecisionInput::masks() const {
  if (!masks_) masks_ = rank_zero_masks(s);
  return *masks_ ? &**masks_ : nullptr;
}

const flow::MaskSchedule* DecisionInput::core_masks() const {
  if (!core_masks_) core_masks_ = shape.core ? rank_zero_masks(*shape.core) : std::nullopt;
  return *core_masks_ ? &**core_masks_ : nullptr;
}

InstanceCheck assemble(const DecisionInput& in, flow::Verdicts v, const CostMeasurement& cost, DecidedBy by,
                       const std::string& mode) {
  using namespace flow;
  const char* names[kSlots] = {prop::matching,     prop::ports,         prop::causality,
                               prop::exactly_once, prop::postcondition, ""};
  InstanceCheck out;
  out.mode = mode;
  for (int i = 0; i < kSlots; ++i) {
    v[i].property = names[i];
    const bool flow = i == kCausality || i == kExactlyOnce || i == kPostcondition;
    v[i].mode = flow ? mode : "exact";
  }
  for (int i : {kMatching, kPorts, kCausality, kExactlyOnce, kPostcondition}) out.verdicts.push_back(v[i]);
  out.verdicts.push_back(judge_cost(in.s.p(), cost, in.claim));
  if (in.hook) {
    v[kHook].property = in.hook.property;
    out.verdicts.push_back(v[kHook]);
  }
  out.stats["steps"] = std::to_string(cost.steps);
  out.stats["max_volume_blocks"] = std::to_string(cost.max_volume);
  out.decided_by = std::move(by);
  return out;
}

InstanceCheck refused_check(Refusal::Kind kind, std::string reason) {
  InstanceCheck out;
  out.refused = Refusal{kind, std::move(reason)};
  return out;
}

}  // namespace collcheck
