// The Swing queries of `collcheck prove` (swing-nsdi24.txt, Sec. 3.1 Eq. 2,
// Table 1, Appendix A). The four peer-function properties of
// swing_proofs.hpp are wrapped as they are; this file adds
//   smt-swing-hop-distance   Table 1 / Sec. 3.1: at step s rank r talks to a
//                            peer at ring distance delta(s) (both directions
//                            of the ring counted, so min(d, p-d)). Holds iff
//                            2 delta(s) <= p for every s < ceil(log2 p), i.e.
//                            for p = 2^k and p >= 2^(k+1)/3 roughly; fails
//                            e.g. at p = 5 (delta(2) = 3 is 2 hops the other way).
//   smt-swing-involution-all-even-p (symbolic p, only with --query): for
//                            every even p' in [2, p] at once, with p' a
//                            bit-vector too: pi(pi(r,s),s) = r for all r < p',
//                            s < ceil(log2 p'). ceil(log2 p') > s is encoded
//                            as p' > 2^s, and mod p' of a value in (0, 3p')
//                            as two conditional subtractions of p' (bvurem
//                            by a symbolic p' would be a division circuit).
//   smt-swing-torus-peers    Sec. 4.1-4.2 on a torus (--dims): the torus peer
//                            function is an involution and the 2D collectives
//                            leave a node on distinct ports, over symbolic
//                            coordinates (swing_torus_proofs.hpp).
// The ring queries apply to the ring variants (no --dims) and the torus
// query to the torus variants. The ring queries speak about Eq. 2's pi on a
// ring of p ranks: an instance whose schedule runs Eq. 2 on a smaller ring
// (the folds: `bandwidth` at odd p, `latency` at non-powers of two,
// `paper-odd`) is "not applicable" to them, never a violation; so is an
// instance that de-duplicates, for unique paths, and a p that is not a power
// of two, for Sec. 3.1's hop distance (models(), Query::not_applicable).
#include <chrono>
#include <functional>
#include <string>

#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_family.hpp"
#include "schedules/swing/swing_math.hpp"
#include "smt/proof_support.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"
#include "smt/swing/swing_proofs.hpp"
#include "smt/swing/swing_torus_proofs.hpp"

