// The symmetry-based exact flow check (properties/flow/flow_rotation.hpp) against
// the generic simulation it replaces for translation-invariant schedules:
//   * rotate_bits against a bit-by-bit rotation, every p in 1..200 and the
//     word boundaries;
//   * rotated_equal accepts every rank of Trivance bandwidth n = 27 and
//     rejects one block moved, one peer changed, one combine flipped;
//   * for every registered variant and p in 1..40 (plus Trivance n = 81,
//     100): the verdicts (status, checks, violations, minimal counterexample
//     with its texts) equal the generic exact simulation's, with
//     use_symmetry on and off;
//   * a mutation applied to EVERY rank alike (the schedule stays invariant, so
//     the symmetry mode runs) is caught with the generic checker's
//     counterexample; a mutation of one rank makes the symmetry check fail
//     and the generic simulation run.
#include <gtest/gtest.h>

#include "schedules/translation_equivariant.hpp"

#include <random>

#include "properties/flow/flow_rotation.hpp"
#include "properties/flow/held_enumeration.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

TEST(RotateBits, AgainstBitByBit) {
  std::mt19937_64 rng(7);
  for (uint64_t p = 1; p <= 200; ++p) {
    const size_t words = (p + 63) / 64;
    for (int iter = 0; iter < 6; ++iter) {
      std::vector<uint64_t> src(words, 0), dst(words, ~uint64_t{0}), want(words, 0);
      for (uint64_t x = 0; x < p; ++x)
        if (rng() % 3 == 0) src[x / 64] |= uint64_t{1} << (x % 64);
      const uint64_t q = rng() % p;
      for (uint64_t x = 0; x < p; ++x)
        if ((src[x / 64] >> (x % 64)) & 1) want[((x + q) % p) / 64] |= uint64_t{1} << ((x + q) % p % 64);
      flow::rotate_bits(dst.data(), src.data(), p, q);
      ASSERT_EQ(dst, want) << "p=" << p << " q=" << q;
    }
  }
}

std::unique_ptr<Schedule> make(const std::string& algo, const std::string& variant, uint64_t p) {
  InstanceParams ip;
  ip.p = p;
  return test::registered_variant(algo, variant).make(ip);
}

TEST(RotatedEqual, TrivanceBandwidthEveryRankAndBrokenCopies) {
  auto s = make("trivance", "bandwidth", 27);
  ASSERT_EQ(flow::probe_rotation(*s), std::optional<Block>(1));
  std::vector<BlockSet::Range> scratch;
  for (int st = 0; st < s->num_steps(); ++st) {
    RankStep zero, mine;
    s->rank_step(0, st, zero);
    for (Rank r = 1; r < 27; ++r) {
      s->rank_step(r, st, mine);
      ASSERT_TRUE(flow::rotated_equal(zero, mine, r, 1, 27, 27, scratch)) << "rank " << r << " step " << st;
      // A wrong block shift (for r = 1; sets spaced by 9 repeat under r = 9).
      if (r == 1) {
        ASSERT_FALSE(flow::rotated_equal(zero, mine, r, 0, 27, 27, scratch));
      }
      RankStep bad = mine;
      Block b = bad.sends[0].blocks.ranges().front().lo;
      bad.sends[0].blocks.erase(b);
      bad.sends[0].blocks.insert((b + 13) % 27);
      EXPECT_FALSE(flow::rotated_equal(zero, bad, r, 1, 27, 27, scratch));
      bad = mine;
      bad.recvs[0].peer = (bad.recvs[0].peer + 1) % 27;
      EXPECT_FALSE(flow::rotated_equal(zero, bad, r, 1, 27, 27, scratch));
      bad = mine;
      bad.sends[0].combine = bad.sends[0].combine == Combine::copy ? Combine::reduce : Combine::copy;
      EXPECT_FALSE(flow::rotated_equal(zero, bad, r, 1, 27, 27, scratch));
    }
  }
}

