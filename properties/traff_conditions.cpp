#include "properties/traff_conditions.hpp"

#include <set>
#include <string>

#include "properties/catalog.hpp"

namespace collcheck {
namespace {

std::string cell(const char* name, int64_t k, int64_t r, int64_t v) {
  return std::string(name) + "[" + std::to_string(k) + "]_" + std::to_string(r) + " = " + std::to_string(v);
}

}  // namespace

Verdict traff_conditions(const std::vector<traff::RankSchedule>& s) {
  Verdict v;
  v.property = prop::traff_conditions;
  v.mode = "exact";
  const uint64_t p = s.size();
  if (p == 0) return v;
  const auto skip = traff::skips(p);
  const int64_t q = static_cast<int64_t>(skip.size()) - 1;
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
  // Lengths first: the conditions index recvblock/sendblock[0..q-1].
  bool shaped = true;
  for (int64_t r = 0; r < P; ++r) {
    const auto& sr = s[static_cast<size_t>(r)];
    ++v.checks;
    if (sr.recvblock.size() != static_cast<size_t>(q) || sr.sendblock.size() != static_cast<size_t>(q)) {
      fail(0, r, std::nullopt, std::nullopt, std::to_string(q) + " receive and send blocks",
           std::to_string(sr.recvblock.size()) + " and " + std::to_string(sr.sendblock.size()),
           "the schedule does not have q = ceil(log2 p) rounds");
      shaped = false;
    }
  }
  if (!shaped) return v;
  auto R = [&](int64_t r, int64_t k) { return s[static_cast<size_t>(r)].recvblock[static_cast<size_t>(k)]; };
  auto S = [&](int64_t r, int64_t k) { return s[static_cast<size_t>(r)].sendblock[static_cast<size_t>(k)]; };
  for (int64_t r = 0; r < P; ++r) {
    const auto& sr = s[static_cast<size_t>(r)];
    for (int64_t k = 0; k < q; ++k) {
      const int64_t t = (r + skip[static_cast<size_t>(k)]) % P;
      const int64_t f = (r - skip[static_cast<size_t>(k)] % P + P) % P;
      // 1. "The block that is received in round i with k = i mod q by some
      //    processor r must be the block that is sent by the from-processor f_r^k,
      //    recvblock[k]_r = sendblock[k]_{f^k}."
      ++v.checks;
      if (R(r, k) != S(f, k))
        fail(1, r, k, f, cell("recvblock", k, r, S(f, k)) + " (sendblock[k] of the from-processor " + std::to_string(f) + ")",
             cell("recvblock", k, r, R(r, k)), "recvblock[k]_r != sendblock[k]_f");
      // 2. "The block that processor r sends in round i with k = i mod q must be
      //    the block that the to-processor t_r^k will receive,
      //    sendblock[k]_r = recvblock[k]_{t^k}."
      ++v.checks;
      if (S(r, k) != R(t, k))
        fail(2, r, k, t, cell("sendblock", k, r, R(t, k)) + " (recvblock[k] of the to-processor " + std::to_string(t) + ")",
             cell("sendblock", k, r, S(r, k)), "sendblock[k]_r != recvblock[k]_t");
    }
    if (r == 0) {
      // The root is outside conditions 3 and 4 (they take 0 <= b_r < q; the root
      // has b = q by Algorithm 3's convention and holds every block). What the
      // paper states for it: it "greedily sends the blocks 0, 1, ..., q-1"
      // (Algorithm 6, sendblock[k] = k), and since its b - q = 0 is not removed,
      // Algorithm 5 leaves it only negative receive blocks (Tables 1-3:
      // exactly {-1, ..., -q}), which Algorithm 1 never communicates.
      ++v.checks;
      if (sr.baseblock != q)
        fail(3, r, std::nullopt, std::nullopt, "baseblock_0 = " + std::to_string(q) + " (q, the root)",
             "baseblock_0 = " + std::to_string(sr.baseblock), "the root's baseblock is not q");
      std::set<int64_t> seen;
      for (int64_t k = 0; k < q; ++k) {
        ++v.checks;
        const int64_t b = R(r, k);
        if (b >= 0 || b < -q || !seen.insert(b).second)
          fail(3, r, k, std::nullopt, "recvblock[" + std::to_string(k) + "]_0 in {-1..-" + std::to_string(q) +
               "}, not received before", cell("recvblock", k, r, b), "the root's recvblock is not a permutation of {-1..-q}");
      }
      for (int64_t k = 0; k < q; ++k) {
        ++v.checks;
        if (S(r, k) != k)
          fail(4, r, k, std::nullopt, cell("sendblock", k, r, k), cell("sendblock", k, r, S(r, k)),
               "the root does not send block k in round k");
      }
      continue;
    }
    const int64_t b = sr.baseblock;
    // 3. "Over any q successive rounds, each processor must receive q different
    //    blocks. More concretely, U_{k=0}^{q-1} {recvblock[k]_r} =
    //    ({-1, -2, ..., -q} \ {b_r - q}) U {b_r} where b_r, 0 <= b_r < q is a
    //    non-negative, real block received by processor r in one of the first q
    //    rounds. This block b_r is called the baseblock for processor r."
    // The required set has q elements, so it is met iff every recvblock[k] is
    // in it and none repeats: report the first round where that fails.
    ++v.checks;
    if (b < 0 || b >= q) {
      fail(3, r, std::nullopt, std::nullopt, "0 <= baseblock_" + std::to_string(r) + " < " + std::to_string(q),
           "baseblock_" + std::to_string(r) + " = " + std::to_string(b), "baseblock not in [0, q)");
    } else {
      std::set<int64_t> want, seen;
      for (int64_t j = 1; j <= q; ++j)
        if (-j != b - q) want.insert(-j);
      want.insert(b);
      for (int64_t k = 0; k < q; ++k) {
        ++v.checks;
        const int64_t x = R(r, k);
        if (!want.count(x) || !seen.insert(x).second)
          fail(3, r, k, std::nullopt,
               "recvblock[" + std::to_string(k) + "]_" + std::to_string(r) + " in ({-1..-" + std::to_string(q) + "} \\ {" +
                   std::to_string(b - q) + "}) U {" + std::to_string(b) + "}, not received before",
               cell("recvblock", k, r, x), "recvblock set != ({-1..-q} \\ {b-q}) U {b}");
      }
    }
    // 4. "The block that a processor sends in round i with k = i mod q must be a
    //    block that has been received in some previous round, so either
    //    sendblock[k]_r = recvblock[j]_r for some j, 0 <= j < k, or
    //    sendblock[k]_r = b_r q where b_r >= 0 is the baseblock for processor r."
    //    ("b_r q" is printed so; the next sentence, "sendblock[0]_r = b_r - q",
    //    shows that b_r - q is meant.)
    for (int64_t k = 0; k < q; ++k) {
      ++v.checks;
      const int64_t sb = S(r, k);
      bool ok = sb == b - q;
      for (int64_t j = 0; j < k && !ok; ++j) ok = sb == R(r, j);
      if (!ok)
        fail(4, r, k, std::nullopt,
             "sendblock[" + std::to_string(k) + "]_" + std::to_string(r) + " = b - q = " + std::to_string(b - q) +
                 " or one of recvblock[0.." + std::to_string(k) + ")_" + std::to_string(r),
             cell("sendblock", k, r, sb), "sendblock[k] neither an earlier recvblock nor b - q");
    }
  }
  return v;
}

}  // namespace collcheck
