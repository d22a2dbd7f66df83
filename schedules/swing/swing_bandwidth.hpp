#pragma once
// Swing bandwidth-optimal allreduce on a 1D ring (reduce-scatter, then
// allgather), in every reading of Listing 1 and of the de-duplication rule
// for even p that collcheck registers (one generator, SwingSendRule below).
//
// Algorithm  : De Sensi et al., "Swing: Short-cutting Rings for Higher Bandwidth
//              Allreduce", NSDI'24. Sec. 3.1.1 (Listing 1), Sec. 3.2, Appendix A.2.
// Names      : p, s (step), rho(s), delta(s), pi(r, s) as in Eq. 2 (swing_math.hpp);
//              L = ceil(log2 m) Swing steps on a ring of m ranks.
// Blocks     : the vector is split into m blocks; block b is the one rank b owns
//              after the reduce-scatter (the paper's b_r).
// Steps      : 2L (reduce-scatter steps 0..L-1, allgather steps L..2L-1 in the
//              reverse peer order).
// Volume     : the default rule sends m-1 blocks per phase, 2(m-1) blocks of n/m.
// Allgather step L+j (s = L-1-j): r sends back to q = pi(r, s), as final
//              copies, what q sent r at RS step s (the paper: "the algorithm for
//              allgather is analogous"; every reading mirrors its own sets).
//
// The paper's text, quoted:
//   Sec. 3.1.1: "data transmitted from r to q includes the block b_q, plus all
//     the blocks that q will transmit to other nodes in the subsequent steps."
//   Listing 1 ("Swing reduce-scatter pseudocode"), as printed:
//       def get_rs_idx(r, step, p, blocks):
//           if step >= log2(p): return
//           for s in range(step, int(log2(p))):
//               peer = pi(r, s, p)
//               # Set to 1 the node I directly reach
//               blocks[peer] = 1
//               # and those that it will reach
//               get_rs_idx(peer, s+1, p, blocks)
//
//       def reduce_scatter(r, p, data):
//           for s in range(0, int(log2(p))):
//               blocks_s = blocks_r = [0]*p
//               dest = pi(r, s)
//               get_rs_idx(r, s, p, blocks_s)
//               get_rs_idx(peer, s, p, blocks_r)
//               # Send blocks where blocks_s[i]=1,
//               # recv blocks where blocks_r[i]=1
//               sendrecv(dest, data, blocks_s, block_r)
//   Sec. 3.2: "When p is even but not a power of 2, some nodes can receive the
//     same block of data twice (one of which in the last step, see Appendix
//     A.2). Thus, in that case, it is enough for each node not to send the
//     same data block twice."
//   App. A.2: "To guarantee property i), it is enough for each node to
//     pre-compute the blocks b_i it will send at each step and if it would
//     send a block twice, send that only in the last step."
//
// Step sets (SwingStepSet). get_rs_idx(x, t) marks every node x reaches
// through steps t..L-1: pi(x, t) and what it reaches from t+1, then pi(x, t+1)
// and what it reaches from t+2, ... (a bitmap: a node reached twice is marked
// once). Write Lit(r, s) = {pi(r, s)} + get_rs_idx(pi(r, s), s+1).
//   printed (variant paper-listing1-printed): the call as printed,
//     get_rs_idx(r, s): the rank's own index and step s, i.e. every node r
//     reaches from step s on = Lit(r, s) + Lit(r, s+1) + ... + Lit(r, L-1).
//   peer (collcheck's reading; paper-listing1 and every other variant):
//     Lit(r, s), the peer's index and step s+1, which is what the prose above
//     says (b_q plus what q sends later). The two agree only at s = L-1.
//   Slips of the pseudocode that no variant models: `peer` in reduce_scatter
//   is undefined (dest is meant), `block_r` is blocks_r, pi is called with and
//   without p, and in Python `blocks_s = blocks_r = [0]*p` binds both names to
//   one list (the text says the two bitmaps denote what is sent and what is
//   received). int(log2(p)) is the step count only for p a power of two, the
//   case Sec. 3.1 assumes, so the printed variant is restricted to it.
//
// De-duplication (SwingKeep x skip_own). For p a power of two the Lit sets
// of a rank are pairwise disjoint and never contain r (Theorem A.5), so on
// them every rule below is a no-op. Otherwise a block can be listed at
// several steps of one rank, and the text does not say which occurrence "the
// last step" keeps, nor anything about the rank's own block r, which Lit
// lists for some p:
//     every     : no de-duplication (paper-listing1, paper-listing1-printed);
//     earlier   : send it only at the first step that lists it (paper-earlier);
//     later     : only at the last step that lists it (paper-later);
//     last_step : only at the algorithm's last step L-1, to pi(r, L-1)
//                 (paper-laststep);
//     skip_own  : in addition, never send block r (collcheck's addition, not
//                 in the text; the -skip-own variants). later + skip_own is
//                 the default `bandwidth`.
//
// Why each reading holds or fails. With any de-duplication a rank sends each
// block at most once, so the reduce-scatter moves block b along a forest: rank
// x sends its partial of b once, at step t_x(b), to pi(x, t_x(b)). Every
// contribution reaches b exactly once iff (1) every rank x != b sends b,
// (2) b never sends b, and (3) a rank that receives b at step t sends it at a
// step > t (what it receives later is stranded).
//   later + skip_own (bandwidth): HOLDS. If x sends b at step t to q = pi(x, t),
//     b is in Lit(x, t) = {q} + get_rs_idx(q, t+1): b = q, or b is in Lit(q, u)
//     for some u > t, so q's last listing of b is after t: (3). skip_own is
//     (2). (1) is coverage, the union of r's Lit sets is every other rank (App.
//     A.2's property ii); the checker confirms it for every even p it runs
//     (docs/findings/swing.md, item 3: every even p up to 1024). Each rank
//     sends each of the p-1 other blocks once per phase: 2(p-1) blocks, the
//     paper's volume claim.
//   later, own block sent (paper-later): breaks (2) exactly where some rank
//     lists its own block; by (3)'s argument its partial of block r travels
//     back to r: its contribution is counted twice (exactly-once) and it sends
//     p blocks instead of p-1 (cost). Minimal p = 10: Lit(0, 0) contains 0.
//     A rank lists itself only if a nonempty walk of steps returns to it, i.e.
//     a signed sum of rho's is a nonzero multiple of p. As in Theorem A.5's
//     proof such a sum is a sum of distinct powers of -2 below 2^L, at most
//     (2^(L+1)-1)/3 < 4/3 2^k in magnitude (2^k < p <= 2^L = 2^(k+1)), so
//     3p < 4*2^k is necessary; that it is also sufficient is measured (tests,
//     p <= 512: p = 10, 18..20, 34..42, 66..84, 130..170, 258..340).
//   earlier, with or without skip_own (paper-earlier, -skip-own): breaks (3):
//     a rank's first listing of b can come before it receives b. p = 6: ranks
//     4 and 5 list block 0 at steps 0 and 1, swap it at step 0 and never send
//     it again, so rank 0 misses contributions 4 and 5 (postcondition). Fails
//     at every even non-power of two (measured).
//   last_step, with or without skip_own (paper-laststep, -skip-own): a
//     repeated block goes to pi(r, L-1), which at the last step cannot forward
//     it to its owner. p = 6: ranks 4 and 5 send block 0 to ranks 1 and 2
//     (postcondition). Fails at every even non-power of two (measured).
//   every, peer sets (paper-listing1): a block listed at two steps of a rank
//     reaches its owner by two paths: counted twice (exactly-once, minimal
//     p = 6: rank 4's contribution to block 0).
//   every, printed sets (paper-listing1-printed): get_rs_idx(r, s) also lists
//     the blocks of r's steps s+1..L-1, so r sends such a block at every step
//     up to the one Lit assigns it to. At a power of two the early copies are
//     never forwarded (by Theorem A.5's uniqueness the receiver's later steps
//     do not reach b), so the reduce-scatter's result is right (tests), but
//     each rank sends more than p-1 blocks (cost: 4 at p = 4). The allgather,
//     mirroring the same sets, copies the stale partials back over complete
//     blocks after the complete ones arrived (causality, postcondition;
//     minimal p = 4). Under the later rule the two step sets coincide:
//     printed(s) minus printed(s+1..L-1) = Lit(r, s) minus Lit(r, s+1..L-1),
//     so the printed call with the later-step de-duplication and skip_own is
//     `bandwidth` again (unit-tested).
//
// Paper notes: App. A.2 writes "pi(r, s) = pi(g, s) <=> g = s"; it must read
//              g = r. Sec. 3.1.1 claims that sending contiguous data makes the
//              algorithm work with non-commutative operators; the threaded
//              executor refutes that for rank order from p = 8
//              (docs/findings/swing.md, item 6).
// Restrictions: m >= 1; the ring schedule itself needs m even or m = 1 (odd
//              rings pair ranks inconsistently, A.2). Odd p is handled by
//              fold.hpp (variant bandwidth) and swing_odd_extra_node.hpp
//              (variant paper-odd).
// Example    : p = 8, rank 0 sends {1,2,5,6}, {4,7}, {3} at RS steps 0, 1, 2.
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "schedules/schedule.hpp"

