#pragma once
// The subcommands of collcheck, one file each (checker/cli/<name>_command.cpp);
// the table in checker/cli/cli.cpp names them and dispatches to them. Each
// returns an exit code and throws InputError for bad input.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "checker/sweep/estimate.hpp"
#include "checker/sweep/shard_plan.hpp"
#include "checker/sweep/sweep.hpp"

namespace collcheck {

// What a subcommand gets besides its arguments (argv after the command name).
struct Invocation {
  std::string cmdline;       // the whole command line, recorded in reports
  SweepRunner sweep_runner;  // how verify runs its sweep (empty: in this process)
  // --dry-run (any subcommand): parse and validate the command line as the
  // command would, up to the point where it would read an input file, open a
  // store or start work; then dry_run_done() and exit 0. Bad input is still
  // exit 2. The documentation test runs every documented command this way.
  bool dry_run = false;
};
// What a command returns under --dry-run: one line on stderr, exit 0.
int dry_run_done();
using Command = int (*)(const std::vector<std::string>& args, const Invocation& inv);

// Each subcommand's option table, the one its parser, `--help`, the man page
// and the bash completion read (checker/cli/manual.hpp).
boost::program_options::options_description list_options();
boost::program_options::options_description verify_options();
boost::program_options::options_description dump_options();
boost::program_options::options_description check_file_options();
boost::program_options::options_description run_options();
boost::program_options::options_description prove_options();
boost::program_options::options_description analyze_options();
boost::program_options::options_description report_options();
boost::program_options::options_description fuzz_options();

int cmd_list(const std::vector<std::string>& args, const Invocation& inv);
int cmd_verify(const std::vector<std::string>& args, const Invocation& inv);
// verify --estimate: the projection of the request (checker/sweep/estimate.hpp), text or json;
// estimate_options checks its own options (InputError), before anything is calibrated.
EstimateOptions estimate_options(const boost::program_options::variables_map& vm);
int cmd_estimate(const boost::program_options::variables_map& vm, const SweepRequest& req, const EstimateOptions& eo);
int cmd_dump(const std::vector<std::string>& args, const Invocation& inv);
int cmd_check_file(const std::vector<std::string>& args, const Invocation& inv);
int cmd_run(const std::vector<std::string>& args, const Invocation& inv);
int cmd_prove(const std::vector<std::string>& args, const Invocation& inv);
int cmd_analyze(const std::vector<std::string>& args, const Invocation& inv);
int cmd_report(const std::vector<std::string>& args, const Invocation& inv);
int cmd_fuzz(const std::vector<std::string>& args, const Invocation& inv);

}  // namespace collcheck
