// The grouped quotient (flow/group_quotient.hpp) where rank 0's steps come
// as masks: it decides what its word-parallel pass covers, violations
// included (counted per group pair, the counterexample at the pair's first
// block); anything else (a read-after-write hazard, too many groups)
// declines to the cell quotient.
#include "properties/plan/decision_method.hpp"
#include "properties/plan/rank_zero_masks.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

std::optional<flow::GroupQuotientResult> grouped_quotient(const flow::MaskSchedule& ms, const StepHook& hook,
                                                          const CheckOptions& o, std::string* declined) {
  const uint64_t cap = group_cap(ms, o);
  if (!cap) {
    *declined = "rank 0's masks exceed the memory budget";
    return std::nullopt;
  }
  return flow::run_group_quotient(ms, hook, declined, cap);
}

class GroupedQuotientMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::grouped_quotient; }
  bool applies(const DecisionInput& in) const override {
    return in.symmetry_allowed() && in.o.grouped_quotient && in.shape.kind == ScheduleShape::Kind::equivariant &&
           in.masks();
  }
  // Whether it decides rather than declines depends on p beyond its class
  // (more than 255 contribution sets): run it, without the step hook, at the
  // class's representative.
  bool expects(const DecisionInput& in) const override {
    if (!applies(in)) return false;
    std::optional<flow::MaskSchedule> ms =
        in.representative ? rank_zero_masks(*in.representative) : std::optional<flow::MaskSchedule>(*in.masks());
    if (!ms) return false;
    ms->memo_key.clear();
    std::string ignored;
    return grouped_quotient(*ms, StepHook{}, in.o, &ignored).has_value();
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const override {
    flow::MaskSchedule ms = *in.masks();
    if (!in.o.reuse_certificates) ms.memo_key.clear();
    auto gq = grouped_quotient(ms, in.hook, in.o, declined);
    if (!gq) return std::nullopt;
    const EquivariantSchedule& eq = *in.shape.group;
    DecidedBy by{MethodId::grouped_quotient, eq.action().describe(), eq.certificate(), ms.representation};
    InstanceCheck out = assemble(in, std::move(gq->result.verdicts), gq->result.cost, std::move(by));
    out.stats["max_groups"] = std::to_string(gq->max_groups);
    return out;
  }
};

}  // namespace

uint64_t group_cap(const flow::MaskSchedule& ms, const CheckOptions& o) {
  const uint64_t mask_bytes = (ms.spec.p + 63) / 64 * 8;
  uint64_t limit = o.memory_budget;
  if (o.max_memory) limit = std::min(limit, o.max_memory);
  // Two masks per group plus the step's incoming groups (as many again) and
  // rank 0's step masks.
  const uint64_t fixed = (static_cast<uint64_t>(ms.steps) + 8) * mask_bytes;
  if (limit <= fixed + 64 * mask_bytes) return 0;
  return std::min<uint64_t>(512, (limit - fixed) / (4 * mask_bytes));
}

std::unique_ptr<DecisionMethod> make_grouped_quotient_method() { return std::make_unique<GroupedQuotientMethod>(); }

}  // namespace collcheck
