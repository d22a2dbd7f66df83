// Z3 proofs about Trivance's communication pattern (trivance.txt, Sec. 4.1,
// Lemma 4.2, Theorem 4.3, Appendix A) on a ring of n = 3^s nodes, all ranks
// at once.
//
// Encoding (QF_BV, width w = bits(2n) + 2 so that x + n - d never wraps; mod n
// of a value below 2n is one conditional subtraction):
// ranks r, u < n; a step k < s; the step-k distance d_k is the generator's
// (trivance_distances(n), the text's last distance, which the latency ring uses too: 3^k at
// n = 3^s), taken as constants and selected by k with an if-then-else chain.
// Peers left = (r - d_k) mod n, right = (r + d_k) mod n, ring
// distance dist(a, b) = min((a - b) mod n, n - (a - b) mod n).
//
//   smt-trivance-peers     for all r, k: dist(left, r) = dist(right, r) = 3^k,
//                          left != right, left != r, and the exchange pairs:
//                          (right - d_k) mod n = r = (left + d_k) mod n.
//   smt-trivance-coverage  Lemma 4.2 with exact multiplicity, by induction on
//                          k: D^k(r), the multiset of nodes whose data r holds
//                          after step k, is D^{k-1}(r) + D^{k-1}(left) +
//                          D^{k-1}(right) (joint reduction of both receipts),
//                          D^{-1}(r) = {r}. Hypothesis: D^{k-1}(x) is the
//                          interval of radius R_{k-1} around x, each node once
//                          (R_{-1} = 0). Step lemma, for symbolic k, r, u:
//                            [dist(u,r) <= R_{k-1}] + [dist(u,left) <= R_{k-1}]
//                            + [dist(u,right) <= R_{k-1}] = [dist(u,r) <= R_k]
//                          with R_k = (3^(k+1) - 1)/2 as printed. Then Theorem
//                          4.3: dist(u, r) <= R_{s-1} for all r, u (the radius
//                          covers the ring). Counterexamples are minimised in
//                          the order (k, r, u): the smallest failing k is a
//                          real failure, because every earlier step lemma
//                          holds; it is replayed with the exact multiplicity
//                          recursion (for k <= 11; beyond, with the
//                          hypothesis' intervals, which the earlier lemmas
//                          proved).
//   smt-trivance-coverage-all-n (symbolic n, only with --query): the same
//                          step lemma and Theorem 4.3 with n = 3^s' symbolic
//                          too, for every s' with 3^s' <= the instance's p.
//
// The paper states Lemma 4.2 as "holds data originating from nodes within
// distance R_k"; the proof's "no block can be simultaneously known by both or
// by neither" is the exactly-once part, which is what the step lemma checks
// (count = 1 inside, 0 outside).
#include <optional>
#include <string>

#include "schedules/registry.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"
#include "schedules/trivance/trivance_family.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/proof_support.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt {
namespace {

using namespace support;

constexpr uint64_t kMaxN = uint64_t{1} << 32;

struct Circle {
  z3::context& c;
  unsigned w;
  z3::expr N;
  // x mod N for x < 2N: one conditional subtraction instead of a division
  // circuit (every use below adds or subtracts values < N to a value < N).
  z3::expr reduce(const z3::expr& x) const { return z3::ite(z3::uge(x, N), x - N, x); }
  z3::expr add(const z3::expr& x, const z3::expr& d) const { return reduce(x + d); }
  z3::expr sub(const z3::expr& x, const z3::expr& d) const { return reduce(x + N - d); }
  z3::expr dist(const z3::expr& a, const z3::expr& b) const {
    z3::expr d = reduce(a + N - b);
    return z3::ite(z3::ule(d, N - d), d, N - d);
  }
  z3::expr one_if(const z3::expr& cond) const { return z3::ite(cond, c.bv_val(1, 2), c.bv_val(0, 2)); }
};

uint64_t ring_dist(uint64_t a, uint64_t b, uint64_t n) {
  uint64_t d = (a + n - b) % n;
  return std::min(d, n - d);
}
uint64_t radius(int k) { return (trivance::pow3(k + 1) - 1) / 2; }  // R_k, R_{-1} = 0

// Exact multiplicity of u's data at r after step k (D^k(r) above), for small k.
uint64_t multiplicity(uint64_t u, uint64_t r, int k, const std::vector<uint64_t>& d, uint64_t n) {
  if (k < 0) return u == r;
  uint64_t dk = d[static_cast<size_t>(k)] % n;
  return multiplicity(u, r, k - 1, d, n) + multiplicity(u, (r + n - dk) % n, k - 1, d, n) +
         multiplicity(u, (r + dk) % n, k - 1, d, n);
}

std::vector<uint64_t> generator_distances(uint64_t n) { return trivance_distances(n); }

std::optional<std::string> pow3_range(const InstanceParams& i) {
  if (i.p < 3 || i.p > kMaxN || !trivance::is_pow3(i.p))
    return "n = " + std::to_string(i.p) +
           ": the Trivance encodings are for n = 3^s, 3 <= n <= 3^20 (Lemma 4.2 / Theorem 4.3 assume n = 3^s)";
  return std::nullopt;
}

}  // namespace

