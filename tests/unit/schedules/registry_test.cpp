// The algorithm registry (schedules/registry.hpp) checked end to end with
// check_schedule (properties/instance_checker.hpp):
//
//  * the table itself: unique names, every variant has make/claim/violates,
//    defaults are expected to hold, refuted variants say why;
//  * every variant builds and materializes for p = 1..64 within its
//    restriction, and its restriction rejects the others with a reason;
//  * every variant expected to hold (defaults included) passes every
//    property for p = 1..200 in exact mode and for p = 1000, 1024, 2047, 2048
//    in fingerprint mode; its cost claim equals the measured steps/volume;
//  * every variant with expected_to_hold == false holds below the minimal p
//    its known_failure names and is refuted exactly there, with the failing
//    properties and the counterexample's location pinned down.
#include <gtest/gtest.h>

#include "tests/support/torus_shape_for.hpp"

#include <cctype>
#include <cstdint>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "properties/catalog.hpp"
#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"

namespace collcheck {
namespace {

struct Target {
  const AlgorithmInfo* algo;
  const VariantInfo* variant;
  std::string name() const { return algo->name + "/" + variant->name; }
};

std::vector<Target> all_targets(bool only_expected_to_hold) {
  std::vector<Target> out;
  for (const auto& a : registry())
    for (const auto& v : a.variants)
      if (!only_expected_to_hold || v.expected_to_hold) out.push_back({&a, &v});
  return out;
}

std::string test_name(const ::testing::TestParamInfo<Target>& info) {
  std::string s = info.param.name();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

struct Outcome {
  InstanceCheck ic;
  Claim claim;
};

// The instance of p a test builds: a torus variant (it takes --dims) gets the
// 1-D torus of p nodes (trivance_torus_test covers the other shapes).
InstanceParams base_params(const VariantInfo& v, uint64_t p) {
  InstanceParams ip{p, 0};
  if (v.takes("dims")) ip.dims = test::torus_shape_for(v, p);
  return ip;
}

Outcome run(const Target& t, uint64_t p, Exactness mode) {
  InstanceParams ip = base_params(*t.variant, p);
  auto s = t.variant->make(ip);
  Outcome r;
  r.claim = t.variant->claim(ip);
  CheckOptions o;
  o.exactness = mode;
  r.ic = check_schedule(*s, &r.claim, family_step_hook(*t.variant, ip), o);
  return r;
}

std::set<std::string> violated(const InstanceCheck& ic) {
  std::set<std::string> out;
  for (const auto& v : ic.verdicts)
    if (v.status == Status::violated) out.insert(v.property);
  return out;
}

const Verdict& verdict(const InstanceCheck& ic, const std::string& prop) {
  for (const auto& v : ic.verdicts)
    if (v.property == prop) return v;
  throw std::logic_error("no verdict for " + prop);
}

std::string describe(const InstanceCheck& ic) {
  std::string s;
  for (const auto& v : ic.verdicts) {
    s += "  " + v.property + "=" + to_string(v.status);
    if (v.counterexample) s += " [" + v.counterexample->location() + ": " + v.counterexample->message + "]";
    s += "\n";
  }
  return s;
}

// ---- the table -------------------------------------------------------------------

TEST(RegistryTable, NamesAreUniqueAndLookupsWork) {
  std::set<std::string> algos;
  for (const auto& a : registry()) {
    EXPECT_TRUE(algos.insert(a.name).second) << "duplicate algorithm " << a.name;
    EXPECT_EQ(find_algorithm(a.name), &a);
    ASSERT_FALSE(a.variants.empty()) << a.name;
    EXPECT_EQ(&a.default_variant(), &a.variants.front());
    std::set<std::string> variants;
    for (const auto& v : a.variants) {
      EXPECT_TRUE(variants.insert(v.name).second) << "duplicate variant " << a.name << "/" << v.name;
      EXPECT_EQ(a.find_variant(v.name), &v);
    }
    EXPECT_EQ(a.find_variant("no-such-variant"), nullptr);
  }
  EXPECT_EQ(find_algorithm("no-such-algorithm"), nullptr);
  EXPECT_EQ(find_algorithm(""), nullptr);
  for (const char* want : {"swing", "recursive-doubling", "ring"}) EXPECT_NE(find_algorithm(want), nullptr) << want;
}

TEST(RegistryTable, EveryVariantIsComplete) {
  for (const Target& t : all_targets(false)) {
    const VariantInfo& v = *t.variant;
    EXPECT_TRUE(static_cast<bool>(v.make)) << t.name();
    EXPECT_TRUE(static_cast<bool>(v.claim)) << t.name();
    EXPECT_TRUE(static_cast<bool>(v.violates)) << t.name();
    EXPECT_FALSE(v.summary.empty()) << t.name();
    EXPECT_FALSE(v.reference.empty()) << t.name();
    if (v.expected_to_hold) {
      EXPECT_TRUE(v.known_failure.empty()) << t.name() << " holds but names a failure";
    } else {
      EXPECT_NE(v.known_failure.find("minimal p = "), std::string::npos)
          << t.name() << " is refuted but does not name its minimal p: " << v.known_failure;
    }
  }
}

TEST(RegistryTable, DefaultVariantsAreExpectedToHold) {
  for (const auto& a : registry())
    EXPECT_TRUE(a.default_variant().expected_to_hold) << a.name << "/" << a.default_variant().name;
}

// ---- building --------------------------------------------------------------------

TEST(RegistryBuild, EveryVariantBuildsForP1To64WithinItsRestriction) {
  for (const Target& t : all_targets(false)) {
    int built = 0;
    for (uint64_t p = 1; p <= 64; ++p) {
      InstanceParams ip = base_params(*t.variant, p);
      if (auto why = t.variant->violates(ip)) {
        EXPECT_FALSE(why->empty()) << t.name() << " p = " << p << " is rejected without a reason";
        EXPECT_FALSE(t.variant->restriction.empty()) << t.name() << " rejects p = " << p << " without a restriction";
        continue;
      }
      ++built;
      auto s = t.variant->make(ip);
      ASSERT_NE(s, nullptr) << t.name() << " p = " << p;
      EXPECT_EQ(s->p(), p) << t.name();
      EXPECT_EQ(s->spec().kind, t.algo->collective) << t.name();
      EXPECT_GE(s->num_steps(), 0);
      EXPECT_GE(s->num_blocks(), 1u);
      EXPECT_GE(s->ports(), 1);
      MaterializedSchedule m = materialize(*s);
      ASSERT_EQ(m.num_steps(), s->num_steps());
      for (const auto& step : m.steps) {
        ASSERT_EQ(step.size(), p);
        for (const auto& rs : step)
          for (const auto* list : {&rs.sends, &rs.recvs})
            for (const Transfer& tr : *list) {
              EXPECT_FALSE(tr.blocks.empty()) << t.name() << " p = " << p;
              EXPECT_LE(tr.blocks.ranges().back().hi, s->num_blocks()) << t.name() << " p = " << p;
            }
      }
      Claim c = t.variant->claim(ip);
      EXPECT_GE(c.steps, 0);
      EXPECT_FALSE(c.source.empty()) << t.name();
    }
    EXPECT_GT(built, 0) << t.name() << " builds for no p in 1..64";
    if (t.variant->restriction.empty()) {
      EXPECT_EQ(built, 64) << t.name();
    }
  }
}

TEST(RegistryBuild, RestrictionsAreTheDocumentedOnes) {
  const AlgorithmInfo* sw = find_algorithm("swing");
  ASSERT_NE(sw, nullptr);
  for (const char* v : {"paper-listing1", "paper-earlier", "paper-earlier-skip-own", "paper-later", "paper-laststep",
                        "paper-laststep-skip-own"}) {
    const VariantInfo* vi = sw->find_variant(v);
    ASSERT_NE(vi, nullptr) << v;
    for (uint64_t p = 1; p <= 20; ++p) EXPECT_EQ(vi->violates({p, 0}).has_value(), p % 2 == 1) << v << " p = " << p;
  }
  // Listing 1's printed int(log2(p)) steps: Sec. 3.1 assumes p a power of two.
  const VariantInfo* printed = sw->find_variant("paper-listing1-printed");
  ASSERT_NE(printed, nullptr);
  for (uint64_t p = 1; p <= 20; ++p)
    EXPECT_EQ(printed->violates({p, 0}).has_value(), (p & (p - 1)) != 0) << "p = " << p;
  const VariantInfo* odd = sw->find_variant("paper-odd");
  ASSERT_NE(odd, nullptr);
  for (uint64_t p = 1; p <= 20; ++p) EXPECT_EQ(odd->violates({p, 0}).has_value(), p % 2 == 0 || p < 3) << "p = " << p;
}

// ---- variants expected to hold ---------------------------------------------------------

class HoldingVariant : public ::testing::TestWithParam<Target> {};

TEST_P(HoldingVariant, EveryPropertyHoldsForP1To200Exact) {
  const Target& t = GetParam();
  // All-to-all has p^2 blocks (p^3 cells): up to 40 here; tra_test and
  // tra2_test sweep every radix and node shape.
  const uint64_t max_p = t.algo->collective == Collective::alltoall ? 40 : 200;
  for (uint64_t p = 1; p <= max_p; ++p) {
    if (t.variant->violates(base_params(*t.variant, p))) continue;
    Outcome r = run(t, p, Exactness::exact);
    ASSERT_EQ(r.ic.mode, "exact");
    const size_t want = family_step_hook(*t.variant, base_params(*t.variant, p)) ? 7 : 6;
    ASSERT_EQ(r.ic.verdicts.size(), want) << t.name() << " p = " << p;
    for (const auto& v : r.ic.verdicts)
      ASSERT_EQ(v.status, Status::holds) << t.name() << " p = " << p << ": " << v.property << "\n" << describe(r.ic);
    // The claim is the measurement (cost holds, and says so in numbers).
    const Verdict& cost = verdict(r.ic, prop::cost);
    ASSERT_EQ(cost.stats.at("measured_steps"), std::to_string(r.claim.steps)) << t.name() << " p = " << p;
    ASSERT_EQ(cost.stats.at("measured_volume_blocks"), std::to_string(r.claim.volume_blocks))
        << t.name() << " p = " << p;
    ASSERT_EQ(r.ic.stats.at("steps"), std::to_string(r.claim.steps));
    // Flow properties really ran (a checker that checks nothing also "holds").
    if (p > 1) {
      EXPECT_GT(verdict(r.ic, prop::matching).checks, 0u);
      // Exactly-once judges reduces; a pure data-movement collective
      // (broadcast, allgather, alltoall) has none, so there its work shows up as causality checks.
      if (t.algo->collective == Collective::broadcast || t.algo->collective == Collective::allgather ||
          t.algo->collective == Collective::alltoall)
        EXPECT_GT(verdict(r.ic, prop::causality).checks, 0u) << t.name() << " p = " << p;
      else
        EXPECT_GT(verdict(r.ic, prop::exactly_once).checks, 0u) << t.name() << " p = " << p;
    }
    EXPECT_GT(verdict(r.ic, prop::postcondition).checks, 0u);
  }
}

TEST_P(HoldingVariant, EveryPropertyHoldsForLargePFingerprint) {
  const Target& t = GetParam();
  // All-to-all: p^2 blocks, so 255 and 256 (16.7M cells) instead of 1000..2048.
  const std::vector<uint64_t> ps = t.algo->collective == Collective::alltoall
                                       ? std::vector<uint64_t>{255, 256}
                                       : std::vector<uint64_t>{1000, 1024, 2047, 2048};
  for (uint64_t p : ps) {
    if (t.variant->violates(base_params(*t.variant, p))) continue;
    Outcome r = run(t, p, Exactness::fingerprint);
    ASSERT_EQ(r.ic.mode.rfind("fingerprint", 0), 0u) << r.ic.mode;
    for (const auto& v : r.ic.verdicts)
      EXPECT_EQ(v.status, Status::holds) << t.name() << " p = " << p << ": " << v.property << "\n" << describe(r.ic);
    const Verdict& post = verdict(r.ic, prop::postcondition);
    EXPECT_EQ(post.mode, r.ic.mode);
    // Every (rank, block) the collective constrains is judged at the end: all
    // of them for allreduce, broadcast, allgather; the root's for a reduce,
    // the owner's for a reduce-scatter.
    const CollectiveSpec spec = t.variant->make(base_params(*t.variant, p))->spec();
    uint64_t required = 0;
    for (Rank rk = 0; rk < p; ++rk)
      for (Block b = 0; b < spec.nblocks; ++b) required += spec.required(rk, b).kind != Requirement::Kind::none;
    EXPECT_EQ(post.checks, required) << t.name() << " p = " << p;
    const Verdict& cost = verdict(r.ic, prop::cost);
    EXPECT_EQ(cost.stats.at("measured_steps"), std::to_string(r.claim.steps)) << t.name() << " p = " << p;
    EXPECT_EQ(cost.stats.at("measured_volume_blocks"), std::to_string(r.claim.volume_blocks))
        << t.name() << " p = " << p;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, HoldingVariant, ::testing::ValuesIn(all_targets(true)), test_name);

// ---- refuted paper variants -----------------------------------------------------------------

Target refuted(const char* variant) {
  const AlgorithmInfo* sw = find_algorithm("swing");
  if (!sw || !sw->find_variant(variant)) throw std::logic_error(std::string("no swing variant ") + variant);
  return {sw, sw->find_variant(variant)};
}

// The minimal p values the registry's known_failure text names.
std::vector<uint64_t> named_minimal_ps(const VariantInfo& v) {
  std::vector<uint64_t> out;
  std::regex re("minimal p = ([0-9]+)");
  for (std::sregex_iterator it(v.known_failure.begin(), v.known_failure.end(), re), end; it != end; ++it)
    out.push_back(std::stoull((*it)[1].str()));
  return out;
}

// Holds (every property) for every admissible p below `p_min`.
void expect_holds_below(const Target& t, uint64_t p_min) {
  for (uint64_t p = 1; p < p_min; ++p) {
    if (t.variant->violates(base_params(*t.variant, p))) continue;
    Outcome r = run(t, p, Exactness::exact);
    EXPECT_TRUE(violated(r.ic).empty()) << t.name() << " already fails at p = " << p << "\n" << describe(r.ic);
  }
}

// Holds below p = 6; at p = 6 only the postcondition fails, in both modes:
// rank 0's block 0 misses the contributions of ranks 4 and 5.
void expect_p6_loses_ranks_4_and_5(const Target& t) {
  expect_holds_below(t, 6);
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    Outcome r = run(t, 6, mode);
    ASSERT_EQ(violated(r.ic), std::set<std::string>{prop::postcondition}) << describe(r.ic);
    const auto& post = *verdict(r.ic, prop::postcondition).counterexample;
    EXPECT_EQ(post.location(), "p=6 rank=0 step=5 block=0");
    EXPECT_EQ(post.actual, mode == Exactness::exact ? "missing ranks {4,5}" : "4 contribution(s), fingerprint differs");
  }
}

TEST(RefutedVariants, EveryRefutedVariantIsCoveredHere) {
  std::set<std::string> covered = {"paper-listing1", "paper-listing1-printed", "paper-earlier",
                                   "paper-earlier-skip-own", "paper-later", "paper-laststep",
                                   "paper-laststep-skip-own", "paper-odd", "paper-odd-later", "paper-latency",
                                   "torus-paper-delta", "torus-paper-delta-latency",  // swing_torus_cli_test
                                   // torus_deficiency_mutation_test, torus_analysis_cli_test
                                   "torus-mirrored-reflected-bandwidth",
                                   "paper-literal", "paper-formulas",  // tra2 (below)
                                   "paper-last-step", "paper-bandwidth", "paper-distance",  // trivance_test
                                   // trivance_readings_test
                                   "paper-bandwidth-own-stays", "dedup-right-stay-left",
                                   "dedup-right-stay-left-own-stays", "dedup-right-left-stay",
                                   "dedup-right-left-stay-own-stays", "dedup-left-stay-right",
                                   "dedup-left-stay-right-own-stays", "dedup-left-right-stay",
                                   "dedup-left-right-stay-own-stays", "paper-keep-last"};
  for (const Target& t : all_targets(false))
    if (!t.variant->expected_to_hold) {
      EXPECT_TRUE(covered.count(t.variant->name)) << t.name() << " is refuted but has no test pinning its failure";
    }
  EXPECT_EQ(named_minimal_ps(*refuted("paper-listing1").variant), std::vector<uint64_t>{6});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-laststep").variant), std::vector<uint64_t>{6});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-laststep-skip-own").variant), std::vector<uint64_t>{6});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-listing1-printed").variant), std::vector<uint64_t>{4});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-earlier").variant), std::vector<uint64_t>{6});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-earlier-skip-own").variant), std::vector<uint64_t>{6});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-later").variant), std::vector<uint64_t>{10});
  EXPECT_EQ(named_minimal_ps(*refuted("paper-odd").variant), (std::vector<uint64_t>{3, 7}));
  EXPECT_EQ(named_minimal_ps(*refuted("paper-latency").variant), (std::vector<uint64_t>{3, 6}));
  EXPECT_EQ(named_minimal_ps(*refuted("paper-odd-later").variant), (std::vector<uint64_t>{3, 7}));
}

