#pragma once
// The sweep engine: every (algorithm, variant, p) instance of a request is
// checked with every property. TBB runs instances in parallel (and each
// instance runs its ranks in parallel); every result goes into a pre-indexed
// slot, so the report is identical for any thread count, and each property's
// reported counterexample is the minimal one.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "properties/instance_checker.hpp"
#include "reports/report.hpp"
#include "schedules/registry.hpp"

namespace collcheck {

struct SweepTarget {
  const AlgorithmInfo* algorithm;
  const VariantInfo* variant;
  uint32_t blocks = 0;  // --n (blocks per rank, Träff), 0 = the algorithm's default
  Rank root = 0;   // --root
  uint32_t radix = 0, radix2 = 0, ppn = 0;  // --radix, --radix2, --ppn (0: the default)
  bool all_radices = false;                 // --radix all: one instance per r = 2..p
  // --dims: torus shapes (checker/cli/dims_option.hpp). A torus variant takes no
  // radix, so with shapes the per-p index r of radices() and params() names a
  // shape instead: r = 1 + its index in `shapes` (its product is p).
  std::vector<std::vector<uint32_t>> shapes = {};
  // The instance for p (and radix r, when all_radices; shape r - 1 with
  // shapes). r = 0 with shapes: the first shape with product p, else the first
  // shape (which violates() then rejects).
  InstanceParams params(uint64_t p, uint32_t r = 0) const {
    if (shapes.empty()) return {p, root, blocks, r ? r : radix, radix2, ppn};
    InstanceParams ip{p, root, blocks, radix, radix2, ppn};
    if (r >= 1 && r <= shapes.size()) {
      ip.dims = shapes[r - 1];
      return ip;
    }
    for (const auto& s : shapes) {
      uint64_t prod = 1;
      for (uint32_t x : s) prod *= x;
      if (prod == p || ip.dims.empty()) ip.dims = s;
      if (prod == p) break;
    }
    return ip;
  }
  // The radices to instantiate for p: {0} (the target's own) unless
  // all_radices, then 2..p (p = 1: {0}, the variant's default). With shapes:
  // 1 + the index of every shape with product p ({0} if none has).
  std::vector<uint32_t> radices(uint64_t p) const;
};

struct SweepRequest {
  std::vector<SweepTarget> targets;
  std::vector<uint64_t> ps;
  bool skip_restricted = false;  // false: a restricted p is bad input (exit 2)
  bool progress = true;          // progress + ETA on stderr for long sweeps
  CheckOptions check;
  int threads = 0;  // worker threads, exactly (run_with_threads); 0: TBB's default
  // Results-store hooks (checker/sweep/results_store.hpp, verify --db/--resume);
  // `job` is the instance's index in the request's order (targets, p, radix).
  // reuse: a stored result for the instance (then it is not run), or nullopt.
  // on_finished: called with every instance result as soon as it is checked.
  std::function<std::optional<InstanceResult>(size_t job, const InstanceResult& header)> reuse;
  std::function<void(size_t job, const InstanceResult& result)> on_finished;
  // Sharding (checker/sweep/mpi_shard.hpp): when set, only the jobs i (sweep_jobs
  // order) with run_here(i) are checked; the other report slots stay empty.
  std::function<bool(size_t job)> run_here;
};

// One instance of a request: target index, p, radix (0: the target's own).
struct SweepJob {
  size_t target;
  uint64_t p;
  uint32_t radix;
};
// The request's instances in report order: targets, then p, then radices.
std::vector<SweepJob> sweep_jobs(const SweepRequest& req);

// Resolves --algo / --variant ("all" allowed for both) into targets; throws
// InputError for unknown names. `torus` says whether --dims was given: an
// algorithm with both ring and torus variants (Swing) then defaults to its
// first variant that takes --dims, and "all" means its torus variants;
// without --dims, its default and "all" leave the torus variants out. An
// algorithm whose variants all take --dims (trivance-torus) keeps them all.
std::vector<SweepTarget> resolve_targets(const std::string& algo, const std::string& variant, bool torus = false);

// "a,b,c" -> {a, b, c}: a comma list of names given to --`option`. An empty
// item ("a,", ",", "a,,b") is a malformed list: InputError.
std::vector<std::string> split_name_list(const std::string& option, const std::string& text);

// --algo and --variant as comma lists (verify, run): every listed variant of
// every listed algorithm, each item resolved as resolve_targets resolves one
// name, in the order given, each (algorithm, variant) once. With several
// algorithms a listed variant is taken from those that have it (as with
// --algo all); one that none of them has is InputError, as are unknown
// algorithms and empty items.
std::vector<SweepTarget> resolve_target_list(const std::string& algos, const std::string& variants, bool torus = false);

// The most instances (and p values) one verify, run or prove takes: 2^22,
// twice the headline range 1..2^21. A holding instance keeps about 2 KiB of
// results above 2^16 instances (sweep.cpp, make_lean), so 2^21 of them hold
// about 4-5 GiB.
inline constexpr uint64_t kMaxSweepInstances = uint64_t{1} << 22;
inline constexpr const char* kMaxSweepInstancesText = "2^22";

// Above this many instances a holding result keeps only what the reports
// need of it (make_lean): its verdicts' counts and modes, and the method
// that decided it (its other measurements are dropped: a range of 2^21 p
// would otherwise hold gigabytes of per-instance statistics).
inline constexpr size_t kLeanAbove = size_t{1} << 16;
void make_lean(InstanceResult& r);

// Throws InputError if `targets` x `ps` (x radices or shapes) is more than
// kMaxSweepInstances: the limit of one verify, run or prove, checked before
// anything per instance is built.
void check_request_size(const std::vector<SweepTarget>& targets, const std::vector<uint64_t>& ps);

// Throws InputError for an unknown or inapplicable property, a request over
// check_request_size's limit, and the first (variant, p) outside a
// restriction, unless skip_restricted.
void check_restrictions(const SweepRequest& req);
// The bad-input message for an instance outside its variant's restriction
// (`why`: VariantInfo::violates' reason), as verify and prove word it.
std::string restriction_refusal(const SweepTarget& t, uint64_t p, const InstanceParams& ip, const std::string& why);

// An InstanceResult naming (t, p); status skipped with the reason if p is
// outside t's restriction, holds otherwise (to be filled in).
InstanceResult instance_header(const SweepTarget& t, uint64_t p, uint32_t radix = 0);

// Checks one instance with the registry's claims and hop function.
InstanceResult check_instance(const SweepTarget& t, uint64_t p, const CheckOptions& o, uint32_t radix = 0);

// Every instance of the request (its sweep_jobs order), in parallel. With
// req.check.trace_root_causes false and no shard (run_here unset) it ends
// with trace_shown_root_causes.
Report run_sweep(const SweepRequest& req);

// The root cause (flow/root_cause.hpp) of every counterexample a group shows
// as its property's minimal one (reports/summary.hpp, group_instances), for a
// report of `req` (r.instances in sweep_jobs order) checked without
// tracing: the schedule of each such instance is made again and traced, so
// the text, Markdown and HTML reports equal those of a sweep that traced
// every instance. Counterexamples that already carry one are left alone.
void trace_shown_root_causes(Report& r, const SweepRequest& req);

// The registry's expectations: every (algorithm, variant) of `variants`
// declared refuted on purpose (VariantInfo::expected_to_hold == false, a
// literal paper reading) goes into r.expected_refutations and, with `notes`,
// its finding (known_failure) into r.notes, in first-seen order.
using VariantNames = std::vector<std::pair<std::string, std::string>>;
void add_registry_expectations(Report& r, const VariantNames& variants, bool notes);
// The (algorithm, variant) of every instance (for reports not built from
// sweep targets).
VariantNames variants_of(const std::vector<InstanceResult>& instances);

// The most worker threads --threads may ask for.
inline constexpr int kMaxThreads = 1024;

// Runs `f` with TBB's parallel algorithms on exactly `threads` threads (a
// task arena of that concurrency, and a global_control that lets TBB start
// them, more than the cores if asked: TBB's default arena never exceeds the
// cores this process may use, so a global_control alone would quietly run
// fewer); threads = 0: TBB's default.
void run_with_threads(int threads, const std::function<void()>& f);

// Whether the memory guard (--max-memory) refused this instance, or no
// method could decide it (status skipped, reason starting with
// kRefusedPrefix or kUndecidedPrefix): exit 3, never 0 or 77.
bool refused_by_memory_guard(const InstanceResult& i);

// collcheck's exit codes (docs/guide/options.md, "Exit codes"): 0 holds, 1 violated, 3 unknown, 77 all skipped; an
// instance refused by the memory guard makes it 3 unless something is violated.
// An expected refutation (Report::expected_refutations) is a violation too:
// 1; only the verdict line tells it apart (README "Exit codes").
int exit_code(const Report& r);

}  // namespace collcheck
