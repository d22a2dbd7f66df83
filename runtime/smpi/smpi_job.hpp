#pragma once
// What changes when collcheck-mpi runs under SimGrid's SMPI (built with
// COLLCHECK_MPI_FLAVOUR=smpi): every rank is an actor of one process, run
// one at a time on one thread, and collcheck-mpi's globals are per rank only
// because SMPI privatizes them (mmap: one copy of the data segment per rank,
// swapped in at each context switch; dlopen: one copy of the whole program
// per rank). What that means here:
//   - memory allocated before the simulation starts (static initialisation)
//     is shared by every rank under mmap privatization: the crash report's
//     one watchdog lives there and keeps a phase per rank;
//   - a hang is usually a deadlock, which SimGrid detects at once: the
//     watchdog's lines are written then, not after --timeout;
//   - wall time says little about a simulation of thousands of ranks (a ring
//     of 1024 ranks is 2 million messages in one call): a phase's deadline
//     is --timeout seconds without progress (SimGrid's clock standing still:
//     a rank computing without end), not since the phase began;
//   - without privatization ("no") every rank would share collcheck-mpi's
//     state: refused.
// Under another MPI these are no-ops and kUnderSmpi is false.
#include <functional>
#include <optional>
#include <string>

namespace collcheck::runtime::trace {
struct TraceHooks;
}

namespace collcheck::runtime::smpi {

#ifdef COLLCHECK_SMPI
inline constexpr bool kUnderSmpi = true;
// Why this simulation cannot run collcheck-mpi (SMPI's privatization is
// off), or nothing.
std::optional<std::string> unsupported_setup();
// Calls `cb` when SimGrid finds every actor blocked (a deadlock).
void on_deadlock(std::function<void()> cb);
// Calls `cb` whenever the simulated clock advances (a message delivered):
// the simulation makes progress, however slowly it runs in wall time.
void on_progress(std::function<void()> cb);
// The file this simulated rank loads for a --function library: a copy of
// its own in SMPI's temporary directory, so that the library's globals are
// the rank's, as in a process of its own (SMPI privatizes only the program
// and the libraries it links). COLLCHECK_SMPI_LIBRARY_COPIES=one (scripts/smpi
// --library-copies one) loads the one file for every rank instead: less
// disk and memory, globals shared. An error says why no copy was made.
std::string library_for_this_rank(const std::string& library);
// " (SMPI's allreduce algorithm 'rab1')": which of SMPI's algorithms the
// simulation runs for the MPI collective `mpi_name` (MPI_Allreduce, ...),
// as --cfg=smpi/<collective>:<name> chose it; "" for one SMPI has no choice for.
std::string algorithm_in_force(const std::string& mpi_name);
// Makes SMPI run its algorithm `name` for collective `coll` (the name of its
// configuration, smpi/<coll>: allreduce, reduce_scatter, allgather, bcast,
// reduce, alltoall) from now on, as --cfg=smpi/<coll>:<name> does at launch:
// the choice is the simulation's, so every rank makes the same one between
// two barriers. SimGrid ends the run with its list of names for one it does
// not have (scripts/smpi says so in one line). An error says why `coll`
// cannot be chosen.
std::optional<std::string> select_algorithm(const std::string& coll, const std::string& name);
// Why --trace cannot record here (privatization other than mmap; the trace
// shim runtime/smpi/trace_shim.cpp not preloaded), or nothing.
std::optional<std::string> trace_unavailable();
// Points the shim's MPI_Send & co at the recorder's.
void install_trace_hooks(const trace::TraceHooks* hooks);
#else
inline constexpr bool kUnderSmpi = false;
inline std::optional<std::string> unsupported_setup() { return std::nullopt; }
inline void on_deadlock(std::function<void()>) {}
inline void on_progress(std::function<void()>) {}
inline std::string library_for_this_rank(const std::string& library) { return library; }
inline std::string algorithm_in_force(const std::string&) { return ""; }
inline std::optional<std::string> select_algorithm(const std::string&, const std::string&) {
  return "not running under SMPI";
}
inline std::optional<std::string> trace_unavailable() { return std::nullopt; }
inline void install_trace_hooks(const trace::TraceHooks*) {}
#endif

}  // namespace collcheck::runtime::smpi
