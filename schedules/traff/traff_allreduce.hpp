#pragma once
// Träff's n-block allreduce over circulant graphs: the reduce-scatter of
// Observation 1.4 (traff_reduce_scatter.hpp) followed by the all-broadcast of
// Algorithm 7 (traff_allgather.hpp).
//
// Algorithm  : J. L. Träff, "Optimal Broadcast Schedules in Logarithmic Time
//              with Applications to Broadcast, All-Broadcast, Reduction and
//              All-Reduction": Observation 1.4 (reduce-scatter: Algorithm 7
//              reversed) then Appendix A, Algorithm 7 (all-broadcast of the
//              reduced blocks). The paper names the all-reduction operations
//              but gives no allreduce schedule; this composition (the classic
//              reduce-scatter + allgather) is collcheck's.
// Reference  : Träff, "Optimal Broadcast Schedules in Logarithmic Time ...",
//              Sec. 1 Observation 1.2-1.4, Appendix A.
// Names      : p, q = ceil(log2 p), S = n-1+q; root j's block c is global
//              block j * n + c (Collective::allreduce, nblocks = n * p); rank j
//              owns blocks j*n .. j*n+n-1 between the two phases.
// Rounds     : 2S = 2(n-1+q) (p > 1): steps 0..S-1 are TraffReduceScatter's
//              steps (Combine::reduce), steps S..2S-1 are TraffAllgather's
//              steps 0..S-1 (Combine::copy): after step S-1 owner j holds the
//              full reduction of its n blocks and broadcasts them.
// Rules      : those of the two phases (see their headers).
// Volume     : every rank sends exactly 2n(p-1) blocks, n(p-1) per phase; at
//              most p-1 blocks per step.
// Cost       : the two phases' constructors: O(p log p) time and memory;
//              rank_step O(p).
// Restrictions: p >= 1, n >= 1, n * p < 2^32 - 1. No root.
// Example    : p = 3, n = 1: steps 0-1 are the reduce-scatter of
//              traff_reduce_scatter.hpp (r sends partial block r+1 to r+1, then
//              partial block r-1 to r-1); step 2: r copies its block r to r+1;
//              step 3: r copies block r to r+2. Each rank sends 2n(p-1) = 4
//              blocks in 4 steps (`collcheck dump --algo traff-allreduce --p 3
//              --n 1`; tests/unit/schedules/traff/traff_reduce_scatter_test.cpp checks p = 9,
//              n = 1 against the paper's Table 2).
#include <cstdint>

#include "schedules/schedule.hpp"
#include "schedules/traff/traff_allgather.hpp"
#include "schedules/traff/traff_reduce_scatter.hpp"

namespace collcheck {

class TraffAllreduce final : public Schedule {
 public:
  TraffAllreduce(uint64_t p, uint32_t n);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return rs_.num_steps() + ag_.num_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int q() const { return ag_.q(); }
  uint32_t n() const { return ag_.n(); }

 private:
  CollectiveSpec spec_;
  TraffReduceScatter rs_;
  TraffAllgather ag_;
};

}  // namespace collcheck
