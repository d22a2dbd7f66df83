// Z3 proofs about Swing's peer function for one p and all ranks at once.
//
// What is symbolic. Every query is a quantifier-free bit-vector formula (QF_BV)
// whose free constants are the universally quantified variables of the
// property: the rank r (constrained r < p), the step s (constrained s <= k-1,
// k = ceil(log2 p)) and, for path properties, step sequences. A sequence of
// steps s_0 < s_1 < ... < s_{m-1} from {0..k-1} is a k-bit mask S (bit i set
// = step i taken); the steps are increasing, so the mask *is* the sequence.
// Z3 is asked whether the negation of the property is satisfiable. QF_BV is
// decidable and Z3 decides it completely (bit-blasting to SAT), so "unsat" is
// a proof that the property holds for every r < p and every step (sequence)
// of this p, not a sample; "sat" comes with a model, i.e. a concrete
// violation. Only running out of time gives "unknown".
//
// Widths. Node values are bit-vectors of width w:
//   - p = 2^k: w = k. Bit-vector + and - are arithmetic modulo 2^k = p, so
//     pi(r, s) = r + rho(s) or r - rho(s) (rho(s) as k-bit two's complement)
//     needs no reduction at all, and every k-bit value is a rank, so r < p
//     is automatic. p = 2^21 is a few 21-bit adders.
//   - other p: before reduction a value is x + bias*p +/- y with x in [0, p),
//     |y| <= bound and bias*p >= bound, i.e. an integer in
//     [0, p-1+bias*p+bound]; w is chosen so that this fits. The w-bit result
//     then equals the integer (two's-complement wrap-around of intermediate
//     sums is harmless because the final integer lies in [0, 2^w)), and
//     bvurem by p is exactly "mod p" with the non-negative representative,
//     as swing::pi computes it. For one step |rho(s)| <= 2^s <= 2^(k-1) < p,
//     so bias = 1; for Eq. 4's sum |sum| <= B = sum_{s<k} delta(s), so
//     bias = ceil(B/p).
//   rho(s) for a symbolic s is an if-then-else chain over the k constants
//   swing::rho(0..k-1); a node's parity is its bit 0 (nodes are always the
//   representative in [0, p)).
//
// Reaching nodes. Two encodings of "the node r reaches through S":
//   - iterated: node_0 = r, node_{i+1} = S_i ? pi(node_i, i) : node_i, with
//     pi choosing + or - by the parity of node_i: the schedule's own
//     definition (swing::reach_multiset), valid for every p.
//   - closed form (Eq. 4, proof of Theorem A.5): r + sum for even r, r - sum
//     for odd r, mod p, with sum = sum_j (-1)^j rho(s_j) = sum_i term_i and
//     term_i = S_i ? (P_i ? -rho(i) : rho(i)) : 0, where P_i (the parity of
//     the number of chosen steps below i) is a prefix XOR of the mask bits.
//     It relies on parity alternating along a path (Lemma A.2), i.e. on p
//     even; smt-swing-reach-closed-form proves both encodings agree for even
//     p and finds where they differ for odd p.
//   smt-swing-unique-paths uses the closed form for even p, as the paper's
//   proof does, and the iterated form for odd p.
//
// Two strategies for the path properties (Strategy in the header):
//   - monolithic: one formula. Unique paths: r, S < T (symmetry broken) and
//     reach(r,S) = reach(r,T). Closed form: iterated(r,S) != closed(r,S).
//     The SAT solver has to see through two k-deep adder chains at once;
//     measured with Z3 4.8.12: unique paths 2^10 ~1 s, 2^12 ~8 s, 2^14
//     ~18 s, 2^16 ~34 s, 2^21 ~260 s; closed form 2^10 ~6 s. Used by
//     default only where a violation is to be found (odd p), where sat
//     answers come fast.
//   - inductive: induction over i = 0..k, each step one small formula in
//     which the path so far is replaced by a symbolic summary, checked with
//     the tactic simplify(som) + solve-eqs + bit-blast + sat (the
//     sum-of-monomials normal form lets the rewriter see reassociated sums).
//     All lemmas unsat => the property holds for all r and all masks by
//     plain induction on i, as written out here.
//     Closed form, p even. Invariant after i steps, for every r < p and S:
//       node_i(r,S) = (r +/- A_i(S)) mod p,  A_i = term_0 + ... + term_{i-1},
//       A_i odd iff P_i,  |A_i| <= B_i = sum_{s<i} delta(s) (p != 2^k only).
//     Lemma i: for all r < p, S and every bit-vector a meeting the
//     invariant's conditions on a, taking step i (if S_i) from
//     (r +/- a) mod p gives (r +/- (a + term_i)) mod p, and a + term_i meets
//     the conditions for i+1. Instantiating a := A_i(S) is the induction
//     step; base: node_0 = r = (r +/- 0) mod p.
//     Unique paths, p even. Writing rho(s) = sum_{l<=s} (-2)^l and
//     exchanging sums, the coefficient of (-2)^l in A_i is 0 or +/-1
//     according to the parity of the chosen steps in [l, i); with Pvec(S)
//     the k-bit vector of the P_l and N(x) = (x XOR M) - M the value of x
//     read in base -2 (M = ...1010, the odd bit positions) this gives
//       A_i(S) = G_i(S) := P_i ? N(~Pvec & (2^i-1)) : -N(Pvec & (2^i-1)).
//     Lemmas: G_0 = 0 and G_i + term_i = G_{i+1} for all S (exact integers
//     in width w for p != 2^k, where |G_i| < 2^k <= 2^(w-1); mod 2^k for
//     p = 2^k), hence A_k = G_k. Then:
//       p = 2^k: "offset": +/-(reach(r,S) - r) = G_k(S) for all r, S, and
//       "decode": D(G_k(S)) = S for all S with the explicit decoder
//         D(d) = let e = (d odd ? ~((d + M) XOR M) : ((-d) + M) XOR M)
//                in (d_0 : e_{k-1..1}) XOR e       (e recovers Pvec).
//       reach(r, .) has a left inverse, so distinct sequences reach
//       distinct nodes: Theorem A.5 for all r at once, without two copies.
//       p even, not 2^k: the property fails (2^k sequences, p < 2^k nodes);
//       the collision search "exists r, S < T: (r +/- G_k(S)) mod p =
//       (r +/- G_k(T)) mod p" is the monolithic search with A_k replaced by
//       the equal G_k (a few bit operations instead of a k-deep adder
//       chain), so it finds the same minimal counterexample, much faster.
//     Measured: p = 2^16 ~0.25 s (unique paths) and ~0.2 s (closed form),
//     2^21 ~0.5 s and ~0.4 s, 2^32 ~1.4 s and ~0.9 s.
//
// Counterexamples. After "sat" the counterexample is made canonical (the
// choice never depends on Z3's model): the variables are minimised
// lexicographically (rank first, then step / sequences) by binary search with
// extra "x <= mid" assertions under push/pop. The minimal assignment is then
// replayed with the concrete swing::pi; if the replay does not confirm the
// violation the encoding is wrong, which is reported as Status::unknown with
// stats["error"] (and asserts in debug builds) rather than as a violation.
// In the inductive strategy a satisfiable lemma is not a violation (the
// symbolic summary over-approximates reachable states): it is reported as
// Status::unknown with stats["error"] naming the lemma.
#include "smt/swing/swing_proofs.hpp"

