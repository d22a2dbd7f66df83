#include "checker/cli/cli.hpp"

#include <tbb/info.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>
#include <memory>
#include <sstream>
#include <string_view>

#include "checker/cli/analyze.hpp"
#include "checker/cli/cli_support.hpp"
#include "checker/cli/dims_option.hpp"
#include "checker/cli/dump.hpp"
#include "checker/sweep/file_claims.hpp"
#include "checker/sweep/estimate.hpp"
#include "checker/cli/p_range.hpp"
#include "checker/cli/report_command.hpp"
#include "checker/sweep/shard_plan.hpp"
#include "checker/cli/subcommands.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "schedules/formats/msccl_check.hpp"
#include "properties/catalog.hpp"
#include "properties/traff/traff_conditions.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/formats/schedule_json.hpp"
#include "schedules/traff/traff_broadcast.hpp"
#include "smt/translation_validation.hpp"

namespace po = boost::program_options;

namespace collcheck {
namespace {

// Set by cli_main: how verify runs a sweep other than in this process alone.
SweepRunner g_sweep_runner;

const char* kUsage =
    "usage: collcheck <command> [options]\n"
    "commands:\n"
    "  list                         algorithms, variants, restrictions, properties\n"
    "  verify --algo A --p RANGE    check every property for every p, rank, step and block\n"
    "  dump --algo A --p N          print the schedule (--format text|json|jsonl)\n"
    "  check-file FILE              check a schedule in collcheck's format (JSON or JSON lines)\n"
    "                               (--schedule-format traff-table: Träff's tables)\n"
    "                               (--schedule-format msccl: MSCCL algorithm XML)\n"
    "  run --algo A --p N           execute on threads with real data and compare\n"
    "  prove --algo A --p RANGE     Z3 proofs for all ranks at once (--list: the queries;\n"
    "                               --query, --timeout-ms, --smt2-dir DIR)\n"
    "  analyze --algo tra --p N     TRA's K, D and cost for every radix, the optimum and sqrt(p)\n"
    "  report --db FILE             render a sweep stored by 'verify --db FILE' (any --format)\n"
    "  --version\n"
    "run 'collcheck <command> --help' for a command's options.\n";

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

uint64_t single_p(const std::string& text) {
  auto ps = parse_p_range(text);
  if (ps.size() != 1) throw InputError("--p must be a single value here, got '" + text + "'");
  return ps.front();
}

SweepTarget single_target(const std::string& algo, const std::string& variant) {
  if (algo == "all" || variant == "all") throw InputError("this command takes one algorithm and one variant");
  return resolve_targets(algo, variant).front();
}

void require_allowed(const SweepTarget& t, uint64_t p) {
  if (auto why = t.variant->violates(t.params(p)))
    throw InputError(t.algorithm->name + "/" + t.variant->name + ": p = " + std::to_string(p) +
                     " is outside its restriction: " + *why);
}

int cmd_list(const std::vector<std::string>& args) {
  po::options_description desc("collcheck list");
  desc.add_options()("help,h", "this help");
  auto vm = parse_args(desc, args);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  std::cout << "algorithms (variant marked * is the default):\n";
  for (const auto& a : registry()) {
    std::cout << "  " << a.name << " [" << to_string(a.collective) << "] " << a.summary << "\n";
    for (size_t i = 0; i < a.variants.size(); ++i) {
      const auto& v = a.variants[i];
      std::cout << "    " << (i == 0 ? "*" : " ") << " " << v.name << ": " << v.summary << "\n";
      std::cout << "        reference: " << v.reference << "\n";
      std::cout << "        restriction: " << (v.restriction.empty() ? "none (every p >= 1)" : v.restriction) << "\n";
      // The claims are formulas in p, often one per class of p (power of
      // two, even, odd): show each distinct one with an example p.
      std::vector<std::string> shown;
      for (uint64_t p : {16, 12, 9}) {
        if (v.violates(InstanceParams{p, 0})) continue;
        Claim c = v.claim(InstanceParams{p, 0});
        std::string f = "steps " + c.steps_formula + ", volume " + c.volume_formula;
        if (std::find(shown.begin(), shown.end(), f) != shown.end()) continue;
        shown.push_back(f);
        std::cout << "        claim (e.g. p = " << p << "): " << f << " [" << c.source << "]\n";
      }
      if (!v.expected_to_hold) std::cout << "        refuted by collcheck: " << v.known_failure << "\n";
    }
  }
  std::cout << "properties:\n";
  for (const auto& p : property_catalog())
    std::cout << "  " << p.name << (p.generic ? "" : " (algorithm-specific)") << ": " << p.statement << "\n";
  std::cout << "  " << kClaimsProperty
            << " (check-file only): every property a schedule file's \"claims\" assert holds (docs/schedule-format.md)\n";
  std::cout << "formats: text, json, markdown, junit, html\n";
  return 0;
}

void add_check_options(po::options_description& desc) {
  desc.add_options()
      ("mode", po::value<std::string>()->default_value("auto"), "auto | exact | fingerprint")
      ("exact-max-p", po::value<std::string>()->default_value("1024"), "auto mode: exact bookkeeping up to this p")
      ("state", po::value<std::string>()->default_value("auto"),
       "fingerprint state: auto | dense (a cell per rank and block) | intervals (per-rank block ranges; implies "
       "--mode fingerprint)")
      ("memory-gib", po::value<double>()->default_value(4.0), "contribution-state budget per instance (GiB)")
      ("max-memory", po::value<std::string>(),
       "memory guard: refuse (before allocating) any instance whose estimated memory exceeds SIZE "
       "(e.g. 6G, 512MiB, 1.5G; 'none': no guard; default 75% of physical memory); a refusal exits 3")
      ("seed", po::value<std::string>()->default_value("24301"), "fingerprint weight seed")
      ("threads", po::value<int>()->default_value(0), "worker threads (0: all cores)")
      ("format", po::value<std::string>()->default_value("text"), "text | json | markdown | junit | html")
      ("out", po::value<std::string>()->default_value("-"), "report file ('-' = stdout)")
      ("verbose,v", "text report lists every instance")
      ("quiet,q", "no progress on stderr");
}

// "a,b,c" -> {a, b, c}; an empty item is bad input.
std::vector<std::string> split_list(const std::string& option, const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw InputError("--" + option + ": empty item in '" + text + "'");
    out.push_back(item);
  }
  if (out.empty() || text.back() == ',') throw InputError("--" + option + ": empty item in '" + text + "'");
  return out;
}

// "6G", "512MiB", "1.5g", "1048576" (bytes) -> bytes (binary units); "none" -> 0
// (no guard). Anything else, or a size below 1 MiB, is bad input.
uint64_t parse_memory_size(const std::string& option, const std::string& text) {
  if (text == "none") return 0;
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  std::string unit = text.substr(std::min(used, text.size()));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit.substr(1) == "ib") unit = unit.substr(0, 1);
  if (unit.size() == 2 && unit[1] == 'b') unit = unit.substr(0, 1);
  const std::string units = "bkmgt";
  const size_t k = unit.empty() ? 0 : (unit.size() == 1 ? units.find(unit[0]) : std::string::npos);
  const double bytes = v * static_cast<double>(uint64_t{1} << (10 * (k == std::string::npos ? 0 : k)));
  if (used == 0 || k == std::string::npos || !(v >= 0) || !(bytes >= (1 << 20)) || bytes > 1e18 ||
      !std::isdigit(static_cast<unsigned char>(text[0])))
    throw InputError("--" + option + " must be a size of at least 1 MiB such as 6G, 512MiB or 1.5G (or 'none'), not '" +
                     text + "'");
  return static_cast<uint64_t>(bytes);
}

