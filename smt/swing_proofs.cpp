// Z3 proofs about Swing's peer function for one p and all ranks at once.
//
// What is symbolic. Each query is a quantifier-free bit-vector formula (QF_BV)
// whose free constants are the universally quantified variables of the
// property: the rank r (constrained r < p), the step s (constrained s <= k-1,
// k = ceil(log2 p)) and, for path properties, step sequences. A sequence of
// steps s_0 < s_1 < ... < s_{m-1} taken from {0..k-1} is a k-bit mask S (bit
// i set = step i taken); since the steps are increasing, the mask *is* the
// sequence. Z3 is asked whether the negation of the property is satisfiable.
// Bit-vector satisfiability is decidable and Z3 decides it completely
// (bit-blasting to SAT), so "unsat" is a proof that the property holds for
// every r < p and every step (sequence) of this p, not a sample; "sat" comes
// with a model, i.e. a concrete violation. Only a timeout gives "unknown".
//
// Widths. Node values are bit-vectors of width w:
//   - p = 2^k: w = k. Bit-vector + and - are arithmetic modulo 2^k = p, so
//     pi(r, s) = r + rho(s) or r - rho(s) (rho(s) as k-bit two's complement)
//     needs no reduction at all, and every k-bit value is a rank, so r < p is
//     automatic. This keeps p = 2^21 (and 2^32) tiny: a handful of k-bit
//     adders.
//   - other p: the value before reduction is x + bias*p +/- y with x in
//     [0, p), |y| <= bound and bias*p >= bound, an integer in
//     [0, p-1+bias*p+bound]. w is chosen so that this range fits in w bits;
//     then the w-bit result (two's-complement wrap-around of intermediate
//     sums is harmless, because the final integer lies in [0, 2^w)) equals
//     the integer, and bvurem by p is exactly "mod p" with a non-negative
//     representative, as swing::pi computes it. For one step,
//     |rho(s)| <= 2^s <= 2^(k-1) < p, so bias = 1; for the closed-form sum
//     of Eq. 4, |sum| <= B = sum_{s<k} delta(s), so bias = ceil(B/p).
//   rho(s) for a symbolic s is an if-then-else chain over the k constants
//   swing::rho(0..k-1); a node's parity is its bit 0 (p even or 2^k) or, for
//   odd p, still bit 0 because nodes are kept as their representative in
//   [0, p), exactly like swing::pi.
//
// Reaching nodes. Two encodings of "the node r reaches through S":
//   - iterated: node_0 = r, node_{i+1} = S_i ? pi(node_i, i) : node_i, with
//     pi choosing + or - by the parity of node_i. This is the schedule's own
//     definition (swing::reach_multiset), valid for every p.
//   - closed form (Eq. 4 / proof of Theorem A.5): r + sign(r) * sum_j
//     (-1)^j rho(s_j) mod p with sign(r) = +1 for even r, -1 for odd r. The
//     sign of step i is the parity of the number of chosen steps below i,
//     i.e. a prefix XOR of the mask bits. It relies on Lemma A.2 (parity
//     alternates along a path), which holds only for even p;
//     smt-swing-reach-closed-form proves the two encodings agree for even p
//     (and finds where they differ for odd p).
//   smt-swing-unique-paths uses the closed form for even p, as the paper's
//   proof does, and the iterated form for odd p, where the closed form does
//   not describe the schedule.
//
// Counterexamples. After "sat" the counterexample is made canonical (the
// choice never depends on Z3's model): the variables are minimised
// lexicographically (rank first, then step / sequences) by binary search with
// extra "x <= mid" assertions under push/pop. The minimal assignment is then
// replayed with the concrete swing::pi; if the replay does not confirm the
// violation the encoding is wrong, which is reported as Status::unknown with
// stats["error"] (and asserts in debug builds) rather than as a violation.
#include "smt/swing_proofs.hpp"

#include <z3++.h>

#include <cassert>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "schedules/swing_math.hpp"