// rotated_equal's range arithmetic against rotating block by block: random
// sets (with long runs, and holding block 0 and nb-1 so that pieces merge),
// every shift.
TEST(RotatedEqual, RandomSetsAgainstBlockByBlock) {
  std::mt19937 rng(11);
  std::vector<BlockSet::Range> scratch;
  for (uint64_t nb = 1; nb <= 70; ++nb)
    for (int iter = 0; iter < 20; ++iter) {
      std::vector<Block> blocks;
      const uint32_t density = 1 + rng() % 4;
      for (Block b = 0; b < nb; ++b)
        if (rng() % density != 0) blocks.push_back(b);
      if (blocks.empty()) continue;
      const uint64_t p = nb;  // block shift h = 1 per rank
      RankStep zero;
      zero.sends.push_back({1 % static_cast<Rank>(p), BlockSet::from_blocks(blocks), Combine::reduce});
      for (Rank r = 0; r < p; ++r) {
        std::vector<Block> moved;
        for (Block b : blocks) moved.push_back((b + r) % nb);
        RankStep mine;
        mine.sends.push_back({static_cast<Rank>((1 + r) % p), BlockSet::from_blocks(moved), Combine::reduce});
        ASSERT_TRUE(flow::rotated_equal(zero, mine, r, 1, p, nb, scratch)) << zero.sends[0].blocks.to_string() << " r=" << r;
        BlockSet wrong = mine.sends[0].blocks;
        const Block x = rng() % nb;
        if (wrong.contains(x)) wrong.erase(x); else wrong.insert(x);
        mine.sends[0].blocks = wrong;
        ASSERT_FALSE(flow::rotated_equal(zero, mine, r, 1, p, nb, scratch)) << wrong.to_string() << " r=" << r;
      }
    }
}

using test::expect_same_verdicts;

InstanceCheck check(const Schedule& s, const Claim* claim, bool symmetry) {
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.use_symmetry = symmetry;
  return check_schedule(s, claim, {}, o);
}

TEST(RotationMode, SameVerdictsAsGenericForEveryRegisteredVariant) {
  int symmetric = 0, symmetric_violated = 0;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      std::vector<uint64_t> ps;
      for (uint64_t p = 1; p <= 40; ++p) ps.push_back(p);
      if (a.name == "trivance") ps.insert(ps.end(), {81, 100});
      for (uint64_t p : ps) {
        InstanceParams ip;
        ip.p = p;
        if (v.violates && v.violates(ip)) continue;
        auto made = v.make(ip);
        // A circulant schedule wrapped with its certificate goes to the
        // quotient (flow_quotient_test.cpp); its direct generator is what the
        // verified rotation mode probes.
        const Schedule* s = &translation_direct(*made);
        Claim claim = v.claim(ip);
        const std::string what = a.name + "/" + v.name + " p=" + std::to_string(p);
        InstanceCheck sym = check(*s, &claim, true), gen = check(*s, &claim, false);
        EXPECT_EQ(gen.mode, "exact") << what;
        expect_same_verdicts(sym, gen, what);
        EXPECT_EQ(sym.mode, "exact") << what;
        if (sym.stats.count("method") && sym.stats.at("method") != kRotationMethod) {
          // A declared symmetry (schedules/symmetry.hpp): the certified
          // quotient, compared in flow_quotient_test.cpp, or a fold over it
          // (fold_composition_test.cpp); or an all-to-all's direct generator
          // (no rotation applies), enumerated with its held cells.
          const std::string& m = sym.stats.at("method");
          EXPECT_TRUE(m.rfind(kQuotientMethod, 0) == 0 || m.rfind("composition: ", 0) == 0 ||
                      (m == flow::kHeldEnumerationMethod && a.collective == Collective::alltoall))
              << what << " " << m;
        } else if (sym.stats.count("method")) {
          ++symmetric;
          EXPECT_EQ(sym.stats.at("invariance_checks"), std::to_string(p * s->num_steps())) << what;
          for (const Verdict& x : sym.verdicts) symmetric_violated += x.status == Status::violated;
        }
      }
    }
  // The symmetry mode must actually have run, on holding and on violating
  // instances (the literal paper rules of Trivance double count).
  EXPECT_GT(symmetric, 100);
  EXPECT_GT(symmetric_violated, 10);
}