CheckOptions check_options(const po::variables_map& vm) {
  CheckOptions o;
  std::string mode = vm["mode"].as<std::string>();
  if (mode == "auto") o.exactness = Exactness::automatic;
  else if (mode == "exact") o.exactness = Exactness::exact;
  else if (mode == "fingerprint") o.exactness = Exactness::fingerprint;
  else throw InputError("unknown --mode '" + mode + "' (known: auto, exact, fingerprint)");
  o.exact_max_p = parse_uint_option("exact-max-p", vm["exact-max-p"].as<std::string>(), 1, kMaxP);
  const std::string state = vm["state"].as<std::string>();
  if (state == "auto") o.bookkeeping = Bookkeeping::automatic;
  else if (state == "dense") o.bookkeeping = Bookkeeping::dense;
  else if (state == "intervals") o.bookkeeping = Bookkeeping::intervals;
  else throw InputError("unknown --state '" + state + "' (known: auto, dense, intervals)");
  // Interval state holds fingerprints: --state intervals means fingerprint
  // mode at every p (auto would run exact sets up to --exact-max-p and
  // silently ignore it there); with --mode exact it is a contradiction.
  if (o.bookkeeping == Bookkeeping::intervals && o.exactness == Exactness::exact)
    throw InputError("--state intervals keeps fingerprints: it cannot run with --mode exact");
  if (o.bookkeeping == Bookkeeping::intervals) o.exactness = Exactness::fingerprint;
  double gib = vm["memory-gib"].as<double>();
  if (!(gib >= 1.0 / 1024) || gib > 1024) throw InputError("--memory-gib must be in [1/1024, 1024]");
  o.memory_budget = static_cast<uint64_t>(gib * (1ULL << 30));
  o.seed = parse_uint_option("seed", vm["seed"].as<std::string>(), 0, UINT64_MAX);
  o.max_memory = vm.count("max-memory") ? parse_memory_size("max-memory", vm["max-memory"].as<std::string>())
                                        : default_max_memory();
  return o;
}

