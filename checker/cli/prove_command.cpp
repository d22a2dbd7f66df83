// collcheck prove: Z3 queries (smt/query_registry.hpp) for all ranks at once.
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/dims_option.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "schedules/input_error.hpp"
#include "smt/query_registry.hpp"

namespace po = boost::program_options;

namespace collcheck {

// collcheck prove: Z3 queries (smt/query_registry.hpp) over the same
// instances as verify. Every selected query that applies to an (algorithm,
// variant) runs once per instance (p, and r for --radix all), each with its
// own --timeout-ms budget, sequentially (solve times stay comparable).
// Exit codes as verify: 0 every query holds, 1 one is violated (its
// counterexample was replayed concretely), 3 one is unknown (timeout, solver
// error; stats name the reason), 2 bad input: unknown algorithm / query, an
// algorithm with no encoding, or an instance outside a query's encoding (p
// too large, not a power of three, ...), reported before any solver runs.
// The last case applies to queries named with --query; a default query that
// cannot encode an instance gives a skipped verdict with the reason, and it
// is bad input only if no query at all can run. With --skip-restricted every
// refused pair is a skipped verdict, and 77 means everything was skipped (as
// verify --skip-restricted). An instance outside its variant's restriction
// is refused exactly as verify refuses it (bad input, or skipped with
// --skip-restricted). A query that does not model an instance's schedule
// (Query::not_applicable: a fold, a de-duplication) gives a skipped verdict
// "not applicable: ...", never a violation, named or not; it is bad input
// only if nothing at all can run.
namespace {

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c != ',') {
      cur += c;
      continue;
    }
    if (cur.empty()) throw InputError("--query: empty name in '" + text + "'");
    out.push_back(cur);
    cur.clear();
  }
  return out;
}

// The queries --query selects (default: those with by_default).
std::vector<const smt::Query*> select_queries(const po::variables_map& vm) {
  std::vector<const smt::Query*> out;
  const auto& all = smt::queries();
  if (!vm.count("query")) {
    for (const auto& q : all)
      if (q.by_default) out.push_back(&q);
    return out;
  }
  for (const std::string& name : split_names(vm["query"].as<std::string>())) {
    if (name == "all") {
      for (const auto& q : all) out.push_back(&q);
      continue;
    }
    const smt::Query* found = nullptr;
    for (const auto& q : all)
      if (q.name == name) found = &q;
    if (!found) {
      std::string known;
      for (const auto& q : all) known += (known.empty() ? "" : ", ") + q.name;
      throw InputError("unknown query '" + name + "' (known: " + known + ", all)");
    }
    out.push_back(found);
  }
  return out;
}

// Algorithms with at least one query, for the "no encoding" message.
std::string algorithms_with_queries(const std::vector<const smt::Query*>& qs) {
  std::string out;
  for (const AlgorithmInfo& a : registry()) {
    bool any = false;
    for (const VariantInfo& v : a.variants)
      for (const smt::Query* q : qs) any = any || q->applies_to(a, v);
    if (any) out += (out.empty() ? "" : ", ") + a.name;
  }
  return out.empty() ? "none" : out;
}

std::optional<std::string> why_unsupported(const smt::Query& q, const SweepTarget& t, const InstanceParams& ip) {
  if (q.unsupported)
    if (auto why = q.unsupported(ip)) return why;
  if (q.unsupported_variant) return q.unsupported_variant(*t.algorithm, *t.variant, ip);
  return std::nullopt;
}

}  // namespace

