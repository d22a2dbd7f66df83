// The certified quotient (properties/flow/flow_rotation.hpp, run_quotient):
//   * reflect_bits against a bit-by-bit reflection;
//   * for every registered variant that declares a symmetry, the quotient's
//     verdicts equal the enumerated ones (same status, checks, violations and
//     minimal counterexample) with the family's step hook and claim, for
//     every p in 1..128 (tests/slow/ goes to 1024), holding instances and the
//     paper readings collcheck refutes alike;
//   * a defect in the representative is found by the quotient, exactly as
//     enumeration finds it in the same schedule;
//   * a refutation by the quotient is re-checked by enumeration up to
//     --exact-max-p, and only there;
//   * what the quotient declines is enumerated, and says why;
//   * rank 0's cells as runs of ranks (run_cells.hpp, used over the p-bit
//     budget) give the p-bit sets' verdicts, counts and counterexamples.
#include <gtest/gtest.h>

#include <random>

#include "properties/plan/decision_plan.hpp"
#include "properties/family_property.hpp"
#include "properties/flow/flow_rotation.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "checker/sweep/sweep.hpp"
#include "schedules/swing/swing_bandwidth.hpp"
#include "schedules/swing/swing_equivariant.hpp"
#include "schedules/tra/tra.hpp"
#include "schedules/translation_equivariant.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

TEST(Quotient, ReflectBitsMatchesBitByBit) {
  std::mt19937_64 rng(11);
  for (uint64_t p = 1; p <= 200; ++p) {
    const size_t words = (p + 63) / 64;
    std::vector<uint64_t> src(words, 0), dst(words, 0);
    for (uint64_t x = 0; x < p; ++x)
      if (rng() % 2) src[x / 64] |= uint64_t{1} << (x % 64);
    for (uint64_t c = 0; c < p; c += 1 + rng() % 5) {
      flow::reflect_bits(dst.data(), src.data(), p, c);
      for (uint64_t y = 0; y < 64 * words; ++y) {
        const bool got = (dst[y / 64] >> (y % 64)) & 1;
        const uint64_t x = (c + p - y % p) % p;
        const bool want = y < p && ((src[x / 64] >> (x % 64)) & 1);
        ASSERT_EQ(got, want) << "p=" << p << " c=" << c << " y=" << y;
      }
    }
  }
}

using test::by_quotient;

InstanceCheck check(const Schedule& s, const Claim* claim, const StepHook& hook, bool symmetry) {
  return test::check_exact(s, claim, hook, symmetry);
}

// The quotient against enumeration for every declared variant, p in [lo, hi].
void compare_declared_variants(uint64_t lo, uint64_t hi, uint64_t stride = 1) {
  int quotient = 0, quotient_violated = 0;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      if (v.symmetry == SymmetryGroup::undeclared) continue;
      for (uint64_t p = lo; p <= hi; p += stride) {
        InstanceParams ip;
        ip.p = p;
        if (v.violates && v.violates(ip)) continue;
        auto s = v.make(ip);
        const Claim claim = v.claim(ip);
        const StepHook hook = family_step_hook(v, ip);
        const std::string what = a.name + "/" + v.name + " p=" + std::to_string(p);
        InstanceCheck q = check(*s, &claim, hook, true), e = check(*s, &claim, hook, false);
        EXPECT_FALSE(by_quotient(e)) << what;
        EXPECT_EQ(q.stats.count("quotient_disagreed"), 0u) << what << ": " << q.stats["quotient_disagreed"];
        test::expect_same_verdicts(q, e, what);
        EXPECT_EQ(q.stats.at("steps"), e.stats.at("steps")) << what;
        EXPECT_EQ(q.stats.at("max_volume_blocks"), e.stats.at("max_volume_blocks")) << what;
        const bool equivariant = dynamic_cast<const EquivariantSchedule*>(s.get()) != nullptr;
        // Equivariant: by the quotient, unless rank 0 receives one block twice
        // in one step where the order of the receives matters (Trivance's
        // every-path readings), which the quotient's argument does not cover.
        const std::string declined = q.stats.count("quotient_declined") ? q.stats.at("quotient_declined") : "";
        if (equivariant && !by_quotient(q))
          EXPECT_EQ(declined.rfind("rank 0 receives one block twice in one step", 0), 0u) << what << ": " << declined;
        else
          EXPECT_EQ(by_quotient(q), equivariant) << what << " declined: " << declined;
        if (by_quotient(q)) {
          ++quotient;
          quotient_violated += combined_status(q.verdicts) == Status::violated;
        }
      }
    }
  // The quotient ran, on holding instances and on refuted readings.
  EXPECT_GT(quotient, 100);
  EXPECT_GT(quotient_violated, 30);
}

TEST(Quotient, SameVerdictsAsEnumerationForEveryDeclaredVariantTo128) { compare_declared_variants(1, 128); }

