#pragma once
// One step of a schedule, every rank's transfers, as the step-local
// properties (matching, ports, hop distance) see it.
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

struct StepView {
  int step = 0;
  uint64_t p = 0;
  int ports = 1;
  uint64_t nblocks = 0;
  const std::vector<RankStep>* ops = nullptr;  // ops[r] for r < p
  const RankStep& at(Rank r) const { return (*ops)[r]; }
};

}  // namespace collcheck
