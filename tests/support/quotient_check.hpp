#pragma once
// check_schedule in exact mode with or without the certified quotient
// (properties/flow/flow_rotation.hpp), and whether the quotient decided the
// result: the two halves of every quotient-against-enumeration test.
#include <string>

#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"

namespace collcheck::test {

inline InstanceCheck check_exact(const Schedule& s, const Claim* claim, const StepHook& hook, bool symmetry) {
  CheckOptions o;
  o.exactness = Exactness::exact;
  o.use_symmetry = symmetry;
  return check_schedule(s, claim, hook, o);
}

// check_schedule on a registered variant at p in exact mode, with the
// registry's claim and the variant's step hook; `o` chooses the paths
// (use_symmetry, grouped_quotient).
inline InstanceCheck check_variant(const VariantInfo& v, uint64_t p, CheckOptions o = {}) {
  const InstanceParams ip{p, 0};
  const auto s = v.make(ip);
  const Claim claim = v.claim(ip);
  o.exactness = Exactness::exact;
  return check_schedule(*s, &claim, family_step_hook(v, ip), o);
}

// The same with the grouped quotient on or off (the rest as by default).
inline InstanceCheck check_variant(const VariantInfo& v, uint64_t p, bool symmetry, bool grouped) {
  CheckOptions o;
  o.use_symmetry = symmetry;
  o.grouped_quotient = grouped;
  return check_variant(v, p, o);
}

inline bool by_quotient(const InstanceCheck& c) {
  return c.stats.count("method") && c.stats.at("method").rfind(kQuotientMethod, 0) == 0;
}

// Why the quotient declined, or "" (for failure messages).
inline std::string declined(const InstanceCheck& c) {
  return c.stats.count("quotient_declined") ? c.stats.at("quotient_declined") : "";
}

}  // namespace collcheck::test
