#include "checker/sweep/estimate.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "checker/sweep/cost_model.hpp"
#include "schedules/input_error.hpp"

namespace collcheck {

// ---- the time model ---------------------------------------------------------

namespace {

constexpr int kTerms = 4;  // a, b * rank_steps, c * cell_words, d * cell_words / p

std::array<double, kTerms> features(const CalibrationPoint& q) {
  return {1.0, q.rank_steps, q.cell_words, q.p ? q.cell_words / static_cast<double>(q.p) : 0.0};
}

// Solves the n x n system m x = v (Gaussian elimination, partial pivoting);
// nullopt if singular.
std::optional<std::vector<double>> solve(std::vector<std::vector<double>> m, std::vector<double> v) {
  const size_t n = v.size();
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[piv][c])) piv = r;
    if (std::fabs(m[piv][c]) < 1e-12) return std::nullopt;
    std::swap(m[c], m[piv]);
    std::swap(v[c], v[piv]);
    for (size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = m[r][c] / m[c][c];
      for (size_t k = c; k < n; ++k) m[r][k] -= f * m[c][k];
      v[r] -= f * v[c];
    }
  }
  for (size_t c = 0; c < n; ++c) v[c] /= m[c][c];
  return v;
}

TimeModel to_model(const std::array<double, kTerms>& x) { return {x[0], x[1], x[2], x[3]}; }

double misfit(const TimeModel& m, const CalibrationPoint& q) {
  const double pred = m.predict(static_cast<double>(q.p), q.rank_steps, q.cell_words);
  return q.seconds > 0 ? (pred - q.seconds) / q.seconds : 0;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

TimeModel fit_time_model(const std::vector<CalibrationPoint>& points) {
  if (points.empty()) return {};
  // Scale every feature to max 1 so the normal equations stay well conditioned.
  std::array<double, kTerms> scale{};
  for (const auto& q : points) {
    auto f = features(q);
    for (int k = 0; k < kTerms; ++k) scale[k] = std::max(scale[k], std::fabs(f[k]));
  }
  double best_err = INFINITY;
  std::array<double, kTerms> best{};
  // Subsets in order of preference (ties keep the earlier one): each has a
  // term that grows with p, so one or two points never give a constant.
  static constexpr unsigned kMasks[] = {0b0100, 0b1000, 0b0010, 0b0101, 0b1001, 0b0011, 0b1100, 0b0110, 0b1010,
                                        0b1101, 0b0111, 0b1011, 0b1110, 0b1111};
  for (unsigned mask : kMasks) {
    std::vector<int> cols;
    for (int k = 0; k < kTerms; ++k)
      if ((mask >> k & 1) && scale[k] > 0) cols.push_back(k);
    if (cols.empty() || cols.size() > points.size() || cols.size() != static_cast<size_t>(std::popcount(mask)))
      continue;
    const size_t n = cols.size();
    std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
    std::vector<double> v(n, 0.0);
    for (const auto& q : points) {
      if (q.seconds <= 0) continue;
      // Relative error, weighted by p: the largest points say most about extrapolation.
      const double w = static_cast<double>(q.p) / (q.seconds * q.seconds);
      auto f = features(q);
      for (size_t i = 0; i < n; ++i) {
        const double fi = f[cols[i]] / scale[cols[i]];
        v[i] += w * fi * q.seconds;
        for (size_t j = 0; j < n; ++j) m[i][j] += w * fi * f[cols[j]] / scale[cols[j]];
      }
    }
    auto x = solve(m, v);
    if (!x || std::any_of(x->begin(), x->end(), [](double c) { return c < 0; })) continue;
    std::array<double, kTerms> coef{};
    for (size_t i = 0; i < n; ++i) coef[cols[i]] = (*x)[i] / scale[cols[i]];
    const TimeModel tm = to_model(coef);
    double err = 0;
    for (const auto& q : points) err += static_cast<double>(q.p) * misfit(tm, q) * misfit(tm, q);
    if (err < best_err * (1 - 1e-9) - 1e-15) {
      best_err = err;
      best = coef;
    }
  }
  if (!std::isfinite(best_err)) {  // degenerate: the mean time as a constant
    double s = 0;
    for (const auto& q : points) s += q.seconds;
    best[0] = s / static_cast<double>(points.size());
  }
  return to_model(best);
}

// ---- per-target facts -----------------------------------------------------

namespace {

// The jobs of one target: radices(p) per p, as prefix counts over the p list.
struct TargetJobs {
  const SweepTarget* t;
  const std::vector<uint64_t>* ps;
  std::vector<uint64_t> prefix;  // prefix[i] = jobs for ps[0..i)
  explicit TargetJobs(const SweepTarget& target, const std::vector<uint64_t>& p_values) : t(&target), ps(&p_values) {
    prefix.resize(ps->size() + 1, 0);
    for (size_t i = 0; i < ps->size(); ++i)
      prefix[i + 1] = prefix[i] + (t->all_radices && (*ps)[i] >= 2 ? (*ps)[i] - 1 : 1);
  }
  uint64_t count() const { return prefix.back(); }
  // Job k -> (p, radix), in sweep order (p, then radix).
  std::pair<uint64_t, uint32_t> at(uint64_t k) const {
    const size_t i = static_cast<size_t>(std::upper_bound(prefix.begin(), prefix.end(), k) - prefix.begin()) - 1;
    return job(i, k);
  }
  // f(p, radix) for every job in sweep order, without at()'s search per job.
  template <class F>
  void each(F&& f) const {
    for (size_t i = 0; i < ps->size(); ++i)
      for (uint64_t k = prefix[i]; k < prefix[i + 1]; ++k) {
        const auto [p, r] = job(i, k);
        f(p, r);
      }
  }

 private:
  // Job k, which is one of p = ps[i]'s.
  std::pair<uint64_t, uint32_t> job(size_t i, uint64_t k) const {
    const uint64_t p = (*ps)[i];
    if (!t->all_radices || p < 2) return {p, 0};
    return {p, static_cast<uint32_t>(2 + (k - prefix[i]))};
  }
};

// nblocks(p) of a target: c * p^k when that rule reproduces the schedule's
// own block count at every probe (then no large schedule is built), else
// nullopt and the schedule is built per instance.
struct BlockRule {
  double c = 0;
  int k = 0;
  bool valid = false;
  uint64_t operator()(uint64_t p) const {  // saturates at the model's block limit, never wraps
    return static_cast<uint64_t>(std::min(c * std::pow(static_cast<double>(p), k), static_cast<double>(kMaxBlockCount)));
  }
};

uint32_t representative_radix(const SweepTarget& t, uint64_t p) {
  if (!t.all_radices || p < 2) return 0;
  return static_cast<uint32_t>(std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(std::sqrt(double(p)))), 2, p));
}

