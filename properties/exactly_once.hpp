#pragma once
// Property "exactly-once": no contribution is ever combined into a block more
// than once. Multiplicity, not reachability: a checker that only asks "did it
// arrive" passes schedules that double-count.
//  exact mode       : a reduce whose incoming and local contribution sets
//                     intersect is reported at the step it happens, naming the
//                     rank counted twice.
//  fingerprint mode : at the end, a (rank, block) whose contribution count
//                     exceeds the expected count, or whose count matches but
//                     whose weighted sum does not (one double, one missing).
#include <string>

#include "properties/verdict.hpp"

namespace collcheck {

void exactly_once_double(Verdict& v, uint64_t p, Rank r, int step, Block b, Rank sender, Rank twice);
void exactly_once_fingerprint(Verdict& v, uint64_t p, Rank r, int last_step, Block b, uint64_t expected_count,
                              uint64_t count, bool sum_mismatch);

}  // namespace collcheck
