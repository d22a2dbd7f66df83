#pragma once
// Runs every generic property on one schedule instance and returns one
// verdict per property, in catalog order.
//
// How an instance is decided is the decision plan (properties/plan/
// decision_plan.hpp): an ordered list of methods (a parametric certificate,
// the compositions, the grouped and the cell quotient, the probed rotation,
// interval fingerprints, enumeration), each of which applies to the
// schedule's shape (Schedule::shape) and the options or not, and decides or
// declines with a reason. InstanceCheck says which decided and which
// declined. Enumeration, the last, simulates every rank and step
// (properties/flow/dense_simulation.hpp) with exact p-bit cells or, above
// --exact-max-p, fingerprints (a count and a weighted sum in the field
// 2^61 - 1: a wrong multiset with the right count passes with probability
// at most 2^-61 per check); every report names the mode.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "properties/plan/decision.hpp"
#include "properties/step_view.hpp"
#include "properties/verdict.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/registry.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {

enum class Exactness { automatic, exact, fingerprint };
const char* to_string(Exactness e);

// How fingerprint mode keeps its state (flow_interval.hpp): one cell per
// (rank, block) ("dense"), or per-rank block ranges ("intervals"). automatic:
// intervals when rank 0's transfers predict less work, or when the dense
// state would exceed 2^32 cells. Exact mode is dense, except that an
// all-to-all keeps cells only for the blocks each rank holds
// (flow/held_enumeration.hpp) unless `dense` is asked for.
enum class Bookkeeping { automatic, dense, intervals };
const char* to_string(Bookkeeping b);

struct CheckOptions {
  Exactness exactness = Exactness::automatic;
  uint64_t exact_max_p = 1024;            // automatic: exact up to this p, fingerprint above
  // A quotient's refutation is re-checked by exact enumeration (both must
  // agree; a disagreement reports the enumerated verdicts) while p is at most
  // this and exact_max_p. A cross-check of the quotient, not its evidence: the
  // tests compare both on every declared variant far beyond it. 0: never.
  uint64_t recheck_max_p = 256;
  uint64_t memory_budget = 4ULL << 30;    // bytes of contribution state per instance
  uint64_t seed = 0x5eed;                 // fingerprint weights
  // Translation-invariant schedules (flow_rotation.hpp): verify the symmetry
  // on every rank, then simulate rank 0 exactly. false: always the generic
  // simulation (tests compare both).
  bool use_symmetry = true;
  // The grouped quotient (flow/group_quotient.hpp) before the cell-by-cell
  // one where rank 0's steps come as masks; false: the cell-by-cell quotient
  // alone (tests compare the two).
  bool grouped_quotient = true;
  // Keep the grouped quotient's flow certificate of a ring for the next few
  // instances that need it (MaskSchedule::memo_key: the even p' and the odd
  // p' + 1's core); false: compute it every time (--estimate's calibration
  // measures one instance's own cost).
  bool reuse_certificates = true;
  Bookkeeping bookkeeping = Bookkeeping::automatic;
  // The memory guard (--max-memory): an instance whose estimated memory
  // exceeds this many bytes is refused before anything is allocated
  // (InstanceCheck::refused). 0: no guard.
  uint64_t max_memory = 0;
  // Catalog names of the properties to report (verify --properties); empty:
  // all that apply. check_schedule (the generic properties and a family's
  // step hook, e.g. Swing's hop distance) runs only if one of the properties
  // it computes is selected (properties/family_property.hpp: runs_engine).
  std::vector<std::string> properties;
  // Parametric certificates (parametric_decider.hpp), asked first in exact
  // mode when no step hook runs; nullptr: none (verify sets it).
  const class ParametricDecider* parametric = nullptr;
  // Trace the root cause of every final-value counterexample
  // (flow/root_cause.hpp, explain_final_values below). False: counterexamples
  // carry none. A sweep whose report shows only each group's minimal
  // counterexample (text, Markdown, HTML) checks without and traces those
  // few afterwards (sweep.hpp, trace_shown_root_causes): the same report,
  // without a trace of O(p * steps) per refuted instance. The verdicts never
  // depend on it.
  bool trace_root_causes = true;
  bool selected(const std::string& name) const;
  bool any_generic_selected() const;
};