bool allowed(const SweepTarget& t, uint64_t p, uint32_t r) { return !t.variant->violates(t.params(p, r)); }

BlockRule block_rule(const SweepTarget& t) {
  std::vector<std::pair<uint64_t, uint32_t>> probes;
  for (uint64_t p : {60, 61, 64, 81, 97, 128}) {
    const uint32_t r = representative_radix(t, p);
    if (!allowed(t, p, r)) continue;
    probes.push_back({p, t.variant->make(t.params(p, r))->num_blocks()});
  }
  BlockRule rule;
  if (probes.size() < 2) return rule;
  for (int k = 0; k <= 3; ++k) {
    rule.k = k;
    rule.c = probes[0].second / std::pow(static_cast<double>(probes[0].first), k);
    bool ok = true;
    for (const auto& [p, nb] : probes) ok = ok && rule(p) == nb;
    if (ok) {
      rule.valid = true;
      return rule;
    }
  }
  return {};
}

uint64_t nblocks_of(const SweepTarget& t, const BlockRule& rule, uint64_t p, uint32_t r) {
  return rule.valid ? rule(p) : t.variant->make(t.params(p, r))->num_blocks();
}

constexpr uint16_t grouped_methods = method_bit(MethodId::grouped_quotient) |
                                     method_bit(MethodId::fold_over_grouped) | method_bit(MethodId::extra_rank);

// The instance's CPU seconds; nullopt if the memory guard refused it (the
// calibration's own limit, kCalibrationMemory).
std::optional<CalibrationPoint> measure(const SweepTarget& t, uint64_t p, uint32_t r, const CheckOptions& o,
                                        const BlockRule& rule, std::optional<InstanceResult>* sample) {
  CalibrationPoint q;
  q.p = p;
  q.radix = r;
  double spent = 0;
  std::optional<bool> grouped;  // the path it took, when the instance says
  do {
    const double t0 = cpu_seconds();
    InstanceResult res = check_instance(t, p, o, r);
    spent += cpu_seconds() - t0;
    if (refused_by_memory_guard(res)) return std::nullopt;
    if (sample && !*sample) *sample = res;
    if (res.decided_by && builds_on_grouped_quotient(*res.decided_by)) grouped = true;
    else if (res.declined_methods & grouped_methods) grouped = false;
    ++q.runs;
  } while (spent < 0.01 && q.runs < 1000);
  // The features of the path the instance took (the model's class guess
  // can differ at this p: cost_model.cpp, quotient_take).
  const InstanceWork w = instance_work(t, p, r, nblocks_of(t, rule, p, r), o, grouped);
  q.rank_steps = w.rank_steps;
  q.cell_words = w.cell_words;
  q.seconds = spent / q.runs;
  return q;
}

// Classes of p whose instances cost differently at the same size (folds,
// de-duplication, violations of the refuted paper rules): 0 powers of two,
// 1 powers of three, 2 other even p, 3 other odd p.
int p_class(uint64_t p) {
  if (std::has_single_bit(p)) return 0;
  uint64_t q = 1;
  while (q < p) q *= 3;
  if (q == p) return 1;
  return p % 2 == 0 ? 2 : 3;
}

// The class of p that dominates the request's cost for target t: the
// allowed p weighted by p^2 (at most 2^16 of them: one at a random offset
// in each stretch of `stride` values, so no parity or residue is missed).
int dominant_class(const SweepTarget& t, const std::vector<uint64_t>& ps) {
  std::array<double, 4> w{};
  const size_t stride = std::max<size_t>(1, ps.size() >> 16);
  std::mt19937_64 rng(4242);
  for (size_t a = 0; a < ps.size(); a += stride) {
    const size_t i = std::min(ps.size() - 1, a + rng() % stride);
    if (allowed(t, ps[i], representative_radix(t, ps[i]))) w[p_class(ps[i])] += double(ps[i]) * double(ps[i]);
  }
  return static_cast<int>(std::max_element(w.begin(), w.end()) - w.begin());
}

