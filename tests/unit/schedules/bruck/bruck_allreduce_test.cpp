// Bruck's allreduce on a two-port ring (schedules/bruck/bruck_allreduce.hpp), the
// Trivance paper's baseline (Sec. 2.4):
//
//  * known answers: distances 3^k and 2*3^k in one direction (n = 9, 27), the
//    bandwidth variant's base-3 digit blocks (n = 9 by hand, n = 10 not a
//    power of three);
//  * the bandwidth variant never sends a rank's own block (the question
//    trivance_readings_test.cpp answers for Trivance does not arise);
//  * every generic property for every n in 1..200 (exact), both variants;
//  * the threaded executor computes the allreduce for several n.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "properties/catalog.hpp"
#include "properties/instance_checker.hpp"
#include "runtime/threaded_executor.hpp"
#include "schedules/bruck/bruck_allreduce.hpp"
#include "schedules/registry.hpp"
#include "schedules/trivance/trivance_latency.hpp"
#include "tests/support/mutations.hpp"
#include "tests/support/schedule_lookup.hpp"

namespace collcheck {
namespace {

using mutation::CheckArgs;
using mutation::describe;
using mutation::violated;
using test::peers;

const VariantInfo& variant(const std::string& name) { return test::registered_variant("bruck-allreduce", name); }



TEST(BruckKnownAnswers, LatencyDistancesOneDirection) {
  EXPECT_EQ(find_algorithm("bruck-allreduce")->default_variant().name, "latency");
  auto s = variant("latency").make({27, 0});
  ASSERT_EQ(s->num_steps(), 3);
  EXPECT_EQ(s->ports(), 2);
  RankStep rs;
  const std::set<Rank> recv[] = {{1, 2}, {3, 6}, {9, 18}}, send[] = {{26, 25}, {24, 21}, {18, 9}};
  for (int k = 0; k < 3; ++k) {
    s->rank_step(0, k, rs);
    EXPECT_EQ(peers(rs.recvs), recv[k]) << k;
    EXPECT_EQ(peers(rs.sends), send[k]) << k;
  }
}

TEST(BruckKnownAnswers, BandwidthDigitsN9AndN10) {
  auto s = variant("bandwidth").make({9, 0});
  ASSERT_EQ(s->num_steps(), 4);
  RankStep rs;
  s->rank_step(0, 0, rs);
  EXPECT_EQ(test::send_to(rs, 1).blocks, BlockSet::from_blocks({1, 4, 7}));
  EXPECT_EQ(test::send_to(rs, 2).blocks, BlockSet::from_blocks({2, 5, 8}));
  s->rank_step(0, 1, rs);
  EXPECT_EQ(test::send_to(rs, 3).blocks, BlockSet::single(3));
  EXPECT_EQ(test::send_to(rs, 6).blocks, BlockSet::single(6));
  // n = 10: s = 3; step 2 moves only block offset 9 (digit 1 of 3^2).
  auto t = variant("bandwidth").make({10, 0});
  ASSERT_EQ(t->num_steps(), 6);
  t->rank_step(0, 2, rs);
  ASSERT_EQ(rs.sends.size(), 1u);
  EXPECT_EQ(rs.sends[0].peer, Rank{9});
  EXPECT_EQ(rs.sends[0].blocks, BlockSet::single(9));
}

// Block b's contribution from u moves by the base-3 digits of (b - u) mod n:
// b = u has none. Every rank, every reduce-scatter step, n = 1..200.
TEST(BruckKnownAnswers, BandwidthNeverSendsTheOwnBlock) {
  RankStep rs;
  for (uint64_t n = 1; n <= 200; ++n) {
    auto s = variant("bandwidth").make({n, 0});
    for (int k = 0; k < s->num_steps() / 2; ++k)
      for (Rank r = 0; r < n; ++r) {
        s->rank_step(r, k, rs);
        for (const Transfer& t : rs.sends)
          ASSERT_FALSE(t.blocks.contains(r)) << "n = " << n << " step " << k << " rank " << r;
      }
  }
}

TEST(BruckGeneric, EveryPropertyHoldsForN1To200Exact) {
  for (const char* name : {"latency", "bandwidth"}) {
    const VariantInfo& v = variant(name);
    for (uint64_t n = 1; n <= 200; ++n) {
      InstanceParams ip{n, 0};
      auto s = v.make(ip);
      Claim c = v.claim(ip);
      CheckArgs a;
      a.claim = &c;
      InstanceCheck ic = mutation::check(*s, a);
      ASSERT_TRUE(violated(ic).empty()) << name << " n = " << n << "\n" << describe(ic);
      if (std::string(name) == "bandwidth" && n > 1) {
        EXPECT_EQ(c.steps, 2 * trivance::ceil_log3(n));
        EXPECT_EQ(c.volume_blocks, 2 * (n - 1));
      }
    }
  }
}

TEST(BruckExecutor, ThreadsComputeTheAllreduce) {
  for (const char* name : {"latency", "bandwidth"})
    for (uint64_t n : {1u, 2u, 3u, 4u, 8u, 9u, 11u, 27u}) {
      runtime::ExecOptions o;
      o.seed = 3 + n;
      runtime::ExecResult r = runtime::execute_threads(*variant(name).make({n, 0}), o);
      EXPECT_EQ(r.verdict.status, Status::holds) << name << " n = " << n;
      EXPECT_FALSE(r.deadlock);
    }
}

}  // namespace
}  // namespace collcheck
