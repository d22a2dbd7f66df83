// Slow (label "slow", excluded from the default run; run with
// `ctest --test-dir build -L slow`): the README's sweep claims, pinned.
//  * every expected-to-hold variant of every algorithm holds for p = 1..1024
//    with exact multiplicity (all-to-all: p = 1..128);
//  * each Swing paper rule (printed or read) fails at exactly the p the README lists,
//    by exactly the properties it lists, for p = 1..512.
// The default suite checks the same statements for p = 1..64 in
// tests/regression/paper_rules_test.cpp.
#include <gtest/gtest.h>

#include "tests/support/paper_rules.hpp"

namespace collcheck {
namespace {

TEST(Sweep, ExpectedToHoldVariantsHoldUpTo1024) { expect_correct_variants_hold(1024); }

TEST(Sweep, LiteralPaperRulesFailExactlyWhereTheReadmeSays) { expect_paper_rules_fail_as_documented(512); }

}  // namespace
}  // namespace collcheck
