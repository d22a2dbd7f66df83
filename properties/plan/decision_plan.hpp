#pragma once
// The decision plan: the ordered list of methods that can decide an
// instance (docs/architecture.md, "The decision plan", has the table).
// check_schedule walks it: the first method that applies and decides gives
// the verdicts; each that applies and declines is recorded with its reason.
// The estimate, --dry-run and the sweep's scheduling ask the same plan
// which method it expects to decide (planned_method), instead of deriving
// that again.
//
// Adding a method: one file in properties/plan/methods/ implementing
// DecisionMethod (decision_method.hpp), one MethodId, one line in the plan
// (decision_plan.cpp), its sentence in describe() (decision.cpp).
#include <vector>

#include "properties/plan/decision_method.hpp"

namespace collcheck {

// The methods in the order they are tried.
const std::vector<const DecisionMethod*>& decision_plan();

// Walks the plan for `in` (which collects the declines): the decided or
// refused check, with decided_by, declined and their display statistics.
// A quotient's refutation is re-checked by exact enumeration while p is at
// most --exact-max-p and recheck_max_p.
InstanceCheck decide(DecisionInput& in);

// The method the plan expects to decide `s` under `o` (without a step hook,
// nothing simulated but what a method's expects() runs), and what the cost
// model needs of it.
struct PlannedMethod {
  MethodId method = MethodId::enumeration;
  uint64_t cell_words = 0;  // one of rank 0's cells where not p bits (a torus group's boxes)
  bool fold = false;        // the schedule folds extra ranks onto a core
  bool pairs = false;       // an all-to-all's (source, destination) blocks: rank 0's held cells
};
// `representative`: a schedule of s's class of p at which methods whose
// success depends on p beyond the class are asked (nullptr: s itself).
PlannedMethod planned_method(const Schedule& s, const CheckOptions& o, const Schedule* representative = nullptr);

}  // namespace collcheck