namespace collcheck::smt {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kMaxP = uint64_t{1} << 32;

unsigned bits_for(uint64_t v) {  // smallest w >= 1 with v < 2^w
  unsigned w = 1;
  while (w < 64 && (v >> w) != 0) ++w;
  return w;
}

std::string steps_csv(uint64_t mask, int k) {
  std::string out;
  for (int i = 0; i < k; ++i)
    if (mask >> i & 1) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out;
}
std::string steps_set(uint64_t mask, int k) { return "{" + steps_csv(mask, k) + "}"; }

std::string u128_string(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v) { s.insert(s.begin(), char('0' + int(v % 10))); v /= 10; }
  return s;
}

// Concrete ground truth: the node r reaches by taking the steps of `mask` in
// increasing order, each with swing::pi; also the path as text "0 -s0-> 1 ...".
Rank reach_concrete(Rank r, uint64_t mask, int k, uint64_t p, std::string* path) {
  if (path) *path = std::to_string(r);
  for (int i = 0; i < k; ++i) {
    if (!(mask >> i & 1)) continue;
    r = swing::pi(r, i, p);
    if (path) *path += " -s" + std::to_string(i) + "-> " + std::to_string(r);
  }
  return r;
}
// Eq. 4's alternating sum sum_j (-1)^j rho(s_j), as an integer.
int64_t closed_sum_concrete(uint64_t mask, int k) {
  int64_t sum = 0;
  int j = 0;
  for (int i = 0; i < k; ++i)
    if (mask >> i & 1) sum += (j++ % 2 == 0 ? 1 : -1) * swing::rho(i);
  return sum;
}

// The bit-vector model of Z_p described in the header comment.
class Ring {
 public:
  Ring(z3::context& c, uint64_t p) : c_(c), p_(p), k_(swing::ceil_log2(p)), pow2_(swing::is_pow2(p)) {
    uint64_t bound = 0;  // B = sum_{s<k} delta(s) >= |closed-form sum|
    for (int s = 0; s < k_; ++s) bound += swing::delta(s);
    if (pow2_) {
      w_ = static_cast<unsigned>(k_);
    } else {
      sum_bias_ = std::max<uint64_t>(1, (bound + p - 1) / p);
      w_ = std::max(bits_for(3 * p), bits_for(p - 1 + sum_bias_ * p + bound));
    }
    assert(w_ >= 1 && w_ < 64);
  }

  int k() const { return k_; }
  unsigned width() const { return w_; }
  uint64_t p() const { return p_; }
  bool pow2() const { return pow2_; }

  // v mod 2^w, i.e. its w-bit two's complement.
  z3::expr num(int64_t v) const {
    uint64_t mask = (uint64_t{1} << w_) - 1;
    return c_.bv_val(static_cast<uint64_t>(v) & mask, w_);
  }
  z3::expr rank_var(const char* name) const { return c_.bv_const(name, w_); }
  z3::expr in_range(const z3::expr& x) const {
    return pow2_ ? c_.bool_val(true) : z3::ult(x, c_.bv_val(p_, w_));
  }
  z3::expr odd(const z3::expr& x) const { return x.extract(0, 0) == c_.bv_val(1, 1); }

  // x mod p for x in [-bias*p, 2^w - bias*p) as an integer (see header comment).
  z3::expr mod(const z3::expr& x, uint64_t bias) const {
    if (pow2_) return x;
    return z3::urem(x + c_.bv_val(bias * p_, w_), c_.bv_val(p_, w_));
  }

  // Step variable: bits enough for k-1, constrained by step_range().
  z3::expr step_var(const char* name) const { return c_.bv_const(name, step_width()); }
  unsigned step_width() const { return bits_for(static_cast<uint64_t>(k_ - 1)); }
  z3::expr step_range(const z3::expr& s) const {
    return z3::ule(s, c_.bv_val(static_cast<uint64_t>(k_ - 1), step_width()));
  }
  z3::expr rho(const z3::expr& s) const {
    z3::expr acc = num(swing::rho(k_ - 1));
    for (int i = k_ - 2; i >= 0; --i)
      acc = z3::ite(s == c_.bv_val(static_cast<uint64_t>(i), step_width()), num(swing::rho(i)), acc);
    return acc;
  }

  // Eq. 2 with a symbolic rank and a symbolic (or constant) rho.
  z3::expr pi(const z3::expr& r, const z3::expr& rho) const {
    return mod(z3::ite(odd(r), r - rho, r + rho), 1);
  }

