#pragma once
// What each decision method would allocate, before it allocates it: the
// memory guard (--max-memory) compares these with the limit, and
// estimate_memory (instance_checker.hpp) reports them. Every rank's
// transfers are taken to be as large as rank 0's (exact for the
// equivariant schedules; stated in each estimate's `how`).
#include <cstdint>
#include <optional>
#include <string>

#include "properties/flow/flow_interval.hpp"
#include "properties/instance_checker.hpp"

namespace collcheck {

// The process itself (code, TBB's threads, the report), charged once.
inline constexpr uint64_t kProcessBaseline = uint64_t{32} << 20;
// The dense checker's limit on (rank, block) cells: p = 2^16 with p blocks takes ~100 s.
inline constexpr uint64_t kMaxDenseCells = uint64_t{1} << 32;

// The largest per-step range count and sent-block count of rank 0.
struct RankZeroSize {
  uint64_t ranges = 0, transfers = 0, sent_blocks = 0, recv_blocks = 0;
  uint64_t sent_total = 0, recv_total = 0;  // over all steps
};
RankZeroSize rank_zero_size(const Schedule& s);

// The mode that runs at s.p() (automatic: exact up to --exact-max-p).
Exactness resolved_exactness(uint64_t p, const CheckOptions& o);

// Whether exact enumeration keeps cells only for held blocks
// (flow/held_enumeration.hpp): an all-to-all, unless dense cells are asked for.
bool held_takes(const Schedule& s, const CheckOptions& o, Exactness e);

// Every rank simulated: dense cells (exact or fingerprint) or an
// all-to-all's held cells.
MemoryEstimate generic_estimate(const Schedule& s, const CheckOptions& o, Exactness e, const RankZeroSize& z);
// The quotients: rank 0's p-bit (or box) cells, rank 0's runs of ranks, an
// all-to-all's held blocks at rank 0.
MemoryEstimate rotation_estimate(const Schedule& s, const RankZeroSize& z);
MemoryEstimate runs_estimate(const Schedule& s, const RankZeroSize& z);
MemoryEstimate held_estimate(const Schedule& s, const RankZeroSize& z);

// Whether fingerprint mode keeps interval state for `s` (with its plan):
// asked for, or predicted cheaper than dense cells. Over the dense limit
// with transfers too scattered for intervals to pay it throws InputError
// (no method decides such an instance), never an attempt at either.
std::optional<flow::IntervalPlan> interval_plan(const Schedule& s, const CheckOptions& o, Exactness e);

// "p * nblocks" for a message: the product, or "more than 2^64 - 2".
std::string cell_count(uint64_t p, uint64_t nblocks);

}  // namespace collcheck
