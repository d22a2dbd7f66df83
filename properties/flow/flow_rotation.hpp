#pragma once
// Exact contribution-flow check of translation-invariant (circulant) schedules
// by a verified symmetry argument.
//
// A schedule is translation invariant with block shift h if, for every rank r
// and step s, rank r's transfers are rank 0's with every peer q replaced by
// (q + r) mod p and every block b by (b + r*h) mod nblocks, in the same list
// order and with the same combine modes, and the collective's pre- and
// postcondition are invariant too (allreduce; allgather and reduce-scatter
// with h = nblocks / p, where owner(b + r*h) = owner(b) + r). Trivance (both
// ports, r -+ 3^k, Sec. 4.1 of the Trivance paper), Bruck's
// allreduce and the ring are such schedules; Swing is not (its peers depend
// on the parity of r).
//
// Then, by induction over the steps, the contribution set of (r, b) is the
// rotation by r of the set of (0, b - r*h): a rank receiving block b from q
// receives q's rotation of rank 0's cell b - q*h. So the flow properties
// (causality a/b/d, exactly-once with exact multiplicity, postcondition) are
// simulated for rank 0 alone, with exact p-bit contribution sets, and every
// violation at any rank is a rotated copy of one at rank 0, at the same
// step. Counterexamples order by step, then rank (verdict.hpp): every rank
// fails at the same steps, so the first failing step's smallest rank is
// rank 0, and the minimal counterexample is rank 0's, the same as the
// generic checker's; checks and violation counts are rank 0's times p.
//
// One more condition: no rank receives one block twice in one step where
// the result depends on the order (the generic checker applies such
// receives in the order of the peers' rank numbers, which rotation does not
// preserve); rank 0's receive lists are checked, every other rank's are
// rotations of them. Reduces are recounted per order or judged in rank 0's
// (below); two copies of one block are accepted when they carry the same
// value (every order then leaves that value and reports alike), and
// anything else with a copy involved declines.
//
// Nothing is assumed: every rank's transfers of every step are generated and
// compared with the rotation of rank 0's (invariance_checks in the stats); if
// any differs, the caller falls back to the generic simulation. The
// step-local properties (matching, ports, receive races, cost) are judged at
// rank 0 the same way: rank r's transfers and its peers' are rotations of
// rank 0's and of rank 0's peers'. Checks with a step hook (Swing's hop distance)
// are not handled here.
//
// Memory: nblocks * (p/64 + 2) words for rank 0 plus one step's received
// cells, and rank 0's and its peers' transfers of one step; every other
// rank's step is generated, compared and dropped.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/flow/flow_common.hpp"
#include "properties/cost.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/schedule.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck::flow {

// Candidate block shifts h for which the collective's specification is
// invariant (empty: none, e.g. rooted collectives and all-to-all).
std::vector<Block> invariant_block_shifts(const CollectiveSpec& spec);

// Whether rank r's step equals rank 0's rotated by r (peers + r, blocks + r*h).
// `scratch` is reused between calls.
bool rotated_equal(const RankStep& zero, const RankStep& mine, Rank r, Block h, uint64_t p, uint64_t nblocks,
                   std::vector<BlockSet::Range>& scratch);

// The block shift under which ranks 1 and p-1 look like rotations of rank 0
// in every step (a cheap necessary condition), if any; p >= 3 only.
std::optional<Block> probe_rotation(const Schedule& s);

// Reflects a p-bit set: bit x -> bit (c - x) mod p (the swing-dihedral
// group's odd elements, schedules/symmetry.hpp).
void reflect_bits(uint64_t* dst, const uint64_t* src, uint64_t p, uint64_t c);

// Rotates a p-bit set left by q (bit x -> bit (x + q) mod p); `words` =
// ceil(p/64), bits >= p are zero in `src` and left zero in `dst`.
void rotate_bits(uint64_t* dst, const uint64_t* src, uint64_t p, uint64_t q);

// Bytes the rotation mode needs for the contribution state (rank 0 and one
// step's received cells at most nblocks per receive).
uint64_t rotation_state_bytes(uint64_t p, uint64_t nblocks);

