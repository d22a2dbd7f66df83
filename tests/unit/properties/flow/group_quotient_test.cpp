// The grouped quotient (properties/flow/group_quotient.hpp) and rank 0's
// Listing 1 masks (properties/swing/swing_rank_zero_masks.hpp):
//   * the masks are the direct generator's rank 0 sets, for every reading;
//   * every check through the grouped quotient equals the cell-by-cell
//     quotient's (status, checks, violations, counterexample), for every
//     Swing ring reading at every even p up to 160, the default to 512 and
//     at larger p (tests/slow: every even p to 4096 and 2^14..2^14+2048),
//     and the default is decided by the groups;
//   * a defect injected into rank 0's masks is never certified (rapidcheck),
//     and a forged peer set (matching) is refused.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <memory>

#include "properties/family_property.hpp"
#include "properties/flow/group_quotient.hpp"
#include "properties/swing/swing_rank_zero_masks.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/swing/swing_math.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

using Mask = std::vector<uint64_t>;

Mask mask_of(const BlockSet& b, uint64_t m) {
  Mask x((m + 63) / 64, 0);
  b.for_each([&](Block v) { x[v / 64] |= uint64_t{1} << (v % 64); });
  return x;
}

void expect_masks_match(uint64_t m, const SwingSendRule& rule, const std::string& what) {
  SwingBandwidthRing ring(CollectiveSpec{Collective::allreduce, m, static_cast<uint32_t>(m), 0}, m, rule);
  const auto masks = swing::rank_zero_rs_masks(m, rule);
  ASSERT_EQ(masks.size(), static_cast<size_t>(ring.swing_steps())) << what;
  for (int t = 0; t < ring.swing_steps(); ++t)
    ASSERT_EQ(masks[static_cast<size_t>(t)], mask_of(ring.rs_send(0, t), m)) << what << " m=" << m << " step " << t;
}

TEST(SwingRankZeroMasks, EqualTheGeneratorsSetsForEveryReading) {
  for (SwingStepSet sets : {SwingStepSet::peer, SwingStepSet::printed})
    for (SwingKeep keep : {SwingKeep::every, SwingKeep::earlier, SwingKeep::later, SwingKeep::last_step})
      for (bool skip_own : {false, true}) {
        const SwingSendRule rule{sets, keep, skip_own};
        const std::string what = "sets " + std::to_string(int(sets)) + " keep " + std::to_string(int(keep)) +
                                 " skip_own " + std::to_string(skip_own);
        for (uint64_t m = 2; m <= 1024; m += 2) expect_masks_match(m, rule, what);
      }
}

TEST(SwingRankZeroMasks, EqualTheGeneratorsSetsForTheDefaultToFourThousandAndBeyond) {
  for (uint64_t m = 2; m <= 4096; m += 2) expect_masks_match(m, SwingSendRule{}, "bandwidth");
  for (uint64_t m : {4098u, 6000u, 16382u, 65536u, 100000u}) expect_masks_match(m, SwingSendRule{}, "bandwidth");
}

TEST(SwingRankZeroMasks, OnlyTheEquivariantRings) {
  EXPECT_TRUE(swing::rank_zero_rs_masks(7, SwingSendRule{}).empty());
  EXPECT_FALSE(swing::swing_mask_schedule(*make_swing_bandwidth(8)));  // not wrapped: no certificate
  // The latency-optimal ring (one block) has its own masks; its folds do not.
  const VariantInfo& latency = test::registered_variant("swing", "latency");
  EXPECT_TRUE(swing::swing_mask_schedule(*latency.make(InstanceParams{8, 0})));
  EXPECT_FALSE(swing::swing_mask_schedule(*latency.make(InstanceParams{12, 0})));
  EXPECT_FALSE(swing::swing_mask_schedule(*test::registered_variant("swing", "bandwidth-contiguous")
                                               .make(InstanceParams{8, 0})));
  const VariantInfo& bw = test::registered_variant("swing", "bandwidth");
  EXPECT_TRUE(swing::swing_mask_schedule(*bw.make(InstanceParams{8, 0})));
  EXPECT_FALSE(swing::swing_mask_schedule(*bw.make(InstanceParams{9, 0})));  // a fold
}

// The quotient's own result: a refutation is not re-checked by enumeration
// (exact_max_p = 1), so a wrong count or counterexample would show.
InstanceCheck check(const VariantInfo& v, uint64_t p, bool grouped) {
  CheckOptions o;
  o.grouped_quotient = grouped;
  o.exact_max_p = 1;
  return test::check_variant(v, p, o);
}

bool by_groups(const InstanceCheck& c) {
  return c.stats.count("method") && c.stats.at("method").find("groups of blocks") != std::string::npos;
}