// paper-odd with the ring de-duplicated as paper-later reads it (the own
// block sent where listed): besides paper-odd's coverage and ports failures,
// exactly-once fails wherever a ring rank lists its own block, 2^k < p-1 <
// 4/3 2^k (p = 11, 19, 21, 35..43 below 64), as paper-later fails at p-1;
// paper-odd (never the own block) never double-counts.
TEST(RefutedVariants, PaperOddLaterDoubleCountsWhereARingRankListsItsOwnBlock) {
  const Target later = refuted("paper-odd-later"), odd = refuted("paper-odd");
  for (uint64_t p = 3; p < 64; p += 2) {
    const uint64_t m = p - 1;
    uint64_t k = 1;
    while (2 * k <= m) k *= 2;  // 2^floor(log2 m)
    const bool own_listed = k < m && 3 * m < 4 * k;
    const Outcome a = run(later, p, Exactness::exact), b = run(odd, p, Exactness::exact);
    EXPECT_EQ(verdict(a.ic, prop::exactly_once).status, own_listed ? Status::violated : Status::holds) << "p = " << p;
    EXPECT_EQ(verdict(b.ic, prop::exactly_once).status, Status::holds) << "p = " << p;
  }
  EXPECT_NE(later.variant->known_failure.find("p = 11, 19, 21"), std::string::npos);
}