// Rank 0 of `inner` with one block dropped from its step-1 send and from the
// matching receive: every rank inherits the defect (it is in the
// representative), the quotient must find it, as enumeration does. By
// default the Swing schedule (swing-dihedral, blocks as ranks); also TRA
// (translations, blocks as (source, destination) pairs).
class DefectiveRepresentative final : public EquivariantSchedule {
 public:
  explicit DefectiveRepresentative(uint64_t p)
      : DefectiveRepresentative(make_swing_bandwidth(p), SymmetryGroup::swing_dihedral, BlockAction::as_ranks) {}
  DefectiveRepresentative(std::unique_ptr<Schedule> inner, SymmetryGroup g, BlockAction blocks)
      : inner_(std::move(inner)), action_(g, blocks, inner_->spec()) {}
  const CollectiveSpec& spec() const override { return inner_->spec(); }
  int num_steps() const override { return inner_->num_steps(); }
  void representative_step(int s, RankStep& out) const override {
    inner_->rank_step(0, s, out);
    if (s != 1) return;
    // Drop the lowest block of the send; the receive from the same peer is
    // g_q of the send, so drop its image there too.
    Transfer& snd = out.sends.at(0);
    const Block b = snd.blocks.ranges().front().lo;
    snd.blocks.erase(b);
    Transfer& rcv = out.recvs.at(0);
    rcv.blocks.erase(action_.block(rcv.peer, b));
  }
  const GroupAction& action() const override { return action_; }
  std::string certificate() const override { return "test"; }

 private:
  std::unique_ptr<Schedule> inner_;
  GroupAction action_;
};

TEST(Quotient, DefectInTheRepresentativeIsFoundAsEnumerationFindsIt) {
  for (uint64_t p : {4u, 6u, 8u, 16u, 30u}) {
    DefectiveRepresentative s(p);
    InstanceCheck q = check(s, nullptr, {}, true), e = check(s, nullptr, {}, false);
    ASSERT_TRUE(by_quotient(q)) << p;
    EXPECT_EQ(combined_status(q.verdicts), Status::violated) << p;
    test::expect_same_verdicts(q, e, "defective representative p=" + std::to_string(p));
  }
}

// The same for an all-to-all (blocks as (source, destination) pairs, rank
// 0's held cells only): TRA with the defect in rank 0's step 1.
TEST(Quotient, AllToAllPairsDecideAndFindADefectInTheRepresentative) {
  for (uint64_t p : {4u, 7u, 9u, 16u, 33u})
    for (uint64_t r : {2u, 3u}) {
      const std::string what = "tra p=" + std::to_string(p) + " r=" + std::to_string(r);
      auto good = alltoall_translation_equivariant(std::make_unique<Tra>(p, r), "test");
      ASSERT_NE(dynamic_cast<const EquivariantSchedule*>(good.get()), nullptr) << what;
      InstanceCheck q = check(*good, nullptr, {}, true), e = check(*good, nullptr, {}, false);
      ASSERT_TRUE(by_quotient(q)) << what;
      EXPECT_NE(q.stats.at("method").find("the blocks it holds only"), std::string::npos) << q.stats.at("method");
      EXPECT_EQ(combined_status(q.verdicts), Status::holds) << what;
      test::expect_same_verdicts(q, e, what);
      DefectiveRepresentative bad(std::make_unique<Tra>(p, r), SymmetryGroup::translations, BlockAction::pairs);
      InstanceCheck qb = check(bad, nullptr, {}, true), eb = check(bad, nullptr, {}, false);
      ASSERT_TRUE(by_quotient(qb)) << what;
      EXPECT_EQ(combined_status(qb.verdicts), Status::violated) << what;
      test::expect_same_verdicts(qb, eb, "defective " + what);
      // The sparse cells against p-bit sets and runs over the whole row.
      std::string why;
      auto sparse = flow::run_quotient(bad, {}, &why, flow::QuotientCells::sparse);
      auto bits = flow::run_quotient(bad, {}, &why, flow::QuotientCells::bits);
      ASSERT_TRUE(sparse && bits) << why;
      for (size_t i = 0; i < bits->verdicts.size(); ++i)
        test::expect_same_verdict(sparse->verdicts[i], bits->verdicts[i], what + " slot " + std::to_string(i));
    }
}

