#pragma once
// A fold (schedules/fold.hpp: p - p' extra ranks fold onto a core of p'
// ranks) verified as a composition, each part by its cheapest sound method,
// with every obligation stated and discharged:
//
//   core    the inner schedule on p' ranks holds every property, decided by
//           the grouped quotient (group_quotient.hpp: Swing's cores, as
//           masks) or by the certified quotient (flow_rotation.hpp,
//           run_quotient: any other EquivariantSchedule core, e.g. recursive
//           doubling's hypercube under the translations of the 2 x .. x 2
//           torus), and every copy in it carries a superset of what the
//           receiving block holds (every_copy_superset of either result);
//           the step hook is the instance's, shifted by the fold step, and
//           must judge by distances on Z_p' (StepHook::isometry_ring == p');
//   wrapper the fold steps: at step 0 every extra rank x sends every block
//           to core rank x mod p' (reduce) and nothing else happens at either
//           rank, at the last step the core rank sends every block back to
//           each of its extra ranks (copy). With extra = q p' + rem, core
//           ranks i < rem have q + 1 extra ranks and the others q (one or
//           none for p <= 2p'; two or one for Trivance's and Bruck's folds
//           onto 3^t). Checked directly at the first and the last core rank
//           of each class, with their extra ranks; the ranks between by
//           construction (fold.cpp's one rule in x; the latency variant
//           folds up to p/2 extra ranks, and checking each would be O(p)
//           per p);
//   idle    core ranks without an extra rank have no transfer at the fold steps and ranks
//           p'..p-1 none at the core's steps: FoldedSchedule's construction
//           (fold.hpp), checked with the wrapper's rule at every rank and
//           step of every fold in the registry to p = 130 by
//           fold_composition_test.cpp;
//   glue    after step 0 core rank i starts from X_i = {i} and its extra
//           ranks {x : x mod p' = i}: pairwise disjoint and nonempty (two
//           reduces into one cell in step 0 count one receive-race check,
//           as enumeration counts them). The core's flow
//           only unites and copies sets, so its run from X is the image of
//           its run from singletons under {i} -> X_i, which keeps
//           disjointness and inclusion: no contribution counted twice, no
//           copy losing one (supersets stay supersets), and every core block
//           ends with the union of all X_i = all p ranks, exactly once. Each
//           extra rank holds only its own contribution until the last step,
//           whose copy (everything) is a superset: it ends complete too.
//
// The verdicts are what enumeration reports for the folded schedule, with
// the same checks (fold_composition_test.cpp compares them): the core's
// counts plus the fold steps', ports p per step, the postcondition p x nb.
// Counts assume equivariant cores (every core rank's volume is rank 0's).
// It only certifies: a core that violates a property or copies over a set
// it does not contain, or anything else that is not a clean pass, declines
// (nullopt, `declined` says why) and the caller enumerates the folded
// schedule.
#include <functional>
#include <optional>
#include <string>

#include "properties/flow/group_quotient.hpp"
#include "schedules/fold.hpp"

namespace collcheck::flow {

struct FoldCompositionResult {
  RotationResult result;
  RotationResult core;       // the core's own verdicts (on p' ranks)
  uint64_t max_groups = 0;   // the grouped quotient's, 0 for the certified quotient
  std::string obligations;   // the obligations, one clause each, as discharged
};

// How the core is decided: its verdicts under `core_hook` (the instance's
// hook moved to the core's steps), or nullopt with `why`.
struct FoldCore {
  RotationResult result;
  uint64_t max_groups = 0;
  // Every copy contained what it replaced (both quotients report it).
  bool every_copy_superset = false;
  std::string method;  // "the grouped quotient", "the certified quotient"
};
using FoldCoreCheck = std::function<std::optional<FoldCore>(const StepHook& core_hook, std::string* why)>;

// `fold`: a FoldedSchedule over `inner` (the idle obligation is its
// construction; a caller passing another schedule states it for that one),
// `core`: decides `inner`.
std::optional<FoldCompositionResult> run_fold_composition(const Schedule& fold, const Schedule& inner,
                                                          const FoldCoreCheck& core, const StepHook& hook,
                                                          std::string* declined);
// The core as masks, by the grouped quotient (Swing's cores).
std::optional<FoldCompositionResult> run_fold_composition(const Schedule& fold, const Schedule& inner,
                                                          const MaskSchedule& core, const StepHook& hook,
                                                          std::string* declined, uint64_t max_groups = 512);

}  // namespace collcheck::flow