po::options_description prove_options() {
  po::options_description desc("collcheck prove");
  desc.add_options()("help,h", "this help")
      ("list", "list the queries (name, algorithms, statement) and exit")
      ("algo", po::value<std::string>(), "algorithm, or 'all' (those with an SMT encoding)")
      ("variant", po::value<std::string>()->default_value("default"), "variant, 'default' or 'all'")
      ("p", po::value<std::string>(), "p-range, as for verify")
      ("query", po::value<std::string>(), "comma list of queries (default: every query that applies and runs by "
                                          "default; 'all' adds the symbolic-p ones); see --list")
      ("timeout-ms", po::value<std::string>()->default_value("60000"),
       "wall-clock budget per query and instance, minimisation included (exit 3 on timeout)")
      ("smt2-dir", po::value<std::string>(), "also write every solver query there as SMT-LIB2 (one file per check)")
      ("skip-restricted", "skip instances outside a query's encoding instead of failing (exit 77 if nothing remains)")
      ("format", po::value<std::string>()->default_value("text"), "report format: text, json, markdown, junit, html")
      ("out", po::value<std::string>()->default_value("-"), "report file");
  add_instance_options(desc);
  return desc;
}

int cmd_prove(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = prove_options();
  po::variables_map vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (vm.count("list")) {
    if (inv.dry_run) return dry_run_done();
    for (const auto& q : smt::queries())
      std::cout << q.name << (q.by_default ? "" : " (only with --query)") << "\n    " << q.summary
                << "\n    algorithms: " << algorithms_with_queries({&q}) << "\n";
    return 0;
  }
  if (!vm.count("algo") || (!vm.count("p") && !vm.count("dims")))
    throw InputError("prove needs --algo and --p (see 'collcheck prove --list')");
  const std::string format = vm["format"].as<std::string>();
  if (!format_from_string(format))
    throw InputError("unknown format '" + format + "' (known: text, json, markdown, junit, html)");
  const std::string algo = vm["algo"].as<std::string>();
  std::vector<SweepTarget> targets = resolve_target_list(algo, vm["variant"].as<std::string>(), vm.count("dims") > 0);
  apply_instance_options(vm, targets);
  const std::vector<const smt::Query*> selected = select_queries(vm);
  const std::vector<uint64_t> ps = instance_ps(vm, "prove needs --algo and --p");
  smt::QueryContext ctx;
  ctx.timeout_ms =
      static_cast<unsigned>(parse_uint_option("timeout-ms", vm["timeout-ms"].as<std::string>(), 1, 86400000));
  if (vm.count("smt2-dir")) {
    ctx.smt2_dir = vm["smt2-dir"].as<std::string>();
    if (ctx.smt2_dir.empty()) throw InputError("--smt2-dir needs a directory");
  }
  const bool skip_restricted = vm.count("skip-restricted") > 0;

  // Which queries each target gets; an explicitly named algorithm (or query)
  // that nothing applies to is bad input.
  struct Planned {
    const SweepTarget* target;
    std::vector<const smt::Query*> queries;
  };
  std::vector<Planned> plan;
  for (const SweepTarget& t : targets) {
    Planned pl{&t, {}};
    for (const smt::Query* q : selected)
      if (q->applies_to(*t.algorithm, *t.variant)) pl.queries.push_back(q);
    if (!pl.queries.empty()) plan.push_back(std::move(pl));
  }
  if (plan.empty()) {
    if (vm.count("query"))
      throw InputError("no SMT encoding for '" + algo + "' among the selected queries (they cover: " +
                       algorithms_with_queries(selected) + ")");
    throw InputError("no SMT encoding for '" + algo + "' (available: " + algorithms_with_queries(selected) + ")");
  }
  if (vm.count("query") && vm["query"].as<std::string>() != "all")
    for (const smt::Query* q : selected) {
      bool used = false;
      for (const Planned& pl : plan)
        for (const smt::Query* x : pl.queries) used = used || x == q;
      if (!used) throw InputError("query '" + q->name + "' does not apply to '" + algo + "'");
    }

  {  // verify's limit on instances, before any is built
    std::vector<SweepTarget> planned;
    for (const Planned& pl : plan) planned.push_back(*pl.target);
    check_request_size(planned, ps);
  }
  // Instances, and every (instance, query) checked against the encodings'
  // limits before any solver runs.
  struct Job {
    InstanceResult header;
    const SweepTarget* target = nullptr;
    InstanceParams params;
    std::vector<const smt::Query*> run;
    std::vector<Verdict> refused;  // --skip-restricted: skipped verdicts
  };
  // A query named with --query that cannot encode an instance is bad input;
  // among the default queries such pairs are skipped verdicts, and only if
  // nothing at all can run is it bad input.
  const bool named = vm.count("query") > 0;
  std::string first_refusal;
  std::vector<Job> jobs;
  for (const Planned& pl : plan)
    for (uint64_t p : ps)
      for (uint32_t radix : pl.target->radices(p)) {
        Job job;
        job.target = pl.target;
        job.params = pl.target->params(p, radix);
        job.header.algorithm = pl.target->algorithm->name;
        job.header.variant = pl.target->variant->name;
        job.header.collective = to_string(pl.target->algorithm->collective);
        job.header.p = p;
        job.header.params = job.params.label();
        if (auto why = pl.target->variant->violates(job.params)) {  // the variant's restriction, as verify
          if (!skip_restricted) throw InputError(restriction_refusal(*pl.target, p, job.params, *why));
          job.header.status = Status::skipped;
          job.header.skip_reason = *why;
          jobs.push_back(std::move(job));
          continue;
        }
        for (const smt::Query* q : pl.queries) {
          if (q->not_applicable)
            if (auto why = q->not_applicable(*pl.target->algorithm, *pl.target->variant, job.params)) {
              // The query does not model this instance's schedule: not a
              // violation, not bad input; a skipped verdict that says so.
              if (first_refusal.empty())
                first_refusal = q->name + " (" + job.header.algorithm + "/" + job.header.variant +
                                ", p = " + std::to_string(p) + ") is not applicable: " + *why;
              Verdict v;
              v.property = q->name;
              v.mode = "z3";
              v.status = Status::skipped;
              v.stats["reason"] = "not applicable: " + *why;
              job.refused.push_back(std::move(v));
              continue;
            }
          if (auto why = why_unsupported(*q, *pl.target, job.params)) {
            const std::string msg = q->name + " (" + job.header.algorithm + ", p = " + std::to_string(p) + "): " + *why;
            if (!skip_restricted && named) throw InputError(msg);
            if (first_refusal.empty()) first_refusal = msg;
            Verdict v;
            v.property = q->name;
            v.mode = "z3";
            v.status = Status::skipped;
            v.stats["reason"] = *why;
            job.refused.push_back(std::move(v));
          } else {
            job.run.push_back(q);
          }
        }
        jobs.push_back(std::move(job));
      }

  const bool nothing_runs = std::all_of(jobs.begin(), jobs.end(), [](const Job& j) { return j.run.empty(); });
  if (nothing_runs && !skip_restricted) throw InputError(first_refusal);
  if (inv.dry_run) return dry_run_done();  // before --smt2-dir is created, and before any solver runs
  if (!ctx.smt2_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(ctx.smt2_dir, ec);
    if (!std::filesystem::is_directory(ctx.smt2_dir))
      throw InputError("--smt2-dir: cannot create directory '" + ctx.smt2_dir + "'");
  }

  auto start = std::chrono::steady_clock::now();
  Report r;
  r.kind = "prove";
  r.tool_version = COLLCHECK_VERSION;
  r.command = inv.cmdline;
  r.mode = "z3";
  r.threads = 1;
  for (Job& job : jobs) {
    auto t0 = std::chrono::steady_clock::now();
    InstanceResult res = std::move(job.header);
    if (res.status == Status::skipped && !res.skip_reason.empty()) {  // outside the variant's restriction
      r.instances.push_back(std::move(res));
      continue;
    }
    for (const smt::Query* q : job.run) res.verdicts.push_back(q->run(*job.target->algorithm, *job.target->variant, job.params, ctx));
    for (Verdict& v : job.refused) res.verdicts.push_back(std::move(v));
    res.status = combined_status(res.verdicts);
    if (res.status == Status::skipped && !res.verdicts.empty())
      res.skip_reason = res.verdicts.front().stats["reason"];
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.instances.push_back(std::move(res));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  add_registry_expectations(r, variants_of(r.instances), false);
  emit_report(r, format, vm["out"].as<std::string>(), true);
  return exit_code(r);
}

}  // namespace collcheck
