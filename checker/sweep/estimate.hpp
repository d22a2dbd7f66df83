#pragma once
// `collcheck verify --estimate ...`: projects
// the core-hours and wall time of a requested sweep on this machine without
// running it, from measured throughput.
//
// How:
//  1. Calibration: for every target (algorithm, variant) and every checker
//     regime the sweep reaches (auto mode: exact bookkeeping up to
//     --exact-max-p, fingerprints above), the same check_instance the sweep
//     runs, with the same properties and options, at a geometric ladder of
//     small p (ratio sqrt 2) inside the regime, single-threaded, timed in
//     process CPU seconds (so the other load of a shared machine does not
//     count), until the calibration budget is spent (points the memory guard
//     refuses at 256 MiB are left out).
//  2. Fit: t = a + b * rank_steps + c * cell_words + d * cell_words / p
//     (checker/sweep/cost_model.hpp: p * steps, cells touched times words per cell;
//     the last term is what a rank-0-only simulation such as
//     properties/flow/flow_rotation.hpp touches), non-negative least squares on
//     relative error. The fit is refit without the largest point, and its
//     prediction of that point is printed as an extrapolation check.
//  3. Projection: every instance of the request (above 2^16 instances per
//     target, a stratified random sample, one instance per stratum, weighted
//     by the stratum size), its block count from the schedule itself, the
//     fitted time summed: core-seconds. Wall time on this machine = core
//     seconds / cores (ideal scaling: the sweep runs instances in parallel),
//     never less than the largest single instance's time / cores.
//  4. Memory: the dense checker's state for the largest instance of each
//     target (checker/sweep/cost_model.hpp), or, where interval bookkeeping runs,
//     the checker's own estimate (estimate_memory, from rank 0's transfers),
//     and whether the checker would refuse it (infeasible()).
//  The work model knows the interval bookkeeping (cost_model.hpp); it does
//  not know that trivance-coverage (n^2 bits, skipped above n = 2^16) costs
//  more than the flow check at the calibration sizes, so Trivance
//  projections above 2^16 are pessimistic (n = 3^13 bandwidth-contiguous:
//  projected 6.0 min, measured 23 CPU s).
// Unlike the sweep, the estimate accepts requests beyond one run's limits
// (2^22 p values or instances): that is what it is for; it says so. Nothing
// per instance is built for it (jobs are counted and sampled), and every
// calibration point runs under the memory guard at 256 MiB (or --max-memory
// if lower): a point above it is left out, so a time model that
// underestimates a point cannot make calibration allocate gigabytes
// (tra2 at p = 4096 once took 3 GB for a request of one instance).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/sweep/sweep.hpp"

namespace collcheck {

struct CalibrationPoint {
  uint64_t p = 0;
  uint32_t radix = 0;
  double seconds = 0;  // CPU seconds per run (mean over `runs`)
  int runs = 0;
  double rank_steps = 0, cell_words = 0;
};

// t = a + b * rank_steps + c * cell_words + d * cell_words / p, all >= 0.
struct TimeModel {
  double a = 0, b = 0, c = 0, d = 0;
  double predict(double p, double rank_steps, double cell_words) const {
    return a + b * rank_steps + c * cell_words + d * (p > 0 ? cell_words / p : 0);
  }
};

// Non-negative least squares on relative error (weights 1/t^2); every subset
// of the four terms is tried, the best non-negative one wins.
TimeModel fit_time_model(const std::vector<CalibrationPoint>& points);

struct Calibration {
  size_t target = 0;
  bool exact = false;  // the regime: exact bookkeeping or fingerprints
  // and its method: decided from rank 0 (a quotient, composition or
  // certificate) or enumerated (cost_model.hpp: rank_zero_decides)
  bool rank_zero = true;
  std::vector<CalibrationPoint> points;
  TimeModel model;
  double max_misfit = 0;   // max |predicted - measured| / measured over the points
  double holdout_error = 0;  // (predicted - measured) / measured of the largest point, fitted without it; 0 if < 3 points
  double cpu_seconds = 0;  // spent calibrating
  // The result of its first point's instance (the sweep's per-instance
  // keeping cost is measured on copies of it: Estimate::
  // keeping_seconds_per_instance); none if no point ran.
  std::optional<InstanceResult> sample;
};

struct TargetProjection {
  std::string name;  // algorithm/variant
  uint64_t instances = 0, checked = 0, skipped = 0, refused = 0;
  uint64_t sampled = 0;  // instances evaluated (== checked unless sampling)
  double core_seconds = 0;
  double largest_instance_seconds = 0;  // the longest projected instance (of those checked)
  uint64_t longest_p = 0;                // its p
  uint64_t largest_p = 0;                // the largest requested p the target allows
  uint32_t largest_nblocks = 0;
  uint64_t largest_memory_bytes = 0;
  bool largest_parametric = false;  // a parametric certificate decides the largest instance (no state)
  std::string refusal;  // why the checker would refuse its largest instance ("" if it would not)
  uint64_t max_calibrated_p = 0;
  // Verify's memory guard on the sampled instances (project_sweep): asked,
  // and answers reused from another sample of the same bucket of p (1/16
  // of an octave) once the asking had cost EstimateOptions::guard_seconds.
  uint64_t guard_asked = 0, guard_reused = 0;
};

struct Estimate {
  std::vector<Calibration> calibrations;
  std::vector<TargetProjection> targets;
  uint64_t p_values = 0;
  uint64_t instances = 0;
  double core_seconds = 0;
  double largest_instance_seconds = 0;
  unsigned cores = 1;
  double wall_seconds = 0;  // on this machine
  double calibration_cpu_seconds = 0;
  // Keeping one instance's result and rendering it in the text report, CPU
  // seconds (measured on copies of a real result; 0: not measured). In
  // every target's core_seconds: on a range of cheap instances it is most
  // of the run (the ring's 2^21 p: about 3 s of checks, 10 s in all).
  double keeping_seconds_per_instance = 0;
  double guard_seconds = 0;  // EstimateOptions::guard_seconds, for the report
  bool beyond_one_run = false;  // more than kMaxSweepInstances (2^22) p values or instances
  std::vector<std::string> notes;
};

struct EstimateOptions {
  double calibrate_seconds = 0.5;  // CPU budget per (target, regime)
  unsigned cores = 0;              // 0: TBB's default concurrency (--threads if set)
  uint64_t max_exact_samples = uint64_t{1} << 16;  // per target; above: stratified sample
  // CPU seconds of verify's memory guard per target after which its answer
  // is reused within a bucket of p (TargetProjection::guard_reused).
  double guard_seconds = 5;
};

// The projection of `req` (targets, ps, skip_restricted, check). Bad input
// (unknown property, a restricted p without --skip-restricted) throws
// InputError with the message verify would print: check_estimate_request,
// which it calls first (verify --estimate --dry-run calls it alone).
Estimate estimate_sweep(const SweepRequest& req, const EstimateOptions& o);
void check_estimate_request(const SweepRequest& req);

// Projection with given calibrations (no measuring): for tests and for
// estimate_sweep. `calibrations` must cover every (target, regime) reached.
Estimate project_sweep(const SweepRequest& req, const EstimateOptions& o, std::vector<Calibration> calibrations);

// Human-readable report, and the same as JSON.
std::string render_estimate_text(const Estimate& e, const SweepRequest& req);
std::string render_estimate_json(const Estimate& e);

}  // namespace collcheck
