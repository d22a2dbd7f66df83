// Z3 proofs about Träff's circulant broadcast schedules
// (traff-circulant-broadcast-schedules.txt, Sec. 2 Conditions 1-2, Sec. 2.1
// Algorithms 2-3, Lemma 2), for fixed p and symbolic rank r.
//
//   smt-traff-baseblock   With skip[0..q] from traff::skips(p) (Algorithm 2)
//                         as constants: the canonical skip sequence of r,
//                         built greedily as Lemma 2's proof does (from k = q-1
//                         down, take skip[k] when the running sum r' +
//                         skip[k] <= r), sums to r (Lemma 2), and Algorithm 3
//                         unrolled (return k at the first r' + skip[k] = r,
//                         else add skip[k] when < r; q when the loop ends)
//                         returns its smallest skip index (q for r = 0 only,
//                         0 <= b_r < q otherwise). Posed as Lemma 2's own
//                         induction, one small lemma per skip index over a
//                         symbolic state J_k (0 <= r - sum < skip[k+1]; before
//                         Algorithm 3 returns, its r' equals the greedy sum;
//                         after, its result is the greedy's smallest index):
//                         the unrolled monolithic formula took 57 s at p =
//                         65537 and timed out at 10^6, the induction takes
//                         well under a second. If a lemma fails, the unrolled
//                         formula finds the smallest violating rank, replayed
//                         with traff::baseblock on the same skips. For p <=
//                         2^12 also the enumerator's table of traff::baseblock
//                         (a multiplexer over r's bits) is compared with the
//                         unrolled Algorithm 3.
//   smt-traff-baseblock-all-p (symbolic p, only with --query): the same for
//                         every p' in [2, p] at once: skip values t_j of
//                         Algorithm 2's halving t_0 = p', t_j = t_{j-1} -
//                         floor(t_{j-1}/2) (skip[q'-j] = t_j), q' = the number
//                         of j >= 1 with t_{j-1} > 1, the loops unrolled over
//                         j = 1..ceil(log2 p) with inactive iterations (j > q')
//                         masked off.
//   smt-traff-lemma2-length (only with --query): Lemma 2 as printed says the
//                         sequence has "j, j < q" skip indices. The query asks
//                         whether the canonical sequence ever needs q; a
//                         counterexample is checked against *every* subset of
//                         the skips (2^q), so it refutes the printed bound,
//                         not just the greedy choice.
//   smt-traff-tables      Conditions 1 and 2 (Sec. 2) on the enumerator's
//                         tables (properties/traff/traff_tables.hpp compute_tables,
//                         i.e. Algorithms 4-6 for every rank), as
//                         multiplexers over r's bits, one solver call per
//                         round k: for all r < p, with t = (r + skip[k]) mod
//                         p and f = (r - skip[k]) mod p:
//                         sendblock[k]_r = recvblock[k]_t and
//                         recvblock[k]_r = sendblock[k]_f. A cross-check of
//                         the enumerating traff-conditions property by a
//                         different engine, up to p = 2^14.
#include <optional>
#include <string>

