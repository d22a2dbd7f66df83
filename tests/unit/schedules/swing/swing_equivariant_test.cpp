// The faithfulness half of Swing's certificate (schedules/swing/
// swing_equivariant.hpp): every registered Swing schedule built as the
// swing-dihedral image of rank 0 equals the direct per-rank generator (Eq. 2
// and Listing 1 evaluated at every rank), for every rank and step, for every
// even p <= 256 and every reading, and for larger p on the default; and the
// registry hands out the equivariant form exactly where the group acts.
#include <gtest/gtest.h>

#include "schedules/fold.hpp"
#include "schedules/input_error.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_bandwidth_contiguous.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_latency.hpp"
#include "tests/support/same_schedule.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

using test::expect_equal_everywhere;

std::vector<SwingSendRule> every_rule() {
  std::vector<SwingSendRule> out;
  for (SwingStepSet sets : {SwingStepSet::peer, SwingStepSet::printed})
    for (SwingKeep keep : {SwingKeep::every, SwingKeep::earlier, SwingKeep::later, SwingKeep::last_step})
      for (bool own : {false, true}) out.push_back({sets, keep, own});
  return out;
}

TEST(SwingEquivariant, BandwidthImageOfRankZeroIsListing1AtEveryRank) {
  for (const SwingSendRule& rule : every_rule())
    for (uint64_t p = 2; p <= 256; p += 2) {
      const std::string what = "p=" + std::to_string(p) + " sets=" + std::to_string(int(rule.sets)) +
                               " keep=" + std::to_string(int(rule.keep)) + " own=" + std::to_string(rule.skip_own);
      auto eq = swing_equivariant(make_swing_bandwidth(p, rule), BlockAction::as_ranks);
      ASSERT_NE(dynamic_cast<const EquivariantSchedule*>(eq.get()), nullptr) << what;
      expect_equal_everywhere(*make_swing_bandwidth(p, rule), *eq, what);
    }
}

TEST(SwingEquivariant, DefaultBandwidthAtLargerP) {
  for (uint64_t p : {1000u, 1024u, 2046u, 2048u}) {
    auto eq = swing_equivariant(make_swing_bandwidth(p), BlockAction::as_ranks);
    expect_equal_everywhere(*make_swing_bandwidth(p), *eq, "p=" + std::to_string(p));
  }
}

TEST(SwingEquivariant, LatencyImageOfRankZeroIsEquation2AtEveryRank) {
  for (uint64_t p = 2; p <= 512; p += 2) {
    auto eq = swing_equivariant(std::make_unique<SwingLatencyRing>(p), BlockAction::fixed);
    ASSERT_NE(dynamic_cast<const EquivariantSchedule*>(eq.get()), nullptr);
    expect_equal_everywhere(SwingLatencyRing(p), *eq, "p=" + std::to_string(p));
  }
}

// The contiguous numbering (blocks renumbered, BlockAction::renumbered_ranks):
// every rank's step of the image equals the contiguous generator's, p = 1..2^12.
TEST(SwingEquivariant, ContiguousImageIsTheContiguousGeneratorAtEveryRank) {
  for (uint64_t p = 1; p <= 4096; p *= 2) {
    auto eq = swing_contiguous_equivariant(p);
    ASSERT_NE(dynamic_cast<const EquivariantSchedule*>(eq.get()), nullptr) << p;
    expect_equal_everywhere(SwingBandwidthContiguous(p), *eq, "contiguous p=" + std::to_string(p));
  }
}

// A renumbering that is not the schedule's makes images that are not the
// algorithm's ranks: the comparison above would catch it.
TEST(SwingEquivariant, AWrongRenumberingIsCaught) {
  const uint64_t p = 16;
  SwingBandwidthContiguous direct(p);
  std::vector<Block> pos(p);
  for (Rank x = 0; x < p; ++x) pos[x] = direct.position(x);
  std::swap(pos[1], pos[2]);
  SwingEquivariant wrong(std::make_unique<SwingBandwidthContiguous>(p), pos);
  RankStep a, b;
  bool same = true;
  for (int s = 0; s < direct.num_steps() && same; ++s)
    for (Rank r = 0; r < p && same; ++r) {
      direct.rank_step(r, s, a);
      wrong.rank_step(r, s, b);
      same = a == b;
    }
  EXPECT_FALSE(same) << "a wrong renumbering made the same steps";
  std::vector<Block> dup(p, 0);
  EXPECT_THROW(SwingEquivariant(std::make_unique<SwingBandwidthContiguous>(p), dup), InputError);
}

TEST(SwingEquivariant, OddRingsStayDirect) {
  for (uint64_t p : {3u, 7u, 101u}) {
    auto s = swing_equivariant(std::make_unique<SwingLatencyRing>(p), BlockAction::fixed);
    EXPECT_EQ(dynamic_cast<const EquivariantSchedule*>(s.get()), nullptr) << p;
  }
}

TEST(SwingEquivariant, RegistryDeclaresAndBuildsTheEquivariantFormWhereTheGroupActs) {
  const AlgorithmInfo& swing = test::registered_algorithm("swing");
  int declared = 0, torus = 0;
  for (const VariantInfo& v : swing.variants) {
    if (v.symmetry == SymmetryGroup::undeclared) continue;
    if (v.symmetry == SymmetryGroup::torus_swing_dihedral) {  // the torus variants (swing_torus_equivariant_test.cpp)
      EXPECT_TRUE(v.takes("dims")) << v.name;
      ++torus;
      continue;
    }
    EXPECT_EQ(v.symmetry, SymmetryGroup::swing_dihedral) << v.name;
    ++declared;
    for (uint64_t p = 1; p <= 64; ++p) {
      InstanceParams ip;
      ip.p = p;
      if (v.violates(ip)) continue;
      auto s = v.make(ip);
      const bool eq = dynamic_cast<const EquivariantSchedule*>(s.get()) != nullptr;
      // Equivariant exactly where no fold wraps the ring and the group acts:
      // latency at powers of two, every other declared variant at even p
      // (the readings take nothing else) and p = 1.
      const bool pow2 = (p & (p - 1)) == 0;
      const bool want = v.name == "latency" ? pow2 : (p % 2 == 0 || p == 1);  // (contiguous: p a power of two)
      EXPECT_EQ(eq, want) << v.name << " p=" << p;
    }
  }
  // bandwidth, latency, bandwidth-contiguous, the 7 readings of Listing 1, paper-latency.
  EXPECT_EQ(declared, 11);
  EXPECT_EQ(torus, 4);  // torus-bandwidth, torus-latency, and the two paper-delta readings
  EXPECT_EQ(test::registered_variant("swing", "paper-odd").symmetry, SymmetryGroup::undeclared);
}

}  // namespace
}  // namespace collcheck
