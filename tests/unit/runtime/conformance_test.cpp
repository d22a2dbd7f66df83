// Conformance of a traced schedule to a registry schedule
// (runtime/trace/conformance.hpp): the registry's own schedule conforms;
// a transfer moved to another step, a block sent to another peer, a copy
// where the registry reduces and an element missing each do not, and the
// first difference is named with both sides.
#include "runtime/trace/conformance.hpp"

#include <gtest/gtest.h>

#include "runtime/inputs.hpp"
#include "schedules/registry.hpp"

namespace collcheck::runtime::trace {
namespace {

std::unique_ptr<Schedule> registry_schedule(const std::string& algo, const std::string& variant, uint64_t p) {
  const AlgorithmInfo* a = find_algorithm(algo);
  EXPECT_NE(a, nullptr);
  const VariantInfo* v = a->find_variant(variant);
  EXPECT_NE(v, nullptr);
  InstanceParams ip;
  ip.p = p;
  return v->make(ip);
}

// What a faithful trace of `s` with `per_block` elements per block gives:
// the same transfers over elements (written out here, not with the module's mapping).
MaterializedSchedule as_traced(const Schedule& s, uint64_t per_block) {
  MaterializedSchedule m = materialize(s);
  m.spec.nblocks *= per_block;
  for (auto& step : m.steps)
    for (RankStep& rs : step)
      for (auto* ts : {&rs.sends, &rs.recvs})
        for (Transfer& t : *ts) {
          BlockSet e;
          for (const auto& r : t.blocks.ranges()) e.insert_range(r.lo * per_block, r.hi * per_block);
          t.blocks = e;
        }
  return m;
}

TEST(Conformance, TheRegistryScheduleConformsToItself) {
  for (uint64_t p : {2, 8, 16, 64}) {
    auto s = registry_schedule("swing", "latency", p);
    const MaterializedSchedule traced = as_traced(*s, 1);
    ASSERT_FALSE(incomparable(traced.spec, s->spec()));
    const Conformance c = compare(traced, *s);
    EXPECT_TRUE(c.conforms()) << p << ": " << c.first->text();
    EXPECT_EQ(c.steps, s->num_steps());
    EXPECT_EQ(c.transfers, p * static_cast<uint64_t>(s->num_steps()));
  }
}

TEST(Conformance, SeveralElementsPerBlockAndTheBandwidthVariant) {
  auto s = registry_schedule("swing", "bandwidth", 8);
  EXPECT_TRUE(compare(as_traced(*s, 3), *s).conforms());
  // The layout is block_elements': with 3 elements per block the traced
  // schedule over 24 elements lines up, shifted by one element it does not.
  MaterializedSchedule shifted = as_traced(*s, 3);
  Transfer& t = shifted.steps[0][0].sends[0];
  BlockSet e;
  for (const auto& r : t.blocks.ranges()) e.insert_range(r.lo + 1, r.hi + 1 > 24 ? 24 : r.hi + 1);
  t.blocks = e;
  const Conformance c = compare(shifted, *s);
  ASSERT_FALSE(c.conforms());
  EXPECT_EQ(c.first->step, 0);
  EXPECT_EQ(c.first->rank, 0u);
  EXPECT_EQ(c.first->peer, t.peer);
}

// The mutant: one message (rank r's send to q in step s, and
// q's receive of it) moved to step s + 1.
TEST(Conformance, AMessageMovedToAnotherStepIsTheFirstDifference) {
  auto s = registry_schedule("swing", "latency", 16);
  MaterializedSchedule m = as_traced(*s, 1);
  const int step = 2;
  const Rank r = 5;
  const Transfer moved = m.steps[step][r].sends[0];
  m.steps[step][r].sends.erase(m.steps[step][r].sends.begin());
  auto& q_recvs = m.steps[step][moved.peer].recvs;
  const auto it = std::find_if(q_recvs.begin(), q_recvs.end(), [&](const Transfer& x) { return x.peer == r; });
  ASSERT_NE(it, q_recvs.end());
  const Transfer received = *it;
  q_recvs.erase(it);
  m.steps[step + 1][r].sends.push_back(moved);
  m.steps[step + 1][moved.peer].recvs.push_back(received);
  const Conformance c = compare(m, *s);
  ASSERT_FALSE(c.conforms());
  const Rank first = std::min(r, moved.peer);  // the smallest rank whose step 2 differs
  EXPECT_EQ(c.first->step, step);
  EXPECT_EQ(c.first->rank, first);
  EXPECT_EQ(c.first->peer, first == r ? moved.peer : r);
  // The pair still exchanges the other way in that step: only the moved direction is missing.
  EXPECT_EQ(c.first->traced, first == r ? "receives elements {0} (reduce)" : "sends elements {0} (reduce)");
  EXPECT_EQ(c.first->reference, "sends elements {0} (reduce); receives elements {0} (reduce)");
  EXPECT_NE(c.first->text().find("step 2, rank " + std::to_string(first)), std::string::npos) << c.first->text();
}

TEST(Conformance, ACopyWhereTheRegistryReducesAndAnotherPeerDiffer) {
  auto s = registry_schedule("swing", "latency", 8);
  MaterializedSchedule copy = as_traced(*s, 1);
  copy.steps[1][3].recvs[0].combine = Combine::copy;
  Conformance c = compare(copy, *s);
  ASSERT_FALSE(c.conforms());
  EXPECT_EQ(c.first->step, 1);
  EXPECT_EQ(c.first->rank, 3u);
  EXPECT_NE(c.first->traced.find("(copy)"), std::string::npos);
  EXPECT_NE(c.first->reference.find("(reduce)"), std::string::npos);

  MaterializedSchedule other = as_traced(*s, 1);
  const Rank was = other.steps[0][0].sends[0].peer;
  other.steps[0][0].sends[0].peer = was == 1 ? 2 : 1;
  c = compare(other, *s);
  ASSERT_FALSE(c.conforms());
  EXPECT_EQ(c.first->step, 0);
  EXPECT_EQ(c.first->rank, 0u);
  EXPECT_EQ(c.first->peer, std::min<Rank>(was, was == 1 ? 2 : 1));
}

TEST(Conformance, ExtraStepsOnEitherSideDiffer) {
  auto s = registry_schedule("swing", "latency", 4);
  MaterializedSchedule shorter = as_traced(*s, 1);
  shorter.steps.pop_back();
  Conformance c = compare(shorter, *s);
  ASSERT_FALSE(c.conforms());
  EXPECT_EQ(c.first->step, s->num_steps() - 1);

  MaterializedSchedule longer = as_traced(*s, 1);
  longer.steps.push_back(longer.steps.back());
  c = compare(longer, *s);
  ASSERT_FALSE(c.conforms());
  EXPECT_EQ(c.first->step, s->num_steps());
  EXPECT_EQ(c.first->reference, "nothing");
}

TEST(Conformance, OrderWithinAStepDoesNotMatter) {
  auto s = registry_schedule("swing", "bandwidth", 8);
  MaterializedSchedule m = as_traced(*s, 1);
  for (auto& step : m.steps)
    for (RankStep& rs : step) {
      std::reverse(rs.sends.begin(), rs.sends.end());
      std::reverse(rs.recvs.begin(), rs.recvs.end());
    }
  EXPECT_TRUE(compare(m, *s).conforms());
}

TEST(Conformance, IncomparableSpecsAreNamed) {
  auto s = registry_schedule("swing", "bandwidth", 8);
  CollectiveSpec t = s->spec();
  EXPECT_FALSE(incomparable(t, s->spec()));
  t.nblocks = 7;  // fewer elements than blocks
  EXPECT_NE(incomparable(t, s->spec())->find("8 blocks"), std::string::npos);
  t = s->spec();
  t.p = 16;
  EXPECT_NE(incomparable(t, s->spec())->find("16 ranks"), std::string::npos);
  t = s->spec();
  t.kind = Collective::allgather;
  EXPECT_NE(incomparable(t, s->spec())->find("allgather"), std::string::npos);
}

TEST(Conformance, BlockElementsSplitsLikeTheExecutor) {
  EXPECT_EQ(block_elements(10, 4, 0), (std::pair<uint64_t, uint64_t>{0, 3}));
  EXPECT_EQ(block_elements(10, 4, 1), (std::pair<uint64_t, uint64_t>{3, 6}));
  EXPECT_EQ(block_elements(10, 4, 3), (std::pair<uint64_t, uint64_t>{8, 10}));
}

}  // namespace
}  // namespace collcheck::runtime::trace