// The held-cell estimate counts the blocks rank 0 really sends and receives
// (summed over the steps), not steps x the largest step: at a radix near
// sqrt P the two differ by about K (2000 here), and the product once
// refused instances the quotient decides in a few MiB (fuzz at p = 32767,
// r = 14036, with 17.7 GiB).
TEST(Quotient, AllToAllHeldCellsAreSizedByWhatRankZeroMoves) {
  auto s = alltoall_translation_equivariant(std::make_unique<Tra>(4093, 2000), "test");
  CheckOptions o;
  o.max_memory = uint64_t{64} << 20;
  const MemoryEstimate m = estimate_memory(*s, o);
  EXPECT_LT(m.bytes, o.max_memory) << m.how;
  const InstanceCheck c = check_schedule(*s, nullptr, {}, o);
  EXPECT_FALSE(c.refused) << c.refused->reason;
  EXPECT_TRUE(by_quotient(c)) << (c.stats.count("quotient_declined") ? c.stats.at("quotient_declined") : "");
  EXPECT_EQ(combined_status(c.verdicts), Status::holds);
}

TEST(Quotient, MethodNamesGroupAndCertificate) {
  const VariantInfo& v = *find_algorithm("swing")->find_variant("bandwidth");
  InstanceParams ip;
  ip.p = 12;
  auto s = v.make(ip);
  InstanceCheck q = check(*s, nullptr, family_step_hook(v, ip), true);
  const std::string m = q.stats.at("method");
  EXPECT_EQ(m.rfind("quotient: swing-dihedral", 0), 0u) << m;
  EXPECT_NE(m.find("certificate: construction"), std::string::npos) << m;
  EXPECT_NE(m.find("swing-peer-equivariance"), std::string::npos) << m;
}

TEST(Quotient, RefutationsAreRecheckedByEnumerationUpToRecheckMaxPAndExactMaxP) {
  const VariantInfo& v = *find_algorithm("swing")->find_variant("paper-listing1");
  InstanceParams ip;
  ip.p = 24;
  auto s = v.make(ip);
  CheckOptions o;
  o.exactness = Exactness::exact;
  InstanceCheck c = check_schedule(*s, nullptr, family_step_hook(v, ip), o);
  ASSERT_TRUE(by_quotient(c));
  ASSERT_EQ(combined_status(c.verdicts), Status::violated);
  EXPECT_EQ(c.stats.at("quotient_rechecked"), "the enumerated exact check agrees");
  // Above either bound (or with re-checks off): the quotient's verdict alone.
  for (auto [exact_max_p, recheck_max_p] : {std::pair<uint64_t, uint64_t>{16, 256}, {1024, 16}, {1024, 0}}) {
    o.exact_max_p = exact_max_p;
    o.recheck_max_p = recheck_max_p;
    c = check_schedule(*s, nullptr, family_step_hook(v, ip), o);
    ASSERT_TRUE(by_quotient(c));
    EXPECT_EQ(combined_status(c.verdicts), Status::violated);
    EXPECT_EQ(c.stats.count("quotient_rechecked"), 0u) << exact_max_p << " " << recheck_max_p;
  }
  o.recheck_max_p = 24;  // at the bound: re-checked
  c = check_schedule(*s, nullptr, family_step_hook(v, ip), o);
  EXPECT_EQ(c.stats.count("quotient_rechecked"), 1u);
  // A holding instance is not re-checked.
  const VariantInfo& d = *find_algorithm("swing")->find_variant("bandwidth");
  auto h = d.make(ip);
  c = check_schedule(*h, nullptr, family_step_hook(d, ip), CheckOptions{});
  ASSERT_TRUE(by_quotient(c));
  EXPECT_EQ(c.stats.count("quotient_rechecked"), 0u);
}

TEST(Quotient, AHookThatMayJudgeRanksDifferentlyIsEnumerated) {
  const VariantInfo& v = *find_algorithm("swing")->find_variant("bandwidth");
  InstanceParams ip;
  ip.p = 8;
  auto s = v.make(ip);
  StepHook hook = family_step_hook(v, ip);
  ASSERT_TRUE(hook.invariant_under_ring_isometries);
  hook.invariant_under_ring_isometries = false;
  InstanceCheck c = check(*s, nullptr, hook, true);
  EXPECT_FALSE(by_quotient(c));
  EXPECT_NE(c.stats.at("quotient_declined").find("swing-hop-distance"), std::string::npos);
  test::expect_same_verdicts(c, check(*s, nullptr, hook, false), "hook declined");
}

// Over the memory budget p-bit cells give way to runs of ranks; runs that
// outgrow the budget too decline, and the instance is enumerated, saying why.
TEST(Quotient, OverMemoryBudgetIsEnumeratedAndSaysWhy) {
  auto s = swing_equivariant(make_swing_bandwidth(64), BlockAction::as_ranks);
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.memory_budget = 64;
  InstanceCheck c = check_schedule(*s, nullptr, {}, o);
  EXPECT_FALSE(by_quotient(c));
  EXPECT_EQ(c.stats.at("quotient_declined").rfind("rank 0's runs of contributors outgrew the memory budget at step", 0),
            0u)
      << c.stats.at("quotient_declined");
  test::expect_same_verdicts(c, check(*s, nullptr, {}, false), "declined for memory");
}