#include <z3++.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "schedules/input_error.hpp"
#include "schedules/swing/swing_math.hpp"
#include "smt/proof_support.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt {
namespace {

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
int last_step(uint64_t mask) {
  int last = 0;
  for (int i = 0; i < 64; ++i)
    if (mask >> i & 1) last = i;
  return last;
}

using support::u128_string;

// Concrete ground truth: the node r reaches by taking the steps of `mask` in
// increasing order with swing::pi, and the path as text "0 -s0-> 1 -s2-> 3".
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
    uint64_t bound = 0;  // B = sum_{s<k} delta(s) >= |Eq. 4 sum|
    for (int s = 0; s < k_; ++s) bound += swing::delta(s);
    if (pow2_) {
      w_ = static_cast<unsigned>(k_);
    } else {
      sum_bias_ = std::max<uint64_t>(1, (bound + p - 1) / p);
      w_ = std::max(bits_for(3 * p), bits_for(p - 1 + sum_bias_ * p + bound));
    }
    assert(w_ >= 1 && w_ < 64);
  }

  z3::context& ctx() const { return c_; }
  int k() const { return k_; }
  unsigned width() const { return w_; }
  uint64_t p() const { return p_; }
  bool pow2() const { return pow2_; }

  // v mod 2^w, i.e. its w-bit two's complement.
  z3::expr num(int64_t v) const { return c_.bv_val(static_cast<uint64_t>(v) & ((uint64_t{1} << w_) - 1), w_); }
  z3::expr bit1(unsigned v) const { return c_.bv_val(v, 1); }
  z3::expr rank_var(const char* name) const { return c_.bv_const(name, w_); }
  z3::expr in_range(const z3::expr& x) const { return pow2_ ? c_.bool_val(true) : z3::ult(x, c_.bv_val(p_, w_)); }
  z3::expr odd(const z3::expr& x) const { return x.extract(0, 0) == bit1(1); }
  // |a| <= b as a signed w-bit value; vacuous for p = 2^k (everything is mod 2^k).
  z3::expr bounded(const z3::expr& a, uint64_t b) const {
    if (pow2_) return c_.bool_val(true);
    return z3::sle(num(-static_cast<int64_t>(b)), a) && z3::sle(a, num(static_cast<int64_t>(b)));
  }

  // x mod p for an integer x in [-bias*p, 2^w - bias*p) (see header comment).
  z3::expr mod(const z3::expr& x, uint64_t bias) const {
    if (pow2_) return x;
    return z3::urem(x + c_.bv_val(bias * p_, w_), c_.bv_val(p_, w_));
  }
  uint64_t sum_bias() const { return sum_bias_; }

  // Step variable: enough bits for k-1, constrained by step_range().
  unsigned step_width() const { return bits_for(static_cast<uint64_t>(k_ - 1)); }
  z3::expr step_var(const char* name) const { return c_.bv_const(name, step_width()); }
  z3::expr step_range(const z3::expr& s) const {
    return z3::ule(s, c_.bv_val(static_cast<uint64_t>(k_ - 1), step_width()));
  }
  z3::expr rho(const z3::expr& s) const {
    z3::expr acc = num(swing::rho(k_ - 1));
    for (int i = k_ - 2; i >= 0; --i)
      acc = z3::ite(s == c_.bv_val(static_cast<uint64_t>(i), step_width()), num(swing::rho(i)), acc);
    return acc;
  }
  z3::expr rho(int s) const { return num(swing::rho(s)); }

  // Eq. 2 for a node x in [0, p) and a (symbolic or constant) rho.
  z3::expr pi(const z3::expr& x, const z3::expr& rho) const { return mod(z3::ite(odd(x), x - rho, x + rho), 1); }
  // r + a for even r, r - a for odd r, mod p, for |a| <= B.
  z3::expr signed_offset(const z3::expr& r, const z3::expr& a) const {
    return mod(z3::ite(odd(r), r - a, r + a), sum_bias_);
  }

  // Step-sequence masks have k bits.
  z3::expr mask_var(const char* name) const { return c_.bv_const(name, static_cast<unsigned>(k_)); }
  z3::expr taken(const z3::expr& S, int i) const {
    return S.extract(static_cast<unsigned>(i), static_cast<unsigned>(i)) == bit1(1);
  }
  // P_i: parity of the number of chosen steps below i, as a 1-bit vector.
  z3::expr prefix_parity(const z3::expr& S, int i) const {
    z3::expr par = bit1(0);
    for (int l = 0; l < i; ++l) par = par ^ S.extract(static_cast<unsigned>(l), static_cast<unsigned>(l));
    return par;
  }
  // Eq. 4's term for step i: S_i ? (P_i ? -rho(i) : rho(i)) : 0.
  z3::expr term(const z3::expr& S, int i) const {
    return z3::ite(taken(S, i), z3::ite(prefix_parity(S, i) == bit1(1), num(-swing::rho(i)), rho(i)), num(0));
  }
  // A_i = term_0 + ... + term_{i-1}, as a left fold from 0.
  z3::expr closed_sum(const z3::expr& S, int i) const {
    z3::expr sum = num(0);
    for (int l = 0; l < i; ++l) sum = sum + term(S, l);
    return sum;
  }
  z3::expr reach_closed(const z3::expr& r, const z3::expr& S) const { return signed_offset(r, closed_sum(S, k_)); }
  z3::expr reach_iterated(const z3::expr& r, const z3::expr& S) const {
    z3::expr node = r;
    for (int i = 0; i < k_; ++i) node = z3::ite(taken(S, i), pi(node, rho(i)), node);
    return node;
  }

 private:
  z3::context& c_;
  uint64_t p_;
  int k_;
  bool pow2_;
  unsigned w_ = 1;
  uint64_t sum_bias_ = 1;
};