// The p values of the request inside [lo, hi], and the regime bounds.
struct Regime {
  bool exact;
  uint64_t lo, hi;  // requested p in this regime
  bool rank_zero = true;  // decided from rank 0 (cost_model.hpp: rank_zero_decides), else enumerated
};

// The regimes of target t: exact or fingerprint bookkeeping (contiguous in
// p), each split by method where its allowed p are decided from rank 0 for
// some classes of p and enumerated for others (both are calibrated: one
// fitted model for both ran the cheap points and projected the expensive
// ones with them). Every allowed p up to 2^16 is asked, beyond that one at a
// random offset per stretch of the range (the answers are cached per class
// of p, cost_model.cpp).
std::vector<Regime> regimes_of(const SweepTarget& t, const std::vector<uint64_t>& ps, const CheckOptions& o) {
  std::vector<Regime> by_mode;
  for (uint64_t p : ps) {
    const bool ex = runs_exact(p, o);
    if (by_mode.empty() || by_mode.back().exact != ex) by_mode.push_back({ex, p, p});
    by_mode.back().hi = p;
  }
  std::vector<Regime> out;
  const size_t stride = std::max<size_t>(1, ps.size() >> 16);
  std::mt19937_64 rng(4243);
  for (const Regime& g : by_mode) {
    std::optional<Regime> split[2];
    auto note = [&](uint64_t p) {
      const uint32_t r = representative_radix(t, p);
      if (!allowed(t, p, r)) return;
      const bool rank_zero = rank_zero_decides(t, p, r, o);
      auto& slot = split[rank_zero ? 1 : 0];
      if (!slot) slot = Regime{g.exact, p, p, rank_zero};
      slot->lo = std::min(slot->lo, p);
      slot->hi = std::max(slot->hi, p);
    };
    const auto first = std::lower_bound(ps.begin(), ps.end(), g.lo), last = std::upper_bound(ps.begin(), ps.end(), g.hi);
    for (auto it = first; it != last;) {
      const size_t left = static_cast<size_t>(last - it);
      if (*it <= (uint64_t{1} << 16) || stride == 1) {
        note(*it);
        ++it;
        continue;
      }
      const size_t span = std::min(stride, left);
      note(*(it + static_cast<long>(rng() % span)));
      it += static_cast<long>(span);
    }
    if (!split[0] && !split[1]) out.push_back(g);  // nothing allowed: as before (the calibration finds no point)
    for (const auto& r : split)
      if (r) out.push_back(*r);
  }
  return out;
}

constexpr uint64_t kCalibrationMemory = uint64_t{256} << 20;

