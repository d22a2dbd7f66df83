// The grouped quotient (properties/flow/group_quotient.hpp) against the
// cell-by-cell quotient over whole ranges (slow label): Swing's default at
// every even p <= 4096 and at every even p in 2^14..2^14+2048, and every
// Swing ring reading at every even p <= 512. Status, checks, violations and
// the minimal counterexample must be the same; the default must be decided
// by the groups.
#include <gtest/gtest.h>

#include <bit>

#include "properties/family_property.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

InstanceCheck check(const VariantInfo& v, uint64_t p, bool grouped) { return test::check_variant(v, p, true, grouped); }

bool by_groups(const InstanceCheck& c) {
  return c.stats.count("method") && c.stats.at("method").find("groups of blocks") != std::string::npos;
}

void compare_range(const VariantInfo& v, uint64_t lo, uint64_t hi) {
  for (uint64_t p = lo; p <= hi; p += 2) {
    if (v.violates(InstanceParams{p, 0})) continue;
    const InstanceCheck grouped = check(v, p, true), cells = check(v, p, false);
    test::expect_same_verdicts(grouped, cells, v.name + " p=" + std::to_string(p));
    if (v.name == "bandwidth") {
      ASSERT_TRUE(by_groups(grouped)) << "p=" << p;
    }
  }
}

TEST(GroupQuotientSweep, DefaultEveryEvenPToFourThousand) {
  compare_range(test::registered_variant("swing", "bandwidth"), 2, 4096);
}

TEST(GroupQuotientSweep, DefaultEveryEvenPFromTwoToTheFourteenOn) {
  compare_range(test::registered_variant("swing", "bandwidth"), 16384, 16384 + 2048);
}

TEST(GroupQuotientSweep, EveryRingReadingToFiveHundredTwelve) {
  for (const VariantInfo& v : test::registered_algorithm("swing").variants) {
    if (v.symmetry != SymmetryGroup::swing_dihedral || v.name == "latency" || v.name == "bandwidth-contiguous") continue;
    compare_range(v, 2, 512);
  }
}

}  // namespace
}  // namespace collcheck

namespace collcheck {
namespace {

using test::check_variant;

// The fold composition against enumeration at every odd p <= 1025.
TEST(GroupQuotientSweep, OddPCompositionEqualsEnumerationToOneThousand) {
  const VariantInfo& v = test::registered_variant("swing", "bandwidth");
  for (uint64_t p = 3; p <= 1025; p += 2) {
    const InstanceCheck composed = check_variant(v, p, true, true), enumerated = check_variant(v, p, false, false);
    ASSERT_EQ(composed.stats.at("method").rfind("composition: ", 0), 0u) << p;
    test::expect_same_verdicts(composed, enumerated, "p=" + std::to_string(p));
  }
}

// paper-odd-later's odd p beyond the unit test's 259 to 1025 (the exact
// mode's bound): the extra-node composition against enumeration, the 126
// instances whose ring lists a rank's own block (2^8 < p - 1 < 4/3 2^8,
// 2^9 < p - 1 < 4/3 2^9) included; p - 1 a power of two is enumerated
// either way.
TEST(GroupQuotientSweep, OddLaterCompositionEqualsEnumerationToOneThousand) {
  const VariantInfo& v = test::registered_variant("swing", "paper-odd-later");
  int own_block = 0;
  for (uint64_t p = 261; p <= 1025; p += 2) {
    const InstanceCheck composed = check_variant(v, p, true, true), enumerated = check_variant(v, p, false, false);
    const bool served = !std::has_single_bit(p - 1);
    ASSERT_EQ(composed.stats.count("method") && composed.stats.at("method").rfind("composition: ", 0) == 0, served) << p;
    test::expect_same_verdicts(composed, enumerated, "p=" + std::to_string(p));
    const uint64_t m = p - 1;
    own_block += served && 3 * m < 4 * std::bit_floor(m);
  }
  EXPECT_EQ(own_block, 126);
}

// 50 fixed pseudo-random even p up to 2^21: the grouped quotient against the
// cell-by-cell quotient (runs of ranks up there).
TEST(GroupQuotientSweep, FiftyEvenPUpToTwoToTheTwentyOne) {
  const VariantInfo& v = test::registered_variant("swing", "bandwidth");
  uint64_t x = 0x2545F4914F6CDD1DULL;
  for (int i = 0; i < 50; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t p = 2 * (1 + (x >> 33) % (uint64_t{1} << 20));
    const InstanceCheck grouped = check_variant(v, p, true, true), cells = check_variant(v, p, true, false);
    EXPECT_NE(grouped.stats.at("method").find("groups of blocks"), std::string::npos) << p;
    test::expect_same_verdicts(grouped, cells, "p=" + std::to_string(p));
  }
}

}  // namespace
}  // namespace collcheck
