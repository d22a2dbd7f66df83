// RankStep's recycled block-set storage (issue 19: no heap allocation per
// transfer once a checker's RankStep is warm):
//   * after clear(), add_send/add_recv hand out the old sets' storage, empty;
//   * pop_send/pop_recv keep the popped set's storage;
//   * equality compares the transfers only, never the spare storage;
//   * the spare storage is bounded, and a RankStep only ever filled with
//     push_back keeps none (no memory held for storage nobody takes back);
//   * a whole schedule refilled step after step through one RankStep equals
//     the freshly generated steps (Swing bandwidth and ring use add_send).
#include <gtest/gtest.h>

#include "schedules/registry.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {
namespace {

TEST(RankStep, ClearKeepsBlockStorageForTheNextStep) {
  RankStep st;
  st.add_send(3, Combine::reduce).blocks.insert_range(0, 4);
  st.sends.back().blocks.insert_range(10, 12);
  const BlockSet::Range* storage = st.sends.back().blocks.ranges().data();
  st.clear();
  EXPECT_TRUE(st.empty());
  Transfer& t = st.add_recv(5, Combine::copy);
  EXPECT_TRUE(t.blocks.empty());
  EXPECT_EQ(t.peer, 5u);
  EXPECT_EQ(t.combine, Combine::copy);
  t.blocks.insert(7);
  EXPECT_EQ(t.blocks.ranges().data(), storage) << "the cleared set's storage was not reused";
  st.pop_recv();
  EXPECT_TRUE(st.empty());
  EXPECT_GE(st.add_send(1, Combine::reduce).blocks.ranges().capacity(), 2u);  // the popped set's storage
}

TEST(RankStep, EqualityIgnoresSpareStorage) {
  RankStep a, b;
  a.add_send(1, Combine::reduce).blocks.insert(2);
  a.clear();  // a now has spare storage, b has none
  EXPECT_EQ(a, b);
  a.add_send(1, Combine::reduce).blocks.insert(2);
  b.sends.push_back({1, BlockSet::single(2), Combine::reduce});
  EXPECT_EQ(a, b);
  b.sends.back().blocks.insert(3);
  EXPECT_NE(a, b);
}

TEST(RankStep, SpareStorageIsBounded) {
  RankStep st;
  for (int i = 0; i < 1000; ++i) {
    st.clear();
    for (Rank r = 0; r < 5; ++r) st.add_send(r, Combine::reduce).blocks.insert_range(r, r + 100);
    for (Rank r = 0; r < 5; ++r) st.sends.push_back({r, BlockSet::single(r), Combine::reduce});
  }
  st.clear();
  // Take every spare set back: at most kSpareSets (4) come with storage.
  int with_storage = 0;
  for (int i = 0; i < 100; ++i) with_storage += st.add_send(0, Combine::reduce).blocks.ranges().capacity() > 0;
  EXPECT_LE(with_storage, 4);
  EXPECT_GE(with_storage, 1);
}

TEST(RankStep, PushBackOnlyKeepsNothing) {
  RankStep st;
  st.sends.push_back({1, BlockSet::range(0, 8), Combine::reduce});
  st.clear();
  // The first add_send gets a fresh set: nothing was kept.
  EXPECT_EQ(st.add_send(1, Combine::reduce).blocks.ranges().capacity(), 0u);
}

TEST(RankStep, RefilledStepsEqualFreshOnes) {
  for (const char* algo : {"swing", "ring"})
    for (uint64_t p : {1u, 2u, 6u, 7u, 12u, 16u}) {
      const auto s = find_algorithm(algo)->default_variant().make({p});
      RankStep reused;
      for (Rank r = 0; r < p; ++r)
        for (int step = 0; step < s->num_steps(); ++step) {
          s->rank_step(r, step, reused);
          RankStep fresh;
          s->rank_step(r, step, fresh);
          ASSERT_EQ(reused, fresh) << algo << " p=" << p << " rank " << r << " step " << step;
        }
    }
}

}  // namespace
}  // namespace collcheck