// Calibrates one (target, regime): a geometric ladder of p (ratio sqrt 2)
// from the regime's smallest possible p up to its largest requested p.
Calibration calibrate(size_t ti, const SweepTarget& t, const Regime& g, const std::vector<uint64_t>& ps,
                      const CheckOptions& request_options, const BlockRule& rule, double budget, int preferred) {
  Calibration cal;
  cal.target = ti;
  cal.exact = g.exact;
  cal.rank_zero = g.rank_zero;
  // The fingerprint regime of auto mode (p > exact_max_p) is calibrated at
  // small p too, with exact_max_p lowered: the checker then takes the path
  // it takes above exact_max_p (fingerprints, or the symmetry check of
  // flow_rotation.hpp, which auto mode runs at any p).
  CheckOptions o = request_options;
  if (!g.exact && o.exactness == Exactness::automatic) o.exact_max_p = 1;
  // Each point measures its own instance: a repeated run must not reuse the
  // grouped quotient's certificate of its first run (the sweep reuses one
  // per ring for the even p' and the odd p' + 1; the projection counts both,
  // an upper bound within 2x).
  o.reuse_certificates = false;
  // A calibration point is small: the guard refuses one that would need more
  // than kCalibrationMemory (or --max-memory if lower), so that a time model
  // that underestimates it (tra2 at p = 4096: predicted 0.25 s, took 11 s
  // and 3 GB) costs nothing.
  o.max_memory = o.max_memory ? std::min(o.max_memory, kCalibrationMemory) : kCalibrationMemory;
  const uint64_t lo = 2, hi = std::max(g.hi, lo);
  std::vector<uint64_t> used;
  // The allowed p closest to x (in ratio): x +- 8, the requested p next to
  // x, the powers of two and three around x; off the request's dominant class
  // of p (p_class) counts as 4x off in p.
  auto pick_near = [&](double x) -> std::optional<uint64_t> {
    std::vector<uint64_t> cand;
    const uint64_t xi = static_cast<uint64_t>(std::llround(x));
    for (int64_t d = -8; d <= 8; ++d)
      if (static_cast<int64_t>(xi) + d >= 1) cand.push_back(static_cast<uint64_t>(static_cast<int64_t>(xi) + d));
    auto it = std::lower_bound(ps.begin(), ps.end(), xi);
    for (int d = -4; d <= 4; ++d) {
      const auto idx = (it - ps.begin()) + d;
      if (idx >= 0 && idx < static_cast<long>(ps.size())) cand.push_back(ps[static_cast<size_t>(idx)]);
    }
    for (uint64_t b : {2, 3}) {
      uint64_t q = 1;
      while (q * b <= xi) q *= b;
      cand.push_back(q);
      cand.push_back(q * b);
    }
    std::optional<uint64_t> pick;
    double best = INFINITY;
    for (uint64_t p : cand) {
      if (p < lo || p > hi || std::find(used.begin(), used.end(), p) != used.end()) continue;
      if (!allowed(t, p, representative_radix(t, p))) continue;
      if (rank_zero_decides(t, p, representative_radix(t, p), o) != g.rank_zero) continue;  // the other method's
      if (o.any_generic_selected() && projected_refusal(t, p, nblocks_of(t, rule, p, representative_radix(t, p)), o)) continue;
      const double d = std::fabs(std::log(static_cast<double>(p) / x)) + (p_class(p) == preferred ? 0 : std::log(4.0));
      if (d < best) best = d, pick = p;
    }
    return pick;
  };
  // The predicted CPU seconds of p from the points so far.
  auto predict = [&](uint64_t p) {
    const uint32_t r = representative_radix(t, p);
    const InstanceWork w = instance_work(t, p, r, nblocks_of(t, rule, p, r), o);
    const CalibrationPoint& last = cal.points.back();
    if (cal.points.size() >= 2)
      return std::max(last.seconds, fit_time_model(cal.points).predict(static_cast<double>(p), w.rank_steps, w.cell_words));
    const double u_last = last.rank_steps + last.cell_words, u = w.rank_steps + w.cell_words;
    return last.seconds * (u_last > 0 ? std::max(1.0, u / u_last) : 1.0);
  };
  // false: the guard refused it (no point; larger p would be refused too).
  auto run_point = [&](uint64_t p) {
    used.push_back(p);
    const double t0 = cpu_seconds();
    const std::optional<CalibrationPoint> q = measure(t, p, representative_radix(t, p), o, rule, &cal.sample);
    cal.cpu_seconds += cpu_seconds() - t0;
    if (q) cal.points.push_back(*q);
    return q.has_value();
  };
  // The ladder spends half the budget; the rest goes to one "reach" point,
  // the largest p predicted to fit: extrapolation is most wrong where the
  // contribution state outgrows the caches, so a large point matters most.
  double x = static_cast<double>(std::max<uint64_t>(lo, 4));
  for (; x <= static_cast<double>(hi) * 1.0001; x *= x < 64 ? 2.0 : std::sqrt(2.0)) {
    const auto pick = pick_near(x);
    if (!pick) continue;
    if (!cal.points.empty() && cal.cpu_seconds + predict(*pick) > budget / 2) break;
    if (!run_point(*pick)) break;
  }
  if (!cal.points.empty()) {
    const uint64_t top = *std::max_element(used.begin(), used.end());
    for (double y = static_cast<double>(hi); y > static_cast<double>(top) * 1.2; y /= std::sqrt(std::sqrt(2.0))) {
      const auto pick = pick_near(y);
      if (!pick || *pick <= top) continue;
      if (cal.cpu_seconds + predict(*pick) > budget) continue;
      if (run_point(*pick)) break;
    }
  }
  cal.model = fit_time_model(cal.points);
  for (const auto& q : cal.points) cal.max_misfit = std::max(cal.max_misfit, std::fabs(misfit(cal.model, q)));
  if (cal.points.size() >= 3) {
    std::vector<CalibrationPoint> rest(cal.points.begin(), cal.points.end() - 1);
    cal.holdout_error = misfit(fit_time_model(rest), cal.points.back());
  }
  return cal;
}

std::string restriction_message(const SweepTarget& t, uint64_t p, uint32_t r, const std::string& why) {
  const std::string label = t.params(p, r).label();
  return t.algorithm->name + "/" + t.variant->name + ": p = " + std::to_string(p) +
         (label.empty() ? "" : " (" + label + ")") + " is outside its restriction: " + why +
         " (use --skip-restricted to skip such instances)";
}

std::string target_name(const SweepTarget& t) { return t.algorithm->name + "/" + t.variant->name; }

std::string human_seconds(double s) {
  char buf[64];
  if (s < 120) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 7200) std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 3 * 86400) std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else if (s < 2 * 365 * 86400.0) std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  else std::snprintf(buf, sizeof buf, "%.1f years", s / (365.25 * 86400));
  return buf;
}

std::string human_bytes(double b) {
  char buf[64];
  if (b < 1 << 20) std::snprintf(buf, sizeof buf, "%.0f KiB", b / 1024);
  else if (b < double(1ULL << 30)) std::snprintf(buf, sizeof buf, "%.0f MiB", b / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%.1f GiB", b / double(1ULL << 30));
  return buf;
}

unsigned default_cores(const EstimateOptions& o) {
  if (o.cores) return o.cores;
  return static_cast<unsigned>(std::max(1, tbb::info::default_concurrency()));
}

void validate(const SweepRequest& req) {
  SweepRequest names = req;  // unknown or inapplicable --properties, as verify says it
  names.ps.clear();
  check_restrictions(names);
}

}  // namespace

