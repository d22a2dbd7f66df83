// TRA's parametric proofs (smt/tra/tra_proofs.cpp): block routes and the round
// count of Props. 1/3. Ground truth: the generator itself (Tra::rank_step,
// followed block by block) and the paper's worked examples (Figs. 2, 3);
// mutated round lists must be refuted.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/schedule_lookup.hpp"
#include "schedules/input_error.hpp"
#include "schedules/tra/tra.hpp"
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

// The bit-vector width covers every value the encoding can form, for the
// rounds it is given. Regression: the width came from w P r alone (8 bits for
// P = 11, r = 3), so 37 extra copies of round (2, 1) -- 38 shifts by 9 --
// wrapped around 2^8 onto a multiple of 11 and the route "held", although a
// block at position 9 ends at (9 + 37 * 9) mod 11 = 1 instead of 9.
TEST(TraRoute, DuplicatedRoundsCannotWrapTheWidth) {
  const uint64_t P = 11, r = 3;
  auto with_copies = [&](int copies) {
    std::vector<tra::Round> rounds = tra::rounds(P, r);
    for (int k = 0; k < copies; ++k) rounds.push_back({2, 1, 9});
    return rounds;
  };
  std::vector<tra::Round> wrapped = with_copies(37);
  Verdict v = prove_tra_route(P, r, kBudgetMs, &wrapped);
  ASSERT_EQ(v.status, Status::violated) << v.stats["encoding"] << v.stats["error"];
  EXPECT_EQ(*v.counterexample->rank, 0u);
  EXPECT_EQ(*v.counterexample->block, 9u);  // src 0, position 9
  EXPECT_EQ(*v.counterexample->peer, 1u);   // where it ends
  EXPECT_EQ(*v.counterexample->step, 2);    // wrong after digit 2
  // 11 and 44 extra shifts by 9 are multiples of 11: the route holds (the
  // latter also wrapped 2^8 before), as the concrete replay agrees.
  for (int copies : {11, 44}) {
    std::vector<tra::Round> same = with_copies(copies);
    Verdict h = prove_tra_route(P, r, kBudgetMs, &same);
    EXPECT_EQ(h.status, Status::holds) << copies << " copies: " << h.stats["encoding"] << h.stats["error"];
  }
}

// A round list that is not one of TRA's rounds (digit x outside 0..w-1,
// z outside 1..r-1, rx != r^x) is bad input at the API boundary, never an
// aliased encoding. Regression: round (4, 1) for P = 11, r = 3 (w = 3) was
// encoded with a 2-bit digit index as (0, 1), so a list missing (0, 1)
// "held" the round count, while the route query threw an internal error.
TEST(TraApi, MalformedRoundsAreInputErrors) {
  const uint64_t P = 11, r = 3;
  std::vector<tra::Round> alias = tra::rounds(P, r);
  alias.erase(alias.begin());   // (0, 1)
  alias.push_back({4, 1, 81});  // digit 4 of a 3-digit index
  EXPECT_THROW(prove_tra_round_count(P, r, kBudgetMs, &alias), InputError);
  EXPECT_THROW(prove_tra_route(P, r, kBudgetMs, &alias), InputError);
  std::vector<tra::Round> negative = tra::rounds(P, r);
  negative.push_back({-1, 1, 1});
  EXPECT_THROW(prove_tra_round_count(P, r, kBudgetMs, &negative), InputError);
  std::vector<tra::Round> wrong_rx = tra::rounds(P, r);
  wrong_rx[2].rx = 4;  // (1, 1) with r^1 = 3
  EXPECT_THROW(prove_tra_route(P, r, kBudgetMs, &wrong_rx), InputError);
  for (uint64_t z : {uint64_t{0}, r, uint64_t{1} << 40}) {
    std::vector<tra::Round> bad_z = tra::rounds(P, r);
    bad_z.push_back({1, z, 3});
    EXPECT_THROW(prove_tra_route(P, r, kBudgetMs, &bad_z), InputError) << z;
    EXPECT_THROW(prove_tra_round_count(P, r, kBudgetMs, &bad_z), InputError) << z;
  }
  // The encodings' round limit holds for given lists too.
  std::vector<tra::Round> many(4097, tra::Round{0, 1, 1});
  EXPECT_THROW(prove_tra_route(P, r, kBudgetMs, &many), InputError);
}

