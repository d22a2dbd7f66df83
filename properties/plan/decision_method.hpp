#pragma once
// One method of the decision plan (decision_plan.hpp): whether it applies to
// an instance's shape and the options, what it expects to do there (the
// estimate's question, answered without simulating every rank), and run,
// which decides the instance or declines with a reason. Each method is one
// file beside this one; the plan is their ordered list.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "properties/flow/flow_common.hpp"
#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/group_quotient.hpp"
#include "properties/instance_checker.hpp"
#include "properties/plan/decision.hpp"
#include "properties/plan/memory_estimates.hpp"

namespace collcheck {

// What every method reads of one instance: the schedule, its shape, the
// options and what the methods before it found. Rank 0's sizes and masks
// are computed on first use and shared.
class DecisionInput {
 public:
  DecisionInput(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o);
  const Schedule& s;
  const ScheduleShape shape;
  const Claim* claim;
  const StepHook& hook;
  const CheckOptions& o;
  const Exactness exactness;  // the mode that runs: exact or fingerprint
  // Exact methods that rely on a declared structure (quotients,
  // compositions, parametric certificates, the rotation): asked for
  // (--symmetry) and not in fingerprint mode.
  bool symmetry_allowed() const { return o.use_symmetry && o.exactness != Exactness::fingerprint; }
  // Rank 0's step sizes (for the memory guard; zero sizes without one).
  const RankZeroSize& rank_zero() const;
  // Rank 0 as masks (plan/rank_zero_masks.hpp), of the schedule and of its
  // core; nullptr where no family computes them.
  const flow::MaskSchedule* masks() const;
  const flow::MaskSchedule* core_masks() const;
  // The estimate's probe: a schedule of the same class of p, at which a
  // method whose success depends on p beyond its class (the grouped
  // quotient's 255 contribution sets) is asked what it expects. nullptr: s.
  const Schedule* representative = nullptr;
  // The methods before this one that declined, in plan order.
  std::vector<Declined> declined;

 private:
  mutable std::optional<RankZeroSize> zero_;
  mutable std::optional<std::optional<flow::MaskSchedule>> masks_, core_masks_;
};

class DecisionMethod {
 public:
  virtual ~DecisionMethod() = default;
  virtual MethodId id() const = 0;
  // Whether the method is tried at all: the schedule's shape and the
  // options, nothing run. A method that does not apply leaves no trace.
  virtual bool applies(const DecisionInput& in) const = 0;
  // Whether it is expected to decide where it applies (the estimate and
  // --dry-run: a model, the run decides). Default: wherever it applies.
  virtual bool expects(const DecisionInput& in) const { return applies(in); }
  // The words of one of rank 0's cells where that is not a p-bit set (a
  // torus group's boxes), 0 otherwise: the cost model's unit of work.
  virtual uint64_t cell_words(const DecisionInput&) const { return 0; }
  // Decides (verdicts, or a refusal by the memory guard) or declines:
  // nullopt with *declined saying why ("" where it says nothing).
  virtual std::optional<InstanceCheck> run(const DecisionInput& in, std::string* declined) const = 0;
};

// The mode of the fingerprint methods' flow verdicts.
inline constexpr const char* kFingerprintMode =
    "fingerprint (count + 61-bit weighted sum; false pass <= 2^-61 per check)";

// The InstanceCheck of the engine's five flow verdicts, the cost verdict and
// the step hook's, named and in catalog order, decided by `by`.
InstanceCheck assemble(const DecisionInput& in, flow::Verdicts v, const CostMeasurement& cost, DecidedBy by,
                       const std::string& mode = "exact");
// A refusal by the memory guard: nothing judged.
InstanceCheck refused_check(Refusal::Kind kind, std::string reason);

// The most groups a grouped quotient of `ms` may carry within the memory
// budget and --max-memory; 0 if rank 0's masks do not fit.
uint64_t group_cap(const flow::MaskSchedule& ms, const CheckOptions& o);
// The certified quotient of `eq` (flow/flow_rotation.hpp, run_quotient) with
// the cells that fit: an all-to-all's held blocks, boxes under a torus
// group, else runs of ranks while they stay small, then p-bit sets while
// those fit the budget and --max-memory. nullopt: declined (`declined` says
// why). `cells`: the representation that decided, for the method text.
std::optional<flow::RotationResult> certified_quotient(const EquivariantSchedule& eq, const StepHook& hook,
                                                       const CheckOptions& o, const RankZeroSize& z,
                                                       std::string* declined, const char** cells,
                                                       bool copy_superset = false);
// Every rank, every step, exact cells (an all-to-all's held cells only,
// unless dense cells are asked for); no memory guard (the quotients' recheck).
InstanceCheck enumerate_exact(const DecisionInput& in);

// The methods, one per file (plan order in decision_plan.cpp).
std::unique_ptr<DecisionMethod> make_parametric_method();
std::unique_ptr<DecisionMethod> make_fold_over_grouped_method();
std::unique_ptr<DecisionMethod> make_extra_rank_method();
std::unique_ptr<DecisionMethod> make_fold_over_quotient_method();
std::unique_ptr<DecisionMethod> make_grouped_quotient_method();
std::unique_ptr<DecisionMethod> make_cell_quotient_method();
std::unique_ptr<DecisionMethod> make_rotation_method();
std::unique_ptr<DecisionMethod> make_intervals_method();
std::unique_ptr<DecisionMethod> make_enumeration_method();

}  // namespace collcheck
