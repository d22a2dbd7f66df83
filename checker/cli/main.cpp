#include "checker/cli/cli.hpp"
#ifdef COLLCHECK_MPI_SHARD
#include "checker/sweep/mpi_shard.hpp"
#endif

int main(int argc, char** argv) {
#ifdef COLLCHECK_MPI_SHARD
  // Started by mpirun: sweeps are sharded over the ranks (checker/sweep/mpi_shard.hpp).
  // Without a launcher MPI is never initialized.
  if (collcheck::launched_by_mpi()) return collcheck::mpi_cli_main(argc, argv);
#endif
  return collcheck::cli_main(argc, argv);
}