void expect_same(const flow::RotationResult& a, const flow::RotationResult& b, const std::string& what) {
  for (size_t i = 0; i < a.verdicts.size(); ++i)
    test::expect_same_verdict(a.verdicts[i], b.verdicts[i], what + " slot " + std::to_string(i));
  EXPECT_EQ(a.cost.steps, b.cost.steps) << what;
  EXPECT_EQ(a.cost.total_volume, b.cost.total_volume) << what;
}

// Runs of ranks (run_cells.hpp) against p-bit sets in the quotient itself:
// every declared variant under a 1D group, every p in 1..160, with the
// family's hook: the same verdicts, counts, counterexamples and cost, on
// holding instances and on the refuted readings alike.
TEST(Quotient, RunsOfRanksJudgeAsPBitSetsForEveryDeclaredVariant) {
  int compared = 0, violated = 0;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      if (v.symmetry == SymmetryGroup::undeclared) continue;
      for (uint64_t p = 1; p <= 160; ++p) {
        InstanceParams ip;
        ip.p = p;
        if (v.violates && v.violates(ip)) continue;
        auto s = v.make(ip);
        const auto* eq = dynamic_cast<const EquivariantSchedule*>(s.get());
        if (!eq || eq->action().group() == SymmetryGroup::torus_swing_dihedral) continue;
        const StepHook hook = family_step_hook(v, ip);
        const std::string what = a.name + "/" + v.name + " p=" + std::to_string(p);
        std::string why_bits, why_runs;
        auto bits = flow::run_quotient(*eq, hook, &why_bits, flow::QuotientCells::bits);
        auto runs = flow::run_quotient(*eq, hook, &why_runs, flow::QuotientCells::runs);
        ASSERT_EQ(bits.has_value(), runs.has_value()) << what << ": " << why_bits << " / " << why_runs;
        if (!bits) continue;
        expect_same(*bits, *runs, what);
        ++compared;
        for (const Verdict& x : runs->verdicts) violated += x.violations > 0;
      }
    }
  EXPECT_GT(compared, 500);
  EXPECT_GT(violated, 50);
}

TEST(Quotient, RunsOfRanksFindTheDefectInTheRepresentative) {
  for (uint64_t p : {4u, 6u, 8u, 16u, 30u, 64u}) {
    DefectiveRepresentative s(p);
    std::string why;
    auto bits = flow::run_quotient(s, {}, &why, flow::QuotientCells::bits);
    auto runs = flow::run_quotient(s, {}, &why, flow::QuotientCells::runs);
    ASSERT_TRUE(bits && runs) << p << ": " << why;
    expect_same(*bits, *runs, "defective representative p=" + std::to_string(p));
    uint64_t violations = 0;
    for (const Verdict& x : runs->verdicts) violations += x.violations;
    EXPECT_GT(violations, 0u) << p;
  }
}

// End to end: where the p-bit row is over the budget, check_schedule runs
// the quotient with runs (and says so), with enumeration's verdicts.
TEST(Quotient, OverTheBitBudgetTheQuotientRunsWithRunsOfRanks) {
  for (const char* variant : {"bandwidth", "paper-listing1", "paper-later"})
    for (uint64_t p : {6u, 10u, 12u, 64u, 96u}) {
      const SweepTarget t = resolve_targets("swing", variant).front();
      InstanceParams ip = t.params(p, 0);
      if (t.variant->violates && t.variant->violates(ip)) continue;
      auto s = t.variant->make(ip);
      const auto* eq = dynamic_cast<const EquivariantSchedule*>(s.get());
      ASSERT_NE(eq, nullptr) << variant << " p=" << p;
      const Claim claim = t.variant->claim(ip);
      const StepHook hook = family_step_hook(*t.variant, ip);
      CheckOptions o;
      o.exactness = Exactness::exact;
      o.exact_max_p = 1;  // no re-check by enumeration: the quotient's own verdicts
      o.memory_budget = flow::quotient_state_bytes(*eq) - 1;
      o.grouped_quotient = false;  // the cell-by-cell quotient (the groups: group_quotient_test.cpp)
      EXPECT_EQ(planned_method(*s, o).method, MethodId::cell_quotient);
      InstanceCheck q = check_schedule(*s, &claim, hook, o);
      const std::string what = std::string(variant) + " p=" + std::to_string(p);
      ASSERT_TRUE(by_quotient(q)) << what << ": " << (q.stats.count("quotient_declined") ? q.stats.at("quotient_declined") : "");
      EXPECT_NE(q.stats.at("method").find("runs of ranks"), std::string::npos) << q.stats.at("method");
      test::expect_same_verdicts(q, check(*s, &claim, hook, false), what);
    }
}

}  // namespace
}  // namespace collcheck
