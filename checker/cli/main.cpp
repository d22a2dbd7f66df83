// collcheck's entry point: the command line (checker/cli/cli.hpp), or under
// an MPI launcher the same command line with sweeps sharded over the ranks.
#include <malloc.h>

#include "checker/cli/cli.hpp"
#ifdef COLLCHECK_MPI_SHARD
#include "checker/sweep/mpi_shard.hpp"
#endif

int main(int argc, char** argv) {
  // A range sweep allocates and frees the same arrays of up to a few
  // megabytes per instance (rank 0's masks and group ids,
  // properties/flow/group_quotient.hpp). glibc serves blocks above 128 KiB
  // with mmap and unmaps them at free, so every instance paid its page faults
  // again (a quarter of the time at p = 2^20); keep blocks up to 8 MiB in the
  // heap (larger ones, e.g. a schedule file's growing vectors, are still
  // mapped and grow in place) and up to 64 MiB of freed heap for reuse.
  mallopt(M_MMAP_THRESHOLD, 8 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#ifdef COLLCHECK_MPI_SHARD
  // Started by mpirun: sweeps are sharded over the ranks (checker/sweep/mpi_shard.hpp).
  // Without a launcher MPI is never initialized.
  if (collcheck::launched_by_mpi()) {
    const collcheck::MpiCommandLine cli{
        [](int c, char** v, collcheck::SweepRunner runner) { return collcheck::cli_main(c, v, std::move(runner)); },
        [](const std::exception_ptr& e) { return collcheck::describe_failure(e).code; },
        [](const std::string& command) {
          for (const collcheck::Subcommand& s : collcheck::subcommands())
            if (s.name == command) return s.sharded;
          return false;
        }};
    return collcheck::mpi_cli_main(argc, argv, cli);
  }
#endif
  return collcheck::cli_main(argc, argv);
}
