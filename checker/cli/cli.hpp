#pragma once
// The collcheck command line: the table of subcommands (one file each,
// checker/cli/<name>_command.cpp, declared in checker/cli/commands.hpp) and
// cli_main, which dispatches to them. Every subcommand returns an exit code
// (0 hold, 1 violated, 2 bad input, 3 unknown/refused, 77 skipped); bad input
// is one line on stderr and exit code 2.
#include <exception>
#include <string>
#include <vector>

#include "checker/cli/commands.hpp"

namespace collcheck {

// One row of the subcommand table: `collcheck --help` lists the rows in
// order ("  <synopsis padded>  <help>", a help of several lines ('\n')
// continues under the first), and cli_main runs `run` for `name`.
struct Subcommand {
  const char* name;
  const char* synopsis;  // name and its main options, e.g. "verify --algo A --p RANGE"
  const char* help;      // one line (continuation lines after '\n')
  Command run;
  boost::program_options::options_description (*options)();  // the command's option table
  const char* positional = "";  // the option a bare argument fills ("file"), if any
  bool sharded = false;  // under mpirun: runs on every rank (a sharded sweep); the others run on rank 0 only
};
const std::vector<Subcommand>& subcommands();

// collcheck's man page and bash completion (checker/cli/manual.hpp), from
// the table above and the registry.
std::string collcheck_man_page();
std::string collcheck_bash_completion();

// Under mpirun, checker/sweep/mpi_shard.hpp passes a ShardedRunner as
// `sweep_runner` (verify shards its sweep over the MPI ranks); empty: every
// sweep runs in this process.
int cli_main(int argc, char** argv, SweepRunner sweep_runner = {});

// What cli_main prints (one line on stderr, after "collcheck: "; control
// characters escaped, schedules/input_error.hpp) and returns
// for an exception escaping a command: bad input (InputError, an option
// Boost rejects, a failed write) 2; resources exhausted (ResourceRefusal,
// std::bad_alloc, std::system_error for lack of threads or memory) 3; any
// other exception an internal error, 3. Out of memory advises what
// `command` (the subcommand's name; "": none) can do about it.
struct Failure {
  int code = 3;
  std::string message;
};
Failure describe_failure(const std::exception_ptr& e, const std::string& command = "");

}  // namespace collcheck
