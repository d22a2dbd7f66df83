// The Swing queries added for `collcheck prove` (smt/swing/swing_queries.cpp):
// hop distance (Table 1's delta(s)) and the symbolic-p involution. Expected
// answers come from brute force over every (r, s) with swing::pi, never from
// the encoding; mutated distance tables must be refuted.
#include <gtest/gtest.h>

#include <optional>
#include <tuple>

#include "tests/support/schedule_lookup.hpp"
#include "schedules/swing/swing_math.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/query_registry.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 60000;

// Smallest (r, s) whose peer is not `claim[s]` hops away, by enumeration.
std::optional<std::pair<Rank, int>> brute_hop(uint64_t p, const std::vector<uint64_t>& claim) {
  const int k = swing::ceil_log2(p);
  for (Rank r = 0; r < p; ++r)
    for (int s = 0; s < k; ++s)
      if (swing::ring_distance(r, swing::pi(r, s, p), p) != claim[static_cast<size_t>(s)]) return {{r, s}};
  return std::nullopt;
}

std::vector<uint64_t> deltas(uint64_t p) {
  std::vector<uint64_t> d;
  for (int s = 0; s < swing::ceil_log2(p); ++s) d.push_back(swing::delta(s));
  return d;
}

TEST(SwingHopDistance, AgreesWithBruteForceForEveryP) {
  for (uint64_t p = 2; p <= 40; ++p) {
    Verdict v = prove_swing_hop_distance(p, kBudgetMs);
    auto cx = brute_hop(p, deltas(p));
    if (!cx) {
      EXPECT_EQ(v.status, Status::holds) << "p=" << p;
      continue;
    }
    ASSERT_EQ(v.status, Status::violated) << "p=" << p;
    ASSERT_TRUE(v.counterexample);
    EXPECT_EQ(*v.counterexample->rank, cx->first) << "p=" << p;
    EXPECT_EQ(*v.counterexample->step, cx->second) << "p=" << p;
  }
}

TEST(SwingHopDistance, HoldsForPowersOfTwoUpTo2To20) {
  for (int e : {4, 10, 16, 20}) {
    Verdict v = prove_swing_hop_distance(uint64_t{1} << e, kBudgetMs);
    EXPECT_EQ(v.status, Status::holds) << "2^" << e;
    EXPECT_EQ(v.mode, "z3");
  }
}

TEST(SwingHopDistance, MutatedDistanceTableIsRefuted) {
  const uint64_t p = 64;
  std::vector<uint64_t> claim = deltas(p);
  claim[3] += 2;  // Table 1 misread for one step
  Verdict v = prove_swing_hop_distance(p, kBudgetMs, &claim);
  ASSERT_EQ(v.status, Status::violated);
  auto cx = brute_hop(p, claim);
  ASSERT_TRUE(cx && v.counterexample);
  EXPECT_EQ(*v.counterexample->rank, cx->first);
  EXPECT_EQ(*v.counterexample->step, 3);
  EXPECT_EQ(v.stats.at("minimisation"), "complete");
}

TEST(SwingInvolutionAllEvenP, HoldsAndMatchesEnumeration) {
  // Enumeration: every even p <= 128 pairs (independent of the encoding).
  for (uint64_t p = 2; p <= 128; p += 2)
    for (Rank r = 0; r < p; ++r)
      for (int s = 0; s < swing::ceil_log2(p); ++s) ASSERT_EQ(swing::pi(swing::pi(r, s, p), s, p), r);
  Verdict v = prove_swing_involution_all_even(128, kBudgetMs);
  EXPECT_EQ(v.status, Status::holds) << v.stats["error"];
}

TEST(SwingQueries, TinyBudgetGivesUnknownWithReason) {
  Verdict v = prove_swing_involution_all_even(uint64_t{1} << 16, 1);
  EXPECT_EQ(v.status, Status::unknown);
  EXPECT_TRUE(v.stats.count("reason_unknown")) << "no reason given";
}

TEST(SwingQueries, RegisteredForSwingOnly) {
  int n = 0;
  for (const Query& q : queries())
    if (q.name.rfind("smt-swing-", 0) == 0) {
      ++n;
      const bool torus = q.name == "smt-swing-torus-peers";
      EXPECT_EQ(q.applies_to(test::registered_algorithm("swing"), test::registered_variant("swing", "bandwidth")), !torus)
          << q.name;
      EXPECT_EQ(q.applies_to(test::registered_algorithm("swing"), test::registered_variant("swing", "torus-bandwidth")),
                torus)
          << q.name;
      EXPECT_FALSE(q.applies_to(test::registered_algorithm("ring"), test::registered_variant("ring", "bandwidth"))) << q.name;
      EXPECT_TRUE(q.unsupported(InstanceParams{1}).has_value()) << q.name << ": p = 1 has no steps";
    }
  EXPECT_EQ(n, 9);
}

}  // namespace
}  // namespace collcheck::smt
