// Slow: tests/unit/schedules/trivance/trivance_readings_test.cpp's sweep further. Every Trivance
// reading that forwards a block before it keeps it (a move first in the
// de-duplication order, own block sent or kept) fails exactly where its
// routing differs from the stay-first reading with the same order of the two
// moves, for every n in 1..1500 (3.8 min on 2 busy cores); all eight fail at
// the same n. See the unit test's header for why.
#include <gtest/gtest.h>

#include "tests/support/trivance_readings.hpp"

namespace collcheck {
namespace {

TEST(TrivanceReadingsSweep, ForwardingFirstFailExactlyWhereTheyDifferUpTo1500) {
  EXPECT_GT(test::expect_forwarding_first_fail_exactly_where_they_differ(1500), 1400u);
}

}  // namespace
}  // namespace collcheck
