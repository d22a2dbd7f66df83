// Z3 proofs about Swing's peer function (smt/swing/swing_proofs.hpp). Every
// counterexample Z3 produces is re-checked here with the concrete
// swing::pi / swing::rho, and for small p compared with the brute-force
// lexicographically smallest violation.
#include "smt/swing/swing_proofs.hpp"
#include "smt/parametric_proofs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "schedules/swing/swing_math.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 120000;  // generous: a timeout must not pass as "holds"

uint64_t pow2(int e) { return uint64_t{1} << e; }

uint64_t parse_mask(const std::string& csv) {
  uint64_t mask = 0;
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) mask |= uint64_t{1} << std::stoi(item);
  return mask;
}

// Independent re-implementations for re-checking counterexamples.
Rank walk_pi(Rank r, uint64_t mask, int k, uint64_t p) {  // steps in increasing order, each with pi
  for (int i = 0; i < k; ++i)
    if (mask >> i & 1) r = swing::pi(r, i, p);
  return r;
}
int64_t eq4_sum(uint64_t mask, int k) {  // rho(s_0) - rho(s_1) + rho(s_2) - ...
  int64_t sum = 0, sign = 1;
  for (int i = 0; i < k; ++i)
    if (mask >> i & 1) {
      sum += sign * swing::rho(i);
      sign = -sign;
    }
  return sum;
}
Rank eq4_reach(Rank r, uint64_t mask, int k, uint64_t p) {  // + for even r, - for odd r
  int64_t m = static_cast<int64_t>(p);
  int64_t s = eq4_sum(mask, k);
  int64_t x = static_cast<int64_t>(r) + (r % 2 == 0 ? s : -s);
  return static_cast<Rank>(((x % m) + m) % m);
}

void expect_common(const Verdict& v, const std::string& property) {
  EXPECT_EQ(v.property, property);
  EXPECT_EQ(v.mode, "z3");
  EXPECT_TRUE(v.stats.count("solver_seconds")) << property;
  EXPECT_TRUE(v.stats.count("query")) << property;
  EXPECT_FALSE(v.stats.count("error")) << v.stats.at("error");
  EXPECT_GE(v.checks, 1u);
}

void expect_holds(const Verdict& v, const std::string& property, uint64_t p) {
  expect_common(v, property);
  EXPECT_EQ(v.status, Status::holds) << property << " p=" << p << " status=" << to_string(v.status)
                                     << (v.counterexample ? " cx: " + v.counterexample->message : "");
  EXPECT_FALSE(v.counterexample.has_value());
  EXPECT_EQ(v.violations, 0u);
}

const Counterexample& expect_violated(const Verdict& v, const std::string& property, uint64_t p) {
  expect_common(v, property);
  EXPECT_EQ(v.status, Status::violated) << property << " p=" << p;
  EXPECT_EQ(v.violations, 1u);
  EXPECT_EQ(v.stats.at("minimisation"), "complete");
  static const Counterexample none;
  if (!v.counterexample) {
    ADD_FAILURE() << "no counterexample for " << property << " p=" << p;
    return none;
  }
  const Counterexample& c = *v.counterexample;
  EXPECT_EQ(c.p, p);
  EXPECT_TRUE(c.rank.has_value());
  EXPECT_TRUE(c.step.has_value());
  EXPECT_TRUE(c.peer.has_value());
  EXPECT_FALSE(c.message.empty());
  return c;
}

// ---- involution -------------------------------------------------------------

TEST(SwingInvolution, HoldsForEvenP) {
  for (uint64_t p : {uint64_t{2}, uint64_t{4}, uint64_t{6}, uint64_t{12}, uint64_t{16}, pow2(16), pow2(21),
                     pow2(21) - 2, pow2(32)}) {
    Verdict v = prove_swing_involution(p, kBudgetMs);
    expect_holds(v, "smt-swing-involution", p);
  }
}

TEST(SwingInvolution, CoversAllRanksAndSteps) {
  Verdict v = prove_swing_involution(pow2(21), kBudgetMs);
  EXPECT_EQ(v.stats.at("instances"), std::to_string(pow2(21) * 21));
  EXPECT_EQ(v.stats.at("width"), "21");
}

