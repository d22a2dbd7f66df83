#include "checker/cli/cli.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <system_error>

#include "checker/cli/commands.hpp"
#include "collcheck_version.hpp"
#include "reports/report.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

namespace po = boost::program_options;

namespace collcheck {
namespace {

const std::vector<Subcommand> kSubcommands = {
    {"list", "list", "algorithms, variants, restrictions, properties", cmd_list, list_options},
    {"verify", "verify --algo A --p RANGE", "check every property for every p, rank, step and block", cmd_verify,
     verify_options, "", true},
    {"dump", "dump --algo A --p N", "print the schedule (--format text|json|jsonl)", cmd_dump, dump_options},
    {"check-file", "check-file FILE",
     "check a schedule in collcheck's format (JSON or JSON lines)\n"
     "(--schedule-format traff-table: Träff's tables)\n"
     "(--schedule-format msccl: MSCCL algorithm XML)",
     cmd_check_file, check_file_options, "file"},
    {"run", "run --algo A --p N", "execute on threads with real data and compare", cmd_run, run_options},
    {"prove", "prove --algo A --p RANGE",
     "Z3 proofs for all ranks at once (--list: the queries;\n--query, --timeout-ms, --smt2-dir DIR)", cmd_prove,
     prove_options},
    {"analyze", "analyze --algo tra --p N", "TRA's K, D and cost for every radix, the optimum and sqrt(p)",
     cmd_analyze, analyze_options},
    {"report", "report --db FILE", "render a sweep stored by 'verify --db FILE' (any --format)", cmd_report,
     report_options},
    {"fuzz", "fuzz --algo A --seconds S",
     "property-based fuzzing, shrunk to the minimal failing instance\n(--schedule-cmd CMD: a generator program)",
     cmd_fuzz, fuzz_options},
};

// `collcheck --help`: the table, synopses padded to one column.
std::string usage() {
  constexpr size_t kColumn = 29;
  std::string out = "usage: collcheck <command> [options]\ncommands:\n";
  for (const Subcommand& c : kSubcommands) {
    std::string head = c.synopsis;
    head.resize(std::max(head.size() + 1, kColumn), ' ');
    std::string_view help = c.help;
    for (size_t nl; (nl = help.find('\n')) != std::string_view::npos; help.remove_prefix(nl + 1)) {
      out += "  " + head + std::string(help.substr(0, nl)) + "\n";
      head.assign(kColumn, ' ');
    }
    out += "  " + head + std::string(help) + "\n";
  }
  return out + "  --version, --man-page, --bash-completion\n"
               "every command takes --help (its options) and --dry-run (validate the command line, run nothing).\n";
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

}  // namespace

const std::vector<Subcommand>& subcommands() { return kSubcommands; }

namespace {

// What an out-of-memory message advises, per command: only options that
// command has (the outside audit: analyze was told to use --max-memory, which
// it did not take).
std::string out_of_memory(const std::string& command) {
  if (command == "verify")
    return "the instance is too large for this machine (use a smaller p, --mode fingerprint, a smaller "
           "--memory-gib, or --max-memory to refuse such instances before allocating)";
  if (command == "check-file")
    return "the schedule is too large to check on this machine (use --mode fingerprint, a smaller --memory-gib, or "
           "--max-memory to refuse such a check before allocating)";
  if (command == "analyze")
    return "the analysis is too large for this machine (use a smaller --p or --dims shape, or a --max-memory below "
           "the memory available to refuse it before allocating)";
  if (command == "run" || command == "dump") return "the instance is too large for this machine (use a smaller p)";
  return "the process could not allocate more (ulimit -v, or the machine's memory)";
}

Failure describe(const std::exception_ptr& e, const std::string& command) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {2, std::string("error: ") + x.what()};
  } catch (const po::error& x) {
    return {2, std::string("error: ") + x.what()};
  } catch (const ResourceRefusal& x) {  // schedules/memory_guard.hpp: a reader, or the executor's threads
    return {3, x.what()};
  } catch (const std::bad_alloc&) {
    return {3, "error: out of memory: " + out_of_memory(command)};
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
}  // namespace

Failure describe_failure(const std::exception_ptr& e, const std::string& command) {
  Failure f = describe(e, command);
  // One line whatever the message quotes (an option value, a path, file
  // content): control characters escaped visibly (schedules/input_error.hpp's
  // escape_controls, which reports' visible() is).
  f.message = escape_controls(f.message);
  return f;
}

namespace {

std::string g_command;  // the running command, for on_terminate's message

// The last resort: an exception that escapes a thread (or anything else that
// ends in std::terminate) is one line and exit 3 (or 2), never an abort.
[[noreturn]] void on_terminate() {
  Failure f{3, "internal error: terminate called without an active exception"};
  if (std::exception_ptr e = std::current_exception()) f = describe_failure(e, g_command);
  std::cout.flush();
  std::fflush(stdout);
  std::fprintf(stderr, "collcheck: %s\n", f.message.c_str());
  std::fflush(stderr);
  std::_Exit(f.code);
}

int run_command(const std::string& cmd, const std::vector<std::string>& args, const Invocation& inv) {
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << usage();
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "collcheck " << COLLCHECK_VERSION << "\n";
    return 0;
  }
  if (cmd == "--man-page" || cmd == "--bash-completion") {
    if (!args.empty()) throw InputError(cmd + " takes no arguments");
    std::cout << (cmd == "--man-page" ? collcheck_man_page() : collcheck_bash_completion());
    return 0;
  }
  for (const Subcommand& c : kSubcommands)
    if (cmd == c.name) return c.run(args, inv);
  if (cmd.empty()) throw InputError("no command given; try 'collcheck --help'");
  std::string known;
  for (const Subcommand& c : kSubcommands) known += (known.empty() ? "" : ", ") + std::string(c.name);
  throw InputError("unknown command " + quote_input(cmd) + " (known: " + known + ")");
}

}  // namespace

int dry_run_done() {
  std::cerr << "collcheck: dry run: the command line is valid; nothing was run\n";
  return 0;
}

int cli_main(int argc, char** argv, SweepRunner sweep_runner) {
  std::set_terminate(on_terminate);
  // --dry-run may stand anywhere, before the command too: what is left is
  // the command line the run would see, so both answer alike.
  Invocation inv{command_line(argc, argv), std::move(sweep_runner)};
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--dry-run")
      inv.dry_run = true;
    else
      args.emplace_back(argv[i]);
  }
  const std::string cmd = args.empty() ? "" : args.front();
  if (!args.empty()) args.erase(args.begin());
  g_command = cmd;
  StdoutCapture capture;  // flush_stdout names the reason a write to stdout failed
  try {
    const int code = run_command(cmd, args, inv);
    flush_stdout();  // a report or listing that did not reach stdout is an error
    return code;
  } catch (...) {
    const Failure f = describe_failure(std::current_exception(), cmd);
    std::cerr << "collcheck: " << f.message << "\n";
    return f.code;
  }
}

}  // namespace collcheck
