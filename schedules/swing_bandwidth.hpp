#pragma once
// Swing bandwidth-optimal allreduce on a 1D ring (reduce-scatter, then allgather).
//
// Algorithm  : De Sensi et al., "Swing: Short-cutting Rings for Higher Bandwidth
//              Allreduce", NSDI'24. Sec. 3.1.1 (Listing 1), Sec. 3.2, Appendix A.2.
// Names      : p, s (step), rho(s), delta(s), pi(r, s) as in Eq. 2 (swing_math.hpp);
//              L = ceil(log2 m) Swing steps on a ring of m ranks.
// Blocks     : the vector is split into m blocks; block b is the one rank b owns
//              after the reduce-scatter (the paper's b_r).
// Steps      : 2L (reduce-scatter steps 0..L-1, allgather steps L..2L-1 in the
//              reverse peer order).
// Volume     : each rank sends m-1 blocks in each phase, 2(m-1) blocks of n/m.
// Reduce-scatter step s: rank r sends to q = pi(r, s) the blocks of Listing 1's
//              get_rs_idx(r, s): q itself and every node q reaches through
//              steps s+1..L-1 ("Lit(r, s)"). Allgather step L+j (s = L-1-j):
//              r sends back to q, as final copies, what q sent r at RS step s.
// Non-power-of-two m (Sec. 3.2, A.2): Lit(r, s) can repeat a block across
//              steps. The paper: "pre-compute the blocks b_i it will send at
//              each step and if it would send a block twice, send that only in
//              the last step". That sentence has two readings, both built here:
//     rule::later    : send it only at the later of the steps that would send it
//                      (this is the variant the checker proves correct);
//     rule::last_step: send it at the algorithm's last step L-1, to pi(r, L-1)
//                      (the literal reading; the checker refutes it, p = 6);
//     rule::none     : Listing 1 verbatim, no de-duplication (refuted, p = 6).
// Paper notes: App. A.2 writes "pi(r, s) = pi(g, s) <=> g = s"; it must read
//              g = r. Sec. 3.1.1 claims that sending contiguous data makes the
//              algorithm work with non-commutative operators; the threaded
//              executor refutes that for rank order from p = 8 (README).
// Restrictions: m >= 1; the ring schedule itself needs m even or m = 1 (odd
//              rings pair ranks inconsistently, A.2). Odd p is handled by
//              fold.hpp (variant bandwidth) and swing_odd_extra_node.hpp
//              (variant paper-odd).
// Example    : p = 8, rank 0 sends {1,2,5,6}, {4,7}, {3} at RS steps 0, 1, 2.
#include <memory>
#include <mutex>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

enum class SwingDedupRule { later, last_step, none };

// The even-ring schedule on ranks 0..m-1. `spec` may describe more ranks and
// blocks than m (the odd-p wrapper adds rank m and block m); ranks >= m are
// idle here.
class SwingBandwidthRing final : public Schedule {
 public:
  SwingBandwidthRing(CollectiveSpec spec, uint64_t m, SwingDedupRule rule);
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2 * L_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int swing_steps() const { return L_; }
  // The blocks rank r sends at reduce-scatter step s (after the dedup rule).
  BlockSet rs_send(Rank r, int s) const;

 private:
  BlockSet compute_rs_send(Rank r, int s) const;
  const BlockSet& cached_rs_send(Rank r, int s) const;

  // For m <= kCacheMaxRanks every rank's reduce-scatter sets are computed
  // once, on first use (thread-safe), because every step of a rank and of
  // its peers needs them. Above that the lazy path recomputes them.
  static constexpr uint64_t kCacheMaxRanks = 4096;
  struct RankCache {
    std::once_flag once;
    std::vector<BlockSet> sets;
  };
  mutable std::unique_ptr<RankCache[]> cache_;
  CollectiveSpec spec_;
  uint64_t m_;
  int L_;
  SwingDedupRule rule_;
};

std::unique_ptr<Schedule> make_swing_bandwidth(uint64_t p, SwingDedupRule rule);

}  // namespace collcheck
