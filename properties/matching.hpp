#pragma once
// Property "matching": every send r->q at step s has a receive at q from r in
// step s with the same BlockSet and combine mode, and every receive has such a
// send; no self-sends, no empty transfers, peers and blocks in range.
#include "properties/step_view.hpp"
#include "properties/verdict.hpp"

namespace collcheck {

// Checks rank r's transfers in one step; records failures into `v`.
void check_matching(const StepView& sv, Rank r, Verdict& v);

// The transfer in `list` from/to `peer` with the given blocks and combine, or nullptr.
const Transfer* find_transfer(const std::vector<Transfer>& list, Rank peer, const BlockSet& blocks,
                              Combine c);

}  // namespace collcheck
