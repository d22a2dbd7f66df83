// collcheck run: the schedule executed on p threads with real data
// (runtime/threaded_executor.hpp) and compared with the collective's result.
#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/dims_option.hpp"
#include "checker/sweep/file_claims.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

namespace po = boost::program_options;

namespace collcheck {

namespace {

// One execution on p threads, compared with the collective's result: the
// verdict and the message statistics go into `res`.
InstanceResult execute(InstanceResult res, const Schedule& s, const runtime::ExecOptions& eo) {
  runtime::ExecResult er = runtime::execute_threads(s, eo);
  res.verdicts.push_back(er.verdict);
  res.stats["messages"] = std::to_string(er.stats.messages);
  res.stats["bytes"] = std::to_string(er.stats.bytes);
  res.seconds = er.stats.seconds;
  res.status = combined_status(res.verdicts);
  return res;
}

// run --schedule FILE: the file's schedule (read as check-file and
// collcheck-mpi read it), one instance.
// InputError for an option --schedule takes from the file.
void check_schedule_file_options(const po::variables_map& vm) {
  for (const char* o : {"algo", "p", "skip-restricted", "n", "root", "radix", "radix2", "ppn", "dims"})
    if (vm.count(o) || (std::string(o) == "algo" && !vm["variant"].defaulted()))
      throw InputError("--schedule takes the collective, p, blocks and root from the file; it does not combine with "
                       "--algo, --variant, --p, --skip-restricted or the instance options (--" +
                       std::string(vm.count(o) ? o : "variant") + " given)");
  (void)schedule_encoding(vm["schedule-format"].as<std::string>());
}

InstanceResult run_schedule_file(const po::variables_map& vm, const runtime::ExecOptions& eo) {
  const std::string path = vm["schedule"].as<std::string>();
  ScheduleDocument doc = load_schedule_file(path, vm["schedule-format"].as<std::string>(), default_max_memory());
  const MaterializedView view(std::move(doc.schedule));
  if (view.p() > 1024) throw InputError(path + ": run starts one thread per rank; p = " + std::to_string(view.p()) + " exceeds 1024");
  InstanceResult res;
  res.algorithm = "file:" + path;
  res.variant = doc.format;
  res.collective = to_string(view.spec().kind);
  res.p = view.p();
  return execute(std::move(res), view, eo);
}

}  // namespace

// collcheck run: execute the schedule on p threads with real data.
po::options_description run_options() {
  po::options_description desc("collcheck run");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm, 'all', or a comma list of them")
      ("variant", po::value<std::string>()->default_value("default"), "variant, 'default', 'all', or a comma list of them")
      ("p", po::value<std::string>(), "p-range (each p runs p threads; max 1024)")
      ("dtype", po::value<std::string>()->default_value("int64"), "int64 | int32 | float | double")
      ("op", po::value<std::string>()->default_value("sum"), "sum | permutation (non-commutative)")
      ("elems", po::value<std::string>()->default_value("3"), "elements per block (1..4096)")
      ("out-of-place", "separate input and output buffers (default: in place)")
      ("timeout-ms", po::value<std::string>()->default_value("10000"), "deadlock watchdog (10..3600000)")
      ("seed", po::value<std::string>()->default_value("1"), "input seed")
      ("skip-restricted", "skip p outside a variant's restriction")
      ("schedule", po::value<std::string>(), "run a schedule file instead of --algo (collcheck's format, as check-file "
                                             "and collcheck-mpi read it; p <= 1024)")
      ("schedule-format", po::value<std::string>()->default_value("auto"), "with --schedule: auto | json | jsonl")
      ("format", po::value<std::string>()->default_value("text"), "report format")
      ("out", po::value<std::string>()->default_value("-"), "report file");
  add_instance_options(desc);
  return desc;
}

int cmd_run(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = run_options();
  po::variables_map vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (!vm.count("schedule") && (!vm.count("algo") || (!vm.count("p") && !vm.count("dims"))))
    throw InputError("run needs --algo and --p, or --schedule FILE");
  if (!vm.count("schedule") && !vm["schedule-format"].defaulted())
    throw InputError("--schedule-format applies only with --schedule");
  if (vm.count("schedule"))
    refuse_output_over_input("--out", vm["out"].as<std::string>(), "--schedule", vm["schedule"].as<std::string>());
  runtime::ExecOptions eo;
  auto dt = runtime::dtype_from_string(vm["dtype"].as<std::string>());
  if (!dt) throw InputError("unknown --dtype " + quote_input(vm["dtype"].as<std::string>()) + " (known: int64, int32, float, double)");
  eo.dtype = *dt;
  std::string op = vm["op"].as<std::string>();
  if (op == "sum") eo.op = runtime::ReduceOp::sum;
  else if (op == "permutation") eo.op = runtime::ReduceOp::permutation;
  else throw InputError("unknown --op " + quote_input(op) + " (known: sum, permutation)");
  eo.elems_per_block = static_cast<uint32_t>(parse_uint_option("elems", vm["elems"].as<std::string>(), 1, 4096));
  eo.in_place = !vm.count("out-of-place");
  eo.deadlock_timeout =
      std::chrono::milliseconds(parse_uint_option("timeout-ms", vm["timeout-ms"].as<std::string>(), 10, 3600000));
  eo.seed = parse_uint_option("seed", vm["seed"].as<std::string>(), 0, UINT64_MAX);
  if (!format_from_string(vm["format"].as<std::string>()))
    throw InputError("unknown format " + quote_input(vm["format"].as<std::string>()) +
                     " (known: text, json, markdown, junit, html)");
  Report r;
  r.kind = "run";
  r.tool_version = COLLCHECK_VERSION;
  r.command = inv.cmdline;
  r.mode = runtime::mode_string(eo);
  r.seed = eo.seed;
  if (vm.count("schedule")) {
    check_schedule_file_options(vm);
    if (inv.dry_run) return dry_run_done();
    r.instances.push_back(run_schedule_file(vm, eo));
    r.seconds = r.instances.back().seconds;
    emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), true);
    return exit_code(r);
  }

  SweepRequest req;
  req.targets = resolve_target_list(vm["algo"].as<std::string>(), vm["variant"].as<std::string>(), vm.count("dims") > 0);
  apply_instance_options(vm, req.targets);
  req.ps = instance_ps(vm, "run needs --algo and --p");
  req.skip_restricted = vm.count("skip-restricted") > 0;
  if (req.ps.back() > 1024) throw InputError("run starts one thread per rank; p = " + std::to_string(req.ps.back()) + " exceeds 1024");
  check_restrictions(req);
  if (inv.dry_run) return dry_run_done();

  auto start = std::chrono::steady_clock::now();
  for (const auto& t : req.targets) {
    for (uint64_t p : req.ps)  // one instance at a time: each already runs p threads
    for (uint32_t shape : t.shapes.empty() ? std::vector<uint32_t>{0} : t.radices(p)) {  // --dims: every shape of p
      InstanceResult res = instance_header(t, p, shape);
      if (res.status == Status::skipped) {
        r.instances.push_back(std::move(res));
        continue;
      }
      r.instances.push_back(execute(std::move(res), *t.variant->make(t.params(p, shape)), eo));
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  add_registry_expectations(r, variants_of(r.instances), false);
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), true);
  return exit_code(r);
}

}  // namespace collcheck
