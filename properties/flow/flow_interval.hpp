#pragma once
// Interval bookkeeping for the fingerprint flow check (docs/design.md,
// "Differences from the founding design sketch"): every rank's contribution state is a piecewise-constant
// function of the block index, kept as sorted pieces
//     [lo_i, lo_{i+1}) -> (contribution count, sum of rank weights mod 2^61-1)
// instead of one cell per (rank, block). A transfer of one block range
// touches O(pieces) state, not O(blocks): for schedules whose transfers are a
// few contiguous ranges (Swing with contiguous blocks, Rabenseifner, the
// latency schedules) an instance costs O(p * steps * pieces) instead of
// O(p * nblocks), which is what makes p = 2^21 with 2^21 blocks checkable
// (the dense state would be 2^42 cells).
//
// The judgement is the dense fingerprint mode's, block for block: the same
// weights (fingerprint_weights), the same canonical order of receives, the
// same checks and violation counts (a piece of n blocks counts n checks and,
// if it fails, n violations) and the same minimal counterexample (the first
// block of the first failing piece). tests/unit/properties/flow/flow_interval_test.cpp
// compares both on every registered variant and on mutants.
//
// The error bound is the fingerprint's: a wrong multiset of contributions
// with the right count passes with probability at most 2^-61 per check.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/cost.hpp"
#include "properties/flow/flow_common.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::flow {

inline constexpr const char* kIntervalMethod =
    "intervals: per-rank block ranges -> (count, 61-bit weighted sum), merged when equal";

// The work (elementary operations) of the dense and the interval
// fingerprint simulations, predicted from rank 0's transfers (every rank is
// taken to be like rank 0), and the interval method's memory. `pieces`
// estimates the pieces per rank: 3 + 2 per range rank 0 receives over all
// steps, at most nblocks. It is an estimate, not a bound (a received range
// can carry several of the sender's pieces): run_intervals checks the real
// size while it runs.
struct IntervalPlan {
  double dense_work = 0;
  double interval_work = 0;
  uint64_t pieces = 0;
  uint64_t memory_bytes = 0;
  std::string how;  // the memory breakdown, for the guard's message
  bool cheaper() const { return interval_work < dense_work; }
};
IntervalPlan plan_intervals(const Schedule& s);

struct IntervalResult {
  Verdicts verdicts;
  CostMeasurement cost;
  uint64_t max_pieces = 0;  // the most pieces any rank held after any step
  // Set (verdicts meaningless) when the state outgrew the memory limit.
  std::optional<std::string> aborted = {};
};

// Runs every check of check_schedule in fingerprint mode with interval
// state. `weights` has one entry per rank (fingerprint_weights). After every
// step the bytes held by pieces and outboxes (vector capacities) are summed;
// above `memory_limit` (0: none) the run stops with `aborted` saying where.
IntervalResult run_intervals(const Schedule& s, const std::vector<uint64_t>& weights, const StepHook& hook,
                             uint64_t memory_limit = 0);

// The collective's initial contributors and requirements as runs of blocks
// (exact translations of CollectiveSpec::initial_contributor / required,
// unit-tested block by block). f(lo, hi, value) for consecutive [lo, hi)
// covering [0, nblocks).
void for_each_initial_run(const CollectiveSpec& spec, Rank r,
                          const std::function<void(Block, Block, std::optional<Rank>)>& f);
void for_each_required_run(const CollectiveSpec& spec, Rank r,
                           const std::function<void(Block, Block, Requirement)>& f);

}  // namespace collcheck::flow
