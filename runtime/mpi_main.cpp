// collcheck-mpi: runs a schedule with real MPI point-to-point calls on every
// rank of MPI_COMM_WORLD and compares the result with the MPI library's own
// collective (runtime/mpi_backend.hpp): MPI_Allreduce, MPI_Reduce (to the
// root), MPI_Bcast (from the root), MPI_Allgatherv, MPI_Reduce_scatter or
// MPI_Alltoallv, whichever the schedule's collective is.
//
//   mpirun -np P collcheck-mpi --algo NAME [--variant V] [--n N] [--root R]
//          [--dtype int64|float|double] [--count N] [--seed S] [--format text|json]
//   mpirun -np P collcheck-mpi --schedule FILE [...]   (JSON or JSON lines, docs/schedule-format.md)
//   mpirun -np P collcheck-mpi --native COLL | --function LIB:SYM --collective COLL
//          [--payload one-hot,counters,counters-op,tagged-counters,noncommutative,ordered,power-sums,source-tagged] [--count N] [--dtype D]
//          [--root R] [--in-place] [--timeout S] [--trace FILE]
//     black box (runtime/blackbox/): the library's own collective or a user's
//     function on exact-multiplicity payloads; exit 3 when a call hangs or
//     crashes, or when the library or the function ends the process with
//     exit() before a verdict (main: how the process ends). --trace records
//     every point-to-point message of the call (runtime/trace/), writes the
//     schedule they form to FILE and checks it with every property; exit 3
//     when the messages cannot be traced, 2 when FILE cannot be written.
//
// --n and --root are parsed and checked as by `collcheck run`
// (checker/cli/cli_support.hpp); a root or n the variant does not allow at this p
// is bad usage.
//
// Exit codes (docs/guide/mpi.md, "Schedules over MPI"; docs/guide/options.md,
// "Exit codes"): 0 every rank matches, 1 a mismatch, a read of undefined data
// (a send of, or reduce into, a block the rank does not hold) or an unmatched
// schedule (not run: it would hang), 2 bad usage or bad input
// or an output that could not be written (standard output, --trace FILE),
// 77 skipped (the variant's restriction excludes this p), 3 no verdict (a black
// box that hangs, crashes or exits; an internal error). Only rank 0 prints;
// every rank ends with rank 0's code.
#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checker/cli/cli_support.hpp"
#include "checker/cli/manual.hpp"
#include "checker/sweep/file_claims.hpp"
#include "checker/sweep/sweep.hpp"
#include "collcheck_version.hpp"
#include "runtime/blackbox/blackbox_run.hpp"
#include "runtime/blackbox/crash_report.hpp"
#include "runtime/blackbox/heap_check.hpp"
#include "runtime/mpi_backend.hpp"
#include "schedules/formats/file_io.hpp"
#include "schedules/formats/launcher_stdout.hpp"
#include "schedules/formats/schedule_file.hpp"
#include "schedules/input_error.hpp"
#include "schedules/memory_guard.hpp"
#include "schedules/registry.hpp"
#include "runtime/smpi/smpi_job.hpp"
#include "runtime/trace/conformance.hpp"

namespace po = boost::program_options;
using namespace collcheck;
using namespace collcheck::runtime;