// ---- projection -----------------------------------------------------------

namespace {
// What verify's memory guard says about (t, p, r) where the instance goes to
// the generic simulation (dense or intervals; not the certified quotient,
// whose row is sized and stopped as it runs): the checker's own estimate
// (estimate_memory, from rank 0's steps) against --max-memory, with the
// checker's refusal text. It builds the schedule (its generators are lazy)
// and reads rank 0's steps: done only for the sampled instances that do not
// go to the quotient.
std::optional<std::string> guard_refusal(const SweepTarget& t, uint64_t p, uint32_t r, const CheckOptions& o) {
  if (!o.max_memory || !o.any_generic_selected()) return std::nullopt;
  std::optional<std::string> out;
  try {
    const MemoryEstimate est = estimate_memory(*t.variant->make(t.params(p, r)), o);
    if (est.bytes > o.max_memory) out = refusal(est, o.max_memory);
  } catch (const InputError& e) {  // verify cannot build it either
    out = e.what();
  }
  return out;
}
}  // namespace

Estimate project_sweep(const SweepRequest& req, const EstimateOptions& o, std::vector<Calibration> calibrations) {
  Estimate e;
  e.cores = default_cores(o);
  e.calibrations = std::move(calibrations);
  for (const auto& c : e.calibrations) e.calibration_cpu_seconds += c.cpu_seconds;
  e.p_values = req.ps.size();
  e.guard_seconds = o.guard_seconds;
  constexpr uint64_t kOneRun = kMaxSweepInstances;
  for (size_t ti = 0; ti < req.targets.size(); ++ti) {
    const SweepTarget& t = req.targets[ti];
    TargetProjection tp;
    tp.name = target_name(t);
    const TargetJobs jobs(t, req.ps);
    tp.instances = jobs.count();
    const BlockRule rule = block_rule(t);
    // The regime's calibration of the same method, else of the other (a
    // class of p the regimes' sample did not see).
    auto model_for = [&](bool exact, bool rank_zero) -> const Calibration* {
      const Calibration* other = nullptr;
      for (const auto& c : e.calibrations)
        if (c.target == ti && c.exact == exact && !c.points.empty()) {
          if (c.rank_zero == rank_zero) return &c;
          other = &c;
        }
      if (other) return other;
      for (const auto& c : e.calibrations)
        if (c.target == ti && c.exact == exact) return &c;
      return nullptr;
    };
    for (const auto& c : e.calibrations)
      if (c.target == ti)
        for (const auto& q : c.points) tp.max_calibrated_p = std::max(tp.max_calibrated_p, q.p);
    // Every job, or one job per stratum of consecutive jobs, weighted by the
    // stratum's allowed jobs: a stratum of at most 64 jobs is scanned whole
    // (a sparse restriction such as "p a power of two" is never missed), a
    // larger one sampled 64 times (its allowed share estimated from them).
    // Nothing per job is stored (--radix all reaches 2^31 jobs).
    // Whether verify's memory guard refuses the largest allowed instance
    // that does not go to the quotient (asked once, on first use).
    std::optional<bool> largest_guard;
    auto largest_guarded = [&]() {
      if (largest_guard) return *largest_guard;
      largest_guard = false;
      for (size_t i = req.ps.size(); i-- > 0;) {
        const uint64_t p = req.ps[i];
        const uint32_t r = t.all_radices && p >= 2 ? 2 : 0;
        if (!allowed(t, p, r)) continue;
        largest_guard = guard_refusal(t, p, r, req.check).has_value();
        break;
      }
      return *largest_guard;
    };
    // The guard builds the schedule and reads rank 0's steps: cheap for most
    // generators, O(p) per step for some (TRA's two-level all-to-all), and
    // then asking it at every sample is quadratic in the range (417 s of a
    // 419 s estimate for tra2/paper-literal over 1..2^16, calibration 1.4
    // s). Once its answers have cost o.guard_seconds, the answer of an earlier
    // sample in the same bucket of p (1/16 of an octave: memory grows with
    // p) is reused for the bucket's other samples, and the report says how
    // many were (guard_reused). A projection, not a verdict.
    std::map<int64_t, bool> guard_bucket;
    double guard_seconds = 0;
    auto guard_refuses = [&](uint64_t p, uint32_t r) {
      const auto bucket = static_cast<int64_t>(std::floor(16 * std::log2(static_cast<double>(std::max<uint64_t>(p, 1)))));
      if (guard_seconds >= o.guard_seconds)
        if (const auto it = guard_bucket.find(bucket); it != guard_bucket.end()) {
          ++tp.guard_reused;
          return it->second;
        }
      const double t0 = cpu_seconds();
      const bool refused = guard_refusal(t, p, r, req.check).has_value();
      guard_seconds += cpu_seconds() - t0;
      ++tp.guard_asked;
      guard_bucket[bucket] = refused;
      return refused;
    };
    const uint64_t n = jobs.count();
    const uint64_t strata = std::min<uint64_t>(n, std::max<uint64_t>(o.max_exact_samples, 1));
    std::mt19937_64 rng(24301 + ti);
    std::vector<uint64_t> allowed_here;
    for (uint64_t s = 0; s < strata; ++s) {
      const uint64_t a = s * n / strata, b = (s + 1) * n / strata;
      if (a == b) continue;
      allowed_here.clear();
      const uint64_t tries = b - a <= 64 ? b - a : 64;
      for (uint64_t i = 0; i < tries; ++i) {
        const uint64_t k = b - a <= 64 ? a + i : a + rng() % (b - a);
        const auto [p, r] = jobs.at(k);
        if (auto why = t.variant->violates(t.params(p, r))) {
          if (!req.skip_restricted) throw InputError(restriction_message(t, p, r, *why));
        } else {
          allowed_here.push_back(k);
        }
      }
      const uint64_t allowed = allowed_here.empty() ? 0
                               : b - a <= 64       ? allowed_here.size()
                                                   : std::max<uint64_t>(1, (b - a) * allowed_here.size() / tries);
      tp.skipped += (b - a) - allowed;
      if (allowed == 0) continue;
      const uint64_t k = allowed_here[rng() % allowed_here.size()];
      const double weight = static_cast<double>(allowed);
      const auto [p, r] = jobs.at(k);
      ++tp.sampled;
      const uint64_t nb = nblocks_of(t, rule, p, r);
      if (req.check.any_generic_selected() && projected_refusal(t, p, nb, req.check)) {
        tp.refused += allowed;
        continue;
      }
      const InstanceWork w = instance_work(t, p, r, nb, req.check);
      // Verify's memory guard: asked per sampled instance only where it
      // refuses the target's largest instance (memory grows with p; asking
      // every sample builds thousands of schedules, 90 s for Swing's
      // readings to 2^14).
      if (!w.quotient && largest_guarded() && guard_refuses(p, r)) {
        tp.refused += allowed;
        continue;
      }
      tp.checked += allowed;
      const Calibration* cal = model_for(w.exact, w.quotient);
      if (!cal) throw std::logic_error("project_sweep: no calibration for " + tp.name);
      // A fold composition whose core p' = nblocks' ring is also swept reuses
      // that ring's certificate (properties/flow/group_quotient.hpp,
      // memo_key): only its wrapper and step hook run, a constant.
      const bool core_swept = w.grouped_fold && r == 0 && p >= 2 && std::binary_search(req.ps.begin(), req.ps.end(), p - 1);
      const double sec = std::max(0.0, cal->model.predict(static_cast<double>(p), w.rank_steps,
                                                          core_swept ? 0.0 : w.cell_words));
      tp.core_seconds += weight * sec;
      if (sec > tp.largest_instance_seconds) tp.largest_instance_seconds = sec, tp.longest_p = p;
    }
    // The largest instance: memory and whether the checker refuses it.
    for (size_t i = req.ps.size(); i-- > 0;) {
      const uint64_t p = req.ps[i];
      const uint32_t r = t.all_radices && p >= 2 ? 2 : 0;
      if (!allowed(t, p, r)) continue;
      tp.largest_p = p;
      tp.largest_nblocks = nblocks_of(t, rule, p, r);
      tp.largest_memory_bytes = instance_memory_bytes(p, tp.largest_nblocks, req.check);
      if (req.check.any_generic_selected()) {
        const InstanceWork w = instance_work(t, p, r, tp.largest_nblocks, req.check);
        if (w.parametric) {
          tp.largest_memory_bytes = 0;  // a few counts; nothing is simulated
          tp.largest_parametric = true;
        } else if (auto why = projected_refusal(t, p, tp.largest_nblocks, req.check))
          tp.refusal = *why;
        else if (auto guard = w.quotient ? std::nullopt : guard_refusal(t, p, r, req.check))
          tp.refusal = *guard;
        else if (w.intervals || (w.quotient && t.variant->symmetry == SymmetryGroup::translations &&
                                  t.algorithm->collective == Collective::alltoall))
          // The checker's own estimate: intervals, or an all-to-all's quotient
          // (rank 0's held cells, which the sweep's cost model does not size).
          tp.largest_memory_bytes = estimate_memory(*t.variant->make(t.params(p, r)), req.check).bytes;
      }
      break;
    }
    e.instances += tp.instances;
    e.core_seconds += tp.core_seconds;
    e.largest_instance_seconds = std::max(e.largest_instance_seconds, tp.largest_instance_seconds);
    e.targets.push_back(std::move(tp));
  }
  e.wall_seconds = std::max(e.core_seconds, e.largest_instance_seconds) / e.cores;
  e.beyond_one_run = e.p_values > kOneRun || e.instances > kOneRun;
  if (e.beyond_one_run)
    e.notes.push_back(std::string("more than ") + kMaxSweepInstancesText +
                      " p values or instances: one `verify` run refuses this; split the range (e.g. one run per " +
                      kMaxSweepInstancesText + " p values) or shard it with mpirun");
  return e;
}

