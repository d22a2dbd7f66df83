#pragma once
// One step of a schedule, every rank's transfers, as the step-local
// properties (matching, ports, hop distance) see it.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

struct StepView {
  int step = 0;
  uint64_t p = 0;
  int ports = 1;
  uint64_t nblocks = 0;
  const std::vector<RankStep>* ops = nullptr;  // ops[r] for r < p, or (with `ranks`) ops[i] for ranks[i]
  // Sparse: only the ranks listed (sorted) have their step in ops, ops[i]
  // being ranks[i]'s (the certified quotient keeps rank 0 and its peers, not
  // p steps). Asking for another rank is a defect of the caller.
  const std::vector<Rank>* ranks = nullptr;
  const RankStep& at(Rank r) const {
    if (!ranks) return (*ops)[r];
    const auto it = std::lower_bound(ranks->begin(), ranks->end(), r);
    if (it == ranks->end() || *it != r)
      throw std::logic_error("StepView: rank " + std::to_string(r) + " is not among the ranks kept");
    return (*ops)[static_cast<size_t>(it - ranks->begin())];
  }
};

}  // namespace collcheck
