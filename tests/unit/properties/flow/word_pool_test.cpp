// The word pool (properties/flow/word_pool.hpp) that keeps the flow
// simulator's contribution state across instances:
//   * a dropped buffer is reused by the next request it can serve, a larger
//     request frees the smaller free buffers instead of keeping them;
//   * the simulator never reads a recycled buffer's stale words: checking a
//     broken schedule (its state full of violations) and then a correct one
//     of the same size in the same process gives exactly the verdicts of the
//     correct one checked on a fresh allocation, in both exact and
//     fingerprint modes, and the other way round.
#include <gtest/gtest.h>

#include "properties/flow/word_pool.hpp"
#include "properties/instance_checker.hpp"
#include "schedules/registry.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/verdict_compare.hpp"

namespace collcheck {
namespace {

TEST(WordPool, ReusesAndNeverHoldsMoreThanItsPeak) {
  flow::release_pooled_words();
  const uint64_t* first;
  {
    flow::PooledWords a(1000);
    first = a.data();
    ASSERT_GE(a.size(), 1000u);
  }
  EXPECT_EQ(flow::pooled_free_words(), 1000u);
  {
    flow::PooledWords b(600);  // served by the free 1000-word buffer
    EXPECT_EQ(b.data(), first);
    EXPECT_EQ(flow::pooled_free_words(), 0u);
  }
  {
    flow::PooledWords c(5000);  // no free buffer fits: the 1000 words are freed, not kept
    EXPECT_EQ(flow::pooled_free_words(), 0u);
  }
  EXPECT_EQ(flow::pooled_free_words(), 5000u);
  {
    flow::PooledWords d(100), e(100);  // two in use at once: one reused, one new
    EXPECT_NE(d.data(), e.data());
  }
  EXPECT_EQ(flow::pooled_free_words(), 5000u + 100u);
  flow::release_pooled_words();
  EXPECT_EQ(flow::pooled_free_words(), 0u);
}

// Swing bandwidth p = 12 (generic simulation: not translation-invariant),
// correct and with one transfer dropped.
std::unique_ptr<Schedule> correct() { return find_algorithm("swing")->default_variant().make({12}); }
std::unique_ptr<Schedule> broken() {
  MaterializedSchedule m = materialize(*correct());
  mutation::drop_transfer(m, 1, 0, mutation::send_peer(m, 1, 0));
  return std::make_unique<MaterializedView>(std::move(m));
}

TEST(WordPool, StaleStateNeverLeaksIntoTheNextInstance) {
  for (Exactness e : {Exactness::exact, Exactness::fingerprint}) {
    CheckOptions o;
    o.exactness = e;
    o.use_symmetry = false;
    flow::release_pooled_words();
    const InstanceCheck good_fresh = check_schedule(*correct(), nullptr, {}, o);
    flow::release_pooled_words();
    const InstanceCheck bad_fresh = check_schedule(*broken(), nullptr, {}, o);
    ASSERT_GT(flow::pooled_free_words(), 0u);
    // The broken instance's state is now in the pool; the next instance gets it.
    const InstanceCheck good_after_bad = check_schedule(*correct(), nullptr, {}, o);
    const InstanceCheck bad_after_good = check_schedule(*broken(), nullptr, {}, o);
    test::expect_same_verdicts(good_fresh, good_after_bad, to_string(e));
    test::expect_same_verdicts(bad_fresh, bad_after_good, to_string(e));
    bool any_violated = false;
    for (const Verdict& v : bad_fresh.verdicts) any_violated = any_violated || v.status == Status::violated;
    EXPECT_TRUE(any_violated) << "the mutant must be refuted, else the test shows nothing";
    for (const Verdict& v : good_fresh.verdicts) EXPECT_NE(v.status, Status::violated) << v.property;
  }
}

}  // namespace
}  // namespace collcheck