// One query's solver calls: the persistent solver of a monolithic search and
// the lemma checks of an induction, all against one support::Budget (the
// wall-clock budget, statistics, reason and minimisation shared with the
// other proofs, proof_support.hpp). The lemmas keep Swing's own tactic.
class Session {
 public:
  Session(z3::context& c, unsigned timeout_ms) : c_(c), budget_(c, timeout_ms), s_(c) {}

  z3::solver& solver() { return s_; }

  // Checks the assertions of solver(); dumps them as SMT-LIB2 when an
  // Smt2Scope is active (smt2_dump.hpp).
  z3::check_result check() { return budget_.check(s_, "query"); }

  // Checks one lemma's negation with its own tactic-based solver:
  // simplify(som) + solve-eqs + bit-blast + sat.
  z3::check_result check_lemma(const z3::expr& negation, double& seconds, const std::string& label) {
    z3::params som(c_);
    som.set("som", true);
    z3::tactic t = z3::with(z3::tactic(c_, "simplify"), som) & z3::tactic(c_, "solve-eqs") &
                   z3::tactic(c_, "bit-blast") & z3::tactic(c_, "sat");
    return budget_.check_tactic(t, negation, label, seconds);
  }

  // After a sat check(): the lexicographically smallest values of `vars` (in
  // order) over all models. `complete` is false if the budget ran out; the
  // values are then still those of a real model.
  std::vector<uint64_t> minimise(const std::vector<z3::expr>& vars, bool& complete) {
    return budget_.minimise(s_, vars, complete);
  }

