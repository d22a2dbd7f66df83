// A fold over any other certified core (recursive doubling's hypercube,
// Rabenseifner's): the fold composition (flow/fold_composition.hpp), the
// core by the certified quotient at p' with the cells that fit.
#include "properties/flow/fold_composition.hpp"
#include "properties/plan/decision_method.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

class FoldOverQuotientMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::fold_over_quotient; }
  // A core that comes as masks is the grouped fold's, with or without
  // --grouped-quotient.
  bool applies(const DecisionInput& in) const override {
    return in.symmetry_allowed() && in.shape.kind == ScheduleShape::Kind::folded && equivariant_core(in.s) &&
           !in.core_masks();
  }
  bool expects(const DecisionInput& in) const override {
    if (!applies(in)) return false;
    const EquivariantSchedule& core = *equivariant_core(in.s);
    return !core.action().torus() || flow::quotient_state_bytes(core) <= in.o.memory_budget;
  }
  uint64_t cell_words(const DecisionInput& in) const override {
    const EquivariantSchedule* core = equivariant_core(in.s);
    return core && core->action().torus() && expects(in) ? flow::quotient_cell_words(*core) : 0;
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const override {
    const EquivariantSchedule& core = *equivariant_core(in.s);
    const char* cells = nullptr;
    const RankZeroSize core_size = in.o.max_memory ? rank_zero_size(core) : RankZeroSize{};
    auto fc = flow::run_fold_composition(
        in.s, core,
        [&](const StepHook& core_hook, std::string* why) -> std::optional<flow::FoldCore> {
          auto q = certified_quotient(core, core_hook, in.o, core_size, why, &cells, true);
          if (!q) return std::nullopt;
          const bool superset = q->every_copy_superset;
          return flow::FoldCore{std::move(*q), 0, superset, "the certified quotient"};
        },
        in.hook, declined);
    if (!fc) return std::nullopt;
    DecidedBy by{MethodId::fold_over_quotient, core.action().describe(), core.certificate(), cells,
                 fc->obligations, in.s.p() - core.p()};
    return assemble(in, std::move(fc->result.verdicts), fc->result.cost, std::move(by));
  }
};

}  // namespace

std::unique_ptr<DecisionMethod> make_fold_over_quotient_method() { return std::make_unique<FoldOverQuotientMethod>(); }

}  // namespace collcheck
