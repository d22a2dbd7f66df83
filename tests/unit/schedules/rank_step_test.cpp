// RankStep's recycled block-set storage (the goal: no heap allocation per
// transfer once a checker's RankStep is warm):
//   * after clear(), add_send/add_recv hand out the old sets' storage, empty
//     (kept per thread in spare_block_sets, not in the RankStep, so a stored
//     schedule's RankSteps stay small);
//   * pop_send/pop_recv keep the popped set's storage;
//   * equality compares the transfers only;
//   * the spare storage is bounded (kSpareBlockSets per thread) however many
//     sets are cleared;
//   * a whole schedule refilled step after step through one RankStep equals
//     the freshly generated steps (Swing bandwidth and ring use add_send).
#include <gtest/gtest.h>

#include "schedules/registry.hpp"
#include "schedules/schedule.hpp"

namespace collcheck {
namespace {

TEST(RankStep, ClearKeepsBlockStorageForTheNextStep) {
  spare_block_sets.clear();
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

TEST(RankStep, EqualityComparesTransfersOnly) {
  RankStep a, b;
  a.add_send(1, Combine::reduce).blocks.insert(2);
  a.clear();
  EXPECT_EQ(a, b);
  a.add_send(1, Combine::reduce).blocks.insert(2);
  b.sends.push_back({1, BlockSet::single(2), Combine::reduce});
  EXPECT_EQ(a, b);
  b.sends.back().blocks.insert(3);
  EXPECT_NE(a, b);
}

TEST(RankStep, SpareStorageIsBounded) {
  spare_block_sets.clear();
  RankStep st;
  for (int i = 0; i < 1000; ++i) {
    st.clear();
    for (Rank r = 0; r < 5; ++r) st.add_send(r, Combine::reduce).blocks.insert_range(r, r + 100);
    for (Rank r = 0; r < 5; ++r) st.sends.push_back({r, BlockSet::single(r), Combine::reduce});
    EXPECT_LE(spare_block_sets.size(), kSpareBlockSets);
  }
  st.clear();
  EXPECT_EQ(spare_block_sets.size(), kSpareBlockSets);
  // Sets without storage are not kept.
  spare_block_sets.clear();
  st.sends.push_back({1, BlockSet{}, Combine::copy});
  st.clear();
  EXPECT_TRUE(spare_block_sets.empty());
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
