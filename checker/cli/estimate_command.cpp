// verify --estimate: a mode of verify that runs no sweep but projects it
// (checker/sweep/estimate.hpp).
#include <tbb/info.h>

#include <boost/program_options.hpp>

#include "checker/cli/commands.hpp"
#include "checker/sweep/estimate.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"

namespace po = boost::program_options;

namespace collcheck {

int cmd_estimate(const po::variables_map& vm, const SweepRequest& req) {
  if (vm.count("db") || vm.count("resume")) throw InputError("--estimate runs no sweep: --db and --resume do not apply");
  EstimateOptions eo;
  if (vm.count("calibrate-seconds")) {
    const std::string text = vm["calibrate-seconds"].as<std::string>();
    size_t used = 0;
    double v = -1;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
    }
    if (used != text.size() || !(v >= 0.01 && v <= 3600))
      throw InputError("--calibrate-seconds must be a number in [0.01, 3600], not '" + text + "'");
    eo.calibrate_seconds = v;
  }
  // The projection is for this machine: more threads than its cores would not run faster.
  if (const int t = vm["threads"].as<int>(); t > 0) {
    if (const int cores = tbb::info::default_concurrency(); t > cores)
      throw InputError("--estimate projects the wall time on this machine: --threads " + std::to_string(t) +
                       " exceeds the " + std::to_string(cores) + " cores this process may use");
    eo.cores = static_cast<unsigned>(t);
  }
  const std::string f = vm["format"].as<std::string>();
  if (f != "text" && f != "json") throw InputError("--estimate prints text or json, not '" + f + "'");
  const Estimate e = estimate_sweep(req, eo);
  write_output(vm["out"].as<std::string>(), f == "json" ? render_estimate_json(e) : render_estimate_text(e, req));
  return 0;
}

}  // namespace collcheck
