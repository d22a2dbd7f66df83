#pragma once
// Property "ports": in the k-port model a rank makes at most k sends and k
// receives per step (k = Schedule::ports(), the algorithm's own claim).
#include "properties/step_view.hpp"
#include "properties/verdict.hpp"

namespace collcheck {

void check_ports(const StepView& sv, Rank r, Verdict& v);

}  // namespace collcheck
