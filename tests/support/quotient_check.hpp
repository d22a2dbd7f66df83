#pragma once
// check_schedule in exact mode with or without the certified quotient
// (properties/flow/flow_rotation.hpp), and whether the quotient decided the
// result: the two halves of every quotient-against-enumeration test.
#include <string>

#include "properties/instance_checker.hpp"

namespace collcheck::test {

inline InstanceCheck check_exact(const Schedule& s, const Claim* claim, const StepHook& hook, bool symmetry) {
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.use_symmetry = symmetry;
  return check_schedule(s, claim, hook, o);
}

inline bool by_quotient(const InstanceCheck& c) {
  return c.stats.count("method") && c.stats.at("method").rfind(kQuotientMethod, 0) == 0;
}

// Why the quotient declined, or "" (for failure messages).
inline std::string declined(const InstanceCheck& c) {
  return c.stats.count("quotient_declined") ? c.stats.at("quotient_declined") : "";
}

}  // namespace collcheck::test
