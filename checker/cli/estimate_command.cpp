// verify --estimate: a mode of verify that runs no sweep but projects it
// (checker/sweep/estimate.hpp).
#include <tbb/info.h>

#include <boost/program_options.hpp>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/sweep/estimate.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"

namespace po = boost::program_options;

namespace collcheck {

EstimateOptions estimate_options(const po::variables_map& vm) {
  if (vm.count("db") || vm.count("resume")) throw InputError("--estimate runs no sweep: --db and --resume do not apply");
  EstimateOptions eo;
  if (vm.count("calibrate-seconds"))
    eo.calibrate_seconds = parse_real_option("calibrate-seconds", vm["calibrate-seconds"].as<std::string>(), 0.01,
                                             3600, "a number in [0.01, 3600]");
  // The projection is for this machine: more threads than its cores would not run faster.
  if (const int t = worker_threads(vm); t > 0) {
    if (const int cores = tbb::info::default_concurrency(); t > cores)
      throw InputError("--estimate projects the wall time on this machine: --threads " + std::to_string(t) +
                       " exceeds the " + std::to_string(cores) + " cores this process may use");
    eo.cores = static_cast<unsigned>(t);
  }
  const std::string f = vm["format"].as<std::string>();
  if (f != "text" && f != "json") throw InputError("--estimate prints text or json, not " + quote_input(f));
  return eo;
}

int cmd_estimate(const po::variables_map& vm, const SweepRequest& req, const EstimateOptions& eo) {
  const Estimate e = estimate_sweep(req, eo);
  const bool json = vm["format"].as<std::string>() == "json";
  write_output(vm["out"].as<std::string>(), json ? render_estimate_json(e) : render_estimate_text(e, req));
  return 0;
}

}  // namespace collcheck