namespace collcheck {

// Listing 1's step-s set of rank r (see the header comment).
enum class SwingStepSet {
  peer,     // collcheck's reading: pi(r, s) and get_rs_idx(pi(r, s), s+1)
  printed,  // the printed call get_rs_idx(r, s, p, blocks_s)
};
// Which occurrence of a block that several steps of one rank list is sent.
enum class SwingKeep {
  every,      // no de-duplication
  earlier,    // the earliest step that lists it
  later,      // the latest step that lists it
  last_step,  // the algorithm's last step L-1, to pi(r, L-1)
};
// One reading of Listing 1 plus Sec. 3.2's de-duplication. The default is
// the `bandwidth` variant's.
struct SwingSendRule {
  SwingStepSet sets = SwingStepSet::peer;
  SwingKeep keep = SwingKeep::later;
  bool skip_own = true;  // never send the rank's own block r
};

// The even-ring schedule on ranks 0..m-1. `spec` may describe more ranks and
// blocks than m (the odd-p wrapper adds rank m and block m); ranks >= m are
// idle here.
class SwingBandwidthRing final : public Schedule {
 public:
  SwingBandwidthRing(CollectiveSpec spec, uint64_t m, SwingSendRule rule = {});
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2 * L_; }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int swing_steps() const { return L_; }
  uint64_t ring_size() const { return m_; }
  const SwingSendRule& rule() const { return rule_; }
  // The blocks rank r sends at reduce-scatter step s (after the dedup rule).
  BlockSet rs_send(Rank r, int s) const;
  // rs_send(r, s) written into `into` (copy-assigned from the cache when there is one).
  void rs_send_into(Rank r, int s, BlockSet& into) const;