// Listing 1 in collcheck's peer-index reading at p = 6: rank 0 reduces rank 4's contribution a second
// time at step 2 (from rank 3), and sends 14 blocks instead of 2(p-1) = 10.
// The double count reaches every final value, so both modes also fail the
// postcondition there (exact mode names it, fingerprint mode counts 8).
// Holds below p; at p (exact mode) exactly-once, postcondition and cost fail:
// the first double count is contribution `twice` at `where`, every one of
// the p*p final values counts some contribution twice, and rank 0 sends
// `blocks` blocks instead of the claimed 2(p-1). Returns the fingerprint-mode
// outcome, checked for the same three properties.
Outcome expect_double_count_at(const Target& t, uint64_t p, const std::string& where, Rank twice, uint64_t blocks) {
  expect_holds_below(t, p);
  const std::set<std::string> want = {prop::exactly_once, prop::postcondition, prop::cost};
  Outcome r = run(t, p, Exactness::exact);
  EXPECT_EQ(violated(r.ic), want) << describe(r.ic);
  const auto& eo = *verdict(r.ic, prop::exactly_once).counterexample;
  EXPECT_EQ(eo.location(), where);
  EXPECT_EQ(eo.expected, "contribution of rank " + std::to_string(twice) + " at most once");
  const auto& post = *verdict(r.ic, prop::postcondition).counterexample;
  EXPECT_EQ(post.location(), "p=" + std::to_string(p) + " rank=0 step=" + std::to_string(r.claim.steps - 1) + " block=0");
  EXPECT_EQ(post.actual, "some contribution counted more than once");
  EXPECT_EQ(verdict(r.ic, prop::postcondition).violations, p * p) << "every (rank, block) of the result";
  const auto& cost = *verdict(r.ic, prop::cost).counterexample;
  EXPECT_EQ(cost.rank, Rank{0});
  EXPECT_EQ(cost.actual, std::to_string(blocks) + " blocks");
  EXPECT_EQ(cost.expected.rfind(std::to_string(2 * (p - 1)) + " blocks", 0), 0u) << cost.expected;
  Outcome f = run(t, p, Exactness::fingerprint);
  EXPECT_EQ(violated(f.ic), want) << describe(f.ic);
  return f;
}