// --threads: exactly that many worker threads (run_with_threads), 0 = TBB's
// default (one per core this process may use).
int worker_threads(const po::variables_map& vm) {
  const int t = vm["threads"].as<int>();
  if (t < 0 || t > kMaxThreads)
    throw InputError("--threads must be in 0.." + std::to_string(kMaxThreads) + " (0: one per core), not " +
                     std::to_string(t));
  return t;
}

// verify --estimate: the projection of the request (checker/sweep/estimate.hpp), text or json.
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

int cmd_verify(const std::vector<std::string>& args, const std::string& cmdline) {
  po::options_description desc("collcheck verify");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm name, or 'all'")
      ("variant", po::value<std::string>()->default_value("default"), "variant name, 'default' or 'all'")
      ("p", po::value<std::string>(), "p-range: N, A..B, 2^K, A..B:STEP, 2^A..2^B:pow2, comma lists")
      ("skip-restricted", "skip p outside a variant's restriction (exit 77 if nothing remains)")
      ("properties", po::value<std::string>(),
       "comma list of properties to check (default: all that apply; see 'collcheck list')")
      ("db", po::value<std::string>(), "results store (SQLite): record every instance as it finishes")
      ("resume", "with --db: skip instances already recorded with the same options")
      ("estimate", "do not verify: print the projected core-hours, wall time and memory of this sweep, "
                   "from a short calibration run (text or json)")
      ("calibrate-seconds", po::value<std::string>(),
       "with --estimate: CPU seconds of calibration per algorithm/variant and checker mode (default 0.5)");
  add_instance_options(desc);
  add_check_options(desc);
  auto vm = parse_args(desc, args);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (!vm.count("algo")) throw InputError("verify needs --algo (see 'collcheck list')");
  if (!vm.count("p") && !vm.count("dims")) throw InputError("verify needs --p RANGE (or --dims SHAPES)");
  if (!format_from_string(vm["format"].as<std::string>()))
    throw InputError("unknown format '" + vm["format"].as<std::string>() + "' (known: text, json, markdown, junit, html)");
  if (vm.count("db"))
    refuse_output_over_input("--out", vm["out"].as<std::string>(), "--db", vm["db"].as<std::string>(), true);
  SweepRequest req;
  req.targets = resolve_targets(vm["algo"].as<std::string>(), vm["variant"].as<std::string>());
  apply_instance_options(vm, req.targets);
  // --estimate plans sweeps beyond one run's 2^20 p values (checker/sweep/estimate.hpp).
  req.ps = vm.count("estimate") && vm.count("p") && !vm.count("dims")
               ? parse_p_range_for_estimate(vm["p"].as<std::string>())
               : instance_ps(vm, "verify needs --p RANGE");
  req.skip_restricted = vm.count("skip-restricted") > 0;
  req.progress = !vm.count("quiet");
  req.check = check_options(vm);
  if (vm.count("properties")) req.check.properties = split_list("properties", vm["properties"].as<std::string>());
  req.threads = worker_threads(vm);
  // Under mpirun (checker/sweep/mpi_shard.cpp) the runner is a ShardedRunner
  // (checker/sweep/shard_plan.hpp): --estimate runs on rank 0 alone, and the store
  // is opened and written by rank 0 alone.
  const ShardedRunner* sharded = g_sweep_runner.target<ShardedRunner>();
  if (vm.count("estimate"))
    return sharded ? sharded->on_root_only([&] { return cmd_estimate(vm, req); }) : cmd_estimate(vm, req);
  if (vm.count("calibrate-seconds")) throw InputError("--calibrate-seconds applies only with --estimate");
  const std::string db = vm.count("db") ? vm["db"].as<std::string>() : "";
  if (g_sweep_runner && !sharded && !db.empty())
    throw InputError("--db is not supported by this sweep runner: run the sweep without --db");
  std::unique_ptr<ResultsStore> store;
  AttachStore attach;  // opens the store and installs its hooks into a request
  if (!db.empty())
    attach = [&, db](SweepRequest& r) {
      store = attach_results_store(db, vm.count("resume") > 0, r, cmdline, vm["threads"].as<int>());
    };
  else
    attach_results_store("", vm.count("resume") > 0, req, cmdline, vm["threads"].as<int>());  // --resume alone: bad input
  auto finish = [&](Report r) {
    r.tool_version = COLLCHECK_VERSION;
    r.command = cmdline;
    r.threads = vm["threads"].as<int>();
    if (store) store->finish_sweep(r);
    emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
    return exit_code(r);
  };
  // Under mpirun the sweep is sharded over the ranks; `attach` and `finish`
  // run on rank 0 only, which records every rank's results as they arrive.
  if (sharded) return sharded->sweep(req, attach, finish);
  if (g_sweep_runner) return g_sweep_runner(req, finish);
  if (attach) attach(req);
  return finish(run_sweep(req));
}

