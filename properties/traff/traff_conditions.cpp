#include "properties/traff/traff_conditions.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <string>

#include "properties/catalog.hpp"
#include "schedules/check.hpp"

namespace collcheck {
namespace {

std::string cell(const char* name, int64_t k, int64_t r, int64_t v) {
  return std::string(name) + "[" + std::to_string(k) + "]_" + std::to_string(r) + " = " + std::to_string(v);
}

}  // namespace

namespace {

// The conditions for ranks [lo, hi) of `t` (all four need only t's rows).
Verdict conditions_for(const traff::Tables& t, uint64_t lo, uint64_t hi) {
  Verdict v;
  v.property = prop::traff_conditions;
  v.mode = "exact";
  const uint64_t p = t.p;
  const int64_t q = t.q;
  const int64_t P = static_cast<int64_t>(p);
  auto fail = [&](int cond, int64_t r, std::optional<int64_t> k, std::optional<int64_t> peer, std::string expected,
                  std::string actual, const std::string& what) {
    Counterexample c = Counterexample::at(p, static_cast<Rank>(r),
                                          k ? std::optional<int>(static_cast<int>(*k)) : std::nullopt, std::nullopt,
                                          peer ? std::optional<Rank>(static_cast<Rank>(*peer)) : std::nullopt);
    c.expected = std::move(expected);
    c.actual = std::move(actual);
    c.message = "Träff condition " + std::to_string(cond) + " fails for rank " + std::to_string(r) +
                (k ? " in round k = " + std::to_string(*k) : std::string()) + ": " + what;
    v.fail(std::move(c));
  };
  auto R = [&](int64_t r, int64_t k) -> int64_t { return t.R(static_cast<uint64_t>(r), static_cast<int>(k)); };
  auto S = [&](int64_t r, int64_t k) -> int64_t { return t.S(static_cast<uint64_t>(r), static_cast<int>(k)); };
  // A set of blocks in [-q, q-1] as a bit mask over block + q: 2q <= 64 bits
  // since q <= 32 (p <= 2^32; traff::Tables stores ranks below 2^32).
  COLLCHECK_CHECK(q <= 32, "Träff tables with q > 32");
  using Mask = uint64_t;
  auto bit = [q](int64_t b) { return Mask{1} << static_cast<unsigned>(b + q); };
  // Conditions 1 and 2, round by round: two sequential streams per round.
  for (int64_t k = 0; k < q; ++k) {
    const int64_t sk = t.skip[static_cast<size_t>(k)];
    for (int64_t r = static_cast<int64_t>(lo); r < static_cast<int64_t>(hi); ++r) {
      const int64_t to = r + sk >= P ? r + sk - P : r + sk;
      const int64_t f = r - sk < 0 ? r - sk + P : r - sk;
      // 1. "The block that is received in round i with k = i mod q by some
      //    processor r must be the block that is sent by the from-processor f_r^k,
      //    recvblock[k]_r = sendblock[k]_{f^k}."
      if (R(r, k) != S(f, k)) [[unlikely]]
        fail(1, r, k, f, cell("recvblock", k, r, S(f, k)) + " (sendblock[k] of the from-processor " + std::to_string(f) + ")",
             cell("recvblock", k, r, R(r, k)), "recvblock[k]_r != sendblock[k]_f");
      // 2. "The block that processor r sends in round i with k = i mod q must be
      //    the block that the to-processor t_r^k will receive,
      //    sendblock[k]_r = recvblock[k]_{t^k}."
      if (S(r, k) != R(to, k)) [[unlikely]]
        fail(2, r, k, to, cell("sendblock", k, r, R(to, k)) + " (recvblock[k] of the to-processor " + std::to_string(to) + ")",
             cell("sendblock", k, r, S(r, k)), "sendblock[k]_r != recvblock[k]_t");
    }
  }
  uint64_t checks = 2 * static_cast<uint64_t>(q) * (hi - lo);
  if (lo == 0) {
    // The root is outside conditions 3 and 4 (they take 0 <= b_r < q; the root
    // has b = q by Algorithm 3's convention and holds every block). What the
    // paper states for it: it "greedily sends the blocks 0, 1, ..., q-1"
    // (Algorithm 6, sendblock[k] = k), and since its b - q = 0 is not removed,
    // Algorithm 5 leaves it only negative receive blocks (Tables 1-3:
    // exactly {-1, ..., -q}), which Algorithm 1 never communicates.
    const int64_t r = 0, b = t.baseblock[0];
    checks += 1 + 2 * static_cast<uint64_t>(q);
    if (b != q)
      fail(3, r, std::nullopt, std::nullopt, "baseblock_0 = " + std::to_string(q) + " (q, the root)",
           "baseblock_0 = " + std::to_string(b), "the root's baseblock is not q");
    Mask seen = 0;
    for (int64_t k = 0; k < q; ++k) {
      const int64_t x = R(r, k);
      if (x >= 0 || (seen & bit(x)))
        fail(3, r, k, std::nullopt, "recvblock[" + std::to_string(k) + "]_0 in {-1..-" + std::to_string(q) +
             "}, not received before", cell("recvblock", k, r, x), "the root's recvblock is not a permutation of {-1..-q}");
      seen |= bit(x);
    }
    for (int64_t k = 0; k < q; ++k)
      if (S(r, k) != k)
        fail(4, r, k, std::nullopt, cell("sendblock", k, r, k), cell("sendblock", k, r, S(r, k)),
             "the root does not send block k in round k");
  }
  // Conditions 3 and 4 for the other ranks, round by round again, with one
  // mask per rank: `got` collects recvblock[0..k], `earlier` is b - q and
  // recvblock[0..k-1] (what condition 4 allows in round k).
  const uint64_t first = lo == 0 ? 1 : lo;
  if (first >= hi) {
    v.checks += checks;
    return v;
  }
  const size_t m = hi - first;
  std::vector<Mask> got(m, 0), earlier(m, 0);
  std::vector<uint8_t> b_ok(m, 0);
  for (size_t i = 0; i < m; ++i) {
    const int64_t r = static_cast<int64_t>(first + i), b = t.baseblock[first + i];
    ++checks;
    // 3. (the baseblock part) "... where b_r, 0 <= b_r < q is a non-negative,
    //    real block received by processor r in one of the first q rounds."
    if (b < 0 || b >= q)
      fail(3, r, std::nullopt, std::nullopt, "0 <= baseblock_" + std::to_string(r) + " < " + std::to_string(q),
           "baseblock_" + std::to_string(r) + " = " + std::to_string(b), "baseblock not in [0, q)");
    else
      b_ok[i] = 1;
    if (b - q >= -q && b - q < q) earlier[i] = bit(b - q);
  }
  for (int64_t k = 0; k < q; ++k) {
    const int8_t* rcol = &t.recv[t.at(first, static_cast<int>(k))];
    const int8_t* scol = &t.send[t.at(first, static_cast<int>(k))];
    for (size_t i = 0; i < m; ++i) {
      // 4. "The block that a processor sends in round i with k = i mod q must be a
      //    block that has been received in some previous round, so either
      //    sendblock[k]_r = recvblock[j]_r for some j, 0 <= j < k, or
      //    sendblock[k]_r = b_r q where b_r >= 0 is the baseblock for processor r."
      //    ("b_r q" is printed so; the next sentence, "sendblock[0]_r = b_r - q",
      //    shows that b_r - q is meant.)
      if (!(earlier[i] & bit(scol[i]))) [[unlikely]] {
        const int64_t r = static_cast<int64_t>(first + i), b = t.baseblock[first + i];
        fail(4, r, k, std::nullopt,
             "sendblock[" + std::to_string(k) + "]_" + std::to_string(r) + " = b - q = " + std::to_string(b - q) +
                 " or one of recvblock[0.." + std::to_string(k) + ")_" + std::to_string(r),
             cell("sendblock", k, r, scol[i]), "sendblock[k] neither an earlier recvblock nor b - q");
      }
      const Mask x = bit(rcol[i]);
      earlier[i] |= x;
      got[i] |= x;
    }
  }
  checks += 2 * static_cast<uint64_t>(q) * m;
  // 3. "Over any q successive rounds, each processor must receive q different
  //    blocks. More concretely, U_{k=0}^{q-1} {recvblock[k]_r} =
  //    ({-1, -2, ..., -q} \ {b_r - q}) U {b_r} where b_r, 0 <= b_r < q is a
  //    non-negative, real block received by processor r in one of the first q
  //    rounds. This block b_r is called the baseblock for processor r."
  // The required set has q elements, so the q receive blocks meet it iff their
  // union is exactly that set (a repeat leaves fewer than q). Where it is not,
  // report the first round whose block is outside the set or repeats.
  const Mask negatives = (Mask{1} << q) - 1;  // bits of -q..-1
  for (size_t i = 0; i < m; ++i) {
    if (!b_ok[i]) continue;
    const int64_t r = static_cast<int64_t>(first + i), b = t.baseblock[first + i];
    if (got[i] == ((negatives & ~bit(b - q)) | bit(b))) continue;
    Mask seen = 0;
    for (int64_t k = 0; k < q; ++k) {
      const int64_t x = R(r, k);
      const bool wanted = x == b || (x < 0 && x != b - q);
      if (!wanted || (seen & bit(x)))
        fail(3, r, k, std::nullopt,
             "recvblock[" + std::to_string(k) + "]_" + std::to_string(r) + " in ({-1..-" + std::to_string(q) + "} \\ {" +
                 std::to_string(b - q) + "}) U {" + std::to_string(b) + "}, not received before",
             cell("recvblock", k, r, x), "recvblock set != ({-1..-q} \\ {b-q}) U {b}");
      seen |= bit(x);
    }
  }
  v.checks += checks;
  return v;
}

}  // namespace

Verdict traff_conditions(const traff::Tables& t) {
  Verdict v;
  v.property = prop::traff_conditions;
  v.mode = "exact";
  if (t.p == 0) return v;
  return tbb::parallel_reduce(
      tbb::blocked_range<uint64_t>(0, t.p, 8192), v,
      [&](const tbb::blocked_range<uint64_t>& r, Verdict acc) {
        acc.merge(conditions_for(t, r.begin(), r.end()));
        return acc;
      },
      [](Verdict a, const Verdict& b) {
        a.merge(b);
        return a;
      });
}

Verdict traff_conditions(const std::vector<traff::RankSchedule>& s) {
  Verdict v;
  v.property = prop::traff_conditions;
  v.mode = "exact";
  const uint64_t p = s.size();
  if (p == 0) return v;
  const int64_t q = static_cast<int64_t>(traff::skips(p).size()) - 1;
  // Shape and value range first: the conditions index recvblock/sendblock[0..q-1]
  // and the flat tables hold values in [-q, q-1].
  for (uint64_t r = 0; r < p; ++r) {
    const auto& sr = s[r];
    ++v.checks;
    Counterexample c = Counterexample::at(p, static_cast<Rank>(r));
    if (sr.recvblock.size() != static_cast<size_t>(q) || sr.sendblock.size() != static_cast<size_t>(q)) {
      c.expected = std::to_string(q) + " receive and send blocks";
      c.actual = std::to_string(sr.recvblock.size()) + " and " + std::to_string(sr.sendblock.size());
      c.message = "Träff condition 0 fails for rank " + std::to_string(r) +
                  ": the schedule does not have q = ceil(log2 p) rounds";
      v.fail(std::move(c));
      continue;
    }
    auto in_range = [q](int64_t x) { return x >= -q && x < q; };
    bool ok = sr.baseblock >= 0 && sr.baseblock <= q;
    for (int64_t k = 0; k < q && ok; ++k)
      ok = in_range(sr.recvblock[static_cast<size_t>(k)]) && in_range(sr.sendblock[static_cast<size_t>(k)]);
    if (!ok) {
      c.expected = "baseblock in [0, q] and blocks in [-q, q-1], q = " + std::to_string(q);
      c.actual = "a value outside";
      c.message = "Träff condition 3 fails for rank " + std::to_string(r) + ": a block outside [-q, q-1]";
      v.fail(std::move(c));
    }
  }
  if (v.status == Status::violated) return v;
  Verdict flat = traff_conditions(traff::from_rank_schedules(s));
  flat.checks += v.checks;
  return flat;
}

}  // namespace collcheck