TEST(RefutedVariants, PaperListing1AtP6DoubleCounts) {
  // Fingerprint mode: the same properties, the double count seen in the
  // final value of the same block.
  Outcome f = expect_double_count_at(refuted("paper-listing1"), 6, "p=6 rank=0 step=2 block=0 peer=3", 4, 14);
  EXPECT_EQ(verdict(f.ic, prop::exactly_once).counterexample->location(), "p=6 rank=0 step=5 block=0");
  EXPECT_EQ(verdict(f.ic, prop::exactly_once).counterexample->actual, "8 contributions, fingerprint differs");
  EXPECT_EQ(verdict(f.ic, prop::postcondition).counterexample->location(), "p=6 rank=0 step=5 block=0");
  EXPECT_EQ(verdict(f.ic, prop::postcondition).counterexample->actual, "8 contribution(s), fingerprint differs");
  EXPECT_EQ(verdict(f.ic, prop::postcondition).violations, 36u);
}

// "Send it only in the last step" read literally at p = 6: contributions of
// ranks 4 and 5 never reach rank 0's block 0. The allgather copy at step 5
// replaces rank 0's block 1 ({0,3}) with rank 1's ({0,1,4,5}): rank 3's
// contribution is lost, but the copy has more contributions than it
// replaces, so causality (count-based) holds in both modes. The smallest p
// where a copy carries fewer contributions than its receiver holds is 10.
TEST(RefutedVariants, PaperLastStepAtP6LosesContributions) {
  Target t = refuted("paper-laststep");
  expect_p6_loses_ranks_4_and_5(t);
  EXPECT_GT(verdict(run(t, 6, Exactness::exact).ic, prop::causality).checks, 0u);
  Outcome p8 = run(t, 8, Exactness::exact);
  EXPECT_TRUE(violated(p8.ic).empty()) << "p = 8\n" << describe(p8.ic);
  // p = 10: the step-7 copy from rank 1 replaces 6 contributions with 4,
  // the same verdict in both modes; rank 0 also sends 20 blocks, not 18.
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    Outcome o = run(t, 10, mode);
    ASSERT_EQ(violated(o.ic), (std::set<std::string>{prop::causality, prop::postcondition, prop::cost}))
        << describe(o.ic);
    const auto& cau = *verdict(o.ic, prop::causality).counterexample;
    EXPECT_EQ(cau.location(), "p=10 rank=0 step=7 block=0 peer=1");
    EXPECT_EQ(cau.expected, "copied value has at least as many contributions as the receiver holds");
    EXPECT_EQ(cau.actual, "would discard 2 contribution(s) (holds 6, copy has 4)");
    EXPECT_EQ(verdict(o.ic, prop::causality).violations, 10u);
    EXPECT_EQ(verdict(o.ic, prop::cost).counterexample->actual, "20 blocks");
  }
}