namespace {

constexpr int kHolds = 0, kViolated = 1, kUsage = 2, kUnknown = 3, kSkipped = 77;

struct UsageError {
  std::string what;
};

// For the exit hook (exit_before_verdict, below main's helpers).
std::atomic<bool> g_ending{false};  // abort_job ends the process through MPI_Abort: the hook stays silent
int g_rank = 0;
std::string g_running;  // what runs now, for the hook's message (" while ...,")

std::string known_algorithms() {
  std::string s;
  for (const auto& a : registry()) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

std::string known_variants(const AlgorithmInfo& a) {
  std::string s;
  for (const auto& v : a.variants) s += (s.empty() ? "" : ", ") + v.name;
  return s;
}

// Black-box mode (runtime/blackbox/blackbox_run.hpp): --native COLL or
// --function LIB:SYM --collective COLL, on exact-multiplicity payloads.

// --conforms ALGO[/VARIANT]: the registry schedule at the job's p (made on
// every rank before any call, so a p the variant does not allow or a count
// too small for its blocks is bad usage on every rank alike).
struct ConformsTo {
  std::string name;  // "swing/latency"
  std::unique_ptr<Schedule> schedule;
};

// The conformance lines of a traced schedule (runtime/trace/conformance.hpp):
// violated where it differs from the registry schedule, else holds, with
// what the registry schedule's check at this p says (it is the same schedule).
Status report_conformance(const MaterializedSchedule& traced, const ConformsTo& ref, const std::string& head,
                          std::ostringstream& text, nlohmann::json& j) {
  const trace::Conformance c = trace::compare(traced, *ref.schedule);
  const std::string at = ref.name + " at p = " + std::to_string(ref.schedule->p());
  j["conforms"] = {{"to", ref.name}, {"p", ref.schedule->p()}, {"conforms", c.conforms()}, {"steps", c.steps},
                   {"first_difference", c.first ? nlohmann::json(c.first->text()) : nlohmann::json(nullptr)}};
  if (!c.conforms()) {
    text << head << ": trace: does not conform to " << at << ": first difference at " << escape_controls(c.first->text())
         << " (the traced schedule is checked on its own above)\n";
    return Status::violated;
  }
  const InstanceCheck ic = check_schedule(*ref.schedule, nullptr, {}, CheckOptions{});
  Status st = Status::holds;
  std::string verdicts;
  for (const Verdict& v : ic.verdicts) {
    if (v.status == Status::skipped) continue;
    st = worst(st, v.status);
    verdicts += (verdicts.empty() ? "" : ", ") + v.property + " " + to_string(v.status);
  }
  j["conforms"]["registry_verdicts"] = verdicts;
  text << head << ": trace: conforms to " << at << " (" << c.steps << " steps, " << c.transfers
       << " messages compared, step by step): this run's messages are that schedule, so it inherits, for p = "
       << ref.schedule->p() << " and this count, what collcheck decides for the schedule: " << verdicts
       << " (the registry schedule checked here, " << ic.mode << "; collcheck verify --algo "
       << ref.name.substr(0, ref.name.find('/')) << " decides it over ranges of p)\n";
  return st;
}

// What --trace found, at rank 0: printed, the schedule written to `out` and
// checked. Returns the worst status: violated (a defective message, a
// violated property of the schedule), unknown (not traceable, or a result
// its messages do not explain), holds. A failed write of `out` is kept in
// `write_error` (the run ends with it: exit 2, as every failed output).
// With `conforms`, the schedule is also compared with the registry's.
Status report_trace(const trace::TraceReport& tr, const std::string& head, const std::string& target,
                    const std::string& out, const std::string& format, nlohmann::json& j,
                    std::optional<std::string>& write_error, const ConformsTo* conforms) {
  Status st = tr.defect ? Status::violated : (tr.untraceable || tr.local_change) ? Status::unknown : Status::holds;
  j = {{"messages", tr.messages},
       {"rounds", tr.rounds},
       {"defect", tr.defect ? nlohmann::json(*tr.defect) : nlohmann::json(nullptr)},
       {"untraceable", tr.untraceable ? nlohmann::json(*tr.untraceable) : nlohmann::json(nullptr)},
       {"local_change", tr.local_change ? nlohmann::json(*tr.local_change) : nlohmann::json(nullptr)},
       {"schedule", nullptr},
       {"verdicts", nlohmann::json::array()}};
  // Every value in the text (the --trace path, messages quoting the
  // library's data) with control characters escaped: one line each.
  const auto shown = [](const std::string& s) { return escape_controls(s); };
  std::ostringstream text;
  text << head << ": trace: " << tr.messages << " messages in " << tr.rounds << " rounds\n";
  if (tr.defect) text << head << ": trace: defect: " << shown(*tr.defect) << "\n";
  if (tr.untraceable) text << head << ": trace: not traceable: " << shown(*tr.untraceable) << "\n";
  if (!tr.untraceable) {
    const MaterializedView view(tr.schedule);
    FileMeta meta;
    meta.producer = {{"tool", "collcheck-mpi --trace"}, {"traced", target}};
    try {  // rank 0 alone writes: a failure is reported once the run is over (no rank left waiting)
      write_schedule_file(out, view, meta, ScheduleEncoding::json);
      j["schedule"] = out;
      text << head << ": trace: the messages as a schedule (" << view.num_steps() << " steps, " << view.ports()
           << (view.ports() == 1 ? " port" : " ports") << " measured) written to " << shown(out) << "\n";
    } catch (const InputError& e) {
      if (!write_error) write_error = e.what();
    }
    const InstanceCheck ic = check_schedule(view, nullptr, {}, CheckOptions{});
    for (const Verdict& v : ic.verdicts) {
      if (v.status == Status::skipped) continue;
      st = worst(st, v.status);
      std::string line = std::string(to_string(v.status));
      if (v.counterexample) {
        line += ": " + v.counterexample->location() + ": " + v.counterexample->message;
        if (v.counterexample->root_cause) line += " (" + v.counterexample->root_cause->text + ")";
      }
      text << head << ": trace schedule: " << v.property << ": " << shown(line) << "\n";
      j["verdicts"].push_back({{"property", v.property}, {"status", to_string(v.status)},
                               {"counterexample", v.counterexample ? nlohmann::json(v.counterexample->location() + ": " +
                                                                                    v.counterexample->message)
                                                                   : nlohmann::json(nullptr)}});
    }
    if (tr.local_change)
      text << head << ": trace: the result is not what the messages gave: " << shown(*tr.local_change) << "\n";
    if (conforms) st = worst(st, report_conformance(tr.schedule, *conforms, head, text, j));
  } else if (conforms) {
    text << head << ": trace: conformance to " << conforms->name << " not decided: the messages are no schedule\n";
  }
  j["status"] = to_string(st);
  if (format != "json") std::cout << text.str();
  return st;
}

// ---- communicators (--comm) ------------------------------------------------------
//
// A black box is called on MPI_COMM_WORLD by default; an implementation that
// takes rank, size or messages from MPI_COMM_WORLD instead of its argument,
// or caches state from its first communicator, is only seen on others:
//   world      MPI_COMM_WORLD
//   dup        a duplicate of it (another context: messages on WORLD do not match)
//   reversed   the world's ranks in reverse order (rank r is world rank p-1-r:
//              a non-commutative order must follow the communicator's ranks)
//   split[:K]  parts of K consecutive world ranks, all called at once; K
//              must divide p (default: the largest proper divisor of p, p/2
//              for even p, 1 for a prime)
//   sequence   one job, communicators of different sizes in turn: the world,
//              its first p-1 ranks, the world again
//   all        every one of the above in turn (or a comma list of them)
// A comma list given to --`option`: its items; an empty one ("a,", ",a",
// "a,,b") is a malformed list (InputError), never dropped.
std::vector<std::string> list_items(const std::string& option, const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0;;) {
    const size_t comma = text.find(',', at);
    out.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (out.back().empty())
      throw InputError("--" + option + ": empty item in " + quote_input(text) + " (a comma list)");
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

// --comm's words in order ("" and "world": the world alone; "all": every
// kind), each well-formed: InputError otherwise. Whether a split's K divides
// p is known in the job only (comm_plan).
std::vector<std::string> comm_spec_words(const std::string& spec) {
  if (spec.empty()) return {"world"};
  if (spec == "all") return {"world", "dup", "reversed", "split", "sequence"};
  std::vector<std::string> words = list_items("comm", spec);
  for (const std::string& w : words) {
    const bool split = w.rfind("split", 0) == 0 && (w.size() == 5 || w[5] == ':');
    if (!split && w != "world" && w != "dup" && w != "reversed" && w != "sequence")
      throw InputError("unknown --comm '" + w + "' (world, dup, reversed, split[:K], sequence, all)");
    if (split && w.size() > 5) (void)parse_uint_option("comm split:K", w.substr(6), 1, INT_MAX);
  }
  return words;
}

struct CommStep {
  MPI_Comm comm = MPI_COMM_NULL;  // this rank's communicator; NULL: it sits this step out
  int size = 0;                   // the communicator's size (every part alike)
  std::string label;              // "" for the world, else "on ..." for the report
  // Every rank in one communicator whose rank 0 is world rank 0 (the world, a
  // duplicate): the reporter holds the result; else each part's rank 0 sends
  // it to world rank 0 (a split, the reversed world, the sequence's p-1 ranks).
  bool world = false;
  // Set on every rank when the library failed to build this communicator on
  // some rank: what it returned (decoded), and the collective is not called.
  std::optional<std::string> not_built;
};

// Whether every rank built a communicator, decided the same on every rank.
// MPI_Comm_split and MPI_Comm_dup run the library's own collectives (Open
// MPI's split exchanges colours with its allgather): forced to an algorithm
// that cannot run at this p, they return an error, maybe on some ranks only.
// The ranks agree by point-to-point messages through world rank 0, not by a
// collective, which may be the one that failed. Returns the first failing
// world rank's decoded error, on every rank.
std::optional<std::string> agree_on_failure(const std::optional<std::string>& mine, int me, int size) {
  constexpr int kTag = 7301;  // collcheck-mpi's own: no call under test is running
  std::string first;  // at rank 0: the smallest failing rank's text
  if (me == 0) {
    if (mine) first = "rank 0: " + *mine;
    // In arrival order (a receive per rank in rank order would search every
    // queued message: O(p^2) under SMPI), the smallest failing rank kept.
    std::vector<std::string> texts(static_cast<size_t>(size));
    for (int n = 1; n < size; ++n) {
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &status);
      int len = 0;
      MPI_Get_count(&status, MPI_CHAR, &len);
      std::string text(static_cast<size_t>(len), '\0');
      MPI_Recv(text.data(), len, MPI_CHAR, status.MPI_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      // Every other rank sends once and then waits for the answer: one each.
      texts.at(static_cast<size_t>(status.MPI_SOURCE)) = std::move(text);
    }
    for (int r = 1; r < size && first.empty(); ++r)
      if (!texts[static_cast<size_t>(r)].empty()) first = "rank " + std::to_string(r) + ": " + texts[static_cast<size_t>(r)];
    for (int r = 1; r < size; ++r)
      MPI_Send(first.data(), static_cast<int>(first.size()), MPI_CHAR, r, kTag, MPI_COMM_WORLD);
  } else {
    const std::string text = mine.value_or("");
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTag, MPI_COMM_WORLD);
    MPI_Status status;
    MPI_Probe(0, kTag, MPI_COMM_WORLD, &status);
    int len = 0;
    MPI_Get_count(&status, MPI_CHAR, &len);
    first.assign(static_cast<size_t>(len), '\0');
    MPI_Recv(first.data(), len, MPI_CHAR, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (first.empty()) return std::nullopt;
  return first;
}

// Which communicator this rank calls on, for the crash and hang lines
// (" on rank 1 of a 2-rank communicator (--comm step 1 of 1: on a split
// ...)"): the world rank alone is ambiguous where several parts call at
// once. Empty for the world.
std::string comm_words(const CommStep& st, const std::vector<CommStep>& steps) {
  if (st.label.empty()) return "";
  int crank = 0;
  MPI_Comm_rank(st.comm, &crank);
  const auto at = static_cast<size_t>(&st - steps.data());
  return " on rank " + std::to_string(crank) + " of a " + std::to_string(st.size) + "-rank communicator (--comm step " +
         std::to_string(at + 1) + " of " + std::to_string(steps.size()) + ": " + st.label + ")";
}

// The world's error handler, saved around a section that wants errors
// returned. SMPI 3.32 answers MPI_ERRHANDLER_NULL on every rank but 0 (and
// refuses it back): those ranks get MPI's default, MPI_ERRORS_ARE_FATAL.
MPI_Errhandler save_world_errhandler() {
  MPI_Errhandler previous = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous);
  return previous;
}

void restore_world_errhandler(MPI_Errhandler previous) {
  if (previous == MPI_ERRHANDLER_NULL) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous);
  MPI_Errhandler_free(&previous);
}

// `base`: MPI_COMM_WORLD, or (--cvar) its duplicate made after the write,
// from which every communicator of the plan is made and on which the world's
// steps run (`base_failed`: it could not be made, so no step is built).
std::vector<CommStep> comm_plan(const std::string& spec, int me, int size, MPI_Comm base,
                                const std::optional<std::string>& base_failed = std::nullopt) {
  std::vector<CommStep> steps;
  // A failed split or dup returns its error instead of ending the job (the
  // world's handler is restored below; a base of --cvar's returns errors).
  const MPI_Errhandler previous = save_world_errhandler();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  auto built = [&](CommStep& st, int rc, const char* call) {
    std::optional<std::string> mine;
    if (rc != MPI_SUCCESS) mine = std::string(call) + " returned error code " + std::to_string(rc) + " (" +
                                  blackbox::error_text(rc) + ")";
    st.not_built = agree_on_failure(mine, me, size);
    // A communicator some rank did not get is never used (nor freed: freeing
    // is collective over ranks that may not hold it).
    if (st.not_built) st.comm = MPI_COMM_NULL;
    steps.push_back(st);
  };
  auto split = [&](int color, int key, int part_size, const std::string& label) {
    CommStep st;
    st.size = part_size;
    st.label = label;
    if (base_failed) {
      st.not_built = base_failed;
      steps.push_back(st);
      return;
    }
    built(st, MPI_Comm_split(base, color, key, &st.comm), "MPI_Comm_split");
  };
  auto world_step = [&](const std::string& label) {
    steps.push_back(CommStep{base_failed ? MPI_COMM_NULL : base, size, label, true, base_failed});
  };
  auto add = [&](const std::string& word) {
    if (word == "world") {
      world_step("");
    } else if (word == "dup") {
      CommStep st{MPI_COMM_NULL, size, "on a duplicate of MPI_COMM_WORLD", true, base_failed};
      if (base_failed) steps.push_back(st);
      else built(st, MPI_Comm_dup(base, &st.comm), "MPI_Comm_dup");
    } else if (word == "reversed") {
      split(0, size - 1 - me, size, "on MPI_COMM_WORLD reversed (rank r is world rank p-1-r)");
    } else if (word.rfind("split", 0) == 0) {
      int k = 1;  // plain split: the largest proper divisor of p (p/2 for even p, 1 for a prime)
      for (int d = 2; d * d <= size; ++d)
        if (size % d == 0) {
          k = size / d;
          break;
        }
      if (word.size() > 5) {
        if (word[5] != ':') throw UsageError{"unknown --comm '" + word + "' (world, dup, reversed, split[:K], sequence, all)"};
        k = static_cast<int>(parse_uint_option("comm split:K", word.substr(6), 1, INT_MAX));
      }
      if (k < 1 || size % k != 0)
        throw UsageError{"--comm " + word + ": parts of " + std::to_string(k) + " ranks do not divide p = " +
                         std::to_string(size)};
      split(me / k, me, k, "on a split of MPI_COMM_WORLD into " + std::to_string(size / k) + " parts of " +
                               std::to_string(k) + " consecutive ranks, all called at once");
    } else if (word == "sequence") {
      world_step("in a sequence of communicators, first the world");
      split(me < size - 1 ? 0 : MPI_UNDEFINED, me, size - 1,
            "in a sequence of communicators, then the world's first p-1 ranks");
      world_step("in a sequence of communicators, then the world again");
    } else {
      throw UsageError{"unknown --comm '" + word + "' (world, dup, reversed, split[:K], sequence, all)"};
    }
  };
  const std::vector<std::string> words = comm_spec_words(spec);
  if (words != std::vector<std::string>{"world"} && size < 2)
    throw UsageError{"--comm " + spec + " needs at least 2 ranks (run under mpirun -np P)"};
  for (const std::string& w : words) add(w);
  restore_world_errhandler(previous);
  return steps;
}

// ---- control variables (--cvar) -----------------------------------------------
//
// One job for many algorithms: Open MPI's coll/tuned reads its forced
// algorithm (coll_tuned_<coll>_algorithm, with coll_tuned_use_dynamic_rules
// set at launch) when a communicator is made, and the MPI tool interface
// writes it at run time. So for each value in turn the variable is written
// on every rank and the whole check runs on communicators made after the
// write, the world's duplicate in place of MPI_COMM_WORLD (made at
// MPI_Init, before any write). scripts/backends batches an Open MPI sweep's
// algorithms so (a 16-rank launch costs about 2 s, a run fraction of it) and
// reruns anything that is not "holds" in its own job with the algorithm
// forced at launch, the command it reports.
struct CvarSetting {
  bool active = false;
  std::string name, text;  // the variable and the value as given
  int index = -1, value = 0;
};

// An int control variable of no MPI object: its index and its enumeration's
// (value, name) pairs, if it has one. UsageError otherwise.
struct CvarInfo {
  int index = -1;
  std::vector<std::pair<int, std::string>> items;
};

#ifdef COLLCHECK_SMPI
// SMPI has no tool interface: its algorithm for a collective is chosen with
// --cvar smpi/<collective>=NAME[,NAME...] (SimGrid's own setter, the one
// --cfg=smpi/<collective>:<name> reaches at launch), or at launch.
[[noreturn]] void no_tool_interface(const std::string& option) {
  throw UsageError{option + ": SMPI has no MPI tool interface (MPI_T): choose a collective's algorithm with "
                            "--cvar smpi/<collective>=NAME[,NAME...] or scripts/smpi --cfg=smpi/<collective>:<name>"};
}
#else
CvarInfo cvar_info(const std::string& name) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
    throw UsageError{"--cvar: this MPI library's tool interface (MPI_T) does not start"};
  int index = -1;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS)
    throw UsageError{"--cvar: this MPI library has no control variable '" + name + "'"};
  char vname[256];
  char desc[16];
  int vlen = sizeof vname, dlen = sizeof desc, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum values = MPI_T_ENUM_NULL;
  MPI_T_cvar_get_info(index, vname, &vlen, &verbosity, &type, &values, desc, &dlen, &bind, &scope);
  if (type != MPI_INT) throw UsageError{"--cvar " + name + ": only int control variables are supported"};
  if (bind != MPI_T_BIND_NO_OBJECT) throw UsageError{"--cvar " + name + ": it is bound to an MPI object, not global"};
  std::vector<std::pair<int, std::string>> items;  // the enumeration's (value, name), if it has one
  if (values != MPI_T_ENUM_NULL) {
    int n = 0, len = 0;
    char ename[256];
    len = sizeof ename;
    MPI_T_enum_get_info(values, &n, ename, &len);
    for (int k = 0; k < n; ++k) {
      int v = 0;
      char iname[256];
      int ilen = sizeof iname;
      MPI_T_enum_get_item(values, k, &v, iname, &ilen);
      items.emplace_back(v, iname);
    }
  }
  return CvarInfo{index, std::move(items)};
}
#endif