namespace collcheck::smt {
namespace {

using namespace support;

constexpr uint64_t kMaxP = uint64_t{1} << 32;

std::optional<std::string> swing_range(const InstanceParams& i) {
  if (i.p < 2) return "p = " + std::to_string(i.p) + ": Eq. 2 has no steps (the Swing encodings need 2 <= p <= 2^32)";
  if (i.p > kMaxP) return "p = " + std::to_string(i.p) + " is too large for the Swing encodings (p <= 2^32)";
  return std::nullopt;
}

// Whether a ring query models the instance's schedule (Query::not_applicable):
// the queries state facts about Eq. 2 on all p ranks, which a variant uses
// only where it runs no fold (schedules/swing/swing_family.hpp, eq2_use).
// Unique paths (Theorem A.5) speaks about schedules that send every path:
// a variant that de-duplicates repeated blocks does not rely on it. The hop
// distance delta(s) is Sec. 3.1's, stated "assuming the number of nodes p is
// a power of 2"; at other p the property swing-hop-distance of verify
// judges the ring distance the variant's peers really have.
enum class Needs { eq2_on_p, every_path, power_of_two };
std::function<std::optional<std::string>(const AlgorithmInfo&, const VariantInfo&, const InstanceParams&)>
models(Needs needs) {
  return [needs](const AlgorithmInfo&, const VariantInfo& v, const InstanceParams& i) -> std::optional<std::string> {
    const swing::Eq2Use use = swing::eq2_use(v, i);
    const std::string p = std::to_string(i.p);
    if (use.ring != i.p)
      return v.name + " at p = " + p + " runs Eq. 2 on " +
             (use.ring ? "a ring of " + std::to_string(use.ring) + " ranks (a fold)" : std::string("no ring")) +
             "; the query models Eq. 2 on all p ranks";
    if (needs == Needs::every_path && !use.every_path)
      return v.name + " at p = " + p + " de-duplicates blocks that two paths reach (Sec. 3.2); the query models "
             "a schedule that sends every path";
    if (needs == Needs::power_of_two && !swing::is_pow2(i.p))
      return "Sec. 3.1 states the distance delta(s) for p a power of two, not p = " + p +
             " (verify's swing-hop-distance judges the ring distance at every p)";
    return std::nullopt;
  };
}

std::string stem(const std::string& name, const InstanceParams& i) { return name + "-p" + std::to_string(i.p); }

Query wrap(std::string name, std::string summary, Verdict (*prove)(uint64_t, unsigned), Needs needs) {
  Query q;
  q.name = name;
  q.not_applicable = models(needs);
  q.summary = std::move(summary);
  q.unsupported = swing_range;
  q.run = [name, prove](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
    Smt2Scope scope(ctx.smt2_dir, stem(name, i));
    return prove(i.p, ctx.timeout_ms);
  };
  return q;
}

Verdict equivariance(uint64_t p, unsigned t) { return prove_swing_peer_equivariance(p, t); }
Verdict unique_paths(uint64_t p, unsigned t) { return prove_swing_unique_paths(p, t); }
Verdict closed_form(uint64_t p, unsigned t) { return prove_swing_reach_closed_form(p, t); }

}  // namespace

// ---- hop distance ----------------------------------------------------------

Verdict prove_swing_hop_distance(uint64_t p, unsigned timeout_ms, const std::vector<uint64_t>* distances) {
  const char* name = "smt-swing-hop-distance";
  if (p < 2 || p > kMaxP) return skipped(name, "p outside [2, 2^32]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const int k = swing::ceil_log2(p);
    const unsigned w = bits_for(3 * p) + 1;  // r + p + |rho| < 3p, no wrap-around
    const unsigned sw = bits_for(static_cast<uint64_t>(k - 1));
    // The claimed distance per step: Table 1's delta(s), or a given table (mutation tests).
    std::vector<uint64_t> claim;
    for (int s = 0; s < k; ++s) claim.push_back(distances ? distances->at(static_cast<size_t>(s)) : swing::delta(s));
    std::vector<uint64_t> rho;  // w-bit two's complement
    for (int s = 0; s < k; ++s) rho.push_back(static_cast<uint64_t>(swing::rho(s)) & ((uint64_t{1} << w) - 1));
    z3::expr r = c.bv_const("r", w), st = c.bv_const("s", sw);
    z3::expr P = c.bv_val(p, w);
    z3::expr rh = select(c, st, rho, w);
    z3::expr odd = r.extract(0, 0) == c.bv_val(1, 1);
    // x mod p for x < 3p by conditional subtractions (no division circuit).
    auto reduce = [&](const z3::expr& x) { return z3::ite(z3::uge(x, P), x - P, x); };
    z3::expr q = reduce(reduce(r + P + z3::ite(odd, -rh, rh)));      // Eq. 2, r + p +/- rho in (0, 3p)
    z3::expr d = reduce(q + P - r);                                  // clockwise distance
    z3::expr dist = z3::ite(z3::ule(d, P - d), d, P - d);            // ring distance
    z3::expr violation = z3::ult(r, P) && z3::ule(st, c.bv_val(k - 1, sw)) && dist != select(c, st, claim, w);
    v.stats["query"] = "exists r < p, s < k: ring_distance(pi(r,s), r) != delta(s)";
    v.stats["encoding"] = "QF_BV, width " + std::to_string(w) + ", (r + p +/- rho(s)) mod p by conditional subtraction";
    v.stats["instances"] = std::to_string(p * static_cast<uint64_t>(k));
    Budget b(c, timeout_ms);
    bool held = refute(b, v, "hop distance", violation, {r, st}, [&](const std::vector<uint64_t>& x)
                           -> std::optional<Counterexample> {
      Rank rr = static_cast<Rank>(x[0]);
      int s = static_cast<int>(x[1]);
      Rank peer = swing::pi(rr, s, p);
      uint64_t got = swing::ring_distance(rr, peer, p);
      if (got == claim[static_cast<size_t>(s)]) return std::nullopt;
      Counterexample cx = Counterexample::at(p, rr, s, std::nullopt, peer);
      cx.expected = "ring distance delta(" + std::to_string(s) + ") = " + std::to_string(claim[static_cast<size_t>(s)]);
      cx.actual = "ring distance " + std::to_string(got);
      cx.message = "rank " + std::to_string(rr) + " talks to " + std::to_string(peer) + " at step " +
                   std::to_string(s) + ", " + std::to_string(got) + " hops away, not delta(s) = " +
                   std::to_string(claim[static_cast<size_t>(s)]) +
                   (2 * swing::delta(s) > p ? " (2 delta(s) > p: the ring is shorter the other way round)" : "");
      return cx;
    });
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

// ---- involution for every even p' <= p (symbolic p) -------------------------

Verdict prove_swing_involution_all_even(uint64_t p_max, unsigned timeout_ms) {
  const char* name = "smt-swing-involution-all-even-p";
  if (p_max < 2 || p_max > (uint64_t{1} << 24)) return skipped(name, "p outside [2, 2^24]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const int K = swing::ceil_log2(p_max);
    const unsigned w = bits_for(3 * p_max) + 1;
    const unsigned sw = bits_for(static_cast<uint64_t>(std::max(K - 1, 1)));
    std::vector<uint64_t> rho, pow2;
    for (int s = 0; s < K; ++s) {
      rho.push_back(static_cast<uint64_t>(swing::rho(s)) & ((uint64_t{1} << w) - 1));
      pow2.push_back(uint64_t{1} << s);
    }
    z3::expr P = c.bv_const("p", w), r = c.bv_const("r", w), st = c.bv_const("s", sw);
    z3::expr rh = select(c, st, rho, w);
    auto reduce = [&](const z3::expr& x) { return z3::ite(z3::uge(x, P), x - P, x); };
    auto pi = [&](const z3::expr& x) {  // x + p' +/- rho in (0, 3p') since |rho(s)| <= 2^s < p'
      return reduce(reduce(x + P + z3::ite(x.extract(0, 0) == c.bv_val(1, 1), -rh, rh)));
    };
    z3::expr domain = z3::uge(P, c.bv_val(2, w)) && z3::ule(P, c.bv_val(p_max, w)) &&
                      P.extract(0, 0) == c.bv_val(0, 1) && z3::ult(r, P) &&
                      z3::ule(st, c.bv_val(K - 1, sw)) && z3::ugt(P, select(c, st, pow2, w));
    z3::expr violation = domain && pi(pi(r)) != r;
    v.stats["query"] = "exists even p' in [2, " + std::to_string(p_max) +
                       "], r < p', s with 2^s < p': pi_p'(pi_p'(r,s),s) != r";
    v.stats["encoding"] = "QF_BV, width " + std::to_string(w) + ", p' symbolic, mod p' by conditional subtraction";
    Budget b(c, timeout_ms);
    bool held = refute(b, v, "involution all even p", violation, {P, r, st},
                       [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                         uint64_t pp = x[0];
                         Rank rr = static_cast<Rank>(x[1]);
                         int s = static_cast<int>(x[2]);
                         Rank q = swing::pi(rr, s, pp), back = swing::pi(q, s, pp);
                         if (back == rr) return std::nullopt;
                         Counterexample cx = Counterexample::at(pp, rr, s, std::nullopt, q);
                         cx.expected = "pi(pi(r,s),s) = r";
                         cx.actual = "pi(" + std::to_string(q) + "," + std::to_string(s) + ") = " + std::to_string(back);
                         cx.message = "Swing's peers are not paired at p = " + std::to_string(pp);
                         return cx;
                       });
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

// ---- peer equivariance for every even p (symbolic p, linear integers) -----------

Verdict prove_swing_peer_equivariance_all_even(uint64_t p_max, unsigned timeout_ms, bool reflect_every_r) {
  const char* name = "smt-swing-peer-equivariance-all-even-p";
  (void)p_max;  // the statement is for every even p; the instance's p only picks the run
  return guarded(name, [&](z3::context& c, Verdict& v) {
    // Linear integer arithmetic, p unbounded: p = 2u >= 2, r, x in [0, p),
    // rho any odd integer with |rho| < p (every Swing step s with 2^s < p:
    // |rho(s)| = (2^(s+1) + (-1)^s) / 3 <= 2^s). Parities are booleans: p is
    // even, so reducing mod p keeps a parity; g_r(y) has parity y xor r (y + r
    // and r - y alike); pi flips it (rho odd). mod p of a value in (-p, 2p)
    // by conditional addition / subtraction of p (linear).
    z3::expr P = c.int_const("p"), u = c.int_const("u"), r = c.int_const("r"), x = c.int_const("x");
    z3::expr rho = c.int_const("rho"), t = c.int_const("t");
    z3::expr ro = c.bool_const("r_odd"), xo = c.bool_const("x_odd");
    z3::expr ra = c.int_const("r_half"), xa = c.int_const("x_half");
    auto modp = [&](const z3::expr& y) { return z3::ite(y < 0, y + P, z3::ite(y >= P, y - P, y)); };
    struct Val {
      z3::expr v;
      z3::expr odd;
    };
    auto pi = [&](const Val& y) -> Val { return {modp(z3::ite(y.odd, y.v - rho, y.v + rho)), !y.odd}; };
    // (reflect_every_r, for the mutation test: x -> r - x for every r, not a
    // group under which Eq. 2 is equivariant.)
    const z3::expr reflect = reflect_every_r ? c.bool_val(true) : ro;
    auto g = [&](const Val& y) -> Val { return {modp(z3::ite(reflect, r - y.v, y.v + r)), y.odd != ro}; };
    z3::solver sol(c);
    z3::params prm(c);
    prm.set("timeout", timeout_ms);
    sol.set(prm);
    sol.add(P == 2 * u && u >= 1);
    sol.add(r >= 0 && r < P && x >= 0 && x < P);
    sol.add(r == 2 * ra + z3::ite(ro, c.int_val(1), c.int_val(0)));
    sol.add(x == 2 * xa + z3::ite(xo, c.int_val(1), c.int_val(0)));
    sol.add(rho == 2 * t + 1 && rho > -P && rho < P);
    const Val X{x, xo};
    const Val lhs = pi(g(X)), rhs = g(pi(X));
    sol.add(lhs.v != rhs.v || lhs.odd != rhs.odd);
    v.stats["query"] = "exists even p >= 2, r, x < p, odd rho with |rho| < p: pi(g_r(x)) != g_r(pi(x)) "
                       "(value or parity), pi(y) = y + rho (y even), y - rho (y odd) mod p, "
                       "g_r(y) = y + r (r even), r - y (r odd) mod p";
    v.stats["encoding"] = "QF_LIA, p unbounded, parities as booleans, mod p by conditional add/subtract";
    const auto started = std::chrono::steady_clock::now();
    const z3::check_result res = sol.check();
    v.stats["solver_seconds"] =
        std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (res == z3::unsat) {
      v.status = Status::holds;
      return;
    }
    if (res == z3::unknown) {
      v.status = Status::unknown;
      v.stats["reason_unknown"] = sol.reason_unknown();
      return;
    }
    // sat: replay concretely on the model's p (it must be a real violation).
    z3::model m = sol.get_model();
    auto val = [&](const z3::expr& e) { return m.eval(e, true).get_numeral_int64(); };
    const uint64_t pp = static_cast<uint64_t>(val(P));
    const int64_t rr = val(r), xx = val(x), rh = val(rho);
    auto md = [&](int64_t y) { return static_cast<uint64_t>(((y % int64_t(pp)) + int64_t(pp)) % int64_t(pp)); };
    auto cpi = [&](int64_t y) { return md(y % 2 ? y - rh : y + rh); };
    auto cg = [&](int64_t y) { return md(rr % 2 || reflect_every_r ? rr - y : y + rr); };
    Counterexample cx;
    cx.p = pp;
    cx.rank = static_cast<Rank>(xx);
    cx.expected = "pi(g_r(x)) = g_r(pi(x)) with r = " + std::to_string(rr) + ", rho = " + std::to_string(rh);
    cx.actual = std::to_string(cpi(int64_t(cg(xx)))) + " != " + std::to_string(cg(int64_t(cpi(xx))));
    cx.message = "Eq. 2 is not swing-dihedral equivariant at p = " + std::to_string(pp);
    if (cpi(int64_t(cg(xx))) == cg(int64_t(cpi(xx)))) {
      v.status = Status::unknown;
      v.stats["error"] = "the solver's model does not replay (encoding bug)";
      return;
    }
    v.fail(std::move(cx));
  });
}

std::vector<Query> swing_queries() {
  std::vector<Query> out;
  out.push_back(wrap("smt-swing-involution", "pi(pi(r,s),s) = r for every r, s (Eq. 2; holds iff p even)",
                     prove_swing_involution, Needs::eq2_on_p));
  out.push_back(wrap("smt-swing-peer-equivariance",
                     "pi(g(x),s) = g(pi(x,s)) for g in the swing-dihedral group, x -> x + r (r even), r - x (r odd) "
                     "(holds iff p even; certifies the quotient of schedules/swing/swing_equivariant.hpp)",
                     equivariance, Needs::eq2_on_p));
  out.push_back(wrap("smt-swing-unique-paths",
                     "Theorem A.5: distinct step sequences from r reach distinct nodes (holds iff p = 2^k)",
                     unique_paths, Needs::every_path));
  out.push_back(wrap("smt-swing-peer-parity", "Lemma A.2: pi(r,s) != r and has the opposite parity (holds iff p even)",
                     prove_swing_peer_parity, Needs::eq2_on_p));
  out.push_back(wrap("smt-swing-reach-closed-form",
                     "Eq. 4: iterated pi = r +/- sum_j (-1)^j rho(s_j) mod p (holds iff p even)", closed_form, Needs::eq2_on_p));
  {
    Query q;
    q.name = "smt-swing-hop-distance";
    q.summary = "Table 1: the step-s peer is delta(s) hops away on the ring (holds iff 2 delta(s) <= p for all s)";
    q.unsupported = swing_range;
    q.not_applicable = models(Needs::power_of_two);
    q.run = [](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
      Smt2Scope scope(ctx.smt2_dir, stem("smt-swing-hop-distance", i));
      return prove_swing_hop_distance(i.p, ctx.timeout_ms, nullptr);
    };
    out.push_back(std::move(q));
  }
  {
    Query q;
    q.name = "smt-swing-peer-equivariance-all-even-p";
    q.summary = "symbolic p: Eq. 2 is swing-dihedral equivariant for EVERY even p, every step and rank at once "
                "(linear integer arithmetic, p unbounded; the instance's p is ignored); certifies the Swing quotient";
    q.unsupported = [](const InstanceParams& i) -> std::optional<std::string> {
      if (i.p < 2) return "p = 1 has no steps (the statement itself covers every even p)";
      return std::nullopt;
    };
    q.run = [](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
      Smt2Scope scope(ctx.smt2_dir, stem("smt-swing-peer-equivariance-all-even-p", i));
      return prove_swing_peer_equivariance_all_even(i.p, ctx.timeout_ms, false);
    };
    q.by_default = false;
    out.push_back(std::move(q));
  }
  {
    Query q;
    q.name = "smt-swing-involution-all-even-p";
    q.summary = "symbolic p: pi is an involution for every even p' <= p at once (only with --query)";
      q.unsupported = [](const InstanceParams& i) -> std::optional<std::string> {
      if (i.p < 2 || i.p > (uint64_t{1} << 24))
        return "p = " + std::to_string(i.p) + ": the symbolic-p involution query takes 2 <= p <= 2^24";
      return std::nullopt;
    };
    q.run = [](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
      Smt2Scope scope(ctx.smt2_dir, stem("smt-swing-involution-all-even-p", i));
      return prove_swing_involution_all_even(i.p, ctx.timeout_ms);
    };
    q.by_default = false;
    out.push_back(std::move(q));
  }
  // Everything above speaks about the ring: its variants only.
  for (Query& q : out) q.applies = [](const AlgorithmInfo&, const VariantInfo& v) { return !v.takes("dims"); };
  {
    Query q;
    q.name = "smt-swing-torus-peers";
    q.summary = "Sec. 4.1-4.2 on a torus: every collective's peer function is an involution and the 2D collectives "
                "use 2D distinct ports (square phase), over symbolic coordinates";
    q.applies = [](const AlgorithmInfo&, const VariantInfo& v) { return v.takes("dims"); };
    q.unsupported = [](const InstanceParams& i) -> std::optional<std::string> {
      if (auto why = swing_torus_shape_problem(i.dims, i.p)) return *why;
      if (i.p < 2) return std::string("p = 1 has no steps");
      return std::nullopt;
    };
    q.run = [](const AlgorithmInfo&, const VariantInfo& v, const InstanceParams& i, const QueryContext& ctx) {
      Smt2Scope scope(ctx.smt2_dir, "smt-swing-torus-peers-" + i.label());
      // The variant builds the equivariant wrapper (the certified quotient
      // checks it); the peer functions are the direct generator's.
      const auto s = v.make(i);
      const Schedule* direct = s.get();
      if (const auto* eq = dynamic_cast<const SwingEquivariant*>(direct)) direct = &eq->direct();
      if (const auto* t = dynamic_cast<const SwingTorus*>(direct)) return prove_swing_torus_peers(*t, ctx.timeout_ms);
      Verdict u;
      u.property = "smt-swing-torus-peers";
      u.mode = "z3";
      u.status = Status::unknown;
      u.stats["error"] = "the variant's schedule is not a Swing torus generator (no peer function to encode)";
      return u;
    };
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace collcheck::smt
