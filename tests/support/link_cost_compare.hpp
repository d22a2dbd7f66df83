#pragma once
// Two link-cost measurements that must agree (the quotient's orbit loads
// against every rank's routes, topology/link_load.hpp): per step the
// hottest link and the busiest port, Xi, Theta and the worst step.
#include <gtest/gtest.h>

#include <string>

#include "topology/link_load.hpp"

namespace collcheck::test {

inline void expect_same_link_cost(const LinkCost& a, const LinkCost& b, const std::string& what) {
  ASSERT_EQ(a.link.size(), b.link.size()) << what;
  for (size_t k = 0; k < a.link.size(); ++k) {
    EXPECT_NEAR(a.link[k], b.link[k], 1e-12) << what << " step " << k;
    EXPECT_NEAR(a.port[k], b.port[k], 1e-12) << what << " step " << k;
  }
  EXPECT_NEAR(a.xi, b.xi, 1e-12) << what;
  EXPECT_NEAR(a.theta, b.theta, 1e-12) << what;
  EXPECT_EQ(a.worst_step, b.worst_step) << what;
}

}  // namespace collcheck::test
