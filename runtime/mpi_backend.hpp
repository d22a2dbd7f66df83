#pragma once
// MPI backend: executes a schedule of any collective with real MPI
// point-to-point calls and compares every rank's result with the MPI
// library's own collective (docs/architecture.md, "Data flow": runtime/).
//
// Vocabulary
//   count    : elements of the global vector; block b is the b-th of nblocks
//              contiguous pieces, the first count % nblocks pieces one element
//              longer (block_elements()). Every rank has a buffer of all
//              `count` elements.
//   inputs   : rank r holds block b at the start iff
//              CollectiveSpec::initial_contributor(r, b) names a rank c; its
//              elements are then input_integer(seed, c, index) of
//              runtime/inputs.hpp, so sums are exact for int64, float and
//              double and the reference's result can be compared with ==.
//              Every other block is undefined and filled with poison
//              (int64: -2^50, float/double: NaN); anything computed from it
//              (a copy, or a sum with poison in it) differs from every correct
//              result, so a schedule that reads a block its rank does not hold
//              is reported as a mismatch.
//   step     : every rank packs the blocks of each of its sends (the snapshot
//              before the step), posts MPI_Irecv for every recv and MPI_Isend
//              for every send with tag = step, waits with MPI_Waitall, then
//              applies the receives in order (copy overwrites, reduce adds).
//              Several transfers between the same pair in one step match in
//              the order both sides list them (MPI's non-overtaking rule).
//   reference: the MPI library's own collective on the same inputs, SUM for
//              the reductions; owner(b) = b / (nblocks / p) (each rank owns
//              a contiguous run of blocks, so its elements are contiguous):
//                allreduce      MPI_Allreduce, every rank, every block
//                reduce         MPI_Reduce to spec.root, the root's blocks
//                broadcast      MPI_Bcast from spec.root, every rank, every block
//                allgather      MPI_Allgatherv, counts and displacements =
//                               each owner's blocks' elements; every rank, every block
//                reduce-scatter MPI_Reduce_scatter, recvcounts = the elements of
//                               each rank's owned blocks; rank r, the blocks it owns
//                alltoall       MPI_Alltoallv, block b = src*p + dst from src to
//                               dst; rank r, the blocks i*p + r
//              Only (rank, block) pairs with CollectiveSpec::required(r, b) not
//              none are compared; the others may hold anything.
//   undefined: besides the final comparison, every rank records the first
//              time it sends a block holding poison or reduces a received
//              block into one (what the flow checker calls causality), so a
//              schedule that reads undefined data fails even when the data
//              ends where nothing is compared.
//
// Before communicating, every rank checks that the schedule's sends and
// receives match one to one (find_unmatched()); an unmatched schedule would
// hang MPI, so it is reported as a violation without running it.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "properties/verdict.hpp"
#include "runtime/inputs.hpp"
#include "schedules/schedule.hpp"

namespace collcheck::runtime {

struct MpiOptions {
  DType dtype = DType::int64;
  uint64_t count = 1000;  // elements of the vector, nblocks..INT_MAX
  uint64_t seed = 1;
};

struct MpiMismatch {
  Rank rank = 0;       // the smallest rank whose result differs
  Block block = 0;     // its first wrong block
  uint64_t index = 0;  // the first wrong element (global index in the vector)
  std::string expected, actual;  // actual ends in "(undefined data)" if derived from poison
};

struct MpiUndefinedRead {
  Rank rank = 0;        // the smallest rank that read undefined data
  int step = 0;         // its first such step
  Block block = 0;      // the first such block in that step
  Rank peer = 0;        // the receiver of the send, or the sender of the reduce
  bool reduce = false;  // false: it sent the block; true: it reduced a received block into it
};

struct MpiResult {
  Status status = Status::holds;  // holds or violated; identical on every rank
  std::optional<MpiMismatch> mismatch;
  std::optional<MpiUndefinedRead> undefined_read;
  std::string problem;  // one line: why the schedule was not run (unmatched, ...)
  int steps = 0;
  uint64_t messages = 0;  // summed over ranks
  uint64_t bytes = 0;     // summed over ranks
  double seconds = 0;     // slowest rank's time executing the schedule
  double reference_seconds = 0;  // slowest rank's time in the reference collective
};

// The MPI collective a schedule of kind `c` is compared with, e.g. "MPI_Allgatherv".
const char* reference_collective(Collective c);

// "rank 1 sends block 0 to rank 2 at step 0 before it holds it (undefined data)".
std::string to_string(const MpiUndefinedRead& u);

// Checks that every send has a recv with the same step, peer pair, block set
// and combine mode (and vice versa, in order), that peers and blocks are in
// range. Returns a one-line description of the first problem, nullopt if none.
// Deterministic, so every rank reaches the same answer.
std::optional<std::string> find_unmatched(const Schedule& sched);

// Collective over `comm` (size must equal sched.p()): runs the schedule and
// compares with reference_collective(sched.spec().kind) as described above.
// Throws std::invalid_argument (the same on every rank, before any
// communication) if the comm size differs from p, count < nblocks or
// count > INT_MAX, the root is not in 0..p-1 (broadcast, reduce), nblocks is
// not a multiple of p (allgather, reduce-scatter) or not p*p (alltoall).
MpiResult run_schedule(const Schedule& sched, const MpiOptions& opts, MPI_Comm comm);

}  // namespace collcheck::runtime