int cmd_dump(const std::vector<std::string>& args) {
  po::options_description desc("collcheck dump");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm")
      ("variant", po::value<std::string>()->default_value("default"), "variant")
      ("p", po::value<std::string>(), "one p")
      ("format", po::value<std::string>()->default_value("text"),
       "text | json | jsonl (JSON lines, for large p) | traff-table (traff only)")
      ("out", po::value<std::string>()->default_value("-"), "output file");
  add_instance_options(desc);
  auto vm = parse_args(desc, args);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (!vm.count("algo") || (!vm.count("p") && !vm.count("dims"))) throw InputError("dump needs --algo and --p");
  SweepTarget t = single_target(vm["algo"].as<std::string>(), vm["variant"].as<std::string>());
  {
    std::vector<SweepTarget> one{t};
    apply_instance_options(vm, one);
    t = one.front();
  }
  const std::vector<uint64_t> dump_ps = vm.count("dims") ? instance_ps(vm, "dump needs --algo and --p")
                                                         : std::vector<uint64_t>{single_p(vm["p"].as<std::string>())};
  if (dump_ps.size() != 1 || t.shapes.size() > 1) throw InputError("dump takes one p (one --dims shape)");
  uint64_t p = dump_ps.front();
  std::string f = vm["format"].as<std::string>();
  if (f == "traff-table") {
    if (t.algorithm->name != "traff") throw InputError("--format traff-table is only for --algo traff");
    write_output(vm["out"].as<std::string>(), traff_table(p));
    return 0;
  }
  require_allowed(t, p);
  if (p > 4096) throw InputError("dump prints every rank and step; p = " + std::to_string(p) + " is too large (max 4096)");
  auto s = t.variant->make(t.params(p));
  // Bound the output before producing it: count block ranges first (the
  // schedule format: 2^26, enough for every algorithm at p = 4096).
  const int max_log = f == "json" || f == "jsonl" ? 26 : 22;
  const uint64_t kMaxDumpRanges = uint64_t{1} << max_log;
  uint64_t ranges = 0;
  RankStep rs;
  for (int st = 0; st < s->num_steps() && ranges <= kMaxDumpRanges; ++st)
    for (Rank r = 0; r < p && ranges <= kMaxDumpRanges; ++r) {
      s->rank_step(r, st, rs);
      for (const auto* l : {&rs.sends, &rs.recvs})
        for (const auto& x : *l) ranges += x.blocks.ranges().size() + 1;
    }
  if (ranges > kMaxDumpRanges)
    throw InputError("dump of " + t.algorithm->name + "/" + t.variant->name + " at p = " + std::to_string(p) +
                     " would list more than 2^" + std::to_string(max_log) + " block ranges; use a smaller p");
  std::string title = t.algorithm->name + "/" + t.variant->name;
  if (f == "text") write_output(vm["out"].as<std::string>(), dump_text(*s, title));
  else if (f == "json" || f == "jsonl")
    dump_schedule_file(*s, registry_file_meta(*t.algorithm, *t.variant, t.params(p)), f, vm["out"].as<std::string>());
  else throw InputError("unknown dump format '" + f + "' (known: text, json, jsonl, traff-table)");
  return 0;
}

