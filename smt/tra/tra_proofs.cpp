// Z3 proofs about the tunable-radix all-to-all TRA (tunable-radix-alltoall.txt,
// Sec. III steps 1-3, Sec. III-A Propositions 1 and 3) for fixed P and radix
// r, block index symbolic.
//
// The rounds are the generator's: tra::rounds(P, r), the non-empty (x, z) in
// loop order (tra.hpp). A block (src, dst) sits, after the local rotation, at
// rank src in position i = (dst - src) mod P and moves in round (x, z) from
// its rank c to c + z r^x iff digit x of i (base r) is z (tra.hpp,
// "Derivation").
//
//   smt-tra-route        for every src < P and i < P (symbolic), with free
//                        digit variables D_0..D_{w-1} < r and i = sum D_x r^x
//                        (so the digits are i's, without division): after the
//                        rounds of digit x the block has travelled
//                        (i mod r^(x+1)) ranks, and after the last round it
//                        is at (src + i) mod P = dst ("digit by digit reaches
//                        its destination"). Width: see route_width, no
//                        wrap-around. Counterexamples (smallest src, then i)
//                        are replayed with the generator itself: the block
//                        src*P + dst is followed through Tra::rank_step, step
//                        by step (P <= 65535), else with the rounds' arithmetic.
//   smt-tra-round-count  K of Props. 1 and 3: (a) for all i < P and x: a
//                        non-zero digit D_x of i has D_x r^x <= i, so round
//                        (x, z) moves a block iff z r^x < P (witness i = z r^x);
//                        (b) for symbolic x < w, 1 <= z < r: (x, z) is in the
//                        generator's list iff z r^x < P. Then K = the number of
//                        listed rounds (checked distinct) is compared with the
//                        printed formula K = w(r-1) - floor((r^w - P)/r^(w-1))
//                        (Prop. 3; Prop. 1 when P = r^w): a mismatch is a
//                        violation naming both numbers.
// Both queries take any P < 2^32 (the rounds need no P*P buffer); beyond 4096
// rounds (e.g. spread-out, r = P, at large P) the encoding is refused: by the
// registry query as an unsupported instance, by prove_tra_route and
// prove_tra_round_count with an InputError before any round is listed. A
// given round list (the mutation tests' broken generators) must consist of
// TRA rounds: 0 <= x < w, 1 <= z < r, rx = r^x (a missing, duplicated or
// empty round is a finding, a digit index beyond the w digits is not a round
// of this P and r; InputError), at most 4096 of them.
//
// Widths (bits_for(v) + 1 with v the largest value any subterm takes when
// the domain constraints hold, computed in 128 bits from the actual rounds;
// P < 2^32 and r^w < P r < 2^64, so v < 2^77 and W <= 78):
//   route: src, i < P; D_x r^x <= (r-1) r^x and the digit sums < r^w; the
//          position after any prefix of the rounds is at most P - 1 plus,
//          per digit x, the largest total shift of the rounds (x, z) of one
//          value z (only those move a block whose digit x is z; duplicated
//          rounds add up); src + prefix < P + r^w.
//   round count: i < P, D_x r^x < r^w, Z r^X < r^w for X < w, Z < r.
// Before, the width was bits_for(w P r) + 1 with w P r in 64 bits, which
// wrapped for large P and r (P = 2^32 - 2, r = 2^31 + 2: 34 bits) and
// ignored duplicated rounds (38 copies of a round of P = 11: a wrong
// "holds").
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "schedules/input_error.hpp"
#include "schedules/registry.hpp"
#include "schedules/int_math.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/tra/tra_family.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/proof_support.hpp"
#include "smt/query_registry.hpp"
#include "smt/smt2_dump.hpp"