  void fill_stats(Verdict& v) const { budget_.fill_stats(v); }

 private:
  z3::context& c_;
  support::Budget budget_;
  z3::solver s_;
};

// What a monolithic query adds to the solver.
struct Encoded {
  std::string query;               // the negated property, as asserted
  std::string encoding;            // arithmetic / reach encoding
  std::string instances;           // how many concrete cases unsat covers
  std::vector<z3::expr> minimise;  // canonical counterexample order
};
using Build = std::function<Encoded(const Ring&, z3::solver&)>;
// Turns the minimised values into a counterexample after replaying them
// concretely; nullopt if the replay does not show a violation.
using Explain = std::function<std::optional<Counterexample>(const Ring&, const std::vector<uint64_t>&, Verdict&)>;

// An inductive proof: every lemma's negation must be unsat.
struct Lemma {
  std::string name;
  z3::expr negation;
};
struct Induction {
  std::string query, encoding, instances;
  std::vector<Lemma> lemmas;
};
using BuildInduction = std::function<Induction(const Ring&)>;

// Range check, common stats, and the guarantee that nothing escapes.
Verdict guarded(const char* property, uint64_t p, const char* strategy,
                const std::function<void(z3::context&, Verdict&)>& body) {
  Verdict v;
  v.property = property;
  v.mode = "z3";
  v.stats["z3_version"] = support::z3_version();
  v.stats["strategy"] = strategy;
  if (p < 2 || p > kMaxP) {
    v.status = Status::skipped;
    v.stats["reason"] = "p=" + std::to_string(p) + " outside [2, 2^32]";
    return v;
  }
  try {
    z3::context c;
    body(c, v);
  } catch (const z3::exception& ex) {
    v.status = Status::unknown;
    v.counterexample.reset();
    v.violations = 0;
    v.stats["error"] = std::string("z3: ") + ex.msg();
  } catch (const InputError&) {
    throw;  // bad input (e.g. an --smt2-dir that cannot be written) stays exit 2, never an unknown verdict
  } catch (const std::exception& ex) {
    v.status = Status::unknown;
    v.counterexample.reset();
    v.violations = 0;
    v.stats["error"] = ex.what();
  }
  return v;
}

void describe(Verdict& v, const Ring& ring, const std::string& query, const std::string& encoding,
              const std::string& instances) {
  v.stats["query"] = query;
  v.stats["encoding"] = encoding;
  v.stats["instances"] = instances;
  v.stats["width"] = std::to_string(ring.width());
}

// Checks the encoded query; on sat, minimises, replays and records the
// counterexample.
void run_search(Session& session, const Ring& ring, const Encoded& e, const Explain& explain, Verdict& v) {
  switch (session.check()) {
    case z3::unsat: v.status = Status::holds; break;
    case z3::unknown: v.status = Status::unknown; break;
    case z3::sat: {
      bool complete = true;
      std::vector<uint64_t> vals = session.minimise(e.minimise, complete);
      v.stats["minimisation"] = complete ? "complete" : "stopped by the time budget (not necessarily minimal)";
      if (std::optional<Counterexample> cx = explain(ring, vals, v)) {
        v.fail(std::move(*cx));
      } else {
        assert(!"Z3 model does not replay concretely");
        v.status = Status::unknown;
        v.stats["error"] = "internal: the Z3 model does not replay with swing::pi (encoding bug)";
      }
      break;
    }
  }
}

// Checks every lemma; true iff all are valid (negation unsat). Otherwise the
// verdict is unknown with the reason.
bool run_lemmas(Session& session, const std::vector<Lemma>& lemmas, Verdict& v) {
  double slowest = -1;
  for (const Lemma& l : lemmas) {
    double seconds = 0;
    z3::check_result r = session.check_lemma(l.negation, seconds, l.name);
    if (seconds > slowest) {
      slowest = seconds;
      char buf[32];
      std::snprintf(buf, sizeof buf, " (%.3f s)", seconds);
      v.stats["slowest_lemma"] = l.name + buf;
    }
    if (r == z3::unsat) continue;
    v.status = Status::unknown;
    if (r == z3::sat) v.stats["error"] = "lemma '" + l.name + "' is satisfiable: the induction does not go through";
    else v.stats["stopped_at"] = l.name;
    return false;
  }
  v.stats["lemmas"] = std::to_string(lemmas.size());
  return true;
}

Verdict prove_monolithic(const char* property, uint64_t p, unsigned timeout_ms, const Build& build,
                         const Explain& explain) {
  return guarded(property, p, "monolithic", [&](z3::context& c, Verdict& v) {
    Ring ring(c, p);
    Session session(c, timeout_ms);
    Encoded e = build(ring, session.solver());
    describe(v, ring, e.query, e.encoding, e.instances);
    run_search(session, ring, e, explain, v);
    session.fill_stats(v);
  });
}

