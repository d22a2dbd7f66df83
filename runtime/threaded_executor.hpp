#pragma once
// Threaded executor: runs a schedule of any collective (allreduce, reduce,
// broadcast, allgather, reduce-scatter, alltoall) with real data, one
// std::thread per rank, in shared memory, and checks every rank's result
// (docs/architecture.md, "Data flow": runtime/).
//
// Data model (shared with the MPI backend, runtime/mpi_backend.hpp): rank r
// holds block b at the start iff CollectiveSpec::initial_contributor(r, b)
// names a rank c, with the inputs of c (runtime/inputs.hpp) at the block's
// global element indices; every other block is undefined: filled with poison
// and tracked as `empty`, so sending or reducing it is reported, not summed.
//
// Vocabulary (see also runtime/inputs.hpp)
//   mailbox  : per rank, a mutex + condition variable guarding the messages
//              addressed to it, keyed by (step, src); several messages with the
//              same key are matched in order (MPI's non-overtaking rule).
//   message  : one transfer's payload: the sender's values of the transfer's
//              blocks, snapshotted before the sender applies that step's
//              receives, plus per block its state (empty, value, garbage,
//              disordered) and, for the permutation operator, the interval of
//              ranks [lo, hi] the value combines.
//   step     : a rank takes rank_step(r, s), snapshots and posts all its sends,
//              then blocks until every receive of step s has arrived and
//              applies them (copy overwrites, reduce combines). There is no
//              barrier: a rank may run ahead, its messages wait in mailboxes.
//   deadlock : exact detection: a rank blocked on an absent message counts as
//              inactive (as does a finished rank); a sender that delivers the
//              awaited message makes it active again under the mailbox lock.
//              When all p ranks are inactive and at least one is blocked,
//              nobody can ever send again: the run stops and reports the stuck
//              ranks, their step and whom they wait for. A watchdog also stops
//              the run when no rank makes progress within `deadlock_timeout`.
//
// The permutation operator is non-commutative: reduce only combines values
// whose rank intervals are adjacent in rank order ([a..b] then [b+1..c]); two
// values that are not adjacent (e.g. [6..7] and [0..1], adjacent only around
// the ring) or overlap are an order violation: no order of operands gives
// x_0 * ... * x_{p-1} from them.
//
// In-place: one buffer per rank holds the input and receives the result.
// Out-of-place: the input is a separate read-only buffer; a block the rank has
// not yet written is read from the input (the first reduce writes input op
// received into the output), and blocks the schedule never touches are copied
// from the input at the end (the local copy every out-of-place implementation
// needs, e.g. for p = 1).
//
// Checks: every (rank, block) against CollectiveSpec::required(r, b): all_ranks
// -> the reduction of every contributor's input in rank order; single_origin
// -> the origin's input block; none -> ignored. Also reported: transfers whose
// peer or blocks are out of range, messages whose blocks or combine mode differ
// from the receiver's recv, messages never received, order violations, blocks
// sent before the sender holds them and reduces into a block the receiver
// does not hold (both read undefined data).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/verdict.hpp"
#include "runtime/inputs.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::runtime {

struct ExecOptions {
  DType dtype = DType::int64;        // ignored by ReduceOp::permutation
  ReduceOp op = ReduceOp::sum;
  uint32_t elems_per_block = 3;       // 0 is treated as 1
  bool in_place = true;
  std::chrono::milliseconds deadlock_timeout{10000};
  uint64_t seed = 1;
};

struct StuckRank {
  Rank rank = 0;
  int step = 0;
  std::vector<Rank> waiting_for;  // sources of this step's receives that never arrived
};

struct ExecStats {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  double seconds = 0;  // wall time of the threaded run
  int steps = 0;
};

struct ExecResult {
  Verdict verdict;  // property "executor", mode e.g. "threads/int64/in-place"
  ExecStats stats;
  bool deadlock = false;
  bool timed_out = false;  // the deadlock was found by the watchdog, not exactly
  std::vector<StuckRank> stuck;  // sorted by rank
};

// "threads/int64/in-place", "threads/permutation/out-of-place", ...
std::string mode_string(const ExecOptions& opts);

// Runs `sched` with p threads and checks the result. Never throws for a
// malformed schedule: problems are violations in the verdict. Resources
// exhausted are not a verdict: ResourceRefusal (schedules/memory_guard.hpp) if the p threads cannot all be
// created, std::bad_alloc if memory runs out (in any rank); every thread
// started is stopped and joined first.
ExecResult execute_threads(const Schedule& sched, const ExecOptions& opts = {});

}  // namespace collcheck::runtime