// Listing 1 as printed at p = 4: rank 0 sends {1,2,3} at step 0 and {3} at
// step 1, 8 blocks in all instead of 6 (cost). The reduce-scatter result is
// right (swing_readings_test), but at step 3 the mirrored allgather copies
// rank 1's stale partial of block 3 ({0,1}) over rank 0's complete one.
TEST(RefutedVariants, PaperListing1PrintedAtP4CopiesStalePartials) {
  Target t = refuted("paper-listing1-printed");
  expect_holds_below(t, 4);
  const std::set<std::string> want = {prop::causality, prop::postcondition, prop::cost};
  for (Exactness mode : {Exactness::exact, Exactness::fingerprint}) {
    Outcome r = run(t, 4, mode);
    ASSERT_EQ(violated(r.ic), want) << describe(r.ic);
    const auto& cau = *verdict(r.ic, prop::causality).counterexample;
    EXPECT_EQ(cau.location(), "p=4 rank=0 step=3 block=3 peer=1");
    EXPECT_EQ(cau.actual, "would discard 2 contribution(s) (holds 4, copy has 2)");
    EXPECT_EQ(verdict(r.ic, prop::postcondition).counterexample->location(), "p=4 rank=0 step=3 block=3");
    EXPECT_EQ(verdict(r.ic, prop::cost).counterexample->actual, "8 blocks");
  }
  EXPECT_EQ(verdict(run(t, 4, Exactness::exact).ic, prop::postcondition).counterexample->actual,
            "missing ranks {2,3}");
}

