#pragma once
// The work model of one sweep instance, shared by the MPI sharding
// (checker/sweep/mpi_shard.hpp: balance ranks by cost, which grows with p) and the
// --estimate projection (checker/sweep/estimate.hpp: fitted against measured times).
//
// The dense checker (properties/instance_checker.hpp) spends, per instance,
//   * per (rank, step): generating the rank program and the step-local checks
//     (matching, ports, hop distance)  -> `rank_steps` = p * steps
//   * per (rank, block) cell touched: state init and the final judgement, and
//     every block moved (snapshot + reduce/copy), each cell `words` 64-bit
//     words long (exact: a p-bit bitset + a flag word, ceil(p/64) + 1;
//     fingerprint: count + weighted sum, 2)  -> `cell_words` =
//     (p * nblocks + p * volume) * words
// where steps and volume (the most blocks one rank sends) come from the
// registry's claim (the paper's formula, or collcheck's correction) and
// nblocks from the schedule itself. p * volume over-counts algorithms whose
// ranks send unequal amounts (it is the busiest rank's volume times p), which
// only matters as a constant the fit absorbs.
//
// Interval bookkeeping (properties/flow/flow_interval.hpp) replaces the cells of
// fingerprint mode for schedules whose transfers are a few ranges. A target
// is taken to use it if check_schedule would at a probe p (the largest
// allowed p in [256, min(4096, p's power of two)], built once and cached), and
// then from p >= 256 on (below, dense is cheaper and chosen); its work is
// modelled as p * (2P + steps * (T*P + 2T)) pieces touched, P = 2 + 2 *
// steps pieces per rank, T = 2 * ports transfers per rank-step, times 2
// words. Nothing here runs the checker.
#include <cstdint>
#include <optional>
#include <string>

#include "checker/sweep/sweep.hpp"

namespace collcheck {

struct InstanceWork {
  double rank_steps = 0;  // p * claimed steps
  double cell_words = 0;  // (p * nblocks + p * claimed volume) * words per cell
  uint64_t nblocks = 0;
  uint64_t words = 0;     // 64-bit words per (rank, block) cell in the mode that runs
  bool exact = false;     // the mode check_schedule picks for this p
  bool intervals = false; // fingerprint mode with interval bookkeeping
  bool quotient = false;       // the certified quotient (rank 0 alone), p-bit cells or
  bool quotient_runs = false;  // runs of ranks
  bool grouped = false;        // the grouped quotient or a fold composition over it (linear in p)
  bool grouped_fold = false;   // a fold composition: its core's certificate is reused when the sweep has p' too
  bool parametric = false;     // a parametric certificate decides it: a constant per instance, no state
  // A scalar for balancing when no fitted constants are at hand: one cell
  // word ~ 1 unit, one rank-step ~ 64 units (generating a rank's transfers
  // costs about as much as moving a few blocks), plus 1000 per instance.
  double units() const { return 1000.0 + 64.0 * rank_steps + cell_words; }
};

// True if check_schedule runs exact bookkeeping at this p under `o`.
bool runs_exact(uint64_t p, const CheckOptions& o);

// The work of instance (t, p, radix) given its block count. InputError /
// exceptions from the claim propagate; call only for allowed instances.
// `grouped`: the instance was checked, and the grouped quotient decided it
// (true: its stat max_groups) or declined it (false: the stat
// grouped_declined; the cell quotient that followed did the work), which
// replaces the model's guess for p's class (the estimate's calibration
// points). nullopt: not known.
InstanceWork instance_work(const SweepTarget& t, uint64_t p, uint32_t radix, uint64_t nblocks,
                           const CheckOptions& o, std::optional<bool> grouped = std::nullopt);

// The same, building the schedule once to learn its block count.
InstanceWork instance_work(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o);

// Bytes of contribution state the dense checker allocates for the instance:
// p cells per block, blocks processed in chunks that fit the memory budget
// (at least one block), plus the same again at most for the step's outbox
// (sends snapshotted before receives) and ~256 bytes of rank program per rank.
uint64_t instance_memory_bytes(uint64_t p, uint64_t nblocks, const CheckOptions& o);

// Why the checker would refuse instance (t, p) before running it, as far as
// the estimate can tell without building it: infeasible() (exact mode over
// its budget, a dense state over 2^32 cells), or a dense state over 2^32
// cells for a target whose transfers are too scattered for interval
// bookkeeping to pay (check_schedule: bad input, whatever --max-memory).
std::optional<std::string> projected_refusal(const SweepTarget& t, uint64_t p, uint64_t nblocks,
                                             const CheckOptions& o);

// Wherever the certified quotient takes an instance (p-bit sets, runs of
// ranks, or boxes on a torus; asked once per variant and class of p, or per
// torus shape: a model, the checker decides when it runs) instance_work
// models rank 0's work alone, and the dense limit is no refusal
// (projected_refusal).

// Whether instance_work models (t, p) as decided from rank 0 (a quotient, a
// composition over one, an all-to-all's held cells or a parametric
// certificate) rather than enumerated: --estimate calibrates the two apart,
// since one target mixes them by class of p (Swing's paper-odd-later:
// composed, or enumerated where its ring sends an own block).
bool rank_zero_decides(const SweepTarget& t, uint64_t p, uint32_t radix, const CheckOptions& o);

// Whether fingerprint-mode instances of t around p use interval bookkeeping
// (the probe described above; cached per variant, options and p's power of
// two up to 4096).
bool target_uses_intervals(const SweepTarget& t, const CheckOptions& o, uint64_t p);

}  // namespace collcheck
