#include "properties/cost.hpp"

#include "properties/catalog.hpp"

namespace collcheck {

Verdict judge_cost(uint64_t p, const CostMeasurement& m, const Claim* claim) {
  Verdict v;
  v.property = prop::cost;
  v.mode = "exact";
  v.stats["measured_steps"] = std::to_string(m.steps);
  v.stats["measured_volume_blocks"] = std::to_string(m.max_volume);
  v.stats["total_volume_blocks"] = std::to_string(m.total_volume);
  if (!claim) {
    v.status = Status::skipped;
    return v;
  }
  v.stats["claimed_steps"] = std::to_string(claim->steps) + " (" + claim->steps_formula + ")";
  v.stats["claimed_volume_blocks"] = std::to_string(claim->volume_blocks) + " (" + claim->volume_formula + ")";
  v.checks = 2;
  if (m.steps != claim->steps) {
    Counterexample c;
    c.p = p;
    c.expected = std::to_string(claim->steps) + " steps (" + claim->steps_formula + ", " + claim->source + ")";
    c.actual = std::to_string(m.steps) + " steps";
    c.message = "step count differs from the claim";
    v.fail(std::move(c));
  }
  if (m.max_volume != claim->volume_blocks) {
    Counterexample c;
    c.p = p;
    c.rank = m.max_volume_rank;
    c.expected = std::to_string(claim->volume_blocks) + " blocks (" + claim->volume_formula + ", " + claim->source + ")";
    c.actual = std::to_string(m.max_volume) + " blocks";
    c.message = "per-rank volume differs from the claim";
    v.fail(std::move(c));
  }
  return v;
}

}  // namespace collcheck
