#pragma once
// The grouped quotient: the certified quotient (flow_rotation.hpp,
// run_quotient) with rank 0's row of cells kept as groups: each group is one
// contribution set (a p-bit mask), and every block of rank 0 names its group
// (one byte per block, at most 255 groups). Sized by the number of distinct
// contribution sets rank 0 carries, with O(1) work per block rank 0 receives
// in a reduce step and no p-bit set per cell.
//
// How many groups (verify's `max_groups` stat, the most at any step).
// Swing's `bandwidth`: every even p <= 2^14 carries at most 34 (p = 12286,
// L + 20 with L = ceil(log2 p)), p = 2^k exactly L + 1 (one live set plus
// one stale set per step sent); 507 samples up to 2^21 at most 55
// (p = 1572862); the blocks rank 0 receives in one step come from at most 3
// groups of the peer (docs/design.md). So a reduce step costs one pass over
// the blocks it moves plus O(pairs of groups) mask operations, against O(p)
// cells of p bits (or runs) in the cell-by-cell quotient.
//
// The argument is run_quotient's, unchanged: rank 0's peer q holds in block
// b the image g_q of rank 0's cell g_q^{-1}(b), so block b arrives with g_q
// of the contribution set of rank 0's group at g_q^{-1}(b). A reduce pairs
// the receiving block's group with the incoming one; a contribution counted
// twice is one intersection of two contribution sets per pair of groups
// (computed once per pair and step). Copies, from the first copy step on,
// are word-parallel: a mask of the blocks holding every contribution; a
// copy step whose sources are all complete completes its receiving blocks
// (a superset of anything they held). Nothing is approximated: every
// block's contribution set is exactly its group's, or complete.
//
// Violations are decided here too, as the cell quotient decides them: a
// group's set carries ExactCells' "counted twice" flag word; a pair that
// counts a contribution twice (reduce) or discards some (copy, by the count
// rule of every path) is one report per block it moves, the counterexample
// at its first block (the blocks of a step are visited in increasing
// order); the postcondition is judged once per group, at its first block.
// A copy of a value that is not complete, or a reduce after the copies
// began, goes back from the complete mask to group ids for that step.
//
// Scope: an allreduce with blocks acting as ranks (or fixed) under a 1D
// group, where rank 0 exchanges with at most one peer q per step (sends and
// receives one block set each, one combine mode) and q's partner is rank 0
// (g_q(q) = 0; g_q is then an involution). Under a reflection a step is one
// pass 64 blocks at a time (wide_kernels.hpp; receives that read blocks the
// step writes read a copy taken before it); with blocks fixed or under a
// translation a block-by-block pass, which declines at a violation under a
// translation or at a block read after the step wrote it. It also declines
// (nullopt, `declined` says why, and the caller runs run_quotient) above
// `max_groups` or 255 group ids, or when the step hook reports.
// `every_copy_superset` in the result says whether every copy contained
// what it replaced: the stronger condition the fold composition needs
// (fold_composition.hpp).
//
// Counts: every check of run_quotient is counted (rank 0's, times p), so a
// holding verdict has the same checks as the quotient's and the enumerated
// check's (group_quotient_test.cpp compares them).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "properties/flow/flow_rotation.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck::flow {

// Rank 0's one exchange of a step: send `send` to `peer`, receive `recv`
// from it (p-bit masks over the blocks, ceil(p/64) words each, owned by the
// MaskSchedule and valid until its next call; all-zero: no transfer). One of
// the two may be null with `other_is_image`: it is then g_q of the given
// one by the schedule's certificate (rank q's step is g_q of rank 0's, so
// what q sends rank 0 is g_q of what rank 0 sends q), and matching holds by
// construction; with both given, matching is checked block by block.
struct MaskExchange {
  Rank peer = 0;
  Combine combine = Combine::reduce;
  const uint64_t* send = nullptr;
  const uint64_t* recv = nullptr;
  bool other_is_image = false;
  // Nonzero: the given set's name in this schedule (two exchanges whose
  // given sets have one key have equal sets), so that a copy step receiving
  // from q the set a reduce step sent to q reuses g_q of it. 0: none.
  uint64_t set_key = 0;
};

// A schedule's rank 0 as masks: the group acting (blocks as ranks), the
// step count and a generator of rank 0's exchange per step (`active` false:
// rank 0 idle at that step).
struct MaskSchedule {
  const GroupAction* action = nullptr;
  CollectiveSpec spec;
  int steps = 0;
  int ports = 1;
  std::function<void(int step, MaskExchange& out, bool& active)> exchange;
  std::string representation;  // how the masks were computed (for the method text)
  // Nonempty: a name for exactly this schedule (the same key, the same
  // masks at every step). The flow half of the result (every property but
  // the step hook, which is judged per call) is then kept for the next few
  // calls with that key: a range sweep asks for Swing's ring of p' as the
  // even instance p' and as the core of the odd p' + 1.
  std::string memo_key;
  // Keep rank 0's block 0 before every step and after the last, and the
  // postcondition counterexample's block at the end (GroupQuotientResult::
  // block0, first_wrong): the extra-node composition reads them where the
  // core sends its own block. Off: nothing kept (the range sweeps' cost).
  bool snapshots = false;
};

struct GroupQuotientResult {
  RotationResult result;
  uint64_t max_groups = 0;  // the most groups rank 0 carried at once
  bool reused = false;      // the flow half came from an earlier call with the same memo_key
  // Every copy's incoming set contained what the receiving block held (a
  // copy may replace a set it does not contain without a violation when it
  // carries as many contributions: the count rule every path uses).
  bool every_copy_superset = true;
  // MaskSchedule::snapshots: rank 0's block 0 before step t (block0[t],
  // t = 0..steps; block0[steps] after the last), and the block of the
  // postcondition's counterexample after the last step (empty if it holds);
  // each ceil(p/64) words of contributions, then the "counted twice" flag.
  std::vector<std::vector<uint64_t>> block0;
  std::vector<uint64_t> first_wrong;
};

std::optional<GroupQuotientResult> run_group_quotient(const MaskSchedule& m, const StepHook& hook,
                                                      std::string* declined, uint64_t max_groups = 512);

// g_q of a p-bit mask under the 1D group `g` (a reflection x -> q - x or a
// translation x -> x + q), and g_q^{-1}.
void map_mask(const GroupAction& g, Rank q, const uint64_t* src, uint64_t* dst);
void inverse_map_mask(const GroupAction& g, Rank q, const uint64_t* src, uint64_t* dst);

}  // namespace collcheck::flow