// --cvar NAME=V1[,V2...] split (InputError for another form or an empty
// value); whether NAME and the values exist is known in the job only.
std::pair<std::string, std::vector<std::string>> cvar_spec(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw InputError("--cvar takes NAME=V1[,V2...], got " + quote_input(spec));
  return {spec.substr(0, eq), list_items("cvar", spec.substr(eq + 1))};
}

#ifdef COLLCHECK_SMPI
std::vector<CvarSetting> cvar_settings(const std::string& spec) {
  if (spec.empty()) return {CvarSetting{}};
  const auto [name, values] = cvar_spec(spec);
  if (name.rfind("smpi/", 0) != 0) no_tool_interface("--cvar " + name);
  std::vector<CvarSetting> out;
  for (const std::string& item : values) {
    if (item.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
      throw UsageError{"--cvar " + name + ": '" + item + "' is not a name of SMPI's algorithms (letters, digits, _)"};
    out.push_back(CvarSetting{true, name, item, -1, 0});
  }
  return out;
}
#else
std::vector<CvarSetting> cvar_settings(const std::string& spec) {
  if (spec.empty()) return {CvarSetting{}};
  const auto [name, values] = cvar_spec(spec);
  const auto [index, items] = cvar_info(name);
  std::vector<CvarSetting> out;
  for (const std::string& item : values) {
    CvarSetting cv{true, name, item, index, 0};
    const bool number = !item.empty() && item.find_first_not_of("0123456789") == std::string::npos && item.size() < 10;
    auto known = [&] {
      std::string list;
      for (const auto& [v, n] : items) list += (list.empty() ? "" : ", ") + std::to_string(v) + " (" + n + ")";
      return list;
    };
    if (number) {
      cv.value = std::stoi(item);
      if (!items.empty() && std::none_of(items.begin(), items.end(), [&](const auto& x) { return x.first == cv.value; }))
        throw UsageError{"--cvar " + name + ": " + item + " is not one of its values: " + known()};
    } else {
      auto it = std::find_if(items.begin(), items.end(), [&](const auto& x) { return x.second == item; });
      if (it == items.end())
        throw UsageError{"--cvar " + name + ": '" + item + "' is " +
                         (items.empty() ? std::string("not an integer (the variable has no named values)")
                                        : "not one of its values: " + known())};
      cv.value = it->first;
    }
    out.push_back(cv);
  }
  if (out.empty()) throw UsageError{"--cvar " + name + " needs at least one value"};
  return out;
}
#endif

// --cvar-show NAME: the value the library holds (read through MPI_T), e.g.
// the one it parsed from its environment: MPICH's algorithm variables take
// names there but have no named values in MPI_T, so scripts/backends learns
// each name's number this way before it batches MPICH's algorithms.
#ifdef COLLCHECK_SMPI
int read_cvar(const std::string&) { no_tool_interface("--cvar-show"); }
void write_cvar(const CvarSetting& cv) {
  MPI_Barrier(MPI_COMM_WORLD);  // every rank is past the calls of the algorithm chosen before
  if (auto why = smpi::select_algorithm(cv.name.substr(5), cv.text)) throw UsageError{"--cvar " + cv.name + ": " + *why};
}
#else
int read_cvar(const std::string& name) {
  const CvarInfo info = cvar_info(name);
  MPI_T_cvar_handle handle;
  int count = 0, value = 0;
  if (MPI_T_cvar_handle_alloc(info.index, nullptr, &handle, &count) != MPI_SUCCESS || count != 1 ||
      MPI_T_cvar_read(handle, &value) != MPI_SUCCESS)
    throw UsageError{"--cvar-show " + name + ": the library does not let it be read"};
  MPI_T_cvar_handle_free(&handle);
  return value;
}

void write_cvar(const CvarSetting& cv) {
  MPI_T_cvar_handle handle;
  int count = 0;
  int value = cv.value;
  if (MPI_T_cvar_handle_alloc(cv.index, nullptr, &handle, &count) != MPI_SUCCESS ||
      MPI_T_cvar_write(handle, &value) != MPI_SUCCESS)
    throw UsageError{"--cvar " + cv.name + "=" + cv.text + ": the library does not let it be written at run time"};
  MPI_T_cvar_handle_free(&handle);
}
#endif

// One black-box result as JSON (what the report prints; no trace: --trace
// runs on the world only), and back.
nlohmann::json result_json(const blackbox::BlackBoxResult& r) {
  nlohmann::json j = nlohmann::json::array();
  for (const blackbox::PayloadResult& x : r.payloads)
    j.push_back({{"payload", blackbox::to_string(x.payload)}, {"runs", x.runs}, {"call", x.mpi_shape},
                 {"defect", x.defect ? nlohmann::json(*x.defect) : nlohmann::json(nullptr)},
                 {"refusal", x.refusal ? nlohmann::json(*x.refusal) : nlohmann::json(nullptr)},
                 {"other_ranks", x.other_ranks ? nlohmann::json(*x.other_ranks) : nlohmann::json(nullptr)},
                 {"seconds", x.seconds}});
  return j;
}
blackbox::BlackBoxResult result_from_json(const nlohmann::json& j) {
  blackbox::BlackBoxResult r;
  for (const nlohmann::json& x : j) {
    blackbox::PayloadResult p;
    p.payload = *blackbox::payload_from_string(x.at("payload").get<std::string>());
    p.runs = x.at("runs").get<int>();
    p.mpi_shape = x.at("call").get<std::string>();
    if (!x.at("defect").is_null()) p.defect = x.at("defect").get<std::string>();
    if (!x.at("refusal").is_null()) p.refusal = x.at("refusal").get<std::string>();
    if (!x.at("other_ranks").is_null()) p.other_ranks = x.at("other_ranks").get<std::string>();
    p.seconds = x.at("seconds").get<double>();
    r.payloads.push_back(std::move(p));
  }
  return r;
}

// Every part leader's result at world rank 0, in world-rank order of the
// leaders (part order); empty elsewhere.
std::vector<blackbox::BlackBoxResult> gather_results(const std::optional<blackbox::BlackBoxResult>& mine) {
  std::vector<blackbox::BlackBoxResult> out;
  for (const auto& [rank, text] : blackbox::gather_texts(mine ? result_json(*mine).dump() : std::string(), MPI_COMM_WORLD))
    out.push_back(result_from_json(nlohmann::json::parse(text)));
  return out;
}

// What a black-box run takes from its command line, checked before MPI_Init
// (check_black_box, below): everything but what depends on p, on the MPI
// library (--cvar's variable, --native's MPI_Count binding) or on
// --function's library.
struct BlackBoxRequest {
  blackbox::Coll coll{};
  blackbox::RunOptions run;  // dtype, in place, seed, timeout, root, payloads, trace
  std::vector<uint64_t> counts;
  bool need_pow2 = false, need_even = false, need_count_ge_p = false;  // --require
  blackbox::CountType count_type = blackbox::CountType::int32;
  // --conforms ALGO[/VARIANT] (with --trace): the registry entry to compare with.
  const AlgorithmInfo* conforms_algo = nullptr;
  const VariantInfo* conforms_variant = nullptr;
};

// The registry schedule --conforms names, at this job's p (UsageError, on
// every rank alike, where the variant does not allow p or the traced
// schedule could not be compared with it).
std::optional<ConformsTo> conforms_to(const BlackBoxRequest& q, uint64_t count, int size) {
  if (!q.conforms_variant) return std::nullopt;
  InstanceParams ip;
  ip.p = static_cast<uint64_t>(size);
  ip.root = static_cast<Rank>(q.run.root);
  ConformsTo c{q.conforms_algo->name + "/" + q.conforms_variant->name, nullptr};
  if (auto why = q.conforms_variant->violates(ip))
    throw UsageError{"--conforms " + c.name + ": not at p = " + std::to_string(size) + ": " + *why};
  c.schedule = q.conforms_variant->make(ip);
  const trace::TraceSpec ts = blackbox::trace_spec(q.coll, ip.p, count, q.run.root);
  if (auto why = trace::incomparable(ts.collective, c.schedule->spec()))
    throw UsageError{"--conforms " + c.name + ": " + *why};
  return c;
}

// InputError unless rank 0 can write --trace FILE: its directory writable
// (the file itself is made only if a schedule is), FILE not a directory.
void check_trace_writable(const std::string& path) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0 ||
      std::filesystem::is_directory(path, ec))
    throw InputError("--trace: cannot write '" + path + "'");
}

