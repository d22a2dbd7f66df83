// Trivance bandwidth-contiguous (schedules/trivance/trivance_bandwidth_contiguous.hpp)
// is the bandwidth variant with blocks renumbered by base-3 digit reversal:
//   * position() is a permutation (digit reversal) for n = 3^0 .. 3^7;
//   * every rank's every transfer equals the bandwidth variant's, peer,
//     combine and list order equal, blocks mapped through position(), for
//     every rank and step of n = 3^0 .. 3^7;
//   * every transfer is one contiguous range;
//   * the generic properties hold, and a receive range shifted by one block
//     is caught by the checker; the comparison itself rejects a schedule
//     that is not the renumbered one (it is not vacuous);
//   * non-powers of three are refused by the registry's restriction.
#include <gtest/gtest.h>

#include <set>

#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "schedules/trivance/trivance_bandwidth.hpp"
#include "schedules/trivance/trivance_bandwidth_contiguous.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

BlockSet mapped(const BlockSet& b, const TrivanceBandwidthContiguous& c) {
  std::vector<Block> out;
  b.for_each([&](Block x) { out.push_back(c.position(x)); });
  return BlockSet::from_blocks(out);
}

TEST(TrivanceBandwidthContiguous, PositionIsDigitReversal) {
  for (int s = 0; s <= 7; ++s) {
    const uint64_t n = trivance::pow3(s);
    TrivanceBandwidthContiguous c(n);
    std::set<Block> seen;
    for (Block b = 0; b < n; ++b) {
      const Block q = c.position(b);
      ASSERT_LT(q, n);
      seen.insert(q);
      EXPECT_EQ(c.position(q), b) << "digit reversal is an involution, n=" << n;
    }
    EXPECT_EQ(seen.size(), n);
  }
  EXPECT_EQ(TrivanceBandwidthContiguous(27).position(1), 9u);   // 001 -> 100
  EXPECT_EQ(TrivanceBandwidthContiguous(27).position(5), 21u);  // 012 -> 210
}

TEST(TrivanceBandwidthContiguous, EqualsTheBandwidthVariantUnderTheRenumbering) {
  uint64_t compared = 0;
  for (int s = 0; s <= 7; ++s) {
    const uint64_t n = trivance::pow3(s);
    auto paper = make_trivance_bandwidth(n);
    TrivanceBandwidthContiguous c(n);
    ASSERT_EQ(c.num_steps(), paper->num_steps());
    ASSERT_EQ(c.ports(), paper->ports());
    RankStep a, b;
    for (int st = 0; st < c.num_steps(); ++st)
      for (Rank r = 0; r < n; ++r) {
        paper->rank_step(r, st, a);
        c.rank_step(r, st, b);
        ASSERT_EQ(a.sends.size(), b.sends.size());
        ASSERT_EQ(a.recvs.size(), b.recvs.size());
        for (auto [x, y] : {std::pair{&a.sends, &b.sends}, std::pair{&a.recvs, &b.recvs}})
          for (size_t i = 0; i < x->size(); ++i) {
            const std::string where = "n=" + std::to_string(n) + " step " + std::to_string(st) + " rank " + std::to_string(r);
            ASSERT_EQ((*x)[i].peer, (*y)[i].peer) << where;
            ASSERT_EQ((*x)[i].combine, (*y)[i].combine) << where;
            ASSERT_EQ(mapped((*x)[i].blocks, c), (*y)[i].blocks) << where;
            ASSERT_EQ((*y)[i].blocks.ranges().size(), 1u) << where;
            ++compared;
          }
      }
  }
  EXPECT_GT(compared, 100000u);
}

// The comparison of EqualsTheBandwidthVariantUnderTheRenumbering rejects a
// schedule that is not the renumbered one: the bandwidth variant compared
// with itself (no renumbering) differs from n = 9 on.
TEST(TrivanceBandwidthContiguous, ComparisonRejectsTheUnrenumberedSchedule) {
  auto paper = make_trivance_bandwidth(9);
  TrivanceBandwidthContiguous c(9);
  RankStep a, b;
  bool differs = false;
  for (int st = 0; st < c.num_steps() && !differs; ++st)
    for (Rank r = 0; r < 9 && !differs; ++r) {
      paper->rank_step(r, st, a);
      paper->rank_step(r, st, b);  // "contiguous" side: the paper numbering itself
      for (size_t i = 0; i < a.sends.size(); ++i) differs = differs || mapped(a.sends[i].blocks, c) != b.sends[i].blocks;
    }
  EXPECT_TRUE(differs);
}

TEST(TrivanceBandwidthContiguous, HoldsAndAShiftedRangeIsCaught) {
  const VariantInfo& v = test::registered_variant("trivance", "bandwidth-contiguous");
  EXPECT_TRUE(v.violates(InstanceParams{10}).has_value());
  EXPECT_FALSE(v.violates(InstanceParams{81}).has_value());
  auto s = v.make(InstanceParams{81});
  Claim claim = v.claim(InstanceParams{81});
  CheckOptions o;
  for (const Verdict& x : check_schedule(*s, &claim, {}, o).verdicts) EXPECT_EQ(x.status, Status::holds) << x.property;
  // One receiver's range shifted by one block in step 1: blocks no longer
  // agree with the sender's (matching) and contributions go missing.
  MaterializedSchedule m = materialize(*s);
  Transfer& t = m.steps[1][4].recvs[0];
  const auto rg = t.blocks.ranges().front();
  t.blocks = BlockSet::range(rg.lo + 1, rg.hi + 1);
  MaterializedView mv(m);
  std::set<std::string> bad;
  for (const Verdict& x : check_schedule(mv, &claim, {}, o).verdicts)
    if (x.status == Status::violated) bad.insert(x.property);
  EXPECT_TRUE(bad.count("matching"));
  EXPECT_TRUE(bad.count("postcondition"));
}

}  // namespace
}  // namespace collcheck