namespace collcheck::smt {
namespace {

using namespace support;

constexpr uint64_t kMaxRounds = 4096;

// The radix of a `tra` variant at `i`: the family's rule (tra::resolve,
// schedules/tra/tra_family.hpp: bruck r = 2, spread-out r = P, tra --radix or
// ceil(sqrt P)).
uint64_t radix_of(const VariantInfo& variant, const InstanceParams& i) { return tra::resolve(variant, i)->radix; }

std::optional<std::string> tra_range(const VariantInfo& variant, const InstanceParams& i) {
  const uint64_t P = i.p;
  if (P < 2 || P >= (uint64_t{1} << 32))
    return "P = " + std::to_string(P) + ": the TRA encodings take 2 <= P < 2^32";
  const uint64_t r = radix_of(variant, i);
  if (r < 2 || r > P) return "radix r = " + std::to_string(r) + " must be in 2..P = " + std::to_string(P);
  const uint64_t K = tra::count_rounds(P, r);
  if (K > kMaxRounds)
    return "P = " + std::to_string(P) + ", r = " + std::to_string(r) + ": " + std::to_string(K) +
           " rounds, the TRA encodings take at most " + std::to_string(kMaxRounds);
  return std::nullopt;
}

using u128 = unsigned __int128;

u128 ipow128(uint64_t r, int x) {
  u128 v = 1;
  while (x-- > 0) v *= r;
  return v;
}

unsigned bits_for128(u128 v) {
  unsigned w = 1;
  while (w < 128 && (v >> w) != 0) ++w;
  return w;
}

// The API boundary of both proofs, for 2 <= r <= P < 2^32: the rounds to
// encode (the generator's, or the given ones checked to be TRA rounds), or
// InputError. The generator's rounds are counted before they are listed
// (count_rounds is O(1)): r = 2^31 + 2 would list about 2^31 of them.
std::vector<tra::Round> checked_rounds(const char* name, uint64_t P, uint64_t r, const std::vector<tra::Round>* given) {
  const std::string where = std::string(name) + " (P = " + std::to_string(P) + ", r = " + std::to_string(r) + "): ";
  if (!given) {
    const uint64_t K = tra::count_rounds(P, r);
    if (K > kMaxRounds)
      throw InputError(where + std::to_string(K) + " rounds, the TRA encodings take at most " +
                       std::to_string(kMaxRounds));
    return tra::rounds(P, r);
  }
  if (given->size() > kMaxRounds)
    throw InputError(where + std::to_string(given->size()) + " given rounds, the TRA encodings take at most " +
                     std::to_string(kMaxRounds));
  const int w = tra::num_digits(P, r);
  for (size_t k = 0; k < given->size(); ++k) {
    const tra::Round& rd = (*given)[k];
    const std::string round = "round " + std::to_string(k) + " (x = " + std::to_string(rd.x) +
                              ", z = " + std::to_string(rd.z) + ", rx = " + std::to_string(rd.rx) + ")";
    if (rd.x < 0 || rd.x >= w)
      throw InputError(where + round + " is not a TRA round: the digit x must be in 0.." + std::to_string(w - 1));
    if (rd.z < 1 || rd.z >= r)
      throw InputError(where + round + " is not a TRA round: the digit value z must be in 1.." + std::to_string(r - 1));
    if (rd.rx != ipow(r, rd.x))
      throw InputError(where + round + " is not a TRA round: rx must be r^x = " + std::to_string(ipow(r, rd.x)));
  }
  return *given;
}

// Largest value of the route encoding's subterms (header comment), for
// rounds checked by checked_rounds.
u128 route_max(uint64_t P, uint64_t r, int w, const std::vector<tra::Round>& rounds) {
  std::map<std::pair<int, uint64_t>, u128> shift;  // total shift of the rounds (x, z)
  for (const tra::Round& rd : rounds) shift[{rd.x, rd.z}] += u128(rd.z) * rd.rx;
  std::vector<u128> per_digit(static_cast<size_t>(w), 0);  // the largest over z
  for (const auto& [key, total] : shift)
    per_digit[static_cast<size_t>(key.first)] = std::max(per_digit[static_cast<size_t>(key.first)], total);
  u128 moved = 0;
  for (u128 d : per_digit) moved += d;
  const u128 rw = ipow128(r, w);
  return u128(P - 1) + std::max(moved, rw);
}

// Concrete replay of a block's route over `rounds`: the rank after each digit.
std::vector<uint64_t> route_by_digit(uint64_t P, uint64_t r, int w, uint64_t src, uint64_t i,
                                     const std::vector<tra::Round>& rounds) {
  std::vector<uint64_t> at(static_cast<size_t>(w), src);
  uint64_t c = src;
  for (const tra::Round& rd : rounds) {
    if ((i / rd.rx) % r == rd.z) c = (c + rd.z * rd.rx) % P;
    if (rd.x < w) at[static_cast<size_t>(rd.x)] = c;
  }
  for (int x = 1; x < w; ++x)  // a digit without rounds keeps the previous position
    if (std::none_of(rounds.begin(), rounds.end(), [&](const tra::Round& rd) { return rd.x == x; }))
      at[static_cast<size_t>(x)] = at[static_cast<size_t>(x - 1)];
  return at;
}

// Follows block src*P + dst through the schedule's transfers; the final rank.
uint64_t follow(const Schedule& sched, uint64_t P, uint64_t src, uint64_t dst, std::string& path) {
  const Block b = static_cast<Block>(src * P + dst);
  uint64_t c = src;
  path = std::to_string(c);
  RankStep rs;
  for (int s = 0; s < sched.num_steps(); ++s) {
    sched.rank_step(static_cast<Rank>(c), s, rs);
    for (const Transfer& t : rs.sends)
      if (t.blocks.contains(b)) {
        c = t.peer;
        path += " -step" + std::to_string(s) + "-> " + std::to_string(c);
        break;
      }
  }
  return c;
}

}  // namespace

Verdict prove_tra_route(uint64_t P, uint64_t r, unsigned timeout_ms, const std::vector<tra::Round>* given,
                        const Schedule* schedule) {
  const char* name = "smt-tra-route";
  if (P < 2 || r < 2 || r > P || P >= (uint64_t{1} << 32)) return skipped(name, "P, r outside 2 <= r <= P < 2^32");
  const std::vector<tra::Round> rounds = checked_rounds(name, P, r, given);
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const int w = tra::num_digits(P, r);
    const unsigned W = bits_for128(route_max(P, r, w, rounds)) + 1;
    z3::expr src = c.bv_const("src", W), i = c.bv_const("i", W);
    z3::expr PP = c.bv_val(P, W);
    std::vector<z3::expr> D;
    z3::expr domain = z3::ult(src, PP) && z3::ult(i, PP);
    z3::expr sum = c.bv_val(0, W);
    std::vector<z3::expr> prefix;  // i mod r^(x+1) = sum_{y <= x} D_y r^y
    for (int x = 0; x < w; ++x) {
      D.push_back(c.bv_const(("D" + std::to_string(x)).c_str(), W));
      domain = domain && z3::ult(D.back(), c.bv_val(r, W));
      sum = sum + D.back() * c.bv_val(ipow(r, x), W);
      prefix.push_back(sum);
    }
    domain = domain && i == sum;
    z3::expr pos = src;
    z3::expr bad = c.bool_val(false);
    for (size_t j = 0; j < rounds.size(); ++j) {
      const tra::Round& rd = rounds[j];
      pos = pos + z3::ite(D[static_cast<size_t>(rd.x)] == c.bv_val(rd.z, W), c.bv_val(rd.z * rd.rx, W), c.bv_val(0, W));
      bool digit_ends = j + 1 == rounds.size() || rounds[j + 1].x != rd.x;
      if (digit_ends)
        bad = bad || z3::urem(pos, PP) != z3::urem(src + prefix[static_cast<size_t>(rd.x)], PP);
    }
    bad = bad || z3::urem(pos, PP) != z3::urem(src + i, PP);
    v.stats["query"] = "exists src < P, i < P (digits D_x < r): the block at position i does not travel i mod r^(x+1) "
                       "ranks by the end of digit x, or does not end at (src + i) mod P";
    v.stats["encoding"] = "QF_BV width " + std::to_string(W) + ", " + std::to_string(rounds.size()) +
                          " generator rounds, w = " + std::to_string(w) + " free digits";
    v.stats["instances"] = u128_string(static_cast<unsigned __int128>(P) * P);
    v.stats["radix"] = std::to_string(r);
    Budget b(c, timeout_ms);
    bool held = refute(b, v, "route", domain && bad, {src, i}, [&](const std::vector<uint64_t>& x)
                           -> std::optional<Counterexample> {
      uint64_t s0 = x[0], ii = x[1], dst = (s0 + ii) % P;
      std::vector<uint64_t> at = route_by_digit(P, r, w, s0, ii, rounds);
      std::string path;
      uint64_t end = schedule ? follow(*schedule, P, s0, dst, path) : at.back();
      int bad_digit = -1;
      for (int xx = 0; xx < w && bad_digit < 0; ++xx)
        if (at[static_cast<size_t>(xx)] != (s0 + ii % ipow(r, xx + 1)) % P) bad_digit = xx;
      if (end == dst && bad_digit < 0) return std::nullopt;
      // Block id src*P + dst (P < 2^32: below 2^64 - 1, a 64-bit block index);
      // the message names (src -> dst) too.
      const u128 id = u128(s0) * P + dst;
      std::optional<Block> block;
      if (id < u128(kBlockEnd)) block = static_cast<Block>(id);
      Counterexample cx = Counterexample::at(P, static_cast<Rank>(s0), bad_digit, block, static_cast<Rank>(end));
      cx.expected = "block (" + std::to_string(s0) + " -> " + std::to_string(dst) + ") ends at rank " +
                    std::to_string(dst);
      cx.actual = "it ends at rank " + std::to_string(end) + (path.empty() ? "" : " (" + path + ")");
      cx.message = "TRA route of position i = " + std::to_string(ii) + " from rank " + std::to_string(s0) +
                   (bad_digit >= 0 ? ": wrong after digit " + std::to_string(bad_digit) : "") + ", ends at " +
                   std::to_string(end) + " instead of " + std::to_string(dst);
      return cx;
    });
    if (held) v.status = Status::holds;
    b.fill_stats(v);
  });
}