// The one-instance report of check-file, shared by both schedule formats.
Report file_report(const std::string& cmdline, const std::string& path, const std::string& variant, Collective kind,
                   uint64_t p, InstanceCheck ic, uint64_t seed) {
  Report r;
  r.kind = "check-file";
  r.tool_version = COLLCHECK_VERSION;
  r.command = cmdline;
  r.mode = ic.mode;
  r.seed = seed;
  InstanceResult res;
  res.algorithm = "file:" + path;
  res.variant = variant;
  res.collective = to_string(kind);
  res.p = p;
  res.verdicts = std::move(ic.verdicts);
  res.stats = std::move(ic.stats);
  res.status = combined_status(res.verdicts);
  if (ic.refused) {  // the memory guard: nothing was checked (exit 3)
    res.status = Status::skipped;
    res.skip_reason = *ic.refused;
  }
  r.instances.push_back(std::move(res));
  return r;
}

// check-file --schedule-format traff-table: Träff's receive/send tables as
// `dump --format traff-table` writes them. Checks Träff's four conditions on
// the tables and runs Algorithm 1 driven by them (n blocks, root) through every
// generic property with the registry's traff claim (n-1+q rounds).
int check_traff_table_file(const po::variables_map& vm, const std::string& path, const std::string& text,
                           const std::string& cmdline) {
  CheckOptions o = check_options(vm);
  std::vector<traff::RankSchedule> tables = parse_traff_table(text, path, o.max_memory);
  const uint64_t p = tables.size();
  const uint32_t n = vm.count("n") ? static_cast<uint32_t>(parse_uint_option("n", vm["n"].as<std::string>(), 1, 1u << 20))
                                   : 8;
  const Rank root =
      vm.count("root") ? static_cast<Rank>(parse_uint_option("root", vm["root"].as<std::string>(), 0, (1u << 24) - 1)) : 0;
  const SweepTarget t = single_target("traff", "default");
  const InstanceParams params{p, root, n};
  if (auto why = t.variant->violates(params)) throw InputError(path + ": p = " + std::to_string(p) + ": " + *why);
  const int threads = worker_threads(vm);
  if (auto why = infeasible(p, n, o)) throw InputError(path + ": " + *why);
  auto start = std::chrono::steady_clock::now();
  Verdict conditions;
  run_with_threads(threads, [&] { conditions = traff_conditions(tables); });
  std::vector<std::vector<int64_t>> recv(p), send(p);
  for (uint64_t r = 0; r < p; ++r) {
    recv[r] = std::move(tables[r].recvblock);
    send[r] = std::move(tables[r].sendblock);
  }
  TraffBroadcast sched(p, n, root, std::move(recv), std::move(send));
  const Claim claim = t.variant->claim(params);
  InstanceCheck ic;
  run_with_threads(threads, [&] { ic = check_schedule(sched, &claim, {}, o); });
  ic.verdicts.push_back(std::move(conditions));
  ic.stats["n"] = std::to_string(n);
  ic.stats["root"] = std::to_string(root);
  Report r = file_report(cmdline, path, "traff-table", sched.spec().kind, p, std::move(ic), o.seed);
  r.notes.push_back("Träff tables from the file: the four conditions of Sec. 2 checked on them, and Algorithm 1 (n = " +
                    std::to_string(n) + ", root " + std::to_string(root) +
                    ") driven by them checked against the traff claim (n-1+q rounds)");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
  return exit_code(r);
}