// The earlier-step readings at p = 6: ranks 4 and 5 list block 0 at steps 0
// and 1, swap it at step 0 and never send it again, so rank 0's block 0
// misses ranks 4 and 5. Sending the own block or not makes no difference
// at p = 6 (no rank lists its own block below p = 10).
TEST(RefutedVariants, PaperEarlierAtP6StrandsContributions) {
  for (const char* name : {"paper-earlier", "paper-earlier-skip-own"}) {
    SCOPED_TRACE(name);
    expect_p6_loses_ranks_4_and_5(refuted(name));
  }
}

// The later-step reading without the own-block exclusion holds up to p = 8
// and at p = 6 (it is `bandwidth` there) and fails at p = 10, where rank 0
// lists block 0 at step 0: its own contribution comes back at step 3 from
// rank 5, and it sends 20 blocks instead of 18.
TEST(RefutedVariants, PaperLaterAtP10CountsTheOwnContributionTwice) {
  Outcome f = expect_double_count_at(refuted("paper-later"), 10, "p=10 rank=0 step=3 block=0 peer=5", 0, 20);
  EXPECT_EQ(verdict(f.ic, prop::exactly_once).counterexample->actual, "11 contributions, fingerprint differs");
}

// The algorithm's-last-step reading without the own block at p = 6: the same
// lost contributions as paper-laststep (ranks 4 and 5 send block 0 to ranks
// 1 and 2 at the last step); from p = 10 no cost or causality failure joins
// it, because those came from the own block.
TEST(RefutedVariants, PaperLastStepSkipOwnAtP6LosesContributions) {
  Target t = refuted("paper-laststep-skip-own");
  expect_p6_loses_ranks_4_and_5(t);
  Outcome r = run(t, 10, Exactness::exact);
  EXPECT_EQ(violated(r.ic), std::set<std::string>{prop::postcondition}) << "p = 10\n" << describe(r.ic);
}

