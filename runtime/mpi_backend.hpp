#pragma once
// MPI backend: executes a schedule with real MPI point-to-point calls and
// compares every rank's result with the MPI library's own collective
// (DESIGN.md "Runtime").
//
// Vocabulary
//   count    : elements per rank; block b is the b-th of nblocks contiguous
//              pieces, the first count % nblocks pieces one element longer
//              (block_elements()).
//   step     : every rank packs the blocks of each of its sends (the snapshot
//              before the step), posts MPI_Irecv for every recv and MPI_Isend
//              for every send with tag = step, waits with MPI_Waitall, then
//              applies the receives in order (copy overwrites, reduce adds).
//              Several transfers between the same pair in one step match in
//              the order both sides list them (MPI's non-overtaking rule).
//   inputs   : input_integer(seed, rank, index) of runtime/inputs.hpp, so the
//              sum is exact for int64, float and double and MPI_Allreduce's
//              result can be compared with ==.
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
  uint64_t count = 1000;  // elements per rank, >= nblocks
  uint64_t seed = 1;
};

struct MpiMismatch {
  Rank rank = 0;       // the smallest rank whose result differs
  Block block = 0;     // its first wrong block
  uint64_t index = 0;  // the first wrong element (global index in the vector)
  std::string expected, actual;
};

struct MpiResult {
  Status status = Status::holds;  // holds or violated; identical on every rank
  std::optional<MpiMismatch> mismatch;
  std::string problem;  // one line: why the schedule was not run (unmatched, ...)
  int steps = 0;
  uint64_t messages = 0;  // summed over ranks
  uint64_t bytes = 0;     // summed over ranks
  double seconds = 0;     // slowest rank's time executing the schedule
  double reference_seconds = 0;  // slowest rank's time in MPI_Allreduce
};

// Block b's element range [lo, hi) when `count` elements are split into
// `nblocks` contiguous pieces (the first count % nblocks pieces get one more).
std::pair<uint64_t, uint64_t> block_elements(uint64_t count, uint32_t nblocks, Block b);

// Checks that every send has a recv with the same step, peer pair, block set
// and combine mode (and vice versa, in order), that peers and blocks are in
// range. Returns a one-line description of the first problem, nullopt if none.
// Deterministic, so every rank reaches the same answer.
std::optional<std::string> find_unmatched(const Schedule& sched);

// Collective over `comm` (size must equal sched.p()): runs the allreduce
// schedule and compares with MPI_Allreduce(MPI_SUM). Throws
// std::invalid_argument if the schedule is not an allreduce, the comm size
// differs from p, or count < nblocks (callers check these first).
MpiResult run_allreduce_schedule(const Schedule& sched, const MpiOptions& opts, MPI_Comm comm);

}  // namespace collcheck::runtime
