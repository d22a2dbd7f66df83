// collcheck dump: one schedule of the registry, per step and rank, as text,
// in collcheck's schedule format (JSON, JSON lines) or as Träff's tables.
#include <boost/program_options.hpp>
#include <iostream>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/cli/dims_option.hpp"
#include "checker/cli/p_range.hpp"
#include "checker/sweep/file_claims.hpp"
#include "collcheck_version.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/formats/schedule_file.hpp"
#include "schedules/formats/schedule_text.hpp"
#include "schedules/formats/traff_table.hpp"
#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"

namespace po = boost::program_options;

namespace collcheck {
namespace {

uint64_t single_p(const std::string& text) {
  auto ps = parse_p_range(text);
  if (ps.size() != 1) throw InputError("--p must be a single value here, got " + quote_input(text));
  return ps.front();
}

void require_allowed(const SweepTarget& t, uint64_t p) {
  if (auto why = t.variant->violates(t.params(p)))
    throw InputError(t.algorithm->name + "/" + t.variant->name + ": p = " + std::to_string(p) +
                     " is outside its restriction: " + *why);
}

// What dump writes besides the transfers of a registry instance: the claims
// (the registry's step and volume claims with formulas and source; the
// generic properties asserted to hold unless the variant is a paper rule
// collcheck refutes) and the producer (tool, version, algorithm,
// variant, instance parameters).
FileMeta registry_file_meta(const AlgorithmInfo& a, const VariantInfo& v, const InstanceParams& ip) {
  FileMeta meta;
  const Claim c = v.claim(ip);
  FileClaims fc;
  fc.steps = c.steps;
  fc.volume_blocks = c.volume_blocks;
  fc.steps_formula = c.steps_formula;
  fc.volume_formula = c.volume_formula;
  fc.source = c.source;
  if (v.expected_to_hold) fc.properties = assertable_properties();
  meta.claims = fc;
  meta.producer = {{"tool", "collcheck"}, {"version", COLLCHECK_VERSION}, {"algorithm", a.name}, {"variant", v.name}};
  const std::string label = ip.label();
  if (!label.empty()) meta.producer.emplace_back("params", label);
  return meta;
}

}  // namespace

po::options_description dump_options() {
  po::options_description desc("collcheck dump");
  desc.add_options()("help,h", "this help")
      ("algo", po::value<std::string>(), "algorithm")
      ("variant", po::value<std::string>()->default_value("default"), "variant")
      ("p", po::value<std::string>(), "one p")
      ("format", po::value<std::string>()->default_value("text"),
       "text | json | jsonl (JSON lines, for large p) | traff-table (traff only)")
      ("out", po::value<std::string>()->default_value("-"), "output file");
  add_instance_options(desc);
  return desc;
}

int cmd_dump(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = dump_options();
  auto vm = parse_args(desc, args);
  if (print_help(desc, vm)) return 0;
  if (!vm.count("algo") || (!vm.count("p") && !vm.count("dims"))) throw InputError("dump needs --algo and --p");
  SweepTarget t = single_target(vm["algo"].as<std::string>(), vm["variant"].as<std::string>(), vm.count("dims") > 0);
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
  const bool traff = f == "traff-table";
  if (traff && !t.algorithm->capabilities.traff_table_format) {
    std::string with;  // the algorithms whose family declares the format
    for (const AlgorithmInfo& a : registry())
      if (a.capabilities.traff_table_format) with += (with.empty() ? "" : ", ") + a.name;
    throw InputError("--format traff-table is only for --algo " + with);
  }
  if (!traff && f != "text" && f != "json" && f != "jsonl")
    throw InputError("unknown dump format " + quote_input(f) + " (known: text, json, jsonl, traff-table)");
  if (!traff) {
    require_allowed(t, p);
    if (p > 4096) throw InputError("dump prints every rank and step; p = " + std::to_string(p) + " is too large (max 4096)");
  }
  if (traff) {
    check_traff_table_p(p);
    if (inv.dry_run) return dry_run_done();
    write_output(vm["out"].as<std::string>(), traff_table(p));
    return 0;
  }
  // The dry run too counts what would be listed (p <= 4096): a dump over the
  // limit is bad input, and only counting tells.
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
  if (inv.dry_run) return dry_run_done();
  std::string title = t.algorithm->name + "/" + t.variant->name;
  if (f == "text")
    write_output(vm["out"].as<std::string>(), schedule_text(*s, title));
  else  // json or jsonl: the format was checked above
    write_schedule_file(vm["out"].as<std::string>(), *s, registry_file_meta(*t.algorithm, *t.variant, t.params(p)),
                        f == "jsonl" ? ScheduleEncoding::jsonl : ScheduleEncoding::json);
  return 0;
}

}  // namespace collcheck
