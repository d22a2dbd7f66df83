// The fold composition over certified-quotient cores against enumeration
// (exact) beyond the unit test's p <= 130: recursive doubling (latency and
// Rabenseifner, folds onto 2^k with one extra rank per core rank) and
// Bruck's and Trivance's latency allreduce (folds onto 3^t with up to two)
// for every p in 131..COLLCHECK_FOLD_MAX_P (default 600, 16 s on two
// cores; 1024 took 79 s): the same verdicts, checks and counterexamples,
// and every fold decided by the composition.
#include <gtest/gtest.h>

#include <cstdlib>

#include "schedules/fold.hpp"
#include "tests/support/quotient_check.hpp"
#include "tests/support/schedule_lookup.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

uint64_t max_p() {
  const char* env = std::getenv("COLLCHECK_FOLD_MAX_P");
  return env && *env ? std::strtoull(env, nullptr, 10) : 600;
}

TEST(FoldCompositionSlow, SameVerdictsAsEnumerationBeyond130) {
  int composed = 0;
  const std::pair<const char*, const char*> variants[] = {{"recursive-doubling", "latency"},
                                                          {"recursive-doubling", "bandwidth"},
                                                          {"bruck-allreduce", "latency"},
                                                          {"trivance", "latency"}};
  for (auto [algo, name] : variants) {
    const VariantInfo& v = test::registered_variant(algo, name);
    for (uint64_t p = 131; p <= max_p(); ++p) {
      CheckOptions sym, enu;
      enu.use_symmetry = false;
      const InstanceCheck q = test::check_variant(v, p, sym), e = test::check_variant(v, p, enu);
      const std::string what = std::string(algo) + "/" + name + " p=" + std::to_string(p);
      ASSERT_TRUE(q.stats.count("method")) << what << ": " << test::declined(q);
      if (dynamic_cast<const FoldedSchedule*>(v.make(InstanceParams{p, 0}).get())) {
        EXPECT_EQ(q.stats.at("method").rfind("composition: ", 0), 0u) << what;
        ++composed;
      }
      test::expect_same_verdicts(q, e, what);
    }
  }
  EXPECT_GT(composed, 1500);
}

}  // namespace
}  // namespace collcheck