Verdict prove_inductive(const char* property, uint64_t p, unsigned timeout_ms, const BuildInduction& build) {
  return guarded(property, p, "inductive", [&](z3::context& c, Verdict& v) {
    Ring ring(c, p);
    Session session(c, timeout_ms);
    Induction ind = build(ring);
    describe(v, ring, ind.query, ind.encoding, ind.instances);
    if (run_lemmas(session, ind.lemmas, v)) v.status = Status::holds;
    session.fill_stats(v);
  });
}

Verdict skipped(const char* property, const char* strategy, const std::string& reason) {
  Verdict v;
  v.property = property;
  v.mode = "z3";
  v.status = Status::skipped;
  v.stats["strategy"] = strategy;
  v.stats["reason"] = reason;
  return v;
}

std::string instances_rs(const Ring& ring) {  // (r, s) pairs
  return u128_string(static_cast<unsigned __int128>(ring.p()) * static_cast<unsigned>(ring.k()));
}
const char* arith(const Ring& ring) { return ring.pow2() ? "k-bit, mod 2^k by wrap-around" : "urem(x + bias*p, p)"; }

constexpr const char* kInvolution = "smt-swing-involution";
constexpr const char* kEquivariance = "smt-swing-peer-equivariance";
constexpr const char* kUniquePaths = "smt-swing-unique-paths";
constexpr const char* kPeerParity = "smt-swing-peer-parity";
constexpr const char* kClosedForm = "smt-swing-reach-closed-form";

// ---- unique paths, inductive (p even) -------------------------------------

// The base -2 digit form G_i of Eq. 4's partial sums (header comment), in the
// ring's width w: exact integers for p != 2^k (|G_i| < 2^k <= 2^(w-1)),
// residues mod 2^k for p = 2^k (w = k).
class DigitForm {
 public:
  DigitForm(const Ring& ring, const z3::expr& S) : ring_(ring), S_(S), M_(ring.ctx()), pvec_(ring.ctx()) {
    z3::context& c = ring.ctx();
    const int k = ring.k();
    const unsigned w = ring.width();
    uint64_t m_odd = 0;  // the odd bit positions below k
    for (int i = 1; i < k; i += 2) m_odd |= uint64_t{1} << i;
    M_ = c.bv_val(m_odd, w);
    pvec_ = ring.prefix_parity(S, k - 1);  // bit l = P_l; bit 0 is P_0 = 0
    for (int l = k - 2; l >= 0; --l) pvec_ = z3::concat(pvec_, ring.prefix_parity(S, l));
    if (w > static_cast<unsigned>(k)) pvec_ = z3::zext(pvec_, w - static_cast<unsigned>(k));
  }
  const z3::expr& M() const { return M_; }
  z3::expr negabinary(const z3::expr& x) const { return (x ^ M_) - M_; }  // N(x)
  z3::expr G(int i) const {
    z3::expr low = ring_.ctx().bv_val((uint64_t{1} << i) - 1, ring_.width());  // i <= k <= 32
    return z3::ite(ring_.prefix_parity(S_, i) == ring_.bit1(1), negabinary(~pvec_ & low),
                   -negabinary(pvec_ & low));
  }
  // Base G_0 = 0 and the steps G_i + term_i = G_{i+1}: together A_k = G_k.
  std::vector<Lemma> identity_lemmas() const {
    std::vector<Lemma> out;
    out.push_back({"base: G_0 = 0", G(0) != ring_.num(0)});
    for (int i = 0; i < ring_.k(); ++i) {
      std::string is = std::to_string(i), in = std::to_string(i + 1);
      out.push_back({"step " + is + ": G_" + is + " + term_" + is + " = G_" + in, G(i) + ring_.term(S_, i) != G(i + 1)});
    }
    return out;
  }

 private:
  const Ring& ring_;
  z3::expr S_;
  z3::expr M_;
  z3::expr pvec_;
};

