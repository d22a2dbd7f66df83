#pragma once
// Subcommands that consume runtime/ and smt/ (kept apart from cli.cpp so the
// engine does not depend on every backend's headers).
#include <string>
#include <vector>

namespace collcheck {

int cmd_run(const std::vector<std::string>& args, const std::string& cmdline);
int cmd_prove(const std::vector<std::string>& args, const std::string& cmdline);

}  // namespace collcheck
