// TRA's parametric proofs (smt/tra_proofs.cpp): block routes and the round
// count of Props. 1/3. Ground truth: the generator itself (Tra::rank_step,
// followed block by block) and the paper's worked examples (Figs. 2, 3);
// mutated round lists must be refuted.
#include <gtest/gtest.h>

#include <vector>

#include "schedules/tra.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/query_registry.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 60000;

TEST(TraRoute, HoldsForPaperExamplesAndRadixRange) {
  // Fig. 2 (P = 9, r = 3), Fig. 3 (P = 11, r = 3), Bruck, spread-out, sqrt.
  for (auto [P, r] : std::vector<std::pair<uint64_t, uint64_t>>{{9, 3}, {11, 3}, {16, 2}, {17, 17}, {100, 10},
                                                                 {1000, 32}}) {
    std::unique_ptr<Schedule> sched = P <= 1000 ? std::make_unique<Tra>(P, r) : nullptr;
    Verdict v = prove_tra_route(P, r, kBudgetMs, nullptr, sched.get());
    EXPECT_EQ(v.status, Status::holds) << "P=" << P << " r=" << r << " " << v.stats["error"];
  }
}

TEST(TraRoute, DroppedRoundIsRefutedAndReplayedThroughTheGenerator) {
  const uint64_t P = 11, r = 3;
  std::vector<tra::Round> rounds = tra::rounds(P, r);
  ASSERT_EQ(rounds.size(), 5u);  // Fig. 3: (0,1) (0,2) (1,1) (1,2) (2,1)
  rounds.erase(rounds.begin() + 3);  // drop (1,2)
  Verdict v = prove_tra_route(P, r, kBudgetMs, &rounds, nullptr);
  ASSERT_EQ(v.status, Status::violated);
  ASSERT_TRUE(v.counterexample);
  // Smallest (src, i) with digit 1 of i equal to 2: src 0, i = 6.
  EXPECT_EQ(*v.counterexample->rank, 0u);
  EXPECT_EQ(*v.counterexample->block, 0u * P + 6u);
  EXPECT_EQ(*v.counterexample->step, 1);  // wrong after digit 1
}

TEST(TraRoundCount, MatchesPropositions) {
  for (uint64_t P : {4u, 9u, 11u, 27u, 100u, 1000u, 4096u, 65535u})
    for (uint64_t r : {2u, 3u, 5u, 16u})
      if (r <= P) {
        Verdict v = prove_tra_round_count(P, r, kBudgetMs);
        EXPECT_EQ(v.status, Status::holds) << "P=" << P << " r=" << r;
        EXPECT_EQ(v.stats["K"], std::to_string(tra::prop_rounds(P, r)));
      }
}

TEST(TraRoundCount, EmptyOrMissingOrDuplicatedRoundsAreRefuted) {
  const uint64_t P = 11, r = 3;
  std::vector<tra::Round> with_empty = tra::rounds(P, r);
  with_empty.push_back({2, 2, 9});  // 2 * 9 >= 11: moves nothing
  Verdict a = prove_tra_round_count(P, r, kBudgetMs, &with_empty);
  ASSERT_EQ(a.status, Status::violated);
  EXPECT_EQ(*a.counterexample->step, 2);

  std::vector<tra::Round> missing = tra::rounds(P, r);
  missing.erase(missing.begin());  // (0,1)
  Verdict b = prove_tra_round_count(P, r, kBudgetMs, &missing);
  ASSERT_EQ(b.status, Status::violated);
  EXPECT_EQ(*b.counterexample->step, 0);

  std::vector<tra::Round> twice = tra::rounds(P, r);
  twice.push_back(twice.front());
  Verdict c = prove_tra_round_count(P, r, kBudgetMs, &twice);
  ASSERT_EQ(c.status, Status::violated);
  EXPECT_NE(c.counterexample->actual.find("twice"), std::string::npos);
}

TEST(TraQueries, LimitsDependOnTheVariant) {
  for (const Query& q : queries())
    if (q.name == "smt-tra-route") {
      ASSERT_TRUE(q.unsupported_variant);
      EXPECT_FALSE(q.unsupported_variant("tra", "bruck", InstanceParams{1u << 20}).has_value());
      EXPECT_TRUE(q.unsupported_variant("tra", "spread-out", InstanceParams{5000}).has_value());  // 4999 rounds
      EXPECT_TRUE(q.unsupported_variant("tra", "tra", InstanceParams{1}).has_value());
    }
}

}  // namespace
}  // namespace collcheck::smt