TEST(SwingInvolution, ViolatedForOddPWithReplayedMinimalCounterexample) {
  for (uint64_t p : {uint64_t{3}, uint64_t{7}, uint64_t{11}}) {
    Verdict v = prove_swing_involution(p, kBudgetMs);
    const Counterexample& c = expect_violated(v, "smt-swing-involution", p);
    Rank r = *c.rank;
    int s = *c.step;
    ASSERT_LT(r, p);
    ASSERT_LT(s, swing::ceil_log2(p));
    EXPECT_EQ(*c.peer, swing::pi(r, s, p));
    EXPECT_NE(swing::pi(swing::pi(r, s, p), s, p), r) << c.message;
    // Lexicographically smallest (rank, step) among all violations.
    std::optional<std::pair<Rank, int>> first;
    for (Rank q = 0; q < p && !first; ++q)
      for (int t = 0; t < swing::ceil_log2(p) && !first; ++t)
        if (swing::pi(swing::pi(q, t, p), t, p) != q) first = {q, t};
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(r, first->first);
    EXPECT_EQ(s, first->second);
  }
}

TEST(SwingInvolution, P3CounterexampleIsTheKnownOne) {
  // 0 is even: pi(0,1) = 0 + rho(1) = -1 = 2 (mod 3); 2 is even too:
  // pi(2,1) = 2 + rho(1) = 1 != 0. Rank 0, step 0 is fine: 0 -> 1 -> 0.
  Verdict v = prove_swing_involution(3, kBudgetMs);
  ASSERT_TRUE(v.counterexample.has_value());
  EXPECT_EQ(v.counterexample->location(), "p=3 rank=0 step=1 peer=2");
  EXPECT_NE(v.counterexample->actual.find("= 1"), std::string::npos) << v.counterexample->actual;
}

// ---- unique paths (Theorem A.5) -------------------------------------------

TEST(SwingUniquePaths, HoldsForPowersOfTwoUpTo2To21Inductive) {
  for (int e = 1; e <= 21; ++e) {
    Verdict v = prove_swing_unique_paths(pow2(e), kBudgetMs);
    expect_holds(v, "smt-swing-unique-paths", pow2(e));
    EXPECT_EQ(v.stats.at("strategy"), "inductive");
    EXPECT_EQ(v.stats.at("lemmas"), std::to_string(e + 3));  // base, e steps, offset, decode
  }
}

TEST(SwingUniquePaths, HoldsForPowersOfTwoUpTo2To12Monolithic) {
  for (int e = 1; e <= 12; ++e) {
    Verdict v = prove_swing_unique_paths(pow2(e), kBudgetMs, Strategy::monolithic);
    expect_holds(v, "smt-swing-unique-paths", pow2(e));
    EXPECT_EQ(v.stats.at("strategy"), "monolithic");
    EXPECT_EQ(v.checks, 1u);  // one formula, two copies
  }
}

TEST(SwingUniquePaths, HoldsFor2To32) {
  Verdict v = prove_swing_unique_paths(pow2(32), kBudgetMs);
  expect_holds(v, "smt-swing-unique-paths", pow2(32));
}

// Brute force: lexicographically smallest (r, S|T, S, T) with S < T reaching
// the same node along pi.
std::tuple<Rank, uint64_t, uint64_t> smallest_collision(uint64_t p) {
  int k = swing::ceil_log2(p);
  std::optional<std::tuple<Rank, uint64_t, uint64_t, uint64_t>> best;
  for (Rank r = 0; r < p; ++r)
    for (uint64_t S = 0; S < pow2(k); ++S)
      for (uint64_t T = S + 1; T < pow2(k); ++T)
        if (walk_pi(r, S, k, p) == walk_pi(r, T, k, p)) {
          auto key = std::make_tuple(r, S | T, S, T);
          if (!best || key < *best) best = key;
        }
  EXPECT_TRUE(best.has_value());
  return {std::get<0>(*best), std::get<2>(*best), std::get<3>(*best)};
}