// check-file --schedule-format msccl (or a file whose root element is <algo>):
// an MSCCL algorithm XML, checked by schedules/formats/msccl_check.hpp.
int check_msccl_file(const po::variables_map& vm, const std::string& path, const std::string& text,
                     const std::string& cmdline) {
  const msccl::Program prog = msccl::parse_program(text, path, check_options(vm).max_memory);
  auto start = std::chrono::steady_clock::now();
  msccl::CheckResult cr = msccl::check_program(prog);
  static const Collective kinds[] = {Collective::allreduce, Collective::allgather, Collective::reduce_scatter,
                                     Collective::alltoall};
  InstanceCheck ic{std::move(cr.verdicts), "msccl simulation (multiplicity)", std::move(cr.stats)};
  Report r = file_report(cmdline, path, "msccl", kinds[static_cast<int>(prog.coll)], prog.ngpus, std::move(ic), 0);
  r.notes.push_back("MSCCL XML '" + prog.name + "' (" + std::to_string(prog.chunk_factor) +
                    " chunk(s) per rank): FIFO matching per (gpu, peer, channel), happens-before (tb order, "
                    "depid/deps, messages) with races, and contribution multisets against the collective; unbounded "
                    "connection buffers, no protocol or timing model; step = the step's s in its threadblock");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
  return exit_code(r);
}