Verdict prove_trivance_peers(uint64_t n, unsigned timeout_ms, const std::vector<uint64_t>* distances) {
  const char* name = "smt-trivance-peers";
  if (n < 3 || n > kMaxN || !trivance::is_pow3(n)) return skipped(name, "n is not a power of three in [3, 3^20]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const int s = trivance::ceil_log3(n);
    const std::vector<uint64_t> d = distances ? *distances : generator_distances(n);
    const unsigned w = bits_for(2 * n) + 2, kw = bits_for(static_cast<uint64_t>(s));
    std::vector<uint64_t> dm, p3;
    for (int k = 0; k < s; ++k) {
      dm.push_back(d.at(static_cast<size_t>(k)) % n);
      p3.push_back(trivance::pow3(k));
    }
    Circle C{c, w, c.bv_val(n, w)};
    z3::expr r = c.bv_const("r", w), k = c.bv_const("k", kw);
    z3::expr dk = select(c, k, dm, w), want = select(c, k, p3, w);
    z3::expr left = C.sub(r, dk), right = C.add(r, dk);
    z3::expr bad = C.dist(left, r) != want || C.dist(right, r) != want || left == right || left == r ||
                   C.sub(right, dk) != r || C.add(left, dk) != r;
    z3::expr violation = z3::ult(r, C.N) && z3::ult(k, c.bv_val(s, kw)) && bad;
    v.stats["query"] = "exists r < n, k < s: a step-k peer (r -/+ d_k) mod n is not 3^k hops away, or the peers "
                       "coincide, or the exchange does not pair";
    v.stats["encoding"] = "QF_BV width " + std::to_string(w) + ", d_k from trivance_distances";
    v.stats["instances"] = std::to_string(n * static_cast<uint64_t>(s));
    Budget b(c, timeout_ms);
    bool held = refute(b, v, "peers", violation, {k, r}, [&](const std::vector<uint64_t>& x)
                           -> std::optional<Counterexample> {
      int kk = static_cast<int>(x[0]);
      uint64_t rr = x[1], dk2 = dm[static_cast<size_t>(kk)];
      uint64_t lp = (rr + n - dk2) % n, rp = (rr + dk2) % n, want2 = trivance::pow3(kk);
      uint64_t dl = ring_dist(lp, rr, n), dr = ring_dist(rp, rr, n);
      if (dl == want2 && dr == want2 && lp != rp && lp != rr) return std::nullopt;
      Counterexample cx = Counterexample::at(n, static_cast<Rank>(rr), kk, std::nullopt, static_cast<Rank>(lp));
      cx.expected = "peers " + std::to_string(want2) + " hops away on both sides, distinct";
      cx.actual = "left peer " + std::to_string(lp) + " (" + std::to_string(dl) + " hops), right peer " +
                  std::to_string(rp) + " (" + std::to_string(dr) + " hops)";
      cx.message = "Sec. 4.1: at step " + std::to_string(kk) + " node " + std::to_string(rr) +
                   " must talk to r -/+ 3^k; the schedule uses distance " + std::to_string(d[static_cast<size_t>(kk)]);
      return cx;
    });
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

namespace {

// Lemma 4.2's step and Theorem 4.3, for fixed n (n_max = 0) or for every
// n = 3^s' <= n_max (symbolic).
Verdict coverage(const char* name, uint64_t n, uint64_t n_max, unsigned timeout_ms,
                 const std::vector<uint64_t>* distances) {
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const bool symbolic = n_max != 0;
    const uint64_t top = symbolic ? n_max : n;
    const int smax = trivance::floor_log3(top);
    const unsigned w = bits_for(2 * top) + 2, kw = bits_for(static_cast<uint64_t>(smax)) ;
    const std::vector<uint64_t> d = symbolic ? std::vector<uint64_t>{} : (distances ? *distances : generator_distances(n));
    std::vector<uint64_t> dm, rprev, rk, pow3s;
    for (int k = 0; k < smax; ++k) {
      dm.push_back(symbolic ? trivance::pow3(k) : d.at(static_cast<size_t>(k)) % n);
      rprev.push_back(radius(k - 1));
      rk.push_back(radius(k));
    }
    for (int s = 0; s <= smax; ++s) pow3s.push_back(trivance::pow3(s));
    z3::expr S = c.bv_const("s", kw);
    z3::expr N = symbolic ? select(c, S, pow3s, w) : c.bv_val(n, w);
    z3::expr domain_n = symbolic ? z3::uge(S, c.bv_val(1, kw)) && z3::ule(S, c.bv_val(smax, kw)) : c.bool_val(true);
    z3::expr s_of_n = symbolic ? S : c.bv_val(smax, kw);
    Circle C{c, w, N};
    z3::expr k = c.bv_const("k", kw), r = c.bv_const("r", w), u = c.bv_const("u", w);
    z3::expr dk = select(c, k, dm, w), Rp = select(c, k, rprev, w), Rk = select(c, k, rk, w);
    z3::expr left = C.sub(r, dk), right = C.add(r, dk);
    z3::expr count = C.one_if(z3::ule(C.dist(u, r), Rp)) + C.one_if(z3::ule(C.dist(u, left), Rp)) +
                     C.one_if(z3::ule(C.dist(u, right), Rp));
    z3::expr step_violation = domain_n && z3::ult(k, s_of_n) && z3::ult(r, N) && z3::ult(u, N) &&
                              count != C.one_if(z3::ule(C.dist(u, r), Rk));
    // Theorem 4.3: R_{s-1} covers the ring.
    z3::expr last = s_of_n - c.bv_val(1, kw);
    z3::expr cover_violation = domain_n && z3::ult(r, N) && z3::ult(u, N) && z3::ugt(C.dist(u, r), select(c, last, rk, w));
    v.stats["query"] = std::string("step lemma: exists ") + (symbolic ? "s', " : "") +
                       "k < s, r, u < n: [u within R_{k-1} of r] + [.. of r-d_k] + [.. of r+d_k] != "
                       "[u within R_k of r]; then Theorem 4.3: exists r, u: dist(u,r) > R_{s-1}";
    v.stats["encoding"] = std::string("QF_BV width ") + std::to_string(w) +
                          (symbolic ? ", n = 3^s' symbolic (s' <= " + std::to_string(smax) + ")" : ", n constant");
    if (!symbolic)
      v.stats["instances"] = u128_string(static_cast<unsigned __int128>(n) * n * static_cast<unsigned>(smax));
    Budget b(c, timeout_ms);
    auto explain_step = [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
      uint64_t nn = symbolic ? trivance::pow3(static_cast<int>(x[0])) : n;
      size_t o = symbolic ? 1 : 0;
      int kk = static_cast<int>(x[o]);
      uint64_t rr = x[o + 1], uu = x[o + 2];
      std::vector<uint64_t> dd;
      for (int j = 0; j <= kk; ++j) dd.push_back(symbolic ? trivance::pow3(j) : d[static_cast<size_t>(j)] % nn);
      uint64_t want = ring_dist(uu, rr, nn) <= radius(kk) ? 1 : 0;
      uint64_t got;
      std::string how;
      if (kk <= 11) {
        got = multiplicity(uu, rr, kk, dd, nn);
        how = "exact multiplicity";
      } else {
        uint64_t dk2 = dd[static_cast<size_t>(kk)], R = radius(kk - 1);
        got = (ring_dist(uu, rr, nn) <= R) + (ring_dist(uu, (rr + nn - dk2) % nn, nn) <= R) +
              (ring_dist(uu, (rr + dk2) % nn, nn) <= R);
        how = "intervals of radius R_{k-1} (proved for step k-1)";
      }
      if (got == want) return std::nullopt;
      Counterexample cx = Counterexample::at(nn, static_cast<Rank>(rr), kk, std::nullopt, static_cast<Rank>(uu));
      cx.expected = "data of node " + std::to_string(uu) + " held " + std::to_string(want) + " time(s) (R_" +
                    std::to_string(kk) + " = " + std::to_string(radius(kk)) + ")";
      cx.actual = std::to_string(got) + " time(s) (" + how + ")";
      cx.message = "Lemma 4.2 fails at step " + std::to_string(kk) + ": after it, node " + std::to_string(rr) +
                   " holds node " + std::to_string(uu) + "'s data " + std::to_string(got) + " times, ring distance " +
                   std::to_string(ring_dist(uu, rr, nn)) + ", radius R_k = " + std::to_string(radius(kk));
      return cx;
    };
    std::vector<z3::expr> step_vars = {k, r, u};
    if (symbolic) step_vars.insert(step_vars.begin(), S);
    bool held = refute(b, v, "lemma 4.2 step", step_violation, step_vars, explain_step);
    if (held) {
      std::vector<z3::expr> cover_vars = {r, u};
      if (symbolic) cover_vars.insert(cover_vars.begin(), S);
      held = refute(b, v, "theorem 4.3 cover", cover_violation, cover_vars, [&](const std::vector<uint64_t>& x)
                        -> std::optional<Counterexample> {
        uint64_t nn = symbolic ? trivance::pow3(static_cast<int>(x[0])) : n;
        size_t o = symbolic ? 1 : 0;
        int s = trivance::ceil_log3(nn);
        uint64_t rr = x[o], uu = x[o + 1];
        if (ring_dist(uu, rr, nn) <= radius(s - 1)) return std::nullopt;
        Counterexample cx = Counterexample::at(nn, static_cast<Rank>(rr), s - 1, std::nullopt, static_cast<Rank>(uu));
        cx.expected = "every node within R_{s-1} = " + std::to_string(radius(s - 1));
        cx.actual = "node " + std::to_string(uu) + " is " + std::to_string(ring_dist(uu, rr, nn)) + " hops away";
        cx.message = "Theorem 4.3: after s steps node " + std::to_string(rr) + " lacks node " + std::to_string(uu);
        return cx;
      });
    }
    if (held) {
      v.status = Status::holds;
      v.stats["lemmas"] = "2";
    }
    b.fill_stats(v);
  });
}

}  // namespace

