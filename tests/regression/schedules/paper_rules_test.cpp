// The sweep claims of docs/findings/swing.md (items 9 and 10) for small p
// (the slow suite repeats them up to
// p = 1024 / 512): expected-to-hold variants hold, and each Swing paper rule
// (as printed or as collcheck reads it) fails exactly at the p and by the
// properties the page lists.
#include <gtest/gtest.h>

#include "tests/support/paper_rules.hpp"

namespace collcheck {
namespace {

TEST(Sweep, ExpectedToHoldVariantsHoldUpTo64) { expect_correct_variants_hold(64); }

TEST(Sweep, LiteralPaperRulesFailExactlyWhereTheReadmeSays) { expect_paper_rules_fail_as_documented(64); }

// The one p set without a closed form (docs/findings/swing.md, item 9): where the
// earlier-step readings also fail causality. A measured list, pinned so that a
// change shows; sending the own block or not does not change it.
TEST(Sweep, EarlierStepReadingsFailCausalityAtTheMeasuredP) {
  const std::set<uint64_t> measured = {10, 18, 20, 26, 34, 36, 38, 40, 42, 50, 52, 58};
  EXPECT_EQ(failing_ps("paper-earlier", "causality", 64), measured);
  EXPECT_EQ(failing_ps("paper-earlier-skip-own", "causality", 64), measured);
}

}  // namespace
}  // namespace collcheck
