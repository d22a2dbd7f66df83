// The flat Träff tables (properties/traff_tables) and the two table
// properties on them: traff-conditions (column-wise, parallel) and
// traff-bounds (Lemma 5, Theorem 3, distributions).
//
//  * compute_tables equals the per-rank rank_schedule cell by cell (and in its
//    counters) for every p in 1..300 and for sampled ranks of large p;
//  * the flat conditions agree with the per-rank-vector entry point, and the
//    verdict (status, checks, minimal counterexample) does not depend on the
//    thread count;
//  * traff-bounds: its histograms and witness lists are recounted here from
//    rank_schedule; it
//    fails, at the minimal rank, on counters above each bound (a checker that
//    cannot fail proves nothing); tables without counters are skipped.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <map>
#include <string>
#include <vector>

#include "properties/traff/traff_bounds.hpp"
#include "properties/traff/traff_conditions.hpp"
#include "properties/traff/traff_tables.hpp"
#include "schedules/traff/traff_circulant.hpp"

namespace collcheck {
namespace {

void expect_same_as_rank_schedule(const traff::Tables& t, uint64_t r) {
  const auto rs = traff::rank_schedule(r, t.skip);
  ASSERT_EQ(t.baseblock[r], rs.baseblock) << "p=" << t.p << " r=" << r;
  ASSERT_EQ(t.recursive_calls[r], rs.recursive_calls) << "p=" << t.p << " r=" << r;
  ASSERT_EQ(t.violations[r], rs.violations) << "p=" << t.p << " r=" << r;
  for (int k = 0; k < t.q; ++k) {
    ASSERT_EQ(t.R(r, k), rs.recvblock[static_cast<size_t>(k)]) << "p=" << t.p << " r=" << r << " k=" << k;
    ASSERT_EQ(t.S(r, k), rs.sendblock[static_cast<size_t>(k)]) << "p=" << t.p << " r=" << r << " k=" << k;
  }
}

TEST(TraffTables, EqualRankScheduleCellByCell) {
  for (uint64_t p = 1; p <= 300; ++p) {
    const traff::Tables t = traff::compute_tables(p);
    ASSERT_EQ(t.q + 1, static_cast<int>(traff::skips(p).size()));
    for (uint64_t r = 0; r < p; ++r) expect_same_as_rank_schedule(t, r);
  }
  for (uint64_t p : {uint64_t{65537}, uint64_t{1} << 17, uint64_t{1500001}}) {
    const traff::Tables t = traff::compute_tables(p);
    for (uint64_t r = 0; r < p; r += 997) expect_same_as_rank_schedule(t, r);
    expect_same_as_rank_schedule(t, p - 1);
  }
}

std::vector<traff::RankSchedule> rows(uint64_t p) {
  std::vector<traff::RankSchedule> s;
  const auto skip = traff::skips(p);
  for (uint64_t r = 0; r < p; ++r) s.push_back(traff::rank_schedule(r, skip));
  return s;
}

TEST(TraffTables, FlatAndRowConditionsAgreeAndHold) {
  for (uint64_t p : {1, 2, 3, 9, 17, 18, 100, 1023, 1024, 1025}) {
    const Verdict flat = traff_conditions(traff::compute_tables(p));
    const Verdict row = traff_conditions(rows(p));
    EXPECT_EQ(flat.status, Status::holds) << p;
    EXPECT_EQ(row.status, Status::holds) << p;
    EXPECT_GT(flat.checks, 0u) << p;
  }
}

// Corrupt a cell far from rank 0 in a table large enough to be split into
// several TBB ranges: the minimal counterexample and the counts must be the
// same with one thread and with all of them.
TEST(TraffTables, ConditionsVerdictIndependentOfThreads) {
  traff::Tables t = traff::compute_tables(50000);
  t.send[t.at(40000, 3)] = static_cast<int8_t>(t.S(40000, 3) == -1 ? -2 : -1);
  t.recv[t.at(30001, 5)] = static_cast<int8_t>(t.R(30001, 5) == -1 ? -2 : -1);
  Verdict one, all;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = traff_conditions(t);
  }
  all = traff_conditions(t);
  ASSERT_EQ(one.status, Status::violated);
  EXPECT_EQ(one.violations, all.violations);
  EXPECT_EQ(one.checks, all.checks);
  ASSERT_TRUE(one.counterexample && all.counterexample);
  EXPECT_EQ(one.counterexample->location(), all.counterexample->location());
  EXPECT_EQ(one.counterexample->message, all.counterexample->message);
  // The first in time is the corruption in round 3 (at rank 40000, or
  // condition 2 or 1 at its from-/to-processors), not rank 30001's in round 5.
  ASSERT_TRUE(one.counterexample->step);
  EXPECT_EQ(*one.counterexample->step, 3);
}

// Mutation test: every single-cell change of p = 18's tables (every rank,
// round, receive or send table, every other in-range value, and every other
// baseblock) is caught by the flat conditions.
TEST(TraffTables, EverySingleCellCorruptionIsCaught) {
  const traff::Tables good = traff::compute_tables(18);  // q = 5
  const int q = good.q;
  uint64_t mutants = 0;
  for (uint64_t r = 0; r < good.p; ++r) {
    for (int k = 0; k < q; ++k)
      for (int table = 0; table < 2; ++table)
        for (int v = -q; v < q; ++v) {
          traff::Tables t = good;
          int8_t& cell = table == 0 ? t.recv[t.at(r, k)] : t.send[t.at(r, k)];
          if (cell == v) continue;
          cell = static_cast<int8_t>(v);
          ++mutants;
          const Verdict verdict = traff_conditions(t);
          ASSERT_EQ(verdict.status, Status::violated) << "r=" << r << " k=" << k << " table=" << table << " v=" << v;
        }
    for (int b = 0; b <= q; ++b) {
      traff::Tables t = good;
      if (t.baseblock[r] == b) continue;
      t.baseblock[r] = static_cast<int8_t>(b);
      ++mutants;
      const Verdict verdict = traff_conditions(t);
      ASSERT_EQ(verdict.status, Status::violated) << "r=" << r << " baseblock=" << b;
      EXPECT_EQ(verdict.counterexample->rank, r);
    }
  }
  EXPECT_EQ(mutants, 18u * 5 * 2 * 9 + 18u * 5);
}

// The root's send schedule alone (condition 4 for the root), kept consistent
// with conditions 1 and 2 at its to-processor.
TEST(TraffTables, RootSendScheduleIsChecked) {
  traff::Tables t = traff::compute_tables(17);
  t.send[t.at(0, 2)] = 1;
  t.recv[t.at(3, 2)] = 1;  // root -> 0 + skip[2] = 3 in round 2
  const Verdict v = traff_conditions(t);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(v.counterexample->location(), "p=17 rank=0 step=2");
  EXPECT_NE(v.counterexample->message.find("condition 4"), std::string::npos) << v.counterexample->message;
}

std::string hist(const std::map<int, uint64_t>& h, int buckets) {
  std::string out;
  for (int i = 0; i < buckets || h.count(i); ++i)
    out += (out.empty() ? "" : " ") + std::to_string(i) + ":" + std::to_string(h.count(i) ? h.at(i) : 0);
  return out;
}

TEST(TraffBounds, HistogramsRecountedFromRankSchedule) {
  for (uint64_t p : {1, 2, 17, 18, 1000, 4097}) {
    const auto skip = traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    std::map<int, uint64_t> viol, calls;
    int max_calls = 0;
    for (uint64_t r = 0; r < p; ++r) {
      const auto rs = traff::rank_schedule(r, skip);
      ++viol[rs.violations];
      ++calls[rs.recursive_calls];
      max_calls = std::max(max_calls, rs.recursive_calls);
    }
    const Verdict v = traff_bounds(traff::compute_tables(p));
    ASSERT_EQ(v.status, Status::holds) << p;
    EXPECT_EQ(v.property, "traff-bounds");
    EXPECT_EQ(v.stats.at("violations_histogram"), hist(viol, 5)) << p;
    EXPECT_EQ(v.stats.at("recursive_calls_histogram"), hist(calls, std::max(q - 1, 0) + 1)) << p;
    EXPECT_EQ(v.stats.at("max_recursive_calls"), std::to_string(max_calls)) << p;
    EXPECT_EQ(v.stats.at("recursion_bound"), std::to_string(std::max(q - 1, 0))) << p;
    EXPECT_EQ(v.stats.at("max_recursion_excess"), std::to_string(max_calls - std::max(q - 1, 0))) << p;
  }
  // Table 1's p = 17 (see ViolationsP17 in traff_circulant_test): 1 rank with
  // none, 10 with one, 6 with two violations.
  EXPECT_EQ(traff_bounds(traff::compute_tables(17)).stats.at("violations_histogram"), "0:1 1:10 2:6 3:0 4:0");
}

// The witnesses: which ranks have send-schedule violations in which rounds,
// and which reach the maximum; recounted here from rank_schedule.
TEST(TraffBounds, WitnessesNameRanksAndRounds) {
  const Verdict v17 = traff_bounds(traff::compute_tables(17));
  // Sec. 2.3's prose example for Table 1: rank 3's violation is in round 2; the
  // printed Algorithm 6 puts rank 8's in round 4, not round 3 as the prose says
  // (ViolationRoundsP17 in traff_circulant_test derives both by hand).
  const std::string& all = v17.stats.at("witnesses_violations");
  EXPECT_NE(all.find("p=17 rank 3: 1 violation (round 2); "), std::string::npos) << all;
  EXPECT_NE(all.find("p=17 rank 8: 1 violation (round 4); "), std::string::npos) << all;
  EXPECT_EQ(all.substr(all.size() - 12), "; and 6 more") << "16 ranks have violations, 10 are listed";
  // The six ranks with two violations (ViolationsP17).
  EXPECT_EQ(v17.stats.at("witnesses_max_violations"),
            "p=17 rank 4: 2 violations (rounds 1, 3); p=17 rank 6: 2 violations (rounds 1, 2); "
            "p=17 rank 12: 2 violations (rounds 2, 3); p=17 rank 13: 2 violations (rounds 1, 3); "
            "p=17 rank 14: 2 violations (rounds 2, 3); p=17 rank 15: 2 violations (rounds 1, 2)");

  for (uint64_t p : {1, 2, 3, 100, 1000}) {
    const auto skip = traff::skips(p);
    const int q = static_cast<int>(skip.size()) - 1;
    std::vector<traff::RankSchedule> rs;
    int max_viol = 0, max_calls = 0;
    for (uint64_t r = 0; r < p; ++r) {
      rs.push_back(traff::rank_schedule(r, skip));
      max_viol = std::max(max_viol, rs.back().violations);
      max_calls = std::max(max_calls, rs.back().recursive_calls);
    }
    std::vector<std::string> with, at_max, calls;
    for (uint64_t r = 0; r < p; ++r) {
      std::string item = "p=" + std::to_string(p) + " rank " + std::to_string(r) + ": ";
      if (rs[r].violations > 0) {
        std::string rounds;
        for (int k = 0; k < q; ++k)
          if (rs[r].violation_rounds >> k & 1) rounds += (rounds.empty() ? "" : ", ") + std::to_string(k);
        const std::string v = item + std::to_string(rs[r].violations) +
                              (rs[r].violations == 1 ? " violation (round " : " violations (rounds ") + rounds + ")";
        with.push_back(v);
        if (rs[r].violations == max_viol) at_max.push_back(v);
      }
      if (max_calls > 0 && rs[r].recursive_calls == max_calls)
        calls.push_back(item + std::to_string(max_calls) + (max_calls == 1 ? " recursive call" : " recursive calls") +
                        " (q-1 = " + std::to_string(q - 1) + ")");
    }
    auto listed = [](const std::vector<std::string>& items) {
      std::string out;
      for (size_t k = 0; k < items.size() && k < 10; ++k) out += (out.empty() ? "" : "; ") + items[k];
      if (items.size() > 10) out += "; and " + std::to_string(items.size() - 10) + " more";
      return out;
    };
    const Verdict v = traff_bounds(traff::compute_tables(p));
    auto stat = [&](const char* key) { return v.stats.count(key) ? v.stats.at(key) : std::string(); };
    EXPECT_EQ(stat("witnesses_violations"), listed(with)) << p;
    EXPECT_EQ(stat("witnesses_max_violations"), listed(at_max)) << p;
    EXPECT_EQ(stat("witnesses_max_recursion_excess"), listed(calls)) << p;
  }
}

TEST(TraffBounds, FailsAboveEachBoundAtTheMinimalRank) {
  traff::Tables t = traff::compute_tables(100);  // q = 7
  t.violations[60] = 5;
  t.violations[40] = 7;
  Verdict v = traff_bounds(t);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(v.violations, 2u);
  EXPECT_EQ(v.counterexample->location(), "p=100 rank=40");
  // The rounds are recomputed with Algorithm 6, which disagrees with the
  // hand-set counter: the count alone.
  EXPECT_EQ(v.counterexample->actual, "7 violations");
  EXPECT_NE(v.stats.at("violations_histogram").find("5:1 6:0 7:1"), std::string::npos);

  t = traff::compute_tables(100);
  t.recursive_calls[9] = 7;  // q - 1 = 6
  v = traff_bounds(t);
  ASSERT_EQ(v.status, Status::violated);
  EXPECT_EQ(v.counterexample->location(), "p=100 rank=9");
  EXPECT_EQ(v.stats.at("max_recursion_excess"), "1");

  t = traff::compute_tables(100);
  t.recursive_calls[9] = 6;  // exactly at the bound: holds
  EXPECT_EQ(traff_bounds(t).status, Status::holds);
}

TEST(TraffBounds, SkippedWithoutCounters) {
  const Verdict v = traff_bounds(traff::from_rank_schedules(rows(9)));
  EXPECT_EQ(v.status, Status::skipped);
}

TEST(TraffTables, FromRankSchedulesRejectsMalformedRows) {
  auto s = rows(9);
  s[3].recvblock.pop_back();
  EXPECT_THROW(traff::from_rank_schedules(s), std::invalid_argument);
  s = rows(9);
  s[4].sendblock[1] = 4;  // q = 4: outside [-4, 3]
  EXPECT_THROW(traff::from_rank_schedules(s), std::invalid_argument);
  s = rows(9);
  s[4].baseblock = 5;
  EXPECT_THROW(traff::from_rank_schedules(s), std::invalid_argument);
  EXPECT_THROW(traff::from_rank_schedules({}), std::invalid_argument);
}

}  // namespace
}  // namespace collcheck
