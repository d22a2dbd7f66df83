#pragma once
// Swing bandwidth-optimal allreduce for odd p, the paper's own scheme.
//
// Algorithm  : Swing, NSDI'24, Sec. 3.2 and Fig. 3: "If p is odd, we run the
//              algorithm on p - 1 nodes, while node p - 1 at each step sends
//              (p - 1)/2^s of its blocks to the corresponding (p - 1)/2^s nodes
//              (and receiving from those its block)."
// Names      : m = p - 1 ring ranks run SwingBandwidthRing on blocks 0..m-1
//              with a de-duplication rule (Sec. 3.2 for even m: "not to send
//              the same data block twice"): by default `bandwidth`'s (a
//              repeated block at its last listing, never the rank's own block,
//              collcheck's addition; variant paper-odd), or the last listing
//              with the own block sent where listed, as the text allows
//              (variant paper-odd-later, `paper-later`'s rule on the ring);
//              rank m = p-1 is the extra node, block m its block.
// Reading    : the formula (p-1)/2^s gives 6 for p = 7, s = 0, but Fig. 3 shows
//              3 nodes (0, 1, 2) at step 0, then 2 (3, 4), then 1 (5). We follow
//              the figure: at RS step s the extra node serves the next
//              ceil(m / 2^(s+1)) ring ranks (fewer if fewer remain). The paper
//              does not describe the allgather for odd p; we mirror the
//              reduce-scatter (same pairs, reverse step order, copies).
// Steps      : 2 ceil(log2(p-1)).
// Volume     : 2(p-1) blocks of n/p per rank.
// Known defects (found by collcheck; docs/findings/swing.md, item 4):
//   * coverage: sum_s ceil(m/2^(s+1)) = m - 1 < m when m is a power of two, so
//     one ring rank is never served (minimal counterexample p = 3);
//   * ports: the extra node talks to ceil(m/2) ranks in step 0, more than the
//     2 ports (2D, D = 1) of the paper's own model once p >= 7;
//   * with the own block sent where listed (paper-odd-later): where a ring
//     rank lists its own block (2^k < m < 4/3 2^k: p = 11, 19, 21, ...) its
//     partial comes back to it, as for paper-later at p = m (exactly-once).
// Checked    : as a composition where its obligations hold (the ring of p-1
//              by the grouped quotient, the extra rank's exchanges read in
//              full: properties/flow/extra_node_composition.hpp), else
//              enumerated.
// Restrictions: p odd, p >= 3.
#include <memory>

#include "schedules/swing/swing_bandwidth.hpp"

namespace collcheck {

class SwingOddExtraNode final : public Schedule {
 public:
  explicit SwingOddExtraNode(uint64_t p, SwingSendRule ring_rule = {});
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return ring_.num_steps(); }
  void rank_step(Rank r, int s, RankStep& out) const override;
  int ports() const override { return 2; }  // 2D ports, D = 1 (Sec. 2.2)

  // Ring ranks the extra node serves at reduce-scatter step s: [first, last).
  std::pair<Rank, Rank> served(int s) const;
  // The ring of p - 1 ranks (its rule: the extra-node composition's core).
  const SwingBandwidthRing& ring() const { return ring_; }
  // The ring's steps as this schedule generates them (rank 0's under the
  // group): the composition's core, built once.
  const Schedule& ring_steps() const { return *ring_steps_; }
  // An extra rank beside the ring's steps (the extra-node composition's
  // shape: core ranks keep the ring's step, then mirror the extra rank's
  // exchange with them).
  ScheduleShape shape() const override;

 private:
  CollectiveSpec spec_;
  SwingBandwidthRing ring_;
  // The ring's steps as the even variants build them: rank 0's mapped by
  // the dihedral group (swing_equivariant.hpp; its certificate is tested
  // against the direct generator), O(blocks) per rank-step where the direct
  // generator lists and sorts every step of the rank and its peer.
  std::unique_ptr<Schedule> ring_steps_;
};

// Whether check_schedule's extra-node composition (properties/flow/
// extra_node_composition.hpp) is expected to decide the scheme at p: the
// extra rank serves every ring rank (m = p - 1 not a power of two), whether
// or not a ring rank lists its own block (2^k < m < 4/3 2^k under
// paper-odd-later's rule: the composition then follows the extra rank's
// contribution through the core). A model for the cost estimate and the
// sweep's scheduling only: the composition checks its obligations itself
// and declines otherwise (extra_node_composition_test.cpp compares the two
// at every odd p <= 259).
bool swing_odd_composition_expected(uint64_t p, const SwingSendRule& rule);

}  // namespace collcheck
