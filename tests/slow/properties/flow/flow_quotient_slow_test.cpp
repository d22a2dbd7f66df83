// The quotient against enumeration (exact) for every declared variant and
// every p in 129..512 (the unit test covers 1..128). Enumerating exactly
// costs p^3/64 words per instance (about 20 minutes for 129..512 on two
// cores), so the range 1..4096 is out of reach for the comparison.
#include <gtest/gtest.h>

#include "properties/family_property.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

TEST(QuotientSlow, SameVerdictsAsEnumerationForEveryDeclaredVariantTo512) {
  int quotient = 0;
  for (const AlgorithmInfo& a : registry())
    for (const VariantInfo& v : a.variants) {
      if (v.symmetry == SymmetryGroup::undeclared) continue;
      for (uint64_t p = 129; p <= 512; ++p) {
        InstanceParams ip;
        ip.p = p;
        if (v.violates && v.violates(ip)) continue;
        auto s = v.make(ip);
        if (!dynamic_cast<const EquivariantSchedule*>(s.get())) continue;  // enumerated either way
        const Claim claim = v.claim(ip);
        const StepHook hook = family_step_hook(v, ip);
        CheckOptions o;
        o.exactness = Exactness::exact;
        InstanceCheck q = check_schedule(*s, &claim, hook, o);
        o.use_symmetry = false;
        InstanceCheck e = check_schedule(*s, &claim, hook, o);
        ASSERT_EQ(q.stats.at("method").rfind(kQuotientMethod, 0), 0u);
        test::expect_same_verdicts(q, e, a.name + "/" + v.name + " p=" + std::to_string(p));
        ++quotient;
      }
    }
  EXPECT_GT(quotient, 1500);
}

}  // namespace
}  // namespace collcheck
