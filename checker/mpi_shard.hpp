#pragma once
// Distributed sweeps (issue 6, item 4): `mpirun -np K collcheck verify ...`
// shards the request's instances over the K MPI ranks, each rank checking
// its share with TBB inside, and rank 0 gathers every InstanceResult and
// renders ONE report, identical to the single-process report (same order,
// verdicts, counterexamples, notes; only timing fields differ). Every rank
// exits with the report's exit code.
//
// Plan: every rank enumerates the same jobs (sweep_jobs), costs them with the
// claim-based work model (checker/cost_model.hpp: p * steps and cells x
// words, so cost grows with p as the checker's does) and partitions them by
// LPT (checker/shard_plan.hpp); no communication is needed to agree.
// Gather: each rank's results, encoded (checker/shard_plan.hpp), go to rank 0
// with MPI_Gatherv in rounds of at most 1 GiB per rank. A rank that fails
// (bad input, out of memory, internal error) still takes part in the gather
// with its error, and rank 0 reports the first failing rank's error with
// the exit code the single process would give; nobody hangs.
// Output: only rank 0 writes to stdout/stderr (the others' are /dev/null).
//
// Compiled only with MPI (COLLCHECK_WITH_MPI); main.cpp enters through
// mpi_cli_main when launched_by_mpi(), so `collcheck` without a launcher
// never initializes MPI.
namespace collcheck {

// True when an MPI launcher started this process: Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, MPICH/Hydra and Intel MPI PMI_SIZE, PMIx launchers
// (srun --mpi=pmix, prterun) PMIX_RANK.
bool launched_by_mpi();

// cli_main between MPI_Init_thread (FUNNELED: only the main thread calls
// MPI) and MPI_Finalize; with more than one rank, verify is sharded.
int mpi_cli_main(int argc, char** argv);

}  // namespace collcheck
