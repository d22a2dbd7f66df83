#pragma once
// The subcommands of collcheck, one file each (checker/cli/<name>_command.cpp);
// checker/cli/cli.cpp dispatches to them. Each returns a DESIGN.md exit code
// and throws InputError for bad input.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "checker/cli/cli.hpp"
#include "checker/sweep/sweep.hpp"

namespace collcheck {

int cmd_list(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args, const std::string& cmdline, const SweepRunner& sweep_runner);
// verify --estimate: the projection of the request (checker/sweep/estimate.hpp), text or json.
int cmd_estimate(const boost::program_options::variables_map& vm, const SweepRequest& req);
int cmd_dump(const std::vector<std::string>& args);
int cmd_check_file(const std::vector<std::string>& args, const std::string& cmdline);
int cmd_run(const std::vector<std::string>& args, const std::string& cmdline);
int cmd_prove(const std::vector<std::string>& args, const std::string& cmdline);
int cmd_analyze(const std::vector<std::string>& args, const std::string& cmdline);
int cmd_report(const std::vector<std::string>& args, const std::string& cmdline);

}  // namespace collcheck
