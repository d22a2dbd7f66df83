// The README's sweep claims for small p (the slow suite repeats them up to
// p = 1024 / 512): expected-to-hold variants hold, and each literal Swing
// paper rule fails exactly at the p and by the properties the README lists.
#include <gtest/gtest.h>

#include "tests/support/paper_rules.hpp"

namespace collcheck {
namespace {

TEST(Sweep, ExpectedToHoldVariantsHoldUpTo64) { expect_correct_variants_hold(64); }

TEST(Sweep, LiteralPaperRulesFailExactlyWhereTheReadmeSays) { expect_paper_rules_fail_as_documented(64); }

}  // namespace
}  // namespace collcheck
