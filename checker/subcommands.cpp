#include "checker/subcommands.hpp"

#include <tbb/parallel_for.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <fstream>
#include <iostream>

#include "checker/cli_support.hpp"
#include "checker/p_range.hpp"
#include "checker/sweep.hpp"
#include "collcheck_version.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/input_error.hpp"
#include "smt/swing_proofs.hpp"

namespace po = boost::program_options;

namespace collcheck {

// collcheck run: execute the schedule on p threads with real data.
int cmd_run(const std::vector<std::string>& args, const std::string& cmdline) {
  po::options_description desc("collcheck run");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm, or 'all'")
      ("variant", po::value<std::string>()->default_value("default"), "variant, 'default' or 'all'")
      ("p", po::value<std::string>(), "p-range (each p runs p threads; max 1024)")
      ("dtype", po::value<std::string>()->default_value("int64"), "int64 | float | double")
      ("op", po::value<std::string>()->default_value("sum"), "sum | permutation (non-commutative)")
      ("elems", po::value<std::string>()->default_value("3"), "elements per block (1..4096)")
      ("out-of-place", "separate input and output buffers (default: in place)")
      ("timeout-ms", po::value<std::string>()->default_value("10000"), "deadlock watchdog (10..3600000)")
      ("seed", po::value<std::string>()->default_value("1"), "input seed")
      ("skip-restricted", "skip p outside a variant's restriction")
      ("format", po::value<std::string>()->default_value("text"), "report format")
      ("out", po::value<std::string>()->default_value("-"), "report file");
  add_instance_options(desc);
  po::variables_map vm = parse_args(desc, args);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (!vm.count("algo") || !vm.count("p")) throw InputError("run needs --algo and --p");
  runtime::ExecOptions eo;
  auto dt = runtime::dtype_from_string(vm["dtype"].as<std::string>());
  if (!dt) throw InputError("unknown --dtype '" + vm["dtype"].as<std::string>() + "' (known: int64, float, double)");
  eo.dtype = *dt;
  std::string op = vm["op"].as<std::string>();
  if (op == "sum") eo.op = runtime::ReduceOp::sum;
  else if (op == "permutation") eo.op = runtime::ReduceOp::permutation;
  else throw InputError("unknown --op '" + op + "' (known: sum, permutation)");
  eo.elems_per_block = static_cast<uint32_t>(parse_uint_option("elems", vm["elems"].as<std::string>(), 1, 4096));
  eo.in_place = !vm.count("out-of-place");
  eo.deadlock_timeout =
      std::chrono::milliseconds(parse_uint_option("timeout-ms", vm["timeout-ms"].as<std::string>(), 10, 3600000));
  eo.seed = parse_uint_option("seed", vm["seed"].as<std::string>(), 0, UINT64_MAX);

  SweepRequest req;
  req.targets = resolve_targets(vm["algo"].as<std::string>(), vm["variant"].as<std::string>());
  apply_instance_options(vm, req.targets);
  req.ps = parse_p_range(vm["p"].as<std::string>());
  req.skip_restricted = vm.count("skip-restricted") > 0;
  if (req.ps.back() > 1024) throw InputError("run starts one thread per rank; p = " + std::to_string(req.ps.back()) + " exceeds 1024");
  check_restrictions(req);

  auto start = std::chrono::steady_clock::now();
  Report r;
  r.kind = "run";
  r.tool_version = COLLCHECK_VERSION;
  r.command = cmdline;
  r.mode = runtime::mode_string(eo);
  r.seed = eo.seed;
  for (const auto& t : req.targets) {
    for (uint64_t p : req.ps) {  // one instance at a time: each already runs p threads
      InstanceResult res = instance_header(t, p);
      if (res.status == Status::skipped) {
        r.instances.push_back(std::move(res));
        continue;
      }
      InstanceParams ip = t.params(p);
      auto sched = t.variant->make(ip);
      runtime::ExecResult er = runtime::execute_threads(*sched, eo);
      res.verdicts.push_back(er.verdict);
      res.stats["messages"] = std::to_string(er.stats.messages);
      res.stats["bytes"] = std::to_string(er.stats.bytes);
      res.seconds = er.stats.seconds;
      res.status = combined_status(res.verdicts);
      r.instances.push_back(std::move(res));
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), true);
  return exit_code(r);
}

// collcheck prove: Z3 proofs over a symbolic rank (all ranks at once).
int cmd_prove(const std::vector<std::string>& args, const std::string& cmdline) {
  po::options_description desc("collcheck prove");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm with an SMT encoding: swing")
      ("p", po::value<std::string>(), "p-range")
      ("timeout-ms", po::value<std::string>()->default_value("60000"), "solver timeout per property (exit 3 on timeout)")
      ("format", po::value<std::string>()->default_value("text"), "report format")
      ("out", po::value<std::string>()->default_value("-"), "report file");
  po::variables_map vm = parse_args(desc, args);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (!vm.count("algo") || !vm.count("p")) throw InputError("prove needs --algo and --p");
  std::string algo = vm["algo"].as<std::string>();
  if (algo != "swing") {
    if (!find_algorithm(algo)) throw InputError("unknown algorithm '" + algo + "'");
    throw InputError("no SMT encoding for '" + algo + "' yet (available: swing)");
  }
  auto ps = parse_p_range(vm["p"].as<std::string>());
  auto timeout = static_cast<unsigned>(parse_uint_option("timeout-ms", vm["timeout-ms"].as<std::string>(), 1, 86400000));
  if (ps.front() < 2) throw InputError("prove needs p >= 2 (Eq. 2 has no steps for p = 1)");
  auto start = std::chrono::steady_clock::now();
  Report r;
  r.kind = "prove";
  r.tool_version = COLLCHECK_VERSION;
  r.command = cmdline;
  r.mode = "z3";
  for (uint64_t p : ps) {
    auto t0 = std::chrono::steady_clock::now();
    InstanceResult res;
    res.algorithm = "swing";
    res.variant = "pi (Eq. 2)";
    res.collective = "allreduce";
    res.p = p;
    res.verdicts = smt::prove_swing(p, timeout);
    res.status = combined_status(res.verdicts);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.instances.push_back(std::move(res));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), true);
  return exit_code(r);
}

}  // namespace collcheck