  // Step-sequence masks have k bits.
  z3::expr mask_var(const char* name) const { return c_.bv_const(name, static_cast<unsigned>(k_)); }
  z3::expr bit(const z3::expr& mask, int i) const {
    return mask.extract(static_cast<unsigned>(i), static_cast<unsigned>(i)) == c_.bv_val(1, 1);
  }

  // Iterated pi along the steps of S (valid for every p).
  z3::expr reach_iterated(const z3::expr& r, const z3::expr& S) const {
    z3::expr node = r;
    for (int i = 0; i < k_; ++i) node = z3::ite(bit(S, i), pi(node, num(swing::rho(i))), node);
    return node;
  }
  // Eq. 4: sum_j (-1)^j rho(s_j); the sign of step i is the parity of the
  // number of chosen steps below i (prefix XOR of the mask).
  z3::expr closed_sum(const z3::expr& S) const {
    z3::expr sum = num(0);
    z3::expr par = c_.bv_val(0, 1);
    for (int i = 0; i < k_; ++i) {
      z3::expr b = S.extract(static_cast<unsigned>(i), static_cast<unsigned>(i));
      z3::expr term = z3::ite(par == c_.bv_val(1, 1), num(-swing::rho(i)), num(swing::rho(i)));
      sum = sum + z3::ite(b == c_.bv_val(1, 1), term, num(0));
      par = par ^ b;
    }
    return sum;
  }
  // r + sum for even r, r - sum for odd r, mod p.
  z3::expr reach_closed(const z3::expr& r, const z3::expr& S) const {
    z3::expr sum = closed_sum(S);
    return mod(z3::ite(odd(r), r - sum, r + sum), sum_bias_);
  }

 private:
  z3::context& c_;
  uint64_t p_;
  int k_;
  bool pow2_;
  unsigned w_ = 1;
  uint64_t sum_bias_ = 0;
};

// One solver with a wall-clock budget, the statistics it feeds into the
// verdict and the lexicographic minimisation of counterexamples.
class Session {
 public:
  Session(z3::context& c, unsigned timeout_ms) : c_(c), s_(c), timeout_ms_(timeout_ms), start_(Clock::now()) {}

  z3::solver& solver() { return s_; }

  z3::check_result check() {
    if (timeout_ms_ != 0) {
      auto used = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
      if (used >= static_cast<long long>(timeout_ms_)) {
        reason_ = "timeout";
        return z3::unknown;
      }
      s_.set("timeout", static_cast<unsigned>(timeout_ms_ - used));
    }
    auto t0 = Clock::now();
    z3::check_result r = s_.check();
    seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
    ++calls_;
    if (r == z3::sat) model_ = s_.get_model();
    if (r == z3::unknown) reason_ = s_.reason_unknown();
    return r;
  }

  uint64_t value(const z3::expr& x) const { return model_->eval(x, true).get_numeral_uint64(); }

  // After a sat check: lexicographically smallest values of `vars` (in order)
  // among all models. Returns the values; `complete` is false if the budget
  // ran out, in which case the values are still those of a real model.
  std::vector<uint64_t> minimise(const std::vector<z3::expr>& vars, bool& complete) {
    complete = true;
    for (const z3::expr& x : vars) {
      uint64_t lo = 0, hi = value(x);
      while (complete && lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        s_.push();
        s_.add(z3::ule(x, c_.bv_val(mid, x.get_sort().bv_size())));
        z3::check_result r = check();
        if (r == z3::sat) hi = value(x);
        else if (r == z3::unsat) lo = mid + 1;
        else complete = false;
        s_.pop();
      }
      if (!complete) break;
      s_.add(x == c_.bv_val(hi, x.get_sort().bv_size()));
    }
    // The last sat model has every minimised variable at its final value:
    // hi only ever moves to a model's value.
    std::vector<uint64_t> out;
    for (const z3::expr& x : vars) out.push_back(value(x));
    return out;
  }

  void fill_stats(Verdict& v) const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", seconds_);
    v.stats["solver_seconds"] = buf;
    v.stats["solver_calls"] = std::to_string(calls_);
    v.checks = calls_;
    if (!reason_.empty() && v.status == Status::unknown) v.stats["reason_unknown"] = reason_;
  }

 private:
  z3::context& c_;
  z3::solver s_;
  unsigned timeout_ms_;
  Clock::time_point start_;
  double seconds_ = 0;
  uint64_t calls_ = 0;
  std::string reason_;
  std::optional<z3::model> model_;
};

