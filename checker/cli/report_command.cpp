// `collcheck report --db FILE`: a Report rebuilt from the results store's
// rows (sweep row + its instances in job order) and rendered by reports/, so
// every format works on stored sweeps exactly as on live ones; and the glue
// that connects verify --db/--resume to the sweep's hooks.
#include "checker/cli/report_command.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <string_view>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "collcheck_version.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"

namespace po = boost::program_options;

namespace collcheck {

std::unique_ptr<ResultsStore> attach_results_store(const std::string& db, bool resume, SweepRequest& req,
                                                   const std::string& cmdline, int threads) {
  if (db.empty()) {
    if (resume) throw InputError("--resume needs --db FILE (the results store to resume from)");
    return nullptr;
  }
  check_restrictions(req);  // bad requests stop here, before the store is opened (or created)
  auto store = std::make_unique<ResultsStore>(db, ResultsStore::Access::read_write, COLLCHECK_VERSION);
  // Every job of the request: one per p, or per radix (--radix all), or per
  // shape (--dims: two shapes of one p are two instances).
  const uint64_t planned = sweep_jobs(req).size();
  store->begin_sweep(cmdline, check_config(req.check), sweep_mode_text(req.check), req.check.seed, threads, planned);
  ResultsStore* s = store.get();
  if (resume) req.reuse = [s](size_t job, const InstanceResult& header) { return s->reuse(job, header); };
  req.on_finished = [s](size_t job, const InstanceResult& r) { s->record(job, r); };
  return store;
}

namespace {

// A name no algorithm of the registry has (unknown algorithm, or no
// algorithm's variant) is bad input whatever the store holds: InputError as
// verify words it.
void check_registry_name(const char* option, const std::string& name) {
  if (std::string_view(option) == "algo") {
    if (!find_algorithm(name)) resolve_targets(name, "default");  // throws: unknown algorithm
    return;
  }
  for (const AlgorithmInfo& a : registry())
    if (a.find_variant(name)) return;
  throw InputError("no algorithm has a variant named " + quote_input(name));
}

std::set<std::string> name_set(const po::variables_map& vm, const char* option) {
  std::set<std::string> out;
  if (!vm.count(option)) return out;
  // An empty item ('ring,', ',') is a malformed list, as for verify.
  for (const std::string& item : split_name_list(option, vm[option].as<std::string>()))
    if (item != "all") {
      check_registry_name(option, item);
      out.insert(item);
    }
  return out;
}

// --sweep: an id, or 0 for 'latest' (ids start at 1).
int64_t sweep_id(const po::variables_map& vm) {
  const std::string which = vm["sweep"].as<std::string>();
  return which == "latest" ? 0 : static_cast<int64_t>(parse_uint_option("sweep", which, 1, INT64_MAX));
}

// Keeps the instances whose value of `field` is in `wanted` (all if empty);
// a wanted name the sweep does not have is bad input.
void filter(std::vector<InstanceResult>& v, const std::set<std::string>& wanted, const char* option,
            std::string InstanceResult::*field, int64_t sweep) {
  if (wanted.empty()) return;
  std::set<std::string> present;
  for (const auto& i : v) present.insert(i.*field);
  for (const std::string& w : wanted)
    if (!present.count(w)) {
      std::string names;
      for (const auto& n : present) names += (names.empty() ? "" : ", ") + n;
      throw InputError("sweep " + std::to_string(sweep) + " has no instance with --" + option + " '" + w +
                       "' (it has: " + (names.empty() ? "none" : names) + ")");
    }
  std::erase_if(v, [&](const InstanceResult& i) { return !wanted.count(i.*field); });
}

// One line per sweep; the stored texts (the command line above all) with
// their control characters escaped visibly, as in a report.
void list_sweeps(std::ostream& out, const std::vector<SweepInfo>& sweeps) {
  for (const SweepInfo& s : sweeps)
    out << "sweep " << s.id << ": started " << visible(s.started) << ", "
        << (s.finished ? "finished " + visible(*s.finished) : std::string("interrupted")) << ", " << s.recorded << "/"
        << s.planned << " instances; " << visible(s.command) << "\n";
}

}  // namespace

po::options_description report_options() {
  po::options_description desc("collcheck report");
  desc.add_options()("help,h", "this help")
      ("db", po::value<std::string>(), "results store written by 'verify --db'")
      ("sweep", po::value<std::string>()->default_value("latest"), "sweep id (see --list) or 'latest'")
      ("list", "list the stored sweeps (to --out) instead of rendering one")
      ("algo", po::value<std::string>(), "comma list of algorithms to include (default: all)")
      ("variant", po::value<std::string>(), "comma list of variants to include (default: all)")
      ("format", po::value<std::string>()->default_value("text"), "text | json | markdown | junit | html")
      ("out", po::value<std::string>()->default_value("-"), "report file ('-' = stdout)")
      ("verbose,v", "text report lists every instance");
  return desc;
}

int cmd_report(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = report_options();
  auto vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (!vm.count("db")) throw InputError("report needs --db FILE (a results store written by 'verify --db')");
  const std::string fmt = vm["format"].as<std::string>();
  if (!format_from_string(fmt)) throw InputError("unknown format '" + fmt + "' (known: text, json, markdown, junit, html)");
  const std::string path = vm["db"].as<std::string>();
  refuse_output_over_input("--out", vm["out"].as<std::string>(), "--db", path, true);
  const int64_t wanted = sweep_id(vm);
  const std::set<std::string> algos = name_set(vm, "algo"), variants = name_set(vm, "variant");
  if (inv.dry_run) return dry_run_done();  // the store is not opened
  ResultsStore store(path, ResultsStore::Access::read_only, COLLCHECK_VERSION);
  std::vector<SweepInfo> sweeps = store.sweeps();
  if (sweeps.empty()) throw InputError("results store '" + path + "' holds no sweep");
  if (vm.count("list")) {  // to --out as a report is: every write checked
    write_output(vm["out"].as<std::string>(), [&](std::ostream& o) { list_sweeps(o, sweeps); });
    return 0;
  }
  const std::string which = vm["sweep"].as<std::string>();
  const int64_t id = wanted == 0 ? sweeps.back().id : wanted;
  auto it = std::find_if(sweeps.begin(), sweeps.end(), [&](const SweepInfo& s) { return s.id == id; });
  if (it == sweeps.end())
    throw InputError("results store '" + path + "' has no sweep " + which + " (sweeps " +
                     std::to_string(sweeps.front().id) + ".." + std::to_string(sweeps.back().id) + ")");
  const SweepInfo& s = *it;
  Report r;
  r.kind = "verify";
  r.tool_version = s.tool_version;
  r.command = s.command;
  r.mode = s.mode;
  r.seed = s.seed;
  r.threads = s.threads;
  r.seconds = s.seconds;
  r.instances = store.load_sweep(s.id);
  // A finished sweep stored run_sweep's notes; an unfinished one gets them
  // from the registry, as run_sweep writes them.
  if (s.finished) r.notes = s.notes;
  add_registry_expectations(r, variants_of(r.instances), !s.finished);
  if (!s.finished)
    r.notes.push_back("sweep " + std::to_string(s.id) + " did not finish (interrupted, or still running): " +
                      std::to_string(s.recorded) + " of " + std::to_string(s.planned) +
                      " instances recorded; run its verify command again with --db " + path + " --resume");
  filter(r.instances, algos, "algo", &InstanceResult::algorithm, s.id);
  filter(r.instances, variants, "variant", &InstanceResult::variant, s.id);
  emit_report(r, fmt, vm["out"].as<std::string>(), vm.count("verbose") > 0);
  // An unfinished sweep has not decided what it never checked: 3 (unknown)
  // unless something recorded is already violated.
  const int code = exit_code(r);
  if (!s.finished && code != 1) return 3;
  return code;
}

}  // namespace collcheck
