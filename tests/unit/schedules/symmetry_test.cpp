// The group actions of schedules/symmetry.hpp: each element is a bijection
// with the inverse it claims, g_r(0) = r (the action is regular on ranks),
// block sets map block by block, a rank's step maps transfer by transfer,
// and a group that does not act on an instance is refused with its reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "schedules/input_error.hpp"
#include "schedules/symmetry.hpp"

namespace collcheck {
namespace {

CollectiveSpec allreduce(uint64_t p, uint64_t nb) { return {Collective::allreduce, p, nb, 0}; }

std::vector<std::pair<SymmetryGroup, BlockAction>> actions_on(uint64_t p) {
  std::vector<std::pair<SymmetryGroup, BlockAction>> out = {{SymmetryGroup::translations, BlockAction::as_ranks},
                                                             {SymmetryGroup::translations, BlockAction::fixed}};
  if (p % 2 == 0 || p == 1) {
    out.push_back({SymmetryGroup::swing_dihedral, BlockAction::as_ranks});
    out.push_back({SymmetryGroup::swing_dihedral, BlockAction::fixed});
  }
  return out;
}

TEST(GroupAction, ElementsAreBijectionsWithTheirInverseAndActRegularly) {
  for (uint64_t p = 1; p <= 40; ++p)
    for (auto [g, b] : actions_on(p)) {
      GroupAction a(g, b, allreduce(p, static_cast<uint32_t>(p)));
      std::set<Rank> images_of_zero;
      for (Rank r = 0; r < p; ++r) {
        EXPECT_EQ(a.rank(r, 0), r);
        images_of_zero.insert(a.rank(r, 0));
        std::set<Rank> img;
        for (Rank x = 0; x < p; ++x) {
          img.insert(a.rank(r, x));
          EXPECT_EQ(a.inverse_rank(r, a.rank(r, x)), x);
          EXPECT_EQ(a.inverse_block(r, a.block(r, x)), x);
          if (b == BlockAction::fixed) {
            EXPECT_EQ(a.block(r, x), x);
          }
          // Isometries of the cycle Z_p.
          const Rank y = static_cast<Rank>((x + 1) % p);
          const uint64_t d = (a.rank(r, y) + p - a.rank(r, x)) % p;
          EXPECT_TRUE(d == 1 % p || d == p - 1) << p << " " << r << " " << x;
        }
        EXPECT_EQ(img.size(), p);
      }
      EXPECT_EQ(images_of_zero.size(), p);
    }
}

TEST(GroupAction, SwingDihedralIsEquation2sSymmetry) {
  // g_r(x) = x + r (r even), r - x (r odd).
  GroupAction a(SymmetryGroup::swing_dihedral, BlockAction::as_ranks, allreduce(10, 10));
  EXPECT_EQ(a.rank(2, 7), 9u);
  EXPECT_EQ(a.rank(3, 7), 6u);  // 3 - 7 = -4 = 6 mod 10
  EXPECT_EQ(a.rank(1, 0), 1u);
  EXPECT_TRUE(a.reflects(1));
  EXPECT_FALSE(a.reflects(4));
}

TEST(GroupAction, BlockSetsMapBlockByBlock) {
  std::mt19937_64 rng(7);
  for (uint64_t p = 1; p <= 70; ++p)
    for (auto [g, b] : actions_on(p)) {
      GroupAction a(g, b, allreduce(p, static_cast<uint32_t>(p)));
      for (int trial = 0; trial < 6; ++trial) {
        std::vector<Block> blocks;
        for (Block x = 0; x < p; ++x)
          if (rng() % 3 == 0 || (trial == 0 && x + 1 == p) || (trial == 1)) blocks.push_back(x);
        const BlockSet in = BlockSet::from_blocks(blocks);
        for (Rank r = 0; r < p; r += 1 + static_cast<Rank>(rng() % 3)) {
          BlockSet out;
          a.blocks(r, in, out);
          std::vector<Block> want;
          for (Block x : blocks) want.push_back(a.block(r, x));
          EXPECT_EQ(out, BlockSet::from_blocks(want)) << "p=" << p << " r=" << r << " " << in.to_string();
        }
      }
    }
}

// Blocks as (source, destination) pairs: a set maps as its blocks do, with
// runs that cross rows and wrap within a row (the generators' sets seldom
// do), and the all-to-all's pre- and postcondition move with the ranks.
TEST(GroupAction, PairsMapBlockByBlockAndKeepTheAlltoallsSpecification) {
  std::mt19937_64 rng(11);
  for (uint64_t p = 1; p <= 23; ++p) {
    const CollectiveSpec a2a{Collective::alltoall, p, static_cast<uint32_t>(p * p), 0};
    GroupAction a(SymmetryGroup::translations, BlockAction::pairs, a2a);
    for (Rank r = 0; r < p; ++r)
      for (Block b = 0; b < p * p; ++b) {
        ASSERT_EQ(a.inverse_block(r, a.block(r, b)), b);
        ASSERT_EQ(a2a.initial_contributor(a.rank(r, 0), a.block(r, b)).has_value(),
                  a2a.initial_contributor(0, b).has_value());
        const Requirement before = a2a.required(0, b), after = a2a.required(a.rank(r, 0), a.block(r, b));
        ASSERT_EQ(before.kind, after.kind);
        if (before.kind != Requirement::Kind::none) {
          ASSERT_EQ(after.origin, a.rank(r, before.origin));
        }
      }
    for (int trial = 0; trial < 8; ++trial) {
      BlockSet in;
      std::vector<Block> blocks;
      for (int k = 0; k < 3; ++k) {  // a few runs, some across rows
        const uint64_t lo = rng() % (p * p), len = 1 + rng() % (2 * p);
        for (uint64_t x = lo; x < std::min<uint64_t>(lo + len, p * p); ++x) blocks.push_back(static_cast<Block>(x));
      }
      std::sort(blocks.begin(), blocks.end());
      blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
      in = BlockSet::from_blocks(blocks);
      for (Rank r = 0; r < p; ++r) {
        BlockSet out;
        a.blocks(r, in, out);
        std::vector<Block> want;
        for (Block x : blocks) want.push_back(a.block(r, x));
        EXPECT_EQ(out, BlockSet::from_blocks(want)) << "p=" << p << " r=" << r << " " << in.to_string();
      }
    }
  }
  // Not on another collective, not under another group.
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::translations, BlockAction::pairs, allreduce(4, 16)));
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::swing_dihedral, BlockAction::pairs,
                                   CollectiveSpec{Collective::alltoall, 4, 16, 0}));
  EXPECT_TRUE(GroupAction::invalid(SymmetryGroup::translations, BlockAction::pairs,
                                   CollectiveSpec{Collective::alltoall, 4, 15, 0}));
}

