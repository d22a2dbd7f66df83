// A schedule equivariant by construction (schedules/symmetry.hpp): rank 0
// alone, by the certified quotient (flow/flow_rotation.hpp, run_quotient).
// Rank 0's row, under a 1D group, first as runs of ranks (exact, sized by
// content: where the sets are intervals, as in the ring, Träff's circulant
// collectives and Trivance at 3^k, far smaller and faster than p-bit sets),
// stopped when the runs outgrow the p-bit row (or the budget), then as p-bit
// sets while those fit; under a torus group as boxes; an all-to-all's
// (source, destination) pairs as the blocks rank 0 holds. It declines where
// the quotient argument does not cover a step.
#include "properties/plan/decision_method.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

class CellQuotientMethod final : public DecisionMethod {
 public:
  MethodId id() const override { return MethodId::cell_quotient; }
  bool applies(const DecisionInput& in) const override {
    return in.symmetry_allowed() && in.shape.kind == ScheduleShape::Kind::equivariant;
  }
  bool expects(const DecisionInput& in) const override {
    if (!applies(in)) return false;
    const EquivariantSchedule& eq = *in.shape.group;
    return !eq.action().torus() || flow::quotient_state_bytes(eq) <= in.o.memory_budget;
  }
  uint64_t cell_words(const DecisionInput& in) const override {
    return expects(in) && in.shape.group->action().torus() ? flow::quotient_cell_words(*in.shape.group) : 0;
  }
  std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const override {
    const EquivariantSchedule& eq = *in.shape.group;
    const char* cells = nullptr;
    auto q = certified_quotient(eq, in.hook, in.o, in.rank_zero(), declined, &cells);
    if (!q) return std::nullopt;
    DecidedBy by{MethodId::cell_quotient, eq.action().describe(), eq.certificate(), cells};
    return assemble(in, std::move(q->verdicts), q->cost, std::move(by));
  }
};

}  // namespace

std::optional<flow::RotationResult> certified_quotient(const EquivariantSchedule& eq, const StepHook& hook,
                                                       const CheckOptions& o, const RankZeroSize& z,
                                                       std::string* declined, const char** cells,
                                                       bool copy_superset) {
  const bool torus = eq.action().torus();
  const uint64_t bits_bytes = flow::quotient_state_bytes(eq);
  const bool bits_fit = bits_bytes <= o.memory_budget;
  const uint64_t runs_budget = o.max_memory ? std::min(o.memory_budget, o.max_memory) : o.memory_budget;
  const bool bits_allowed = bits_fit && !(o.max_memory && rotation_estimate(eq, z).bytes > o.max_memory);
  const bool runs_allowed = !torus && !(o.max_memory && runs_estimate(eq, z).bytes > o.max_memory);
  std::optional<flow::RotationResult> q;
  if (eq.action().block_action() == BlockAction::pairs) {
    // An all-to-all's (source, destination) pairs: p * p cells, of which
    // rank 0 holds only its own and what it receives.
    if (o.max_memory && held_estimate(eq, z).bytes > o.max_memory)
      *declined = "rank 0's held blocks exceed --max-memory";
    else if ((q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::sparse, runs_budget, copy_superset)))
      *cells = "the blocks it holds only (one contributor per cell, in a hash map, exact)";
  } else if (torus) {
    if (!bits_fit) *declined = "rank 0's exact state exceeds the memory budget";
    else if (!bits_allowed) *declined = "rank 0's exact state exceeds --max-memory";
    else if ((q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::bits, 0, copy_superset)))
      *cells = "boxes (products of per-dimension coordinate sets, exact)";
  } else {
    if (runs_allowed && (q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::runs,
                                                bits_allowed ? std::min(bits_bytes, runs_budget) : runs_budget,
                                                copy_superset)))
      *cells = "runs of ranks (exact)";
    if (!q && bits_allowed && (q = flow::run_quotient(eq, hook, declined, flow::QuotientCells::bits, 0, copy_superset)))
      *cells = "p-bit sets";
    if (!q && !runs_allowed && !bits_allowed) *declined = "rank 0's exact state exceeds --max-memory";
  }
  return q;
}

std::unique_ptr<DecisionMethod> make_cell_quotient_method() { return std::make_unique<CellQuotientMethod>(); }

}  // namespace collcheck