TEST(GroupQuotient, EqualsTheCellQuotientForEverySwingRingReading) {
  const AlgorithmInfo& swing = test::registered_algorithm("swing");
  int readings = 0, refuted_by_groups = 0;
  for (const VariantInfo& v : swing.variants) {
    if (v.symmetry != SymmetryGroup::swing_dihedral || v.name == "latency" || v.name == "bandwidth-contiguous") continue;
    ++readings;
    // Every reading to 160, the default to 512 (the slow label goes to 4096
    // and beyond). Both quotients' own verdicts: no re-check by enumeration
    // (check() below), which would replace a disagreeing result.
    for (uint64_t p = 2; p <= (v.name == "bandwidth" ? 512u : 160u); p += 2) {
      if (v.violates(InstanceParams{p, 0})) continue;
      const InstanceCheck grouped = check(v, p, true), cells = check(v, p, false);
      test::expect_same_verdicts(grouped, cells, v.name + " p=" + std::to_string(p));
      // Every reading is decided by the groups, violations included.
      EXPECT_TRUE(by_groups(grouped)) << v.name << " p=" << p << " "
                                      << (grouped.stats.count("grouped_declined") ? grouped.stats.at("grouped_declined")
                                                                                  : "");
      const bool refuted = std::any_of(grouped.verdicts.begin(), grouped.verdicts.end(),
                                       [](const Verdict& x) { return x.status == Status::violated; });
      if (refuted && by_groups(grouped)) ++refuted_by_groups;
    }
  }
  EXPECT_GE(readings, 8);
  EXPECT_GT(refuted_by_groups, 100);  // the refuted readings' counts and counterexamples, from the groups
}

TEST(GroupQuotient, EqualsTheCellQuotientForTheDefaultAtLargerP) {
  const VariantInfo& v = test::registered_variant("swing", "bandwidth");
  for (uint64_t p : {1534u, 2048u, 4094u, 4096u, 6002u, 16384u, 16386u}) {
    const InstanceCheck grouped = check(v, p, true), cells = check(v, p, false);
    EXPECT_TRUE(by_groups(grouped)) << p;
    test::expect_same_verdicts(grouped, cells, "p=" + std::to_string(p));
  }
}

// A MaskSchedule over given reduce-scatter masks, mirrored as Swing's.
struct OwnedMasks {
  std::unique_ptr<Schedule> schedule;  // the registry's instance (the group and spec)
  std::vector<Mask> rs;
  Mask image;
  flow::MaskSchedule ms;
};

std::unique_ptr<OwnedMasks> swing_masks_with(uint64_t p, std::vector<Mask> rs) {
  auto o = std::make_unique<OwnedMasks>();
  o->schedule = test::registered_variant("swing", "bandwidth").make(InstanceParams{p, 0});
  const auto* eq = dynamic_cast<const EquivariantSchedule*>(o->schedule.get());
  o->rs = std::move(rs);
  o->image.assign((p + 63) / 64, 0);
  const int L = static_cast<int>(o->rs.size());
  o->ms.action = &eq->action();
  o->ms.spec = o->schedule->spec();
  o->ms.steps = 2 * L;
  o->ms.ports = 1;
  OwnedMasks* self = o.get();
  o->ms.exchange = [self, L, p](int st, flow::MaskExchange& out, bool& active) {
    active = true;
    const bool rs = st < L;
    const int t = rs ? st : 2 * L - 1 - st;
    const Rank q = swing::pi(0, t, p);
    const Mask& S = self->rs[static_cast<size_t>(t)];
    flow::map_mask(*self->ms.action, q, S.data(), self->image.data());
    out.peer = q;
    out.combine = rs ? Combine::reduce : Combine::copy;
    out.send = rs ? S.data() : self->image.data();
    out.recv = rs ? self->image.data() : S.data();
  };
  return o;
}

TEST(GroupQuotient, CertifiesTheUnchangedMasks) {
  for (uint64_t p : {2u, 6u, 10u, 64u, 1534u}) {
    auto o = swing_masks_with(p, swing::rank_zero_rs_masks(p, SwingSendRule{}));
    std::string why;
    const auto r = flow::run_group_quotient(o->ms, StepHook{}, &why);
    ASSERT_TRUE(r) << p << ": " << why;
    EXPECT_TRUE(r->every_copy_superset) << p;
    EXPECT_EQ(r->result.cost.max_volume, 2 * (p - 1)) << p;
  }
}

// One block added to or removed from one reduce-scatter step of rank 0 (and
// so of every rank, mapped): the flow fails, or the volume is no longer the
// claimed 2(p-1) blocks; the grouped quotient never certifies such a
// schedule with the default's volume.
RC_GTEST_PROP(GroupQuotient, AFlippedBlockOfRankZeroIsNeverCertified, ()) {
  const uint64_t p = 2 * *rc::gen::inRange<uint64_t>(2, 200);
  auto rs = swing::rank_zero_rs_masks(p, SwingSendRule{});
  const auto t = *rc::gen::inRange<size_t>(0, rs.size());
  const auto b = *rc::gen::inRange<uint64_t>(0, p);
  rs[t][b / 64] ^= uint64_t{1} << (b % 64);
  auto o = swing_masks_with(p, std::move(rs));
  std::string why;
  const auto r = flow::run_group_quotient(o->ms, StepHook{}, &why);
  RC_ASSERT(!r || r->result.cost.max_volume != 2 * (p - 1));
}