// p = 2^k: A_k = G_k, then the decoder inverts reach(r, .).
Induction unique_paths_induction(const Ring& ring) {
  const int k = ring.k();
  const unsigned w = ring.width();  // = k
  z3::expr S = ring.mask_var("S");
  z3::expr r = ring.rank_var("r");
  DigitForm form(ring, S);
  Induction ind;
  ind.lemmas = form.identity_lemmas();
  // The node reached is r +/- A_k(S) = r +/- G_k(S) by the lemmas above.
  // "offset": +/-(node - r) gives back G_k for every r; "decode": D(G_k) = S.
  // Together D(+/-(reach(r,S) - r)) = S. (Split in two because the solver
  // sees the cancellation of r and the decoding separately far faster than
  // together: 2^21 0.05 s instead of 1 s.)
  const z3::expr& M = form.M();
  z3::expr g = form.G(k);
  z3::expr node = ring.signed_offset(r, g);
  ind.lemmas.push_back({"offset: +/-(reach(r,S) - r) = G_k", z3::ite(ring.odd(r), r - node, node - r) != g});
  z3::expr g_odd = g.extract(0, 0) == ring.bit1(1);
  z3::expr e = z3::ite(g_odd, ~((g + M) ^ M), ((-g) + M) ^ M);  // = Pvec
  z3::expr shifted = k == 1 ? g.extract(0, 0) : z3::concat(g.extract(0, 0), e.extract(w - 1, 1));
  ind.lemmas.push_back({"decode: D(G_k(S)) = S", (shifted ^ e) != S});
  unsigned __int128 seqs = static_cast<unsigned __int128>(1) << k;
  ind.query = "induction on i: A_i(S) = G_i(S) (k+1 lemmas), then exists r, S: D(+/-(reach(r,S) - r)) != S (2 lemmas)";
  ind.encoding = "closed form of Eq. 4 against base -2 digits of prefix parities; k-bit, mod 2^k by wrap-around";
  ind.instances = u128_string(ring.p() * (seqs * (seqs - 1) / 2));
  return ind;
}

std::optional<Counterexample> explain_unique_paths(const Ring& ring, const std::vector<uint64_t>& x, Verdict& v) {
  Rank r = static_cast<Rank>(x[0]);
  uint64_t S = x[2], T = x[3];
  int k = ring.k();
  uint64_t p = ring.p();
  std::string path_s, path_t;
  Rank qs = reach_concrete(r, S, k, p, &path_s);
  Rank qt = reach_concrete(r, T, k, p, &path_t);
  if (S == T || qs != qt) return std::nullopt;
  v.stats["cx_steps_a"] = steps_csv(S, k);
  v.stats["cx_steps_b"] = steps_csv(T, k);
  Counterexample c;
  c.p = p;
  c.rank = r;
  c.step = last_step(S | T);
  c.peer = qs;
  c.expected = "distinct step sequences from rank " + std::to_string(r) + " reach distinct nodes";
  c.actual = "steps " + steps_set(S, k) + " and " + steps_set(T, k) + " both reach node " + std::to_string(qs);
  std::string sums;
  if (p % 2 == 0)
    sums = " (Eq. 4 sums " + std::to_string(closed_sum_concrete(S, k)) + " and " +
           std::to_string(closed_sum_concrete(T, k)) + " are congruent mod " + std::to_string(p) + ")";
  c.message = "rank " + std::to_string(r) + " reaches node " + std::to_string(qs) + " twice: " + path_s + " and " +
              path_t + sums + "; Theorem A.5 needs p a power of two (Appendix A.2)";
  return c;
}

// ---- closed form, inductive (p even) --------------------------------------

Induction closed_form_induction(const Ring& ring) {
  const int k = ring.k();
  z3::expr S = ring.mask_var("S");
  z3::expr r = ring.rank_var("r");
  z3::expr a = ring.rank_var("a");  // summary of the path so far: A_i(S)
  Induction ind;
  // Base: node_0 = r = (r +/- A_0) mod p with A_0 = 0 (even, bounded by 0).
  ind.lemmas.push_back({"base: r = (r +/- 0) mod p", ring.in_range(r) && r != ring.signed_offset(r, ring.num(0))});
  uint64_t b_i = 0;
  for (int i = 0; i < k; ++i) {
    uint64_t b_next = b_i + swing::delta(i);
    z3::expr node = ring.signed_offset(r, a);
    z3::expr stepped = z3::ite(ring.taken(S, i), ring.pi(node, ring.rho(i)), node);
    z3::expr a_next = a + ring.term(S, i);
    z3::expr premise =
        ring.in_range(r) && a.extract(0, 0) == ring.prefix_parity(S, i) && ring.bounded(a, b_i);
    z3::expr goal = stepped == ring.signed_offset(r, a_next) &&
                    a_next.extract(0, 0) == ring.prefix_parity(S, i + 1) && ring.bounded(a_next, b_next);
    ind.lemmas.push_back({"step " + std::to_string(i), premise && !goal});
    b_i = b_next;
  }
  unsigned __int128 seqs = static_cast<unsigned __int128>(1) << k;
  ind.query = "induction on i: node_i(r,S) = (r +/- A_i(S)) mod p, A_i odd iff P_i, |A_i| <= B_i (k+1 lemmas)";
  ind.encoding = std::string("iterated pi against the closed form of Eq. 4; ") + arith(ring);
  ind.instances = u128_string(ring.p() * seqs);
  return ind;
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
    return Encoded{"exists r < p, s < k: pi(pi(r,s),s) != r", arith(ring), instances_rs(ring), {r, st}};
  };
  auto explain = [](const Ring& ring, const std::vector<uint64_t>& x, Verdict&) -> std::optional<Counterexample> {
    Rank r = static_cast<Rank>(x[0]);
    int s = static_cast<int>(x[1]);
    uint64_t p = ring.p();
    Rank q = swing::pi(r, s, p);
    Rank back = swing::pi(q, s, p);
    if (back == r) return std::nullopt;
    std::string rs = std::to_string(r), ss = std::to_string(s), qs = std::to_string(q);
    Counterexample c;
    c.p = p;
    c.rank = r;
    c.step = s;
    c.peer = q;
    c.expected = "pi(pi(" + rs + "," + ss + ")," + ss + ") = " + rs;
    c.actual = "pi(pi(" + rs + "," + ss + ")," + ss + ") = pi(" + qs + "," + ss + ") = " + std::to_string(back);
    c.message = "Swing's peers are not paired at step " + ss + ": rank " + rs + " sends to " + qs + " but " + qs +
                " sends to " + std::to_string(back) +
                (p % 2 ? " (p odd: Appendix A.2 runs Swing on p-1 nodes instead)" : "");
    return c;
  };
  return prove_monolithic(kInvolution, p, timeout_ms, build, explain);
}