std::string z3_version() {
  unsigned major = 0, minor = 0, build = 0, rev = 0;
  Z3_get_version(&major, &minor, &build, &rev);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
}

// What a query adds to the solver.
struct Encoded {
  std::string query;     // the negated property, as asserted
  std::string encoding;  // which reach encoding / arithmetic
  std::string instances; // how many concrete cases unsat covers
  std::vector<z3::expr> minimise;  // canonical counterexample order
};
using Build = std::function<Encoded(const Ring&, z3::solver&)>;
// Turns the minimised values into a counterexample after replaying them
// concretely; nullopt if the replay does not show a violation.
using Explain = std::function<std::optional<Counterexample>(const Ring&, const std::vector<uint64_t>&, Verdict&)>;

Verdict prove(const char* property, uint64_t p, unsigned timeout_ms, const Build& build, const Explain& explain) {
  Verdict v;
  v.property = property;
  v.mode = "z3";
  v.stats["z3_version"] = z3_version();
  if (p < 2 || p > kMaxP) {
    v.status = Status::skipped;
    v.stats["reason"] = "p=" + std::to_string(p) + " outside [2, 2^32]";
    return v;
  }
  try {
    z3::context c;
    Ring ring(c, p);
    Session session(c, timeout_ms);
    Encoded e = build(ring, session.solver());
    v.stats["query"] = e.query;
    v.stats["encoding"] = e.encoding;
    v.stats["instances"] = e.instances;
    v.stats["width"] = std::to_string(ring.width());
    switch (session.check()) {
      case z3::unsat:
        v.status = Status::holds;
        break;
      case z3::unknown:
        v.status = Status::unknown;
        break;
      case z3::sat: {
        bool complete = true;
        std::vector<uint64_t> vals = session.minimise(e.minimise, complete);
        v.stats["minimisation"] = complete ? "complete" : "stopped by the time budget (not necessarily minimal)";
        std::optional<Counterexample> cx = explain(ring, vals, v);
        if (cx) {
          v.fail(std::move(*cx));
        } else {
          assert(!"Z3 model does not replay concretely");
          v.status = Status::unknown;
          v.stats["error"] = "internal: Z3 model does not replay with swing::pi (encoding bug)";
        }
        break;
      }
    }
    session.fill_stats(v);
  } catch (const z3::exception& ex) {
    v.status = Status::unknown;
    v.counterexample.reset();
    v.stats["error"] = std::string("z3: ") + ex.msg();
  } catch (const std::exception& ex) {
    v.status = Status::unknown;
    v.counterexample.reset();
    v.stats["error"] = ex.what();
  }
  return v;
}

std::string instances_rs(const Ring& ring) {  // (r, s) pairs
  return u128_string(static_cast<unsigned __int128>(ring.p()) * static_cast<unsigned>(ring.k()));
}

}  // namespace

Verdict prove_swing_involution(uint64_t p, unsigned timeout_ms) {
  auto build = [](const Ring& ring, z3::solver& s) {
    z3::expr r = ring.rank_var("r");
    z3::expr st = ring.step_var("s");
    z3::expr rho = ring.rho(st);
    s.add(ring.in_range(r));
    s.add(ring.step_range(st));
    s.add(ring.pi(ring.pi(r, rho), rho) != r);
    return Encoded{"exists r < p, s < k: pi(pi(r,s),s) != r",
                   ring.pow2() ? "k-bit, mod 2^k by wrap-around" : "urem(x + p, p)",
                   instances_rs(ring), {r, st}};
  };
  auto explain = [](const Ring& ring, const std::vector<uint64_t>& x, Verdict&) -> std::optional<Counterexample> {
    Rank r = static_cast<Rank>(x[0]);
    int s = static_cast<int>(x[1]);
    uint64_t p = ring.p();
    Rank q = swing::pi(r, s, p);
    Rank back = swing::pi(q, s, p);
    if (back == r) return std::nullopt;
    Counterexample c;
    c.p = p;
    c.rank = r;
    c.step = s;
    c.peer = q;
    c.expected = "pi(pi(" + std::to_string(r) + "," + std::to_string(s) + ")," + std::to_string(s) + ") = " +
                 std::to_string(r);
    c.actual = "pi(pi(" + std::to_string(r) + "," + std::to_string(s) + ")," + std::to_string(s) + ") = pi(" +
               std::to_string(q) + "," + std::to_string(s) + ") = " + std::to_string(back);
    c.message = "Swing's peer relation is not symmetric at this step: rank " + std::to_string(r) + " sends to " +
                std::to_string(q) + " but " + std::to_string(q) + " sends to " + std::to_string(back) +
                (p % 2 ? " (p odd: Appendix A.2 runs Swing on p-1 nodes instead)" : "");
    return c;
  };
  return prove("smt-swing-involution", p, timeout_ms, build, explain);
}

