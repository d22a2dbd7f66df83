#pragma once
// Distributed sweeps: `mpirun -np K collcheck verify ...`
// shards the request's instances over the K MPI ranks, each rank checking
// its share with TBB inside, and rank 0 collects every InstanceResult and
// renders ONE report, identical to the single-process report (same order,
// verdicts, counterexamples, notes; only timing fields differ). Every rank
// exits with the report's exit code.
//
// Plan: every rank enumerates the same jobs (sweep_jobs), costs them with the
// claim-based work model (checker/sweep/cost_model.hpp: p * steps and cells x
// words, so cost grows with p as the checker's does) and partitions them by
// LPT (checker/sweep/shard_plan.hpp); apart from what --resume reuses (below) no
// communication is needed to agree.
// Results store (verify --db F [--resume]): rank 0 alone opens, validates and
// writes F (the store is one process's file); with --resume it reads back
// every instance F holds under the same options before the plan is made and
// broadcasts which jobs those are, so no rank checks them again. A bad store
// or request (another tool version, locked, corrupt, a restricted p, ...)
// ends every rank with exit 2 before anything is written; rank 0 prints the
// one line.
// Collection: each rank checks its share on a thread of its own; its main
// thread (the only one calling MPI: MPI_THREAD_FUNNELED) sends results to
// rank 0 as they finish (point-to-point, batched by what finished since the
// last send), and rank 0's main thread receives them and records each batch
// in the store as it arrives (rank 0's own results are recorded by its
// checking threads, as in one process). A SIGKILL therefore loses only the
// instances in flight, as for one process. A rank that fails (bad input, out
// of memory, internal error) tells rank 0, which stops every share at its
// next instance and reports the lowest failing rank's error with the exit
// code the single process would give; nobody hangs. Waiting ranks sleep
// between polls instead of spinning in blocking MPI calls.
// Other subcommands (dump, run, prove, check-file, report, list, analyze,
// verify --estimate, --help): rank 0 alone runs them and the others exit
// with its exit code, so output files are written once.
// Output: only rank 0 writes to stdout/stderr (the others' are /dev/null);
// rank 0's standard output is mpirun's own where it can be
// (schedules/formats/launcher_stdout.hpp), so a report mpirun could not write
// (`mpirun -np 2 collcheck verify ... >/dev/full`) is exit 2 as in one process.
//
// Compiled only with MPI (COLLCHECK_WITH_MPI); main.cpp enters through
// mpi_cli_main when launched_by_mpi(), so `collcheck` without a launcher
// never initializes MPI.
#include <exception>
#include <functional>
#include <string>

#include "checker/sweep/shard_plan.hpp"

namespace collcheck {

// True when an MPI launcher started this process: Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, MPICH/Hydra and Intel MPI PMI_SIZE, PMIx launchers
// (srun --mpi=pmix, prterun) PMIX_RANK (schedules/formats/launcher_stdout.hpp:
// under_mpi_launcher, which the text report's colour asks too).
bool launched_by_mpi();

// The command line mpirun runs, as main.cpp hands it over (checker/cli/cli.hpp:
// cli_main, describe_failure and the subcommand table), so that this layer
// does not depend on the CLI.
struct MpiCommandLine {
  // Runs argv: with an empty runner every sweep runs in this process; with a
  // ShardedRunner verify shards its sweep over the ranks.
  std::function<int(int argc, char** argv, SweepRunner runner)> run;
  // The exit code `run` gives for an exception it lets escape.
  std::function<int(const std::exception_ptr&)> exit_code;
  // True for a subcommand that runs on every rank (a sharded sweep).
  std::function<bool(const std::string& command)> sharded;
};

// cli.run between MPI_Init_thread (FUNNELED: only the main thread calls
// MPI) and MPI_Finalize; with more than one rank, the sharded subcommands
// (verify) run on every rank and every other subcommand on rank 0 only.
int mpi_cli_main(int argc, char** argv, const MpiCommandLine& cli);

}  // namespace collcheck