Verdict prove_swing_peer_equivariance(uint64_t p, unsigned timeout_ms) {
  // g_r(x) = x + r (r even), r - x (r odd), mod p: the swing-dihedral group
  // of schedules/symmetry.hpp. x + r < 2p and r - x + p < 2p fit the ring's
  // width (>= bits(3p)); at p = 2^k the k-bit wrap-around is mod p.
  auto g = [](const Ring& ring, const z3::expr& r, const z3::expr& x) {
    return z3::ite(ring.odd(r), ring.mod(r - x, 1), ring.mod(x + r, 0));
  };
  auto build = [g](const Ring& ring, z3::solver& s) {
    z3::expr r = ring.rank_var("r");
    z3::expr x = ring.rank_var("x");
    z3::expr st = ring.step_var("s");
    z3::expr rho = ring.rho(st);
    s.add(ring.in_range(r));
    s.add(ring.in_range(x));
    s.add(ring.step_range(st));
    s.add(ring.pi(g(ring, r, x), rho) != g(ring, r, ring.pi(x, rho)));
    return Encoded{"exists r, x < p, s < k: pi(g_r(x), s) != g_r(pi(x, s)), g_r(x) = x + r (r even), r - x (r odd)",
                   arith(ring), u128_string(static_cast<unsigned __int128>(ring.p()) * ring.p() *
                                            static_cast<unsigned>(ring.k())),
                   {r, x, st}};
  };
  auto explain = [](const Ring& ring, const std::vector<uint64_t>& v, Verdict&) -> std::optional<Counterexample> {
    const uint64_t p = ring.p();
    const Rank r = static_cast<Rank>(v[0]), x = static_cast<Rank>(v[1]);
    const int s = static_cast<int>(v[2]);
    auto gr = [&](Rank y) { return static_cast<Rank>(r % 2 ? (r + p - y) % p : (y + r) % p); };
    const Rank lhs = swing::pi(gr(x), s, p), rhs = gr(swing::pi(x, s, p));
    if (lhs == rhs) return std::nullopt;
    Counterexample c;
    c.p = p;
    c.rank = x;
    c.step = s;
    c.peer = swing::pi(x, s, p);
    c.expected = "pi(g_" + std::to_string(r) + "(" + std::to_string(x) + "), " + std::to_string(s) + ") = g_" +
                 std::to_string(r) + "(pi(" + std::to_string(x) + ", " + std::to_string(s) + ")) = " + std::to_string(rhs);
    c.actual = std::to_string(lhs);
    c.message = "Eq. 2's peer function is not equivariant under the swing-dihedral group at p = " + std::to_string(p) +
                (p % 2 ? " (p odd: the parity of a rank is not defined mod p)" : "");
    return c;
  };
  return prove_monolithic(kEquivariance, p, timeout_ms, build, explain);
}