Verdict prove_tra_round_count(uint64_t P, uint64_t r, unsigned timeout_ms, const std::vector<tra::Round>* given) {
  const char* name = "smt-tra-round-count";
  if (P < 2 || r < 2 || r > P || P >= (uint64_t{1} << 32)) return skipped(name, "P, r outside 2 <= r <= P < 2^32");
  const std::vector<tra::Round> rounds = checked_rounds(name, P, r, given);
  return guarded(name, [&](z3::context& c, Verdict& v) {
    const int w = tra::num_digits(P, r);
    const unsigned W = bits_for128(std::max(u128(P), ipow128(r, w))) + 1;
    const unsigned xw = bits_for(static_cast<uint64_t>(w));
    Budget b(c, timeout_ms);
    v.stats["radix"] = std::to_string(r);
    v.stats["query"] = "(a) exists i < P, x: 0 < D_x and D_x r^x > i; (b) exists x < w, 1 <= z < r: (x,z) listed "
                       "XOR z r^x < P; then K = |list| against Prop. 1/3";
    v.stats["encoding"] = "QF_BV width " + std::to_string(W) + ", " + std::to_string(rounds.size()) + " listed rounds";
    // (a) the smallest position with digit x = z is z r^x.
    {
      z3::expr i = c.bv_const("i", W), PP = c.bv_val(P, W);
      z3::expr domain = z3::ult(i, PP), sum = c.bv_val(0, W), bad = c.bool_val(false);
      for (int x = 0; x < w; ++x) {
        z3::expr Dx = c.bv_const(("D" + std::to_string(x)).c_str(), W);
        domain = domain && z3::ult(Dx, c.bv_val(r, W));
        sum = sum + Dx * c.bv_val(ipow(r, x), W);
        bad = bad || (z3::ugt(Dx, c.bv_val(0, W)) && z3::ugt(Dx * c.bv_val(ipow(r, x), W), i));
      }
      bool held = refute(b, v, "smallest position with digit z", domain && i == sum && bad, {i},
                         [](const std::vector<uint64_t>&) -> std::optional<Counterexample> { return std::nullopt; });
      if (!held) {
        b.fill_stats(v);
        return;
      }
    }
    // (b) the list is exactly the rounds with z r^x < P.
    z3::expr X = c.bv_const("x", xw), Z = c.bv_const("z", W);
    std::vector<uint64_t> powers;
    for (int x = 0; x < w; ++x) powers.push_back(ipow(r, x));
    z3::expr listed = c.bool_val(false);
    for (const tra::Round& rd : rounds)
      listed = listed || (X == c.bv_val(static_cast<uint64_t>(rd.x), xw) && Z == c.bv_val(rd.z, W));
    z3::expr moves = z3::ult(Z * select(c, X, powers, W), c.bv_val(P, W));
    z3::expr domain = z3::ult(X, c.bv_val(static_cast<uint64_t>(w), xw)) && z3::uge(Z, c.bv_val(1, W)) &&
                      z3::ult(Z, c.bv_val(r, W));
    auto in_list = [&](uint64_t x, uint64_t z) {
      return std::any_of(rounds.begin(), rounds.end(), [&](const tra::Round& rd) {
        return static_cast<uint64_t>(rd.x) == x && rd.z == z;
      });
    };
    bool held = refute(b, v, "listed iff non-empty", domain && listed != moves, {X, Z},
                       [&](const std::vector<uint64_t>& x) -> std::optional<Counterexample> {
                         uint64_t xx = x[0], zz = x[1];
                         bool nonempty = zz * ipow(r, static_cast<int>(xx)) < P, listed2 = in_list(xx, zz);
                         if (nonempty == listed2) return std::nullopt;
                         Counterexample cx = Counterexample::at(P, std::nullopt, static_cast<int>(xx));
                         cx.expected = std::string("round (") + std::to_string(xx) + ", " + std::to_string(zz) + ") " +
                                       (nonempty ? "present (it moves position z r^x = " +
                                                       std::to_string(zz * ipow(r, static_cast<int>(xx))) + ")"
                                                 : "absent (no position has that digit)");
                         cx.actual = listed2 ? "listed" : "not listed";
                         cx.message = "TRA rounds for P = " + std::to_string(P) + ", r = " + std::to_string(r) +
                                      (nonempty ? ": a round that moves blocks is missing"
                                                : ": an empty round is counted as a step");
                         return cx;
                       });
    if (held) {
      // K = |list|: distinct entries, compared with the printed propositions.
      std::vector<std::pair<int, uint64_t>> keys;
      for (const tra::Round& rd : rounds) keys.push_back({rd.x, rd.z});
      std::sort(keys.begin(), keys.end());
      bool distinct = std::adjacent_find(keys.begin(), keys.end()) == keys.end();
      const uint64_t K = rounds.size(), printed = tra::prop_rounds(P, r);
      v.stats["K"] = std::to_string(K);
      v.stats["K_printed"] = std::to_string(printed) + " (" + tra::prop_names(P, r) + ")";
      if (!distinct || K != printed) {
        Counterexample cx = Counterexample::at(P, std::nullopt);
        cx.expected = "K = " + std::to_string(printed) + " rounds (" + tra::prop_names(P, r) + ")";
        cx.actual = std::to_string(K) + " listed rounds" + (distinct ? "" : ", some listed twice");
        cx.message = "TRA round count for P = " + std::to_string(P) + ", r = " + std::to_string(r) +
                     " differs from the propositions";
        v.fail(cx);
      } else {
        v.status = Status::holds;
      }
    }
    b.fill_stats(v);
  });
}