int run_black_box(const std::string& native, const std::string& function, const BlackBoxRequest& q,
                  const std::string& format, const std::string& trace_out, const std::string& comm_s,
                  const std::string& cvar_s, int me, int size) {
  namespace bb = blackbox;
  const DType dtype = q.run.dtype;
  const std::optional<bb::Coll> coll = q.coll;
  bb::RunOptions o = q.run;
  const std::vector<uint64_t>& counts = q.counts;
  const bool need_pow2 = q.need_pow2, need_even = q.need_even, need_count_ge_p = q.need_count_ge_p;
  auto outside_contract = [&](uint64_t count, int csize) -> std::optional<std::string> {
    const uint64_t p = static_cast<uint64_t>(csize);
    if (need_pow2 && (p & (p - 1)) != 0) return "--require pow2: p = " + std::to_string(p) + " is not a power of two";
    if (need_even && p % 2 != 0) return "--require even: p = " + std::to_string(p) + " is odd";
    if (need_count_ge_p && count < p)
      return "--require count>=p: count " + std::to_string(count) + " < p = " + std::to_string(p);
    return std::nullopt;
  };
  if (o.trace) {  // rank 0 writes the file: find out now, on every rank, whether it can
    int writable = 1;
    std::string why;
    if (me == 0) {
      try {
        check_trace_writable(trace_out);
      } catch (const InputError& e) {
        writable = 0;
        why = e.what();
      }
    }
    MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!writable) throw UsageError{why};
  }
  // The library under test is an input: --trace never writes over it, by
  // identity (a symbolic or hard link to it too), as check-file and report
  // refuse an --out that is their input. Rank 0 writes the file, so rank 0
  // decides, before the library is loaded and again for the file the loader
  // actually opened (a name found through the library search path).
  auto refuse_trace_over = [&](const std::string& library) {
    int refused = 0;
    std::string why;
    if (me == 0) {
      try {
        refuse_output_over_input("--trace", trace_out, "the --function library", library);
      } catch (const InputError& e) {
        refused = 1;
        why = e.what();
      }
    }
    MPI_Bcast(&refused, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (refused) throw UsageError{why};
  };
  if (o.trace && !function.empty()) refuse_trace_over(function.substr(0, function.rfind(':')));
  bb::Target t;
  t.coll = *coll;
  t.name = native.empty() ? function : bb::mpi_name(*coll);
  if (native.size())  // an interposer answering for the library is named, not taken for it
    if (auto from = bb::foreign_provider(t.name))
      t.name += " from " + *from + " (not the MPI library's: LD_PRELOAD or link order put it first)";
  t.count_type = q.count_type;
  if (t.count_type != bb::CountType::int32) {
    if (!native.empty()) {
      if (auto why = bb::load_large_count_binding(*coll, t.function)) throw UsageError{*why};
      t.name = bb::mpi_name(*coll) + "_c";
    }
  }
  // Under SMPI, which of its algorithms the simulation runs (--cfg=smpi/<coll>:<name>).
  const std::string name_without_algorithm = t.name;
  if (native.size()) t.name += smpi::algorithm_in_force(bb::mpi_name(*coll));
  // From here to the end of the job a crash, a stack overflow or a hang ends
  // it with a line naming the rank and what ran (a library's constructor too).
  bb::install_crash_report(g_rank);
  if (!function.empty()) {
    const std::string library = function.substr(0, function.rfind(':'));
    bb::set_crash_line(" crashed while loading the --function library '" + library + "' (in its constructor)");
    bb::arm_watchdog("loading the --function library '" + library + "'", o.timeout_seconds + bb::kOwnWorkSeconds,
                     bb::PhaseKind::own_work);
    g_running = " while loading the --function library '" + library + "',";
    if (auto why = bb::load_function(function, t.function)) throw UsageError{*why};
    g_running = " while " + function + " (--function) ran,";
  }
  if (o.trace && t.function) {
    Dl_info info{};
    if (dladdr(t.function, &info) && info.dli_fname && *info.dli_fname) refuse_trace_over(info.dli_fname);
  }
  Status overall = Status::holds;
  bool refused = false;  // some call returned an error code inside the contract (and none was wrong)
  uint64_t called = 0;   // counts inside the contract
  std::optional<std::string> write_error;  // rank 0: the --trace file could not be written
  const bool rooted = *coll == bb::Coll::reduce || *coll == bb::Coll::bcast;
  bb::start_bookkeeping();
  const std::vector<CvarSetting> settings = cvar_settings(cvar_s);
  for (const CvarSetting& cv : settings) {
  if (cv.active) write_cvar(cv);
  if (cv.active && native.size()) t.name = name_without_algorithm + smpi::algorithm_in_force(bb::mpi_name(*coll));
  const std::string setting = cv.active ? " with " + cv.name + "=" + cv.text : "";
  auto tagged = [&](nlohmann::json j) {
    if (cv.active) j["cvar"] = {{"name", cv.name}, {"value", cv.text}};
    return j;
  };
  // --cvar: every communicator descends from a duplicate of the world made
  // after the write (its collectives, those MPI_Comm_split runs included, are
  // the forced ones, as MPI_COMM_WORLD's are when the algorithm is forced at
  // launch).
  MPI_Comm base = MPI_COMM_WORLD;
  std::optional<std::string> base_failed;
  if (cv.active) {
    const MPI_Errhandler previous = save_world_errhandler();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &base);
    restore_world_errhandler(previous);
    base_failed = agree_on_failure(rc == MPI_SUCCESS ? std::nullopt
                                                     : std::optional<std::string>("MPI_Comm_dup returned error code " +
                                                                                  std::to_string(rc) + " (" +
                                                                                  bb::error_text(rc) + ")"),
                                   me, size);
    if (base_failed) base = MPI_COMM_NULL;
    else MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  }
  const std::vector<CommStep> steps = comm_plan(comm_s, me, size, base, base_failed);
  if (rooted)  // the world's own check is run_blackbox's
    for (const CommStep& st : steps)
      if (!st.label.empty() && o.root >= st.size)
        throw UsageError{"--root " + std::to_string(o.root) + " is not a rank of the " + std::to_string(st.size) +
                         "-rank communicator " + st.label};
  for (uint64_t count : counts) {
  o.count = count;
  const std::optional<ConformsTo> conforms = conforms_to(q, count, size);
  for (const CommStep& st : steps) {
  const int csize = st.size;  // this step's communicator size (every part of a split alike)
  const std::string where = setting + (st.label.empty() ? "" : " " + st.label);
  if (auto why = outside_contract(count, csize)) {
    if (me == 0) {
      if (format == "json")
        std::cout << tagged(nlohmann::json{{"tool", "collcheck-mpi"}, {"target", t.name},
                                           {"collective", bb::to_string(*coll)}, {"p", csize}, {"comm", st.label},
                                           {"count", count}, {"status", "outside-contract"}, {"reason", *why}})
                         .dump()
                  << "\n";
      else
        std::cout << "collcheck-mpi: " << escape_controls(t.name) << " (" << bb::to_string(*coll) << ")" << where
                  << " p=" << csize << " count=" << count << ": outside its contract (" << escape_controls(*why)
                  << "): not called\n";
    }
    continue;
  }
  ++called;
  if (st.not_built) {  // the library refused to build the communicator: a refusal, not a result
    refused = true;
    if (me == 0) {
      const std::string why = "the communicator was not built: " + *st.not_built;
      if (format == "json")
        std::cout << tagged(nlohmann::json{{"tool", "collcheck-mpi"},
                                           {"mode", native.empty() ? "function" : "native"},
                                           {"target", t.name}, {"collective", bb::to_string(*coll)}, {"p", csize},
                                           {"comm", st.label}, {"count", count}, {"status", "refused"},
                                           {"refusal", why}, {"payloads", nlohmann::json::array()}})
                         .dump()
                  << "\n";
      else
        std::cout << "collcheck-mpi: " << escape_controls(t.name) << " (" << bb::to_string(*coll) << ")" << where
                  << " p=" << csize << " count=" << count << ": refused (an error code, not a result): "
                  << escape_controls(why) << ": not called\n";
    }
    continue;
  }
  // Every part of the step calls at once; each part's rank 0 holds its result,
  // and world rank 0 reports every part's (gathered as JSON, in part order).
  std::vector<bb::BlackBoxResult> parts;
  {
    bb::BlackBoxResult mine;
    bool leader = false;
    if (st.comm != MPI_COMM_NULL) {
      o.comm_words = comm_words(st, steps);
      mine = bb::run_blackbox(t, o, st.comm);  // std::invalid_argument: bad input
      int crank = 0;
      MPI_Comm_rank(st.comm, &crank);
      leader = crank == 0;
    }
    // A rank outside this step's communicators only waits for the parts,
    // whose ranks' watchdogs guard their calls: it has no deadline of its own.
    if (st.comm == MPI_COMM_NULL) bb::disarm_watchdog();
    if (st.world) parts.push_back(std::move(mine));
    else parts = gather_results(leader ? std::optional<bb::BlackBoxResult>(std::move(mine)) : std::nullopt);
    if (st.comm == MPI_COMM_NULL)
      bb::arm_watchdog("collcheck-mpi's own work after the calls " + st.label, o.timeout_seconds + bb::kOwnWorkSeconds,
                       bb::PhaseKind::own_work);
  }
  for (size_t part = 0; part < parts.size(); ++part) {
  const bb::BlackBoxResult& res = parts[part];
  const std::string part_label = parts.size() > 1 ? where + " (part " + std::to_string(part) + " of " +
                                                         std::to_string(parts.size()) + ")"
                                                   : where;
  if (res.wrong()) overall = Status::violated;
  else if (!res.holds()) refused = true;
  auto payload_status = [](const bb::PayloadResult& r) { return r.defect ? "violated" : r.refusal ? "refused" : "holds"; };
  const char* const count_status = res.wrong() ? "violated" : res.holds() ? "holds" : "refused";
  if (me == 0) {
    if (format == "json") {
      nlohmann::json j{{"tool", "collcheck-mpi"},
                       {"mode", native.empty() ? "function" : "native"},
                       {"target", t.name},
                       {"collective", bb::to_string(*coll)},
                       {"p", csize},
                       {"comm", st.label},
                       {"count", o.count},
                       {"dtype", to_string(dtype)},
                       {"root", rooted ? nlohmann::json(o.root) : nlohmann::json(nullptr)},
                       {"in_place", o.in_place},
                       {"seed", o.seed},
                       {"count_type", bb::to_string(t.count_type)},
                       {"heap_check", bb::heap_check_words()},
                       {"status", count_status}};
      j["payloads"] = nlohmann::json::array();
      for (const bb::PayloadResult& r : res.payloads) {
        j["payloads"].push_back({{"payload", bb::to_string(r.payload)},
                                 {"runs", r.runs},
                                 {"call", r.mpi_shape},
                                 {"status", payload_status(r)},
                                 {"defect", r.defect ? nlohmann::json(*r.defect) : nlohmann::json(nullptr)},
                                 {"refusal", r.refusal ? nlohmann::json(*r.refusal) : nlohmann::json(nullptr)},
                                 {"other_ranks", r.other_ranks ? nlohmann::json(*r.other_ranks) : nlohmann::json(nullptr)},
                                 {"seconds", r.seconds}});
        if (r.trace) {
          overall = worst(overall, report_trace(*r.trace, "", t.name, trace_out, format, j["trace"], write_error,
                                                    conforms ? &*conforms : nullptr));
          j["status"] = to_string(overall);
        }
      }
      std::cout << tagged(j).dump() << "\n";
    } else {
      // The target names the user's --function library and symbol: escaped,
      // as every value the library's results quote below.
      const std::string head = "collcheck-mpi: " + escape_controls(t.name) + " (" + bb::to_string(*coll) +
                               (rooted ? ", root " + std::to_string(o.root) : "") + ")" + part_label +
                               " p=" + std::to_string(csize) +
                               " count=" + std::to_string(o.count) +
                               (t.count_type != bb::CountType::int32 ? std::string(" (") + bb::to_string(t.count_type) + ")" : "") +
                               " " + to_string(dtype) + (o.in_place ? " in-place" : "");
      std::string names;
      Status traced = Status::holds;
      for (const bb::PayloadResult& r : res.payloads) {
        names += (names.empty() ? "" : ", ") + std::string(bb::to_string(r.payload));
        std::cout << head << ": " << bb::to_string(r.payload) << " (" << r.runs << (r.runs == 1 ? " call, " : " calls, ")
                  << escape_controls(r.mpi_shape) << "): "
                  << escape_controls(r.defect    ? "violated: " + *r.defect + (r.other_ranks ? " (" + *r.other_ranks + ")" : "")
                                     : r.refusal ? "refused (an error code, not a result): " + *r.refusal
                                                 : std::string("holds"))
                  << "\n";
        if (r.trace) {
          nlohmann::json unused;
          traced = report_trace(*r.trace, head, t.name, trace_out, format, unused, write_error,
                                conforms ? &*conforms : nullptr);
          overall = worst(overall, traced);
        }
      }
      std::cout << head << ": "
                << (res.wrong() || traced == Status::violated ? std::string("violated")
                    : !res.holds() ? std::string("refused inside its contract: the call is legal MPI and meets every "
                                                 "--require given (--require declares what the implementation documents)")
                    : traced == Status::unknown ? "holds for every payload (" + names + "), but the trace is unknown"
                                                : "holds for every payload (" + names + ")")
                << "; heap check: " << bb::heap_check_words() << "\n";
    }
    std::cout.flush();  // a later count may hang: what is decided stays printed
  }
  }
  }
  }
  for (CommStep st : steps)
    if (st.comm != MPI_COMM_NULL && st.comm != MPI_COMM_WORLD && st.comm != base) MPI_Comm_free(&st.comm);
  if (base != MPI_COMM_WORLD && base != MPI_COMM_NULL) MPI_Comm_free(&base);
  }  // settings
  g_running.clear();
  bb::set_crash_line(" crashed in collcheck-mpi's own code after the last call (a heap corruption glibc detected late; "
                     "every verdict printed before this line was confirmed by every rank)");
  bb::arm_watchdog("collcheck-mpi's end of the job (MPI_Finalize)", o.timeout_seconds + bb::kOwnWorkSeconds,
                   bb::PhaseKind::own_work);
  // A lost output is a failed run (exit 2), not a verdict: rank 0 prints it,
  // once. Every rank ends with rank 0's code (main), the trace is judged there.
  if (write_error) throw InputError(*write_error);
  if (called == 0) return kSkipped;  // every count outside the contract: nothing was decided
  return overall == Status::violated || refused ? kViolated : overall == Status::unknown ? kUnknown : kHolds;
}