Verdict prove_swing_unique_paths(uint64_t p, unsigned timeout_ms, Strategy strategy) {
  const bool even = p % 2 == 0;
  if (strategy == Strategy::inductive && !even)
    return skipped(kUniquePaths, "inductive",
                   "the inductive strategy needs p even (Eq. 4 describes pi only then); for odd p use the monolithic "
                   "strategy, which follows pi step by step");
  const int k = p >= 2 && p <= kMaxP ? swing::ceil_log2(p) : 0;  // out of range: guarded() skips
  const unsigned __int128 seqs = static_cast<unsigned __int128>(1) << k;
  const std::string instances = u128_string(p * (seqs * (seqs - 1) / 2));
  const std::string query = "exists r < p, step masks S < T < 2^k: reach(r,S) = reach(r,T)";

  if (strategy == Strategy::monolithic || !even) {
    auto build = [&](const Ring& ring, z3::solver& s) {
      z3::expr r = ring.rank_var("r");
      z3::expr S = ring.mask_var("S");
      z3::expr T = ring.mask_var("T");
      s.add(ring.in_range(r));
      s.add(z3::ult(S, T));  // S != T, symmetry broken
      if (even) s.add(ring.reach_closed(r, S) == ring.reach_closed(r, T));
      else s.add(ring.reach_iterated(r, S) == ring.reach_iterated(r, T));
      return Encoded{query,
                     even ? std::string("closed form of Eq. 4 (prefix-XOR signs); ") + arith(ring)
                          : "iterated pi, urem(x + p, p) per step (p odd: Eq. 4 does not describe pi)",
                     instances, {r, S | T, S, T}};
    };
    return prove_monolithic(kUniquePaths, p, timeout_ms, build, explain_unique_paths);
  }
  if (swing::is_pow2(p)) return prove_inductive(kUniquePaths, p, timeout_ms, unique_paths_induction);

  // Even p, not a power of two: prove A_k = G_k by induction (exact integers
  // in width w), then look for a collision of r +/- G_k mod p. G_k is a few
  // bit operations and one adder instead of a k-deep adder chain, so the
  // search is fast; the identity makes it the same search as on Eq. 4, hence
  // the same minimal counterexample, and the replay checks it with pi anyway.
  return guarded(kUniquePaths, p, "inductive", [&](z3::context& c, Verdict& v) {
    Ring ring(c, p);
    Session session(c, timeout_ms);
    z3::expr r = ring.rank_var("r");
    z3::expr S = ring.mask_var("S");
    z3::expr T = ring.mask_var("T");
    DigitForm fs(ring, S), ft(ring, T);
    Encoded e{"induction on i: A_i(S) = G_i(S) (k+1 lemmas), then " + query + " with reach = r +/- G_k mod p",
              std::string("closed form of Eq. 4 as base -2 digits of prefix parities; ") + arith(ring), instances,
              {r, S | T, S, T}};
    describe(v, ring, e.query, e.encoding, e.instances);
    if (run_lemmas(session, fs.identity_lemmas(), v)) {
      z3::solver& s = session.solver();
      s.add(ring.in_range(r));
      s.add(z3::ult(S, T));
      s.add(ring.signed_offset(r, fs.G(ring.k())) == ring.signed_offset(r, ft.G(ring.k())));
      run_search(session, ring, e, explain_unique_paths, v);
    }
    session.fill_stats(v);
  });
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
    return Encoded{"exists r < p, s < k: pi(r,s) = r or pi(r,s) = r (mod 2) or pi(r,s) >= p", arith(ring),
                   instances_rs(ring), {r, st}};
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
                ", so parity does not alternate along paths (p odd)";
    return c;
  };
  return prove_monolithic(kPeerParity, p, timeout_ms, build, explain);
}

Verdict prove_swing_reach_closed_form(uint64_t p, unsigned timeout_ms, Strategy strategy) {
  bool even = p % 2 == 0;
  if (strategy == Strategy::inductive && !even)
    return skipped(kClosedForm, "inductive",
                   "the inductive proof needs p even; for odd p parity does not alternate and the closed form "
                   "fails: use the monolithic strategy for a counterexample");
  if (strategy == Strategy::inductive || (strategy == Strategy::automatic && even))
    return prove_inductive(kClosedForm, p, timeout_ms, closed_form_induction);

  auto build = [](const Ring& ring, z3::solver& s) {
    z3::expr r = ring.rank_var("r");
    z3::expr S = ring.mask_var("S");
    s.add(ring.in_range(r));
    s.add(ring.reach_iterated(r, S) != ring.reach_closed(r, S));
    unsigned __int128 seqs = static_cast<unsigned __int128>(1) << ring.k();
    return Encoded{"exists r < p, step mask S < 2^k: iterated pi(r,S) != r +/- sum_j (-1)^j rho(s_j) mod p",
                   std::string("iterated pi against the closed form of Eq. 4; ") + arith(ring),
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
    v.stats["cx_steps"] = steps_csv(S, k);
    Counterexample c;
    c.p = p;
    c.rank = r;
    c.step = last_step(S);
    c.peer = q;
    c.expected = "node " + std::to_string(closed) + " (Eq. 4: " + std::to_string(r) + (r % 2 ? " - " : " + ") + "(" +
                 std::to_string(sum) + ") mod " + std::to_string(p) + ")";
    c.actual = "node " + std::to_string(q) + " (" + path + ")";
    c.message = "the alternating-sign closed form of Eq. 4 does not describe the path along steps " +
                steps_set(S, k) + " (p odd: parity does not alternate, Lemma A.2)";
    return c;
  };
  return prove_monolithic(kClosedForm, p, timeout_ms, build, explain);
}

std::vector<Verdict> prove_swing(uint64_t p, unsigned timeout_ms) {
  return {prove_swing_involution(p, timeout_ms), prove_swing_unique_paths(p, timeout_ms),
          prove_swing_peer_parity(p, timeout_ms), prove_swing_reach_closed_form(p, timeout_ms)};
}

}  // namespace collcheck::smt
