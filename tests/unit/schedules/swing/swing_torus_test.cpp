// Swing on a D-dimensional torus (schedules/swing/swing_torus.hpp):
//   * the 4x4 known answers (rank 0's peer per collective and step, plain
//     collectives starting on different dimensions, mirrored ones reversed);
//   * Fig. 4 (4x4, step 0: 1 and 4 plain, 3 and 12 mirrored) and Fig. 5 / Sec.
//     4.2 (2x4: in the last step every collective is on the horizontal
//     dimension);
//   * omega(s) = s mod D, sigma(s) = floor(s / D) on square tori;
//   * every peer function is an involution, and each collective's peers at a
//     rank are distinct nodes along one dimension;
//   * bandwidth reduce-scatter: collective c sends p/2^(j+1) blocks at step j,
//     all of its own share; the allgather mirrors it as copies;
//   * the text's unsigned delta reads the same peer twice (the refuted
//     torus-paper-delta reading);
//   * shapes: sides that are not powers of two are refused with the reason.
#include <gtest/gtest.h>

#include <set>

#include "schedules/swing/swing_torus.hpp"

namespace collcheck {
namespace {

SwingTorus torus(std::vector<uint32_t> dims, SwingTorus::Kind k = SwingTorus::Kind::bandwidth,
                 SwingTorusPeers peers = SwingTorusPeers::signed_rho) {
  return SwingTorus(std::move(dims), k, peers);
}

TEST(SwingTorus, KnownAnswers4x4) {
  const SwingTorus t = torus({4, 4});
  const std::vector<std::vector<Rank>> want = {{4, 1, 12, 3}, {1, 4, 3, 12}, {12, 3, 4, 1}, {3, 12, 1, 4}};
  ASSERT_EQ(t.collectives(), 4);
  ASSERT_EQ(t.plan_steps(), 4);
  for (int c = 0; c < 4; ++c)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(t.peer(0, c, j), want[c][j]) << "collective " << c << " step " << j;
}

TEST(SwingTorus, Figure4FirstStepAtNodeZero) {
  const SwingTorus t = torus({4, 4}, SwingTorus::Kind::latency);
  RankStep rs;
  t.rank_step(0, 0, rs);
  std::multiset<Rank> peers;
  for (const Transfer& x : rs.sends) peers.insert(x.peer);
  EXPECT_EQ(peers, (std::multiset<Rank>{1, 4, 3, 12}));
}

TEST(SwingTorus, NonSquareUsesTheLongDimensionLast) {
  // 2x4: one step on the vertical dimension (side 2), two on the horizontal
  // one; Fig. 5: in step 2 all four collectives are horizontal.
  const SwingTorus t = torus({2, 4});
  ASSERT_EQ(t.plan_steps(), 3);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(t.plan(c, 2).dim, 1) << c;
  EXPECT_EQ(t.square_phase_steps(), 2);
  // 2x4x8: dimensions run round robin and skip the exhausted ones.
  const SwingTorus u = torus({2, 4, 8});
  std::vector<int> dims;
  for (int j = 0; j < u.plan_steps(); ++j) dims.push_back(u.plan(0, j).dim);
  EXPECT_EQ(dims, (std::vector<int>{0, 1, 2, 1, 2, 2}));
}

TEST(SwingTorus, SquareToriFollowOmegaAndSigma) {
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{4, 4}, {8, 8, 8}, {4, 4, 4, 4}}) {
    const SwingTorus t = torus(dims);
    const int D = static_cast<int>(dims.size());
    for (int c = 0; c < 2 * D; ++c)
      for (int s = 0; s < t.plan_steps(); ++s) {
        EXPECT_EQ(t.plan(c, s).dim, (c % D + s) % D);
        EXPECT_EQ(t.plan(c, s).ring_step, s / D);
      }
  }
}

TEST(SwingTorus, PeersAreInvolutionsAlongOneDimension) {
  for (const std::vector<uint32_t>& dims : {std::vector<uint32_t>{2, 2}, {4, 8}, {2, 4, 8}, {16}, {8, 1, 4}}) {
    const SwingTorus t = torus(dims);
    for (Rank r = 0; r < t.p(); ++r)
      for (int c = 0; c < t.collectives(); ++c) {
        std::set<Rank> seen;
        for (int j = 0; j < t.plan_steps(); ++j) {
          const Rank q = t.peer(r, c, j);
          EXPECT_EQ(t.peer(q, c, j), r);
          const auto x = torus_coords(dims, r), y = torus_coords(dims, q);
          int changed = 0;
          for (size_t e = 0; e < dims.size(); ++e) changed += x[e] != y[e];
          EXPECT_EQ(changed, 1);
          EXPECT_TRUE(seen.insert(q).second) << "a repeated peer of collective " << c;
        }
      }
  }
}

TEST(SwingTorus, BandwidthHalvesTheShareEveryStep) {
  const SwingTorus t = torus({4, 8});
  const uint64_t p = t.p();
  RankStep rs, back;
  for (Rank r : {Rank{0}, Rank{13}, Rank{31}})
    for (int j = 0; j < t.plan_steps(); ++j) {
      t.rank_step(r, j, rs);
      t.rank_step(r, 2 * t.plan_steps() - 1 - j, back);
      ASSERT_EQ(rs.sends.size(), 4u);
      for (int c = 0; c < 4; ++c) {
        const Transfer& snd = rs.sends[c];
        EXPECT_EQ(snd.blocks.size(), p >> (j + 1)) << "rank " << r << " step " << j << " collective " << c;
        EXPECT_GE(snd.blocks.ranges().front().lo, c * p);
        EXPECT_LE(snd.blocks.ranges().back().hi, (c + 1) * p);
        EXPECT_EQ(snd.combine, Combine::reduce);
        // The allgather step sends back, as copies, what this step received.
        EXPECT_EQ(back.sends[c].blocks, rs.recvs[c].blocks);
        EXPECT_EQ(back.sends[c].combine, Combine::copy);
      }
    }
}

TEST(SwingTorus, TheUnsignedDeltaOfTheTextRepeatsAPeer) {
  const SwingTorus t = torus({4, 4}, SwingTorus::Kind::latency, SwingTorusPeers::unsigned_delta);
  // sigma = 0 and sigma = 1 both move coordinate 0 by +1.
  EXPECT_EQ(t.peer(0, 0, 0), 4u);
  EXPECT_EQ(t.peer(0, 0, 2), 4u);
}

TEST(SwingTorus, ShapesThatAreNotPowersOfTwoAreRefused) {
  EXPECT_FALSE(swing_torus_shape_problem({4, 4}, 16));
  EXPECT_FALSE(swing_torus_shape_problem({1, 8}, 8));
  const auto why = swing_torus_shape_problem({6, 4}, 24);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("powers of two, got 6"), std::string::npos) << *why;
  EXPECT_TRUE(swing_torus_shape_problem({4, 4}, 32));  // product != p
  EXPECT_TRUE(swing_torus_shape_problem({}, 1));
}

}  // namespace
}  // namespace collcheck