int cmd_check_file(const std::vector<std::string>& args, const std::string& cmdline) {
  po::options_description desc("collcheck check-file");
  desc.add_options()("help,h", "this help")("file", po::value<std::string>(), "schedule JSON file")
      ("schedule-format", po::value<std::string>()->default_value("auto"),
       "input format: auto (by content: collcheck's JSON, JSON lines or MSCCL XML) | json | jsonl | traff-table "
       "(the layout of 'dump --algo traff --format traff-table') | msccl "
       "(MSCCL algorithm XML; also detected by its <algo> root element)")
      ("translation-validation", "also prove with Z3 that the schedule computes the postcondition with exact "
       "multiplicity for all input values (p * blocks <= 2^18; a violation's witness is replayed on the "
       "threaded executor)")
      ("timeout-ms", po::value<std::string>(), "Z3 budget of --translation-validation (default 60000)")
      ("smt2-dir", po::value<std::string>(), "with --translation-validation: write the solver queries as SMT-LIB2 here");
  add_instance_options(desc);
  add_check_options(desc);
  po::positional_options_description pos;
  pos.add("file", 1);
  auto vm = parse_args(desc, args, &pos);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (!vm.count("file")) throw InputError("check-file needs a FILE");
  const std::string sfmt = vm["schedule-format"].as<std::string>();
  if (sfmt != "auto" && sfmt != "json" && sfmt != "jsonl" && sfmt != "traff-table" && sfmt != "msccl")
    throw InputError("unknown --schedule-format '" + sfmt + "' (known: auto, json, jsonl, traff-table, msccl)");
  if (sfmt != "traff-table" && (vm.count("n") || vm.count("root")))
    throw InputError("--n and --root apply only to --schedule-format traff-table");
  for (const char* o : {"dims", "radix", "radix2", "ppn"})  // the file fixes the instance
    if (vm.count(o))
      throw InputError(std::string("--") + o + " applies to registry algorithms (verify, dump, run), not to check-file");
  const bool tv = vm.count("translation-validation") > 0;
  if (!tv && (vm.count("timeout-ms") || vm.count("smt2-dir")))
    throw InputError("--timeout-ms and --smt2-dir apply only with --translation-validation");
  if (tv && (sfmt == "traff-table" || sfmt == "msccl"))
    throw InputError("--translation-validation applies to collcheck's schedule format (json, jsonl)");
  const unsigned tv_timeout = static_cast<unsigned>(
      vm.count("timeout-ms") ? parse_uint_option("timeout-ms", vm["timeout-ms"].as<std::string>(), 1, 86400000) : 60000);
  if (!format_from_string(vm["format"].as<std::string>()))
    throw InputError("unknown format '" + vm["format"].as<std::string>() + "' (known: text, json, markdown, junit, html)");
  std::string path = vm["file"].as<std::string>();
  require_regular_file(path);
  refuse_output_over_input("--out", vm["out"].as<std::string>(), "the input file", path);
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) > (uint64_t{1} << 30))
    throw InputError("'" + path + "' is larger than 1 GiB; not a schedule collcheck can check densely");
  std::ifstream f(path);
  if (!f) throw InputError("cannot read '" + path + "'");
  // Only the whole-text formats are read whole; collcheck's own is streamed.
  std::string head(64 * 1024, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(f.gcount()));
  const bool xml = sfmt == "msccl" || ((sfmt == "auto" || sfmt == "json") && msccl::looks_like_msccl(head));
  if (sfmt == "traff-table" || xml) {
    if (tv) throw InputError("--translation-validation applies to collcheck's schedule format (json, jsonl)");
    f.close();
    const std::string text = read_whole_file(path, check_options(vm).max_memory);
    if (xml) return check_msccl_file(vm, path, text, cmdline);
    return check_traff_table_file(vm, path, text, cmdline);
  }
  f.close();
  CheckOptions o = check_options(vm);  // --max-memory guards the reading too
  ScheduleDocument doc = load_schedule_file(path, sfmt, o.max_memory);
  MaterializedView view(std::move(doc.schedule));
  const int threads = worker_threads(vm);
  if (auto why = infeasible(view.p(), view.num_blocks(), o)) throw InputError(path + ": " + *why);
  auto start = std::chrono::steady_clock::now();
  const std::optional<Claim> cost = doc.claims ? file_cost_claim(*doc.claims, view.data()) : std::nullopt;
  InstanceCheck ic;
  run_with_threads(threads, [&] { ic = check_schedule(view, cost ? &*cost : nullptr, {}, o); });
  if (doc.claims) judge_file_claims(*doc.claims, ic);
  if (tv) {
    const uint64_t cells = view.p() * uint64_t{view.num_blocks()};
    if (cells > smt::kTvMaxCells)
      throw InputError(path + ": p * blocks = " + std::to_string(cells) +
                       " cells, beyond translation validation's limit of 2^18");
    const std::string dir = vm.count("smt2-dir") ? vm["smt2-dir"].as<std::string>() : "";
    ic.verdicts.push_back(smt::validate_and_replay(
        view.data(), tv_timeout, dir, std::filesystem::path(path).stem().string()));
  }
  Report r = file_report(cmdline, path, doc.format, view.spec().kind, view.p(), std::move(ic), o.seed);
  for (std::string& n : file_claim_notes(doc)) r.notes.push_back(std::move(n));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
  return exit_code(r);
}

}  // namespace

