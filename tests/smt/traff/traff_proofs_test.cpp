// Träff's parametric proofs (smt/traff/traff_proofs.cpp): Lemma 2 / Algorithm 3
// for symbolic r (and p), the printed bound of Lemma 2, and Conditions 1-2 on
// the enumerator's tables. Ground truth: brute force over all subsets of
// skips and over all ranks; mutated skips and tables must be refuted.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/schedule_lookup.hpp"
#include "properties/traff/traff_tables.hpp"
#include "schedules/traff/traff_circulant.hpp"
#include "smt/parametric_proofs.hpp"
#include "smt/query_registry.hpp"

namespace collcheck::smt {
namespace {

constexpr unsigned kBudgetMs = 60000;

// Fewest distinct skips (indices < q) summing to r; q + 1 if none.
int fewest_skips(uint64_t r, const std::vector<int64_t>& skip) {
  const int q = static_cast<int>(skip.size()) - 1;
  int best = q + 1;
  for (uint64_t m = 0; m < (uint64_t{1} << q); ++m) {
    uint64_t sum = 0;
    for (int k = 0; k < q; ++k)
      if (m >> k & 1) sum += static_cast<uint64_t>(skip[static_cast<size_t>(k)]);
    if (sum == r) best = std::min(best, __builtin_popcountll(m));
  }
  return best;
}

TEST(TraffBaseblock, HoldsForManyP) {
  for (uint64_t p : {2u, 3u, 5u, 9u, 17u, 18u, 100u, 1000u, 65537u, 2097152u}) {
    Verdict v = prove_traff_baseblock(p, kBudgetMs);
    EXPECT_EQ(v.status, Status::holds) << "p=" << p << " " << v.stats["error"];
  }
}

TEST(TraffBaseblock, SymbolicPHolds) {
  Verdict v = prove_traff_baseblock_all_p(256, kBudgetMs);
  EXPECT_EQ(v.status, Status::holds) << v.stats["error"];
}

TEST(TraffBaseblock, BrokenSkipsAreRefuted) {
  // A skip table that is not Algorithm 2's halving: p = 11 gives 1 2 3 6 11;
  // with skip[1] = 3 some small rank has no greedy canonical sequence.
  std::vector<int64_t> skip = traff::skips(11);
  ASSERT_EQ(skip, (std::vector<int64_t>{1, 2, 3, 6, 11}));
  skip[1] = 3;
  Verdict v = prove_traff_baseblock(11, kBudgetMs, &skip);
  ASSERT_EQ(v.status, Status::violated);
  ASSERT_TRUE(v.counterexample);
  // Smallest r whose greedy canonical sum misses r, by brute force.
  uint64_t want = 0;
  for (uint64_t r = 0; r < 11; ++r) {
    uint64_t sum = 0;
    for (int k = 3; k >= 0; --k)
      if (sum + static_cast<uint64_t>(skip[static_cast<size_t>(k)]) <= r) sum += static_cast<uint64_t>(skip[static_cast<size_t>(k)]);
    int64_t b = traff::baseblock(r, skip);
    bool bad = sum != r;
    // Algorithm 3 must return the smallest taken index.
    int64_t smallest = 4;
    sum = 0;
    for (int k = 3; k >= 0; --k)
      if (sum + static_cast<uint64_t>(skip[static_cast<size_t>(k)]) <= r) {
        sum += static_cast<uint64_t>(skip[static_cast<size_t>(k)]);
        smallest = k;
      }
    bad = bad || b != smallest;
    if (bad) {
      want = r;
      break;
    }
  }
  EXPECT_EQ(*v.counterexample->rank, want);
}

TEST(TraffLemma2Length, PrintedBoundFailsExactlyWhereBruteForceSaysSo) {
  for (uint64_t p = 2; p <= 80; ++p) {
    const std::vector<int64_t> skip = traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    std::optional<uint64_t> first;
    for (uint64_t r = 0; r < p && !first; ++r)
      if (fewest_skips(r, skip) >= q) first = r;
    Verdict v = prove_traff_lemma2_length(p, kBudgetMs);
    if (!first) {
      EXPECT_EQ(v.status, Status::holds) << "p=" << p;
    } else {
      ASSERT_EQ(v.status, Status::violated) << "p=" << p;
      EXPECT_EQ(*v.counterexample->rank, *first) << "p=" << p;
    }
  }
}

TEST(TraffTables, HoldForEnumeratorTables) {
  for (uint64_t p : {2u, 9u, 17u, 18u, 1000u, 4096u}) {
    Verdict v = prove_traff_tables(p, kBudgetMs);
    EXPECT_EQ(v.status, Status::holds) << "p=" << p;
  }
}

TEST(TraffTables, CorruptedEntryIsFoundAtItsRankAndRound) {
  const uint64_t p = 17;
  traff::Tables t = traff::compute_tables(p);
  const int k = 2;
  const uint64_t r = 5;
  t.send[t.at(r, k)] = static_cast<int8_t>(t.send[t.at(r, k)] + 1);
  Verdict v = prove_traff_tables(p, kBudgetMs, &t);
  ASSERT_EQ(v.status, Status::violated);
  ASSERT_TRUE(v.counterexample);
  // The smallest rank that sees the bad entry in round 2: r itself (condition
  // 2) or its to-processor's from-check (condition 1 at r + skip[2]), whichever is smaller.
  const uint64_t to = (r + static_cast<uint64_t>(t.skip[k])) % p;
  EXPECT_EQ(*v.counterexample->step, k);
  EXPECT_EQ(*v.counterexample->rank, std::min(r, to));
}

TEST(TraffQueries, TablesRefuseLargeP) {
  for (const Query& q : queries())
    if (q.name == "smt-traff-tables") {
      EXPECT_TRUE(q.unsupported(InstanceParams{(1u << 14) + 1}).has_value());
      EXPECT_FALSE(q.unsupported(InstanceParams{1u << 14}).has_value());
      EXPECT_TRUE(q.applies_to(test::registered_algorithm("traff-allreduce"), test::registered_variant("traff-allreduce", "allreduce")));
    }
}

}  // namespace
}  // namespace collcheck::smt
