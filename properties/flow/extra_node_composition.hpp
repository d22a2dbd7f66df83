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
// p x nb. Anything else, a core that violates a property or an obligation
// that fails, declines (nullopt, `declined` says why) and the caller
// enumerates the schedule.
#include <optional>
#include <string>

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

}  // namespace collcheck::flow
