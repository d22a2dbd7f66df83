#pragma once
// Property "cost": measured steps (last step with any transfer, plus one) and
// measured volume (max over ranks of blocks sent) equal the claim. A
// disagreement with a paper is reported as such (expected = the claim and its
// source, actual = the measurement), never hidden.
#include <cstdint>

#include "properties/verdict.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

struct CostMeasurement {
  int steps = 0;
  uint64_t max_volume = 0;
  Rank max_volume_rank = 0;
  uint64_t total_volume = 0;
};

Verdict judge_cost(uint64_t p, const CostMeasurement& m, const Claim* claim);

}  // namespace collcheck
