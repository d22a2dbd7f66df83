// Träff's circulant broadcast schedules (traff-circulant-broadcast-schedules.txt;
// shared/reference/known-answers.md, Träff section):
//
//  * Tables 1, 2, 3 of the paper (p = 17, 9, 18), cell by cell: baseblock b,
//    recvblock[k] and sendblock[k] for every rank r and round k;
//  * Algorithm 2's skips for p = 17 (1, 2, 3, 5, 9, 17) and p = 11 (1, 2, 3, 6, 11);
//  * Lemma 3's example: the skips 1, 2, 3, 6, 11 are Algorithm 2's skips for
//    p = 11, and BASEBLOCK (Algorithm 3) for r = 0..10 lists 4 0 1 2 0 1 3 0 1 2 0,
//    the result of Lemma 3's doubling construction; the construction itself is
//    also compared with BASEBLOCK for every p in 1..2000;
//  * for every p in 1..2000 and every rank: recursive ALLBLOCKS calls <= q-1
//    (Lemma 5), Algorithm 6 violations <= 4 (Theorem 3), and the four
//    correctness conditions of Section 2 (properties/traff_conditions, whose
//    violations are also tested below on corrupted tables);
//  * a regression (not a known answer): Algorithm 6's violation count per rank
//    for p = 17, with a note on the paper's prose example of violations.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "properties/traff/traff_conditions.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {
namespace {

using traff::RankSchedule;

std::vector<RankSchedule> all_ranks(uint64_t p, const std::vector<int64_t>& skip) {
  std::vector<RankSchedule> s;
  s.reserve(p);
  for (uint64_t r = 0; r < p; ++r) s.push_back(traff::rank_schedule(r, skip));
  return s;
}

// Träff's four correctness conditions of Section 2 for all rank schedules of one
// p (root r = 0), by properties/traff_conditions (the paper's statements are
// quoted there). Returns "" when all hold, else the minimal counterexample.
std::string four_conditions(const std::vector<RankSchedule>& s) {
  const Verdict v = traff_conditions(s);
  if (v.status == Status::holds) return "";
  if (!v.counterexample) return std::string(to_string(v.status));
  return v.counterexample->location() + ": " + v.counterexample->message;
}

// Rows: b, recvblock[0..q-1], sendblock[0..q-1]; columns r = 0..p-1.
using Table = std::vector<std::vector<int64_t>>;

const Table kTable1 = {  // p = 17, q = 5
      {5, 0, 1, 2, 0, 3, 0, 1, 2, 4, 0, 1, 2, 0, 3, 0, 1},
      {-4, 0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5},
      {-5, -4, 1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2},
      {-2, -2, -2, 2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3},
      {-1, -3, -3, -2, -2, 3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1},
      {-3, -1, -1, -1, -1, -1, -1, -1, -1, 4, 0, 1, 2, 0, 3, 0, 1},
      {0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5, -4},
      {1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2, -5, -4},
      {2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3, -2, -2, -2},
      {3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1, -1, -3, -3, -2, -2},
      {4, 0, 1, 2, 0, 3, 0, 1, -3, -1, -1, -1, -1, -1, -1, -1, -1},
};
const Table kTable2 = {  // p = 9, q = 4
      {4, 0, 1, 2, 0, 3, 0, 1, 2},
      {-2, 0, -4, -3, -2, -4, -1, -4, -3},
      {-3, -2, 1, -4, -3, -2, -2, -1, -4},
      {-1, -3, -2, 2, 0, -3, -3, -2, -1},
      {-4, -1, -1, -1, -1, 3, 0, 1, 2},
      {0, -4, -3, -2, -4, -1, -4, -3, -2},
      {1, -4, -3, -2, -2, -1, -4, -3, -2},
      {2, 0, -3, -3, -2, -1, -1, -3, -2},
      {3, 0, 1, 2, -4, -1, -1, -1, -1},
};
const Table kTable3 = {  // p = 18, q = 5
      {5, 0, 1, 2, 0, 3, 0, 1, 2, 4, 0, 1, 2, 0, 3, 0, 1, 2},
      {-3, 0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5, -4},
      {-4, -3, 1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2, -5},
      {-2, -4, -3, 2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3, -2},
      {-5, -2, -2, -2, -2, 3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1, -1},
      {-1, -1, -1, -1, -1, -1, -1, -1, -1, 4, 0, 1, 2, 0, 3, 0, 1, 2},
      {0, -5, -4, -3, -5, -2, -5, -4, -3, -1, -5, -4, -3, -5, -2, -5, -4, -3},
      {1, -5, -4, -3, -3, -2, -5, -4, -3, -1, -5, -4, -3, -3, -2, -5, -4, -3},
      {2, 0, -4, -4, -3, -2, -2, -4, -3, -1, -1, -4, -4, -3, -2, -2, -4, -3},
      {3, 0, 1, 2, -5, -2, -2, -2, -2, -1, -1, -1, -1, -5, -2, -2, -2, -2},
      {4, 0, 1, 2, 0, 3, 0, 1, 2, -1, -1, -1, -1, -1, -1, -1, -1, -1},
};

void expect_table(uint64_t p, const Table& tab) {
  const auto skip = traff::skips(p);
  const size_t q = skip.size() - 1;
  ASSERT_EQ(tab.size(), 1 + 2 * q);
  for (const auto& row : tab) ASSERT_EQ(row.size(), p);
  for (uint64_t r = 0; r < p; ++r) {
    const auto s = traff::rank_schedule(r, skip);
    EXPECT_EQ(traff::baseblock(r, skip), tab[0][r]) << "p=" << p << " r=" << r;
    EXPECT_EQ(s.baseblock, tab[0][r]) << "p=" << p << " r=" << r;
    for (size_t k = 0; k < q; ++k) {
      EXPECT_EQ(s.recvblock[k], tab[1 + k][r]) << "p=" << p << " recvblock[" << k << "] r=" << r;
      EXPECT_EQ(s.sendblock[k], tab[1 + q + k][r]) << "p=" << p << " sendblock[" << k << "] r=" << r;
    }
    EXPECT_EQ(traff::recvschedule(r, skip), s.recvblock) << "p=" << p << " r=" << r;
  }
  EXPECT_EQ(four_conditions(all_ranks(p, skip)), "");
}

TEST(TraffCirculant, Table1P17) { expect_table(17, kTable1); }
TEST(TraffCirculant, Table2P9) { expect_table(9, kTable2); }
TEST(TraffCirculant, Table3P18) { expect_table(18, kTable3); }

TEST(TraffCirculant, SkipsKnownAnswers) {
  EXPECT_EQ(traff::skips(17), (std::vector<int64_t>{1, 2, 3, 5, 9, 17}));
  EXPECT_EQ(traff::skips(9), (std::vector<int64_t>{1, 2, 3, 5, 9}));
  EXPECT_EQ(traff::skips(18), (std::vector<int64_t>{1, 2, 3, 5, 9, 18}));
  EXPECT_EQ(traff::skips(11), (std::vector<int64_t>{1, 2, 3, 6, 11}));
  EXPECT_EQ(traff::skips(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(traff::skips(2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(traff::skips(16), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(traff::skips(uint64_t{1} << 21).size(), 22u);
  for (uint64_t p = 2; p <= 5000; ++p) {
    const auto skip = traff::skips(p);
    EXPECT_EQ(skip[0], 1) << p;
    EXPECT_EQ(skip[1], 2) << p;
    for (size_t k = 0; k + 1 < skip.size(); ++k) {
      // Observation 3: skip[k+1] <= skip[k] + skip[k] <= skip[k+1] + 1
      EXPECT_LE(skip[k + 1], 2 * skip[k]) << p;
      EXPECT_LE(2 * skip[k], skip[k + 1] + 1) << p;
    }
  }
}

TEST(TraffCirculant, BaseblocksP17) {
  const auto skip = traff::skips(17);
  const std::vector<int64_t> want = {5, 0, 1, 2, 0, 3, 0, 1, 2, 4, 0, 1, 2, 0, 3, 0, 1};
  for (uint64_t r = 0; r < 17; ++r) EXPECT_EQ(traff::baseblock(r, skip), want[r]) << r;
}

// Lemma 3's listing: start from [0]; for each k, append the list to itself,
// drop the last element if the result is longer than skip[k+1], and set the
// root's entry to k+1.
std::vector<int64_t> lemma3_listing(const std::vector<int64_t>& skip) {
  std::vector<int64_t> list = {0};
  for (size_t k = 0; k + 1 < skip.size(); ++k) {
    const std::vector<int64_t> half = list;
    list.insert(list.end(), half.begin(), half.end());
    list.resize(static_cast<size_t>(skip[k + 1]));
    list[0] = static_cast<int64_t>(k) + 1;
  }
  return list;
}

TEST(TraffCirculant, Lemma3Example) {
  // "Example for skip[0] = 1, skip[1] = 2, skip[2] = 3, skip[3] = 6, skip[4] = 11:
  //  0 -> 10 -> 201 -> 301201 -> 40120130120." These are Algorithm 2's skips for
  // p = 11, and the list is BASEBLOCK(r) for r = 0..10.
  const auto skip = traff::skips(11);
  ASSERT_EQ(skip, (std::vector<int64_t>{1, 2, 3, 6, 11}));
  std::string got;
  for (uint64_t r = 0; r < 11; ++r) got += std::to_string(traff::baseblock(r, skip));
  EXPECT_EQ(got, "40120130120");
  std::string listed;
  for (int64_t b : lemma3_listing(skip)) listed += std::to_string(b);
  EXPECT_EQ(listed, "40120130120");
  for (uint64_t p = 1; p <= 2000; ++p) {
    const auto sk = traff::skips(p);
    const auto list = lemma3_listing(sk);
    ASSERT_EQ(list.size(), p);
    for (uint64_t r = 0; r < p; ++r) ASSERT_EQ(traff::baseblock(r, sk), list[r]) << "p=" << p << " r=" << r;
  }
}

// Not a known answer: violation counts of the literal Algorithm 6 for p = 17,
// kept as a regression. The paper says "There are, for instance, send schedule
// violations in round k = 2 for processor r = 3 and in round k = 3 for processor
// r = 8"; the printed algorithm has r = 3's single violation in round 2, but
// r = 8's single violation in round 4 (r' = 8 < skip[4] = 9 and
// r' + skip[4] = 17 = e, so the lower-part test fails; Table 1's
// sendblock[4]_8 = -3 is indeed not c = b_8 = 2), while round 3 is an upper-part
// round with r' = 8 > skip[3] = 5, sending c = 3 - q = -2 without a violation.
TEST(TraffCirculant, ViolationsP17) {
  const auto skip = traff::skips(17);
  const std::vector<int> want = {0, 1, 1, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 2, 2, 2, 1};
  for (uint64_t r = 0; r < 17; ++r) EXPECT_EQ(traff::rank_schedule(r, skip).violations, want[r]) << r;
}

// Which rounds are the violations (Sec. 2.3's prose example, derived by hand
// in the comment above): rank 3's in round 2, rank 8's in round 4 (the prose
// says round 3). For every rank of p <= 300 the rounds are as many as the
// count, in 1..q-1 (Algorithm 6's loop never reaches round 0).
TEST(TraffCirculant, ViolationRoundsP17) {
  const auto skip = traff::skips(17);
  EXPECT_EQ(traff::rank_schedule(3, skip).violation_rounds, uint64_t{1} << 2);
  EXPECT_EQ(traff::rank_schedule(8, skip).violation_rounds, uint64_t{1} << 4);
  for (uint64_t p = 1; p <= 300; ++p) {
    const auto sk = traff::skips(p);
    const int q = static_cast<int>(sk.size()) - 1;
    for (uint64_t r = 0; r < p; ++r) {
      const auto rs = traff::rank_schedule(r, sk);
      ASSERT_EQ(std::popcount(rs.violation_rounds), rs.violations) << "p=" << p << " r=" << r;
      ASSERT_EQ(rs.violation_rounds & 1, 0u) << "p=" << p << " r=" << r;
      ASSERT_LT(rs.violation_rounds, q > 0 ? uint64_t{1} << q : 1) << "p=" << p << " r=" << r;
    }
  }
}

TEST(TraffCirculant, SmallP) {
  auto s = traff::rank_schedule(0, traff::skips(1));
  EXPECT_EQ(s.baseblock, 0);
  EXPECT_TRUE(s.recvblock.empty());
  EXPECT_TRUE(s.sendblock.empty());
  const auto skip2 = traff::skips(2);
  const auto r0 = traff::rank_schedule(0, skip2), r1 = traff::rank_schedule(1, skip2);
  EXPECT_EQ(r0.sendblock, (std::vector<int64_t>{0}));
  EXPECT_EQ(r0.recvblock, (std::vector<int64_t>{-1}));
  EXPECT_EQ(r1.recvblock, (std::vector<int64_t>{0}));
  EXPECT_EQ(r1.sendblock, (std::vector<int64_t>{-1}));
}

TEST(TraffCirculant, AllP1To2000) {
  int max_calls_minus_q = -1000 /* over p >= 2 */, max_violations = 0;
  for (uint64_t p = 1; p <= 2000; ++p) {
    const auto skip = traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    const auto s = all_ranks(p, skip);
    for (uint64_t r = 0; r < p; ++r) {
      // Lemma 5: at most q-1 recursive ALLBLOCKS calls (p = 1, q = 0: none).
      ASSERT_LE(s[r].recursive_calls, std::max(q - 1, 0)) << "p=" << p << " r=" << r;
      // Theorem 3: at most four violations.
      ASSERT_LE(s[r].violations, 4) << "p=" << p << " r=" << r;
      if (p >= 2) max_calls_minus_q = std::max(max_calls_minus_q, s[r].recursive_calls - (q - 1));
      max_violations = std::max(max_violations, s[r].violations);
    }
    ASSERT_EQ(four_conditions(s), "");
  }
  RecordProperty("max_recursive_calls_minus_q_minus_1", max_calls_minus_q);
  RecordProperty("max_violations", max_violations);
}

// The property finds corrupted cells, at the minimal (rank, round).
TEST(TraffCirculant, ConditionsCatchCorruption) {
  const auto skip = traff::skips(17);
  {
    auto s = all_ranks(17, skip);  // rank 1 receives from 16 and 15 in rounds 1, 2
    std::swap(s[1].recvblock[1], s[1].recvblock[2]);
    const Verdict v = traff_conditions(s);
    ASSERT_EQ(v.status, Status::violated);
    EXPECT_EQ(v.property, "traff-conditions");
    EXPECT_EQ(v.counterexample->location(), "p=17 rank=1 step=1 peer=16");
    EXPECT_EQ(v.counterexample->actual, "recvblock[1]_1 = -2");
  }
  {
    auto s = all_ranks(17, skip);  // rank 2 sends 1 to 2 + 5 = 7 in round 3
    ASSERT_EQ(s[2].sendblock[3], 1);
    s[2].sendblock[3] = -2;  // its recvblock[2]: condition 4 still holds
    const Verdict v = traff_conditions(s);
    ASSERT_EQ(v.status, Status::violated);
    EXPECT_EQ(v.counterexample->location(), "p=17 rank=2 step=3 peer=7");
  }
  {
    auto s = all_ranks(9, traff::skips(9));
    s[4].baseblock = 4;  // Table 2: b_4 = 0; q = 4 is only the root's
    const Verdict v = traff_conditions(s);
    ASSERT_EQ(v.status, Status::violated);
    EXPECT_EQ(v.counterexample->location(), "p=9 rank=4");
  }
  {
    auto s = all_ranks(9, traff::skips(9));
    s[3].recvblock.pop_back();
    const Verdict v = traff_conditions(s);
    ASSERT_EQ(v.status, Status::violated);
    EXPECT_EQ(v.counterexample->location(), "p=9 rank=3");
  }
}

}  // namespace
}  // namespace collcheck