void check_unique_paths_violation(const Verdict& v, uint64_t p) {
  const Counterexample& c = expect_violated(v, "smt-swing-unique-paths", p);
  int k = swing::ceil_log2(p);
  uint64_t S = parse_mask(v.stats.at("cx_steps_a"));
  uint64_t T = parse_mask(v.stats.at("cx_steps_b"));
  Rank r = *c.rank;
  ASSERT_LT(r, p);
  EXPECT_NE(S, T);
  EXPECT_LT(S | T, pow2(k));
  // The two step sequences really reach the same node, both by walking pi ...
  EXPECT_EQ(walk_pi(r, S, k, p), *c.peer) << c.message;
  EXPECT_EQ(walk_pi(r, T, k, p), *c.peer) << c.message;
  // ... and, for even p, by Eq. 4's sums, which differ but are congruent mod p.
  if (p % 2 == 0) {
    int64_t a = eq4_sum(S, k), b = eq4_sum(T, k);
    EXPECT_NE(a, b);
    EXPECT_EQ(((a - b) % static_cast<int64_t>(p) + static_cast<int64_t>(p)) % static_cast<int64_t>(p), 0);
    EXPECT_EQ(eq4_reach(r, S, k, p), *c.peer);
    EXPECT_EQ(eq4_reach(r, T, k, p), *c.peer);
  }
  // The step is the last step either sequence takes.
  int last = 0;
  for (int i = 0; i < k; ++i)
    if ((S | T) >> i & 1) last = i;
  EXPECT_EQ(*c.step, last);
  auto [br, bs, bt] = smallest_collision(p);
  EXPECT_EQ(r, br);
  EXPECT_EQ(S, bs);
  EXPECT_EQ(T, bt);
}

TEST(SwingUniquePaths, ViolatedForEvenNonPowersOfTwo) {
  for (uint64_t p : {uint64_t{6}, uint64_t{10}, uint64_t{12}}) {
    Verdict automatic = prove_swing_unique_paths(p, kBudgetMs);
    check_unique_paths_violation(automatic, p);
    EXPECT_EQ(automatic.stats.at("strategy"), "inductive");
    Verdict mono = prove_swing_unique_paths(p, kBudgetMs, Strategy::monolithic);
    check_unique_paths_violation(mono, p);
    ASSERT_TRUE(automatic.counterexample && mono.counterexample);
    EXPECT_EQ(automatic.counterexample->location(), mono.counterexample->location());
    EXPECT_EQ(automatic.stats.at("cx_steps_a"), mono.stats.at("cx_steps_a"));
    EXPECT_EQ(automatic.stats.at("cx_steps_b"), mono.stats.at("cx_steps_b"));
  }
}

TEST(SwingUniquePaths, P6CounterexampleIsTheKnownOne) {
  // From 0: step 1 alone gives 0 + rho(1) = -1 = 5; steps 0,1,2 give
  // 0 + 1 - (-1) + 3 = 5.
  Verdict v = prove_swing_unique_paths(6, kBudgetMs);
  ASSERT_TRUE(v.counterexample.has_value());
  EXPECT_EQ(v.counterexample->location(), "p=6 rank=0 step=2 peer=5");
  EXPECT_EQ(v.stats.at("cx_steps_a"), "1");
  EXPECT_EQ(v.stats.at("cx_steps_b"), "0,1,2");
}

TEST(SwingUniquePaths, ViolatedForOddPAlongPi) {
  for (uint64_t p : {uint64_t{3}, uint64_t{7}}) {
    Verdict v = prove_swing_unique_paths(p, kBudgetMs);
    EXPECT_EQ(v.stats.at("strategy"), "monolithic");
    check_unique_paths_violation(v, p);
  }
}

TEST(SwingUniquePaths, InductiveStrategyRefusesOddP) {
  Verdict v = prove_swing_unique_paths(7, kBudgetMs, Strategy::inductive);
  EXPECT_EQ(v.status, Status::skipped);
  EXPECT_FALSE(v.stats.at("reason").empty());
}