// collcheck-mpi's option table (the parser, --help, the man page and the
// bash completion read it), with the values it fills.
struct CommandLine {
  std::string algo, variant, schedule_file, dtype_s = "int64", format = "text", count_s, seed_s;
  std::string native, function, collective, payload_s, timeout_s, trace_out, require_s, count_type_s, comm_s, cvar_s;
  std::string conforms;
  bool in_place = false;
};

po::options_description mpi_options(CommandLine& o) {
  po::options_description desc("collcheck-mpi options");
  auto& [algo, variant, schedule_file, dtype_s, format, count_s, seed_s, native, function, collective, payload_s,
         timeout_s, trace_out, require_s, count_type_s, comm_s, cvar_s, conforms, in_place] = o;
  desc.add_options()("help,h", "show this help")(
      "algo", po::value(&algo), "registry algorithm (swing, ring, traff, traff-allgather, ...)")(
      "variant", po::value(&variant), "variant (default: the algorithm's first)")(
      "schedule", po::value(&schedule_file), "a schedule file instead of --algo: JSON or JSON lines (docs/schedule-format.md)")(
      "dtype", po::value(&dtype_s)->default_value("int64"), "int64, int32, float or double")(
      "count", po::value(&count_s)->default_value("1000"), "elements of the vector (>= number of blocks, <= INT_MAX)")(
      "seed", po::value(&seed_s)->default_value("1"), "input seed (0..2^64-1)")(
      "format", po::value(&format)->default_value("text"), "text or json")(
      "native", po::value(&native),
      "black box: the MPI library's own collective on exact-multiplicity payloads (allreduce, reduce, "
      "reduce-scatter-block, reduce-scatter, allgather, bcast, alltoall)")(
      "function", po::value(&function), "black box: LIBRARY:SYMBOL, a function with the standard MPI signature of --collective")(
      "collective", po::value(&collective), "black box: the collective --function implements")(
      "payload", po::value(&payload_s),
      "black box: one-hot, counters, counters-op, tagged-counters, noncommutative, ordered, power-sums, source-tagged (comma list; default: every one that applies)")(
      "in-place", po::bool_switch(&in_place), "black box: pass MPI_IN_PLACE")(
      "comm", po::value(&comm_s),
      "black box: the communicator(s) it is called on: world (default), dup, reversed, split[:K] (parts of K "
      "ranks called at once; K divides p, default its largest proper divisor), sequence (the world, its first p-1 ranks, the world), all")(
      "cvar", po::value(&cvar_s),
      "black box: NAME=V1[,V2...]: for each value in turn, write the MPI tool-interface control variable NAME "
      "(MPI_T_cvar_write; an integer, or a name of the variable's enumeration) and run the whole check on "
      "communicators made after the write (the world's duplicate included), one job for many algorithms: "
      "Open MPI's coll_tuned_<coll>_algorithm, with coll_tuned_use_dynamic_rules=1 set at launch; under SMPI, "
      "smpi/<collective>=NAME,... chooses SMPI's algorithms (allreduce, reduce_scatter, allgather, bcast, reduce, "
      "alltoall)")(
      "cvar-show", po::value<std::string>(),
      "NAME: print NAME=VALUE, the int control variable's value in this job as the library holds it (MPI_T), "
      "and exit")(
      "count-type", po::value(&count_type_s),
      "black box: the count argument's type, int (default), size_t (--function) or MPI_Count (--function, or "
      "--native's MPI-4 _c binding); the symbol's type cannot be read from the library: say it")(
      "require", po::value(&require_s),
      "black box: the implementation's documented preconditions, a comma list of pow2, even, count>=p, "
      "commutative: calls outside them are not made (exit 77 if none is); a refusal inside them is a defect")(
      "timeout", po::value(&timeout_s)->default_value("60"),
      "black box: seconds one call may take (then exit 3); a schedule run takes none")(
      "trace", po::value(&trace_out),
      "black box: record every point-to-point message of the call, write the schedule they form to FILE, check it")(
      "conforms", po::value(&conforms),
      "with --trace: ALGO[/VARIANT], compare the traced schedule with the registry's at this p, message by message "
      "(step, rank, peer, elements, copy or reduce): the first difference, or what the conforming run inherits");
  add_instance_options(desc);
  return desc;
}

// ---- the command line, checked whole before MPI_Init -------------------------
//
// check_command_line is the one check of what the options say: --dry-run
// makes it and stops, a run makes it first on every rank (the same input,
// so every rank agrees). What depends on p (the communicator size), on
// the MPI library or on an input file is checked in the run only.

