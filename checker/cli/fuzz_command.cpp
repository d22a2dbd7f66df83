// collcheck fuzz: property-based fuzzing of one variant or of a user's
// generator program, time-boxed, for CI (checker/fuzz/fuzz.hpp).
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/p_range.hpp"
#include "checker/fuzz/fuzz.hpp"
#include "checker/fuzz/mutants.hpp"
#include "checker/sweep/file_claims.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"

namespace po = boost::program_options;

namespace collcheck {

po::options_description fuzz_options() {
  po::options_description desc(
      "collcheck fuzz: draws instances where collective algorithms break (p at and next to powers of two and "
      "three, primes, p - 1 a power of two, roots 0, p - 1 and the middle, option extremes), checks each as verify "
      "does, and shrinks the first violation to its smallest p and simplest options.\noptions");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "a registry algorithm")
      ("variant", po::value<std::string>(), "its variant (default: the algorithm's default)")
      ("schedule-cmd", po::value<std::string>(),
       "instead of --algo: a program printing a schedule file (format /2, JSON or JSON lines) for {p} {root} {n} "
       "{seed}, e.g. 'python3 gen.py {p} {root}'")
      ("mutants", po::value<std::string>(),
       "instead: the checker's self-test on a schedule file (every mutation operator on its transfers; the fraction "
       "of mutants each property kills)")
      ("max-mutants", po::value<std::string>()->default_value("2000"), "with --mutants: at most this many mutants")
      ("seconds", po::value<std::string>(), "time budget in seconds (required, >= 1)")
      ("seed", po::value<std::string>(), "seed of the instance sequence (default: from the clock; printed)")
      ("max-p", po::value<std::string>(), "largest p drawn (default 2^21; 1024 with --schedule-cmd)")
      ("cmd-timeout", po::value<std::string>()->default_value("30"), "seconds the schedule command may take")
      ("threads", po::value<std::string>()->default_value("0"), "worker threads (0: all cores)")
      ("db", po::value<std::string>(), "accumulate coverage over runs in this JSON file (nightly CI jobs)")
      ("format", po::value<std::string>()->default_value("text"), "text | json | junit")
      ("out", po::value<std::string>()->default_value("-"), "report file ('-' = stdout)");
  return desc;
}

