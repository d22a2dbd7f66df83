#pragma once
// The collcheck command line: list, verify, dump, check-file, run, prove.
// Every subcommand returns a DESIGN.md exit code; bad input is one line on
// stderr and exit code 2.
#include <exception>
#include <functional>
#include <string>

#include "checker/sweep/sweep.hpp"
#include "reports/report.hpp"

namespace collcheck {

// How `verify` runs its sweep when this process is one of several: under
// mpirun, checker/sweep/mpi_shard.hpp shards the request over the MPI ranks and
// calls `finish` (render the report, return its exit code) with the whole
// report on rank 0 only; the runner returns the exit code every rank exits
// with. Empty: run_sweep in this process.
using SweepRunner = std::function<int(const SweepRequest& req, const std::function<int(Report)>& finish)>;

int cli_main(int argc, char** argv, SweepRunner sweep_runner = {});

// What cli_main prints (one line on stderr, after "collcheck: ") and returns
// for an exception escaping a command: bad input (InputError, an option
// Boost rejects, a failed write) 2; resources exhausted (ResourceRefusal,
// std::bad_alloc, std::system_error for lack of threads or memory) 3; any
// other exception an internal error, 3.
struct Failure {
  int code = 3;
  std::string message;
};
Failure describe_failure(const std::exception_ptr& e);

}  // namespace collcheck
