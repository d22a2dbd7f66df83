// A fold whose core comes as masks: a composition (flow/fold_composition.hpp),
// the core by the grouped quotient at p', the folded ranks' steps checked
// directly, the composition's obligations discharged.
#include "properties/flow/fold_composition.hpp"
#include "properties/plan/decision_method.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

class FoldOverGroupedMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::fold_over_grouped; }
  bool applies(const DecisionInput& in) const override {
    return in.symmetry_allowed() && in.o.grouped_quotient && in.shape.kind == ScheduleShape::Kind::folded &&
           equivariant_core(in.s) && in.core_masks();
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const override {
    flow::MaskSchedule ms = *in.core_masks();
    if (!in.o.reuse_certificates) ms.memo_key.clear();
    const uint64_t cap = group_cap(ms, in.o);
    if (!cap) {
      *declined = "fold composition: the core's masks exceed the memory budget";
      return std::nullopt;
    }
    auto fc = flow::run_fold_composition(in.s, *in.shape.core, ms, in.hook, declined, cap);
    if (!fc) return std::nullopt;
    const EquivariantSchedule& core = *equivariant_core(in.s);
    DecidedBy by{MethodId::fold_over_grouped, core.action().describe(), core.certificate(), ms.representation,
                 fc->obligations, in.s.p() - core.p()};
    InstanceCheck out = assemble(in, std::move(fc->result.verdicts), fc->result.cost, std::move(by));
    out.stats["max_groups"] = std::to_string(fc->max_groups);
    return out;
  }
};

}  // namespace

std::unique_ptr<DecisionMethod> make_fold_over_grouped_method() { return std::make_unique<FoldOverGroupedMethod>(); }

}  // namespace collcheck