// A family property judged inside the engine (properties/family_property.hpp):
// at every step the engine asks for the per-rank check of that step and runs
// it on every rank, in parallel, into one verdict named `property`. Empty
// (no at_step): none.
struct StepHook {
  using RankCheck = std::function<void(const StepView& sv, Rank r, Verdict& v)>;
  std::string property;                   // the verdict's catalog name
  std::function<RankCheck(int step)> at_step;  // an empty RankCheck: nothing judged at that step
  // true: the RankCheck judges rank r only by the distances on Z_p (p the
  // instance's) between r and its peers, so it says the same at ranks
  // related by an isometry of Z_p; a quotient (properties/flow/
  // flow_rotation.hpp, run_quotient) may then judge rank 0 alone.
  bool invariant_under_ring_isometries = false;
  // n > 0: every RankCheck judges a rank r < n by the ring distances on Z_n
  // between r and its peers alone, and ranks >= n (and peers >= n) not at
  // all; invariant_under_ring_isometries is then n == p. A fold's core of
  // n ranks (fold_composition.hpp) is judged by a quotient on Z_n.
  uint64_t isometry_ring = 0;
  explicit operator bool() const { return static_cast<bool>(at_step); }
};

// The symmetry-based check (flow_rotation.hpp) is exact: its mode is "exact"
// and stats["method"] says how it ran (the generic simulation sets no
// "method").
// The certified quotient (run_quotient): stats["method"] starts with this,
// followed by the group and the certificate.
inline constexpr const char* kQuotientMethod = "quotient";
inline constexpr const char* kRotationMethod =
    "symmetry: translation invariance verified on every rank and step, rank 0 simulated with p-bit sets";

struct InstanceCheck {
  std::vector<Verdict> verdicts;  // catalog order; the step hook's verdict last, only when a hook is given
  std::string mode;               // "exact" or "fingerprint ..."
  // The method that decided (nullopt when refused) and those that were
  // tried before it and declined, in plan order (properties/plan/).
  std::optional<DecidedBy> decided_by = {};
  std::vector<Declined> declined = {};
  // Display statistics; "method" and the *_declined keys are rendered from
  // decided_by and declined (properties/plan/decision_plan.cpp) for the
  // reports and the store, never read back to decide anything.
  std::map<std::string, std::string> stats;
  // Set (and nothing checked) when the memory guard refused the instance or
  // no method could decide it: one line with the reason.
  std::optional<Refusal> refused = {};
};

// What check_schedule would allocate for `s` with `o`, before allocating it:
// the contribution state, every rank's transfers of one step, the outbox.
// Every rank's transfers are taken to be as large as rank 0's (exact for the
// translation-invariant schedules; stated in `how`).
struct MemoryEstimate {
  uint64_t bytes = 0;
  std::string how;              // the breakdown, one clause per part
  uint64_t fallback_bytes = 0;  // symmetry mode: the generic simulation's, if it falls back
};
MemoryEstimate estimate_memory(const Schedule& s, const CheckOptions& o);
// The one-line reason of a refusal; it starts with kRefusedPrefix
// (schedules/memory_guard.hpp).
std::string refusal(const MemoryEstimate& m, uint64_t limit);
// The default --max-memory: 75% of the physical memory (sysconf).
uint64_t default_max_memory();

// Why an instance cannot be checked with these options (nullopt if it can):
// exact mode needs one block's state (p * (p/64 + 1) words) within the memory
// budget, and a dense state (exact mode, or --state dense) p * nblocks must
// stay within 2^32 cells (fingerprint mode with interval bookkeeping has no
// such limit; the memory guard judges it).
std::optional<std::string> infeasible(uint64_t p, uint64_t nblocks, const CheckOptions& o);
// The same for `s`: an all-to-all enumerated exactly keeps only the cells
// each rank holds (flow/held_enumeration.hpp), so neither dense limit
// applies to it (the memory guard judges it).
std::optional<std::string> infeasible(const Schedule& s, const CheckOptions& o);

InstanceCheck check_schedule(const Schedule& s, const Claim* claim, const StepHook& hook, const CheckOptions& o);

// The root cause of each final-value counterexample among `verdicts`
// (flow/root_cause.hpp): the postcondition's, and exactly-once's when it was
// judged on the final values (fingerprint mode: no peer, at the last step).
// check_schedule does this for every verdict unless
// CheckOptions::trace_root_causes is false; a sweep calls it afterwards for
// the counterexamples its report shows.
void explain_final_values(const Schedule& s, const std::vector<Verdict*>& verdicts);

}  // namespace collcheck
