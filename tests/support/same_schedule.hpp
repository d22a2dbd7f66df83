#pragma once
// Two schedules that must be the same at every rank and step (an
// equivariant schedule against the direct per-rank generator it claims to
// be: the faithfulness half of a symmetry certificate, schedules/symmetry.hpp).
#include <gtest/gtest.h>

#include <string>

#include "schedules/schedule.hpp"

namespace collcheck::test {

inline void expect_equal_everywhere(const Schedule& direct, const Schedule& eq, const std::string& what) {
  ASSERT_EQ(direct.num_steps(), eq.num_steps()) << what;
  ASSERT_EQ(direct.spec().kind, eq.spec().kind) << what;
  ASSERT_EQ(direct.p(), eq.p()) << what;
  ASSERT_EQ(direct.num_blocks(), eq.num_blocks()) << what;
  RankStep a, b;
  for (int s = 0; s < direct.num_steps(); ++s)
    for (Rank r = 0; r < direct.p(); ++r) {
      direct.rank_step(r, s, a);
      eq.rank_step(r, s, b);
      ASSERT_EQ(a, b) << what << " rank " << r << " step " << s;
    }
}

// Whether the two differ at some rank and step (for tests that a wrong
// group action is caught).
inline bool differ_somewhere(const Schedule& direct, const Schedule& eq) {
  if (direct.num_steps() != eq.num_steps() || direct.p() != eq.p()) return true;
  RankStep a, b;
  for (int s = 0; s < direct.num_steps(); ++s)
    for (Rank r = 0; r < direct.p(); ++r) {
      direct.rank_step(r, s, a);
      eq.rank_step(r, s, b);
      if (!(a == b)) return true;
    }
  return false;
}

}  // namespace collcheck::test
