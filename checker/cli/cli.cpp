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
#include "schedules/formats/file_io.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"

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
  if (cmd == "verify") return cmd_verify(args, cmdline, g_sweep_runner);
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
