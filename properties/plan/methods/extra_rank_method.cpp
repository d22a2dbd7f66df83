// An extra rank beside a core that comes as masks (Swing's own odd-p
// scheme): the core of p - 1 ranks by the grouped quotient, the extra rank's
// exchanges read directly (flow/extra_node_composition.hpp).
#include "properties/flow/extra_node_composition.hpp"
#include "properties/plan/decision_method.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

class ExtraRankMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::extra_rank; }
  bool applies(const DecisionInput& in) const override {
    return in.symmetry_allowed() && in.o.grouped_quotient && in.shape.kind == ScheduleShape::Kind::extra_rank;
  }
  bool expects(const DecisionInput& in) const override {
    return applies(in) && in.shape.extra_serves_every_core_rank;
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const override {
    const EquivariantSchedule* core = equivariant_core(in.s);
    const flow::MaskSchedule* masks = core ? in.core_masks() : nullptr;
    if (!masks) {
      *declined = "extra-node composition: the ring of p - 1 ranks has no rank-0 masks";
      return std::nullopt;
    }
    flow::MaskSchedule ms = *masks;
    const uint64_t cap = group_cap(ms, in.o);
    if (!cap) {
      *declined = "extra-node composition: the core's masks exceed the memory budget";
      return std::nullopt;
    }
    if (!in.o.reuse_certificates) ms.memo_key.clear();
    auto ec = flow::run_extra_node_composition(in.s, *core, ms, in.hook, declined, cap);
    if (!ec) return std::nullopt;
    DecidedBy by{MethodId::extra_rank, core->action().describe(), core->certificate(), ms.representation,
                 ec->obligations, 1};
    InstanceCheck out = assemble(in, std::move(ec->result.verdicts), ec->result.cost, std::move(by));
    out.stats["max_groups"] = std::to_string(ec->max_groups);
    return out;
  }
};

}  // namespace

std::unique_ptr<DecisionMethod> make_extra_rank_method() { return std::make_unique<ExtraRankMethod>(); }

}  // namespace collcheck