Verdict prove_swing_unique_paths(uint64_t p, unsigned timeout_ms) {
  auto build = [](const Ring& ring, z3::solver& s) {
    z3::expr r = ring.rank_var("r");
    z3::expr S = ring.mask_var("S");
    z3::expr T = ring.mask_var("T");
    bool closed = ring.p() % 2 == 0;
    s.add(ring.in_range(r));
    s.add(z3::ult(S, T));  // S != T, symmetry broken
    if (closed) s.add(ring.reach_closed(r, S) == ring.reach_closed(r, T));
    else s.add(ring.reach_iterated(r, S) == ring.reach_iterated(r, T));
    unsigned __int128 seqs = static_cast<unsigned __int128>(1) << ring.k();
    return Encoded{
        "exists r < p, step masks S < T < 2^k: reach(r,S) = reach(r,T)",
        closed ? std::string("closed form of Eq. 4 (prefix-XOR signs)") +
                     (ring.pow2() ? ", k-bit, mod 2^k by wrap-around" : ", urem(x + bias*p, p)")
               : "iterated pi, urem(x + p, p) per step (odd p: Eq. 4 does not model pi)",
        u128_string(ring.p() * (seqs * (seqs - 1) / 2)),
        {r, S | T, S, T}};
  };
  auto explain = [](const Ring& ring, const std::vector<uint64_t>& x, Verdict& v) -> std::optional<Counterexample> {
    Rank r = static_cast<Rank>(x[0]);
    uint64_t S = x[2], T = x[3];
    int k = ring.k();
    uint64_t p = ring.p();
    std::string path_s, path_t;
    Rank qs = reach_concrete(r, S, k, p, &path_s);
    Rank qt = reach_concrete(r, T, k, p, &path_t);
    if (S == T || qs != qt) return std::nullopt;
    int last = 0;
    for (int i = 0; i < k; ++i)
      if ((S | T) >> i & 1) last = i;
    v.stats["cx_steps_a"] = steps_csv(S, k);
    v.stats["cx_steps_b"] = steps_csv(T, k);
    Counterexample c;
    c.p = p;
    c.rank = r;
    c.step = last;
    c.peer = qs;
    c.expected = "distinct step sequences from rank " + std::to_string(r) + " reach distinct nodes";
    c.actual = "steps " + steps_set(S, k) + " and " + steps_set(T, k) + " both reach node " + std::to_string(qs);
    std::string sums;
    if (p % 2 == 0)
      sums = " (Eq. 4 sums " + std::to_string(closed_sum_concrete(S, k)) + " and " +
             std::to_string(closed_sum_concrete(T, k)) + " are congruent mod " + std::to_string(p) + ")";
    c.message = "rank " + std::to_string(r) + " reaches node " + std::to_string(qs) + " twice: " + path_s + " and " +
                path_t + sums + "; Theorem A.5 needs p a power of two";
    return c;
  };
  return prove("smt-swing-unique-paths", p, timeout_ms, build, explain);
}