// Large parameters through the C++ API (the CLI refuses more than 4096
// rounds, the functions now do too). P = 2^32 - 2, r = 2^31 + 2 (w = 2):
// w P r overflowed 64 bits, leaving a 34-bit width in which D_1 r wraps, so
// Z3's "digits" of i = 0 were D_0 = 2^31 - 14, D_1 = 7 and the model did not
// replay (unknown, "encoding bug"). With a given one-round list the instance is
// accepted and refuted at its real smallest counterexample, position 2 (digit
// 0 equal to 2, no round for it); the generator's own rounds (about 2^31) are
// refused before they are listed.
TEST(TraApi, LargeParametersGetWideEnoughWidthsOrAreRejected) {
  const uint64_t P = (uint64_t{1} << 32) - 2, r = (uint64_t{1} << 31) + 2;
  ASSERT_EQ(tra::num_digits(P, r), 2);
  const std::vector<tra::Round> one = {{0, 1, 1}};
  Verdict route = prove_tra_route(P, r, kBudgetMs, &one);
  ASSERT_EQ(route.status, Status::violated) << route.stats["encoding"] << route.stats["error"];
  EXPECT_EQ(*route.counterexample->rank, 0u);
  EXPECT_EQ(*route.counterexample->block, 2u);
  EXPECT_EQ(*route.counterexample->step, 0);
  Verdict count = prove_tra_round_count(P, r, kBudgetMs, &one);
  ASSERT_EQ(count.status, Status::violated) << count.stats["encoding"] << count.stats["error"];
  EXPECT_EQ(*count.counterexample->step, 0);  // round (0, 2) is missing
  EXPECT_NE(count.counterexample->expected.find("(0, 2)"), std::string::npos) << count.counterexample->expected;
  // The generator's rounds for these parameters: refused, not allocated.
  EXPECT_THROW(prove_tra_route(P, r, kBudgetMs), InputError);
  EXPECT_THROW(prove_tra_round_count(P, r, kBudgetMs), InputError);
  // Largest P with the generator's rounds: holds (r = 1024: w = 4, K = 3072).
  const uint64_t big = (uint64_t{1} << 32) - 1;
  Verdict k = prove_tra_round_count(big, 1024, kBudgetMs);
  EXPECT_EQ(k.status, Status::holds) << k.stats["encoding"] << k.stats["error"];
  EXPECT_EQ(k.stats["K"], "3072");
  Verdict k2 = prove_tra_round_count(big, 2, kBudgetMs);
  EXPECT_EQ(k2.status, Status::holds) << k2.stats["encoding"] << k2.stats["error"];
  EXPECT_EQ(k2.stats["K"], "32");
}

TEST(TraQueries, LimitsDependOnTheVariant) {
  for (const Query& q : queries())
    if (q.name == "smt-tra-route") {
      ASSERT_TRUE(q.unsupported_variant);
      EXPECT_FALSE(q.unsupported_variant(test::registered_algorithm("tra"), test::registered_variant("tra", "bruck"), InstanceParams{1u << 20}).has_value());
      EXPECT_TRUE(q.unsupported_variant(test::registered_algorithm("tra"), test::registered_variant("tra", "spread-out"), InstanceParams{5000}).has_value());  // 4999 rounds
      EXPECT_TRUE(q.unsupported_variant(test::registered_algorithm("tra"), test::registered_variant("tra", "tra"), InstanceParams{1}).has_value());
    }
}

}  // namespace
}  // namespace collcheck::smt