namespace {
// The sweep's own cost per instance beside its checks: a result kept (lean
// above kLeanAbove instances, as run_sweep keeps it), grouped and rendered
// in the text report, and freed. Measured on kCopies copies (at distinct p)
// of one real result, the first calibration point's (a small p: never one
// of the request's own, which may be huge), added to every target per
// instance.
void add_keeping_cost(Estimate& e) {
  constexpr size_t kCopies = 16384;
  const InstanceResult* sample = nullptr;
  for (const Calibration& c : e.calibrations)
    if (c.sample) {
      sample = &*c.sample;
      break;
    }
  if (!sample || e.instances == 0) return;
  const bool lean = e.instances > kLeanAbove;
  const double t0 = cpu_seconds();
  {
    Report r;
    r.instances.resize(kCopies);
    for (size_t k = 0; k < kCopies; ++k) {
      r.instances[k] = *sample;
      r.instances[k].p = k + 1;
      if (lean) make_lean(r.instances[k]);
    }
    static_cast<void>(render(r, Format::text));
  }
  e.keeping_seconds_per_instance = (cpu_seconds() - t0) / kCopies;
  e.core_seconds = 0;
  for (TargetProjection& tp : e.targets) {
    tp.core_seconds += e.keeping_seconds_per_instance * static_cast<double>(tp.instances);
    e.core_seconds += tp.core_seconds;
  }
  e.wall_seconds = std::max(e.core_seconds, e.largest_instance_seconds) / e.cores;
}
}  // namespace