  // Every reduce-scatter step's set of rank r at once: each block's listing
  // steps counted in one pass over r's L listings (O(m) listed ranks for all
  // steps, where compute_rs_send lists them all again for each step of a
  // de-duplicating rule). Equal to compute_rs_send(r, s) for every s
  // (swing_test.cpp compares them for every rule).
  std::vector<BlockSet> compute_rs_sends(Rank r) const;
  // One step's set, by the rule as worded, uncached (the reference that
  // compute_rs_sends is tested against; the generator's path for the
  // no-de-duplication rules above the cache's size).
  BlockSet compute_rs_send(Rank r, int s) const;

 private:
  std::vector<Rank> listed(Rank r, int t) const;  // step t's set before de-duplication
  BlockSet last_step_send(Rank r, int s, std::vector<Rank> mine) const;
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
  // Above the cache, the de-duplicating rules' last few ranks (all steps of
  // each, first in first out): a rank's steps and its peers' are asked for
  // two steps each (its send and its peer's receive), and each costs every
  // listing of the rank.
  std::shared_ptr<const std::vector<BlockSet>> memo_rs_sends(Rank r) const;
  static constexpr uint64_t kMemoMaxRanks = uint64_t{1} << 20;
  mutable std::mutex memo_mu_;
  mutable std::vector<std::pair<Rank, std::shared_ptr<const std::vector<BlockSet>>>> memo_;
  CollectiveSpec spec_;
  uint64_t m_;
  int L_;
  SwingSendRule rule_;
};

std::unique_ptr<Schedule> make_swing_bandwidth(uint64_t p, SwingSendRule rule = {});

}  // namespace collcheck