TEST(SwingUniquePaths, LargeEvenNonPowerOfTwoFindsAReplayableCollision) {
  // 3 * 2^10: the digit-form search finds a collision quickly.
  uint64_t p = 3 * pow2(10);
  Verdict v = prove_swing_unique_paths(p, kBudgetMs);
  ASSERT_EQ(v.status, Status::violated);
  int k = swing::ceil_log2(p);
  uint64_t S = parse_mask(v.stats.at("cx_steps_a"));
  uint64_t T = parse_mask(v.stats.at("cx_steps_b"));
  EXPECT_NE(S, T);
  EXPECT_EQ(walk_pi(*v.counterexample->rank, S, k, p), walk_pi(*v.counterexample->rank, T, k, p));
}

TEST(SwingUniquePaths, MonolithicTimeoutIsUnknown) {
  // 2^14 takes the monolithic encoding many seconds; 1 ms cannot decide it.
  Verdict v = prove_swing_unique_paths(pow2(14), 1, Strategy::monolithic);
  EXPECT_EQ(v.status, Status::unknown);
  EXPECT_FALSE(v.counterexample.has_value());
  EXPECT_FALSE(v.stats.at("reason_unknown").empty());
}

// ---- peer parity (Lemma A.2) ---------------------------------------------

TEST(SwingPeerParity, HoldsForEvenP) {
  for (uint64_t p : {uint64_t{2}, uint64_t{4}, uint64_t{6}, uint64_t{12}, pow2(21), pow2(21) - 2})
    expect_holds(prove_swing_peer_parity(p, kBudgetMs), "smt-swing-peer-parity", p);
}

TEST(SwingPeerParity, ViolatedForOddP) {
  for (uint64_t p : {uint64_t{3}, uint64_t{7}}) {
    Verdict v = prove_swing_peer_parity(p, kBudgetMs);
    const Counterexample& c = expect_violated(v, "smt-swing-peer-parity", p);
    Rank q = swing::pi(*c.rank, *c.step, p);
    EXPECT_EQ(*c.peer, q);
    EXPECT_TRUE(q == *c.rank || q % 2 == *c.rank % 2) << c.message;
    std::optional<std::pair<Rank, int>> first;
    for (Rank r = 0; r < p && !first; ++r)
      for (int s = 0; s < swing::ceil_log2(p) && !first; ++s) {
        Rank x = swing::pi(r, s, p);
        if (x == r || x % 2 == r % 2) first = {r, s};
      }
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(*c.rank, first->first);
    EXPECT_EQ(*c.step, first->second);
  }
}

// ---- closed form (Eq. 4) --------------------------------------------------

TEST(SwingReachClosedForm, HoldsForEvenPInductive) {
  std::vector<uint64_t> ps = {6, 10, 12, 1000, pow2(21) - 2, 3 * pow2(19)};
  for (int e = 1; e <= 21; ++e) ps.push_back(pow2(e));
  for (uint64_t p : ps) {
    Verdict v = prove_swing_reach_closed_form(p, kBudgetMs);
    expect_holds(v, "smt-swing-reach-closed-form", p);
    EXPECT_EQ(v.stats.at("strategy"), "inductive");
  }
}

TEST(SwingReachClosedForm, MonolithicAgreesForSmallEvenP) {
  for (uint64_t p : {uint64_t{2}, uint64_t{4}, uint64_t{6}, uint64_t{8}, uint64_t{12}, uint64_t{16}, uint64_t{64}})
    expect_holds(prove_swing_reach_closed_form(p, kBudgetMs, Strategy::monolithic), "smt-swing-reach-closed-form",
                 p);
}

TEST(SwingReachClosedForm, ViolatedForOddP) {
  for (uint64_t p : {uint64_t{3}, uint64_t{7}}) {
    Verdict v = prove_swing_reach_closed_form(p, kBudgetMs);
    const Counterexample& c = expect_violated(v, "smt-swing-reach-closed-form", p);
    int k = swing::ceil_log2(p);
    uint64_t S = parse_mask(v.stats.at("cx_steps"));
    EXPECT_EQ(walk_pi(*c.rank, S, k, p), *c.peer);
    EXPECT_NE(eq4_reach(*c.rank, S, k, p), *c.peer) << c.message;
    // Smallest rank, then mask.
    std::optional<std::pair<Rank, uint64_t>> first;
    for (Rank r = 0; r < p && !first; ++r)
      for (uint64_t m = 0; m < pow2(k) && !first; ++m)
        if (walk_pi(r, m, k, p) != eq4_reach(r, m, k, p)) first = {r, m};
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(*c.rank, first->first);
    EXPECT_EQ(S, first->second);
  }
}

