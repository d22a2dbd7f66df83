#pragma once
// Träff's n-block reduce-scatter over circulant graphs: Algorithm 7's
// all-broadcast run backwards (Observation 1.4).
//
// Algorithm  : J. L. Träff, "Optimal Broadcast Schedules in Logarithmic Time
//              with Applications to Broadcast, All-Broadcast, Reduction and
//              All-Reduction", Observation 1, item 4: "Simultaneous reduction
//              to all processes as roots can likewise be done, giving
//              round-optimal solutions for the all-reduction operations
//              MPI_Reduce_scatter_block and [...] MPI_Reduce_scatter": the p
//              reductions of Observation 1.3 (traff_reduce.hpp), one per root
//              j, run simultaneously with one message per round, i.e.
//              Algorithm 7 (TraffAllgather, traff_allgather.hpp) reversed.
// Reference  : Träff, "Optimal Broadcast Schedules in Logarithmic Time ...",
//              Sec. 1 Observation 1.3 and 1.4, Appendix A (Algorithm 7).
// Names      : p, q = ceil(log2 p), skip[], x, S = n-1+q as in Algorithm 7;
//              root j's block c is global block j * n + c
//              (Collective::reduce_scatter, nblocks = n * p, owner of block b
//              is b / n = CollectiveSpec::owner); r' = (r - j) mod p is r's
//              rank relative to root j.
// Rounds     : S = n-1+q (p > 1). Reduce-scatter step s' mirrors allgather
//              step s = S-1-s' (round i = s + x, k = i mod q). Where the
//              allgather has r send the packed blocks to t = r + skip[k] and
//              receive from f = r - skip[k], the reduce-scatter has r send to f
//              the partial blocks it received from f in the allgather, and
//              receive from t the partial blocks it sent to t; the receiver
//              combines them (Combine::reduce). Both ends are listed.
// Rules      : the allgather's rules (negative blocks skipped, blocks above n-1
//              taken as n-1, root j's block neither packed for t = j nor
//              unpacked at r = j), reversed; then, per root j, the
//              first-receipt de-duplication of traff_reduce.hpp: r's receipt
//              of root j's capped block n-1 is kept only in the first round in
//              which r' receives an uncapped block >= n-1 (dropped at both
//              ends otherwise). Per root j the kept transfers are exactly
//              TraffReduce(p, n, j) (see there why that is a correct reduce),
//              so every owner ends with all p contributions of its n blocks.
//              As for the reduce, Theorem 1 makes the de-duplication a no-op
//              for the schedules of Algorithms 2-5 (measured; a guard only).
// Volume     : every rank sends (and receives) exactly n(p-1) blocks: for each
//              root j != r, r sends each of its n partial blocks of j once. The
//              paper, for n = 1: "Each partial result block for all processes
//              is sent and received once for a total volume of p-1 blocks sent
//              and p-1 blocks received". At most p-1 blocks per step.
// Cost       : the constructor runs Algorithm 7's first loop once (the
//              TraffAllgather it reverses: p*q 16-bit entries) and stores per
//              relative rank its first capped round (p 32-bit entries): O(p log p)
//              time, O(p log p) memory. rank_step is O(p): the allgather's
//              rank-step, then one table lookup per root's block n-1 in it.
// Restrictions: p >= 1, n >= 1, n * p < 2^32 - 1. No root.
// Example    : p = 3, n = 1: skip = 1, 2, 3, q = 2, x = 0, blocks 0, 1, 2
//              owned by ranks 0, 1, 2. Step 0 (allgather round 1 reversed):
//              r sends its partial block r+1 to r+1. Step 1 (round 0
//              reversed): r sends its partial block r-1 to r-1. Owner r adds
//              r-1's input at step 0 and r+1's at step 1; each rank sends
//              n(p-1) = 2 blocks (`collcheck dump --algo traff-reduce-scatter
//              --p 3 --n 1`).
#include <cstdint>
#include <vector>

#include "schedules/schedule.hpp"
#include "schedules/traff/traff_allgather.hpp"

namespace collcheck {

class TraffReduceScatter final : public Schedule {
 public:
  TraffReduceScatter(uint64_t p, uint32_t n);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return ag_.num_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int q() const { return ag_.q(); }
  uint32_t n() const { return ag_.n(); }
  // The all-broadcast this schedule reverses.
  const TraffAllgather& allgather() const { return ag_; }

 private:
  // `blocks` as received by rank u in round i of the allgather, without the
  // receipts the first-receipt rule drops.
  BlockSet kept(Rank u, int64_t i, BlockSet&& blocks) const;

  CollectiveSpec spec_;
  TraffAllgather ag_;
  int64_t x_;
  std::vector<int32_t> first_capped_;  // first_capped_[r'] = traff::first_capped_round of relative rank r'
};

}  // namespace collcheck
