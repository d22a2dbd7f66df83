// Trivance's parametric proofs (smt/trivance/trivance_proofs.cpp): peers at 3^k and
// Lemma 4.2 with exact multiplicity. Ground truth is an independent
// enumeration of D^k(r) as a multiset (the joint reductions replayed node by
// node); mutated distance tables must be refuted with the smallest (k, r, u).
#include <gtest/gtest.h>

#include <optional>
#include <tuple>
#include <vector>

#include "tests/support/schedule_lookup.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/query_registry.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 60000;

std::vector<uint64_t> pow3s(int s) {
  std::vector<uint64_t> d;
  for (int k = 0; k < s; ++k) d.push_back(trivance::pow3(k));
  return d;
}

// counts[x][u] after step k: how often node x holds u's data (D^k(x)).
std::vector<std::vector<uint64_t>> step(const std::vector<std::vector<uint64_t>>& prev, uint64_t d, uint64_t n) {
  std::vector<std::vector<uint64_t>> next(n, std::vector<uint64_t>(n, 0));
  for (uint64_t x = 0; x < n; ++x)
    for (uint64_t u = 0; u < n; ++u)
      next[x][u] = prev[x][u] + prev[(x + n - d % n) % n][u] + prev[(x + d) % n][u];
  return next;
}

// Smallest (k, r, u) where the multiplicity differs from [dist <= R_k].
std::optional<std::tuple<int, uint64_t, uint64_t>> brute_coverage(uint64_t n, const std::vector<uint64_t>& d) {
  std::vector<std::vector<uint64_t>> cnt(n, std::vector<uint64_t>(n, 0));
  for (uint64_t x = 0; x < n; ++x) cnt[x][x] = 1;
  for (size_t k = 0; k < d.size(); ++k) {
    cnt = step(cnt, d[k], n);
    const uint64_t R = (trivance::pow3(static_cast<int>(k) + 1) - 1) / 2;
    for (uint64_t r = 0; r < n; ++r)
      for (uint64_t u = 0; u < n; ++u) {
        uint64_t dd = (u + n - r) % n;
        dd = std::min(dd, n - dd);
        if (cnt[r][u] != (dd <= R ? 1u : 0u)) return {{static_cast<int>(k), r, u}};
      }
  }
  return std::nullopt;
}

TEST(TrivancePeers, HoldForPowersOfThree) {
  for (int s = 1; s <= 9; s += 2) {
    Verdict v = prove_trivance_peers(trivance::pow3(s), kBudgetMs);
    EXPECT_EQ(v.status, Status::holds) << "n=3^" << s << " " << v.stats["error"];
  }
}

TEST(TrivancePeers, DistanceNotAPowerOfThreeIsRefuted) {
  std::vector<uint64_t> d = pow3s(3);
  d[2] = 8;  // step 2 should be 9
  Verdict v = prove_trivance_peers(27, kBudgetMs, &d);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(*v.counterexample->rank, 0u);
  EXPECT_EQ(*v.counterexample->step, 2);
}

TEST(TrivanceCoverage, HoldsAndEnumerationAgrees) {
  for (int s = 1; s <= 4; ++s) {
    const uint64_t n = trivance::pow3(s);
    EXPECT_FALSE(brute_coverage(n, pow3s(s)).has_value()) << n;
    Verdict v = prove_trivance_coverage(n, kBudgetMs);
    EXPECT_EQ(v.status, Status::holds) << n << " " << v.stats["error"];
  }
  EXPECT_EQ(prove_trivance_coverage(trivance::pow3(7), kBudgetMs).status, Status::holds);
}

TEST(TrivanceCoverage, MutatedDistancesGiveTheMinimalCounterexample) {
  // Each mutation breaks Lemma 4.2 (overlap or gap); Z3's minimal (k, r, u)
  // must be the enumeration's.
  const uint64_t n = 27;
  std::vector<std::vector<uint64_t>> mutants = {{1, 2, 9}, {1, 3, 8}, {1, 4, 9}, {2, 3, 9}};
  for (const auto& d : mutants) {
    auto want = brute_coverage(n, d);
    ASSERT_TRUE(want.has_value());
    Verdict v = prove_trivance_coverage(n, kBudgetMs, &d);
    ASSERT_EQ(v.status, Status::violated) << d[0] << "," << d[1] << "," << d[2];
    ASSERT_TRUE(v.counterexample);
    EXPECT_EQ(*v.counterexample->step, std::get<0>(*want));
    EXPECT_EQ(*v.counterexample->rank, std::get<1>(*want));
    EXPECT_EQ(*v.counterexample->peer, std::get<2>(*want));  // u, the node whose data is miscounted
  }
}

TEST(TrivanceCoverage, SymbolicNHoldsForSmallRange) {
  Verdict v = prove_trivance_coverage_all_n(81, kBudgetMs);
  EXPECT_EQ(v.status, Status::holds) << v.stats["error"];
}

TEST(TrivanceCoverage, TinyBudgetGivesUnknown) {
  Verdict v = prove_trivance_coverage(trivance::pow3(12), 1);
  EXPECT_EQ(v.status, Status::unknown);
  EXPECT_FALSE(v.counterexample.has_value());
}

TEST(TrivanceQueries, RefuseNonPowersOfThree) {
  for (const Query& q : queries())
    if (q.name == "smt-trivance-peers" || q.name == "smt-trivance-coverage") {
      EXPECT_TRUE(q.unsupported(InstanceParams{10}).has_value());
      EXPECT_FALSE(q.unsupported(InstanceParams{81}).has_value());
      EXPECT_TRUE(q.applies_to(test::registered_algorithm("trivance"), test::registered_variant("trivance", "bandwidth")));
      EXPECT_FALSE(q.applies_to(test::registered_algorithm("bruck-allreduce"), test::registered_variant("bruck-allreduce", "latency")));
    }
}

}  // namespace
}  // namespace collcheck::smt