// Words of one of rank 0's cells in the certified quotient of `s`: a p-bit
// set and a flag word, or, under a torus group, a box (box_cells.hpp).
uint64_t quotient_cell_words(const EquivariantSchedule& s);
// rotation_state_bytes for the quotient of `s`, with its cells.
uint64_t quotient_state_bytes(const EquivariantSchedule& s);

struct RotationResult {
  Verdicts verdicts;
  CostMeasurement cost;
  uint64_t invariance_checks = 0;  // rank-steps compared with rank 0's rotation
  // Every copy's incoming set contained what the receiving cell held (rank
  // 0's, hence every rank's): what the fold composition needs of a core
  // (fold_composition.hpp). A copy may replace a set it does not contain
  // without a violation when it carries as many contributions. Decided only
  // when run_quotient is asked to (copy_superset).
  bool every_copy_superset = true;
};

// Runs every check of check_schedule with the rank-0 simulation, or returns
// nullopt as soon as some rank is not the rotation of rank 0 (the caller then
// runs the generic simulation).
std::optional<RotationResult> run_rotation(const Schedule& s, Block h, const StepHook& hook);

// The certified quotient: an EquivariantSchedule
// (schedules/symmetry.hpp) is equivariant by construction, so the rank-0
// simulation above runs without generating any rank but rank 0 and its
// peers. The argument is the same with the group in place of rotations:
// the contribution set of (g_r(x), g_r(b)) is g_r of (x, b)'s (the collective's
// pre- and postcondition are invariant, GroupAction::invalid), so a rank
// receiving block b from q receives g_q of rank 0's cell g_q^{-1}(b); every
// violation at rank r is g_r of one at rank 0 at the same step, and counts
// scale by p (the action on ranks is regular). The quotient form of each
// property:
//   matching, ports, receive races, claimed cost: rank 0's transfers against
//     its peers' (g_q of rank 0's), rank 0's volume (every rank sends as much);
//   causality, exactly-once (exact multiplicity), postcondition: rank 0's
//     row of cells simulated exactly (p-bit sets), the peer's cells mapped
//     by the group (rotations, reflections: reflect_bits); under a torus
//     group the cells are boxes (box_cells.hpp: products of per-dimension
//     sets, each factor rotated or reflected), and a reduce whose union is
//     not a box declines;
//   a step hook only if it declares that it judges a rank by ring distances
//     alone (StepHook::invariant_under_ring_isometries) and the group's
//     elements are isometries of Z_p.
// Declines (nullopt, `declined` says why; the caller enumerates) where the
// argument does not cover the step: one block received twice by rank 0 in
// one step with a copy involved, or with reduces only where the generic
// checker's order of applying them (by peer rank, which the group does not
// keep) changes what is reported: p-bit sets under the 1D translations
// recount per order; otherwise rank 0's order must report nothing in that
// step (then no order reports anything).
//
// Rank 0's cells under a 1D group are p-bit sets (`bits`, p^2 bits for the
// row, the default while that fits the budget) or runs of ranks (`runs`,
// run_cells.hpp: sized by their content, exact, the same judgement; the
// run declines when the runs outgrow `memory_budget`, 0: no limit). Under
// a torus group they are boxes whatever is asked.
// `sparse`: an all-to-all with blocks as (source, destination) pairs
// (BlockAction::pairs): only the cells rank 0 holds, one contributor each,
// in a hash map (p * p cells would not fit: rank 0 holds p + the blocks it
// receives); a reduce that would join two contributors declines.
// `copy_superset`: also decide RotationResult::every_copy_superset (one
// containment test per copied cell; the fold composition asks for it,
// otherwise it stays true unexamined).
enum class QuotientCells { bits, runs, sparse };
std::optional<RotationResult> run_quotient(const EquivariantSchedule& s, const StepHook& hook, std::string* declined,
                                          QuotientCells cells = QuotientCells::bits, uint64_t memory_budget = 0,
                                          bool copy_superset = false);

}  // namespace collcheck::flow
