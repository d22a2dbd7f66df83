// Mutation tests for Trivance on a torus (registry `trivance-torus`): the
// 9x9 schedule of Fig. 5 (the Trivance paper Sec. 5), materialized
// and broken in three ways the paper's pattern rules out, must fail both the
// generic properties and trivance-coverage (properties/trivance/trivance_torus_coverage.hpp):
//
//  * wrong dimension switch: in step 1 collective 0 stays on dimension 0
//    (Fig. 5: "both collectives switch dimensions");
//  * wrong distance: in step 2 collective 0 talks at distance 1, not 3;
//  * dropped transfer: one send of step 0 and its receive removed;
//  * (latency) collective 0's steps 1 and 2 swapped: still a correct
//    allreduce (the generic properties hold), but not Fig. 5's switching, and
//    two collectives share a dimension: trivance-coverage alone fails.
//
// Every mutation moves whole transfers of all ranks and rebuilds the receive
// lists from the sends, so matching still holds and only the pattern breaks.
// The unmutated materialized schedule passes (the coverage property's generic
// path, which reads the collective from the block index, is exercised too).
#include <gtest/gtest.h>

#include <string>

#include "properties/catalog.hpp"
#include "properties/trivance/trivance_torus_coverage.hpp"
#include "schedules/registry.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

constexpr uint32_t kSide = 9;
const std::vector<uint32_t> kDims = {kSide, kSide};

InstanceParams params() {
  InstanceParams ip;
  ip.p = kSide * kSide;
  ip.dims = kDims;
  return ip;
}

MaterializedSchedule fig5(const std::string& variant) {
  return materialize(*test::registered_variant("trivance-torus", variant).make(params()));
}

uint32_t x_of(Rank r) { return r / kSide; }
uint32_t y_of(Rank r) { return r % kSide; }
Rank at(uint32_t x, uint32_t y) { return (x % kSide) * kSide + (y % kSide); }

// The collective of a transfer: block c (latency) or blocks c*p.. (bandwidth).
int collective_of(const MaterializedSchedule& m, const Transfer& t) {
  return static_cast<int>(t.blocks.ranges().front().lo / (m.spec.nblocks / 2));
}

// The receive lists of `step`, rebuilt from its sends.
void rebuild_recvs(MaterializedSchedule& m, int step) {
  auto& ranks = m.steps[static_cast<size_t>(step)];
  for (auto& rs : ranks) rs.recvs.clear();
  for (Rank r = 0; r < ranks.size(); ++r)
    for (const Transfer& t : ranks[r].sends) ranks[t.peer].recvs.push_back({r, t.blocks, t.combine});
}

// Re-targets every send of collective c in `step`: new peer = f(rank, old peer).
template <class F>
void retarget(MaterializedSchedule& m, int step, int c, F f) {
  auto& ranks = m.steps.at(static_cast<size_t>(step));
  int moved = 0;
  for (Rank r = 0; r < ranks.size(); ++r)
    for (Transfer& t : ranks[r].sends)
      if (collective_of(m, t) == c) {
        t.peer = f(r, t.peer);
        ++moved;
      }
  if (moved == 0) throw std::logic_error("mutation moved nothing");
  rebuild_recvs(m, step);
}

// Signed offset q - r along one dimension of side kSide, in (-kSide/2, kSide/2].
int offset(uint32_t from, uint32_t to) {
  int d = (static_cast<int>(to) - static_cast<int>(from) + static_cast<int>(kSide)) % static_cast<int>(kSide);
  return d > static_cast<int>(kSide) / 2 ? d - static_cast<int>(kSide) : d;
}

struct Outcome {
  std::set<std::string> generic;
  Verdict coverage;
};

Outcome check(const MaterializedSchedule& m, const std::string& variant) {
  const Claim claim = test::registered_variant("trivance-torus", variant).claim(params());
  mutation::CheckArgs a;
  a.claim = &claim;
  MaterializedView view(m);
  return {mutation::violated(mutation::check(view, a)), trivance_torus_coverage(view, kDims)};
}

class TorusMutation : public ::testing::TestWithParam<std::string> {};