// --conforms ALGO[/VARIANT]: a registry entry of the collective traced.
void check_conforms(const std::string& spec, BlackBoxRequest& q) {
  if (!q.run.trace) throw InputError("--conforms compares a traced schedule with the registry's: it needs --trace FILE");
  const size_t slash = spec.find('/');
  const std::string algo = spec.substr(0, slash), variant = slash == std::string::npos ? "" : spec.substr(slash + 1);
  q.conforms_algo = find_algorithm(algo);
  if (!q.conforms_algo)
    throw InputError("--conforms: unknown algorithm " + quote_input(algo) + " (known: " + known_algorithms() + ")");
  q.conforms_variant = variant.empty() ? &q.conforms_algo->default_variant() : q.conforms_algo->find_variant(variant);
  if (!q.conforms_variant)
    throw InputError("--conforms: unknown variant " + quote_input(variant) + " of " + algo + " (known: " +
                     known_variants(*q.conforms_algo) + ")");
  const Collective traced = blackbox::trace_spec(q.coll, 1, q.counts.front(), 0).collective.kind;
  if (traced != q.conforms_algo->collective)
    throw InputError("--conforms " + spec + ": " + algo + " is " + to_string(q.conforms_algo->collective) +
                     ", the traced call is " + to_string(traced));
}