Verdict prove_trivance_coverage(uint64_t n, unsigned timeout_ms, const std::vector<uint64_t>* distances) {
  const char* name = "smt-trivance-coverage";
  if (n < 3 || n > kMaxN || !trivance::is_pow3(n)) return skipped(name, "n is not a power of three in [3, 3^20]");
  return coverage(name, n, 0, timeout_ms, distances);
}

Verdict prove_trivance_coverage_all_n(uint64_t n_max, unsigned timeout_ms) {
  const char* name = "smt-trivance-coverage-all-n";
  if (n_max < 3 || n_max > kMaxN) return skipped(name, "n outside [3, 2^32]");
  return coverage(name, 0, n_max, timeout_ms, nullptr);
}

namespace {

// The ring algorithm only (not trivance-torus); the registry restricts the
// family's queries to the family.
bool on_ring(const AlgorithmInfo& a, const VariantInfo&) {
  return a.kind == static_cast<int>(trivance::AlgorithmKind::ring);
}

Query trivance_query(const char* name, const char* summary, Verdict (*prove)(uint64_t, unsigned,
                                                                           const std::vector<uint64_t>*)) {
  Query q;
  q.name = name;
  q.summary = summary;
  q.applies = on_ring;
  q.unsupported = pow3_range;
  q.run = [name, prove](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
    Smt2Scope scope(ctx.smt2_dir, std::string(name) + "-p" + std::to_string(i.p));
    return prove(i.p, ctx.timeout_ms, nullptr);
  };
  return q;
}

}  // namespace