void check_estimate_request(const SweepRequest& req) {
  validate(req);
  // Restricted instances without --skip-restricted: the message verify gives
  // (checked for every instance when there are at most 2^24 of them, else on
  // the projection's sample).
  if (!req.skip_restricted)
    for (const auto& t : req.targets) {
      const TargetJobs jobs(t, req.ps);
      if (jobs.count() > (uint64_t{1} << 24)) continue;
      jobs.each([&](uint64_t p, uint32_t r) {
        if (auto why = t.variant->violates(t.params(p, r))) throw InputError(restriction_message(t, p, r, *why));
      });
    }
}

Estimate estimate_sweep(const SweepRequest& req, const EstimateOptions& o) {
  check_estimate_request(req);
  std::vector<Calibration> cals;
  {
    // Single-threaded: the measured CPU seconds are core-seconds.
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    for (size_t ti = 0; ti < req.targets.size(); ++ti) {
      const SweepTarget& t = req.targets[ti];
      const BlockRule rule = block_rule(t);
      const int preferred = dominant_class(t, req.ps);
      for (const Regime& g : regimes_of(t, req.ps, req.check))
        cals.push_back(calibrate(ti, t, g, req.ps, req.check, rule, o.calibrate_seconds, preferred));
    }
  }
  Estimate e = project_sweep(req, o, std::move(cals));
  add_keeping_cost(e);
  return e;
}

// ---- rendering ------------------------------------------------------------

std::string render_estimate_text(const Estimate& e, const SweepRequest& req) {
  std::ostringstream out;
  char buf[512];
  const uint64_t maxp = req.ps.empty() ? 0 : req.ps.back();
  out << "collcheck estimate (nothing verified): " << e.targets.size() << " target(s), " << e.p_values
      << " p value(s) in " << (req.ps.empty() ? 0 : req.ps.front()) << ".." << maxp << ", " << e.instances
      << " instance(s)\n";
  out << "calibration: check_instance with the requested properties and options, single-threaded, process CPU "
         "time, on this machine:\n";
  for (const auto& c : e.calibrations) {
    const auto& t = req.targets[c.target];
    std::string ps;
    for (const auto& q : c.points) ps += (ps.empty() ? "" : ",") + std::to_string(q.p);
    std::snprintf(buf, sizeof buf,
                  "  %-34s %-11s p = %s (%zu points, %.2f CPU s); max misfit %.0f%%",
                  target_name(t).c_str(), (std::string(c.exact ? "exact" : "fingerprint") +
                                           (c.rank_zero ? "" : ", enumerated")).c_str(),
                  ps.c_str(), c.points.size(),
                  c.cpu_seconds, 100 * c.max_misfit);
    out << buf;
    if (c.points.size() >= 3) {
      std::snprintf(buf, sizeof buf, "; fitted without p = %llu it predicts it %+.0f%%",
                    static_cast<unsigned long long>(c.points.back().p), 100 * c.holdout_error);
      out << buf;
    }
    out << "\n";
    std::snprintf(buf, sizeof buf,
                  "    t = %.3g s + %.3g s * rank-steps + %.3g s * cell-words + %.3g s * cell-words/p\n", c.model.a,
                  c.model.b, c.model.c, c.model.d);
    out << buf;
  }
  out << "projection (fitted time of every instance"
      << (std::any_of(e.targets.begin(), e.targets.end(), [](const auto& tp) { return tp.sampled < tp.instances; })
              ? "; above 2^16 instances per target a stratified random sample"
              : "")
      << "):\n";
  for (const auto& tp : e.targets) {
    std::snprintf(buf, sizeof buf,
                  "  %-34s %9llu instances (%llu checked, %llu skipped, %llu refused)  %10.4f core-hours\n",
                  tp.name.c_str(), static_cast<unsigned long long>(tp.instances),
                  static_cast<unsigned long long>(tp.checked), static_cast<unsigned long long>(tp.skipped),
                  static_cast<unsigned long long>(tp.refused), tp.core_seconds / 3600);
    out << buf;
    if (tp.longest_p) {
      out << "    longest instance p = " << tp.longest_p << ": " << human_seconds(tp.largest_instance_seconds);
      if (tp.max_calibrated_p && tp.longest_p >= 2 * tp.max_calibrated_p)
        out << " (extrapolated " << std::llround(double(tp.longest_p) / double(tp.max_calibrated_p))
            << "x beyond the largest calibrated p = " << tp.max_calibrated_p << ")";
      out << "\n";
    }
    if (tp.guard_reused)
      out << "    memory guard: asked at " << tp.guard_asked << " sampled instances; once that had cost "
          << e.guard_seconds << " CPU s, its answer reused for " << tp.guard_reused
          << " more from a sample of the same bucket of p (1/16 of an octave)\n";
    if (tp.largest_p) {
      out << "    largest p = " << tp.largest_p << " (" << tp.largest_nblocks << " blocks): ";
      if (tp.largest_parametric)
        out << "decided by a parametric certificate (no contribution state)\n";
      else if (tp.refusal.empty())
        out << "at most " << human_bytes(static_cast<double>(tp.largest_memory_bytes))
            << " (contribution state or interval pieces, outbox, rank programs)\n";
      else
        out << "refused by the checker, not counted above: " << tp.refusal << "\n";
    }
  }
  if (e.keeping_seconds_per_instance > 0) {
    std::snprintf(buf, sizeof buf,
                  "keeping each result and rendering it in the text report: %.3g us per instance (measured on copies "
                  "of one result), %.4g core-seconds of the total\n",
                  1e6 * e.keeping_seconds_per_instance, e.keeping_seconds_per_instance * double(e.instances));
    out << buf;
  }
  std::snprintf(buf, sizeof buf, "total: %.4g core-hours (%.4g core-seconds)\n", e.core_seconds / 3600,
                e.core_seconds);
  out << buf;
  out << "wall time on this machine (" << e.cores << " core" << (e.cores == 1 ? "" : "s")
      << ", ideal scaling): " << human_seconds(e.wall_seconds) << "; on one core: "
      << human_seconds(std::max(e.core_seconds, e.largest_instance_seconds)) << "\n";
  out << "sharded with mpirun over K machines like this one: about " << human_seconds(e.wall_seconds)
      << " / K, never below the largest instance (" << human_seconds(e.largest_instance_seconds / e.cores)
      << ")\n";
  std::snprintf(buf, sizeof buf,
                "calibration took %.2f CPU s; refused instances (exact mode over --memory-gib %.3g, a dense state "
                "over 2^32 cells with transfers too scattered for intervals, or over --max-memory by the checker's own "
                "estimate) are not in the totals\n",
                e.calibration_cpu_seconds, double(req.check.memory_budget) / double(1ULL << 30));
  out << buf;
  for (const auto& n : e.notes) out << "note: " << n << "\n";
  return out.str();
}

