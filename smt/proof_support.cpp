#include "smt/proof_support.hpp"

#include <cassert>
#include <cstdio>

#include "schedules/input_error.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt::support {

using Clock = std::chrono::steady_clock;

std::string z3_version() {
  unsigned major = 0, minor = 0, build = 0, rev = 0;
  Z3_get_version(&major, &minor, &build, &rev);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
}

unsigned bits_for(uint64_t v) {
  unsigned w = 1;
  while (w < 64 && (v >> w) != 0) ++w;
  return w;
}

Budget::Budget(z3::context& c, unsigned timeout_ms) : c_(c), timeout_ms_(timeout_ms), start_(Clock::now()) {}

std::optional<unsigned> Budget::remaining() {
  if (timeout_ms_ == 0) return std::nullopt;
  auto used = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
  if (used >= static_cast<long long>(timeout_ms_)) {
    reason_ = "timeout";
    return std::nullopt;
  }
  return static_cast<unsigned>(timeout_ms_ - used);
}

z3::check_result Budget::check(z3::solver& s, const std::string& label, bool dump) {
  std::optional<unsigned> left = remaining();
  if (timeout_ms_ != 0 && !left) return z3::unknown;
  if (left) s.set("timeout", *left);
  auto t0 = Clock::now();
  z3::check_result r = s.check();
  seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
  ++calls_;
  if (r == z3::unknown) {
    reason_ = s.reason_unknown();
    if (reason_ == "canceled" || reason_ == "timeout") reason_ = "timeout";
  }
  if (dump) dump_smt2(s, label, r);
  return r;
}

z3::check_result Budget::check_tactic(const z3::tactic& t, const z3::expr& assertion, const std::string& label,
                                      double& seconds) {
  seconds = 0;
  std::optional<unsigned> left = remaining();
  if (timeout_ms_ != 0 && !left) return z3::unknown;
  z3::tactic bounded = left ? z3::try_for(t, *left) : t;
  z3::solver s = bounded.mk_solver();
  s.add(assertion);
  auto t0 = Clock::now();
  z3::check_result r = s.check();
  seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  seconds_ += seconds;
  ++calls_;
  if (r == z3::unknown) {
    reason_ = s.reason_unknown();
    if (reason_ == "canceled" || reason_ == "timeout") reason_ = "timeout";
  }
  dump_smt2(s, label, r);
  return r;
}

std::vector<uint64_t> Budget::minimise(z3::solver& s, const std::vector<z3::expr>& vars, bool& complete) {
  complete = true;
  z3::model m = s.get_model();
  auto value = [&](const z3::expr& x) { return m.eval(x, true).get_numeral_uint64(); };
  for (const z3::expr& x : vars) {
    uint64_t lo = 0, hi = value(x);
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      s.push();
      s.add(z3::ule(x, c_.bv_val(mid, x.get_sort().bv_size())));
      z3::check_result r = check(s, "", false);
      if (r == z3::sat) {
        m = s.get_model();
        hi = value(x);
      }
      s.pop();
      if (r == z3::unsat) lo = mid + 1;
      else if (r == z3::unknown) {
        complete = false;
        break;
      }
    }
    if (!complete) break;
    s.add(x == c_.bv_val(hi, x.get_sort().bv_size()));
  }
  std::vector<uint64_t> out;
  for (const z3::expr& x : vars) out.push_back(value(x));
  return out;
}

void Budget::fill_stats(Verdict& v) const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds_);
  v.stats["solver_seconds"] = buf;
  v.stats["solver_calls"] = std::to_string(calls_);
  v.checks = calls_;
  if (v.status == Status::unknown && !reason_.empty() && !v.stats.count("reason_unknown"))
    v.stats["reason_unknown"] = reason_;
}

Verdict guarded(const std::string& property, const std::function<void(z3::context&, Verdict&)>& body) {
  Verdict v;
  v.property = property;
  v.mode = "z3";
  v.stats["z3_version"] = z3_version();
  auto fail = [&](const std::string& what) {
    v.status = Status::unknown;
    v.counterexample.reset();
    v.violations = 0;
    v.stats["error"] = what;
  };
  try {
    z3::context c;
    body(c, v);
  } catch (const z3::exception& ex) {
    fail(std::string("z3: ") + ex.msg());
  } catch (const InputError&) {
    throw;  // bad input (e.g. an unwritable --smt2-dir) stays exit 2, never an unknown verdict
  } catch (const std::exception& ex) {
    fail(ex.what());
  }
  return v;
}

Verdict skipped(const std::string& property, const std::string& reason) {
  Verdict v;
  v.property = property;
  v.mode = "z3";
  v.status = Status::skipped;
  v.stats["reason"] = reason;
  return v;
}

bool refute(Budget& b, Verdict& v, const std::string& label, const z3::expr& violation,
            const std::vector<z3::expr>& vars, const Explain& explain) {
  z3::solver s = b.solver();
  s.add(violation);
  switch (b.check(s, label)) {
    case z3::unsat: return true;
    case z3::unknown:
      v.status = Status::unknown;
      v.stats["stopped_at"] = label;
      return false;
    case z3::sat: break;
  }
  bool complete = true;
  std::vector<uint64_t> vals = b.minimise(s, vars, complete);
  v.stats["minimisation"] = complete ? "complete" : "stopped by the time budget (not necessarily minimal)";
  if (std::optional<Counterexample> cx = explain(vals)) {
    v.fail(std::move(*cx));
    v.stats["violated_at"] = label;
  } else {
    v.status = Status::unknown;
    v.stats["error"] = "internal: the Z3 model of '" + label + "' does not replay concretely (encoding bug)";
  }
  return false;
}

z3::expr bv(z3::context& c, uint64_t v, unsigned w) { return c.bv_val(v, w); }

z3::expr select(z3::context& c, const z3::expr& x, const std::vector<uint64_t>& values, unsigned w) {
  assert(!values.empty());
  unsigned xw = x.get_sort().bv_size();
  z3::expr acc = c.bv_val(values.back(), w);
  for (size_t i = values.size() - 1; i-- > 0;) acc = z3::ite(x == c.bv_val(i, xw), c.bv_val(values[i], w), acc);
  return acc;
}

namespace {
z3::expr mux(z3::context& c, const z3::expr& x, const std::vector<uint64_t>& values, unsigned w, unsigned level,
             uint64_t base) {
  if (base >= values.size()) return c.bv_val(values.back(), w);  // outside the domain: any value
  if (level == 0) return c.bv_val(values[base], w);
  const uint64_t half = uint64_t{1} << (level - 1);
  if (base + half >= values.size()) return mux(c, x, values, w, level - 1, base);
  return z3::ite(x.extract(level - 1, level - 1) == c.bv_val(1, 1), mux(c, x, values, w, level - 1, base + half),
                 mux(c, x, values, w, level - 1, base));
}
}  // namespace

z3::expr table(z3::context& c, const z3::expr& x, const std::vector<uint64_t>& values, unsigned w) {
  assert(!values.empty());
  unsigned levels = bits_for(values.size() - 1);
  if (values.size() == 1) levels = 0;
  // Bits of x above `levels` are ignored (aliasing): callers constrain x < size.
  return mux(c, x, values, w, levels, 0);
}

std::string u128_string(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v) {
    s.insert(s.begin(), char('0' + int(v % 10)));
    v /= 10;
  }
  return s;
}

}  // namespace collcheck::smt::support