TEST(RotationMode, TrivanceBandwidthRunsBySymmetry) {
  auto s = make("trivance", "bandwidth", 100);
  InstanceCheck c = check(translation_direct(*s), nullptr, true);  // the generator, not the certified wrapper
  EXPECT_EQ(c.mode, "exact");
  EXPECT_EQ(c.stats.at("method"), kRotationMethod);
  EXPECT_EQ(c.stats.at("block_shift"), "1");
}

// Every rank drops the first block of its step-1 send to the right (and the
// receiver its copy): still invariant, so the symmetry mode runs and must
// find the missing contributions where the generic checker does.
TEST(RotationMode, UniformMutationIsCaughtAsByTheGenericChecker) {
  auto s = make("trivance", "bandwidth", 27);
  MaterializedSchedule m = materialize(*s);
  const Block b0 = m.steps[1][0].sends[0].blocks.ranges().front().lo;
  for (Rank r = 0; r < 27; ++r) {
    Transfer& snd = m.steps[1][r].sends[0];
    const Block b = (b0 + r) % 27;  // rank 0's block, rotated
    ASSERT_TRUE(snd.blocks.contains(b));
    snd.blocks.erase(b);
    bool found = false;
    for (Transfer& rcv : m.steps[1][snd.peer].recvs)
      if (rcv.peer == r) {
        rcv.blocks.erase(b);
        found = true;
      }
    ASSERT_TRUE(found);
  }
  MaterializedView mv(m);
  InstanceCheck sym = check(mv, nullptr, true), gen = check(mv, nullptr, false);
  EXPECT_EQ(sym.stats.at("method"), kRotationMethod);
  expect_same_verdicts(sym, gen, "uniform dropped block");
  EXPECT_EQ(combined_status(sym.verdicts), Status::violated);
}

// Every rank's step-1 receive from the left becomes a copy: invariant, but
// if it writes a block another receive of the step writes too the symmetry
// mode must decline; either way the verdicts are the generic ones.
TEST(RotationMode, UniformCopyMutationSameVerdicts) {
  auto s = make("trivance", "bandwidth", 27);
  MaterializedSchedule m = materialize(*s);
  for (Rank r = 0; r < 27; ++r) {
    m.steps[1][r].sends[1].combine = Combine::copy;
    m.steps[1][r].recvs[1].combine = Combine::copy;
  }
  MaterializedView mv(m);
  InstanceCheck sym = check(mv, nullptr, true), gen = check(mv, nullptr, false);
  expect_same_verdicts(sym, gen, "uniform copy mutation");
  EXPECT_EQ(combined_status(sym.verdicts), Status::violated);
}

TEST(RotationMode, OneRankMutationFallsBackToTheGenericSimulation) {
  auto s = make("trivance", "bandwidth", 27);
  MaterializedSchedule m = materialize(*s);
  m.steps[1][5].sends[0].combine = Combine::copy;
  m.steps[1][(5 + 3) % 27].recvs[0].combine = Combine::copy;
  MaterializedView mv(m);
  InstanceCheck sym = check(mv, nullptr, true), gen = check(mv, nullptr, false);
  EXPECT_EQ(sym.mode, "exact");
  EXPECT_EQ(sym.stats.count("method"), 0u);  // the generic simulation ran
  expect_same_verdicts(sym, gen, "one-rank mutation");
  EXPECT_EQ(combined_status(sym.verdicts), Status::violated);
}

}  // namespace
}  // namespace collcheck