std::string render_estimate_json(const Estimate& e) {
  using nlohmann::json;
  json cals = json::array();
  for (const auto& c : e.calibrations) {
    json pts = json::array();
    for (const auto& q : c.points)
      pts.push_back({{"p", q.p}, {"radix", q.radix}, {"seconds", q.seconds}, {"runs", q.runs},
                     {"rank_steps", q.rank_steps}, {"cell_words", q.cell_words}});
    cals.push_back({{"target", c.target},
                    {"mode", c.exact ? "exact" : "fingerprint"},
                    {"rank_zero", c.rank_zero},
                    {"points", pts},
                    {"model", {{"a", c.model.a}, {"b", c.model.b}, {"c", c.model.c}, {"d", c.model.d}}},
                    {"max_misfit", c.max_misfit},
                    {"holdout_error", c.holdout_error},
                    {"cpu_seconds", c.cpu_seconds}});
  }
  json targets = json::array();
  for (const auto& tp : e.targets)
    targets.push_back({{"target", tp.name},
                       {"instances", tp.instances},
                       {"checked", tp.checked},
                       {"skipped", tp.skipped},
                       {"refused", tp.refused},
                       {"sampled", tp.sampled},
                       {"core_seconds", tp.core_seconds},
                       {"largest_instance_seconds", tp.largest_instance_seconds},
                       {"longest_p", tp.longest_p},
                       {"largest_p", tp.largest_p},
                       {"largest_nblocks", tp.largest_nblocks},
                       {"largest_memory_bytes", tp.largest_memory_bytes},
                       {"largest_parametric", tp.largest_parametric},
                       {"refusal", tp.refusal.empty() ? json(nullptr) : json(tp.refusal)},
                       {"max_calibrated_p", tp.max_calibrated_p},
                       {"guard_asked", tp.guard_asked},
                       {"guard_reused", tp.guard_reused}});
  json j{{"kind", "estimate"},
         {"p_values", e.p_values},
         {"instances", e.instances},
         {"core_seconds", e.core_seconds},
         {"core_hours", e.core_seconds / 3600},
         {"cores", e.cores},
         {"wall_seconds", e.wall_seconds},
         {"largest_instance_seconds", e.largest_instance_seconds},
         {"calibration_cpu_seconds", e.calibration_cpu_seconds},
         {"keeping_seconds_per_instance", e.keeping_seconds_per_instance},
         {"beyond_one_run", e.beyond_one_run},
         {"calibrations", cals},
         {"targets", targets},
         {"notes", e.notes}};
  return j.dump(2) + "\n";
}

}  // namespace collcheck
