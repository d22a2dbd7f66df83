// collcheck verify: every property for every p, rank, step and block (the
// sweep, checker/sweep/sweep.hpp), optionally recorded in a results store,
// sharded under mpirun, or only estimated (--estimate).
#include <boost/program_options.hpp>
#include <iostream>
#include <memory>
#include <optional>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/dims_option.hpp"
#include "checker/cli/p_range.hpp"
#include "checker/cli/report_command.hpp"
#include "checker/sweep/estimate.hpp"
#include "checker/sweep/shard_plan.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "smt/parametric/parametric_certificates.hpp"

namespace po = boost::program_options;

namespace collcheck {

po::options_description verify_options() {
  po::options_description desc("collcheck verify");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm name, 'all', or a comma list of them")
      ("variant", po::value<std::string>()->default_value("default"), "variant name, 'default', 'all', or a comma list of them")
      ("p", po::value<std::string>(), "p-range: N, A..B, B^K (2^21, 3^13), A..B:STEP, 2^A..2^B:pow2, comma lists")
      ("skip-restricted", "skip p outside a variant's restriction (exit 77 if nothing remains)")
      ("properties", po::value<std::string>(),
       "comma list of properties to check (default: all that apply; see 'collcheck list')")
      ("db", po::value<std::string>(), "results store (SQLite): record every instance as it finishes")
      ("resume", "with --db: skip instances already recorded with the same options")
      ("estimate", "do not verify: print the projected core-hours, wall time and memory of this sweep, "
                   "from a short calibration run (text or json)")
      ("parametric", po::value<std::string>()->default_value("on"),
       "on: a parametric certificate (a Z3 proof for a whole interval of p, e.g. the ring's) decides the p it "
       "covers; off: every p is decided by itself")
      ("calibrate-seconds", po::value<std::string>(),
       "with --estimate: CPU seconds of calibration per algorithm/variant and checker mode (default 0.5)");
  add_instance_options(desc);
  add_check_options(desc);
  return desc;
}

namespace {

// What verify's command line asks for, checked whole as the run checks it
// before it starts (the dry run stops after this, the run goes on from it):
// the request, the estimate's options with --estimate, the store's path.
struct VerifyPlan {
  SweepRequest req;
  std::optional<EstimateOptions> estimate;
  std::string db;
};

SweepRequest sweep_request(const po::variables_map& vm) {
  SweepRequest req;
  req.targets = resolve_target_list(vm["algo"].as<std::string>(), vm["variant"].as<std::string>(), vm.count("dims") > 0);
  apply_instance_options(vm, req.targets);
  // --estimate plans sweeps beyond one run's 2^22 p values (checker/sweep/estimate.hpp).
  req.ps = vm.count("estimate") && vm.count("p") && !vm.count("dims")
               ? parse_p_range_for_estimate(vm["p"].as<std::string>())
               : instance_ps(vm, "verify needs --p RANGE");
  req.skip_restricted = vm.count("skip-restricted") > 0;
  req.progress = !vm.count("quiet");
  req.check = check_options(vm);
  if (const std::string par = vm["parametric"].as<std::string>(); par == "on")
    req.check.parametric = &smt::parametric_certificates();
  else if (par != "off")
    throw InputError("unknown --parametric " + quote_input(par) + " (known: on, off)");
  if (vm.count("properties")) req.check.properties = split_name_list("properties", vm["properties"].as<std::string>());
  req.threads = worker_threads(vm);
  return req;
}

VerifyPlan verify_plan(const po::variables_map& vm, const SweepRunner& runner) {
  if (!vm.count("algo")) throw InputError("verify needs --algo (see 'collcheck list')");
  if (!vm.count("p") && !vm.count("dims")) throw InputError("verify needs --p RANGE (or --dims SHAPES)");
  if (!format_from_string(vm["format"].as<std::string>()))
    throw InputError("unknown format " + quote_input(vm["format"].as<std::string>()) + " (known: text, json, markdown, junit, html)");
  if (vm.count("db"))
    refuse_output_over_input("--out", vm["out"].as<std::string>(), "--db", vm["db"].as<std::string>(), true);
  VerifyPlan plan{sweep_request(vm), std::nullopt, vm.count("db") ? vm["db"].as<std::string>() : ""};
  if (vm.count("calibrate-seconds") && !vm.count("estimate"))
    throw InputError("--calibrate-seconds applies only with --estimate");
  if (vm.count("estimate")) {  // what the estimate refuses before it calibrates anything
    plan.estimate = estimate_options(vm);
    check_estimate_request(plan.req);
    return plan;
  }
  if (runner && !runner.target<ShardedRunner>() && !plan.db.empty())
    throw InputError("--db is not supported by this sweep runner: run the sweep without --db");
  if (plan.db.empty() && vm.count("resume"))
    attach_results_store("", true, plan.req, "", plan.req.threads);  // --resume alone: bad input
  check_restrictions(plan.req);  // what run_sweep and the store refuse before they start
  return plan;
}

}  // namespace

int cmd_verify(const std::vector<std::string>& args, const Invocation& inv) {
  const std::string& cmdline = inv.cmdline;
  const SweepRunner& runner = inv.sweep_runner;
  const po::options_description desc = verify_options();
  auto vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  VerifyPlan plan = verify_plan(vm, runner);
  if (inv.dry_run) return dry_run_done();  // the store is not opened, nothing is calibrated or checked
  SweepRequest& req = plan.req;
  // Under mpirun (checker/sweep/mpi_shard.cpp) the runner is a ShardedRunner
  // (checker/sweep/shard_plan.hpp): --estimate runs on rank 0 alone, and the store
  // is opened and written by rank 0 alone.
  const ShardedRunner* sharded = runner.target<ShardedRunner>();
  if (plan.estimate) {
    const EstimateOptions eo = *plan.estimate;
    return sharded ? sharded->on_root_only([&] { return cmd_estimate(vm, req, eo); }) : cmd_estimate(vm, req, eo);
  }
  // A report that shows only each group's minimal counterexamples (text,
  // Markdown, HTML) has those traced after the sweep rather than every
  // refuted instance's during it (sweep.hpp, trace_shown_root_causes); JSON
  // and JUnit list every instance's, and a store or a shard records them all.
  if (const std::string f = vm["format"].as<std::string>();
      (f == "text" || f == "markdown" || f == "html") && plan.db.empty() && !runner)
    req.check.trace_root_causes = false;
  std::unique_ptr<ResultsStore> store;
  AttachStore attach;  // opens the store and installs its hooks into a request
  if (!plan.db.empty())
    attach = [&, db = plan.db](SweepRequest& r) {
      store = attach_results_store(db, vm.count("resume") > 0, r, cmdline, req.threads);
    };
  auto finish = [&](Report r) {
    r.tool_version = COLLCHECK_VERSION;
    r.command = cmdline;
    r.threads = req.threads;
    if (store) store->finish_sweep(r);
    emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
    return exit_code(r);
  };
  // Under mpirun the sweep is sharded over the ranks; `attach` and `finish`
  // run on rank 0 only, which records every rank's results as they arrive.
  if (sharded) return sharded->sweep(req, attach, finish);
  if (runner) return runner(req, finish);
  if (attach) attach(req);
  return finish(run_sweep(req));
}

}  // namespace collcheck
