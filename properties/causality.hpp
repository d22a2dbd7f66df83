#pragma once
// Property "causality": a rank only sends data it holds before the step.
//  (a) the sender's block must hold at least one contribution (for allgather,
//      broadcast and all-to-all this is "has received it"; a block is never
//      forwarded in the step it arrives, because sends read the state before
//      the step);
//  (b) a copy must not replace a value with one of fewer contributions: a
//      copy forwards a result, and a result smaller than what the receiver
//      already has was sent before it was complete ("send before receive").
//      The rule compares contribution counts in both modes, so the verdict
//      never depends on the mode (a swap of equal-sized partial results is
//      allowed);
//  (c) no two receives of one rank write the same block in one step unless
//      both reduce: with a copy involved the result depends on the order in
//      which the messages are applied (a race), so it is flagged whatever the
//      order the schedule happens to list them in.
//  (d) a reduce needs a defined value at the receiver: reducing into a block
//      the receiver does not hold (allgather, broadcast and all-to-all
//      buffers are undefined until received) combines with garbage.
#include <string>

#include "properties/verdict.hpp"

namespace collcheck {

void causality_sender_holds_nothing(Verdict& v, uint64_t p, Rank r, int step, Block b, Rank peer);
// Step-local part (c).
struct StepView;
void check_receive_races(const StepView& sv, Rank r, Verdict& v);

void causality_reduce_into_undefined(Verdict& v, uint64_t p, Rank receiver, int step, Block b, Rank sender);
void causality_copy_discards(Verdict& v, uint64_t p, Rank receiver, int step, Block b, Rank sender,
                             std::string lost);
// What a copy of `got` contributions over a cell holding `had` > got discards,
// as every checker path words it.
std::string copy_loss_text(uint64_t had, uint64_t got);

}  // namespace collcheck