#include "properties/traff/traff_tables.hpp"
#include "schedules/swing/swing_math.hpp"
#include "schedules/traff/traff_circulant.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/proof_support.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt {
namespace {

using namespace support;

constexpr uint64_t kMaxP = uint64_t{1} << 32;
constexpr uint64_t kMaxTableP = uint64_t{1} << 12;    // baseblock table cross-check
constexpr uint64_t kMaxTablesP = uint64_t{1} << 14;   // smt-traff-tables
constexpr uint64_t kMaxSymbolicP = uint64_t{1} << 20; // smt-traff-baseblock-all-p

struct Greedy {
  uint64_t sum = 0;
  int64_t smallest;  // q if empty
  int count = 0;
};
Greedy greedy(uint64_t r, const std::vector<int64_t>& skip) {
  const int q = static_cast<int>(skip.size()) - 1;
  Greedy g{0, q, 0};
  for (int k = q - 1; k >= 0; --k)
    if (g.sum + static_cast<uint64_t>(skip[static_cast<size_t>(k)]) <= r) {
      g.sum += static_cast<uint64_t>(skip[static_cast<size_t>(k)]);
      g.smallest = k;
      ++g.count;
    }
  return g;
}

std::string skips_text(const std::vector<int64_t>& skip) {
  std::string s;
  for (int64_t x : skip) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// Z3 side of the canonical sequence and Algorithm 3, fixed skips.
struct Canonical {
  z3::expr sum, smallest, alg3, count;
};
Canonical encode(z3::context& c, const z3::expr& r, const std::vector<int64_t>& skip, unsigned w) {
  const int q = static_cast<int>(skip.size()) - 1;
  const unsigned qw = bits_for(static_cast<uint64_t>(q)) + 1;
  z3::expr sum = c.bv_val(0, w), smallest = c.bv_val(q, qw), count = c.bv_val(0, qw);
  z3::expr rp = c.bv_val(0, w), found = c.bool_val(false), ret = c.bv_val(q, qw);
  for (int k = q - 1; k >= 0; --k) {
    z3::expr sk = c.bv_val(static_cast<uint64_t>(skip[static_cast<size_t>(k)]), w);
    z3::expr take = z3::ule(sum + sk, r);  // greedy (Lemma 2's proof)
    sum = z3::ite(take, sum + sk, sum);
    smallest = z3::ite(take, c.bv_val(k, qw), smallest);
    count = z3::ite(take, count + c.bv_val(1, qw), count);
    z3::expr eq = !found && rp + sk == r;  // Algorithm 3
    ret = z3::ite(eq, c.bv_val(k, qw), ret);
    rp = z3::ite(!found && !eq && z3::ult(rp + sk, r), rp + sk, rp);
    found = found || eq;
  }
  return {sum, smallest, ret, count};
}

}  // namespace

Verdict prove_traff_baseblock(uint64_t p, unsigned timeout_ms, const std::vector<int64_t>* given) {
  const char* name = "smt-traff-baseblock";
  if (p < 2 || p > kMaxP) return skipped(name, "p outside [2, 2^32]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const std::vector<int64_t> skip = given ? *given : traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    uint64_t top = p;
    for (int64_t x : skip) top = std::max(top, static_cast<uint64_t>(x));
    const unsigned w = bits_for(4 * top) + 1;
    const unsigned qw = bits_for(static_cast<uint64_t>(q)) + 1;
    auto S = [&](int k) { return c.bv_val(static_cast<uint64_t>(skip[static_cast<size_t>(k)]), w); };
    z3::expr Q = c.bv_val(q, qw), zero = c.bv_val(0, w);
    // State after the indices above k: Algorithm 3 (rp, found, ret) and the
    // greedy canonical sequence (sum, smallest), for rank r.
    z3::expr r = c.bv_const("r", w), rp = c.bv_const("rp", w), sum = c.bv_const("sum", w);
    z3::expr found = c.bool_const("found"), ret = c.bv_const("ret", qw), smallest = c.bv_const("smallest", qw);
    // J_k, before index k is processed (bound = skip[k+1]; skip[q] = p):
    //   0 <= r - sum < bound (Lemma 2's induction), r < p;
    //   found  => r > 0, sum = r, ret = smallest < q;
    //   !found => rp = sum, ret = q, (r = 0 => smallest = q), (r > 0 => sum < r).
    auto J = [&](const z3::expr& bound, const z3::expr& rp_, const z3::expr& sum_, const z3::expr& found_,
                 const z3::expr& ret_, const z3::expr& sm_) {
      return z3::ult(r, c.bv_val(p, w)) && z3::ule(sum_, r) && z3::ult(r - sum_, bound) &&
             z3::implies(found_, r != zero && sum_ == r && ret_ == sm_ && z3::ult(ret_, Q)) &&
             z3::implies(!found_, rp_ == sum_ && ret_ == Q && z3::implies(r == zero, sm_ == Q) &&
                                      z3::implies(r != zero, z3::ult(sum_, r)));
    };
    struct Lemma {
      std::string name;
      z3::expr negation;
    };
    std::vector<Lemma> lemmas;
    // Base: the initial state meets J_{q-1} (bound skip[q] = p) for every r < p.
    lemmas.push_back({"base", z3::ult(r, c.bv_val(p, w)) &&
                                  !J(S(q), zero, zero, c.bool_val(false), Q, Q)});
    for (int k = q - 1; k >= 0; --k) {
      z3::expr kk = c.bv_val(k, qw);
      z3::expr take = z3::ule(sum + S(k), r);  // greedy (Lemma 2's proof)
      z3::expr sum2 = z3::ite(take, sum + S(k), sum), sm2 = z3::ite(take, kk, smallest);
      z3::expr eq = !found && rp + S(k) == r;  // Algorithm 3
      z3::expr ret2 = z3::ite(eq, kk, ret);
      z3::expr rp2 = z3::ite(!found && !eq && z3::ult(rp + S(k), r), rp + S(k), rp);
      z3::expr found2 = found || eq;
      z3::expr bound2 = k == 0 ? c.bv_val(1, w) : S(k);  // J_{k-1}: bound skip[k]; after index 0: r - sum < 1
      lemmas.push_back({"index " + std::to_string(k),
                        J(S(k + 1), rp, sum, found, ret, smallest) && !J(bound2, rp2, sum2, found2, ret2, sm2)});
    }
    // End: J_{-1} gives the claims.
    lemmas.push_back({"end", J(c.bv_val(1, w), rp, sum, found, ret, smallest) &&
                                 !(sum == r && ret == smallest && ((r == zero) == (ret == Q)))});
    v.stats["query"] = "induction over the skip indices k = q-1..0 (Lemma 2's proof): J_k => J_{k-1} for the greedy "
                       "canonical sequence and Algorithm 3 side by side; at the end sum = r (Lemma 2) and BASEBLOCK = "
                       "the smallest index of the canonical sequence (q iff r = 0)";
    v.stats["encoding"] = "QF_BV width " + std::to_string(w) + ", skips " + skips_text(skip) + ", " +
                          std::to_string(q + 2) + " lemmas over a symbolic state";
    v.stats["instances"] = std::to_string(p);
    Budget b(c, timeout_ms);
    for (const Lemma& l : lemmas) {
      z3::solver s = b.solver();
      s.add(l.negation);
      z3::check_result res = b.check(s, l.name);
      if (res == z3::unsat) continue;
      if (res == z3::unknown) {
        v.status = Status::unknown;
        v.stats["stopped_at"] = l.name;
        b.fill_stats(v);
        return;
      }
      // A failed lemma need not be a reachable state: look for the smallest
      // concrete rank that breaks the claims, by the unrolled search below.
      v.stats["failed_lemma"] = l.name;
      break;
    }
    if (!v.stats.count("failed_lemma")) {
      v.stats["lemmas"] = std::to_string(lemmas.size());
      v.status = Status::holds;
      // Cross-check of the enumerator for small p: traff::baseblock's table
      // against the unrolled Algorithm 3 (monolithic; cheap below 2^12).
      if (!given && p <= kMaxTableP) {
        std::vector<uint64_t> tb(p);
        for (uint64_t x = 0; x < p; ++x) tb[x] = static_cast<uint64_t>(traff::baseblock(x, skip));
        Canonical can = encode(c, r, skip, w);
        bool same = refute(b, v, "enumerator table", z3::ult(r, c.bv_val(p, w)) && table(c, r, tb, qw) != can.alg3, {r},
                           [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                             (void)x;
                             return std::nullopt;  // traff::baseblock is Algorithm 3: a difference is an encoding bug
                           });
        v.stats["enumerator_table"] = same ? "agrees" : "differs";
        if (same) v.status = Status::holds;
      }
      b.fill_stats(v);
      return;
    }
    // Some lemma failed: find the smallest violating rank with the unrolled
    // (monolithic) encoding, replayed with traff::baseblock.
    Canonical can = encode(c, r, skip, w);
    z3::expr rzero = r == c.bv_val(0, w);
    z3::expr bad = can.sum != r || can.alg3 != can.smallest ||
                   (rzero && can.alg3 != c.bv_val(q, qw)) || (!rzero && z3::uge(can.alg3, c.bv_val(q, qw)));
    bool held = refute(b, v, "baseblock", z3::ult(r, c.bv_val(p, w)) && bad, {r},
                       [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                         uint64_t rr = x[0];
                         Greedy g = greedy(rr, skip);
                         int64_t b3 = traff::baseblock(rr, skip);
                         bool ok = g.sum == rr && b3 == g.smallest && (rr == 0 ? b3 == q : b3 < q);
                         if (ok) return std::nullopt;
                         Counterexample cx = Counterexample::at(p, static_cast<Rank>(rr));
                         cx.expected = "canonical skips summing to " + std::to_string(rr) +
                                       ", Algorithm 3 = smallest index";
                         cx.actual = "greedy sum " + std::to_string(g.sum) + ", smallest index " +
                                     std::to_string(g.smallest) + ", Algorithm 3 returns " + std::to_string(b3);
                         cx.message = g.sum != rr ? "Lemma 2 fails for skips " + skips_text(skip) + ": rank " +
                                                        std::to_string(rr) + " is no sum of distinct skips (greedy)"
                                                  : "BASEBLOCK(" + std::to_string(rr) + ") = " + std::to_string(b3) +
                                                        " is not the smallest index of the canonical sequence";
                         return cx;
                       });
    if (held) {
      // The induction failed but no rank violates the claims: the invariant
      // is too weak for these skips, not a proof and not a violation.
      v.status = Status::unknown;
      v.stats["error"] = "lemma '" + v.stats["failed_lemma"] + "' fails on an unreachable state; no rank violates";
    }
    b.fill_stats(v);
  });
}