TEST(SwingReachClosedForm, InductiveStrategyRefusesOddP) {
  EXPECT_EQ(prove_swing_reach_closed_form(9, kBudgetMs, Strategy::inductive).status, Status::skipped);
}

// ---- dispatcher and input handling ---------------------------------------

TEST(SwingProofs, DispatcherRunsAllProperties) {
  auto statuses = [](uint64_t p) {
    std::vector<std::pair<std::string, Status>> out;
    for (const Verdict& v : prove_swing(p, kBudgetMs)) out.emplace_back(v.property, v.status);
    return out;
  };
  using V = std::vector<std::pair<std::string, Status>>;
  EXPECT_EQ(statuses(16), (V{{"smt-swing-involution", Status::holds},
                             {"smt-swing-unique-paths", Status::holds},
                             {"smt-swing-peer-parity", Status::holds},
                             {"smt-swing-reach-closed-form", Status::holds}}));
  EXPECT_EQ(statuses(6), (V{{"smt-swing-involution", Status::holds},
                            {"smt-swing-unique-paths", Status::violated},
                            {"smt-swing-peer-parity", Status::holds},
                            {"smt-swing-reach-closed-form", Status::holds}}));
  EXPECT_EQ(statuses(7), (V{{"smt-swing-involution", Status::violated},
                            {"smt-swing-unique-paths", Status::violated},
                            {"smt-swing-peer-parity", Status::violated},
                            {"smt-swing-reach-closed-form", Status::violated}}));
}

TEST(SwingProofs, OutOfRangePIsSkipped) {
  for (uint64_t p : {uint64_t{0}, uint64_t{1}, pow2(32) + 1, ~uint64_t{0}}) {
    for (const Verdict& v : prove_swing(p, kBudgetMs)) {
      EXPECT_EQ(v.status, Status::skipped) << v.property << " p=" << p;
      EXPECT_FALSE(v.stats.at("reason").empty());
      EXPECT_FALSE(v.counterexample.has_value());
    }
  }
}

}  // namespace
}  // namespace collcheck::smt

// ---- the swing-dihedral equivariance of Eq. 2 (the Swing quotient's certificate)

namespace collcheck::smt {
namespace {

TEST(SwingPeerEquivariance, HoldsPerEvenPAndFailsForOddP) {
  for (uint64_t p : {2u, 4u, 6u, 10u, 64u, 100u}) {
    Verdict v = prove_swing_peer_equivariance(p, 60000);
    EXPECT_EQ(v.status, Status::holds) << p;
  }
  for (uint64_t p : {3u, 5u, 9u}) {
    Verdict v = prove_swing_peer_equivariance(p, 60000);
    ASSERT_EQ(v.status, Status::violated) << p;
    ASSERT_TRUE(v.counterexample);
    EXPECT_NE(v.counterexample->message.find("p odd"), std::string::npos);
  }
}

TEST(SwingPeerEquivariance, HoldsForEveryEvenPSymbolically) {
  Verdict v = prove_swing_peer_equivariance_all_even(2, 60000);
  EXPECT_EQ(v.status, Status::holds) << v.stats["reason_unknown"];
  EXPECT_EQ(v.stats.at("encoding").rfind("QF_LIA, p unbounded", 0), 0u);
}

// A group Eq. 2 does not commute with (x -> r - x for even r too) is refuted,
// with a counterexample that replays concretely.
TEST(SwingPeerEquivariance, SymbolicQueryRefutesAWrongGroup) {
  Verdict v = prove_swing_peer_equivariance_all_even(2, 60000, true);
  ASSERT_EQ(v.status, Status::violated) << v.stats["error"];
  ASSERT_TRUE(v.counterexample);
  EXPECT_NE(v.counterexample->message.find("not swing-dihedral equivariant"), std::string::npos);
}

}  // namespace
}  // namespace collcheck::smt
