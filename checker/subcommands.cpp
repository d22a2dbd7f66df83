#include "checker/subcommands.hpp"

#include "schedules/input_error.hpp"

namespace collcheck {

int cmd_run(const std::vector<std::string>&, const std::string&) { throw InputError("run: not built yet"); }
int cmd_prove(const std::vector<std::string>&, const std::string&) { throw InputError("prove: not built yet"); }

}  // namespace collcheck
