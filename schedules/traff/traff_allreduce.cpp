#include "schedules/traff/traff_allreduce.hpp"

namespace collcheck {

TraffAllreduce::TraffAllreduce(uint64_t p, uint32_t n)
    : spec_{Collective::allreduce, p, 0, 0}, rs_(p, n), ag_(p, n) {
  spec_.nblocks = rs_.num_blocks();
}

void TraffAllreduce::rank_step(Rank r, int s, RankStep& out) const {
  const int S = rs_.num_steps();
  if (s < S) {
    rs_.rank_step(r, s, out);  // clears `out`; out of range (s < 0) yields nothing
    return;
  }
  ag_.rank_step(r, s - S, out);
}

}  // namespace collcheck