std::vector<Query> trivance_queries() {
  std::vector<Query> out;
  out.push_back(trivance_query("smt-trivance-peers",
                               "Sec. 4.1: step-k peers are r -/+ 3^k, 3^k hops away on both sides, paired (n = 3^s)",
                               prove_trivance_peers));
  out.push_back(trivance_query("smt-trivance-coverage",
                               "Lemma 4.2 (exactly once, radius R_k = (3^(k+1)-1)/2) and Theorem 4.3 (n = 3^s)",
                               prove_trivance_coverage));
  Query all;
  all.name = "smt-trivance-coverage-all-n";
  all.summary = "symbolic n: Lemma 4.2's step and Theorem 4.3 for every n = 3^s <= p at once (only with --query)";
  all.applies = on_ring;
  all.unsupported = [](const InstanceParams& i) -> std::optional<std::string> {
    if (i.p < 3 || i.p > kMaxN) return "p = " + std::to_string(i.p) + ": the symbolic-n Trivance query takes 3 <= p <= 2^32";
    return std::nullopt;
  };
  all.run = [](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
    Smt2Scope scope(ctx.smt2_dir, "smt-trivance-coverage-all-n-p" + std::to_string(i.p));
    return prove_trivance_coverage_all_n(i.p, ctx.timeout_ms);
  };
  all.by_default = false;
  out.push_back(std::move(all));
  return out;
}

}  // namespace collcheck::smt
