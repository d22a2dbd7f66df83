// collcheck check-file FILE: a schedule from a file (collcheck's format,
// JSON or JSON lines; Träff's tables; MSCCL algorithm XML) through every
// generic property, the file's claims and optionally translation validation.
#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "checker/cli/check_msccl_file.hpp"
#include "checker/cli/cli_support.hpp"
#include "checker/cli/commands.hpp"
#include "checker/sweep/file_claims.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "properties/traff/traff_conditions.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/formats/msccl_check.hpp"
#include "schedules/formats/schedule_json.hpp"
#include "schedules/formats/traff_table.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/traff/traff_broadcast.hpp"
#include "smt/translation_validation.hpp"

namespace po = boost::program_options;

namespace collcheck {
namespace {

// What check-file's command line asks for, checked whole before the file is
// looked at (the dry run stops after this; the run goes on from it).
struct CheckFileRequest {
  std::string path, format;  // FILE, --schedule-format
  bool tv = false;           // --translation-validation
  unsigned tv_timeout = 60000;
  CheckOptions check;
  int threads = 0;
  uint32_t n = 8;  // traff-table only
  Rank root = 0;
};

// Runs `read`, which reads `path`: std::bad_alloc becomes "out of memory while
// reading PATH" (ResourceRefusal, exit 3; the readers' own messages say how
// far they got), made after what `read` built is released.
template <class F>
auto reading(const std::string& path, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
  }
  throw out_of_memory_while_reading(path);
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
    res.skip_reason = ic.refused->reason;
  }
  r.instances.push_back(std::move(res));
  return r;
}

// check-file --schedule-format traff-table: Träff's receive/send tables as
// `dump --format traff-table` writes them. Checks Träff's four conditions on
// the tables and runs Algorithm 1 driven by them (n blocks, root) through every
// generic property with the registry's traff claim (n-1+q rounds).
int check_traff_table_file(const po::variables_map& vm, const CheckFileRequest& q, const std::string& text,
                           const std::string& cmdline) {
  const std::string& path = q.path;
  const CheckOptions& o = q.check;
  std::vector<traff::RankSchedule> tables = reading(path, [&] { return parse_traff_table(text, path, o.max_memory); });
  const uint64_t p = tables.size();
  const uint32_t n = q.n;
  const Rank root = q.root;
  const SweepTarget t = single_target("traff", "default");
  const InstanceParams params{p, root, n};
  if (auto why = t.variant->violates(params)) throw InputError(path + ": p = " + std::to_string(p) + ": " + *why);
  const int threads = q.threads;
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
// an MSCCL algorithm XML (check_msccl_file.hpp).
int check_msccl_file(const po::variables_map& vm, const CheckFileRequest& q, const std::string& text,
                     const std::string& cmdline) {
  return check_msccl_xml(vm, q.path, text, q.check.max_memory, cmdline);
}

}  // namespace

po::options_description check_file_options() {
  po::options_description desc("collcheck check-file");
  desc.add_options()("help,h", "this help")("file", po::value<std::string>(), "schedule JSON file")
      ("schedule-format", po::value<std::string>()->default_value("auto"),
       "input format: auto (by content: collcheck's JSON, JSON lines or MSCCL XML) | json | jsonl | traff-table "
       "(the layout of 'dump --algo traff --format traff-table') | msccl "
       "(MSCCL algorithm XML; auto also detects it by its <algo> root element). A format given is obeyed: a file "
       "not in it is malformed in it")
      ("translation-validation", "also prove with Z3 that the schedule computes the postcondition with exact "
       "multiplicity for all input values (p * blocks <= 2^18; a violation's witness is replayed on the "
       "threaded executor)")
      ("timeout-ms", po::value<std::string>(), "Z3 budget of --translation-validation (default 60000)")
      ("smt2-dir", po::value<std::string>(), "with --translation-validation: write the solver queries as SMT-LIB2 here");
  add_instance_options(desc);
  add_check_options(desc);
  return desc;
}

