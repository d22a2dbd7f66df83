#pragma once
// The subcommands of collcheck, one file each (checker/cli/<name>_command.cpp);
// the table in checker/cli/cli.cpp names them and dispatches to them. Each
// returns an exit code and throws InputError for bad input.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "checker/sweep/shard_plan.hpp"
#include "checker/sweep/sweep.hpp"

namespace collcheck {

// What a subcommand gets besides its arguments (argv after the command name).
struct Invocation {
  std::string cmdline;       // the whole command line, recorded in reports
  SweepRunner sweep_runner;  // how verify runs its sweep (empty: in this process)
};
using Command = int (*)(const std::vector<std::string>& args, const Invocation& inv);

int cmd_list(const std::vector<std::string>& args, const Invocation& inv);
int cmd_verify(const std::vector<std::string>& args, const Invocation& inv);
// verify --estimate: the projection of the request (checker/sweep/estimate.hpp), text or json.
int cmd_estimate(const boost::program_options::variables_map& vm, const SweepRequest& req);
int cmd_dump(const std::vector<std::string>& args, const Invocation& inv);
int cmd_check_file(const std::vector<std::string>& args, const Invocation& inv);
int cmd_run(const std::vector<std::string>& args, const Invocation& inv);
int cmd_prove(const std::vector<std::string>& args, const Invocation& inv);
int cmd_analyze(const std::vector<std::string>& args, const Invocation& inv);
int cmd_report(const std::vector<std::string>& args, const Invocation& inv);
int cmd_fuzz(const std::vector<std::string>& args, const Invocation& inv);

}  // namespace collcheck