int cmd_fuzz(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = fuzz_options();
  auto vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (vm.count("mutants")) {
    if (vm.count("algo") || vm.count("schedule-cmd") || vm.count("seconds"))
      throw InputError("--mutants FILE runs alone (no --algo, --schedule-cmd or --seconds)");
    const std::string path = vm["mutants"].as<std::string>();
    refuse_output_over_input("--out", vm["out"].as<std::string>(), "--mutants", path);
    const uint64_t cap = parse_uint_option("max-mutants", vm["max-mutants"].as<std::string>(), 1, 1000000);
    const uint64_t seed = vm.count("seed") ? parse_uint_option("seed", vm["seed"].as<std::string>(), 0, UINT64_MAX) : 1;
    const std::string format = vm["format"].as<std::string>();
    const auto f = format_from_string(format);
    if (!f || (*f != Format::text && *f != Format::json))
      throw InputError("fuzz --mutants: unknown --format '" + format + "' (text, json)");
    const int threads = worker_threads(vm);
    if (inv.dry_run) return dry_run_done();  // the file is not read
    const ScheduleDocument doc = load_schedule_file(path, "auto", default_max_memory());
    fuzz::MutantRun m;
    CheckOptions o;
    o.max_memory = default_max_memory();
    const std::optional<Claim> claim = doc.claims ? file_cost_claim(*doc.claims, doc.schedule) : std::nullopt;
    run_with_threads(threads,
                     [&] { m = fuzz::run_mutants(doc.schedule, claim ? &*claim : nullptr, o, cap, seed); });
    write_output(vm["out"].as<std::string>(), fuzz::render_mutants(m, path, *f));
    return m.original_failure.empty() && m.killed == m.mutants ? 0 : 1;
  }
  fuzz::Request r;
  if (vm.count("algo") == vm.count("schedule-cmd"))
    throw InputError("fuzz takes exactly one of --algo A and --schedule-cmd CMD");
  if (vm.count("variant") && !vm.count("algo")) throw InputError("--variant goes with --algo");
  std::string what;
  if (vm.count("algo")) {
    // One run fuzzes one variant of one algorithm: --algo all or a list
    // would otherwise resolve to several targets of which only the first ran.
    const std::string algo = vm["algo"].as<std::string>();
    const std::string variant = vm.count("variant") ? vm["variant"].as<std::string>() : "default";
    if (algo == "all" || algo.find(',') != std::string::npos)
      throw InputError("fuzz takes one algorithm, not '" + algo + "' (one run per algorithm)");
    if (variant == "all" || variant.find(',') != std::string::npos)
      throw InputError("fuzz takes one variant, not '" + variant + "'");
    std::vector<SweepTarget> t = resolve_targets(algo, variant);
    if (t.size() != 1) throw InputError("fuzz takes one algorithm and one variant, not " + std::to_string(t.size()));
    r.target = t.front();
    what = r.target->algorithm->name + "/" + r.target->variant->name;
  } else {
    r.schedule_cmd = vm["schedule-cmd"].as<std::string>();
    what = "schedule-cmd '" + r.schedule_cmd + "'";
  }
  if (!vm.count("seconds")) throw InputError("fuzz needs a time budget: --seconds S (S >= 1)");
  r.seconds = static_cast<double>(parse_uint_option("seconds", vm["seconds"].as<std::string>(), 1, 7 * 86400));
  r.seed = vm.count("seed") ? parse_uint_option("seed", vm["seed"].as<std::string>(), 0, UINT64_MAX)
                            : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007;
  if (vm.count("max-p")) {
    const std::vector<uint64_t> ps = parse_p_range(vm["max-p"].as<std::string>());
    if (ps.size() != 1) throw InputError("--max-p must be one value, not '" + vm["max-p"].as<std::string>() + "'");
    if (ps.front() < 2) throw InputError("--max-p " + std::to_string(ps.front()) + " leaves nothing to fuzz (at least 2)");
    r.max_p = ps.front();
  }
  // verify's memory guard (75% of physical memory): an instance over it is
  // refused before anything is allocated and counted as refused.
  r.check.max_memory = default_max_memory();
  r.cmd_timeout = static_cast<double>(parse_uint_option("cmd-timeout", vm["cmd-timeout"].as<std::string>(), 1, 86400));
  // A program's output is held to the schedule-file limit; tests lower it
  // (they cannot write 1 GiB), nothing raises it.
  r.max_output = kMaxScheduleFileBytes;
  if (const char* lower = std::getenv("COLLCHECK_FUZZ_OUTPUT_LIMIT"); lower && *lower) {
    const std::string v = lower;
    const bool digits = v.size() <= 10 && v.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoull(v) < 1 || std::stoull(v) > kMaxScheduleFileBytes)
      throw InputError("COLLCHECK_FUZZ_OUTPUT_LIMIT must be 1.." + std::to_string(kMaxScheduleFileBytes) +
                       " (bytes; it only lowers the schedule-file limit), not '" + v + "'");
    r.max_output = std::stoull(v);
  }
  const std::string format = vm["format"].as<std::string>();
  const auto f = format_from_string(format);
  if (!f || (*f != Format::text && *f != Format::json && *f != Format::junit))
    throw InputError("fuzz: unknown --format '" + format + "' (text, json, junit)");
  const int threads = worker_threads(vm);  // the number grammar of every option
  // The report written over the database would lose every run it holds.
  if (vm.count("db")) refuse_output_over_input("--out", vm["out"].as<std::string>(), "--db", vm["db"].as<std::string>());
  if (inv.dry_run) return dry_run_done();  // the database is not read
  if (vm.count("db")) fuzz::check_db(vm["db"].as<std::string>(), what);  // before spending the budget
  // A seed drawn from the clock is told once the run starts, before the
  // budget is spent (a run killed by its CI job can still be reproduced), on
  // standard output: stderr carries nothing but an error, so that bad input
  // or a failing generator, found before the run or by it, is the first and
  // only line there. Not where standard output is a JSON or JUnit report
  // (the line would break the document; the report names the seed).
  if (!vm.count("seed") && (*f == Format::text || vm["out"].as<std::string>() != "-"))
    r.started = [&] {
      std::cout << "collcheck fuzz: " << escape_controls(what) << " seed " << r.seed << " (from the clock; --seed "
                << r.seed << " draws the same instances), " << r.seconds << " s" << std::endl;
    };
  fuzz::Summary s;
  run_with_threads(threads, [&] { s = fuzz::run(r); });
  std::optional<fuzz::Coverage> total;
  if (vm.count("db")) total = fuzz::accumulate(vm["db"].as<std::string>(), what, s);
  write_output(vm["out"].as<std::string>(), fuzz::render(s, what, *f, total ? &*total : nullptr));
  // Nothing checked is no result: exit 3 (unknown), never 0.
  int code = s.finding ? 1 : fuzz::result(s) == "unknown" ? 3 : 0;
  if (s.error == fuzz::ErrorKind::input) {
    if (s.unfinished.empty()) throw InputError(s.error_message);  // after the partial summary
    std::cerr << "collcheck: error: " << escape_controls(s.error_message) << "\n";
    code = 2;
  }
  if (s.error == fuzz::ErrorKind::runtime) {
    std::cerr << "collcheck: error: " << escape_controls(s.error_message) << "\n";
    code = 3;
  }
  if (!s.unfinished.empty()) {
    // An abandoned instance's worker thread is still running: returning
    // would run static destructors under it. Everything is written; end here.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

}  // namespace collcheck
