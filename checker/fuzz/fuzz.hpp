#pragma once
// collcheck fuzz: property-based fuzzing of one algorithm's
// variant, or of a user's generator program, for users' own CI.
//
// Instances are drawn from strata where collective algorithms break (p and
// sides at and next to powers of two and three, primes, p - 1 a power of
// two, small p, large p up to --max-p; roots 0, p - 1 and the middle;
// the smallest and other values of n, radix, ppn), each checked with the
// method verify picks (the certified quotient, intervals, dense; the same
// check_instance), so every verdict is as sound as verify's. The draws are a
// function of the seed alone, small ones first (size_cap); how far the
// sequence gets depends on the time budget. An instance the estimate says
// cannot finish within the remaining budget, or that the checker refuses
// (memory), is counted, not checked; one still running at the budget's end
// is abandoned, not counted. A run that checked nothing says "unknown".
//
// On the first violation the instance is shrunk: the smallest p (scanning
// upward from 1, with the options mapped: a root p - 1 stays the last rank,
// a middle root the middle) that still fails, then each option reset to
// its default while it still fails (a torus: the smallest product of sides,
// sides of 1 dropped, fewest dimensions first). That is the minimal counterexample
// `verify` reports for the same options, and the one command that
// reproduces it is printed.
//
// --schedule-cmd runs a user's program for each instance ({p}, {root},
// {n}, {seed} substituted), reads the schedule file it prints (collcheck's
// format /2, JSON or JSON lines) and checks it with every generic property,
// as check-file does. The program failing or hanging (--cmd-timeout) ends
// the run (FuzzError::runtime, exit 3); a malformed file, or one for other
// parameters than asked, is bad input (FuzzError::input, exit 2); the
// summary so far is kept. The program's standard output goes to a file
// mkstemp creates (owned by this process, never a name another user can
// plant a link at), and a program whose output grows beyond the schedule-file
// limit (kMaxScheduleFileBytes, 1 GiB: `yes` wrote 3.8 GB in 5 s) is stopped
// there, its process group killed: bad input (exit 2).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/sweep/sweep.hpp"
#include "reports/report.hpp"

namespace collcheck::fuzz {

struct Request {
  std::optional<SweepTarget> target;  // a registry variant, or
  std::string schedule_cmd;           // a generator program (exactly one of the two)
  double seconds = 60;
  uint64_t seed = 1;
  uint64_t max_p = 0;                 // 0: 2^21 for registry variants, 1024 for a program
  double cmd_timeout = 30;
  // The most a program may print for one instance (bytes). The fuzz command
  // sets kMaxScheduleFileBytes, lowered only by the environment variable
  // COLLCHECK_FUZZ_OUTPUT_LIMIT (bytes; for tests, which cannot write 1 GiB).
  uint64_t max_output = uint64_t{1} << 30;
  CheckOptions check;
  // Called once the run starts (everything validated, nothing drawn yet):
  // the command's banner, so that no bad input found before is preceded by it.
  std::function<void()> started;
};

// One drawn instance.
struct Instance {
  uint64_t p = 1;
  Rank root = 0;
  uint32_t n = 0, radix = 0, ppn = 0;  // 0: the variant's default
  std::vector<uint32_t> dims;          // torus variants
  std::string stratum;                 // where p came from: "pow2", "pow2+-1", "prime", ...
  std::string label() const;           // "p=6 root=5 n=2"
};

struct Finding {
  Instance found, minimal;
  InstanceResult result;  // the minimal instance's verdicts
  int shrink_checks = 0;
  std::string command;    // reproduces the minimal instance
};

enum class ErrorKind { none, input, runtime };

struct Summary {
  std::map<std::string, uint64_t> per_stratum;  // instances checked per stratum
  uint64_t checked = 0, restricted = 0, refused = 0, over_budget = 0;
  uint64_t largest_p = 0;
  std::string largest;  // the largest instance checked, labelled
  // The first instance refused by the checker, labelled, and why (one line).
  std::string first_refused;
  double seconds = 0;
  uint64_t seed = 1;
  // The instance still running when the budget ran out, if any: it is
  // abandoned (not waited for, not counted, nothing said of it), and the
  // process must then end without returning normally (its worker thread is
  // still running): the fuzz command writes its outputs and calls _Exit.
  std::string unfinished;
  std::optional<Finding> finding;
  ErrorKind error = ErrorKind::none;
  std::string error_message;  // one line
};

// What a run found: "error", "violated", "unknown" when nothing was checked
// (every instance drawn was outside the variant's restriction, refused,
// predicted over the budget, or still running at its end and abandoned: a
// run that checked nothing never holds; the fuzz command exits 3), else
// "holds".
std::string result(const Summary& s);

// The size schedule: draw k's p (a torus's product of sides) is at most
// size_cap(k, top), top being --max-p: 8 for the first 4 draws, doubling
// every 4 draws up to 1024 (draw 28), then every draw until it reaches top
// (draw 39 for 2^21); from there on every draw may reach top. A run spends
// its budget on cheap instances first, then on ever larger ones: a property
// that fails small is found whatever the seed, before any draw large enough
// to outlast the budget (the first draw of a refuted torus reading was once
// 512x32, still running when the budget ended: nothing checked).
uint64_t size_cap(uint64_t k, uint64_t top);

// Draws instance number k of the sequence for `seed` (exposed for tests:
// the same seed gives the same sequence), its p at most size_cap(k, top).
Instance draw(uint64_t seed, uint64_t k, const Request& r);

Summary run(const Request& r);

// --db FILE: coverage accumulated over runs (nightly CI jobs), a JSON file
// {"format": "collcheck-fuzz-db/1", "target", "runs": [{seed, seconds,
// checked, largest_p, status, minimal}], "per_stratum", "checked",
// "largest_p"}. accumulate() reads it (absent: empty), adds `s`, writes it
// back and returns the totals; InputError for a malformed file or one that
// holds another target's runs.
struct Coverage {
  uint64_t runs = 0, checked = 0, largest_p = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> per_stratum;
};
Coverage accumulate(const std::string& path, const std::string& what, const Summary& s);
// The same checks, before a run: InputError if the file cannot take `what`'s runs.
void check_db(const std::string& path, const std::string& what);

// Text, JSON or JUnit XML of a summary; `what` names the fuzzed target;
// `total`: the accumulated coverage (--db), if any.
std::string render(const Summary& s, const std::string& what, Format f, const Coverage* total = nullptr);

}  // namespace collcheck::fuzz