BlackBoxRequest check_black_box(const po::variables_map& vm, const CommandLine& line, DType dtype) {
  namespace bb = blackbox;
  auto colls = [] {
    std::string s;
    for (bb::Coll c : bb::all_colls()) s += (s.empty() ? "" : ", ") + std::string(bb::to_string(c));
    return s;
  };
  const std::string &native = line.native, &function = line.function;
  if (native.empty() == function.empty())
    throw InputError("a black-box run takes exactly one of --native COLL and --function LIB:SYMBOL --collective COLL");
  for (const char* o : {"algo", "variant", "schedule", "n", "dims", "radix", "radix2", "ppn"})
    if (vm.count(o)) throw InputError(std::string("--") + o + " is for schedules; a black-box run (--native, --function) does not take it");
  if (!native.empty() && !line.collective.empty())
    throw InputError("--native names the collective itself; --collective goes with --function");
  const std::string cname = native.empty() ? line.collective : native;
  if (cname.empty()) throw InputError("--function needs --collective (" + colls() + ")");
  const auto coll = bb::coll_from_string(cname);
  if (!coll) throw InputError("unknown collective '" + cname + "' (known: " + colls() + ")");
  if (const size_t colon = function.rfind(':');
      !function.empty() && (colon == std::string::npos || colon == 0 || colon + 1 == function.size()))
    throw InputError("--function takes LIBRARY:SYMBOL (e.g. ./libmine.so:my_allreduce), got " + quote_input(function));
  BlackBoxRequest q;
  q.coll = *coll;
  q.run.dtype = dtype;
  q.run.in_place = line.in_place;
  // A comma list of counts runs each in turn in one job (scripts/backends
  // saves a launch per count); 0 is a count worth checking here.
  for (const std::string& item : list_items("count", line.count_s))
    q.counts.push_back(parse_uint_option("count", item, 0, INT_MAX));
  q.run.seed = parse_uint_option("seed", line.seed_s, 0, UINT64_MAX);
  q.run.timeout_seconds = static_cast<double>(parse_uint_option("timeout", line.timeout_s, 1, 86400));
  if (vm.count("root")) q.run.root = static_cast<int>(parse_uint_option("root", vm["root"].as<std::string>(), 0, INT_MAX));
  if (!line.payload_s.empty() && line.payload_s != "all")
    for (const std::string& item : list_items("payload", line.payload_s)) {
      auto pl = bb::payload_from_string(item);
      if (!pl) throw InputError("unknown --payload '" + item + "' (one-hot, counters, counters-op, tagged-counters, noncommutative, ordered, power-sums, source-tagged, all)");
      q.run.payloads.push_back(*pl);
    }
  // The implementation's documented preconditions (--require): a call outside
  // them is not made ("outside its contract"); a refusal inside them is a
  // defect, reported as refused, apart from wrong results.
  bool need_commutative = false;
  if (!line.require_s.empty())
    for (const std::string& w : list_items("require", line.require_s)) {
      if (w == "pow2") q.need_pow2 = true;
      else if (w == "even") q.need_even = true;
      else if (w == "count>=p") q.need_count_ge_p = true;
      else if (w == "commutative") need_commutative = true;
      else throw InputError("unknown --require '" + w + "' (pow2, even, count>=p, commutative; a comma list)");
    }
  if (need_commutative) {
    for (bb::Payload pl : {bb::Payload::noncommutative, bb::Payload::ordered})
      if (std::find(q.run.payloads.begin(), q.run.payloads.end(), pl) != q.run.payloads.end())
        throw InputError(std::string("--payload ") + bb::to_string(pl) + " is outside --require commutative");
    if (q.run.payloads.empty())
      for (bb::Payload pl : bb::payloads_for(*coll))
        if (pl != bb::Payload::noncommutative && pl != bb::Payload::ordered) q.run.payloads.push_back(pl);
  }
  q.run.trace = !line.trace_out.empty();
  if (q.run.trace && q.counts.size() != 1) throw InputError("--trace takes one --count (it writes one schedule file)");
  try {
    for (const uint64_t count : q.counts) {
      bb::RunOptions each = q.run;
      each.count = count;
      bb::check_run_options(*coll, each);
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  if (!line.count_type_s.empty()) {
    const auto ct = bb::count_type_from_string(line.count_type_s);
    if (!ct) throw InputError("unknown --count-type '" + line.count_type_s + "' (int, size_t or MPI_Count)");
    q.count_type = *ct;
  }
  if (q.count_type != bb::CountType::int32 && !bb::scalar_count(*coll))
    throw InputError(std::string("--count-type ") + bb::to_string(q.count_type) + " takes a collective with one count "
                     "(allreduce, reduce, reduce-scatter-block, allgather, bcast, alltoall), not " + cname);
  if (!native.empty() && q.count_type == bb::CountType::size)
    throw InputError("--native calls the MPI library, whose counts are int (or MPI_Count: --count-type MPI_Count "
                     "calls its MPI-4 _c binding); size_t is for --function");
  const std::vector<std::string> comm = comm_spec_words(line.comm_s);
  if (!line.cvar_s.empty()) (void)cvar_spec(line.cvar_s);
  if (q.run.trace && !line.cvar_s.empty()) throw InputError("--trace records the calls on MPI_COMM_WORLD; it takes no --cvar");
  if (q.run.trace && comm != std::vector<std::string>{"world"})
    throw InputError("--trace records the calls on MPI_COMM_WORLD; it takes no --comm other than world");
  // Under SMPI the recorder is reached through a preloaded shim (runtime/smpi/trace_shim.cpp).
  if (q.run.trace)
    if (auto why = smpi::trace_unavailable()) throw InputError(*why);
  if (!line.conforms.empty()) check_conforms(line.conforms, q);
  return q;
}

// What a schedule run takes from its command line; the schedule itself is
// made in the job (its restriction and its block count depend on p).
struct ScheduleRequest {
  const AlgorithmInfo* algorithm = nullptr;  // null: --schedule FILE
  const VariantInfo* variant = nullptr;
  SweepTarget target;  // with the instance options applied
  DType dtype = DType::int64;
  uint64_t count = 0, seed = 0;
};

ScheduleRequest check_schedule_run(const po::variables_map& vm, const CommandLine& line, DType dtype) {
  // A value that applies to nothing would be dropped silently.
  if (!vm["timeout"].defaulted())
    throw InputError("--timeout is for black-box runs (--native, --function): a schedule run has no call timeout");
  if (dtype == DType::int32)
    throw InputError("--dtype int32 is for black boxes (--native, --function): a schedule run marks undefined data "
                     "with a poison value that 32 bits cannot keep apart from sums (int64, float or double)");
  ScheduleRequest q;
  q.dtype = dtype;
  // Signed text refused, not wrapped around (Boost reads "-1" as 2^64 - 1).
  q.count = parse_uint_option("count", line.count_s, 1, INT_MAX);
  q.seed = parse_uint_option("seed", line.seed_s, 0, UINT64_MAX);
  if (!line.schedule_file.empty()) {
    for (const char* o : {"algo", "variant", "n", "root", "dims", "radix", "radix2", "ppn"})
      if (vm.count(o))
        throw InputError("--schedule takes the collective, p, blocks and root from the file; "
                         "it does not combine with --algo, --variant or the instance options (--" + std::string(o) +
                         " given)");
    return q;
  }
  if (line.algo.empty()) throw InputError("--algo or --schedule is required (algorithms: " + known_algorithms() + ")");
  q.algorithm = find_algorithm(line.algo);
  if (!q.algorithm) throw InputError("unknown algorithm '" + line.algo + "' (known: " + known_algorithms() + ")");
  // As verify: with --dims the default is the algorithm's first torus variant
  // (resolve_targets, checker/sweep/sweep.hpp).
  q.variant = line.variant.empty() ? resolve_targets(line.algo, "default", vm.count("dims") > 0).front().variant
                                   : q.algorithm->find_variant(line.variant);
  if (!q.variant)
    throw InputError("unknown variant '" + line.variant + "' of " + line.algo + " (known: " +
                     known_variants(*q.algorithm) + ")");
  std::vector<SweepTarget> targets{{q.algorithm, q.variant}};
  apply_instance_options(vm, targets);  // InputError for --n/--root on an allreduce, or out of range
  // One run is one schedule: a sweep over radices or shapes would run one
  // of them without saying which.
  if (targets.front().all_radices)
    throw InputError("--radix all is for sweeps (collcheck verify, run, prove); collcheck-mpi runs one schedule: "
                     "give one radix");
  if (targets.front().shapes.size() > 1)
    throw InputError("collcheck-mpi runs one schedule: give one --dims shape, not '" + vm["dims"].as<std::string>() + "'");
  q.target = targets.front();
  return q;
}

// The whole command line's check: exactly one of the two is set, or neither
// for --help and --cvar-show.
struct Request {
  std::optional<BlackBoxRequest> black_box;
  std::optional<ScheduleRequest> schedule;
};

Request check_command_line(const po::variables_map& vm, const CommandLine& line) {
  if (vm.count("help")) return {};
  if (vm.count("cvar-show")) {
    for (const auto& [name, value] : vm)
      if (name != "cvar-show" && !value.defaulted()) throw InputError("--cvar-show NAME runs alone (--" + name + " given)");
    return {};
  }
  const auto dtype = dtype_from_string(line.dtype_s);
  if (!dtype) throw InputError("unknown --dtype '" + line.dtype_s + "' (int64, int32, float or double)");
  if (line.format != "text" && line.format != "json") throw InputError("unknown --format '" + line.format + "' (text or json)");
  if (!line.native.empty() || !line.function.empty() || !line.collective.empty() || !line.payload_s.empty() ||
      line.in_place || !line.trace_out.empty() || !line.require_s.empty() || !line.count_type_s.empty() ||
      !line.comm_s.empty() || !line.cvar_s.empty())
    return {check_black_box(vm, line, *dtype), std::nullopt};
  return {std::nullopt, check_schedule_run(vm, line, *dtype)};
}

ManualPage mpi_manual_page() {
  CommandLine unused;
  ManualPage page;
  page.program = "collcheck-mpi";
  page.version = COLLCHECK_VERSION;
  page.purpose = "run collective schedules and MPI libraries' collectives under MPI and check their results";
  page.synopsis =
      "mpirun -np P collcheck-mpi --algo NAME [--variant V] [--count N] | --schedule FILE\n"
      "mpirun -np P collcheck-mpi --native COLLECTIVE [--payload LIST] [--comm LIST] [--trace FILE]\n"
      "mpirun -np P collcheck-mpi --function LIBRARY:SYMBOL --collective COLLECTIVE [OPTIONS]\n"
      "collcheck-mpi --help | --man-page | --bash-completion";
  page.description =
      "collcheck-mpi runs under an MPI launcher, one process per rank. With --algo or --schedule it executes a "
      "schedule with real data over MPI point-to-point messages and compares every rank's result. As a black "
      "box (--native: the MPI library's own collective; --function: a function from a shared library with the "
      "standard MPI signature) it calls the collective on exact-multiplicity payloads, so a lost, doubled or "
      "misordered contribution is named, on the communicators --comm asks for, inside guarded buffers (a "
      "write past a buffer, a corrupted heap or a crash is reported, never 'holds').\n\n"
      "--dry-run checks the whole command line as a run checks it, without starting MPI, and exits 0, or 2 for "
      "bad input with the run's error line; what depends on p (the communicator's size), on the MPI library "
      "(--cvar's variable) or on an input file (--schedule, --function's library) is checked in the run only.";
  page.commands.push_back({"", "", "", mpi_options(unused), ""});
  page.sections.push_back(
      {"EXIT STATUS",
       "- 0: every call holds.\n- 1: a result is wrong, or a call refused inside its contract.\n"
       "- 2: bad input (on every rank alike).\n- 3: undecided: a hang past --timeout, a crash, or an internal error.\n"
       "- 77: nothing to check: every call was outside the declared contract (--require)."});
  page.sections.push_back({"SEE ALSO", "collcheck(1), mpirun(1)"});
  return page;
}

std::string mpi_bash_completion() {
  namespace bb = blackbox;
  std::map<std::string, CompletionValues> values;
  std::map<std::string, std::vector<std::string>> variants;
  CompletionValues algos{{}, false, false};
  for (const AlgorithmInfo& a : registry()) {
    algos.words.push_back(a.name);
    for (const VariantInfo& v : a.variants) variants[a.name].push_back(v.name);
  }
  values["algo"] = algos;
  CompletionValues colls{{}, false, false};
  for (bb::Coll c : bb::all_colls()) colls.words.push_back(bb::to_string(c));
  values["native"] = colls;
  values["collective"] = colls;
  CompletionValues payloads{{}, true, false};
  for (int i = 0; i <= static_cast<int>(bb::Payload::source_tagged); ++i)
    payloads.words.push_back(bb::to_string(static_cast<bb::Payload>(i)));
  values["payload"] = payloads;
  values["dtype"] = {{"int64", "int32", "float", "double"}, false, false};
  values["format"] = {{"text", "json"}, false, false};
  values["comm"] = {{"world", "dup", "reversed", "split", "sequence", "all"}, true, false};
  values["count-type"] = {{"int", "size_t", "MPI_Count"}, false, false};
  values["require"] = {{"pow2", "even", "count>=p", "commutative"}, true, false};
  for (const char* f : {"schedule", "trace"}) values[f] = {{}, false, true};
  return bash_completion(mpi_manual_page(), values, variants);
}

// Before MPI_Init: --man-page, --bash-completion and --dry-run need no MPI
// job. Returns the exit code, or nullopt for a run.
std::optional<int> without_mpi(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  if (argc == 2 && (first == "--man-page" || first == "--bash-completion")) {
    std::cout << (first == "--man-page" ? man_page(mpi_manual_page()) : mpi_bash_completion());
    std::cout.flush();
    return std::cout ? 0 : kUsage;
  }
  std::vector<std::string> args;
  bool dry_run = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--dry-run")
      dry_run = true;
    else
      args.emplace_back(argv[i]);
  }
  if (!dry_run) return std::nullopt;
  try {
    CommandLine line;
    const po::variables_map vm = parse_args(mpi_options(line), args);
    const Request q = check_command_line(vm, line);
    // What rank 0 checks of --trace FILE in the job, before any call.
    if (q.black_box && q.black_box->run.trace) {
      check_trace_writable(line.trace_out);
      if (!line.function.empty())
        refuse_output_over_input("--trace", line.trace_out, "the --function library",
                                 line.function.substr(0, line.function.rfind(':')));
    }
  } catch (const std::exception& e) {
    std::cerr << "collcheck-mpi: error: " << escape_controls(e.what()) << "\n";
    return kUsage;
  }
  std::cerr << "collcheck-mpi: dry run: the options are valid (what depends on p, the MPI library or an input file "
               "is checked in the run); nothing was run\n";
  return 0;
}

int run(int argc, char** argv, int me, int size) {
  CommandLine line;
  const po::options_description desc = mpi_options(line);
  auto& [algo, variant, schedule_file, dtype_s, format, count_s, seed_s, native, function, collective, payload_s,
         timeout_s, trace_out, require_s, count_type_s, comm_s, cvar_s, conforms, in_place] = line;
  po::variables_map vm;
  try {
    // As collcheck's subcommands parse theirs: a stray word is an error, not ignored.
    vm = parse_args(desc, std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
  } catch (const po::error& e) {
    throw UsageError{e.what()};
  }
  const Request q = check_command_line(vm, line);  // bad input, found as --dry-run finds it
  if (vm.count("help")) {
    if (me == 0) {
      std::cout << "usage: mpirun -np P collcheck-mpi (--algo NAME [--variant V] [--n N] [--root R] | --schedule FILE)"
                   " [--dtype int64|float|double] [--count N] [--seed S] [--format text|json]\n"
                << desc;
    }
    return kHolds;
  }
  if (vm.count("cvar-show")) {
    const std::string name = vm["cvar-show"].as<std::string>();
    const int value = read_cvar(name);
    if (me == 0) std::cout << escape_controls(name) << "=" << value << "\n";
    return kHolds;
  }
  if (q.black_box) return run_black_box(native, function, *q.black_box, format, trace_out, comm_s, cvar_s, me, size);
  const ScheduleRequest& request = *q.schedule;
  const std::optional<DType> dtype = request.dtype;
  const uint64_t count = request.count, seed = request.seed;

  std::unique_ptr<Schedule> sched;
  std::string name;
  const AlgorithmInfo* a = request.algorithm;
  const VariantInfo* v = request.variant;
  if (!a) {
    // Read as check-file and `collcheck run --schedule` read it (JSON or JSON
    // lines, streamed, under the default memory guard).
    sched = std::make_unique<MaterializedView>(load_schedule_file(schedule_file, "auto", default_max_memory()).schedule);
    name = escape_controls(schedule_file);  // printed: one line whatever the path holds
  } else {
    const std::vector<SweepTarget> targets{request.target};
    const InstanceParams params = targets.front().params(static_cast<uint64_t>(size));
    name = a->name + "/" + v->name;
    if (v->violates) {
      if (auto why = v->violates(params)) {
        // A restriction on p alone (it holds without --n/--root) is a skip;
        // one the user's --n/--root causes is bad usage, as in collcheck run.
        if (vm.count("dims") || !v->violates(InstanceParams{params.p, 0, 0})) {
          std::string given;
          if (vm.count("dims")) given += " --dims " + vm["dims"].as<std::string>();
          if (vm.count("n")) given += " --n " + vm["n"].as<std::string>();
          if (vm.count("root")) given += " --root " + vm["root"].as<std::string>();
          throw UsageError{name + " at p = " + std::to_string(size) + ":" + given + ": " + *why};
        }
        if (me == 0) std::cout << "collcheck-mpi: " << name << " p=" << size << ": skipped: " << *why << "\n";
        return kSkipped;
      }
    }
    if (const std::string label = params.label(); !label.empty()) name += " [" + label + "]";  // e.g. [r=4]
    sched = v->make(params);
  }
  const CollectiveSpec& spec = sched->spec();
  const bool rooted = spec.kind == Collective::broadcast || spec.kind == Collective::reduce;
  const std::string ref = reference_collective(spec.kind);
  if (count < sched->num_blocks())
    throw UsageError{"--count " + std::to_string(count) + " is smaller than the " +
                     std::to_string(sched->num_blocks()) + " blocks of " + name + " at p = " + std::to_string(size)};

  MpiOptions opts{*dtype, count, seed};
  MpiResult res;
  try {
    res = run_schedule(*sched, opts, MPI_COMM_WORLD);
  } catch (const std::bad_alloc&) {
    // A valid request this machine cannot hold (exit 3), said with its size.
    // Each rank allocates its vectors before its first message, so a rank
    // that cannot ends the job before anything is exchanged.
    const uint64_t bytes = count * (*dtype == DType::float32 ? 4 : 8);
    throw ResourceRefusal("out of memory: --count " + std::to_string(count) + " " + to_string(*dtype) +
                          " elements need vectors of " + gib(bytes) +
                          " each (the input, the working buffer and the reference result) and the process could not "
                          "allocate them (ulimit -v, or the machine's memory); use a smaller --count");
  }

  if (me == 0) {
    if (format == "json") {
      nlohmann::json j{{"tool", "collcheck-mpi"},
                       {"algorithm", a ? nlohmann::json(a->name) : nlohmann::json(nullptr)},
                       {"variant", v ? nlohmann::json(v->name) : nlohmann::json(nullptr)},
                       {"schedule_file", a ? nlohmann::json(nullptr) : nlohmann::json(schedule_file)},
                       {"collective", to_string(spec.kind)},
                       {"reference", ref},
                       {"expected_to_hold", v ? nlohmann::json(v->expected_to_hold) : nlohmann::json(nullptr)},
                       {"p", size},
                       {"nblocks", sched->num_blocks()},
                       {"root", rooted ? nlohmann::json(spec.root) : nlohmann::json(nullptr)},
                       {"dtype", to_string(*dtype)},
                       {"count", count},
                       {"seed", seed},
                       {"steps", res.steps},
                       {"status", to_string(res.status)},
                       {"messages", res.messages},
                       {"bytes", res.bytes},
                       {"seconds", res.seconds},
                       {"reference_seconds", res.reference_seconds}};
      j["mismatch"] = nullptr;
      if (res.mismatch)
        j["mismatch"] = {{"rank", res.mismatch->rank},         {"block", res.mismatch->block},
                         {"index", res.mismatch->index},       {"expected", res.mismatch->expected},
                         {"actual", res.mismatch->actual}};
      j["undefined_read"] = nullptr;
      if (res.undefined_read)
        j["undefined_read"] = {{"rank", res.undefined_read->rank},
                               {"step", res.undefined_read->step},
                               {"block", res.undefined_read->block},
                               {"peer", res.undefined_read->peer},
                               {"action", res.undefined_read->reduce ? "reduce" : "send"},
                               {"message", to_string(*res.undefined_read)}};
      if (!res.problem.empty()) j["problem"] = res.problem;
      std::cout << j.dump() << "\n";
    } else {
      std::ostringstream os;
      os << "collcheck-mpi: " << name << " (" << to_string(spec.kind);
      if (rooted) os << ", root " << spec.root;
      os << ") p=" << size << " nblocks=" << sched->num_blocks() << " " << to_string(*dtype) << " count=" << count
         << " steps=" << res.steps << " messages=" << res.messages << " bytes=" << res.bytes;
      char t[96];
      std::snprintf(t, sizeof t, " time=%.6fs (%s %.6fs)", res.seconds, ref.c_str(), res.reference_seconds);
      os << t << ": " << to_string(res.status);
      if (!res.problem.empty())
        os << ": " << escape_controls(res.problem);
      else if (res.mismatch)
        os << ": rank " << res.mismatch->rank << " block " << res.mismatch->block << " index "
           << res.mismatch->index << ": expected " << res.mismatch->expected << " (" << ref << "), got "
           << res.mismatch->actual;
      else
        os << ": all " << size << " ranks match " << ref;
      if (res.undefined_read) os << (res.mismatch ? "; " : ", but ") << to_string(*res.undefined_read);
      std::cout << os.str() << "\n";
    }
  }
  return res.status == Status::holds ? kHolds : kViolated;
}

// ---- how the process ends -------------------------------------------------------
//
// One way for every rank: rank 0's report reaches standard output (checked:
// a lost report is exit 2), rank 0 decides the exit code and the other ranks
// wait for it without spinning, then every rank calls MPI_Finalize and returns
// that code. The intended early ends are exit 3 through _exit/MPI_Abort: a
// hang or crash in a black box (runtime/blackbox/blackbox_run.cpp), an
// internal error or out of memory (below).
//
// Anything else that ends the process through exit() before that -- the
// constructor of a --function library, the function under test, a library
// it calls, a return that skips MPI_Finalize -- would end it with whatever
// status it chose (exit(0): no output, success) and no verdict. The atexit
// hook turns every exit with MPI initialized and not finalized (but
// abort_job's) into one error line and exit 3: nothing was decided. So no
// rank leaves without MPI_Finalize unnoticed, whether or not mpirun would
// report it. (_exit and signals bypass atexit; a signal is reported by
// mpirun, or by the crash report in a black box.)
//
// mpirun's own report of such a rank ("exiting improperly") is not reliable
// the other way: Open MPI 4.1 with PMIx 4 waits at most 2 s in
// MPI_Finalize (PMIx_Finalize) for mpirun to acknowledge the rank's
// finalize; an mpirun slower than that (a loaded machine) sees a rank that
// did finalize exit first and reports it as exiting without finalize
// (tests/mpi/CMakeLists.txt, COLLCHECK_MPI_ENV).

// Under SMPI every rank registers the hook in the one process, which runs
// them all when it exits, outside any rank: once every rank has returned
// from main (counted where SMPI's privatization does not copy it), the exit
// is the simulation's own end.
// Under dlopen privatization every rank has its own copy of this program,
// statics made at load included: the first copy to load leaves the
// counter's address in the environment, which the whole process shares.
std::atomic<int>* ranks_done_counter() {
  constexpr const char* kVar = "COLLCHECK_SMPI_RANKS_DONE_AT";
  if (smpi::kUnderSmpi)
    if (const char* at = std::getenv(kVar)) return reinterpret_cast<std::atomic<int>*>(std::strtoull(at, nullptr, 16));
  auto* counter = new std::atomic<int>(0);
  if (smpi::kUnderSmpi) {
    char text[32];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(counter)));
    setenv(kVar, text, 1);
  }
  return counter;
}
std::atomic<int>* const g_ranks_done = ranks_done_counter();
int g_size = 1;