std::vector<Query> tra_queries() {
  // Algorithm tra only (not tra2); the registry restricts the family's queries to the family.
  auto applies = [](const AlgorithmInfo& a, const VariantInfo&) {
    return a.kind == static_cast<int>(tra::AlgorithmKind::tra);
  };
  std::vector<Query> out;
  Query route;
  route.name = "smt-tra-route";
  route.summary = "Sec. III: every block's route, digit by digit, reaches its destination (symbolic src, block index)";
  route.applies = applies;
  route.unsupported = [](const InstanceParams&) -> std::optional<std::string> { return std::nullopt; };
  route.unsupported_variant = [](const AlgorithmInfo&, const VariantInfo& variant, const InstanceParams& i) {
    return tra_range(variant, i);
  };
  Query count = route;
  count.name = "smt-tra-round-count";
  count.summary = "Props. 1/3: the non-empty rounds are exactly z r^x < P, K = w(r-1) - floor((r^w-P)/r^(w-1))";
  route.run = [](const AlgorithmInfo&, const VariantInfo& variant, const InstanceParams& i, const QueryContext& ctx) {
    const uint64_t r = radix_of(variant, i);
    Smt2Scope scope(ctx.smt2_dir, "smt-tra-route-p" + std::to_string(i.p) + "-r" + std::to_string(r));
    std::unique_ptr<Schedule> sched;
    if (i.p <= 65535) sched = std::make_unique<Tra>(i.p, r);
    return prove_tra_route(i.p, r, ctx.timeout_ms, nullptr, sched.get());
  };
  count.run = [](const AlgorithmInfo&, const VariantInfo& variant, const InstanceParams& i, const QueryContext& ctx) {
    const uint64_t r = radix_of(variant, i);
    Smt2Scope scope(ctx.smt2_dir, "smt-tra-round-count-p" + std::to_string(i.p) + "-r" + std::to_string(r));
    return prove_tra_round_count(i.p, r, ctx.timeout_ms, nullptr);
  };
  out.push_back(std::move(route));
  out.push_back(std::move(count));
  return out;
}

}  // namespace collcheck::smt