Failure describe_failure(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {2, std::string("error: ") + x.what()};
  } catch (const po::error& x) {
    return {2, std::string("error: ") + x.what()};
  } catch (const ResourceRefusal& x) {  // schedules/memory_guard.hpp: a reader, or the executor's threads
    return {3, x.what()};
  } catch (const std::bad_alloc&) {
    return {3, "error: out of memory: the instance is too large for this machine (use a smaller p, "
               "--mode fingerprint, a smaller --memory-gib, or --max-memory to refuse such instances before "
               "allocating)"};
  } catch (const std::system_error& x) {
    const std::error_code c = x.code();
    if (c == std::errc::resource_unavailable_try_again || c == std::errc::not_enough_memory)
      return {3, std::string("error: out of system resources: ") + x.what()};
    return {3, std::string("internal error: ") + x.what()};
  } catch (const std::exception& x) {
    // TBB reports a worker thread it cannot start with this runtime_error,
    // thrown in its own thread (so it ends in on_terminate).
    if (std::string_view(x.what()).starts_with("pthread_create has failed"))
      return {3, std::string("error: out of system resources: TBB could not start a worker thread (") + x.what() +
                     "); use fewer --threads"};
    return {3, std::string("internal error: ") + x.what()};
  } catch (...) {
    return {3, "internal error: an exception of unknown type"};
  }
}

namespace {

// The last resort: an exception that escapes a thread (or anything else that
// ends in std::terminate) is one line and exit 3 (or 2), never an abort.
[[noreturn]] void on_terminate() {
  Failure f{3, "internal error: terminate called without an active exception"};
  if (std::exception_ptr e = std::current_exception()) f = describe_failure(e);
  std::cout.flush();
  std::fflush(stdout);
  std::fprintf(stderr, "collcheck: %s\n", f.message.c_str());
  std::fflush(stderr);
  std::_Exit(f.code);
}

int run_command(const std::string& cmd, const std::vector<std::string>& args, const std::string& cmdline) {
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "collcheck " << COLLCHECK_VERSION << "\n";
    return 0;
  }
  if (cmd == "list") return cmd_list(args);
  if (cmd == "verify") return cmd_verify(args, cmdline);
  if (cmd == "dump") return cmd_dump(args);
  if (cmd == "check-file") return cmd_check_file(args, cmdline);
  if (cmd == "run") return cmd_run(args, cmdline);
  if (cmd == "prove") return cmd_prove(args, cmdline);
  if (cmd == "analyze") return cmd_analyze(args, cmdline);
  if (cmd == "report") return cmd_report(args, cmdline);
  if (cmd.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  throw InputError("unknown command '" + cmd + "' (known: list, verify, dump, check-file, run, prove, analyze, report)");
}

}  // namespace

int cli_main(int argc, char** argv, SweepRunner sweep_runner) {
  std::set_terminate(on_terminate);
  g_sweep_runner = std::move(sweep_runner);
  std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  const std::string cmd = argc > 1 ? argv[1] : "";
  StdoutCapture capture;  // flush_stdout names the reason a write to stdout failed
  try {
    const int code = run_command(cmd, args, command_line(argc, argv));
    flush_stdout();  // a report or listing that did not reach stdout is an error (issue 14 item 11)
    return code;
  } catch (...) {
    const Failure f = describe_failure(std::current_exception());
    std::cerr << "collcheck: " << f.message << "\n";
    return f.code;
  }
}

}  // namespace collcheck