// The paper's odd-p scheme: at p = 3 (ring of 2, a power of two) ring rank 1
// is never served, so rank 0's block 1 lacks rank 2; at p = 7 the extra node
// talks to 3 ranks in step 0, over the 2-port budget.
TEST(RefutedVariants, PaperOddAtP3MissesTheExtraNode) {
  Target t = refuted("paper-odd");
  Outcome r = run(t, 3, Exactness::exact);
  EXPECT_EQ(violated(r.ic), std::set<std::string>{prop::postcondition}) << describe(r.ic);
  const auto& post = *verdict(r.ic, prop::postcondition).counterexample;
  EXPECT_EQ(post.location(), "p=3 rank=0 step=1 block=1");
  EXPECT_EQ(post.actual, "missing ranks {2}");
  Outcome f = run(t, 3, Exactness::fingerprint);
  EXPECT_EQ(violated(f.ic), std::set<std::string>{prop::postcondition}) << describe(f.ic);
  EXPECT_EQ(verdict(f.ic, prop::postcondition).counterexample->actual, "2 contribution(s), fingerprint differs");
}

TEST(RefutedVariants, PaperOddAtP7ExceedsThePortBudget) {
  Target t = refuted("paper-odd");
  for (uint64_t p : {3u, 5u}) {
    Outcome r = run(t, p, Exactness::exact);
    EXPECT_EQ(verdict(r.ic, prop::ports).status, Status::holds) << "ports already fail at p = " << p;
  }
  Outcome r = run(t, 7, Exactness::exact);
  EXPECT_EQ(violated(r.ic), std::set<std::string>{prop::ports}) << describe(r.ic);
  const auto& c = *verdict(r.ic, prop::ports).counterexample;
  EXPECT_EQ(c.location(), "p=7 rank=6 step=0");
  EXPECT_EQ(c.actual, "3 sends, 3 receives");
  EXPECT_EQ(c.expected, "<= 2 sends and <= 2 receives");
}

