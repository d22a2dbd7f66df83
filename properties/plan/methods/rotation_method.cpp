// A schedule that declares no group but is translation invariant
// (flow/flow_rotation.hpp): the invariance verified on every rank and step,
// rank 0 simulated exactly. Never with a step hook; above --max-memory it
// is not refused but left to the methods after it (enumeration may still
// fit by chunking).
#include "properties/flow/flow_rotation.hpp"
#include "properties/plan/decision_method.hpp"

namespace collcheck {
namespace {

class RotationMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::rotation; }
  bool applies(const DecisionInput& in) const override { return in.symmetry_allowed() && !in.hook; }
  bool expects(const DecisionInput& in) const override {
    return applies(in) && flow::probe_rotation(in.s) && fits(in);
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string*) const override {
    const std::optional<Block> h = flow::probe_rotation(in.s);
    if (!h || !fits(in)) return std::nullopt;
    auto rot = flow::run_rotation(in.s, *h, in.hook);
    if (!rot) return std::nullopt;
    DecidedBy by{MethodId::rotation};
    by.text = kRotationMethod;
    InstanceCheck out = assemble(in, std::move(rot->verdicts), rot->cost, std::move(by));
    out.stats["invariance_checks"] = std::to_string(rot->invariance_checks);
    out.stats["block_shift"] = std::to_string(*h);
    return out;
  }

 private:
  static bool fits(const DecisionInput& in) {
    return flow::rotation_state_bytes(in.s.p(), in.s.num_blocks()) <= in.o.memory_budget &&
           (!in.o.max_memory || rotation_estimate(in.s, in.rank_zero()).bytes <= in.o.max_memory);
  }
};

}  // namespace

std::unique_ptr<DecisionMethod> make_rotation_method() { return std::make_unique<RotationMethod>(); }

}  // namespace collcheck