TEST_P(TorusMutation, UnmutatedHolds) {
  const Outcome o = check(fig5(GetParam()), GetParam());
  EXPECT_TRUE(o.generic.empty());
  EXPECT_EQ(o.coverage.status, Status::holds);
  EXPECT_EQ(o.coverage.stats.at("covered_per_step"), "3,9,27,81");
}

TEST_P(TorusMutation, WrongDimensionSwitchFails) {
  MaterializedSchedule m = fig5(GetParam());
  // Step 1, collective 0: (x, y +- 1) becomes (x +- 1, y).
  retarget(m, 1, 0, [](Rank r, Rank q) { return at(x_of(r) + kSide + offset(y_of(r), y_of(q)), y_of(r)); });
  const Outcome o = check(m, GetParam());
  EXPECT_FALSE(o.generic.empty());
  if (GetParam() == "latency") {  // dimension 0 at distance 1 twice
    EXPECT_TRUE(o.generic.count(prop::exactly_once));
  }
  EXPECT_TRUE(o.generic.count(prop::postcondition));
  ASSERT_EQ(o.coverage.status, Status::violated);
  EXPECT_EQ(o.coverage.counterexample->step, 1);
}

TEST_P(TorusMutation, WrongDistanceFails) {
  MaterializedSchedule m = fig5(GetParam());
  // Step 2, collective 0: (x +- 3, y) becomes (x +- 1, y).
  retarget(m, 2, 0, [](Rank r, Rank q) {
    const int d = offset(x_of(r), x_of(q));
    if (d != 3 && d != -3) throw std::logic_error("expected distance 3 in step 2");
    return at(x_of(r) + kSide + d / 3, y_of(r));
  });
  const Outcome o = check(m, GetParam());
  EXPECT_TRUE(o.generic.count(prop::postcondition));
  ASSERT_EQ(o.coverage.status, Status::violated);
  EXPECT_EQ(o.coverage.counterexample->step, 2);
}

TEST_P(TorusMutation, DroppedTransferFails) {
  MaterializedSchedule m = fig5(GetParam());
  // Rank (0, 0)'s step-0 send of collective 0 to (1, 0), and its receive.
  mutation::drop_transfer(m, 0, at(0, 0), at(1, 0));
  const Outcome o = check(m, GetParam());
  EXPECT_TRUE(o.generic.count(prop::postcondition));
  ASSERT_EQ(o.coverage.status, Status::violated);
  EXPECT_EQ(o.coverage.counterexample->step, 0);
}

INSTANTIATE_TEST_SUITE_P(Variants, TorusMutation, ::testing::Values("latency", "bandwidth"));

// Latency: collective 0's steps 1 and 2 swapped gives dimension order 0, 0, 1, 1
// (distances 1, 3, 1, 3): still a correct allreduce within 2D ports (every
// generic property holds), but the collectives no longer switch dimensions
// and share one in steps 1 and 2. Only trivance-coverage sees it.
TEST(TorusMutationLatency, UnswitchedDimensionsAreCaughtByCoverageOnly) {
  MaterializedSchedule m = fig5("latency");
  for (Rank r = 0; r < m.spec.p; ++r)
    for (auto list : {&RankStep::sends, &RankStep::recvs}) {
      auto& a = m.steps[1][r].*list;
      auto& b = m.steps[2][r].*list;
      std::vector<Transfer> a0, b0, a1, b1;
      for (const Transfer& t : a) (collective_of(m, t) == 0 ? a0 : a1).push_back(t);
      for (const Transfer& t : b) (collective_of(m, t) == 0 ? b0 : b1).push_back(t);
      ASSERT_EQ(a0.size(), 2u);
      a = b0;
      a.insert(a.end(), a1.begin(), a1.end());
      b = a0;
      b.insert(b.end(), b1.begin(), b1.end());
    }
  const Outcome o = check(m, "latency");
  EXPECT_TRUE(o.generic.empty());
  ASSERT_EQ(o.coverage.status, Status::violated);
  EXPECT_EQ(o.coverage.counterexample->rank, 0u);
  EXPECT_EQ(o.coverage.counterexample->step, 1);
  EXPECT_EQ(o.coverage.stats.at("port_collision_rank_steps"), "162");  // 81 nodes, steps 1 and 2
}

}  // namespace
}  // namespace collcheck