namespace {

CheckFileRequest check_file_request(const po::variables_map& vm) {
  if (!vm.count("file")) throw InputError("check-file needs a FILE");
  CheckFileRequest q;
  q.path = vm["file"].as<std::string>();
  q.format = vm["schedule-format"].as<std::string>();
  const std::string& sfmt = q.format;
  if (sfmt != "auto" && sfmt != "json" && sfmt != "jsonl" && sfmt != "traff-table" && sfmt != "msccl")
    throw InputError("unknown --schedule-format " + quote_input(sfmt) + " (known: auto, json, jsonl, traff-table, msccl)");
  if (sfmt != "traff-table" && (vm.count("n") || vm.count("root")))
    throw InputError("--n and --root apply only to --schedule-format traff-table");
  for (const char* o : {"dims", "radix", "radix2", "ppn"})  // the file fixes the instance
    if (vm.count(o))
      throw InputError(std::string("--") + o + " applies to registry algorithms (verify, dump, run), not to check-file");
  q.tv = vm.count("translation-validation") > 0;
  if (!q.tv && (vm.count("timeout-ms") || vm.count("smt2-dir")))
    throw InputError("--timeout-ms and --smt2-dir apply only with --translation-validation");
  if (q.tv && (sfmt == "traff-table" || sfmt == "msccl"))
    throw InputError("--translation-validation applies to collcheck's schedule format (json, jsonl)");
  if (vm.count("timeout-ms"))
    q.tv_timeout = static_cast<unsigned>(parse_uint_option("timeout-ms", vm["timeout-ms"].as<std::string>(), 1, 86400000));
  if (!format_from_string(vm["format"].as<std::string>()))
    throw InputError("unknown format " + quote_input(vm["format"].as<std::string>()) + " (known: text, json, markdown, junit, html)");
  q.check = check_options(vm);
  q.threads = worker_threads(vm);
  if (vm.count("n")) q.n = static_cast<uint32_t>(parse_uint_option("n", vm["n"].as<std::string>(), 1, 1u << 20));
  if (vm.count("root"))
    q.root = static_cast<Rank>(parse_uint_option("root", vm["root"].as<std::string>(), 0, (1u << 24) - 1));
  // By identity, or by name while the file does not exist: nothing is read.
  refuse_output_over_input("--out", vm["out"].as<std::string>(), "the input file", q.path);
  return q;
}

}  // namespace

int cmd_check_file(const std::vector<std::string>& args, const Invocation& inv) {
  const po::options_description desc = check_file_options();
  po::positional_options_description pos;
  pos.add("file", 1);
  auto vm = parse_args(desc, args, &pos);
  if (print_help(desc, vm)) return 0;
  const CheckFileRequest q = check_file_request(vm);
  if (inv.dry_run) return dry_run_done();  // the file may not exist yet: everything but it
  const std::string& path = q.path;
  const std::string& sfmt = q.format;
  const bool tv = q.tv;
  require_regular_file(path);
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) > kMaxScheduleFileBytes)
    throw InputError(quote_input(path) + " is larger than 1 GiB; not a schedule collcheck can check densely");
  // An explicit --schedule-format is obeyed: only auto looks at the content
  // (a file that is not in the format given is malformed in that format).
  const std::string root = reading(path, [&] {
    std::ifstream f(path);
    if (!f) throw InputError("cannot read " + quote_input(path));
    std::string head(64 * 1024, '\0');
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(f.gcount()));
    return msccl::xml_root_element(head);
  });
  const bool msccl_head = root == "algo";
  // Other XML (an NCCL topology file, say) is no schedule: say what it is
  // rather than that it is not JSON.
  if (sfmt == "auto" && !root.empty() && !msccl_head) {
    const std::string kind = msccl::nccl_topology_kind(root);
    throw InputError(quote_input(path) + " is " + (kind.empty() ? "XML" : kind) + " (root element <" +
                     escape_controls(root.substr(0, 64)) + ">), not a schedule: check-file takes collcheck's "
                     "schedule JSON or JSON lines, Träff's tables (--schedule-format traff-table) or MSCCL "
                     "algorithm XML (root element <algo>)");
  }
  const bool xml = sfmt == "msccl" || (sfmt == "auto" && msccl_head);
  // Only the whole-text formats are read whole; collcheck's own is streamed.
  if (sfmt == "traff-table" || xml) {
    if (tv) throw InputError("--translation-validation applies to collcheck's schedule format (json, jsonl)");
    const std::string text = reading(path, [&] { return read_whole_file(path, q.check.max_memory); });
    if (xml) return check_msccl_file(vm, q, text, inv.cmdline);
    return check_traff_table_file(vm, q, text, inv.cmdline);
  }
  const CheckOptions& o = q.check;  // --max-memory guards the reading too
  ScheduleDocument doc = load_schedule_file(path, sfmt, o.max_memory);
  MaterializedView view(std::move(doc.schedule));
  const int threads = q.threads;
  if (auto why = infeasible(view, o)) throw InputError(path + ": " + *why);
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
        view.data(), q.tv_timeout, dir, std::filesystem::path(path).stem().string()));
  }
  Report r = file_report(inv.cmdline, path, doc.format, view.spec().kind, view.p(), std::move(ic), o.seed);
  for (std::string& n : file_claim_notes(doc)) r.notes.push_back(std::move(n));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emit_report(r, vm["format"].as<std::string>(), vm["out"].as<std::string>(), vm.count("verbose") > 0);
  return exit_code(r);
}

}  // namespace collcheck