Verdict prove_traff_lemma2_length(uint64_t p, unsigned timeout_ms) {
  const char* name = "smt-traff-lemma2-length";
  if (p < 2 || p > kMaxP) return skipped(name, "p outside [2, 2^32]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const std::vector<int64_t> skip = traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    const unsigned w = bits_for(4 * p) + 1, qw = bits_for(static_cast<uint64_t>(q)) + 1;
    z3::expr r = c.bv_const("r", w);
    Canonical can = encode(c, r, skip, w);
    v.stats["query"] = "exists r < p: the canonical skip sequence of r has j >= q indices (Lemma 2 prints j < q)";
    v.stats["encoding"] = "QF_BV width " + std::to_string(w) + ", skips " + skips_text(skip);
    Budget b(c, timeout_ms);
    bool held = refute(b, v, "lemma 2 length", z3::ult(r, c.bv_val(p, w)) && z3::uge(can.count, c.bv_val(q, qw)), {r},
                       [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                         uint64_t rr = x[0];
                         if (greedy(rr, skip).count < q || q > 24) return std::nullopt;
                         int shortest = q + 1;  // over every subset of distinct skip indices
                         for (uint64_t m = 0; m < (uint64_t{1} << q); ++m) {
                           uint64_t sum = 0;
                           for (int k = 0; k < q; ++k)
                             if (m >> k & 1) sum += static_cast<uint64_t>(skip[static_cast<size_t>(k)]);
                           if (sum == rr) shortest = std::min(shortest, __builtin_popcountll(m));
                         }
                         if (shortest < q) return std::nullopt;
                         Counterexample cx = Counterexample::at(p, static_cast<Rank>(rr));
                         cx.expected = "a sequence of j < q = " + std::to_string(q) + " distinct skips summing to " +
                                       std::to_string(rr) + " (Lemma 2 as printed)";
                         cx.actual = "every such sequence has " + std::to_string(shortest) + " skips (skips " +
                                     skips_text(skip) + ")";
                         cx.message = "Lemma 2's bound j < q is off by one: rank " + std::to_string(rr) +
                                      " needs all " + std::to_string(q) + " skips; j <= q holds";
                         return cx;
                       });
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

Verdict prove_traff_baseblock_all_p(uint64_t p_max, unsigned timeout_ms) {
  const char* name = "smt-traff-baseblock-all-p";
  if (p_max < 2 || p_max > kMaxSymbolicP) return skipped(name, "p outside [2, 2^20]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const int Q = swing::ceil_log2(p_max);
    const unsigned w = bits_for(4 * p_max) + 1, qw = bits_for(static_cast<uint64_t>(Q)) + 1;
    z3::expr P = c.bv_const("p", w), r = c.bv_const("r", w);
    std::vector<z3::expr> t = {P};
    for (int j = 1; j <= Q; ++j) t.push_back(t.back() - z3::lshr(t.back(), 1));  // Algorithm 2
    z3::expr qp = c.bv_val(0, qw);
    for (int j = 1; j <= Q; ++j) qp = qp + z3::ite(z3::ugt(t[j - 1], c.bv_val(1, w)), c.bv_val(1, qw), c.bv_val(0, qw));
    z3::expr sum = c.bv_val(0, w), maxj = c.bv_val(0, qw);
    z3::expr rp = c.bv_val(0, w), found = c.bool_val(false), jret = c.bv_val(0, qw);
    for (int j = 1; j <= Q; ++j) {  // k = q' - j, skip[k] = t_j
      z3::expr active = z3::ugt(t[j - 1], c.bv_val(1, w));
      z3::expr take = active && z3::ule(sum + t[j], r);
      sum = z3::ite(take, sum + t[j], sum);
      maxj = z3::ite(take, c.bv_val(j, qw), maxj);
      z3::expr eq = active && !found && rp + t[j] == r;
      jret = z3::ite(eq, c.bv_val(j, qw), jret);
      rp = z3::ite(active && !found && !eq && z3::ult(rp + t[j], r), rp + t[j], rp);
      found = found || eq;
    }
    z3::expr domain = z3::uge(P, c.bv_val(2, w)) && z3::ule(P, c.bv_val(p_max, w)) && z3::ult(r, P);
    z3::expr rzero = r == c.bv_val(0, w);
    z3::expr bad = sum != r || jret != maxj || (!rzero && jret == c.bv_val(0, qw));
    v.stats["query"] = "exists p' in [2, " + std::to_string(p_max) + "], r < p': the canonical sequence (Algorithm 2's "
                       "skips of p') does not sum to r, or Algorithm 3 does not return its smallest index";
    v.stats["encoding"] = "QF_BV width " + std::to_string(w) + ", p' symbolic, " + std::to_string(Q) +
                          " unrolled iterations masked by j <= q'";
    Budget b(c, timeout_ms);
    bool held = refute(b, v, "baseblock all p", domain && bad, {P, r},
                       [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                         uint64_t pp = x[0], rr = x[1];
                         std::vector<int64_t> sk = traff::skips(pp);
                         const int q = static_cast<int>(sk.size()) - 1;
                         Greedy g = greedy(rr, sk);
                         int64_t b3 = traff::baseblock(rr, sk);
                         if (g.sum == rr && b3 == g.smallest && (rr == 0 || b3 < q)) return std::nullopt;
                         Counterexample cx = Counterexample::at(pp, static_cast<Rank>(rr));
                         cx.expected = "canonical sequence summing to r, BASEBLOCK = its smallest index";
                         cx.actual = "sum " + std::to_string(g.sum) + ", BASEBLOCK " + std::to_string(b3);
                         cx.message = "Lemma 2 / Algorithm 3 fail at p = " + std::to_string(pp);
                         return cx;
                       });
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

Verdict prove_traff_tables(uint64_t p, unsigned timeout_ms, const traff::Tables* given) {
  const char* name = "smt-traff-tables";
  if (p < 2 || p > kMaxTablesP) return skipped(name, "p outside [2, 2^14]");
  return guarded(name, [&](z3::context& c, Verdict& v) {
    traff::Tables own;
    if (!given) own = traff::compute_tables(p);
    const traff::Tables& t = given ? *given : own;
    const int q = t.q;
    const unsigned w = bits_for(2 * p) + 1, bw = 8;
    z3::expr r = c.bv_const("r", w), PP = c.bv_val(p, w);
    v.stats["query"] = "per round k: exists r < p: sendblock[k]_r != recvblock[k]_((r+skip[k]) mod p) (Condition 2) "
                       "or recvblock[k]_r != sendblock[k]_((r-skip[k]) mod p) (Condition 1)";
    v.stats["encoding"] = "QF_BV width " + std::to_string(w) + ", the 2q tables of p entries as multiplexers over r";
    v.stats["instances"] = std::to_string(p * static_cast<uint64_t>(q));
    Budget b(c, timeout_ms);
    bool held = true;
    for (int k = 0; k < q && held; ++k) {
      std::vector<uint64_t> recv(p), send(p);
      for (uint64_t x = 0; x < p; ++x) {
        recv[x] = static_cast<uint64_t>(static_cast<int64_t>(t.R(x, k))) & 0xff;
        send[x] = static_cast<uint64_t>(static_cast<int64_t>(t.S(x, k))) & 0xff;
      }
      const uint64_t sk = static_cast<uint64_t>(t.skip[static_cast<size_t>(k)]) % p;
      auto reduce = [&](const z3::expr& x) { return z3::ite(z3::uge(x, PP), x - PP, x); };  // x < 2p
      z3::expr to = reduce(r + c.bv_val(sk, w)), from = reduce(r + PP - c.bv_val(sk, w));
      z3::expr bad = table(c, r, send, bw) != table(c, to, recv, bw) || table(c, r, recv, bw) != table(c, from, send, bw);
      held = refute(b, v, "round k=" + std::to_string(k), z3::ult(r, PP) && bad, {r},
                    [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                      uint64_t rr = x[0], tt = (rr + sk) % p, ff = (rr + p - sk) % p;
                      int s_r = t.S(rr, k), r_t = t.R(tt, k), r_r = t.R(rr, k), s_f = t.S(ff, k);
                      if (s_r == r_t && r_r == s_f) return std::nullopt;
                      bool c2 = s_r != r_t;
                      Counterexample cx = Counterexample::at(p, static_cast<Rank>(rr), k, std::nullopt,
                                                             static_cast<Rank>(c2 ? tt : ff));
                      std::string K = "[" + std::to_string(k) + "]";
                      cx.expected = c2 ? "sendblock" + K + "_" + std::to_string(rr) + " = recvblock" + K + "_" +
                                             std::to_string(tt) + " = " + std::to_string(r_t)
                                       : "recvblock" + K + "_" + std::to_string(rr) + " = sendblock" + K + "_" +
                                             std::to_string(ff) + " = " + std::to_string(s_f);
                      cx.actual = c2 ? "sendblock" + K + "_" + std::to_string(rr) + " = " + std::to_string(s_r)
                                     : "recvblock" + K + "_" + std::to_string(rr) + " = " + std::to_string(r_r);
                      cx.message = std::string("Träff condition ") + (c2 ? "2" : "1") + " fails for rank " +
                                   std::to_string(rr) + " in round k = " + std::to_string(k);
                      return cx;
                    });
    }
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

std::vector<Query> traff_queries() {
  std::vector<Query> out;
  auto make = [&](const char* name, const char* summary, uint64_t max_p, const char* limit,
                  Verdict (*prove)(uint64_t, unsigned), bool by_default) {
    Query q;
    q.name = name;
    q.summary = summary;
    q.unsupported = [max_p, limit](const InstanceParams& i) -> std::optional<std::string> {
      if (i.p < 2 || i.p > max_p)
        return "p = " + std::to_string(i.p) + " is outside this encoding's range 2 <= p <= " + limit;
      return std::nullopt;
    };
    q.run = [name, prove](const AlgorithmInfo&, const VariantInfo&, const InstanceParams& i, const QueryContext& ctx) {
      Smt2Scope scope(ctx.smt2_dir, std::string(name) + "-p" + std::to_string(i.p));
      return prove(i.p, ctx.timeout_ms);
    };
    q.by_default = by_default;
    out.push_back(std::move(q));
  };
  make("smt-traff-baseblock",
       "Lemma 2 + Algorithm 3: the canonical skip sequence sums to r, BASEBLOCK is its smallest index (symbolic r)",
       kMaxP, "2^32", [](uint64_t p, unsigned t) { return prove_traff_baseblock(p, t); }, true);
  make("smt-traff-tables",
       "Conditions 1-2 on the enumerator's recvblock/sendblock tables of all ranks (cross-check, symbolic r)",
       kMaxTablesP, "2^14", [](uint64_t p, unsigned t) { return prove_traff_tables(p, t); }, true);
  make("smt-traff-baseblock-all-p", "symbolic p: Lemma 2 + Algorithm 3 for every p' <= p at once (only with --query)",
       kMaxSymbolicP, "2^20", prove_traff_baseblock_all_p, false);
  make("smt-traff-lemma2-length",
       "Lemma 2 as printed: fewer than q skips suffice for every r (refuted; only with --query)",
       uint64_t{1} << 24, "2^24 (a counterexample is replayed against every subset of the q skips)",
       prove_traff_lemma2_length, false);
  return out;
}

}  // namespace collcheck::smt
