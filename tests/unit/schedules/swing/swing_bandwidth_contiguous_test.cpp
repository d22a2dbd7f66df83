// Swing bandwidth-contiguous (schedules/swing/swing_bandwidth_contiguous.hpp) is
// the default bandwidth variant with its blocks renumbered (block b of the
// paper's numbering is block position(b) here), for p = 2^0 .. 2^12: every
// rank's every transfer has the same peer, combine mode and list position,
// and its blocks mapped through position() are the contiguous variant's one
// range. The large-p verdicts of bandwidth-contiguous (p = 2^21 with interval
// bookkeeping) speak for the paper's numbering as far as this comparison
// reaches. position() is a permutation; a wrong renumbering is caught.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <set>

#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_bandwidth_contiguous.hpp"

namespace collcheck {
namespace {

BlockSet mapped(const BlockSet& b, const SwingBandwidthContiguous& c) {
  std::vector<Block> out;
  b.for_each([&](Block x) { out.push_back(c.position(x)); });
  return BlockSet::from_blocks(out);
}

// Compares every transfer of `paper` mapped through c.position with c;
// returns the number of transfers compared, or fails.
uint64_t compare(const Schedule& paper, const SwingBandwidthContiguous& c) {
  uint64_t compared = 0;
  EXPECT_EQ(c.num_steps(), paper.num_steps());
  RankStep a, b;
  for (int st = 0; st < c.num_steps(); ++st)
    for (Rank r = 0; r < c.p(); ++r) {
      paper.rank_step(r, st, a);
      c.rank_step(r, st, b);
      const std::string where = "p=" + std::to_string(c.p()) + " step " + std::to_string(st) + " rank " + std::to_string(r);
      if (a.sends.size() != b.sends.size() || a.recvs.size() != b.recvs.size()) {
        ADD_FAILURE() << where << ": transfer counts differ";
        return 0;
      }
      for (auto [x, y] : {std::pair{&a.sends, &b.sends}, std::pair{&a.recvs, &b.recvs}})
        for (size_t i = 0; i < x->size(); ++i) {
          if ((*x)[i].peer != (*y)[i].peer || (*x)[i].combine != (*y)[i].combine ||
              mapped((*x)[i].blocks, c) != (*y)[i].blocks) {
            ADD_FAILURE() << where << ": transfer " << i << " differs";
            return 0;
          }
          EXPECT_EQ((*y)[i].blocks.ranges().size(), 1u) << where;
          ++compared;
        }
    }
  return compared;
}

TEST(SwingBandwidthContiguous, EqualsThePaperNumberingUnderTheRenumbering) {
  uint64_t compared = 0;
  for (int k = 0; k <= 12; ++k) {
    const uint64_t p = uint64_t{1} << k;
    SwingBandwidthContiguous c(p);
    std::set<Block> image;
    for (Block b = 0; b < p; ++b) image.insert(c.position(b));
    ASSERT_EQ(image.size(), p);
    ASSERT_EQ(*image.rbegin(), p - 1);
    auto paper = make_swing_bandwidth(p);
    compared += compare(*paper, c);
  }
  EXPECT_GT(compared, 200000u);
}

// The comparison is not vacuous: the paper numbering compared with itself
// renumbered (a different schedule) fails.
TEST(SwingBandwidthContiguous, ComparisonCatchesAWrongNumbering) {
  EXPECT_NONFATAL_FAILURE(compare(SwingBandwidthContiguous(16), SwingBandwidthContiguous(16)), "differs");
}

}  // namespace
}  // namespace collcheck
