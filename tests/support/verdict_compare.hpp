#pragma once
// Two runs of check_schedule that must agree completely (the symmetry and
// interval methods against the generic simulation): same mode, and per
// property the same status, checks, violations and minimal counterexample
// with its texts.
#include <gtest/gtest.h>

#include <string>

#include "properties/instance_checker.hpp"

namespace collcheck::test {

// One verdict against another: checks, violations and the minimal
// counterexample with its texts.
inline void expect_same_verdict(const Verdict& x, const Verdict& y, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(x.checks, y.checks);
  EXPECT_EQ(x.violations, y.violations);
  ASSERT_EQ(x.counterexample.has_value(), y.counterexample.has_value());
  if (x.counterexample) {
    EXPECT_EQ(x.counterexample->location(), y.counterexample->location());
    EXPECT_EQ(x.counterexample->expected, y.counterexample->expected);
    EXPECT_EQ(x.counterexample->actual, y.counterexample->actual);
    EXPECT_EQ(x.counterexample->message, y.counterexample->message);
  }
}

inline void expect_same_verdicts(const InstanceCheck& a, const InstanceCheck& b, const std::string& what) {
  ASSERT_EQ(a.verdicts.size(), b.verdicts.size()) << what;
  EXPECT_EQ(a.mode, b.mode) << what;
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    const Verdict& x = a.verdicts[i];
    const Verdict& y = b.verdicts[i];
    EXPECT_EQ(x.property, y.property) << what;
    EXPECT_EQ(x.status, y.status) << what << " " << x.property;
    expect_same_verdict(x, y, what + " " + x.property);
  }
}

}  // namespace collcheck::test