// Eq. 2 for every p: at p = 3 pi is not an involution, so rank 2's step-0
// receive from rank 0 has no send (rank 0 sends to rank 1), the first
// unmatched transfer in time (rank 0's step-1 receive from rank 2 is
// another); at p = 6 rank 4 is counted twice at rank 0.
TEST(RefutedVariants, PaperLatencyAtP3IsUnmatched) {
  Target t = refuted("paper-latency");
  expect_holds_below(t, 3);
  Outcome r = run(t, 3, Exactness::exact);
  EXPECT_EQ(violated(r.ic), (std::set<std::string>{prop::matching, prop::postcondition})) << describe(r.ic);
  const auto& m = *verdict(r.ic, prop::matching).counterexample;
  EXPECT_EQ(m.location(), "p=3 rank=2 step=0 block=0 peer=0");
  EXPECT_EQ(m.actual, "none");
  EXPECT_EQ(verdict(r.ic, prop::postcondition).counterexample->location(), "p=3 rank=0 step=1 block=0");
}

TEST(RefutedVariants, PaperLatencyAtP6DoubleCounts) {
  Target t = refuted("paper-latency");
  for (uint64_t p : {4u}) {
    Outcome r = run(t, p, Exactness::exact);
    EXPECT_TRUE(violated(r.ic).empty()) << "p = " << p << "\n" << describe(r.ic);
  }
  const std::set<std::string> want = {prop::exactly_once, prop::postcondition};
  Outcome r = run(t, 6, Exactness::exact);
  ASSERT_EQ(violated(r.ic), want) << describe(r.ic);
  const auto& eo = *verdict(r.ic, prop::exactly_once).counterexample;
  EXPECT_EQ(eo.location(), "p=6 rank=0 step=2 block=0 peer=3");
  EXPECT_EQ(eo.expected, "contribution of rank 4 at most once");
  // The doubled value is rank 0's result (step 2 is the last step).
  const auto& post = *verdict(r.ic, prop::postcondition).counterexample;
  EXPECT_EQ(post.location(), "p=6 rank=0 step=2 block=0");
  EXPECT_EQ(post.actual, "some contribution counted more than once");
  Outcome f = run(t, 6, Exactness::fingerprint);
  ASSERT_EQ(violated(f.ic), want) << describe(f.ic);
  EXPECT_EQ(verdict(f.ic, prop::exactly_once).counterexample->actual, "8 contributions, fingerprint differs");
  EXPECT_EQ(verdict(f.ic, prop::postcondition).counterexample->location(), "p=6 rank=0 step=2 block=0");
  EXPECT_EQ(verdict(r.ic, prop::postcondition).violations, verdict(f.ic, prop::postcondition).violations)
      << "both modes judge the same final values";
}

// TRA2's printed rules (paper-literal) and printed K1/K2 (paper-formulas), at
// the registry's default Q, r1, r2: both hold below their minimal p and fail
// there, paper-literal on the postcondition only (P = 3: three nodes of one
// process, the printed inter-node shift and sign), paper-formulas on cost
// only (P = 4 = 2 x 2: printed K1 + K2 = 6, measured 2). tra2_test pins every
// (P, Q, r1, r2) with P <= 36.
TEST(RefutedVariants, Tra2PaperVariantsFailAtTheirMinimalP) {
  const AlgorithmInfo* a = find_algorithm("tra2");
  ASSERT_NE(a, nullptr);
  const Target lit{a, a->find_variant("paper-literal")}, formulas{a, a->find_variant("paper-formulas")};
  ASSERT_NE(lit.variant, nullptr);
  ASSERT_NE(formulas.variant, nullptr);
  EXPECT_EQ(named_minimal_ps(*lit.variant), std::vector<uint64_t>{3});
  EXPECT_EQ(named_minimal_ps(*formulas.variant), std::vector<uint64_t>{4});
  expect_holds_below(lit, 3);
  Outcome r = run(lit, 3, Exactness::exact);
  EXPECT_EQ(violated(r.ic), std::set<std::string>{prop::postcondition}) << describe(r.ic);
  EXPECT_EQ(verdict(r.ic, prop::postcondition).counterexample->location(), "p=3 rank=1 step=1 block=1");
  expect_holds_below(formulas, 4);
  Outcome f = run(formulas, 4, Exactness::exact);
  EXPECT_EQ(violated(f.ic), std::set<std::string>{prop::cost}) << describe(f.ic);
  EXPECT_EQ(verdict(f.ic, prop::cost).counterexample->actual, "2 steps");
}

}  // namespace
}  // namespace collcheck
