#pragma once
// Swing's own odd-p scheme (Swing NSDI'24, Sec. 3.2 and Fig. 3; schedules/
// swing/swing_odd_extra_node.hpp) verified as a composition: the even ring
// runs on ranks 0..m-1 (m = p - 1) and the extra rank m exchanges single
// blocks with runs of ring ranks during the ring's own steps. Each part by
// its cheapest sound method, every obligation stated and discharged:
//
//   core     the ring on m ranks holds every property, decided by the
//            grouped quotient (group_quotient.hpp) of its rank-0 masks; every
//            copy carries a superset of what it replaces; the step hook is
//            the instance's and judges by distances on Z_m, ranks and peers
//            >= m not at all (StepHook::isometry_ring == m);
//   wrapper  the extra rank's own steps, read at every step (O(m) single-block
//            transfers in all): in a reduce-scatter step (< L) it sends ring
//            rank j its contribution to block j and receives j's to block m
//            (both reduce); in an allgather step (>= L) it sends j block m
//            and receives block j (both copy); each ring rank is served once
//            in each phase (this is where the printed scheme's coverage
//            fails when m is a power of two: declined, enumerated). Ring
//            ranks 0 and m-1 are read at every step and must list the core's
//            transfers plus exactly the mirror of the extra rank's with them;
//            the ranks between by construction (SwingOddExtraNode::rank_step:
//            the ring's step, then one wrapper rule in r), checked at every
//            rank and step to p = 131 by extra_node_composition_test.cpp;
//   glue     (a) rank 0 sends no block 0 in a reduce-scatter step and
//            receives no block 0 in an allgather step (rank 0's steps; every
//            ring rank by the core's group, g_j(0) = j): the extra rank's
//            contribution to block j stays at rank j through the
//            reduce-scatter, whatever the step it arrives in, and rank j's
//            block j is final from then on; (b) the core's allgather only
//            copies (rank 0's steps), so every final cell of block 0, which
//            holds rank 0's contribution (the core's postcondition), is a
//            copy of rank 0's cell, the only one holding that contribution
//            after the reduce-scatter (a): the extra rank's contribution
//            once, in every cell of every block (block j by g_j); (c) block m is
//            never listed by the ring: rank j's block m is {j} until the
//            extra rank's copy, and the extra rank's block m collects every
//            ring rank once; (d) with ports k, rank 0 lists at most k - 1
//            sends and receives per step, so a served ring rank stays within
//            its ports; the receive races the wrapper adds are reduces with
//            reduces (reduce-scatter) and copies of distinct blocks
//            (allgather).
//
// Then every property holds on the ring's cells and blocks with the extra
// contribution counted once, and the composed verdicts are what enumeration
// reports (extra_node_composition_test.cpp compares them at every odd p to
// 259): the core's counts plus the wrapper's, ports judged at the extra rank
// at every step (the printed scheme's extra rank needs ceil(m/2) ports in
// step 0: violated, with enumeration's counterexample), the postcondition
// p x nb.
//
// Own block listed (glue a fails: paper-odd-later's ring, where
// 2^k < m < 4/3 2^k, sends rank 0's block 0 and gets its partial back):
// the core may then count contributions twice (exactly-once, postcondition;
// every other property must still hold, every copy a superset), and the
// extra rank's contribution to block j is followed instead
// (detail::follow_extra_contribution): in rank 0's coordinates it enters
// rank 0's cell of block 0 at reduce-scatter step rs(j) and moves with the
// core's transfers of block 0 (rank q's are g_q of rank 0's), one bit per
// step. Every cell that holds it also holds the owner's own contribution
// (an invariant of every transfer, the owner's cell only reduced in the
// reduce-scatter), so a reduce that counts it twice counts the owner's twice
// too: the exactly-once reports and the "counted twice" flags are the
// core's. Checked: no copy drops it, every final ring cell holds it (then a
// ring cell of a ring block is wrong exactly where the core's is); the
// extra rank's copy of block j is g_j of rank 0's block 0 before that
// allgather step (MaskSchedule::snapshots), judged with the contribution.
// The composed postcondition counts the core's wrong cells plus those, its
// counterexample the core's re-judged at p (or the extra rank's first);
// exactly-once is the core's, its counterexample at p.
//
// Anything else, a core that violates a property it may not, or an
// obligation that fails, declines (nullopt, `declined` says why) and the
// caller enumerates the schedule.
#include <optional>
#include <string>
#include <vector>

#include "properties/flow/group_quotient.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck::flow {

struct ExtraNodeCompositionResult {
  RotationResult result;
  uint64_t max_groups = 0;
  std::string obligations;  // the obligations as discharged (worded without p)
};

// `whole`: the schedule on p = m + 1 ranks; `core`: the ring on ranks
// 0..m-1 (m blocks), equivariant, with `masks` its rank-0 masks.
std::optional<ExtraNodeCompositionResult> run_extra_node_composition(const Schedule& whole,
                                                                     const EquivariantSchedule& core,
                                                                     const MaskSchedule& masks, const StepHook& hook,
                                                                     std::string* declined, uint64_t max_groups = 512);

namespace detail {

// Where the core lists its own block: what the extra rank's contribution
// does at the extra rank's cells of the ring's blocks (the only cells whose
// verdict is not the core's, once follow_extra_contribution has checked
// that every final ring cell holds it). Exposed for its tests.
struct OwnBlockFlow {
  uint64_t extra_wrong = 0;           // cells (p-1, j), j < p-1, that are not the collective's result
  Block first_wrong = 0;              // the smallest such j
  std::vector<uint64_t> first_value;  // its value as ExactCells words over p ranks (set, then the flag)
};

// `rep`: rank 0's steps of the core; rs_step[j] / ag_step[j]: the steps of
// the extra rank's exchanges with ring rank j; L: the reduce-scatter's
// steps; `q`: the core's grouped quotient with MaskSchedule::snapshots.
// nullopt (with `declined`) where a copy drops the extra rank's
// contribution or a final ring cell lacks it.
std::optional<OwnBlockFlow> follow_extra_contribution(const EquivariantSchedule& core, const std::vector<RankStep>& rep,
                                                      const std::vector<int>& rs_step, const std::vector<int>& ag_step,
                                                      int L, const GroupQuotientResult& q, std::string* declined);

}  // namespace detail

}  // namespace collcheck::flow