TEST(GroupAction, ShiftActsOnBlocksOfAnAllgather) {
  // allgather with 3 blocks per rank: owner(b) = b / 3, shift h = 3.
  CollectiveSpec ag{Collective::allgather, 5, 15, 0};
  GroupAction a(SymmetryGroup::translations, BlockAction::shift, ag, 3);
  for (Rank r = 0; r < 5; ++r)
    for (Block b = 0; b < 15; ++b) EXPECT_EQ(ag.owner(a.block(r, b)), a.rank(r, ag.owner(b)));
}

TEST(GroupAction, StepMapsPeersAndBlocksKeepingOrderAndCombine) {
  GroupAction a(SymmetryGroup::swing_dihedral, BlockAction::as_ranks, allreduce(8, 8));
  RankStep rep;
  rep.add_send(1, Combine::reduce).blocks = BlockSet::range(1, 3);
  rep.add_recv(1, Combine::copy).blocks = BlockSet::single(0);
  RankStep out;
  a.step(3, rep, out);  // x -> 3 - x
  ASSERT_EQ(out.sends.size(), 1u);
  EXPECT_EQ(out.sends[0].peer, 2u);
  EXPECT_EQ(out.sends[0].blocks, BlockSet::range(1, 3));  // {3-1, 3-2} = {2, 1}
  EXPECT_EQ(out.sends[0].combine, Combine::reduce);
  ASSERT_EQ(out.recvs.size(), 1u);
  EXPECT_EQ(out.recvs[0].peer, 2u);
  EXPECT_EQ(out.recvs[0].blocks, BlockSet::single(3));
  EXPECT_EQ(out.recvs[0].combine, Combine::copy);
}

TEST(GroupAction, RefusesWhatItDoesNotActOn) {
  auto why = [](SymmetryGroup g, BlockAction b, CollectiveSpec s, Block h = 0) {
    auto w = GroupAction::invalid(g, b, s, h);
    return w ? *w : std::string();
  };
  EXPECT_NE(why(SymmetryGroup::swing_dihedral, BlockAction::fixed, allreduce(7, 1)).find("even number of ranks"),
            std::string::npos);
  EXPECT_NE(why(SymmetryGroup::translations, BlockAction::as_ranks, allreduce(6, 12)).find("one block per rank"),
            std::string::npos);
  EXPECT_NE(why(SymmetryGroup::translations, BlockAction::fixed, {Collective::broadcast, 4, 4, 0}).find("root"),
            std::string::npos);
  EXPECT_NE(why(SymmetryGroup::translations, BlockAction::fixed, {Collective::allgather, 4, 4, 0}).find("owns"),
            std::string::npos);
  EXPECT_NE(why(SymmetryGroup::swing_dihedral, BlockAction::shift, allreduce(4, 4), 1).find("translations only"),
            std::string::npos);
  EXPECT_NE(why(SymmetryGroup::undeclared, BlockAction::fixed, allreduce(4, 4)), "");
  EXPECT_EQ(why(SymmetryGroup::swing_dihedral, BlockAction::fixed, allreduce(1, 1)), "");
  EXPECT_THROW(GroupAction(SymmetryGroup::swing_dihedral, BlockAction::as_ranks, allreduce(9, 9)), InputError);
}

// An equivariant schedule's rank r is g_r of its representative, whatever
// the representative is.
class TwoStepRep final : public EquivariantSchedule {
 public:
  explicit TwoStepRep(uint64_t p)
      : spec_{Collective::allreduce, p, static_cast<uint32_t>(p), 0},
        action_(SymmetryGroup::swing_dihedral, BlockAction::as_ranks, spec_) {}
  const CollectiveSpec& spec() const override { return spec_; }
  int num_steps() const override { return 2; }
  void representative_step(int s, RankStep& out) const override {
    out.clear();
    out.add_send(static_cast<Rank>(1 + 2 * s), Combine::reduce).blocks = BlockSet::range(0, static_cast<Block>(s + 2));
  }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return "test"; }

 private:
  CollectiveSpec spec_;
  GroupAction action_;
};

TEST(EquivariantSchedule, EveryRankIsTheImageOfTheRepresentative) {
  TwoStepRep s(12);
  RankStep rep, mine, want;
  for (int st = 0; st < 2; ++st) {
    s.representative_step(st, rep);
    for (Rank r = 0; r < 12; ++r) {
      s.rank_step(r, st, mine);
      s.action().step(r, rep, want);
      EXPECT_EQ(mine, want);
    }
  }
}

}  // namespace
}  // namespace collcheck