// A copy over a set it does not contain, carrying as many contributions:
// no causality report (the count rule), but the result says so, and the
// fold composition (which needs supersets) will not compose such a core.
// p = 2, one copy step: rank 0's block 1 receives g_1 of its block 0, {1}
// over {0}.
TEST(GroupQuotient, ACopyOverASetItDoesNotContainIsSaid) {
  auto o = swing_masks_with(2, {});
  static const uint64_t kBlockOne = 2;
  o->ms.steps = 1;
  o->ms.exchange = [](int st, flow::MaskExchange& out, bool& active) {
    active = st == 0;
    out.peer = 1;
    out.combine = Combine::copy;
    out.send = nullptr;
    out.recv = &kBlockOne;
    out.other_is_image = true;
  };
  std::string why;
  const auto r = flow::run_group_quotient(o->ms, StepHook{}, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->every_copy_superset);
  EXPECT_EQ(r->result.verdicts[flow::kCausality].status, Status::holds);
  EXPECT_EQ(r->result.verdicts[flow::kPostcondition].status, Status::violated);
  EXPECT_EQ(r->result.verdicts[flow::kPostcondition].violations, 2u * 2u);  // both blocks of both ranks lack one
}

TEST(GroupQuotient, RefusesAPeerSetThatIsNotTheImage) {
  const uint64_t p = 12;
  auto o = swing_masks_with(p, swing::rank_zero_rs_masks(p, SwingSendRule{}));
  Mask forged;
  auto inner = o->ms.exchange;
  o->ms.exchange = [&](int st, flow::MaskExchange& out, bool& active) {
    inner(st, out, active);
    if (st != 1) return;
    forged.assign(out.recv, out.recv + 1);
    forged[0] ^= 1u << 3;  // rank 0 expects one block more or less than its peer sends
    out.recv = forged.data();
  };
  std::string why;
  EXPECT_FALSE(flow::run_group_quotient(o->ms, StepHook{}, &why));
  EXPECT_NE(why.find("matching"), std::string::npos) << why;
}

TEST(GroupQuotient, DeclinesWhatItDoesNotCover) {
  // Rooted collectives, blocks fixed, and a hook that may judge ranks of an
  // orbit differently go to the cell quotient.
  auto o = swing_masks_with(8, swing::rank_zero_rs_masks(8, SwingSendRule{}));
  StepHook h;
  h.property = "some-hook";
  h.at_step = [](int) { return StepHook::RankCheck{}; };
  std::string why;
  EXPECT_FALSE(flow::run_group_quotient(o->ms, h, &why));
  EXPECT_NE(why.find("some-hook"), std::string::npos);
  o->ms.spec.kind = Collective::broadcast;
  EXPECT_FALSE(flow::run_group_quotient(o->ms, StepHook{}, &why));
  // Too many groups for the cap: declines, never a partial verdict.
  o->ms.spec.kind = Collective::allreduce;
  EXPECT_FALSE(flow::run_group_quotient(o->ms, StepHook{}, &why, 1));
  EXPECT_NE(why.find("distinct contribution sets"), std::string::npos) << why;
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

// reflect_bits and rotate_bits against their definitions, bit by bit, for
// every p <= 300 and every centre / shift (the grouped quotient maps every
// contribution set through them).
TEST(MaskMaps, ReflectAndRotateAreTheirDefinitions) {
  for (uint64_t p = 1; p <= 300; ++p) {
    const size_t W = (p + 63) / 64;
    std::vector<uint64_t> src(W, 0), dst(W), want(W);
    uint64_t seed = p * 0x9E3779B97F4A7C15ULL;
    for (uint64_t x = 0; x < p; ++x) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      if (seed >> 63) src[x / 64] |= uint64_t{1} << (x % 64);
    }
    for (uint64_t c = 0; c < p; ++c) {
      std::fill(want.begin(), want.end(), 0);
      for (uint64_t y = 0; y < p; ++y)
        if ((src[((c + p - y) % p) / 64] >> ((c + p - y) % p % 64)) & 1) want[y / 64] |= uint64_t{1} << (y % 64);
      flow::reflect_bits(dst.data(), src.data(), p, c);
      ASSERT_EQ(dst, want) << "reflect p=" << p << " c=" << c;
      std::fill(want.begin(), want.end(), 0);
      for (uint64_t y = 0; y < p; ++y)
        if ((src[((y + p - c) % p) / 64] >> ((y + p - c) % p % 64)) & 1) want[y / 64] |= uint64_t{1} << (y % 64);
      flow::rotate_bits(dst.data(), src.data(), p, c);
      ASSERT_EQ(dst, want) << "rotate p=" << p << " q=" << c;
    }
  }
}

}  // namespace
}  // namespace collcheck