Verdict prove_swing_peer_parity(uint64_t p, unsigned timeout_ms) {
  auto build = [](const Ring& ring, z3::solver& s) {
    z3::expr r = ring.rank_var("r");
    z3::expr st = ring.step_var("s");
    z3::expr q = ring.pi(r, ring.rho(st));
    s.add(ring.in_range(r));
    s.add(ring.step_range(st));
    // For p = 2^k, q < p holds by width; otherwise urem guarantees it, and
    // asking anyway checks the reduction.
    s.add(q == r || ring.odd(q) == ring.odd(r) || !ring.in_range(q));
    return Encoded{"exists r < p, s < k: pi(r,s) = r or pi(r,s) = r (mod 2) or pi(r,s) >= p",
                   ring.pow2() ? "k-bit, mod 2^k by wrap-around" : "urem(x + p, p)", instances_rs(ring),
                   {r, st}};
  };
  auto explain = [](const Ring& ring, const std::vector<uint64_t>& x, Verdict&) -> std::optional<Counterexample> {
    Rank r = static_cast<Rank>(x[0]);
    int s = static_cast<int>(x[1]);
    uint64_t p = ring.p();
    Rank q = swing::pi(r, s, p);
    if (q != r && q % 2 != r % 2 && q < p) return std::nullopt;
    Counterexample c;
    c.p = p;
    c.rank = r;
    c.step = s;
    c.peer = q;
    c.expected = "a peer other than " + std::to_string(r) + " with the opposite parity";
    c.actual = "pi(" + std::to_string(r) + "," + std::to_string(s) + ") = " + std::to_string(q);
    c.message = "Lemma A.2 fails: rank " + std::to_string(r) + " and its step-" + std::to_string(s) + " peer " +
                std::to_string(q) + (q == r ? " coincide" : " have the same parity") +
                ", so paths do not alternate parity (p odd)";
    return c;
  };
  return prove("smt-swing-peer-parity", p, timeout_ms, build, explain);
}

Verdict prove_swing_reach_closed_form(uint64_t p, unsigned timeout_ms) {
  auto build = [](const Ring& ring, z3::solver& s) {
    z3::expr r = ring.rank_var("r");
    z3::expr S = ring.mask_var("S");
    s.add(ring.in_range(r));
    s.add(ring.reach_iterated(r, S) != ring.reach_closed(r, S));
    unsigned __int128 seqs = static_cast<unsigned __int128>(1) << ring.k();
    return Encoded{"exists r < p, step mask S < 2^k: iterated pi(r, S) != r +/- sum_j (-1)^j rho(s_j) mod p",
                   ring.pow2() ? "k-bit, mod 2^k by wrap-around" : "urem(x + bias*p, p)",
                   u128_string(ring.p() * seqs), {r, S}};
  };
  auto explain = [](const Ring& ring, const std::vector<uint64_t>& x, Verdict& v) -> std::optional<Counterexample> {
    Rank r = static_cast<Rank>(x[0]);
    uint64_t S = x[1];
    int k = ring.k();
    uint64_t p = ring.p();
    std::string path;
    Rank q = reach_concrete(r, S, k, p, &path);
    int64_t sum = closed_sum_concrete(S, k);
    int64_t m = static_cast<int64_t>(p);
    int64_t closed = ((static_cast<int64_t>(r) + (r % 2 ? -sum : sum)) % m + m) % m;
    if (closed == static_cast<int64_t>(q)) return std::nullopt;
    int last = 0;
    for (int i = 0; i < k; ++i)
      if (S >> i & 1) last = i;
    v.stats["cx_steps"] = steps_csv(S, k);
    Counterexample c;
    c.p = p;
    c.rank = r;
    c.step = last;
    c.peer = q;
    c.expected = "node " + std::to_string(closed) + " (Eq. 4: " + std::to_string(r) + (r % 2 ? " - " : " + ") + "(" +
                 std::to_string(sum) + ") mod " + std::to_string(p) + ")";
    c.actual = "node " + std::to_string(q) + " (" + path + ")";
    c.message = "the alternating-sign closed form of Eq. 4 does not describe the path along steps " +
                steps_set(S, k) + " (p odd: parity does not alternate, Lemma A.2)";
    return c;
  };
  return prove("smt-swing-reach-closed-form", p, timeout_ms, build, explain);
}

std::vector<Verdict> prove_swing(uint64_t p, unsigned timeout_ms) {
  return {prove_swing_involution(p, timeout_ms), prove_swing_unique_paths(p, timeout_ms),
          prove_swing_peer_parity(p, timeout_ms), prove_swing_reach_closed_form(p, timeout_ms)};
}

}  // namespace collcheck::smt
