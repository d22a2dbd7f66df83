#pragma once
// Runs a collective as a black box on the exact-multiplicity payloads of
// runtime/blackbox/payloads.hpp: the MPI library's own
// (`collcheck-mpi --native allreduce`) or a user's function with the
// standard signature, loaded from a shared library
// (`collcheck-mpi --function ./libmine.so:my_allreduce --collective allreduce`).
//
// Every payload run fills each rank's send buffer, puts the sentinel in the
// receive buffer, calls the collective once, and judges every rank's result;
// rank 0 keeps the smallest rank's first defect. The job-wide guards of
// runtime/blackbox/crash_report.hpp end the process (exit 3, one line naming
// the world rank, its communicator and the phase) when the call does not
// return in time, when a rank crashes in it, or when glibc finds the heap
// corrupted after it; mpirun then ends the job. run_blackbox returns only
// after every rank of `comm` has confirmed its checks of every call, so what
// was printed before such a line stays true.
#include <mpi.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/blackbox/payloads.hpp"
#include "runtime/trace/message_trace.hpp"

namespace collcheck::runtime::blackbox {

// The type of the count argument(s) the target takes: MPI's int, the size_t
// many libraries use, or MPI_Count (the MPI-4 large-count `_c` bindings).
enum class CountType { int32, size, mpi_count };
const char* to_string(CountType c);  // "int", "size_t", "MPI_Count"
std::optional<CountType> count_type_from_string(const std::string& s);

struct Target {
  Coll coll = Coll::allreduce;
  void* function = nullptr;  // nullptr: the MPI library's own collective
  std::string name;          // "MPI_Allreduce" or "./libmine.so:my_allreduce"
  // Anything but int: `function` is called with that count type (only the
  // collectives with one count: allreduce, reduce, reduce-scatter-block,
  // allgather, bcast, alltoall; --native MPI_Count loads MPI_<Coll>_c).
  CountType count_type = CountType::int32;
};

// Whether the collective takes one scalar count (not count arrays).
bool scalar_count(Coll c);

// Where the process's `symbol` (e.g. "MPI_Allreduce") comes from, when that
// is not the object that provides MPI_Init: an interposer (LD_PRELOAD, link
// order) answers instead of the MPI library. nullopt when it is the library's.
std::optional<std::string> foreign_provider(const std::string& symbol);

// The MPI library's MPI-4 large-count binding of `c` ("MPI_Allreduce_c"),
// looked up in the process; the error in one line if this library has none.
std::optional<std::string> load_large_count_binding(Coll c, void*& function);

// The MPI routine a collective is checked against or stands for ("MPI_Allreduce", ...).
std::string mpi_name(Coll c);

// dlopen + dlsym of "LIBRARY:SYMBOL"; the error in one line if either fails.
std::optional<std::string> load_function(const std::string& spec, void*& function);

struct RunOptions {
  uint64_t count = 1000;
  DType dtype = DType::int64;
  int root = 0;
  bool in_place = false;
  uint64_t seed = 1;
  double timeout_seconds = 60;
  std::vector<Payload> payloads;  // empty: every payload that applies
  // Record every point-to-point message of the call (runtime/trace/): one
  // run of the payload the trace reads (reductions: tagged-counters; allgather
  // and bcast: source-tagged, int64), analyzed at rank 0.
  bool trace = false;
  // Which communicator runs the call, for the crash and hang lines (" on
  // rank 1 of part 2 of 3 of a split ..."); empty for MPI_COMM_WORLD.
  std::string comm_words;
};

struct PayloadResult {
  Payload payload = Payload::one_hot;
  int runs = 0;                        // MPI calls made for it
  std::string mpi_shape;               // what the call was given: "count 1001 x int64, MPI_SUM"
  std::optional<std::string> defect;   // the smallest rank's first defect (rank 0's view): wrong data or memory
  // An error code returned instead of a result (the smallest rank's, decoded
  // with MPI_Error_string): a refusal, not a wrong result; inside the
  // declared contract (--require) it is still a defect (count 0 is legal MPI).
  std::optional<std::string> refusal;
  // With a defect: how many ranks had one, and the other ranks' that say
  // something else (results that differ from each other), at rank 0.
  std::optional<std::string> other_ranks;
  double seconds = 0;
  std::optional<trace::TraceReport> trace;  // RunOptions::trace, at rank 0
};

struct BlackBoxResult {
  std::vector<PayloadResult> payloads;
  bool holds() const;  // no defect, no refusal
  bool wrong() const;  // a defect other than a refusal (rank 0's view)
};

// The trace of a collective is read as (runtime/trace/message_trace.hpp);
// std::invalid_argument when it cannot be traced (alltoall, a
// reduce-scatter whose count is not a multiple of p, count 0).
trace::TraceSpec trace_spec(Coll c, uint64_t p, uint64_t count, int root);

// MPI's own words for an error code ("MPI_ERR_COUNT: invalid count
// argument, class 2"), or that MPI_Error_string does not know it.
std::string error_text(int rc);

// collcheck's own channel for what the ranks tell each other about a call
// (a duplicate of MPI_COMM_WORLD, point to point): every rank of the world
// calls it once, after MPI_Init, before any black-box run.
void start_bookkeeping();

// Every rank's text, at rank 0 of `comm` in rank order, with its rank; empty
// texts are left out, and every other rank gets nothing. Every rank of
// `comm` calls it. Point-to-point messages on the bookkeeping channel, never
// the library's collectives (one of them may be the algorithm under test)
// nor `comm` itself (a function may receive with MPI_ANY_TAG).
std::vector<std::pair<int, std::string>> gather_texts(const std::string& mine, MPI_Comm comm);

// Rank 0's `value` on every rank of `comm`, by point-to-point messages (as
// gather_texts). Every rank calls it.
int share_from_root(int value, MPI_Comm comm);

// Collective over `comm`; every rank must call it with the same arguments.
// Throws std::invalid_argument (bad input: a root out of range, in-place for
// bcast, a payload that does not apply or is not representable).
BlackBoxResult run_blackbox(const Target& t, const RunOptions& o, MPI_Comm comm);
// The part of those checks that needs no communicator (a count too large at
// every p, in place, what --trace cannot record, its payload and dtype,
// payloads that do not apply to `c`): run_blackbox makes it, and
// collcheck-mpi before MPI_Init for every count (--dry-run too).
void check_run_options(Coll c, const RunOptions& o);

}  // namespace collcheck::runtime::blackbox
