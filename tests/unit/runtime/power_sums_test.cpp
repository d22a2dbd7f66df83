// The power-sums payload's arithmetic (runtime/blackbox/power_sums.hpp):
// results built from the contributions with chosen multiplicities. Every
// pattern of up to 8 wrong contributions is detected (the exactness claim),
// up to 4 are decoded to their ranks and multiplicities, the hashed value is
// checked too, and beyond that the decoder says it cannot name them instead
// of naming the wrong ranks.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

#include "runtime/blackbox/power_sums.hpp"

namespace collcheck::runtime::blackbox::power_sums {
namespace {

// Element i's result when rank r is combined times[r] times (1 if absent).
std::vector<uint64_t> result(const Weights& w, uint64_t i, const std::map<uint64_t, int64_t>& times) {
  std::vector<uint64_t> acc(kValues, 0);
  uint64_t x[kValues];
  for (uint64_t r = 0; r < w.p(); ++r) {
    const auto it = times.find(r);
    const int64_t m = it == times.end() ? 1 : it->second;
    contribution(w, r, i, x);
    const uint64_t f = m >= 0 ? static_cast<uint64_t>(m) % kQ : kQ - static_cast<uint64_t>(-m) % kQ;
    for (int k = 0; k < kValues; ++k) acc[static_cast<size_t>(k)] = (acc[static_cast<size_t>(k)] + mulmod(f, x[k])) % kQ;
  }
  return acc;
}

TEST(PowerSums, ArithmeticModQ) {
  EXPECT_EQ(mulmod(kQ - 1, kQ - 1), 1u);
  EXPECT_EQ(mulmod(kQ - 1, kQ - 2), 2u);
  EXPECT_EQ(mulmod(0, kQ - 1), 0u);
  EXPECT_EQ(mulmod(inverse(12345), 12345), 1u);
  EXPECT_EQ(powmod(3, kQ - 1), 1u);  // Fermat: Q is prime
  int64_t a[2] = {static_cast<int64_t>(kQ - 1), 5}, b[2] = {2, static_cast<int64_t>(kQ - 5)};
  add_mod(a, b, 2);
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(b[1], 0);
}

TEST(PowerSums, RankWeightsAreDistinctAndNonZero) {
  const Weights w(7, 5000);
  std::map<uint64_t, uint64_t> seen;
  for (uint64_t r = 0; r < w.p(); ++r) {
    const uint64_t b = w.rank_weight(r);
    EXPECT_NE(b, 0u);
    EXPECT_TRUE(seen.emplace(b, r).second) << "ranks " << seen[b] << " and " << r << " share a weight";
  }
}

TEST(PowerSums, TheRightResultIsTheExpectedOne) {
  const Weights w(3, 100);
  uint64_t want[kValues];
  for (uint64_t i : {0u, 1u, 99u}) {
    expected(w, i, want);
    EXPECT_EQ(result(w, i, {}), std::vector<uint64_t>(want, want + kValues));
    EXPECT_EQ(decode(w, i, want), std::vector<WrongContribution>{});
  }
}

TEST(PowerSums, OneLostOrDoubledContributionIsNamedAtP4096) {
  const Weights w(11, 4096);
  for (const auto& [rank, times] : std::map<uint64_t, int64_t>{{0, 0}, {4095, 2}, {1234, 3}, {77, -1}}) {
    const auto got = decode(w, 5, result(w, 5, {{rank, times}}).data());
    ASSERT_TRUE(got) << rank;
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ((*got)[0].rank, rank);
    EXPECT_EQ((*got)[0].times, times);
  }
}

TEST(PowerSums, UpToFourWrongContributionsAreDecoded) {
  const Weights w(5, 300);
  const std::map<uint64_t, int64_t> wrong{{3, 0}, {4, 2}, {150, 0}, {299, 2}};
  const auto got = decode(w, 0, result(w, 0, wrong).data());
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 4u);
  for (const WrongContribution& c : *got) EXPECT_EQ(wrong.at(c.rank), c.times);
}

// Five to eight wrong: always detected (the Vandermonde argument), never
// misnamed: the decoder answers "cannot name them".
TEST(PowerSums, FiveToEightWrongAreDetectedAndNotMisnamed) {
  const Weights w(13, 64);
  uint64_t want[kValues];
  expected(w, 9, want);
  for (size_t n = 5; n <= 8; ++n) {
    std::map<uint64_t, int64_t> wrong;
    for (size_t k = 0; k < n; ++k) wrong[7 * k + 1] = k % 2 ? 0 : 2;
    const std::vector<uint64_t> got = result(w, 9, wrong);
    EXPECT_NE(got, std::vector<uint64_t>(want, want + kValues)) << n;
    EXPECT_FALSE(decode(w, 9, got.data())) << n;
  }
}

// A pattern that cancels the power sums of an arithmetic progression up to
// degree 3 (Prouhet-Thue-Morse: ranks 0..15 with even popcount doubled, odd
// lost) does not cancel these weights.
TEST(PowerSums, AThueMorsePatternIsDetected) {
  const Weights w(1, 16);
  std::map<uint64_t, int64_t> wrong;
  for (uint64_t r = 0; r < 16; ++r) wrong[r] = __builtin_popcountll(r) % 2 ? 0 : 2;
  uint64_t want[kValues];
  expected(w, 0, want);
  EXPECT_NE(result(w, 0, wrong), std::vector<uint64_t>(want, want + kValues));
}

// Power sums that are right with a hashed value that is not (what a pattern
// with equal power sums up to degree 24 would leave): refuted, not decoded.
TEST(PowerSums, TheHashedValueIsChecked) {
  const Weights w(4, 30);
  std::vector<uint64_t> got = result(w, 2, {});
  got[kK] = (got[kK] + 1) % kQ;
  EXPECT_FALSE(decode(w, 2, got.data()));
  got = result(w, 2, {{7, 2}});  // one doubled, its hashed value not
  got[kK] = (got[kK] + kQ - w.hashed(7, 2)) % kQ;
  EXPECT_FALSE(decode(w, 2, got.data()));
}

// Another element's contribution summed here (a misplaced element) is seen.
TEST(PowerSums, AnotherElementsContributionIsSeen) {
  const Weights w(2, 50);
  std::vector<uint64_t> got = result(w, 4, {{10, 0}});
  uint64_t x[kValues];
  contribution(w, 10, 5, x);  // rank 10's element 5 instead of its element 4
  for (int k = 0; k < kValues; ++k) got[static_cast<size_t>(k)] = (got[static_cast<size_t>(k)] + x[k]) % kQ;
  uint64_t want[kValues];
  expected(w, 4, want);
  EXPECT_NE(got, std::vector<uint64_t>(want, want + kValues));
  EXPECT_FALSE(decode(w, 4, got.data()));  // not decoded as some rank's multiplicity: no rank is named
}

RC_GTEST_PROP(PowerSums, EveryPatternOfAtMostEightWrongIsDetected, ()) {
  const uint64_t p = *rc::gen::inRange<uint64_t>(1, 200);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const Weights w(seed, p);
  const size_t n = *rc::gen::inRange<size_t>(1, std::min<size_t>(8, p) + 1);
  std::map<uint64_t, int64_t> wrong;
  while (wrong.size() < n) {
    const int64_t times = *rc::gen::element<int64_t>(0, 2, 3, -1, 5);
    wrong[*rc::gen::inRange<uint64_t>(0, p)] = times;
  }
  uint64_t want[kValues];
  expected(w, 3, want);
  RC_ASSERT(result(w, 3, wrong) != std::vector<uint64_t>(want, want + kValues));
  const auto named = decode(w, 3, result(w, 3, wrong).data());
  if (n <= static_cast<size_t>(kDecodable)) {
    RC_ASSERT(named.has_value());
    RC_ASSERT(named->size() == n);
    for (const WrongContribution& c : *named) RC_ASSERT(wrong.at(c.rank) == c.times);
  } else {
    RC_ASSERT(!named.has_value());  // never a short list that names the wrong ranks
  }
}

}  // namespace
}  // namespace collcheck::runtime::blackbox::power_sums