extern "C" void exit_before_verdict() {
  int finalized = 0;
  if (g_ending || g_ranks_done->load() == g_size) return;
  if (MPI_Finalized(&finalized) == MPI_SUCCESS && finalized) return;
  std::cout.flush();
  std::fflush(stdout);
  char line[1024];
  const int n = std::snprintf(line, sizeof line,
                              "collcheck-mpi: rank %d: error: exit() was called%s before collcheck-mpi reached its "
                              "verdict: nothing was decided\n",
                              g_rank, g_running.c_str());
  if (n > 0) (void)!write(2, line, std::min(static_cast<size_t>(n), sizeof line - 1));
  _exit(kUnknown);
}

// Every rank returns rank 0's code; the others wait for it asleep, not
// busy-polling the cores rank 0 and mpirun need (the ranks are often
// oversubscribed, and Open MPI's blocking calls spin).
int rank_zero_code(int code) {
  if (smpi::kUnderSmpi) {  // simulated ranks do not spin: a blocked one costs nothing
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
  }
  MPI_Request req;
  MPI_Ibcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  for (int done = 0, us = 50;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return code;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    us = std::min(us * 2, 5000);
  }
}

[[noreturn]] void abort_job() {
  g_ending = true;  // MPI_Abort ends the process through exit(): not the hook's case
  MPI_Abort(MPI_COMM_WORLD, kUnknown);
  _exit(kUnknown);
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::optional<int> code = without_mpi(argc, argv)) return *code;
  collcheck::runtime::blackbox::reexec_with_heap_check(argv);  // a black-box run: under glibc's malloc check
  MPI_Init(&argc, &argv);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_rank = me;
  g_size = size;
  collcheck::runtime::blackbox::report_deadlocks();
  std::atexit(exit_before_verdict);
  if (me == 0) write_stdout_past_launcher();  // a report mpirun cannot write is seen (exit 2), not dropped by it
  // flush_stdout names the reason a write to standard output failed. Under
  // SMPI std::cout is every rank's: rank 0 alone, which writes the report,
  // captures it.
  std::optional<StdoutCapture> capture;
  if (me == 0 || !smpi::kUnderSmpi) capture.emplace();
  int code = kHolds;
  bool reported = false;  // rank 0 printed an error line
  try {
    if (auto why = smpi::unsupported_setup()) throw UsageError{*why};
    code = run(argc, argv, me, size);
  } catch (const UsageError& e) {
    // Every rank parses the same arguments, so every rank gets here together.
    if (me == 0) std::cerr << "collcheck-mpi: error: " << escape_controls(e.what) << "\n";
    code = kUsage;
    reported = true;
  } catch (const InputError& e) {
    // --n/--root out of range or not applicable, a malformed schedule file:
    // every rank reads the same input, so all ranks agree; a --trace file
    // rank 0 could not write: rank 0 alone (the code is rank 0's below).
    if (me == 0) std::cerr << "collcheck-mpi: error: " << escape_controls(e.what()) << "\n";
    code = kUsage;
    reported = true;
  } catch (const std::invalid_argument& e) {
    // run_schedule's input checks: deterministic, so all ranks agree.
    if (me == 0) std::cerr << "collcheck-mpi: error: " << escape_controls(e.what()) << "\n";
    code = kUsage;
    reported = true;
  } catch (const ResourceRefusal& e) {
    // Out of memory (or over the guard): ranks may disagree, so the job is
    // aborted; a rank alone ends as every run ends (its one line, exit 3).
    std::cerr << "collcheck-mpi: rank " << me << ": " << escape_controls(e.what()) << "\n";
    if (size > 1) abort_job();
    code = kUnknown;
    reported = true;
  } catch (const std::exception& e) {
    // Internal error: ranks may disagree, so abort the whole job.
    std::cerr << "collcheck-mpi: rank " << me << ": internal error: " << escape_controls(e.what()) << "\n";
    abort_job();
  }
  g_running.clear();
  if (me == 0) {
    try {
      flush_stdout();  // a report that did not reach standard output is a failed run (exit 2)
    } catch (const InputError& e) {
      if (!reported) std::cerr << "collcheck-mpi: error: " << escape_controls(e.what()) << "\n";
      code = kUsage;
    }
  }
  code = rank_zero_code(code);
  MPI_Finalize();  // from here on, exit() is this rank's own end (the hook stays silent)
  if (++*g_ranks_done == size && smpi::kUnderSmpi) {
    // The last simulated rank ends the process: the destructors of statics
    // that each rank made for itself would all run at exit on one rank's
    // copy (every rank's registration, one address), freeing it p times.
    std::cout.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  return code;
}
